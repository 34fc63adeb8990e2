// nearwire shm-ring: segment layout and the syscalls that create, open and map a segment.
//
// The ring logic itself (records, positions, parking) runs in JavaScript on an external
// ArrayBuffer over the mapping (src/ring.ts); this header owns the layout constants that
// src/ring-layout.ts mirrors, and PROTOCOL.md section 6 documents.
//
// Segment (all integers little-endian; C = ring capacity, a power of two):
//
//   offset        size  what
//   0             4096  segment header
//     +0             4    magic 0x5253574E ("NWSR" in memory)
//     +4             4    layout version (kLayoutVersion)
//     +8             4    header bytes (4096)
//     +12            4    ring count (2)
//     +16            8    ring capacity C, bytes, each ring
//     +24            8    max payload bytes per record
//     +32            8    segment bytes (4096 + 2 * C)
//     +40            8    nonce (random, echoed in the handshake)
//     +512         512    ring 0 control block (client -> server)
//     +1024        512    ring 1 control block (server -> client)
//   4096          C     ring 0 data
//   4096 + C      C     ring 1 data
//
// Ring control block (each field on its own 128-byte line, so the producer's and the
// consumer's writes never share a cache line or an adjacent-line prefetch pair):
//
//   +0    u64  producer position (bytes ever written; advisory, may lag)
//   +128  u64  consumer position (bytes ever consumed; the producer reads it when full)
//   +256  i32  consumer parked flag (1 = consumer sleeps until a doorbell)
//   +384  i32  producer waiting flag (1 = producer waits for space, wants a doorbell)
//
// Record at data offset (position mod C), 8-byte aligned:
//
//   +0  u32  word: bit 31 = committed, bits 0..30 = payload length N (stored last)
//   +4  u8   type (0x00 = padding to the end of the ring, 0x10..0xFF = frame)
//   +5  3    zero
//   +8  N    payload
//   record bytes = align8(8 + N); the producer zeroes the word after each record first.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nearwire {

constexpr uint32_t kMagic = 0x5253574E;
constexpr uint32_t kLayoutVersion = 1;
constexpr size_t kHeaderBytes = 4096;

/** Result of a syscall sequence: 0 and a value, or the errno and the failing call's name. */
struct SysResult {
  int err = 0;
  const char* syscall = "";
};

/**
 * Creates an anonymous segment of `bytes`: a memfd (no name anywhere), or, when `dir` is not
 * empty, a 0600 file `dir/nearwire-shm-XXXXXX` that is unlinked before this returns. The pages
 * are reserved with posix_fallocate so a full tmpfs fails here (ENOSPC), not later (SIGBUS).
 */
inline SysResult CreateSegmentFd(size_t bytes, const std::string& dir, int* fdOut) {
  int fd;
  if (dir.empty()) {
    fd = memfd_create("nearwire-shm", MFD_CLOEXEC);
    if (fd < 0) return {errno, "memfd_create"};
  } else {
    std::string path = dir + "/nearwire-shm-XXXXXX";
    fd = mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0) return {errno, "mkostemp"};
    unlink(path.c_str());
  }
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    int e = errno;
    close(fd);
    return {e, "ftruncate"};
  }
  int e = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  if (e != 0) {
    close(fd);
    return {e, "posix_fallocate"};
  }
  *fdOut = fd;
  return {};
}

/** Opens an existing segment by path (`/proc/PID/fd/N`) and reports its size. */
inline SysResult OpenSegmentFd(const std::string& path, int* fdOut, size_t* bytesOut) {
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return {errno, "open"};
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return {e, "fstat"};
  }
  *fdOut = fd;
  *bytesOut = static_cast<size_t>(st.st_size);
  return {};
}

/** Maps `bytes` of `fd` shared, read-write, with the page tables populated. */
inline SysResult MapSegment(int fd, size_t bytes, void** addrOut) {
  void* addr = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (addr == MAP_FAILED) return {errno, "mmap"};
  *addrOut = addr;
  return {};
}

}  // namespace nearwire

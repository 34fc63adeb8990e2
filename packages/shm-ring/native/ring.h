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

/** Seals a memfd segment carries before its fd is offered: its size can never change. */
constexpr int kSegmentSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

/**
 * Creates an anonymous segment of `bytes`: a memfd (no name anywhere) sized and sealed with
 * kSegmentSeals, so no holder of the fd can shrink it (a shrunk mapping faults with SIGBUS) or
 * grow it; or, when `dir` is not empty, a 0600 file `dir/nearwire-shm-XXXXXX` that is unlinked
 * before this returns (regular files take no seals). No pages are committed here: see
 * CommitSegment, called once the peer has accepted the segment.
 */
inline SysResult CreateSegmentFd(size_t bytes, const std::string& dir, int* fdOut) {
  int fd;
  bool memfd = dir.empty();
  if (memfd) {
    fd = memfd_create("nearwire-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
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
  if (memfd && fcntl(fd, F_ADD_SEALS, kSegmentSeals) != 0) {
    int e = errno;
    close(fd);
    return {e, "fcntl(F_ADD_SEALS)"};
  }
  *fdOut = fd;
  return {};
}

/**
 * Reserves every page of a segment with posix_fallocate, so a full tmpfs or memory limit fails
 * here (ENOSPC, ENOMEM) and not later as SIGBUS on first touch. Cheap when already reserved.
 */
inline SysResult ReserveSegment(int fd, size_t bytes) {
  int e = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  if (e != 0) return {e, "posix_fallocate"};
  return {};
}

/**
 * Populates the page tables of a mapping writable (MADV_POPULATE_WRITE, Linux 5.14+) so the
 * ring's first lap takes no page faults; an older kernel (EINVAL) just faults lazily. EFAULT
 * means a page could not be had (would be SIGBUS on access).
 */
inline SysResult PopulateMapping(void* addr, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  if (madvise(addr, bytes, MADV_POPULATE_WRITE) != 0 && errno != EINVAL) return {errno, "madvise"};
#else
  (void)addr;
  (void)bytes;
#endif
  return {};
}

/** Seals a client requires before it maps a segment: without them the server could shrink the
 * file under the client's mapping and make it fault (SIGBUS). */
constexpr int kRequiredSeals = F_SEAL_SHRINK | F_SEAL_GROW;

/**
 * Opens an existing segment by path (`/proc/PID/fd/N`), reports its size and reserves its
 * pages (ReserveSegment), so a segment that cannot be backed fails the handshake, not the ring.
 * With `requireSeals`, a file that lacks kRequiredSeals (a regular file, or a memfd its creator
 * did not seal) fails with EPERM from "segment seals", before anything is reserved or mapped.
 */
inline SysResult OpenSegmentFd(const std::string& path, bool requireSeals, int* fdOut,
                               size_t* bytesOut) {
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return {errno, "open"};
  if (requireSeals) {
    // A file system without sealing answers EINVAL: unsealed as far as a client can know.
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || (seals & kRequiredSeals) != kRequiredSeals) {
      close(fd);
      return {EPERM, "segment seals"};
    }
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return {e, "fstat"};
  }
  if (st.st_size > 0) {
    SysResult r = ReserveSegment(fd, static_cast<size_t>(st.st_size));
    if (r.err != 0) {
      close(fd);
      return r;
    }
  }
  *fdOut = fd;
  *bytesOut = static_cast<size_t>(st.st_size);
  return {};
}

/** Maps `bytes` of `fd` shared, read-write; `populate` prefaults the page tables. */
inline SysResult MapSegment(int fd, size_t bytes, bool populate, void** addrOut) {
  int flags = MAP_SHARED | (populate ? MAP_POPULATE : 0);
  void* addr = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, flags, fd, 0);
  if (addr == MAP_FAILED) return {errno, "mmap"};
  *addrOut = addr;
  return {};
}

}  // namespace nearwire

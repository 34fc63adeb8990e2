/* CRC-32C implementations; see crc32c.h. */
#include "crc32c.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC32C_X86 1
#include <nmmintrin.h>
#elif defined(__aarch64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#define CRC32C_ARM 1
#include <arm_acle.h>
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif

#define POLY 0x82f63b78u

/* Stream lengths of the 3-way interleave: LONG for big inputs, SHORT for the rest. */
#define LONG 8192
#define SHORT 256

/* crc32c_table[k][b]: CRC register contribution of byte b followed by k zero bytes. */
static uint32_t crc32c_table[8][256];
/* crc32c_long[k][b] / crc32c_short[k][b]: shift byte k of a register over LONG / SHORT zeros. */
static uint32_t crc32c_long[4][256];
static uint32_t crc32c_short[4][256];

static uint32_t (*crc32c_impl)(uint32_t, const unsigned char *, size_t) = crc32c_sw;
static const char *crc32c_name = "slice-by-8";

static inline uint64_t load64le(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

/* Register after feeding n zero bytes to register `crc` (no pre/post inversion). */
static uint32_t zeros_slow(uint32_t crc, size_t n) {
  while (n--) crc = crc32c_table[0][crc & 0xff] ^ (crc >> 8);
  return crc;
}

/* table[k][b] = shift of (b << 8k) over n zero bytes; linear, so 4 lookups shift any register. */
static void zeros_table(uint32_t table[4][256], size_t n) {
  uint32_t basis[32];
  for (int i = 0; i < 32; i++) basis[i] = zeros_slow(1u << i, n);
  for (int k = 0; k < 4; k++)
    for (int b = 0; b < 256; b++) {
      uint32_t v = 0;
      for (int i = 0; i < 8; i++)
        if (b & (1 << i)) v ^= basis[8 * k + i];
      table[k][b] = v;
    }
}

static inline uint32_t shift(uint32_t table[4][256], uint32_t crc) {
  return table[0][crc & 0xff] ^ table[1][(crc >> 8) & 0xff] ^ table[2][(crc >> 16) & 0xff] ^
         table[3][crc >> 24];
}

uint32_t crc32c_sw(uint32_t crc, const unsigned char *buf, size_t len) {
  uint32_t c = ~crc;
  while (len && ((uintptr_t)buf & 7)) {
    c = crc32c_table[0][(c ^ *buf++) & 0xff] ^ (c >> 8);
    len--;
  }
  while (len >= 8) {
    uint64_t v = load64le(buf) ^ c;
    c = crc32c_table[7][v & 0xff] ^ crc32c_table[6][(v >> 8) & 0xff] ^
        crc32c_table[5][(v >> 16) & 0xff] ^ crc32c_table[4][(v >> 24) & 0xff] ^
        crc32c_table[3][(v >> 32) & 0xff] ^ crc32c_table[2][(v >> 40) & 0xff] ^
        crc32c_table[1][(v >> 48) & 0xff] ^ crc32c_table[0][v >> 56];
    buf += 8;
    len -= 8;
  }
  while (len--) c = crc32c_table[0][(c ^ *buf++) & 0xff] ^ (c >> 8);
  return ~c;
}

/*
 * The 3-way body shared by the hardware variants. CRC8(c, p) and CRC1(c, p) feed 8 / 1 bytes.
 * Three streams of n bytes run in parallel (the CRC instruction has a latency of ~3 cycles and a
 * throughput of one per cycle); the register of the first is then shifted over the next stream
 * and XORed with it, twice: crc(A B C) = shift(shift(a, |B|) ^ b, |C|) ^ c.
 */
#define CRC32C_3WAY(CRC8, CRC1)                                                     \
  uint64_t c0 = ~crc & 0xffffffffu;                                                 \
  while (len && ((uintptr_t)buf & 7)) {                                             \
    c0 = CRC1(c0, *buf++);                                                          \
    len--;                                                                          \
  }                                                                                 \
  while (len >= 3 * LONG) {                                                         \
    uint64_t c1 = 0, c2 = 0;                                                        \
    const unsigned char *end = buf + LONG;                                          \
    do {                                                                            \
      c0 = CRC8(c0, load64le(buf));                                                 \
      c1 = CRC8(c1, load64le(buf + LONG));                                          \
      c2 = CRC8(c2, load64le(buf + 2 * LONG));                                      \
      buf += 8;                                                                     \
    } while (buf < end);                                                            \
    c0 = shift(crc32c_long, (uint32_t)c0) ^ c1;                                     \
    c0 = shift(crc32c_long, (uint32_t)c0) ^ c2;                                     \
    buf += 2 * LONG;                                                                \
    len -= 3 * LONG;                                                                \
  }                                                                                 \
  while (len >= 3 * SHORT) {                                                        \
    uint64_t c1 = 0, c2 = 0;                                                        \
    const unsigned char *end = buf + SHORT;                                         \
    do {                                                                            \
      c0 = CRC8(c0, load64le(buf));                                                 \
      c1 = CRC8(c1, load64le(buf + SHORT));                                         \
      c2 = CRC8(c2, load64le(buf + 2 * SHORT));                                     \
      buf += 8;                                                                     \
    } while (buf < end);                                                            \
    c0 = shift(crc32c_short, (uint32_t)c0) ^ c1;                                    \
    c0 = shift(crc32c_short, (uint32_t)c0) ^ c2;                                    \
    buf += 2 * SHORT;                                                               \
    len -= 3 * SHORT;                                                               \
  }                                                                                 \
  while (len >= 8) {                                                                \
    c0 = CRC8(c0, load64le(buf));                                                   \
    buf += 8;                                                                       \
    len -= 8;                                                                       \
  }                                                                                 \
  while (len--) c0 = CRC1(c0, *buf++);                                              \
  return ~(uint32_t)c0;

#if defined(CRC32C_X86)
#define X86_CRC8(c, v) _mm_crc32_u64((c), (v))
#define X86_CRC1(c, b) _mm_crc32_u8((uint32_t)(c), (b))
__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc,
                                                                const unsigned char *buf,
                                                                size_t len) {
  CRC32C_3WAY(X86_CRC8, X86_CRC1)
}
#endif

#if defined(CRC32C_ARM)
#define ARM_CRC8(c, v) __crc32cd((uint32_t)(c), (v))
#define ARM_CRC1(c, b) __crc32cb((uint32_t)(c), (b))
__attribute__((target("+crc"))) static uint32_t crc32c_armv8(uint32_t crc,
                                                              const unsigned char *buf,
                                                              size_t len) {
  CRC32C_3WAY(ARM_CRC8, ARM_CRC1)
}
#endif

void crc32c_init(void) {
  for (uint32_t b = 0; b < 256; b++) {
    uint32_t c = b;
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
    crc32c_table[0][b] = c;
  }
  for (uint32_t b = 0; b < 256; b++) {
    uint32_t c = crc32c_table[0][b];
    for (int k = 1; k < 8; k++) {
      c = crc32c_table[0][c & 0xff] ^ (c >> 8);
      crc32c_table[k][b] = c;
    }
  }
  zeros_table(crc32c_long, LONG);
  zeros_table(crc32c_short, SHORT);
#if defined(CRC32C_X86)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("sse4.2")) {
    crc32c_impl = crc32c_sse42;
    crc32c_name = "sse4.2";
  }
#elif defined(CRC32C_ARM)
  if (getauxval(AT_HWCAP) & HWCAP_CRC32) {
    crc32c_impl = crc32c_armv8;
    crc32c_name = "armv8-crc";
  }
#endif
}

uint32_t crc32c(uint32_t crc, const unsigned char *buf, size_t len) {
  return crc32c_impl(crc, buf, len);
}

const char *crc32c_impl_name(void) { return crc32c_name; }

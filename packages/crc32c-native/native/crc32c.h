/*
 * CRC-32C (Castagnoli): reflected polynomial 0x82F63B78, initial value 0xFFFFFFFF, final XOR
 * 0xFFFFFFFF; check value over ASCII "123456789" is 0xE3069283.
 *
 * crc32c_init() picks the fastest implementation the CPU supports, once:
 *   x86-64 with SSE4.2: _mm_crc32_u64 on three interleaved streams, combined by shift tables
 *                       (Mark Adler's crc32c.c scheme; stackoverflow.com/a/17646775);
 *   arm64 with CRC:     __crc32cd on three interleaved streams, same combine;
 *   anything else:      slice-by-8 tables.
 * No special compiler flags: the hardware functions carry a function-level target attribute.
 */
#ifndef NEARWIRE_CRC32C_H
#define NEARWIRE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Selects the implementation and builds the tables; call once before crc32c(). */
void crc32c_init(void);

/* CRC-32C of buf[0, len) chained from `crc` (0 for a fresh CRC; a previous result to chain). */
uint32_t crc32c(uint32_t crc, const unsigned char *buf, size_t len);

/* The portable slice-by-8 implementation, whatever the CPU. */
uint32_t crc32c_sw(uint32_t crc, const unsigned char *buf, size_t len);

/* Name of the implementation crc32c() uses: "sse4.2", "armv8-crc" or "slice-by-8". */
const char *crc32c_impl_name(void);

#endif

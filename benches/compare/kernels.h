/*
 * The kernels both harnesses time, compiled the same way (-O2) into each: shared so the machine
 * code under test is the same source. Static inline: each harness inlines them into its own loop,
 * as a user's benchmark would.
 */
#ifndef RHO_COMPARE_KERNELS_H
#define RHO_COMPARE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CRC-32 (IEEE 802.3, reflected), bitwise: the same function as examples/crypto_bench.c. */
static inline uint32_t compare_crc32(const uint8_t *data, size_t len)
{
    uint32_t crc = 0xFFFFFFFFu;
    size_t i;
    for (i = 0; i < len; i++) {
        int bit;
        crc ^= data[i];
        for (bit = 0; bit < 8; bit++) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

/* One xorshift32 step: three dependent shift/xor pairs, about 1.5 ns. */
static inline uint32_t compare_xorshift(uint32_t x)
{
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

/* The message both CRC benchmarks read: the same bytes on every run. */
static inline void compare_fill(uint8_t *message, size_t len)
{
    uint32_t x = 0x12345678u;
    size_t i;
    for (i = 0; i < len; i++) {
        x = x * 1664525u + 1013904223u;
        message[i] = (uint8_t)(x >> 24);
    }
}

#ifdef __cplusplus
}
#endif

#endif

/*
 * The example project's first suite: CRC-32 over 64 and 256 bytes and a malloc/free pair, with
 * the budgets in ../module.yml. Run from examples/project (or any directory below it):
 *
 *     rho bench              # the report, with a verdict per budgeted figure
 *     rho bench check        # the same, exit 1 when a budget is broken
 */
#include <rho/bench.h>

#include <stdint.h>
#include <stdlib.h>

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), bitwise: its cost is per byte. */
static uint32_t crc32(const uint8_t *data, size_t len)
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

/* Not const, so the CRC cannot be computed once and reused across iterations. */
static uint8_t message[256];

static void bench_crc_64(rho_bench_t *state)
{
    RHO_BENCH_UNIT(state, "byte", 64);
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(crc32(message, 64));
    }
}

static void bench_crc_256(rho_bench_t *state)
{
    RHO_BENCH_UNIT(state, "byte", 256);
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(crc32(message, 256));
    }
}

/* One 64-byte slot held at a time: a heap peak of 64, live 0 at the end (module.yml's
 * max_heap_bytes for this benchmark). */
#define SLOT_BYTES 64

static void bench_malloc_free(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        void *slot = malloc(SLOT_BYTES);
        RHO_BENCH_HEAP_ALLOC(state, slot, SLOT_BYTES);
        RHO_BENCH_KEEP(slot);
        RHO_BENCH_HEAP_FREE(state, slot, SLOT_BYTES);
        free(slot);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    static const uint8_t check[] = "123456789";
    uint32_t x = 0x12345678u;
    size_t i;

    if (crc32(check, 9) != 0xCBF43926u) { /* the standard check value */
        return 2;
    }
    for (i = 0; i < sizeof message; i++) {
        x = x * 1664525u + 1013904223u;
        message[i] = (uint8_t)(x >> 24);
    }
    RHO_BENCH_ADD(&suite, bench_crc_64);
    RHO_BENCH_ADD(&suite, bench_crc_256);
    RHO_BENCH_ADD(&suite, bench_malloc_free);
    return rho_bench_main(&suite, argc, argv);
}

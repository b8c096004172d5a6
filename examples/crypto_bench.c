/*
 * rho's example suite: an empty body, CRC-32 over 64
 * and 256 bytes, a malloc/free pair through the heap macros, and the outlier demonstration.
 *
 *     rho bench examples/crypto_bench.c
 *
 * or by hand (one file must compile the harness):
 *
 *     printf '#define RHO_BENCH_IMPLEMENTATION\n#include <rho/bench.h>\n' > impl.c
 *     cc -std=c99 -O2 -I c/include examples/crypto_bench.c impl.c -o crypto_bench
 *     ./crypto_bench
 *
 * It builds unchanged for a Cortex-M board (see c/ports/).
 */
#include <rho/bench.h>

#include <stdint.h>
#include <stdlib.h>

/* ---- CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) ---------------------------------- */

/* Bitwise on purpose: eight dependent shift/xor steps a byte, so the cost is the per-byte loop
 * and 256 bytes cost four times 64 bytes (less the fixed overhead), which a test checks. */
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

/* Not const: the compiler must assume RHO_BENCH_KEEP's memory clobber may have changed it, so it
 * cannot compute the CRC once and reuse it across iterations. */
static uint8_t message[256];

static void fill_message(void)
{
    uint32_t x = 0x12345678u;
    size_t i;
    for (i = 0; i < sizeof message; i++) {
        x = x * 1664525u + 1013904223u; /* a fixed LCG: the same bytes on every run */
        message[i] = (uint8_t)(x >> 24);
    }
}

/* ---- The benchmarks ------------------------------------------------------------------------ */

/* The floor: the same loop as everything else, with nothing in it. */
static void bench_empty(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
    }
}

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

/* One slot allocated and freed each iteration: heap peak one slot, live 0 at the end. The
 * harness is told before free() because a pointer's value is indeterminate once freed. */
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

/* ---- The outlier demonstration ------------------------------------------------------------ */

/* A dependent chain of xorshift rounds: its cost is proportional to `rounds`. Not inlined, so
 * both benchmarks below run exactly the same code. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static uint32_t work(uint32_t seed, uint32_t rounds)
{
    uint32_t i;
    for (i = 0; i < rounds; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
    }
    return seed;
}

#define WORK_ROUNDS 32u
#define OUTLIER_EVERY 1000u  /* one iteration in this many ... */
#define OUTLIER_FACTOR 10000u /* ... does this many times the work */

/* slow_factor 1: every iteration alike. Otherwise one in OUTLIER_EVERY iterations (counted, so
 * the same ones on every run) does slow_factor times the work: the mean moves by about
 * slow_factor / OUTLIER_EVERY + 1 (an order of magnitude), the median does not move at all.
 * Not inlined: both benchmarks run the same machine code, and differ only in slow_factor. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void steady_or_outlier(rho_bench_t *state, uint32_t slow_factor)
{
    uint32_t iteration = 0;
    RHO_BENCH_LOOP(state) {
        uint32_t factor = ++iteration % OUTLIER_EVERY == 0 ? slow_factor : 1u;
        RHO_BENCH_KEEP(work(iteration, WORK_ROUNDS * factor));
    }
}

static void bench_steady(rho_bench_t *state)
{
    steady_or_outlier(state, 1u);
}

static void bench_outlier(rho_bench_t *state)
{
    steady_or_outlier(state, OUTLIER_FACTOR);
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    static const uint8_t check[] = "123456789";

    /* A benchmark of a wrong CRC would measure nothing worth knowing: check the standard
     * check value first. */
    if (crc32(check, 9) != 0xCBF43926u) {
        return 2;
    }
    fill_message();

    RHO_BENCH_ADD(&suite, bench_empty);
    RHO_BENCH_ADD(&suite, bench_crc_64);
    RHO_BENCH_ADD(&suite, bench_crc_256);
    RHO_BENCH_ADD(&suite, bench_malloc_free);
    RHO_BENCH_ADD(&suite, bench_steady);
    RHO_BENCH_ADD(&suite, bench_outlier);
    return rho_bench_main(&suite, argc, argv);
}

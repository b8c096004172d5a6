/* The comparison's kernels timed by rho (see compare.py). */
#include <rho/bench.h>

#include <stdlib.h>

#include "kernels.h"

static uint8_t message[256];

static void crc32_64(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(compare_crc32(message, 64));
    }
}

static void crc32_256(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(compare_crc32(message, 256));
    }
}

static void malloc_free_64(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        void *p = malloc(64);
        RHO_BENCH_KEEP(p);
        free(p);
    }
}

static void xorshift_step(rho_bench_t *state)
{
    uint32_t x = 2463534242u;
    RHO_BENCH_LOOP(state) {
        x = compare_xorshift(x);
        RHO_BENCH_KEEP(x);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    compare_fill(message, sizeof message);
    RHO_BENCH_ADD(&suite, crc32_64);
    RHO_BENCH_ADD(&suite, crc32_256);
    RHO_BENCH_ADD(&suite, malloc_free_64);
    RHO_BENCH_ADD(&suite, xorshift_step);
    return rho_bench_main(&suite, argc, argv);
}

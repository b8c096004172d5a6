/*
 * Heap accounting misuse the report must flag (issue 2 part 5).
 *
 *   bench_leak           allocates one 32-byte block in its first iteration and never tells the
 *                        harness it was freed: `@heap peak=32 live=32 allocs=1 frees=0`.
 *   bench_free_too_much  every iteration allocates 16 bytes, first "frees" 32 (more than is
 *                        live: counted as a free error, live left alone), then frees the 16:
 *                        `peak=16 live=0 allocs=N frees=N free_errors=N` for N iterations
 *                        (warm-ups included).
 *   bench_null_ignored   NULL pointers are neither allocations nor frees: all zero.
 */
#include <rho/bench.h>

#include <stdlib.h>

#define LEAK_BYTES 32
#define SMALL_BYTES 16

static void *leaked; /* freed after the suite, where the harness no longer counts */

static void bench_leak(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        if (leaked == NULL) {
            leaked = malloc(LEAK_BYTES);
            RHO_BENCH_HEAP_ALLOC(state, leaked, LEAK_BYTES);
        }
        RHO_BENCH_KEEP(leaked);
    }
}

static void bench_free_too_much(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        void *block = malloc(SMALL_BYTES);
        RHO_BENCH_HEAP_ALLOC(state, block, SMALL_BYTES);
        RHO_BENCH_HEAP_FREE(state, block, 2 * SMALL_BYTES); /* misuse: more than is live */
        RHO_BENCH_HEAP_FREE(state, block, SMALL_BYTES);
        free(block);
    }
}

static void bench_null_ignored(rho_bench_t *state)
{
    void *nothing = NULL;
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_HEAP_ALLOC(state, nothing, 64);
        RHO_BENCH_HEAP_FREE(state, nothing, 64);
        RHO_BENCH_KEEP(nothing);
    }
}

int main(int argc, char **argv)
{
    int status;
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_leak);
    RHO_BENCH_ADD(&suite, bench_free_too_much);
    RHO_BENCH_ADD(&suite, bench_null_ignored);
    status = rho_bench_main(&suite, argc, argv);
    free(leaked);
    return status;
}

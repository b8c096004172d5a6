/*
 * Growth: one benchmark over a range of sizes, and how its cost grows with them.
 *
 *     rho bench examples/growth_bench.c
 *     rho bench --target mps2-an386 examples/growth_bench.c
 *
 * Each family is one function registered with several arguments; rho reports every member as
 * `name/arg` in the order added, then fits the family's figures against the argument (O(1),
 * O(log n), O(n), O(n log n), O(n^2), O(n^3)) and prints the best fit per metric:
 *   sum       adds n bytes: O(n) cycles and time, a constant stack, no heap;
 *   pairwise  compares every pair of n items: O(n^2);
 *   dup       copies n bytes into a buffer it allocates: O(n) heap peak as well as O(n) time.
 * It builds unchanged for a Cortex-M board (see c/ports/).
 */
#include <rho/bench.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BYTES 16384u
#define MAX_ITEMS 128u

/* Not const: RHO_BENCH_KEEP's memory clobber makes the compiler assume they changed, so the work
 * is redone every iteration. */
static uint8_t bytes[MAX_BYTES];
static uint32_t items[MAX_ITEMS];

static void fill(void)
{
    uint32_t x = 0x2545F491u;
    size_t i;
    for (i = 0; i < MAX_BYTES; i++) {
        x = x * 1664525u + 1013904223u; /* a fixed LCG: the same data on every run */
        bytes[i] = (uint8_t)(x >> 24);
    }
    for (i = 0; i < MAX_ITEMS; i++) {
        x = x * 1664525u + 1013904223u;
        items[i] = x >> 8;
    }
}

/* O(n): the sum of the first n bytes. */
static void sum(rho_bench_t *state)
{
    size_t n = (size_t)RHO_BENCH_ARG(state);
    RHO_BENCH_UNIT(state, "byte", n);
    RHO_BENCH_LOOP(state) {
        uint32_t total = 0;
        size_t i;
        for (i = 0; i < n; i++) {
            total += bytes[i];
        }
        RHO_BENCH_KEEP(total);
    }
}

/* O(n^2): how many of the n*(n-1)/2 pairs of the first n items are out of order. */
static void pairwise(rho_bench_t *state)
{
    size_t n = (size_t)RHO_BENCH_ARG(state);
    RHO_BENCH_UNIT(state, "pair", n * (n - 1) / 2);
    RHO_BENCH_LOOP(state) {
        uint32_t inversions = 0;
        size_t i, j;
        for (i = 0; i < n; i++) {
            for (j = i + 1; j < n; j++) {
                inversions += items[i] > items[j];
            }
        }
        RHO_BENCH_KEEP(inversions);
    }
}

/* O(n) heap: a copy of the first n bytes in a buffer of its own. */
static void dup(rho_bench_t *state)
{
    size_t n = (size_t)RHO_BENCH_ARG(state);
    RHO_BENCH_UNIT(state, "byte", n);
    RHO_BENCH_LOOP(state) {
        uint8_t *copy = malloc(n);
        RHO_BENCH_HEAP_ALLOC(state, copy, n);
        if (copy != NULL) {
            memcpy(copy, bytes, n);
            RHO_BENCH_KEEP(copy);
        }
        free(copy);
        RHO_BENCH_HEAP_FREE(state, copy, n);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    fill();
    RHO_BENCH_ADD_RANGE(&suite, sum, 256, MAX_BYTES, 4); /* sum/256 sum/1024 sum/4096 sum/16384 */
    RHO_BENCH_ADD_ARG(&suite, pairwise, 16);             /* one at a time works too */
    RHO_BENCH_ADD_ARG(&suite, pairwise, 32);
    RHO_BENCH_ADD_ARG(&suite, pairwise, 64);
    RHO_BENCH_ADD_ARG(&suite, pairwise, MAX_ITEMS);
    RHO_BENCH_ADD_RANGE(&suite, dup, 256, 2048, 2);
    return rho_bench_main(&suite, argc, argv);
}

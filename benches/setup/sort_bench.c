/*
 * The untimed setup (RHO_BENCH_LOOP_SETUP), measured: sorting 1000 ints needs a fresh, unsorted
 * array before every sort, and refilling it is work the sort's figure must not include.
 *
 *     rho bench benches/setup/sort_bench.c --iterations 2000
 *
 *   bench_sort_refill_in_body   refill and sort, both timed (all one can write without a setup)
 *   bench_sort_refill_in_setup  refill in the setup, sort timed: should read less than the first
 *                               by about ...
 *   bench_refill_alone          ... the refill's own cost, timed alone
 *
 * The refill generates the 1000 values from a counter (an LCG, as a test would), so each sort
 * gets a different unsorted array.
 */
#include <rho/bench.h>

#include <stdint.h>
#include <stdlib.h>

#define COUNT 1000
#define SLOTS 4

static int inputs[SLOTS][COUNT];

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void refill(int *values, uint32_t seed)
{
    size_t k;
    for (k = 0; k < COUNT; k++) {
        seed = seed * 1664525u + 1013904223u;
        values[k] = (int)(seed >> 8);
    }
}

static void bench_sort_refill_in_body(rho_bench_t *state)
{
    uint32_t seed = 1u;
    RHO_BENCH_UNIT(state, "element", COUNT);
    RHO_BENCH_LOOP(state) {
        refill(inputs[0], seed++);
        qsort(inputs[0], COUNT, sizeof(int), compare_ints);
        RHO_BENCH_KEEP(inputs[0][COUNT / 2]);
    }
}

static void bench_sort_refill_in_setup(rho_bench_t *state)
{
    uint32_t seed = 1u;
    RHO_BENCH_UNIT(state, "element", COUNT);
    RHO_BENCH_LOOP_SETUP(state, i, SLOTS) {
        refill(inputs[i], seed++);
    }
    RHO_BENCH_TIMED {
        qsort(inputs[i], COUNT, sizeof(int), compare_ints);
        RHO_BENCH_KEEP(inputs[i][COUNT / 2]);
    }
}

static void bench_refill_alone(rho_bench_t *state)
{
    uint32_t seed = 1u;
    RHO_BENCH_UNIT(state, "element", COUNT);
    RHO_BENCH_LOOP(state) {
        refill(inputs[0], seed++);
        RHO_BENCH_KEEP(inputs[0][COUNT / 2]);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_sort_refill_in_body);
    RHO_BENCH_ADD(&suite, bench_sort_refill_in_setup);
    RHO_BENCH_ADD(&suite, bench_refill_alone);
    return rho_bench_main(&suite, argc, argv);
}

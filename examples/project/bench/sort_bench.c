/*
 * The example project's third suite, built by its own script (bench/sort_bench.sh) rather than
 * by rho: module.yml lists it as `- command: sh bench/sort_bench.sh`. What rho needs from a
 * command is only the wire stream on its stdout.
 *
 * An insertion sort of 32 integers: each iteration copies and sorts four different shuffled inputs
 * (the same four, in the same order, on every run). Four sorts rather than one put the body at about
 * 1300 cycles, far above the clock's step (52 cycles on the development machine), so a change of a few
 * percent is a change of many steps; one sort was about 300 cycles, within a few steps of noise.
 */
#include <rho/bench.h>

#include <stdint.h>
#include <string.h>

#define ELEMENTS 32
#define INPUTS 4

static int32_t shuffled[INPUTS][ELEMENTS];

static void insertion_sort(int32_t *values, size_t n)
{
    size_t i;
    for (i = 1; i < n; i++) {
        int32_t value = values[i];
        size_t j = i;
        while (j > 0 && values[j - 1] > value) {
            values[j] = values[j - 1];
            j--;
        }
        values[j] = value;
    }
}

static void bench_sort_32(rho_bench_t *state)
{
    int32_t values[ELEMENTS];
    RHO_BENCH_UNIT(state, "element", ELEMENTS * INPUTS);
    RHO_BENCH_LOOP(state) {
        size_t input;
        for (input = 0; input < INPUTS; input++) {
            memcpy(values, shuffled[input], sizeof values);
            insertion_sort(values, ELEMENTS);
            RHO_BENCH_KEEP(values[ELEMENTS / 2]);
        }
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    uint32_t x = 2463534242u;
    size_t input, i;
    for (input = 0; input < INPUTS; input++) {
        for (i = 0; i < ELEMENTS; i++) {
            x ^= x << 13; /* xorshift32: the same inputs on every run */
            x ^= x >> 17;
            x ^= x << 5;
            shuffled[input][i] = (int32_t)(x % 1000u);
        }
    }
    RHO_BENCH_ADD(&suite, bench_sort_32);
    return rho_bench_main(&suite, argc, argv);
}

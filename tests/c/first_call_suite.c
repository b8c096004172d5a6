/*
 * A one-time cost in the first iteration (issue 11): the stack and heap figures must cover the
 * measured iterations only.
 *
 *   bench_first_call  on its first iteration only, recurses through FIRST_CALL_BYTES of stack
 *                     (every byte written) and allocates FIRST_CALL_BYTES through the heap macros
 *                     (freed at once); every iteration then allocates and frees 64 bytes. With at
 *                     least one warm-up, the first iteration is a warm-up: its stack figure must be
 *                     the shallow one and its heap peak 64, allocs the measured iterations'. With
 *                     no warm-up it is measured, and the figures must show it (at least
 *                     FIRST_CALL_BYTES of stack, a peak of FIRST_CALL_BYTES).
 */
#include <rho/bench.h>

#include <stdlib.h>

#ifndef FIRST_CALL_BYTES
#define FIRST_CALL_BYTES 4096
#endif
#define FRAME_BYTES 256

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

static NOINLINE unsigned deep_frame(unsigned depth)
{
    volatile unsigned char frame[FRAME_BYTES];
    unsigned i, sum = 0;
    for (i = 0; i < FRAME_BYTES; i++) {
        frame[i] = (unsigned char)(depth + i);
    }
    if (depth > 1) {
        sum = deep_frame(depth - 1);
    }
    return sum + frame[0] + frame[FRAME_BYTES - 1];
}

static void bench_first_call(rho_bench_t *state)
{
    int first = 1;
    RHO_BENCH_LOOP(state) {
        void *slot;
        if (first) {
            void *table = malloc(FIRST_CALL_BYTES);
            RHO_BENCH_HEAP_ALLOC(state, table, FIRST_CALL_BYTES);
            RHO_BENCH_KEEP(deep_frame(FIRST_CALL_BYTES / FRAME_BYTES));
            RHO_BENCH_HEAP_FREE(state, table, FIRST_CALL_BYTES);
            free(table);
            first = 0;
        }
        slot = malloc(64);
        RHO_BENCH_HEAP_ALLOC(state, slot, 64);
        RHO_BENCH_KEEP(slot);
        RHO_BENCH_HEAP_FREE(state, slot, 64);
        free(slot);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_first_call);
    return rho_bench_main(&suite, argc, argv);
}

/*
 * Stack high-water mark checks (issue 2 part 4, issue 6 requirement 3).
 *
 *   bench_recurse_known  recurses STACK_KNOWN_DEPTH frames, each writing every byte of a
 *                        STACK_FRAME_BYTES volatile array, every iteration: the reported
 *                        `@stack` must be at least STACK_KNOWN_BYTES (8192 by default).
 *   bench_stack_overrun  once, before its loop, recurses through more than
 *                        RHO_BENCH_STACK_BYTES (the compiled region) but by less than the
 *                        hosted slack (16 KiB) or the 4 kB a port keeps below the region, so it
 *                        overruns the painted region safely: it must report `@stack overrun`.
 *
 * For a board whose region is smaller than 8192 bytes, build with e.g. -DSTACK_KNOWN_DEPTH=2
 * (or a larger -DRHO_BENCH_STACK_BYTES); the known depth is printed as a noise line first.
 */
#include <rho/bench.h>

#include <stddef.h>

#ifndef STACK_KNOWN_DEPTH
#define STACK_KNOWN_DEPTH 16
#endif
#ifndef STACK_FRAME_BYTES
#define STACK_FRAME_BYTES 512
#endif
#define STACK_KNOWN_BYTES (STACK_KNOWN_DEPTH * STACK_FRAME_BYTES) /* 8192 by default */

/* The overrun goes OVERRUN_EXTRA_FRAMES frames of OVERRUN_FRAME_BYTES past the region. */
#define OVERRUN_FRAME_BYTES 256
#define OVERRUN_EXTRA_FRAMES 4
#define OVERRUN_DEPTH (RHO_BENCH_STACK_BYTES / OVERRUN_FRAME_BYTES + OVERRUN_EXTRA_FRAMES)

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* Each frame writes its whole array, recurses, then reads the array back, so the frame is live
 * across the call (no tail call) and every byte of it is really written. */
static NOINLINE unsigned known_frame(unsigned depth)
{
    volatile unsigned char frame[STACK_FRAME_BYTES];
    unsigned i, sum = 0;
    for (i = 0; i < STACK_FRAME_BYTES; i++) {
        frame[i] = (unsigned char)(depth + i);
    }
    if (depth > 1) {
        sum = known_frame(depth - 1);
    }
    for (i = 0; i < STACK_FRAME_BYTES; i += 64) {
        sum += frame[i];
    }
    return sum;
}

static NOINLINE unsigned overrun_frame(unsigned depth)
{
    volatile unsigned char frame[OVERRUN_FRAME_BYTES];
    unsigned i, sum = 0;
    for (i = 0; i < OVERRUN_FRAME_BYTES; i++) {
        frame[i] = (unsigned char)(depth ^ i);
    }
    if (depth > 1) {
        sum = overrun_frame(depth - 1);
    }
    return sum + frame[0];
}

static void bench_recurse_known(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(known_frame(STACK_KNOWN_DEPTH));
    }
}

static void bench_stack_overrun(rho_bench_t *state)
{
    RHO_BENCH_KEEP(overrun_frame(OVERRUN_DEPTH)); /* once is enough to lose the boundary */
    RHO_BENCH_LOOP(state) {
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_recurse_known);
    RHO_BENCH_ADD(&suite, bench_stack_overrun);
    return rho_bench_main(&suite, argc, argv);
}

/*
 * A stack overrun that the painted region alone cannot see (issue 11).
 *
 *   bench_skip_frames  recurses SKIP_DEPTH (17) frames, each a SKIP_FRAME_BYTES (240) byte buffer of
 *                      which only the first and the last byte are written: about 4 kB of stack
 *                      really used, with gaps of 238 unwritten bytes. Run with a 2,048-byte region
 *                      it goes far past the region while the region's lowest bytes can stay
 *                      painted, so scanning the paint alone reads a plausible figure. It must read
 *                      `@stack overrun` (the guard below the region faults), never a number.
 *   bench_shallow_before / bench_shallow_after
 *                      a few bytes of stack, before and after it in the same suite: each must
 *                      still read its figure (the harness carries on after the overrun).
 */
#include <rho/bench.h>

#ifndef SKIP_DEPTH
#define SKIP_DEPTH 17
#endif
#ifndef SKIP_FRAME_BYTES
#define SKIP_FRAME_BYTES 240
#endif

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* The buffer is live across the call (read back after it), so the frame is not a tail call. */
static NOINLINE unsigned skip_frame(unsigned depth)
{
    volatile unsigned char buffer[SKIP_FRAME_BYTES];
    unsigned sum = 0;
    buffer[0] = (unsigned char)depth;
    buffer[SKIP_FRAME_BYTES - 1] = (unsigned char)(depth + 1u);
    if (depth > 1) {
        sum = skip_frame(depth - 1);
    }
    return sum + buffer[0] + buffer[SKIP_FRAME_BYTES - 1];
}

static NOINLINE unsigned shallow(unsigned x)
{
    return x * 2654435761u ^ (x >> 7);
}

static void bench_shallow_before(rho_bench_t *state)
{
    unsigned x = 1;
    RHO_BENCH_LOOP(state) {
        x = shallow(x);
        RHO_BENCH_KEEP(x);
    }
}

static void bench_skip_frames(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(skip_frame(SKIP_DEPTH));
    }
}

static void bench_shallow_after(rho_bench_t *state)
{
    unsigned x = 3;
    RHO_BENCH_LOOP(state) {
        x = shallow(x);
        RHO_BENCH_KEEP(x);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_shallow_before);
    RHO_BENCH_ADD(&suite, bench_skip_frames);
    RHO_BENCH_ADD(&suite, bench_shallow_after);
    return rho_bench_main(&suite, argc, argv);
}

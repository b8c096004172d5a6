/*
 * Harness misuse the harness must refuse rather than print a stream that lies (issue 2 part 2).
 * Pick one with -DMISUSE=n:
 *   1  a benchmark with two RHO_BENCH_LOOPs: its samples would not be one loop's
 *   2  a unit name outside the wire format's name characters
 *   3  a unit of 0 per iteration (ops per second would be 0 and every per-op figure a division by 0)
 * Either way the harness names the benchmark and the problem on stderr, prints no `@end` for
 * it and no `@done`, and rho_bench_main returns 2. The benchmark before it is reported normally.
 */
#include <rho/bench.h>

#ifndef MISUSE
#define MISUSE 1
#endif

static void bench_fine(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
    }
}

#if MISUSE == 1
static void bench_two_loops(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
    }
    RHO_BENCH_LOOP(state) {
    }
}
#elif MISUSE == 2
static void bench_bad_unit(rho_bench_t *state)
{
    RHO_BENCH_UNIT(state, "bytes per call", 8);
    RHO_BENCH_LOOP(state) {
    }
}
#elif MISUSE == 3
static void bench_zero_per_iteration(rho_bench_t *state)
{
    RHO_BENCH_UNIT(state, "byte", 0);
    RHO_BENCH_LOOP(state) {
    }
}
#else
#error "MISUSE must be 1, 2 or 3"
#endif

static void bench_never_runs(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_fine);
#if MISUSE == 1
    RHO_BENCH_ADD(&suite, bench_two_loops);
#elif MISUSE == 2
    RHO_BENCH_ADD(&suite, bench_bad_unit);
#else
    RHO_BENCH_ADD(&suite, bench_zero_per_iteration);
#endif
    RHO_BENCH_ADD(&suite, bench_never_runs);
    return rho_bench_main(&suite, argc, argv);
}

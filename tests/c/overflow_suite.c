/*
 * A suite that overflows its capacity (issue 2 part 2). Built with -DRHO_BENCH_MAX_BENCHMARKS=2
 * (the default below says the same, so a plain build behaves alike): the first two run, the
 * other two are dropped with `rho: suite full (2): dropping bench_third` (and _fourth) on
 * stderr, and the stream ends `@done benchmarks=2 dropped=2`. Nothing is overwritten: the two
 * that run are the first two added, in order.
 */
#ifndef RHO_BENCH_MAX_BENCHMARKS
#define RHO_BENCH_MAX_BENCHMARKS 2
#endif
#include <rho/bench.h>

static void bench_first(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
    }
}

static void bench_second(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
    }
}

static void bench_third(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
    }
}

static void bench_fourth(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_first);
    RHO_BENCH_ADD(&suite, bench_second);
    RHO_BENCH_ADD(&suite, bench_third);
    RHO_BENCH_ADD(&suite, bench_fourth);
    return rho_bench_main(&suite, argc, argv);
}

/*
 * The time cap (issue 2 part 2): a body of about a millisecond, so that with a small cap, e.g.
 * RHO_BENCH_WARMUP=1 RHO_BENCH_TIME_CAP_MS=50, the benchmark stops early with `capped=1` and
 * `iterations=` the number actually measured (fewer than asked for, at least 1). The cap is on
 * measured time; warm-ups have a cap of the same length of their own (or 100 slow warm-ups
 * could run for minutes): with RHO_BENCH_WARMUP far above what fits, the remaining warm-ups are
 * skipped (`warmup=` says how many ran) and the measured iterations still get the whole cap.
 * With RHO_BENCH_TIME_CAP_MS=0 there is no cap.
 */
#include <rho/bench.h>

#include <stdint.h>

/* About a million dependent steps: roughly 0.3 to 2 ms on a current host core. */
#define SLOW_STEPS 1000000u

static uint32_t slow_body(uint32_t seed)
{
    volatile uint32_t x = seed;
    uint32_t i;
    for (i = 0; i < SLOW_STEPS; i++) {
        x = x * 1664525u + 1013904223u;
    }
    return x;
}

static void bench_slow(rho_bench_t *state)
{
    uint32_t seed = 1;
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(slow_body(seed++));
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_slow);
    return rho_bench_main(&suite, argc, argv);
}

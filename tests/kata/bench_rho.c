/* The kata benchmark as a rho suite: the same four kernels and the same fixed inputs as bench_json.c, measured
 * by rho/bench.h and printed as the rho wire stream (one sample per call). Build it with the harness's
 * implementation, which rho_impl.c compiles (this file must not define RHO_BENCH_IMPLEMENTATION):
 *
 *     cc -std=c99 -O2 -I"$RHO_BENCH_INCLUDE" -o bench_rho bench_rho.c rho_impl.c kernels.c -lm
 *
 * One iteration is one call (count_below: a batch of calls, see below), so the benchmarks need different
 * iteration counts to take comparable time: wire/module.yml sets them per benchmark
 * (RHO_BENCH_ITERATIONS_<name>). */
#include <rho/bench.h>

#include "kernels.h"
#include "bench_inputs.h"

static void bench_matmul(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        kata_matmul(kata_A, kata_B, kata_C, KATA_MATMUL_N);
        RHO_BENCH_KEEP(kata_C[(KATA_MATMUL_N * KATA_MATMUL_N) / 2 + 3]);
    }
}

static void bench_sum(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(kata_sum(kata_x, KATA_SUM_N));
    }
}

static void bench_rmsnorm(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        kata_rmsnorm(kata_rx, kata_rw, kata_ry, KATA_RMS_ROWS, KATA_RMS_D, 1e-5f);
        RHO_BENCH_KEEP(kata_ry[KATA_RMS_D + 5]);
    }
}

/* Calls of count_below per iteration. One call (20 to 70 ns) is too short to time on its own: clock_gettime
 * steps by 10 ns on the project's machine and an empty iteration costs about 80 ns, so the net figure of a
 * single call is a few clock steps and two identical builds differed by a median 46% (README.md). A batch
 * makes the iteration long enough to time; the unit keeps the per-op figures per call. */
#define SEARCHES_PER_ITERATION 32

static void bench_count_below(rho_bench_t *state)
{
    unsigned query = 0;

    RHO_BENCH_UNIT(state, "call", SEARCHES_PER_ITERATION);
    /* Successive calls search for successive thresholds of a fixed scrambled list, as bench_json.c does. */
    RHO_BENCH_LOOP(state) {
        int found = 0;
        int call;
        for (call = 0; call < SEARCHES_PER_ITERATION; call++) {
            found += kata_count_below(kata_sorted, KATA_SEARCH_N, kata_queries[query++ % KATA_QUERIES]);
        }
        RHO_BENCH_KEEP(found);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};

    kata_init_inputs();
    RHO_BENCH_ADD(&suite, bench_matmul);
    RHO_BENCH_ADD(&suite, bench_sum);
    RHO_BENCH_ADD(&suite, bench_rmsnorm);
    RHO_BENCH_ADD(&suite, bench_count_below);
    return rho_bench_main(&suite, argc, argv);
}

/* A benchmark that faults (an undefined instruction) while the harness's MPU stack guard is
 * armed: the fault is not the guard's, so the harness must hand it to the port's fault report
 * untouched (tests/cortex-m/check-port.sh, step 5). */
#include <rho/bench.h>

static void bench_fine(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
    }
}

static void bench_trap(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        __builtin_trap();
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_fine);
    RHO_BENCH_ADD(&suite, bench_trap);
    return rho_bench_main(&suite, argc, argv);
}

/* Size fixture: a suite with no benchmarks. It still links the whole harness (the
 * `.overhead` calibration runs the measurement path), so its size minus no_harness.c's is
 * the harness's own cost on the target. */
#include <rho/bench.h>

int main(int argc, char **argv)
{
    static rho_bench_suite_t suite;
    return rho_bench_main(&suite, argc, argv);
}

/*
 * The physical floor of a cycle measurement: two back-to-back reads of the cycle counter, with
 * exactly the instructions RHO_BENCH_LOOP uses to start and stop its cycle window, and nothing
 * between them. The harness's calibrated `.overhead` (an empty measured iteration) is compared
 * against this: the difference is what the loop itself adds inside the window.
 *
 * It prints a wire stream (docs/wire-format.md) with one cycles clock and one block,
 * `counter_floor`, so the host computes its median with the same code as everything else. No
 * `.overhead` block: this IS the thing beneath it.
 *
 *     cc -std=c99 -O2 -I c/include tests/c/counter_floor.c -o counter_floor && ./counter_floor
 *
 * It needs no harness implementation: it only uses the header's inline clock reads. Exit 0,
 * or 2 on a target without a cycle clock (nothing to measure) or an output error.
 */
#include <rho/bench.h>

#include <stdio.h>

#define FLOOR_WARMUP 100
#define FLOOR_ITERATIONS 20000

#if RHO_BENCH__HAS_CYCLES && !RHO_BENCH_BARE_METAL

static rho_bench__uint samples[FLOOR_WARMUP + FLOOR_ITERATIONS];

int main(void)
{
    unsigned i;
    for (i = 0; i < FLOOR_WARMUP + FLOOR_ITERATIONS; i++) {
        rho_bench__uint start = rho_bench__cycles_start();
        rho_bench__uint stop = rho_bench__cycles_stop();
        samples[i] = stop - start;
    }
    printf("@rho-bench 1\n");
#if defined(__x86_64__)
    printf("@target host arch=x86_64 optimized=1\n");
    printf("@clock cycles tsc unit=cycle hz=0 resolution=1\n");
#else
    printf("@target host arch=aarch64 optimized=1\n");
    printf("@clock cycles cntvct unit=tick hz=0 resolution=1\n");
#endif
    printf("@config iterations=%d warmup=%d time_cap_ms=0 stack_bytes=0\n", FLOOR_ITERATIONS,
           FLOOR_WARMUP);
    printf("@bench counter_floor\n");
    for (i = 0; i < FLOOR_WARMUP + FLOOR_ITERATIONS; i++) {
        printf(":%llu\n", (unsigned long long)samples[i]);
    }
    printf("@stack off\n");
    printf("@heap peak=0 live=0 allocs=0 frees=0 free_errors=0\n");
    printf("@end counter_floor iterations=%d warmup=%d capped=0 unit=iter per_iteration=1\n",
           FLOOR_ITERATIONS, FLOOR_WARMUP);
    printf("@done benchmarks=1 dropped=0\n");
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 2;
}

#else

int main(void)
{
    fprintf(stderr, "counter_floor: this target has no cycle clock\n");
    return 2;
}

#endif

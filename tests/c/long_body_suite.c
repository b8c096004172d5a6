/*
 * Bodies longer than a SysTick period (issue 6, a Cortex-M without a working DWT counter, such
 * as QEMU's): SysTick is a 24-bit counter, so a body of more than 2^24 cycles wraps it. The
 * harness counts the wraps (its SysTick exception handler), so the long body's figure is
 * LONG_BODY_FACTOR times the short one's, not the remainder modulo 2^24.
 * Under the MPS2 AN386 port with -icount shift=5, a SysTick tick is 1.25 instructions, and the
 * short body (about 3 instructions a step) is about 2.4 M ticks, the long one about 24 M: more
 * than 2^24 (16.8 M). Run with few iterations (e.g. --iterations 3 --warmup 0).
 */
#include <rho/bench.h>

#include <stdint.h>

#define SHORT_BODY_STEPS 1000000u
#define LONG_BODY_FACTOR 10u

static uint32_t spin(uint32_t steps)
{
    uint32_t i;
    for (i = 0; i < steps; i++) {
        RHO_BENCH_KEEP(i); /* one step stays a step: the loop is not folded away */
    }
    return i;
}

static void bench_short_body(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(spin(SHORT_BODY_STEPS));
    }
}

static void bench_long_body(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(spin(SHORT_BODY_STEPS * LONG_BODY_FACTOR));
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_short_body);
    RHO_BENCH_ADD(&suite, bench_long_body);
    return rho_bench_main(&suite, argc, argv);
}

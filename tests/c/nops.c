/* Bodies of an exact number of instructions: 1, 1000 and 3000 nops, and an empty one. Counted
 * (`rho bench --measure instructions`, or the Cortex-M4 under QEMU -icount), each must read its own
 * count net of the harness's. */
#include <rho/bench.h>

/* Written out, not `.rept`: the compiler sizes an asm statement by its lines, and a loop branch around
 * thousands of Thumb nops it took for one would be out of range. */
#define RHO_NOP10 "nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\t"
#define RHO_NOP100 RHO_NOP10 RHO_NOP10 RHO_NOP10 RHO_NOP10 RHO_NOP10 RHO_NOP10 RHO_NOP10 RHO_NOP10 RHO_NOP10 RHO_NOP10
#define RHO_NOP1000 RHO_NOP100 RHO_NOP100 RHO_NOP100 RHO_NOP100 RHO_NOP100 RHO_NOP100 RHO_NOP100 RHO_NOP100 RHO_NOP100 RHO_NOP100
#define RHO_NOPS(n) __asm__ __volatile__(RHO_NOP##n ::: "memory")
#define RHO_NOP3000 RHO_NOP1000 RHO_NOP1000 RHO_NOP1000

static void bench_nop_1(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        __asm__ __volatile__("nop" ::: "memory");
    }
}

static void bench_nop_1000(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_NOPS(1000);
    }
}

static void bench_nop_3000(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_NOPS(3000);
    }
}

static void bench_nop_none(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_nop_1);
    RHO_BENCH_ADD(&suite, bench_nop_1000);
    RHO_BENCH_ADD(&suite, bench_nop_3000);
    RHO_BENCH_ADD(&suite, bench_nop_none);
    return rho_bench_main(&suite, argc, argv);
}

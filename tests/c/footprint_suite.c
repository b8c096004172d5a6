/* The static footprint beside the measured figures (issue 13; crates/rho-cli/tests/footprint.rs):
 *   bench_chain      a four-deep chain of FRAME-byte frames, each filled: its static bound must be at or
 *                    above its measured stack mark, and within one frame of it;
 *   bench_recursive  a recursion: its static stack is unbounded;
 *   bench_big_call   calls big(), a function of about 3 kB of code (BIG_STORES volatile stores);
 *   bench_small_call calls small(), a function of a few bytes: its reachable code is at least 1.5 kB less. */
#include <rho/bench.h>
#include <stdint.h>

/* A four-deep chain of FRAME-byte frames: each level fills its frame, then calls the next. */
#define FRAME 1024
static volatile uint8_t sink;

__attribute__((noinline)) static void level4(volatile uint8_t *in)
{
    volatile uint8_t frame[FRAME];
    for (unsigned i = 0; i < FRAME; i++) frame[i] = (uint8_t)(in[i % 4] + i);
    sink = frame[in[0] % FRAME];
}
__attribute__((noinline)) static void level3(volatile uint8_t *in)
{
    volatile uint8_t frame[FRAME];
    for (unsigned i = 0; i < FRAME; i++) frame[i] = (uint8_t)(in[i % 4] ^ i);
    level4(frame);
    sink = frame[3];
}
__attribute__((noinline)) static void level2(volatile uint8_t *in)
{
    volatile uint8_t frame[FRAME];
    for (unsigned i = 0; i < FRAME; i++) frame[i] = (uint8_t)(in[i % 4] + 3 * i);
    level3(frame);
    sink = frame[2];
}
__attribute__((noinline)) static void level1(void)
{
    volatile uint8_t frame[FRAME];
    for (unsigned i = 0; i < FRAME; i++) frame[i] = (uint8_t)i;
    level2(frame);
    sink = frame[1];
}

static void bench_chain(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        level1();
    }
}

__attribute__((noinline)) static unsigned recurse(unsigned n)
{
    volatile unsigned frame[8];
    frame[0] = n;
    return n == 0 ? 0 : recurse(n - 1) + frame[0];
}

static void bench_recursive(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        RHO_BENCH_KEEP(recurse(8));
    }
}

/* BIG_STORES distinct stores, each its own instruction: about 3 kB of code on x86-64 and Thumb-2. */
#define BIG_STORES 440
#define S1(i) big_out[(i) % 64] = (uint8_t)(x * (i) + 1);
#define S10(i) S1(i) S1(i + 1) S1(i + 2) S1(i + 3) S1(i + 4) S1(i + 5) S1(i + 6) S1(i + 7) S1(i + 8) S1(i + 9)
#define S100(i) S10(i) S10(i + 10) S10(i + 20) S10(i + 30) S10(i + 40) S10(i + 50) S10(i + 60) \
    S10(i + 70) S10(i + 80) S10(i + 90)
static volatile uint8_t big_out[64];

__attribute__((noinline)) static void big(unsigned x)
{
    S100(0) S100(100) S100(200) S100(300) S10(400) S10(410) S10(420) S10(430)
}

__attribute__((noinline)) static unsigned small(unsigned x)
{
    return x + 1u;
}

static void bench_big_call(rho_bench_t *state)
{
    unsigned x = 3;
    RHO_BENCH_LOOP(state) {
        big(x);
    }
}

static void bench_small_call(rho_bench_t *state)
{
    unsigned x = 3;
    RHO_BENCH_LOOP(state) {
        x = small(x);
        RHO_BENCH_KEEP(x);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_chain);
    RHO_BENCH_ADD(&suite, bench_recursive);
    RHO_BENCH_ADD(&suite, bench_big_call);
    RHO_BENCH_ADD(&suite, bench_small_call);
    return rho_bench_main(&suite, argc, argv);
}

/*
 * Batches (c/include/rho/bench.h, "Batches"): what the harness chooses and what a benchmark or the
 * environment can force, checked by crates/rho-cli/tests/batches.rs.
 *
 *   bench_short    a few cycles: far under 16 units of the clock, so batched
 *   bench_long     about 20 us of dependent work: far above, one iteration a sample
 *   bench_forced   as short, but RHO_BENCH_SET_BATCH(state, 16): batches of exactly 16
 *   bench_single   as short, but RHO_BENCH_SET_BATCH(state, 1): never batched
 *   bench_setup    RHO_BENCH_LOOP_SETUP with room for 8 inputs: each timed body finds its input set
 *                  up since the last body that used it, in order; a body that does not, or a setup
 *                  that runs while bodies are pending, is counted, and main exits 3 if any was
 */
#include <rho/bench.h>

#include <stdio.h>

static uint32_t chain(uint32_t x, uint32_t rounds)
{
    uint32_t i;
    for (i = 0; i < rounds; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
    }
    return x;
}

/* The measured loop of every benchmark here but bench_setup: `rounds` of chain an iteration. */
static void chain_loop(rho_bench_t *state, uint32_t rounds)
{
    uint32_t x = 1u;
    RHO_BENCH_LOOP(state) {
        x = chain(x, rounds);
        RHO_BENCH_KEEP(x);
    }
}

static void bench_short(rho_bench_t *state)
{
    chain_loop(state, 1);
}

static void bench_long(rho_bench_t *state)
{
    chain_loop(state, 8000);
}

static void bench_forced(rho_bench_t *state)
{
    RHO_BENCH_SET_BATCH(state, 16);
    chain_loop(state, 1);
}

static void bench_single(rho_bench_t *state)
{
    RHO_BENCH_SET_BATCH(state, 1);
    chain_loop(state, 1);
}

#define SLOTS 8
static int ready[SLOTS];
static size_t pending; /* inputs set up and not yet used */
static unsigned long misordered, setups, bodies;

static void bench_setup(rho_bench_t *state)
{
    uint32_t x = 1u;
    RHO_BENCH_LOOP_SETUP(state, i, SLOTS) {
        if (i >= SLOTS || ready[i] || i != pending) {
            misordered++;
        } else {
            ready[i] = 1;
            pending++;
        }
        setups++;
    }
    RHO_BENCH_TIMED {
        if (i >= SLOTS || !ready[i]) {
            misordered++;
        } else {
            ready[i] = 0;
            pending--;
        }
        bodies++;
        x = chain(x + (uint32_t)i, 1);
        RHO_BENCH_KEEP(x);
    }
    if (pending != 0) {
        misordered++; /* an input set up and never timed */
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    int status;
    RHO_BENCH_ADD(&suite, bench_short);
    RHO_BENCH_ADD(&suite, bench_long);
    RHO_BENCH_ADD(&suite, bench_forced);
    RHO_BENCH_ADD(&suite, bench_single);
    RHO_BENCH_ADD(&suite, bench_setup);
    status = rho_bench_main(&suite, argc, argv);
    if (misordered != 0 || setups != bodies) {
        fprintf(stderr, "bench_setup: %lu setups, %lu bodies, %lu out of order\n", setups, bodies,
                misordered);
        return 3;
    }
    return status;
}

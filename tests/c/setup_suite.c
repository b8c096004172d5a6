/*
 * RHO_BENCH_LOOP_SETUP's setup is not timed: a planted case far outside the noise. The setup
 * fills 4096 words (thousands of cycles); the body reads one of them (a few cycles). With the fill
 * in the setup the body reads short and is batched; with the same fill in the body it costs the
 * whole fill. Checked by crates/rho-cli/tests/batches.rs.
 */
#include <rho/bench.h>

#define WORDS 4096
#define SLOTS 16

static uint32_t inputs[SLOTS][WORDS];

static void fill(uint32_t *words, uint32_t seed)
{
    size_t k;
    for (k = 0; k < WORDS; k++) {
        seed = seed * 1664525u + 1013904223u;
        words[k] = seed;
    }
}

static void bench_fill_in_body(rho_bench_t *state)
{
    uint32_t seed = 1u;
    RHO_BENCH_LOOP(state) {
        fill(inputs[0], seed++);
        RHO_BENCH_KEEP(inputs[0][WORDS / 2]);
    }
}

static void bench_fill_in_setup(rho_bench_t *state)
{
    uint32_t seed = 1u;
    RHO_BENCH_LOOP_SETUP(state, i, SLOTS) {
        fill(inputs[i], seed++);
    }
    RHO_BENCH_TIMED {
        RHO_BENCH_KEEP(inputs[i][WORDS / 2]);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_fill_in_body);
    RHO_BENCH_ADD(&suite, bench_fill_in_setup);
    return rho_bench_main(&suite, argc, argv);
}

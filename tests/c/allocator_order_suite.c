/* A count that must not depend on what ran before it (issue 38): bench_churn_allocator leaves
 * the C library's allocator full of free chunks of many sizes (and 2/3 of its blocks held), and
 * bench_malloc_heavy, which runs after it, allocates and frees blocks above glibc's per-thread
 * cache (tcache) sizes, whose search goes through those bins. Counted in one process, its count
 * depended on the churn (1,367 instructions an iteration after it, 938 alone with --filter);
 * counted in a process of its own, it is the same in the full suite, alone and in any shard.
 * crates/rho-cli/tests/counted_order.rs. */
#include <stdlib.h>

#include <rho/bench.h>

#define HELD_BLOCKS 512

static void *held[HELD_BLOCKS];

static void bench_churn_allocator(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        for (int i = 0; i < HELD_BLOCKS; i++) {
            free(held[i]);
            held[i] = malloc((size_t)(1100 + (i * 397) % 6000));
        }
        for (int i = 0; i < HELD_BLOCKS; i += 3) {
            free(held[i]);
            held[i] = NULL;
        }
    }
}

static void bench_malloc_heavy(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        void *a = malloc(2000);
        void *b = malloc(5000);
        void *c = malloc(1500);
        RHO_BENCH_KEEP(a);
        RHO_BENCH_KEEP(b);
        RHO_BENCH_KEEP(c);
        free(b);
        free(a);
        free(c);
    }
}

static volatile unsigned summed[64];

static void bench_sum(rho_bench_t *state)
{
    RHO_BENCH_LOOP(state) {
        unsigned total = 0;
        for (int i = 0; i < 64; i++) {
            total += summed[i];
        }
        RHO_BENCH_KEEP(total);
    }
}

int main(int argc, char **argv)
{
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_churn_allocator);
    RHO_BENCH_ADD(&suite, bench_malloc_heavy);
    RHO_BENCH_ADD(&suite, bench_sum);
    return rho_bench_main(&suite, argc, argv);
}

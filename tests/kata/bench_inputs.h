/* The kata benchmarks' sizes and fixed inputs, shared by bench_json.c and bench_rho.c so both metric sources
 * time the same work. Inputs are formulas of the index (never rand()): the same work on every run and every
 * machine. Sizes were chosen by measurement on the project's 2-core machine (see README.md): large enough that
 * each call takes microseconds, small enough that the slowest planted slowdown still finishes a run quickly. */
#ifndef KATA_BENCH_INPUTS_H
#define KATA_BENCH_INPUTS_H

#define KATA_MATMUL_N 128          /* 3 matrices of 64 KiB: the cache holds them, loop order still costs */
#define KATA_SUM_N 4096            /* 16 KiB: L1-resident, so the adds, not memory, set the pace */
#define KATA_RMS_ROWS 8
#define KATA_RMS_D 512
#define KATA_SEARCH_N (1 << 16)    /* 256 KiB sorted array */
#define KATA_QUERIES 1024          /* thresholds cycled through by successive count_below calls */

static float kata_A[KATA_MATMUL_N * KATA_MATMUL_N];
static float kata_B[KATA_MATMUL_N * KATA_MATMUL_N];
static float kata_C[KATA_MATMUL_N * KATA_MATMUL_N];
static float kata_x[KATA_SUM_N];
static float kata_rx[KATA_RMS_ROWS * KATA_RMS_D];
static float kata_rw[KATA_RMS_D];
static float kata_ry[KATA_RMS_ROWS * KATA_RMS_D];
static float kata_sorted[KATA_SEARCH_N];
static float kata_queries[KATA_QUERIES];

static void kata_init_inputs(void)
{
    long i;

    for (i = 0; i < KATA_MATMUL_N * KATA_MATMUL_N; i++) {
        kata_A[i] = (float)((i * 7) % 13) * 0.125f - 0.75f;
        kata_B[i] = (float)((i * 5) % 11) * 0.25f - 1.25f;
    }
    for (i = 0; i < KATA_SUM_N; i++) {
        kata_x[i] = (float)(i % 17) * 0.0625f - 0.5f;
    }
    for (i = 0; i < KATA_RMS_ROWS * KATA_RMS_D; i++) {
        kata_rx[i] = (float)((i * 3) % 29) * 0.1f - 1.4f;
    }
    for (i = 0; i < KATA_RMS_D; i++) {
        kata_rw[i] = 0.5f + (float)(i % 7) * 0.125f;
    }
    /* Ascending with pairs of equal values. */
    for (i = 0; i < KATA_SEARCH_N; i++) {
        kata_sorted[i] = (float)(i / 2);
    }
    /* Thresholds spread over the whole array in a scrambled order (40503 is odd, so i -> i * 40503 mod 2^k
     * visits every slot), so successive searches take different paths and a linear scan walks n/2 on average. */
    for (i = 0; i < KATA_QUERIES; i++) {
        const long slot = (i * 40503L) % KATA_QUERIES;
        kata_queries[i] = (float)(slot * (KATA_SEARCH_N / 2) / KATA_QUERIES) + 0.5f;
    }
}

#endif

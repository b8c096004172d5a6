/* The kata benchmark whose metrics are its last stdout line, one JSON object of nanoseconds per call:
 *     {"matmul_ns": ..., "sum_ns": ..., "rmsnorm_ns": ..., "count_below_ns": ...}
 * (lower is better), the format any program can give `rho bench gate`. Self-contained timer: clock_gettime,
 * one warm-up call, then the best of REPS repetitions, each repeating the call often enough to fill MIN_REP_S,
 * because noise only ever adds time and the minimum is the closest a run came to the work alone. The kernels'
 * repetitions are taken in rounds (one of each kernel per round), so every kernel's are spread over the run.
 *
 *     cc -std=c99 -O2 -o bench_json bench_json.c kernels.c -lm && ./bench_json */
#define _POSIX_C_SOURCE 199309L

#include "kernels.h"
#include "bench_inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Many short repetitions rather than a few long ones: on a shared machine a repetition shorter than a
 * scheduler time slice has a fair chance of running uninterrupted, and the minimum keeps that one.
 * Overridable with -D for experiments; the figures in README.md use these defaults. */
#ifndef REPS
#define REPS 40
#endif
#ifndef MIN_REP_S
#define MIN_REP_S 0.002
#endif

/* Every result is written here: the compiler may not delete a computation whose result is stored to it. */
static volatile float sink_f;
static volatile int sink_i;
static unsigned query_index;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void call_matmul(void)
{
    kata_matmul(kata_A, kata_B, kata_C, KATA_MATMUL_N);
    sink_f = kata_C[(KATA_MATMUL_N * KATA_MATMUL_N) / 2 + 3];
}

static void call_sum(void)
{
    sink_f = kata_sum(kata_x, KATA_SUM_N);
}

static void call_rmsnorm(void)
{
    kata_rmsnorm(kata_rx, kata_rw, kata_ry, KATA_RMS_ROWS, KATA_RMS_D, 1e-5f);
    sink_f = kata_ry[KATA_RMS_D + 5];
}

static void call_count_below(void)
{
    sink_i = kata_count_below(kata_sorted, KATA_SEARCH_N, kata_queries[query_index++ % KATA_QUERIES]);
}

struct kernel_timing {
    const char *name;
    void (*fn)(void);
    long calls;     /* calls per repetition, enough to fill MIN_REP_S */
    double best_ns; /* the fastest repetition's time per call */
};

/* Calls of fn that fill MIN_REP_S, after one warm-up call: a batch doubled until it is long enough to time,
 * then scaled to the target, so the clock is read twice per batch, not per call. */
static long calibrate(void (*fn)(void))
{
    long calls = 1;
    long i;

    fn();
    for (;;) {
        const double t0 = now_s();
        double elapsed;
        for (i = 0; i < calls; i++) {
            fn();
        }
        elapsed = now_s() - t0;
        if (elapsed >= MIN_REP_S) {
            return calls;
        }
        if (elapsed > MIN_REP_S / 16.0) {
            calls = (long)((double)calls * (MIN_REP_S * 1.1) / elapsed) + 1;
        } else {
            calls *= 2;
        }
    }
}

/* Repetitions per kernel: REPS, or fewer when `rho bench gate` asks for short rounds. The gate runs this
 * program in paired rounds, base and head in turn, and hands each run RHO_BENCH_ROUND_MS, the time a program
 * that times itself may spend measuring each metric (docs/gate.md, "Short rounds"): many short paired runs
 * judge a change sooner than a few long ones, since a slow phase of the machine then hits both sides alike.
 * At least MIN_REPS, so each run's minimum still has repetitions to choose from. */
#ifndef MIN_REPS
#define MIN_REPS 5
#endif
static int repetitions(void)
{
    const char *text = getenv("RHO_BENCH_ROUND_MS");
    char *end = NULL;
    double ms;
    int reps;

    if (text == NULL || *text == '\0') {
        return REPS;
    }
    ms = strtod(text, &end);
    if (*end != '\0' || !(ms > 0.0)) {
        return REPS;
    }
    reps = (int)(ms / (MIN_REP_S * 1e3));
    return reps < MIN_REPS ? MIN_REPS : reps > REPS ? REPS : reps;
}

/* The best of `reps` repetitions of every kernel, in rounds: each round times one repetition of each kernel
 * in turn. The noise of a shared machine comes in phases of a fraction of a second; in rounds, such a phase
 * slows a few repetitions of every kernel instead of all the repetitions of one. */
static void time_in_rounds(struct kernel_timing *k, int count, int reps)
{
    int rep, j;
    long i;

    for (j = 0; j < count; j++) {
        k[j].calls = calibrate(k[j].fn);
        k[j].best_ns = -1.0;
    }
    for (rep = 0; rep < reps; rep++) {
        for (j = 0; j < count; j++) {
            const double t0 = now_s();
            double per_call_ns;
            for (i = 0; i < k[j].calls; i++) {
                k[j].fn();
            }
            per_call_ns = (now_s() - t0) / (double)k[j].calls * 1e9;
            if (k[j].best_ns < 0.0 || per_call_ns < k[j].best_ns) {
                k[j].best_ns = per_call_ns;
            }
        }
    }
}

int main(void)
{
    struct kernel_timing k[4] = {
        {"matmul_ns", call_matmul, 0, 0.0},
        {"sum_ns", call_sum, 0, 0.0},
        {"rmsnorm_ns", call_rmsnorm, 0, 0.0},
        {"count_below_ns", call_count_below, 0, 0.0},
    };
    const int reps = repetitions();
    int j;

    kata_init_inputs();
    time_in_rounds(k, 4, reps);

    printf("kata: matmul n=%d, sum n=%d, rmsnorm rows=%d d=%d, count_below n=%d\n", KATA_MATMUL_N, KATA_SUM_N,
           KATA_RMS_ROWS, KATA_RMS_D, KATA_SEARCH_N);
    printf("best of %d repetitions of at least %.0f ms each, ns per call:\n", reps, MIN_REP_S * 1e3);
    for (j = 0; j < 4; j++) {
        printf("  %-16s %14.1f  (%ld calls per repetition)\n", k[j].name, k[j].best_ns, k[j].calls);
    }
    /* The metrics: the last stdout line, one JSON object, lower is better. */
    printf("{");
    for (j = 0; j < 4; j++) {
        printf("%s\"%s\": %.3f", j > 0 ? ", " : "", k[j].name, k[j].best_ns);
    }
    printf("}\n");
    return 0;
}

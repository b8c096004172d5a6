/* Correctness check of a kata kernels.c against plain naive kernels, on awkward sizes.
 *
 * Build with any kernels.c (the reference or a planted slowdown):
 *     cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -o check check.c kernels.c -lm
 * Exit 0 when every kernel agrees with its naive version, 1 otherwise (each disagreement is printed).
 *
 * A slowdown is only a perf fault if it keeps every answer right; this is what says it does. Matmul and sum
 * are first checked on small-integer inputs whose every partial sum is exact in float32, so any summation
 * order gives the exact answer and the comparison is exact equality: a dropped or doubled element cannot hide
 * inside a rounding tolerance. Fractional inputs are then checked against a double-precision oracle within
 * a tolerance. Every output buffer carries guard cells after its end, and every input is compared with a
 * copy afterwards, so writing out of bounds or into an input fails too. */
#include "kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 16
#define GUARD_VALUE -12345.5f

static int failures = 0;

static void fail(const char *what, int a, int b, double got, double want)
{
    failures++;
    if (failures <= 40) {
        fprintf(stderr, "check: %s (%d, %d): got %.9g, want %.9g\n", what, a, b, got, want);
    }
}

static float *alloc_floats(long count)
{
    float *p = malloc((size_t)(count + GUARD) * sizeof *p);
    long i;
    if (p == NULL) {
        fprintf(stderr, "check: out of memory (%ld floats)\n", count);
        exit(2);
    }
    for (i = 0; i < count + GUARD; i++) {
        p[i] = GUARD_VALUE;
    }
    return p;
}

static void check_guard(const char *what, const float *p, long count)
{
    int g;
    for (g = 0; g < GUARD; g++) {
        if (p[count + g] != GUARD_VALUE) {
            fail(what, (int)count, g, p[count + g], GUARD_VALUE);
            return;
        }
    }
}

static void check_unchanged(const char *what, const float *p, const float *copy, long count)
{
    if (count > 0 && memcmp(p, copy, (size_t)count * sizeof *p) != 0) {
        fail(what, (int)count, 0, 0.0, 0.0);
    }
}

/* Small integers in [-4, 4]: products and every partial sum of up to 2^19 of them are exact in float32. */
static float small_int(long i, int salt)
{
    return (float)((int)(((unsigned long)i * 2654435761u + (unsigned long)salt * 40503u) % 9u) - 4);
}

/* Fractional values of mixed sign and magnitude, not exactly representable in general. */
static float fractional(long i, int salt)
{
    return (float)sin(0.37 * (double)i + 1.3 * (double)salt) * (float)(1.0 + (double)((i * 7 + salt) % 5));
}

static void naive_matmul(const float *A, const float *B, double *C, int n)
{
    int i, j, k;
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            double s = 0.0;
            for (k = 0; k < n; k++) {
                s += (double)A[(long)i * n + k] * (double)B[(long)k * n + j];
            }
            C[(long)i * n + j] = s;
        }
    }
}

static void check_matmul(int n, int exact)
{
    const long nn = (long)n * n;
    float *A = alloc_floats(nn), *B = alloc_floats(nn), *C = alloc_floats(nn);
    float *A0 = alloc_floats(nn), *B0 = alloc_floats(nn);
    double *want = malloc((size_t)(nn > 0 ? nn : 1) * sizeof *want);
    long i;
    int k;

    if (want == NULL) {
        exit(2);
    }
    for (i = 0; i < nn; i++) {
        A[i] = exact ? small_int(i, 1) : fractional(i, 1);
        B[i] = exact ? small_int(i, 2) : fractional(i, 2);
        C[i] = 1.0e30f; /* stale contents must be overwritten, not accumulated into */
    }
    memcpy(A0, A, (size_t)nn * sizeof *A);
    memcpy(B0, B, (size_t)nn * sizeof *B);
    kata_matmul(A, B, C, n);
    naive_matmul(A, B, want, n);
    for (i = 0; i < nn; i++) {
        double tol = 0.0;
        if (!exact) {
            /* float32 error of an n-term dot product, bounded by n * eps * sum |a||b| (the sum is <= 25n) */
            double mag = 0.0;
            for (k = 0; k < n; k++) {
                mag += fabs((double)A[(i / n) * n + k] * (double)B[(long)k * n + i % n]);
            }
            tol = 4.0 * (double)n * 1.2e-7 * mag + 1e-30;
        }
        if (!(fabs((double)C[i] - want[i]) <= tol)) {
            fail(exact ? "matmul exact (n, index)" : "matmul fractional (n, index)", n, (int)i, C[i], want[i]);
            break;
        }
    }
    check_guard("matmul wrote past C (n, guard)", C, nn);
    check_unchanged("matmul changed A (n)", A, A0, nn);
    check_unchanged("matmul changed B (n)", B, B0, nn);
    free(A), free(B), free(C), free(A0), free(B0), free(want);
}

static void check_sum(int n, int exact)
{
    float *x = alloc_floats(n > 0 ? n : 0), *x0 = alloc_floats(n > 0 ? n : 0);
    double want = 0.0, mag = 0.0, tol;
    float got;
    int i;

    for (i = 0; i < n; i++) {
        x[i] = exact ? small_int(i, 3) : fractional(i, 3);
        want += (double)x[i];
        mag += fabs((double)x[i]);
    }
    memcpy(x0, x, (size_t)(n > 0 ? n : 0) * sizeof *x);
    got = kata_sum(x, n);
    tol = exact ? 0.0 : 4.0 * (double)n * 1.2e-7 * mag + 1e-30;
    if (!(fabs((double)got - want) <= tol)) {
        fail(exact ? "sum exact (n, -)" : "sum fractional (n, -)", n, 0, got, want);
    }
    check_unchanged("sum changed x (n)", x, x0, n > 0 ? n : 0);
    free(x), free(x0);
}

static void check_rmsnorm(int rows, int d)
{
    const long count = (long)rows * d;
    const float eps = 1e-5f;
    float *x = alloc_floats(count), *w = alloc_floats(d), *y = alloc_floats(count);
    float *x0 = alloc_floats(count), *w0 = alloc_floats(d);
    int r, j;

    for (j = 0; j < count; j++) {
        x[j] = fractional(j, 4);
        y[j] = 1.0e30f;
    }
    if (rows > 1) {
        for (j = 0; j < d; j++) {
            x[j] = 0.0f; /* an all-zero row: the eps keeps it finite */
        }
    }
    for (j = 0; j < d; j++) {
        w[j] = 0.5f + (float)(j % 7) * 0.25f;
    }
    memcpy(x0, x, (size_t)count * sizeof *x);
    memcpy(w0, w, (size_t)d * sizeof *w);
    kata_rmsnorm(x, w, y, rows, d, eps);
    for (r = 0; r < rows; r++) {
        double ss = 0.0, scale;
        for (j = 0; j < d; j++) {
            ss += (double)x[(long)r * d + j] * (double)x[(long)r * d + j];
        }
        scale = 1.0 / sqrt(ss / (double)d + (double)eps);
        for (j = 0; j < d; j++) {
            const double want = (double)x[(long)r * d + j] * scale * (double)w[j];
            const double got = (double)y[(long)r * d + j];
            if (!(fabs(got - want) <= 1e-5 * fabs(want) + 1e-6 + (double)d * 1e-8 * fabs(want))) {
                fail("rmsnorm (rows, d)", rows, d, got, want);
                r = rows;
                break;
            }
        }
    }
    check_guard("rmsnorm wrote past y (count, guard)", y, count);
    check_unchanged("rmsnorm changed x (count)", x, x0, count);
    check_unchanged("rmsnorm changed w (d)", w, w0, d);
    free(x), free(w), free(y), free(x0), free(w0);
}

static void check_count_below(int n)
{
    float *s = alloc_floats(n), *s0 = alloc_floats(n);
    float probes[8];
    int i, p;

    /* Ascending with runs of equal values, so "< t" and "<= t" differ. */
    for (i = 0; i < n; i++) {
        s[i] = (float)(i / 3) * 0.5f - 2.0f;
    }
    memcpy(s0, s, (size_t)n * sizeof *s);
    probes[0] = -1.0e30f;
    probes[1] = 1.0e30f;
    probes[2] = (float)-INFINITY;
    probes[3] = (float)INFINITY;
    probes[4] = (float)NAN;
    probes[5] = -2.0f;
    probes[6] = -2.25f;
    probes[7] = (float)(n / 3) * 0.5f - 2.0f;
    for (p = 0; p < 8 + 2 * (n / 3 + 2); p++) {
        /* beyond the fixed probes: every stored value, and every midpoint between two of them */
        const float t = p < 8 ? probes[p] : (float)(p - 8) * 0.25f - 2.5f;
        int want = 0;
        int got;
        for (i = 0; i < n; i++) {
            want += s[i] < t;
        }
        got = kata_count_below(s, n, t);
        if (got != want) {
            fail("count_below (n, probe)", n, p, got, want);
            break;
        }
    }
    check_unchanged("count_below changed sorted (n)", s, s0, n);
    free(s), free(s0);
}

int main(void)
{
    static const int matmul_sizes[] = {1, 2, 3, 7, 8, 9, 17, 31, 63, 64, 65, 100, 127, 128, 130};
    static const int sum_sizes[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4095, 4096, 4097};
    static const int rms_shapes[][2] = {{1, 1}, {1, 2}, {3, 7}, {2, 8}, {5, 9}, {4, 16}, {3, 17},
                                        {4, 65}, {2, 513}, {1, 1000}, {7, 1024}};
    static const int search_sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 32, 33, 100, 1000, 4099};
    size_t i;

    for (i = 0; i < sizeof matmul_sizes / sizeof matmul_sizes[0]; i++) {
        check_matmul(matmul_sizes[i], 1);
        check_matmul(matmul_sizes[i], 0);
    }
    for (i = 0; i < sizeof sum_sizes / sizeof sum_sizes[0]; i++) {
        check_sum(sum_sizes[i], 1);
        check_sum(sum_sizes[i], 0);
    }
    for (i = 0; i < sizeof rms_shapes / sizeof rms_shapes[0]; i++) {
        check_rmsnorm(rms_shapes[i][0], rms_shapes[i][1]);
    }
    for (i = 0; i < sizeof search_sizes / sizeof search_sizes[0]; i++) {
        check_count_below(search_sizes[i]);
    }
    if (failures > 0) {
        fprintf(stderr, "check: %d disagreement(s) with the naive kernels\n", failures);
        return 1;
    }
    printf("check: all four kernels agree with the naive ones\n");
    return 0;
}

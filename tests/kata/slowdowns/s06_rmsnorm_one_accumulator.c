/* s06: rmsnorm's sum of squares with one accumulator: a dependency chain of adds that cannot vectorise. */
#include "kernels.h"

#include <math.h>

/* Tiles of matmul. The inner loop walks TILE_J columns of B and C with unit stride, wide enough for the
 * compiler to vectorise it; a TILE_K x TILE_J block of B (16 KiB) stays in L1 while every row of A uses it. */
#define TILE_K 64
#define TILE_J 64

/* Independent partial sums: each add no longer waits for the previous one, and the eight lanes vectorise. */
#define LANES 8

/* c[0..TILE_J-1] += a * b[0..TILE_J-1]: a fixed trip count over unaliased rows, which -O2 vectorises. */
static void add_scaled_tile(float *restrict c, const float *restrict b, float a)
{
    int j;
    for (j = 0; j < TILE_J; j++) {
        c[j] += a * b[j];
    }
}

void kata_matmul(const float *A, const float *B, float *C, int n)
{
    int i, j, k, k0, j0;

    for (i = 0; i < n * n; i++) {
        C[i] = 0.0f;
    }
    for (k0 = 0; k0 < n; k0 += TILE_K) {
        const int k1 = k0 + TILE_K < n ? k0 + TILE_K : n;
        for (j0 = 0; j0 < n; j0 += TILE_J) {
            const int width = j0 + TILE_J < n ? TILE_J : n - j0;
            for (i = 0; i < n; i++) {
                const float *a = A + (long)i * n;
                float *c = C + (long)i * n + j0;
                for (k = k0; k < k1; k++) {
                    const float *b = B + (long)k * n + j0;
                    if (width == TILE_J) {
                        add_scaled_tile(c, b, a[k]);
                    } else {
                        for (j = 0; j < width; j++) {
                            c[j] += a[k] * b[j];
                        }
                    }
                }
            }
        }
    }
}

float kata_sum(const float *x, int n)
{
    float acc[LANES] = {0.0f};
    int i, l;

    for (i = 0; i + LANES <= n; i += LANES) {
        for (l = 0; l < LANES; l++) {
            acc[l] += x[i + l];
        }
    }
    for (; i < n; i++) {
        acc[0] += x[i];
    }
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

/* The mean square of one row, with the same partial sums as kata_sum. */
static float mean_square(const float *x, int d)
{
    float acc = 0.0f;
    int j;

    for (j = 0; j < d; j++) {
        acc += x[j] * x[j];
    }
    return acc / (float)d;
}

/* y = x * scale * w over one row, in blocks of LANES that -O2 vectorises (the rows do not overlap). */
static void scale_row(float *restrict y, const float *restrict x, const float *restrict w, float scale, int d)
{
    int j, l;

    for (j = 0; j + LANES <= d; j += LANES) {
        for (l = 0; l < LANES; l++) {
            y[j + l] = x[j + l] * scale * w[j + l];
        }
    }
    for (; j < d; j++) {
        y[j] = x[j] * scale * w[j];
    }
}

void kata_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps)
{
    int r;

    for (r = 0; r < rows; r++) {
        const float *xr = x + (long)r * d;
        const float scale = 1.0f / sqrtf(mean_square(xr, d) + eps);
        scale_row(y + (long)r * d, xr, w, scale, d);
    }
}

int kata_count_below(const float *sorted, int n, float t)
{
    /* Invariant: every entry before lo is < t, every entry from hi on is not. */
    int lo = 0;
    int hi = n;

    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (sorted[mid] < t) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* The kata: four float32 kernels whose speed depends on how they are written, not on what they compute.
 * rho's gate is tested against this file's reference (kernels.c) and against the planted slowdowns in
 * slowdowns/, each of which computes the same answers more slowly. Plain C99. */
#ifndef KATA_KERNELS_H
#define KATA_KERNELS_H

/* C = A @ B for n x n row-major matrices. C must not overlap A or B. */
void kata_matmul(const float *A, const float *B, float *C, int n);

/* The sum of x[0..n-1]; 0 when n <= 0. */
float kata_sum(const float *x, int n);

/* Each of `rows` rows of length d: y = x / sqrt(mean(x^2) + eps) * w. y must not overlap x or w. */
void kata_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps);

/* How many entries of the ascending array sorted[0..n-1] are < t (0 when t is NaN). */
int kata_count_below(const float *sorted, int n, float t);

#endif

/* For tests/test_capi_wide.c: compact random matrices, column-major arrays with a leading dimension of 2^31 or more
 * over an anonymous mapping made with MAP_NORESERVE (only the pages the columns touch cost memory; two markers follow
 * each column), and the scaled residuals the checks use, computed naively in double. */
#ifndef STARFACT_TESTS_WIDE_MATRICES_H
#define STARFACT_TESTS_WIDE_MATRICES_H
/* (MAP_ANONYMOUS and MAP_NORESERVE: the includer defines _DEFAULT_SOURCE before any header) */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "capi/starfact_c.h"

#define WIDE ((int64_t)1 << 31) /* the smallest leading dimension beyond a 32-bit signed integer */
#define MARKER (-777.0)

static unsigned long long rng_state = 88172645463325252ull;

static double uniform(void) { /* xorshift64, entries in [-0.5, 0.5] */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0 - 0.5;
}

/* A compact column-major rows x cols matrix: SPD (random symmetric + rows I; square), diagonally weighted
 * general (square), or uniform. */
enum kind { UNIFORM, SPD, GENERAL };
static double* matrix(int64_t rows, int64_t cols, enum kind kind) {
    double* a = malloc(sizeof(double) * (size_t)(rows * cols + 1));
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i) a[i + j * rows] = uniform();
    if (kind == SPD)
        for (int64_t j = 0; j < rows; ++j) {
            for (int64_t i = 0; i < j; ++i) a[i + j * rows] = a[j + i * rows];
            a[j + j * rows] += (double)rows;
        }
    if (kind == GENERAL)
        for (int64_t j = 0; j < rows; ++j) a[j + j * rows] += 0.5;
    return a;
}

/* A rows x cols array with leading dimension ld over a mapping without reserve; two markers follow each column. */
typedef struct {
    void* data;
    int64_t rows, cols, ld;
    int32_t dtype;
    size_t bytes;
} Wide;

static size_t entry_size(int32_t dtype) { return dtype == STARFACT_C_FLOAT64 ? 8 : 4; }

static void set(const Wide* w, int64_t k, double v) {
    if (w->dtype == STARFACT_C_FLOAT64) ((double*)w->data)[k] = v;
    else ((float*)w->data)[k] = (float)v;
}
static double get(const Wide* w, int64_t k) {
    return w->dtype == STARFACT_C_FLOAT64 ? ((double*)w->data)[k] : (double)((float*)w->data)[k];
}

static Wide wide(int64_t rows, int64_t cols, int64_t ld, int32_t dtype) {
    Wide w = {NULL, rows, cols, ld, dtype, 0};
    w.bytes = (size_t)((cols > 0 ? cols - 1 : 0) * ld + rows + 2) * entry_size(dtype);
    w.data = mmap(NULL, w.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (w.data == MAP_FAILED) {
        fprintf(stderr, "mmap of %zu bytes without reserve failed\n", w.bytes);
        exit(1);
    }
    for (int64_t j = 0; j < cols; ++j) {
        set(&w, j * ld + rows, MARKER);
        set(&w, j * ld + rows + 1, MARKER);
    }
    return w;
}
static void put(Wide* w, const double* a) {
    for (int64_t j = 0; j < w->cols; ++j)
        for (int64_t i = 0; i < w->rows; ++i) set(w, i + j * w->ld, a[i + j * w->rows]);
}
static double* contents(const Wide* w) { /* compact copy, in double */
    double* a = malloc(sizeof(double) * (size_t)(w->rows * w->cols + 1));
    for (int64_t j = 0; j < w->cols; ++j)
        for (int64_t i = 0; i < w->rows; ++i) a[i + j * w->rows] = get(w, i + j * w->ld);
    return a;
}
static int markers_intact(const Wide* w) {
    for (int64_t j = 0; j < w->cols; ++j)
        if (get(w, j * w->ld + w->rows) != MARKER || get(w, j * w->ld + w->rows + 1) != MARKER) return 0;
    return 1;
}
static void release(Wide* w) { munmap(w->data, w->bytes); }
static starfact_c_matrix desc(const Wide* w) {
    starfact_c_matrix m = {w->data, w->rows, w->cols, w->ld, w->dtype, STARFACT_C_HOST};
    return m;
}

static double norm1(const double* a, int64_t rows, int64_t cols) {
    double m = 0;
    for (int64_t j = 0; j < cols; ++j) {
        double s = 0;
        for (int64_t i = 0; i < rows; ++i) s += fabs(a[i + j * rows]);
        if (s > m || isnan(s)) m = s;
    }
    return m;
}

/* ||A X - B||_1 / (||A||_1 ||X||_1 n eps), A n x n. */
static double solve_residual(const double* a, const double* x, const double* b, int64_t n, int64_t nrhs, double eps) {
    double* r = malloc(sizeof(double) * (size_t)(n * nrhs + 1));
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = 0; i < n; ++i) {
            double s = -b[i + j * n];
            for (int64_t k = 0; k < n; ++k) s += a[i + k * n] * x[k + j * n];
            r[i + j * n] = s;
        }
    const double res = norm1(r, n, nrhs) / (norm1(a, n, n) * norm1(x, n, nrhs) * (double)n * eps);
    free(r);
    return res;
}

/* ||A - L L^T||_1 / (||A||_1 n eps), L the lower triangle of f. */
static double cholesky_residual(const double* a, const double* f, int64_t n, double eps) {
    double* r = malloc(sizeof(double) * (size_t)(n * n + 1));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            double s = a[i + j * n];
            for (int64_t k = 0; k <= (i < j ? i : j); ++k) s -= f[i + k * n] * f[j + k * n];
            r[i + j * n] = s;
        }
    const double res = norm1(r, n, n) / (norm1(a, n, n) * (double)n * eps);
    free(r);
    return res;
}

/* ||P A - L U||_1 / (||A||_1 n eps), P from LAPACK's 1-based ipiv. */
static double lu_residual(const double* a, const double* lu, const int64_t* ipiv, int64_t n, double eps) {
    double* r = malloc(sizeof(double) * (size_t)(n * n + 1));
    memcpy(r, a, sizeof(double) * (size_t)(n * n));
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
            const double t = r[i + j * n];
            r[i + j * n] = r[ipiv[i] - 1 + j * n];
            r[ipiv[i] - 1 + j * n] = t;
        }
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            double s = 0;
            for (int64_t k = 0; k <= (i < j ? i : j); ++k) s += (k == i ? 1.0 : lu[i + k * n]) * lu[k + j * n];
            r[i + j * n] -= s;
        }
    const double res = norm1(r, n, n) / (norm1(a, n, n) * (double)n * eps);
    free(r);
    return res;
}

/* ||A - Q R||_1 / (||A||_1 m eps) and ||I - Q^T Q||_1 / (m eps), Q m x n, R the upper triangle of f (m x n). */
static void qr_residuals(const double* a, const double* q, const double* f, int64_t m, int64_t n, double eps,
                         double* factorization, double* orthogonality) {
    double* r = malloc(sizeof(double) * (size_t)(m * n + n * n + 1));
    double* g = r + m * n;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            double s = a[i + j * m];
            for (int64_t k = 0; k <= j; ++k) s -= q[i + k * m] * f[k + j * m];
            r[i + j * m] = s;
        }
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            double s = i == j ? 1.0 : 0.0;
            for (int64_t k = 0; k < m; ++k) s -= q[k + i * m] * q[k + j * m];
            g[i + j * n] = s;
        }
    *factorization = norm1(r, m, n) / (norm1(a, m, n) * (double)m * eps);
    *orthogonality = norm1(g, n, n) / ((double)m * eps);
    free(r);
}

/* ||A^T (A X - B)||_1 / (||A||_1 (||A||_1 ||X||_1 + ||B||_1) m eps), X the first n rows of x (m x nrhs). */
static double normal_residual(const double* a, const double* x, const double* b, int64_t m, int64_t n, int64_t nrhs,
                              double eps) {
    double* r = malloc(sizeof(double) * (size_t)(m * nrhs + n * nrhs + 1));
    double* g = r + m * nrhs;
    double nx = 0;
    for (int64_t j = 0; j < nrhs; ++j) {
        double s = 0;
        for (int64_t k = 0; k < n; ++k) s += fabs(x[k + j * m]);
        if (s > nx) nx = s;
        for (int64_t i = 0; i < m; ++i) {
            double t = -b[i + j * m];
            for (int64_t k = 0; k < n; ++k) t += a[i + k * m] * x[k + j * m];
            r[i + j * m] = t;
        }
    }
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t k = 0; k < n; ++k) {
            double s = 0;
            for (int64_t i = 0; i < m; ++i) s += a[i + k * m] * r[i + j * m];
            g[k + j * n] = s;
        }
    const double na = norm1(a, m, n);
    const double res = norm1(g, n, nrhs) / (na * (na * nx + norm1(b, m, nrhs)) * (double)m * eps);
    free(r);
    return res;
}

#endif

/* What the C programs testing the C ABI on complex matrices share (test_capi_complex.c, test_capi_qr_complex.c,
 * test_capi_potri_complex.c), on top of capi_check.h: the dtype's traits (complex64 or complex128), fresh random
 * matrices in double complex with entries rounded to the dtype's precision (so that the residuals measure the library
 * alone), the conversions between them and the interleaved re/im arrays the C ABI takes (column-major, a leading
 * dimension), and the 1-norm. Header-only: each program includes it once. */
#ifndef STARFACT_TESTS_CAPI_COMPLEX_H
#define STARFACT_TESTS_CAPI_COMPLEX_H

#include <complex.h>
#include <float.h>
#include <math.h>

#include "tests/capi_check.h"

typedef double complex zc;

static inline int is_single(int32_t dtype) { return dtype == STARFACT_C_COMPLEX64; }
static inline double eps_of(int32_t dtype) { return is_single(dtype) ? FLT_EPSILON : DBL_EPSILON; }
static inline size_t size_of(int32_t dtype) { return is_single(dtype) ? 2 * sizeof(float) : 2 * sizeof(double); }
static inline const char* name_of(int32_t dtype) { return is_single(dtype) ? "complex64" : "complex128"; }

/* A rows x cols matrix of zeros, compact column-major (one entry more: never a zero-size allocation). */
static inline zc* zalloc(int64_t rows, int64_t cols) { return calloc((size_t)(rows * cols + 1), sizeof(zc)); }

/* v rounded to the dtype's precision. */
static inline zc rounded(zc v, int32_t dtype) {
    return is_single(dtype) ? (float)creal(v) + (float)cimag(v) * I : v;
}

/* A random entry: real and imaginary parts uniform in [-0.5, 0.5] (drawn in that order). */
static inline zc random_entry(void) {
    const double re = check_uniform();
    return re + check_uniform() * I;
}

/* A random rows x cols matrix (random entries plus 0.5 on the diagonal), rounded to the dtype's precision. */
static inline zc* general(int64_t rows, int64_t cols, int32_t dtype) {
    zc* a = zalloc(rows, cols);
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i) a[i + j * rows] = rounded(random_entry() + (i == j ? 0.5 : 0.0), dtype);
    return a;
}

/* An n x n Hermitian positive definite matrix, compact column-major, in double complex: random off-diagonal entries
 * with complex parts, their conjugates above, the diagonal real plus n; entries rounded to the dtype's precision. */
static inline zc* hermitian(int64_t n, int32_t dtype) {
    zc* a = zalloc(n, n);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = j + 1; i < n; ++i) {
            const zc v = rounded(random_entry(), dtype);
            a[i + j * n] = v;
            a[j + i * n] = conj(v);
        }
        a[j + j * n] = rounded(check_uniform() + (double)n, dtype);
    }
    return a;
}

/* Entry k of the interleaved array of dtype, in double complex; and the store of v there. */
static inline zc entry(const void* data, int64_t k, int32_t dtype) {
    if (is_single(dtype)) return ((const float*)data)[2 * k] + ((const float*)data)[2 * k + 1] * I;
    return ((const double*)data)[2 * k] + ((const double*)data)[2 * k + 1] * I;
}
static inline void set_entry(void* data, int64_t k, int32_t dtype, zc v) {
    if (is_single(dtype)) {
        ((float*)data)[2 * k] = (float)creal(v);
        ((float*)data)[2 * k + 1] = (float)cimag(v);
    } else {
        ((double*)data)[2 * k] = creal(v);
        ((double*)data)[2 * k + 1] = cimag(v);
    }
}
/* The C array of dtype (leading dimension ld) holding the compact rows x cols z; entries outside it hold `pad`. */
static inline void* to_array(const zc* z, int64_t rows, int64_t cols, int64_t ld, int32_t dtype, zc pad) {
    const int64_t count = ld * (cols > 0 ? cols : 1);
    void* out = malloc(size_of(dtype) * (size_t)count);
    for (int64_t k = 0; k < count; ++k) {
        const int64_t i = k % ld, j = k / ld;
        set_entry(out, k, dtype, i < rows && j < cols ? z[i + j * rows] : pad);
    }
    return out;
}
/* The compact rows x cols matrix of the array (leading dimension ld), in double complex. */
static inline zc* from_array(const void* data, int64_t rows, int64_t cols, int64_t ld, int32_t dtype) {
    zc* z = zalloc(rows, cols);
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i) z[i + j * rows] = entry(data, i + j * ld, dtype);
    return z;
}

/* ||A||_1 of the compact rows x cols A (NaN when an entry is). */
static inline double norm1(const zc* a, int64_t rows, int64_t cols) {
    double m = 0;
    for (int64_t j = 0; j < cols; ++j) {
        double s = 0;
        for (int64_t i = 0; i < rows; ++i) s += cabs(a[i + j * rows]);
        if (s > m || isnan(s)) m = s;
    }
    return m;
}

#endif /* STARFACT_TESTS_CAPI_COMPLEX_H */

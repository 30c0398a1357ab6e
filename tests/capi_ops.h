/* What the parts of the program test_capi share (tests/test_capi.c, with main and the helpers, and tests/capi_ops_*.c,
 * the tests of each family of operations): the CHECK macro and its count of failures, random matrices (the generator
 * seeded in main), scaled residuals, arrays in either precision as the C ABI gets them, the wait for a job; and the
 * test functions main calls in turn. */
#ifndef STARFACT_TESTS_CAPI_OPS_H
#define STARFACT_TESTS_CAPI_OPS_H

#include <stdint.h>
#include <stdio.h>

#include "capi/starfact_c.h"

/* The failed checks so far (tests/test_capi.c). */
extern int failures;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            ++failures;                                          \
            fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
        }                                                        \
    } while (0)

/* The array as the C ABI gets it: double, or a float copy (and back). */
typedef struct {
    int32_t dtype;
    void* data;
    int64_t rows, cols;
} Array;

/* tests/test_capi.c */
double* matrix(int64_t n, int64_t cols, int spd);
double norm1(const double* a, int64_t rows, int64_t cols);
double solve_residual(const double* a, const double* x, const double* b, int64_t n, int64_t nrhs, double eps);
double cholesky_residual(const double* a, const double* f, int64_t n, double eps);
Array as(const double* a, int64_t rows, int64_t cols, int32_t dtype);
double* back(const Array* a);
starfact_c_matrix desc(const Array* a);
int wait_job(int status, starfact_c_job** job, int32_t* info);

/* tests/capi_ops_cholesky_lu.c: potrf, potrs, posv (also mixed), potri, getrf, getrs, gesv; infos and errors */
void test_operations(starfact_c_runtime* rt, int32_t dtype, int64_t n, int64_t nb);
void test_failures(starfact_c_runtime* rt);
/* tests/capi_ops_qr.c: geqrf and its factors, orgqr, ormqr, gels; wide matrices; infos and errors */
void test_qr(starfact_c_runtime* rt, int32_t dtype, int64_t m, int64_t n, int64_t nb, const char* tree);
void test_qr_wide(starfact_c_runtime* rt, int32_t dtype, int64_t m, int64_t n, int64_t nb, const char* tree);
void test_qr_failures(starfact_c_runtime* rt);
/* tests/capi_ops_batched.c: batched posv, gesv and getrs */
void test_batched(starfact_c_runtime* rt);

#endif /* STARFACT_TESTS_CAPI_OPS_H */

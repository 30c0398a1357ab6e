/* The C ABI (capi/starfact_c.h) from C: every operation on host arrays in both precisions (scaled residuals < 60,
 * n = 1, n < nb, n not a multiple of nb, in place and into separate outputs; the copies counted: none in place), the
 * info of failing factorizations, and errors naming the argument; QR (geqrf's factors handle, orgqr, ormqr, gels) on
 * tall matrices with each tree. ctest `capi` (label cpu), so that tools/sanitize.sh
 * runs the C ABI under ASan and UBSan too. Exit status 0 when every check holds; each failed check prints a line. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capi/starfact_c.h"

static int failures = 0;
static unsigned long long rng_state = 88172645463325252ull;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            ++failures;                                          \
            fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
        }                                                        \
    } while (0)

static double uniform(void) { /* xorshift64, entries in [-0.5, 0.5] */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0 - 0.5;
}

/* A column-major n x n matrix (ld = n): SPD (random symmetric + n I) or general. */
static double* matrix(int64_t n, int64_t cols, int spd) {
    double* a = malloc(sizeof(double) * (size_t)(n * cols + 1));
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < n; ++i) a[i + j * n] = uniform();
    if (spd)
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < j; ++i) a[i + j * n] = a[j + i * n];
            a[j + j * n] += (double)n;
        }
    return a;
}

static double norm1(const double* a, int64_t rows, int64_t cols) {
    double m = 0;
    for (int64_t j = 0; j < cols; ++j) {
        double s = 0;
        for (int64_t i = 0; i < rows; ++i) s += fabs(a[i + j * rows]);
        if (s > m) m = s;
    }
    return m;
}

/* ||A X - B||_1 / (||A||_1 ||X||_1 n eps). */
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
            double s = a[(i >= j ? i : j) + (i >= j ? j : i) * n];
            for (int64_t k = 0; k <= (i < j ? i : j); ++k) s -= f[i + k * n] * f[j + k * n];
            r[i + j * n] = s;
        }
    const double res = norm1(r, n, n) / (norm1(a, n, n) * (double)n * eps);
    free(r);
    return res;
}

/* The array as the C ABI gets it: double, or a float copy (and back). */
typedef struct {
    int32_t dtype;
    void* data;
    int64_t rows, cols;
} Array;

static Array as(const double* a, int64_t rows, int64_t cols, int32_t dtype) {
    Array r = {dtype, NULL, rows, cols};
    const size_t count = (size_t)(rows * cols + 1);
    if (dtype == STARFACT_C_FLOAT64) {
        r.data = malloc(sizeof(double) * count);
        memcpy(r.data, a, sizeof(double) * (size_t)(rows * cols));
    } else {
        float* f = malloc(sizeof(float) * count);
        for (int64_t i = 0; i < rows * cols; ++i) f[i] = (float)a[i];
        r.data = f;
    }
    return r;
}

static double* back(const Array* a) {
    double* d = malloc(sizeof(double) * (size_t)(a->rows * a->cols + 1));
    for (int64_t i = 0; i < a->rows * a->cols; ++i)
        d[i] = a->dtype == STARFACT_C_FLOAT64 ? ((double*)a->data)[i] : (double)((float*)a->data)[i];
    return d;
}

static starfact_c_matrix desc(const Array* a) {
    starfact_c_matrix m = {a->data, a->rows, a->cols, a->rows > 0 ? a->rows : 1, a->dtype, STARFACT_C_HOST};
    return m;
}

/* Waits for and frees the job a submit call (status) made; *job is read after the call (argument order). */
static int wait_job(int status, starfact_c_job** job, int32_t* info) {
    if (status != STARFACT_C_OK) return status;
    status = starfact_c_job_wait(*job, info);
    starfact_c_job_destroy(*job);
    *job = NULL;
    return status;
}

static void test_operations(starfact_c_runtime* rt, int32_t dtype, int64_t n, int64_t nb) {
    const double eps = dtype == STARFACT_C_FLOAT64 ? DBL_EPSILON : FLT_EPSILON;
    const int64_t nrhs = 3;
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = nb;
    opts.mapping = "cpu-only";
    double* a = matrix(n, n, 1);
    double* g = matrix(n, n, 0);
    double* b = matrix(n, nrhs, 0);
    starfact_c_job* job = NULL;
    int32_t info = -1;

    /* potrf into a separate output, then potrs into b in place */
    Array ain = as(a, n, n, dtype), aout = as(a, n, n, dtype), bx = as(b, n, nrhs, dtype);
    memset(aout.data, 0, (size_t)(n * n) * (dtype == STARFACT_C_FLOAT64 ? 8 : 4));
    starfact_c_matrix mi = desc(&ain), mo = desc(&aout), mb = desc(&bx);
    int64_t copies0 = 0, bytes0 = 0, copies1 = 0, bytes1 = 0;
    const int64_t size = dtype == STARFACT_C_FLOAT64 ? 8 : 4;
    starfact_c_copy_counters(&copies0, &bytes0);
    CHECK(wait_job(starfact_c_potrf_submit(rt, &mi, &mo, &opts, &job), &job, &info) == 0 && info == 0,
          "potrf n=%lld: %s", (long long)n, starfact_c_error_message());
    starfact_c_copy_counters(&copies1, &bytes1);
    /* a separate output: one copy of a into it, where the factorization runs (a view of it) */
    CHECK(copies1 - copies0 == 1 && bytes1 - bytes0 == n * n * size, "potrf into a_out: %lld copies, %lld bytes",
          (long long)(copies1 - copies0), (long long)(bytes1 - bytes0));
    double* f = back(&aout);
    CHECK(cholesky_residual(a, f, n, eps) < 60, "potrf residual n=%lld", (long long)n);
    CHECK(wait_job(starfact_c_potrs_submit(rt, &mo, &mb, &mb, &opts, &job), &job, &info) == 0,
          "potrs: %s", starfact_c_error_message());
    double* x = back(&bx);
    CHECK(solve_residual(a, x, b, n, nrhs, eps) < 60, "potrs residual n=%lld", (long long)n);
    free(f);
    free(x);
    free(aout.data);
    free(bx.data);

    /* posv in place, posv with a refinement (the report) */
    Array aw = as(a, n, n, dtype), bw = as(b, n, nrhs, dtype);
    starfact_c_matrix ma = desc(&aw), mw = desc(&bw);
    starfact_c_copy_counters(&copies0, &bytes0);
    CHECK(wait_job(starfact_c_posv_submit(rt, &ma, &ma, &mw, &mw, &opts, NULL, &job), &job, &info) == 0 && info == 0,
          "posv: %s", starfact_c_error_message());
    starfact_c_copy_counters(&copies1, &bytes1);
    CHECK(copies1 == copies0 && bytes1 == bytes0, "posv in place copied %lld arrays", (long long)(copies1 - copies0));
    x = back(&bw);
    CHECK(solve_residual(a, x, b, n, nrhs, eps) < 60, "posv residual n=%lld", (long long)n);
    free(x);
    free(bw.data);
    bw = as(b, n, nrhs, dtype);
    mw = desc(&bw);
    starfact_c_refinement refine;
    starfact_c_refinement_init(&refine);
    starfact_c_options mixed = opts;
    mixed.factor = dtype == STARFACT_C_FLOAT64 ? "fp32" : "native";
    int status = starfact_c_posv_submit(rt, &mi, NULL, &mw, &mw, &mixed, &refine, &job);
    CHECK(status == 0, "mixed posv submit: %s", starfact_c_error_message());
    if (status == 0) {
        CHECK(starfact_c_job_wait(job, &info) == 0 && info == 0, "mixed posv: %s", starfact_c_error_message());
        starfact_c_solve_report report;
        CHECK(starfact_c_job_report(job, &report) == 0, "job_report: %s", starfact_c_error_message());
        const char* expected = dtype == STARFACT_C_FLOAT64 ? "refined" : "direct";
        CHECK(strcmp(report.path, expected) == 0 || (dtype == STARFACT_C_FLOAT64 && strcmp(report.path, "gmres") == 0),
              "mixed posv path %s (expected %s)", report.path, expected);
        int32_t done = 0;
        CHECK(starfact_c_job_done(job, &done) == 0 && done == 1, "job_done after wait");
        starfact_c_job_destroy(job);
        x = back(&bw);
        CHECK(solve_residual(a, x, b, n, nrhs, eps) < 60, "mixed posv residual n=%lld", (long long)n);
        free(x);
    }
    free(bw.data);
    free(aw.data);

    /* potri: A A^-1 = I through the lower triangle */
    aw = as(a, n, n, dtype);
    ma = desc(&aw);
    CHECK(wait_job(starfact_c_potri_submit(rt, &ma, &ma, &opts, &job), &job, &info) == 0 && info == 0,
          "potri: %s", starfact_c_error_message());
    double* inv = back(&aw);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < j; ++i) inv[i + j * n] = inv[j + i * n];
    double* eye = calloc((size_t)(n * n + 1), sizeof(double));
    for (int64_t i = 0; i < n; ++i) eye[i + i * n] = 1;
    CHECK(solve_residual(a, inv, eye, n, n, eps) < 60, "potri residual n=%lld", (long long)n);
    free(inv);
    free(eye);
    free(aw.data);

    /* getrf into a separate output with pivots, getrs with them; gesv in place */
    Array gin = as(g, n, n, dtype), lu = as(g, n, n, dtype);
    starfact_c_matrix mg = desc(&gin), ml = desc(&lu);
    int64_t* ipiv = malloc(sizeof(int64_t) * (size_t)(n + 1));
    CHECK(wait_job(starfact_c_getrf_submit(rt, &mg, &ml, ipiv, &opts, &job), &job, &info) == 0 && info == 0,
          "getrf: %s", starfact_c_error_message());
    for (int64_t i = 0; i < n; ++i) CHECK(ipiv[i] >= i + 1 && ipiv[i] <= n, "getrf pivot %lld", (long long)i);
    bx = as(b, n, nrhs, dtype);
    mb = desc(&bx);
    CHECK(wait_job(starfact_c_getrs_submit(rt, &ml, ipiv, &mb, &mb, &opts, &job), &job, &info) == 0,
          "getrs: %s", starfact_c_error_message());
    x = back(&bx);
    CHECK(solve_residual(g, x, b, n, nrhs, eps) < 60, "getrs residual n=%lld", (long long)n);
    free(x);
    free(bx.data);
    bx = as(b, n, nrhs, dtype);
    mb = desc(&bx);
    CHECK(wait_job(starfact_c_gesv_submit(rt, &mg, NULL, NULL, &mb, &mb, &opts, &job), &job, &info) == 0 && info == 0,
          "gesv: %s", starfact_c_error_message());
    x = back(&bx);
    CHECK(solve_residual(g, x, b, n, nrhs, eps) < 60, "gesv residual n=%lld", (long long)n);
    free(x);
    free(bx.data);
    free(ipiv);
    free(lu.data);
    free(gin.data);
    free(ain.data);
    free(a);
    free(g);
    free(b);
}

static void test_failures(starfact_c_runtime* rt) {
    const int64_t n = 40;
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = 16;
    double* a = matrix(n, n, 1);
    a[20 + 20 * n] = -1; /* the leading minor of order 21 fails */
    double* b = matrix(n, 1, 0);
    starfact_c_matrix ma = {a, n, n, n, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_matrix mb = {b, n, 1, n, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_job* job = NULL;
    int32_t info = 0;
    CHECK(wait_job(starfact_c_posv_submit(rt, &ma, NULL, &mb, &mb, &opts, NULL, &job), &job, &info) == 0 && info == 21,
          "posv of a matrix whose minor 21 fails: info %d", info);
    double* g = matrix(n, n, 0);
    for (int64_t i = 0; i < n; ++i) g[i + 7 * n] = 0; /* U(8, 8) is exactly zero */
    starfact_c_matrix mg = {g, n, n, n, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    CHECK(wait_job(starfact_c_gesv_submit(rt, &mg, NULL, NULL, &mb, &mb, &opts, &job), &job, &info) == 0 && info == 8,
          "gesv of a singular matrix: info %d", info);

    /* errors: an argument error (or, for device memory in a build without CUDA, not built) naming the argument */
    starfact_c_matrix bad_ld = ma, rect = ma, wrong = mb, device = mb;
    bad_ld.ld = n - 1;
    rect.cols = n - 1;
    wrong.dtype = 7;
    device.device = 0;
    starfact_c_options bad = opts;
    bad.mapping = "sideways";
    int64_t ipiv[40];
    for (int64_t i = 0; i < n; ++i) ipiv[i] = i + 1;
    ipiv[5] = 1; /* a row before 5: not a getrf pivot */
    struct {
        int status;
        const char* argument;
        const char* what;
    } cases[] = {
        {starfact_c_potrf_submit(rt, &bad_ld, NULL, &opts, &job), "a", "ld < rows"},
        {starfact_c_potrf_submit(rt, &rect, NULL, &opts, &job), "a", "not square"},
        {starfact_c_posv_submit(rt, &ma, NULL, &wrong, &wrong, &opts, NULL, &job), "b", "unknown dtype"},
        {starfact_c_potrf_submit(rt, &ma, NULL, &bad, &job), "mapping", "bad mapping"},
        {starfact_c_getrs_submit(rt, &mg, ipiv, &mb, &mb, &opts, &job), "ipiv", "bad pivot"},
        {starfact_c_posv_submit(rt, &ma, NULL, &device, &device, &opts, NULL, &job), "b", "device memory"},
        {starfact_c_potrf_submit(NULL, &ma, NULL, &opts, &job), "runtime", "no runtime"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        CHECK(cases[i].status == STARFACT_C_INVALID_ARGUMENT || cases[i].status == STARFACT_C_NOT_BUILT,
              "%s: status %d", cases[i].what, cases[i].status);
    /* the error state is the last failed call's on this thread */
    CHECK(strcmp(starfact_c_error_argument(), "runtime") == 0, "last error names %s", starfact_c_error_argument());
    CHECK(starfact_c_potrf_submit(rt, &bad_ld, NULL, &opts, &job) != 0 && strcmp(starfact_c_error_argument(), "a") == 0,
          "ld error names %s", starfact_c_error_argument());
    CHECK(strstr(starfact_c_error_message(), "leading dimension") != NULL, "message: %s", starfact_c_error_message());
    for (size_t i = 1; i < sizeof cases / sizeof cases[0]; ++i) {
        /* each case again, alone, for its argument name */
        int status = 0;
        switch (i) {
            case 1: status = starfact_c_potrf_submit(rt, &rect, NULL, &opts, &job); break;
            case 2: status = starfact_c_posv_submit(rt, &ma, NULL, &wrong, &wrong, &opts, NULL, &job); break;
            case 3: status = starfact_c_potrf_submit(rt, &ma, NULL, &bad, &job); break;
            case 4: status = starfact_c_getrs_submit(rt, &mg, ipiv, &mb, &mb, &opts, &job); break;
            case 5: status = starfact_c_posv_submit(rt, &ma, NULL, &device, &device, &opts, NULL, &job); break;
            default: status = starfact_c_potrf_submit(NULL, &ma, NULL, &opts, &job); break;
        }
        CHECK(status != 0 && strcmp(starfact_c_error_argument(), cases[i].argument) == 0, "%s names '%s' (expected %s)",
              cases[i].what, starfact_c_error_argument(), cases[i].argument);
    }
    free(a);
    free(b);
    free(g);
}

/* The C = A^T B (A m x n, B m x k) and C = A B (A m x n, B n x k) products of column-major arrays (ld = rows). */
static double* product(const double* a, int transpose_a, const double* b, int64_t m, int64_t n, int64_t k) {
    const int64_t rows = transpose_a ? n : m, inner = transpose_a ? m : n;
    double* c = malloc(sizeof(double) * (size_t)(rows * k + 1));
    for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < rows; ++i) {
            double s = 0;
            for (int64_t l = 0; l < inner; ++l) s += (transpose_a ? a[l + i * m] : a[i + l * m]) * b[l + j * inner];
            c[i + j * rows] = s;
        }
    return c;
}

/* ||I - Q^T Q||_1 / (m eps) and ||A - Q R||_1 / (||A||_1 m eps), R the upper triangle of the first n rows of f. */
static void qr_checks(const double* a, const double* q, const double* f, int64_t m, int64_t n, double eps,
                      double* orth, double* resid) {
    double* qtq = product(q, 1, q, m, n, n);
    for (int64_t i = 0; i < n; ++i) qtq[i + i * n] -= 1;
    *orth = norm1(qtq, n, n) / ((double)m * eps);
    double* r = calloc((size_t)(n * n + 1), sizeof(double));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= j; ++i) r[i + j * n] = f[i + j * m];
    double* qr = product(q, 0, r, m, n, n);
    for (int64_t i = 0; i < m * n; ++i) qr[i] -= a[i];
    *resid = norm1(qr, m, n) / (norm1(a, m, n) * (double)m * eps);
    free(qtq);
    free(r);
    free(qr);
}

/* The normal equations' residual ||A^T (A X - B)||_1 / (||A||_1 (||A||_1 ||X||_1 + ||B||_1) m eps); X is the first n
 * rows of x (m x k). */
static double gels_residual(const double* a, const double* x, const double* b, int64_t m, int64_t n, int64_t k,
                            double eps) {
    double* xs = malloc(sizeof(double) * (size_t)(n * k + 1));
    for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < n; ++i) xs[i + j * n] = x[i + j * m];
    double* ax = product(a, 0, xs, m, n, k);
    for (int64_t i = 0; i < m * k; ++i) ax[i] -= b[i];
    double* g = product(a, 1, ax, m, n, k);
    const double na = norm1(a, m, n);
    const double res = norm1(g, n, k) / (na * (na * norm1(xs, n, k) + norm1(b, m, k)) * (double)m * eps);
    free(xs);
    free(ax);
    free(g);
    return res;
}

/* geqrf into a separate output and its factors; orgqr; ormqr with Q^T then Q, from the left and from the right; gels
 * in place (no copy); both
 * precisions, m x n with m not a multiple of nb, the tree asked for. */
static void test_qr(starfact_c_runtime* rt, int32_t dtype, int64_t m, int64_t n, int64_t nb, const char* tree) {
    const double eps = dtype == STARFACT_C_FLOAT64 ? DBL_EPSILON : FLT_EPSILON;
    const int64_t nrhs = 3, mt = (m + nb - 1) / nb;
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = nb;
    opts.mapping = "cpu-only";
    opts.tree = tree;
    double* a = matrix(m, n, 0);
    double* b = matrix(m, nrhs, 0);
    starfact_c_job* job = NULL;
    starfact_c_qr_factors* factors = NULL;
    int32_t info = -1;

    Array ain = as(a, m, n, dtype), f = as(a, m, n, dtype);
    starfact_c_matrix mi = desc(&ain), mf = desc(&f);
    int status = starfact_c_geqrf_submit(rt, &mi, &mf, &opts, &factors, &job);
    CHECK(status == 0 && factors != NULL, "geqrf submit %lld x %lld: %s", (long long)m, (long long)n,
          starfact_c_error_message());
    if (status != 0) return;
    starfact_c_qr_info qi;
    CHECK(starfact_c_qr_factors_info(factors, &qi) == 0 && qi.rows == m && qi.cols == n && qi.nb == nb &&
              qi.dtype == dtype && strcmp(qi.tree, tree) == 0,
          "qr info %lld x %lld nb %lld tree %s", (long long)qi.rows, (long long)qi.cols, (long long)qi.nb, qi.tree);
    CHECK(wait_job(status, &job, &info) == 0 && info == 0, "geqrf wait: %s", starfact_c_error_message());
    CHECK(starfact_c_qr_factors_info(factors, &qi) == 0 && qi.ready == 1, "factors ready after the wait");
    if (strcmp(tree, "binary") == 0) CHECK(qi.domain_rows == 1, "binary tree: domains of %lld", (long long)qi.domain_rows);
    if (strcmp(tree, "flat") == 0) CHECK(qi.domain_rows == mt, "flat tree: domains of %lld", (long long)qi.domain_rows);
    double* in = back(&ain);
    int untouched = 1;
    for (int64_t i = 0; i < m * n; ++i)
        untouched &= in[i] == (dtype == STARFACT_C_FLOAT64 ? a[i] : (double)(float)a[i]);
    CHECK(untouched, "geqrf into a_out wrote its input a");
    free(in);

    Array q = as(a, m, n, dtype);
    starfact_c_matrix mq = desc(&q);
    CHECK(wait_job(starfact_c_orgqr_submit(rt, &mf, factors, &mq, &opts, &job), &job, &info) == 0,
          "orgqr: %s", starfact_c_error_message());
    double* fd = back(&f);
    double* qd = back(&q);
    double orth = 0, resid = 0;
    qr_checks(a, qd, fd, m, n, eps, &orth, &resid);
    CHECK(orth < 60 && resid < 60, "qr %lld x %lld tree %s: orth %g, resid %g", (long long)m, (long long)n, tree,
          orth, resid);

    /* Q (Q^T B) = B: Q^T into a separate output, Q in place */
    Array bin = as(b, m, nrhs, dtype), c = as(b, m, nrhs, dtype);
    starfact_c_matrix mbin = desc(&bin), mc = desc(&c);
    CHECK(wait_job(starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, STARFACT_C_TRANS, &mf, factors, &mbin, &mc, &opts, &job),
                   &job, &info) == 0,
          "ormqr Q^T: %s", starfact_c_error_message());
    double* qtb = back(&c);
    double* expect = product(qd, 1, b, m, n, nrhs); /* the first n rows of Q^T B */
    double diff = 0;
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = 0; i < n; ++i) diff = fmax(diff, fabs(qtb[i + j * m] - expect[i + j * n]));
    CHECK(diff / (norm1(b, m, nrhs) * (double)m * eps) < 60, "ormqr Q^T B: max difference %g", diff);
    CHECK(wait_job(starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, STARFACT_C_NOTRANS, &mf, factors, &mc, &mc, &opts, &job),
                   &job, &info) == 0,
          "ormqr Q: %s", starfact_c_error_message());
    double* qqtb = back(&c);
    for (int64_t i = 0; i < m * nrhs; ++i) qqtb[i] -= b[i];
    CHECK(norm1(qqtb, m, nrhs) / (norm1(b, m, nrhs) * (double)m * eps) < 60, "ormqr Q Q^T B != B");
    /* From the right, w (nrhs x m): the first n columns of w Q are w times the thin Q, and (w Q) Q^T = w */
    double* w = matrix(nrhs, m, 0);
    Array win = as(w, nrhs, m, dtype), wq = as(w, nrhs, m, dtype);
    starfact_c_matrix mwin = desc(&win), mwq = desc(&wq);
    CHECK(wait_job(starfact_c_ormqr_submit(rt, STARFACT_C_RIGHT, STARFACT_C_NOTRANS, &mf, factors, &mwin, &mwq, &opts,
                                           &job),
                   &job, &info) == 0,
          "ormqr w Q: %s", starfact_c_error_message());
    double* wqd = back(&wq);
    double* wq_thin = product(w, 0, qd, nrhs, m, n);
    double rdiff = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < nrhs; ++i) rdiff = fmax(rdiff, fabs(wqd[i + j * nrhs] - wq_thin[i + j * nrhs]));
    CHECK(rdiff / (norm1(w, nrhs, m) * (double)m * eps) < 60, "ormqr w Q: max difference %g", rdiff);
    CHECK(wait_job(starfact_c_ormqr_submit(rt, STARFACT_C_RIGHT, STARFACT_C_TRANS, &mf, factors, &mwq, &mwq, &opts,
                                           &job),
                   &job, &info) == 0,
          "ormqr w Q Q^T: %s", starfact_c_error_message());
    double* wqqt = back(&wq);
    for (int64_t i = 0; i < m * nrhs; ++i) wqqt[i] -= w[i];
    CHECK(norm1(wqqt, nrhs, m) / (norm1(w, nrhs, m) * (double)m * eps) < 60, "ormqr w Q Q^T != w");
    free(w);
    free(win.data);
    free(wq.data);
    free(wqd);
    free(wq_thin);
    free(wqqt);
    free(qtb);
    free(expect);
    free(qqtb);
    starfact_c_qr_factors_destroy(factors);

    /* gels in place: no copy */
    Array aw = as(a, m, n, dtype), bw = as(b, m, nrhs, dtype);
    starfact_c_matrix ma = desc(&aw), mb = desc(&bw);
    int64_t copies0 = 0, copies1 = 0;
    starfact_c_copy_counters(&copies0, NULL);
    CHECK(wait_job(starfact_c_gels_submit(rt, &ma, &ma, &mb, &mb, &opts, &job), &job, &info) == 0 && info == 0,
          "gels: %s", starfact_c_error_message());
    starfact_c_copy_counters(&copies1, NULL);
    CHECK(copies1 == copies0, "gels in place copied %lld arrays", (long long)(copies1 - copies0));
    double* x = back(&bw);
    CHECK(gels_residual(a, x, b, m, n, nrhs, eps) < 60, "gels %lld x %lld tree %s: residual %g", (long long)m,
          (long long)n, tree, gels_residual(a, x, b, m, n, nrhs, eps));
    free(x);
    free(fd);
    free(qd);
    free(ain.data);
    free(f.data);
    free(q.data);
    free(bin.data);
    free(c.data);
    free(aw.data);
    free(bw.data);
    free(a);
    free(b);
}

/* m < n: geqrf and orgqr (Q m x m orthogonal, Q R = a with R upper trapezoidal); gels' minimum-norm solution: a x = b,
 * and x = a^T y (no component in a's null space: the tall gels of a^T y = x leaves no residual). */
static void test_qr_wide(starfact_c_runtime* rt, int32_t dtype, int64_t m, int64_t n, int64_t nb, const char* tree) {
    const double eps = dtype == STARFACT_C_FLOAT64 ? DBL_EPSILON : FLT_EPSILON;
    const int64_t nrhs = 2;
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = nb;
    opts.mapping = "cpu-only";
    opts.tree = tree;
    double* a = matrix(m, n, 0);
    double* b = matrix(n, nrhs, 0); /* max(m, n) rows: the first m are the right-hand sides, the others ignored */
    starfact_c_job* job = NULL;
    starfact_c_qr_factors* factors = NULL;
    int32_t info = -1;

    Array f = as(a, m, n, dtype), q = as(a, m, m, dtype);
    starfact_c_matrix mf = desc(&f), mq = desc(&q);
    CHECK(wait_job(starfact_c_geqrf_submit(rt, &mf, &mf, &opts, &factors, &job), &job, &info) == 0 && info == 0,
          "wide geqrf %lld x %lld: %s", (long long)m, (long long)n, starfact_c_error_message());
    CHECK(wait_job(starfact_c_orgqr_submit(rt, &mf, factors, &mq, &opts, &job), &job, &info) == 0, "wide orgqr: %s",
          starfact_c_error_message());
    starfact_c_qr_factors_destroy(factors);
    double* fd = back(&f);
    double* qd = back(&q);
    double* r = calloc((size_t)(m * n + 1), sizeof(double));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= j && i < m; ++i) r[i + j * m] = fd[i + j * m];
    double* qr = product(qd, 0, r, m, m, n);
    for (int64_t i = 0; i < m * n; ++i) qr[i] -= a[i];
    double* qtq = product(qd, 1, qd, m, m, m);
    for (int64_t i = 0; i < m; ++i) qtq[i + i * m] -= 1;
    CHECK(norm1(qr, m, n) / (norm1(a, m, n) * (double)m * eps) < 60 && norm1(qtq, m, m) / ((double)m * eps) < 60,
          "wide qr %lld x %lld tree %s: resid %g, orth %g", (long long)m, (long long)n, tree,
          norm1(qr, m, n) / (norm1(a, m, n) * (double)m * eps), norm1(qtq, m, m) / ((double)m * eps));

    Array aw = as(a, m, n, dtype), bw = as(b, n, nrhs, dtype);
    starfact_c_matrix ma = desc(&aw), mb = desc(&bw);
    CHECK(wait_job(starfact_c_gels_submit(rt, &ma, &ma, &mb, &mb, &opts, &job), &job, &info) == 0 && info == 0,
          "wide gels: %s", starfact_c_error_message());
    double* x = back(&bw);
    double* ax = product(a, 0, x, m, n, nrhs);
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = 0; i < m; ++i) ax[i + j * m] -= b[i + j * n];
    const double res = norm1(ax, m, nrhs) / (norm1(a, m, n) * norm1(x, n, nrhs) * (double)n * eps);
    CHECK(res < 60, "wide gels %lld x %lld tree %s: ||a x - b|| scaled %g", (long long)m, (long long)n, tree, res);
    double* at = malloc(sizeof(double) * (size_t)(m * n + 1));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) at[j + i * n] = a[i + j * m];
    Array atw = as(at, n, m, dtype), xw = as(x, n, nrhs, dtype);
    starfact_c_matrix mat = desc(&atw), mx = desc(&xw);
    CHECK(wait_job(starfact_c_gels_submit(rt, &mat, &mat, &mx, &mx, &opts, &job), &job, &info) == 0 && info == 0,
          "tall gels of a^T: %s", starfact_c_error_message());
    double* yfull = back(&xw);
    double* y = malloc(sizeof(double) * (size_t)(m * nrhs + 1));
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = 0; i < m; ++i) y[i + j * m] = yfull[i + j * n];
    double* aty = product(a, 1, y, m, n, nrhs);
    for (int64_t i = 0; i < n * nrhs; ++i) aty[i] -= x[i];
    const double null_part = norm1(aty, n, nrhs) / (norm1(x, n, nrhs) * (double)n * eps);
    CHECK(null_part < 60, "wide gels %lld x %lld: x - a^T y scaled %g (x not of minimum norm)", (long long)m,
          (long long)n, null_part);
    double* blocks[] = {a, b, fd, qd, r, qr, qtq, x, ax, at, yfull, y, aty, f.data, q.data, aw.data, bw.data,
                        atw.data, xw.data};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; ++i) free(blocks[i]);
}

/* gels of a rank-deficient matrix (a zero column: R(8, 8) == 0), and the QR functions' errors naming the argument. */
static void test_qr_failures(starfact_c_runtime* rt) {
    const int64_t m = 50, n = 20;
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = 16;
    double* a = matrix(m, n, 0);
    double* b = matrix(m, 2, 0);
    for (int64_t i = 0; i < m; ++i) a[i + 7 * m] = 0;
    starfact_c_matrix ma = {a, m, n, m, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_matrix mb = {b, m, 2, m, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_job* job = NULL;
    int32_t info = 0;
    CHECK(wait_job(starfact_c_gels_submit(rt, &ma, NULL, &mb, NULL, &opts, &job), &job, &info) == 0 && info == 8,
          "gels of a matrix with a zero column 8: info %d", info);

    /* factors not waited for, then the errors */
    double* g = matrix(m, n, 0);
    starfact_c_matrix mg = {g, m, n, m, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_qr_factors* factors = NULL;
    starfact_c_job* pending = NULL;
    CHECK(starfact_c_geqrf_submit(rt, &mg, &mg, &opts, &factors, &pending) == 0, "geqrf: %s", starfact_c_error_message());
    double* q = matrix(m, n, 0);
    starfact_c_matrix mq = {q, m, n, m, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    CHECK(starfact_c_orgqr_submit(rt, &mg, factors, &mq, &opts, &job) == STARFACT_C_INVALID_ARGUMENT &&
              strcmp(starfact_c_error_argument(), "factors") == 0,
          "orgqr before geqrf's wait names %s", starfact_c_error_argument());
    CHECK(wait_job(STARFACT_C_OK, &pending, &info) == 0 && info == 0, "geqrf wait: %s", starfact_c_error_message());

    starfact_c_matrix short_ld = ma, short_q = mq, float_b = mb;
    short_ld.ld = m - 1;
    short_q.cols = n - 1;
    float_b.dtype = STARFACT_C_FLOAT32;
    starfact_c_options bad_tree = opts, bad_nb = opts, bad_ib = opts;
    bad_tree.tree = "diagonal";
    bad_nb.nb = 8;
    bad_ib.ib = 17;
    starfact_c_qr_factors* spare = NULL;
    struct {
        int status;
        const char* argument;
        const char* what;
    } cases[] = {
        {starfact_c_geqrf_submit(rt, &short_ld, NULL, &opts, &spare, &job), "a", "a with ld < rows"},
        {starfact_c_geqrf_submit(rt, &ma, NULL, &opts, NULL, &job), "factors", "no place for the factors"},
        {starfact_c_geqrf_submit(rt, &ma, NULL, &bad_tree, &spare, &job), "tree", "bad tree"},
        {starfact_c_geqrf_submit(rt, &ma, NULL, &bad_ib, &spare, &job), "ib", "ib > nb"},
        {starfact_c_gels_submit(rt, &ma, NULL, &float_b, NULL, &opts, &job), "b", "b of another dtype"},
        {starfact_c_orgqr_submit(rt, &mg, factors, &short_q, &opts, &job), "q_out", "q_out of n - 1 columns"},
        {starfact_c_orgqr_submit(rt, &mg, NULL, &mq, &opts, &job), "factors", "no factors"},
        {starfact_c_orgqr_submit(rt, &mg, factors, &mq, &bad_nb, &job), "nb", "another tile size"},
        {starfact_c_ormqr_submit(rt, STARFACT_C_RIGHT, STARFACT_C_TRANS, &mg, factors, &mb, NULL, &opts, &job), "c",
         "right side: c of m rows, not m columns"},
        {starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, 2, &mg, factors, &mb, NULL, &opts, &job), "trans", "bad trans"},
        {starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, STARFACT_C_TRANS, &short_q, factors, &mb, NULL, &opts, &job), "qr",
         "qr of another shape"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        CHECK(cases[i].status == STARFACT_C_INVALID_ARGUMENT, "%s: status %d", cases[i].what, cases[i].status);
    CHECK(spare == NULL, "a failed geqrf handed out factors");
    /* each again, for its argument name */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        int status = 0;
        starfact_c_qr_factors* none = NULL;
        switch (i) {
            case 0: status = starfact_c_geqrf_submit(rt, &short_ld, NULL, &opts, &none, &job); break;
            case 1: status = starfact_c_geqrf_submit(rt, &ma, NULL, &opts, NULL, &job); break;
            case 2: status = starfact_c_geqrf_submit(rt, &ma, NULL, &bad_tree, &none, &job); break;
            case 3: status = starfact_c_geqrf_submit(rt, &ma, NULL, &bad_ib, &none, &job); break;
            case 4: status = starfact_c_gels_submit(rt, &ma, NULL, &float_b, NULL, &opts, &job); break;
            case 5: status = starfact_c_orgqr_submit(rt, &mg, factors, &short_q, &opts, &job); break;
            case 6: status = starfact_c_orgqr_submit(rt, &mg, NULL, &mq, &opts, &job); break;
            case 7: status = starfact_c_orgqr_submit(rt, &mg, factors, &mq, &bad_nb, &job); break;
            case 8:
                status = starfact_c_ormqr_submit(rt, STARFACT_C_RIGHT, STARFACT_C_TRANS, &mg, factors, &mb, NULL, &opts,
                                                 &job);
                break;
            case 9: status = starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, 2, &mg, factors, &mb, NULL, &opts, &job); break;
            default:
                status = starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, STARFACT_C_TRANS, &short_q, factors, &mb, NULL,
                                                 &opts, &job);
                break;
        }
        CHECK(status != 0 && strcmp(starfact_c_error_argument(), cases[i].argument) == 0 && none == NULL,
              "%s names '%s' (expected %s)", cases[i].what, starfact_c_error_argument(), cases[i].argument);
    }
    starfact_c_qr_factors_destroy(factors);
    starfact_c_qr_factors_destroy(NULL);
    free(a);
    free(b);
    free(g);
    free(q);
}

static void test_batched(starfact_c_runtime* rt) {
    const int64_t count = 9, n = 12, nrhs = 2;
    if (!starfact_c_has_batched(0) || !starfact_c_has_batched(1)) {
        fprintf(stderr, "batched modules not built: batched checks skipped\n");
        return;
    }
    double* a = malloc(sizeof(double) * (size_t)(count * n * n));
    double* g = malloc(sizeof(double) * (size_t)(count * n * n));
    double* b = malloc(sizeof(double) * (size_t)(count * n * nrhs));
    for (int64_t k = 0; k < count; ++k) {
        double* s = matrix(n, n, 1);
        double* t = matrix(n, n, 0);
        double* r = matrix(n, nrhs, 0);
        memcpy(a + k * n * n, s, sizeof(double) * (size_t)(n * n));
        memcpy(g + k * n * n, t, sizeof(double) * (size_t)(n * n));
        memcpy(b + k * n * nrhs, r, sizeof(double) * (size_t)(n * nrhs));
        free(s);
        free(t);
        free(r);
    }
    a[3 * n * n + 4 + 4 * n] = -1; /* member 3 fails at column 5 */
    double* af = malloc(sizeof(double) * (size_t)(count * n * n));
    double* x = malloc(sizeof(double) * (size_t)(count * n * nrhs));
    memcpy(af, a, sizeof(double) * (size_t)(count * n * n));
    memcpy(x, b, sizeof(double) * (size_t)(count * n * nrhs));
    starfact_c_batch ba = {af, n, n, n, n * n, count, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_batch bb = {x, n, nrhs, n, n * nrhs, count, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    int32_t info[9];
    int64_t failed = -1;
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.chunk = 4;
    CHECK(starfact_c_batched_posv(rt, &ba, &bb, info, &opts, &failed) == 0, "batched posv: %s",
          starfact_c_error_message());
    CHECK(failed == 1 && info[3] == 5, "batched posv failures %lld, info[3] %d", (long long)failed, info[3]);
    for (int64_t k = 0; k < count; ++k) {
        if (k == 3) continue;
        CHECK(solve_residual(a + k * n * n, x + k * n * nrhs, b + k * n * nrhs, n, nrhs, DBL_EPSILON) < 60,
              "batched posv member %lld", (long long)k);
    }
    memcpy(af, g, sizeof(double) * (size_t)(count * n * n));
    memcpy(x, b, sizeof(double) * (size_t)(count * n * nrhs));
    int32_t* ipiv = malloc(sizeof(int32_t) * (size_t)(count * n));
    CHECK(starfact_c_batched_gesv(rt, &ba, ipiv, n, NULL, info, &opts, &failed) == 0 && failed == 0,
          "batched getrf: %s", starfact_c_error_message());
    CHECK(starfact_c_batched_getrs(rt, &ba, ipiv, n, &bb, &opts) == 0, "batched getrs: %s", starfact_c_error_message());
    for (int64_t k = 0; k < count; ++k)
        CHECK(solve_residual(g + k * n * n, x + k * n * nrhs, b + k * n * nrhs, n, nrhs, DBL_EPSILON) < 60,
              "batched getrs member %lld", (long long)k);
    bb.count = count - 1;
    CHECK(starfact_c_batched_getrs(rt, &ba, ipiv, n, &bb, &opts) == STARFACT_C_INVALID_ARGUMENT &&
              strcmp(starfact_c_error_argument(), "b") == 0,
          "batched getrs with fewer members in b names %s", starfact_c_error_argument());
    free(ipiv);
    free(a);
    free(g);
    free(b);
    free(af);
    free(x);
}

int main(void) {
    /* Fresh inputs each run; the seed is printed, and STARFACT_TEST_SEED=N replays a run. */
    const char* given = getenv("STARFACT_TEST_SEED");
    unsigned long long seed = 0;
    if (given && strcmp(given, "random") != 0) {
        seed = strtoull(given, NULL, 10);
    } else {
        FILE* urandom = fopen("/dev/urandom", "rb");
        if (!urandom || fread(&seed, sizeof seed, 1, urandom) != 1) seed = (unsigned long long)time(NULL);
        if (urandom) fclose(urandom);
        seed %= 1000000000ull;
    }
    rng_state ^= (seed + 1) * 0x9E3779B97F4A7C15ull;
    printf("seed: %llu (STARFACT_TEST_SEED=%llu replays this run)\n", seed, seed);
    CHECK(starfact_c_abi_version() == STARFACT_C_ABI_VERSION, "ABI version %d", starfact_c_abi_version());
    starfact_c_runtime_config config;
    starfact_c_runtime_config_init(&config);
    config.ncpus = 2;
    starfact_c_runtime* rt = NULL;
    if (starfact_c_runtime_create(&config, &rt) != 0) {
        fprintf(stderr, "runtime: %s\n", starfact_c_error_message());
        return 1;
    }
    const char* text = NULL;
    CHECK(starfact_c_runtime_describe(rt, &text) == 0 && strstr(text, "CPU worker") != NULL, "describe: %s",
          text ? text : "(null)");
    starfact_c_runtime_info info;
    CHECK(starfact_c_runtime_info_get(rt, &info) == 0 && info.cpu_workers == 2, "cpu workers %d", info.cpu_workers);
    const int64_t nb = 16;
    const int64_t orders[] = {1, nb - 3, nb, 3 * nb + 5};
    for (int d = 0; d < 2; ++d)
        for (int i = 0; i < 4; ++i) test_operations(rt, d == 0 ? STARFACT_C_FLOAT32 : STARFACT_C_FLOAT64, orders[i], nb);
    test_failures(rt);
    const struct {
        int64_t m, n;
        const char* tree;
    } shapes[] = {{1, 1, "auto"}, {nb - 3, nb - 3, "flat"}, {3 * nb + 5, 1, "binary"}, {5 * nb + 3, 2 * nb + 1, "flat"},
                  {5 * nb + 3, 2 * nb + 1, "binary"}, {7 * nb, nb + 2, "domains=2"}};
    for (int d = 0; d < 2; ++d)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
            test_qr(rt, d == 0 ? STARFACT_C_FLOAT32 : STARFACT_C_FLOAT64, shapes[i].m, shapes[i].n, nb, shapes[i].tree);
    const struct {
        int64_t m, n;
        const char* tree;
    } wide[] = {{1, 5, "flat"}, {nb - 3, 3 * nb + 5, "binary"}, {2 * nb + 1, 5 * nb + 3, "domains=2"},
                {nb, 4 * nb, "flat"}};
    for (int d = 0; d < 2; ++d)
        for (size_t i = 0; i < sizeof wide / sizeof wide[0]; ++i)
            test_qr_wide(rt, d == 0 ? STARFACT_C_FLOAT32 : STARFACT_C_FLOAT64, wide[i].m, wide[i].n, nb, wide[i].tree);
    test_qr_failures(rt);
    test_batched(rt);
    CHECK(starfact_c_runtime_pause(rt) == 0 && starfact_c_runtime_resume(rt) == 0, "pause/resume");
    CHECK(starfact_c_runtime_destroy(rt) == 0, "destroy: %s", starfact_c_error_message());
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    else printf("capi: every check passed\n");
    return failures ? 1 : 0;
}

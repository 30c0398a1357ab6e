/* The C ABI's log-determinant (ctest capi.logdet, label cpu): starfact_c_potrf_logdet_submit of fresh SPD matrices and
 * starfact_c_logdet_submit of the factor it leaves, in float and double, one entry to several tiles, against a
 * Cholesky of the test's own in long double; determinants that overflow and underflow; the info and NaN outputs of a
 * matrix that is not SPD and of a bad factor; absent outputs; bad arguments named as starfact_c.h spells them. */
#include <float.h>
#include <math.h>

#include "tests/capi_check.h"

/* A fresh n x n SPD matrix (entries uniform in [-0.5, 0.5] plus n on the diagonal), symmetric, leading dimension
 * ld, each entry times `scale`, rounded to the dtype's precision; the caller frees it. */
static double* spd(int64_t n, int64_t ld, double scale, int32_t dtype) {
    double* a = calloc((size_t)(ld * (n > 0 ? n : 1)), sizeof(double));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j; i < n; ++i) {
            double v = (check_uniform() + (i == j ? (double)n : 0.0)) * scale;
            if (dtype == STARFACT_C_FLOAT32) v = (double)(float)v;
            a[i + j * ld] = a[j + i * ld] = v;
        }
    return a;
}

/* log det of the SPD a (lower triangle) by an unblocked Cholesky in long double, whose logarithms are summed; NAN
 * when a pivot is not positive. */
static double reference_logdet(const double* a, int64_t n, int64_t ld) {
    long double* l = calloc((size_t)(n * n + 1), sizeof(long double));
    long double sum = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j; i < n; ++i) l[i + j * n] = a[i + j * ld];
    for (int64_t k = 0; k < n; ++k) {
        if (!(l[k + k * n] > 0)) {
            free(l);
            return NAN;
        }
        const long double d = sqrtl(l[k + k * n]);
        sum += logl(d);
        for (int64_t i = k; i < n; ++i) l[i + k * n] /= d;
        for (int64_t j = k + 1; j < n; ++j)
            for (int64_t i = j; i < n; ++i) l[i + j * n] -= l[i + k * n] * l[j + k * n];
    }
    free(l);
    return (double)(2 * sum);
}

/* The array of dtype holding a's entries (a itself for double; a float copy otherwise, freed by the caller). */
static void* as_dtype(double* a, int64_t count, int32_t dtype) {
    if (dtype == STARFACT_C_FLOAT64) return a;
    float* f = malloc((size_t)(count > 0 ? count : 1) * sizeof(float));
    for (int64_t i = 0; i < count; ++i) f[i] = (float)a[i];
    return f;
}

static double entry(const void* data, int64_t k, int32_t dtype) {
    return dtype == STARFACT_C_FLOAT64 ? ((const double*)data)[k] : (double)((const float*)data)[k];
}

/* The tolerance of a log-determinant of order n in the dtype's precision: a few units of its roundoff per diagonal
 * entry, and of double's relative to the sum. */
static double tolerance(int64_t n, double expected, int32_t dtype) {
    const double eps = dtype == STARFACT_C_FLOAT64 ? DBL_EPSILON : FLT_EPSILON;
    return 16 * eps * (double)n + 16 * DBL_EPSILON * fabs(expected);
}

static void test_logdet(starfact_c_runtime* rt, int32_t dtype, int64_t n, int64_t nb, double scale) {
    const int64_t ld = n + 2;
    double* a = spd(n, ld, scale, dtype);
    const double expected = reference_logdet(a, n, ld);
    const double tol = tolerance(n, expected, dtype);
    void* data = as_dtype(a, ld * n, dtype);
    const size_t size = dtype == STARFACT_C_FLOAT64 ? sizeof(double) : sizeof(float);
    void* before = malloc((size_t)(ld * n + 1) * size);
    memcpy(before, data, (size_t)(ld * n) * size);
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = nb;
    starfact_c_matrix m = {data, n, n, ld, dtype, STARFACT_C_HOST};
    starfact_c_job* job = NULL;
    int32_t info = -1;
    double sign = 0, logabsdet = 0;

    /* a only read: no output */
    CHECK(wait_job(starfact_c_potrf_logdet_submit(rt, &m, NULL, &opts, &sign, &logabsdet, &job), &job, &info) == 0 &&
              info == 0,
          "potrf_logdet n=%lld: %s", (long long)n, starfact_c_error_message());
    CHECK(sign == 1.0 && fabs(logabsdet - expected) <= tol,
          "potrf_logdet n=%lld nb=%lld scale=%g dtype=%d: sign %g, logabsdet %.17g, expected %.17g (tolerance %g)",
          (long long)n, (long long)nb, scale, dtype, sign, logabsdet, expected, tol);
    CHECK(memcmp(before, data, (size_t)(ld * n) * size) == 0, "potrf_logdet without a_out wrote a");

    /* in place: a holds the factor, whose log-determinant logdet gives */
    sign = logabsdet = 0;
    CHECK(wait_job(starfact_c_potrf_logdet_submit(rt, &m, &m, &opts, &sign, &logabsdet, &job), &job, &info) == 0 &&
              info == 0,
          "potrf_logdet in place n=%lld: %s", (long long)n, starfact_c_error_message());
    CHECK(sign == 1.0 && fabs(logabsdet - expected) <= tol, "potrf_logdet in place n=%lld: %.17g, expected %.17g",
          (long long)n, logabsdet, expected);
    long double from_factor = 0;
    for (int64_t i = 0; i < n; ++i) from_factor += logl(entry(data, i + i * ld, dtype));
    CHECK(fabs((double)(2 * from_factor) - expected) <= tol, "the factor in a: 2 sum log L(i, i) = %.17g, expected %.17g",
          (double)(2 * from_factor), expected);
    double sign2 = 0, logabsdet2 = 0;
    CHECK(wait_job(starfact_c_logdet_submit(rt, &m, &opts, &sign2, &logabsdet2, &job), &job, &info) == 0 && info == 0,
          "logdet n=%lld: %s", (long long)n, starfact_c_error_message());
    CHECK(sign2 == 1.0 && fabs(logabsdet2 - expected) <= tol, "logdet of the factor n=%lld: %.17g, expected %.17g",
          (long long)n, logabsdet2, expected);
    /* absent outputs are fine */
    CHECK(wait_job(starfact_c_logdet_submit(rt, &m, &opts, NULL, NULL, &job), &job, &info) == 0 && info == 0,
          "logdet without outputs: %s", starfact_c_error_message());
    free(before);
    if (data != a) free(data);
    free(a);
}

static void test_failures(starfact_c_runtime* rt, int32_t dtype) {
    const int64_t n = 50, bad = 23;
    double* a = spd(n, n, 1.0, dtype);
    a[bad + bad * n] = -1.0;
    void* data = as_dtype(a, n * n, dtype);
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = 16;
    starfact_c_matrix m = {data, n, n, n, dtype, STARFACT_C_HOST};
    starfact_c_job* job = NULL;
    int32_t info = 0;
    double sign = 0, logabsdet = 0;
    CHECK(wait_job(starfact_c_potrf_logdet_submit(rt, &m, &m, &opts, &sign, &logabsdet, &job), &job, &info) == 0 &&
              info == bad + 1,
          "potrf_logdet of a matrix that is not SPD: info %d, expected %d", info, (int)(bad + 1));
    CHECK(isnan(sign) && isnan(logabsdet), "not SPD: sign %g, logabsdet %g (NaN expected)", sign, logabsdet);

    /* a factor with a zero on its diagonal */
    double* f = spd(n, n, 1.0, dtype);
    void* fd = as_dtype(f, n * n, dtype);
    starfact_c_matrix l = {fd, n, n, n, dtype, STARFACT_C_HOST};
    CHECK(wait_job(starfact_c_potrf_logdet_submit(rt, &l, &l, &opts, NULL, NULL, &job), &job, &info) == 0 && info == 0,
          "potrf_logdet: %s", starfact_c_error_message());
    if (dtype == STARFACT_C_FLOAT64) ((double*)fd)[40 + 40 * n] = 0.0;
    else ((float*)fd)[40 + 40 * n] = 0.0f;
    sign = logabsdet = 0;
    CHECK(wait_job(starfact_c_logdet_submit(rt, &l, &opts, &sign, &logabsdet, &job), &job, &info) == 0 && info == 41,
          "logdet of a factor with L(41, 41) = 0: info %d", info);
    CHECK(isnan(sign) && isnan(logabsdet), "bad factor: sign %g, logabsdet %g (NaN expected)", sign, logabsdet);
    if (fd != f) free(fd);
    if (data != a) free(data);
    free(f);
    free(a);
}

/* Checks that the failed call named `argument` as the C ABI's `function` does, without the C++ API's names. */
static void expect(int status, const char* function, const char* argument, const char* what) {
    const char* message = starfact_c_error_message();
    CHECK(status == STARFACT_C_INVALID_ARGUMENT, "%s: status %d (%s)", what, status, message);
    if (status != STARFACT_C_INVALID_ARGUMENT) return;
    CHECK(strcmp(starfact_c_error_argument(), argument) == 0, "%s: names '%s', not '%s' (%s)", what,
          starfact_c_error_argument(), argument, message);
    char head[128];
    snprintf(head, sizeof head, "starfact::%s: argument '%s' ", function, argument);
    CHECK(strncmp(message, head, strlen(head)) == 0, "%s: the message does not begin with \"%s\": %s", what, head,
          message);
    CHECK(strstr(message, "'L'") == NULL && strstr(message, "'A'") == NULL, "%s: a C++ name in: %s", what, message);
}

static void test_arguments(starfact_c_runtime* rt) {
    double a[12] = {4, 0, 0, 4, 1, 0, 1, 0, 0, 0, 0, 0};
    starfact_c_matrix wide = {a, 2, 3, 2, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_matrix sq = {a, 2, 2, 2, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_matrix null_data = {NULL, 2, 2, 2, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_matrix other = {a, 3, 3, 3, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_job* job = NULL;
    double s, v;
    expect(starfact_c_logdet_submit(rt, &wide, NULL, &s, &v, &job), "logdet", "l", "logdet of a 2 x 3 matrix");
    expect(starfact_c_logdet_submit(rt, NULL, NULL, &s, &v, &job), "logdet", "l", "logdet without l");
    expect(starfact_c_logdet_submit(rt, &null_data, NULL, &s, &v, &job), "logdet", "l", "logdet of null data");
    expect(starfact_c_logdet_submit(rt, &sq, NULL, &s, &v, NULL), "logdet", "job", "logdet without a job");
    expect(starfact_c_potrf_logdet_submit(rt, &wide, NULL, NULL, &s, &v, &job), "potrf_logdet", "a",
           "potrf_logdet of a 2 x 3 matrix");
    expect(starfact_c_potrf_logdet_submit(rt, &sq, &other, NULL, &s, &v, &job), "potrf_logdet", "a_out",
           "potrf_logdet into a 3 x 3 a_out");
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.mapping = "anywhere";
    expect(starfact_c_logdet_submit(rt, &sq, &opts, &s, &v, &job), "logdet", "mapping", "an unknown mapping");
    opts.mapping = "gpu-only";  /* the runtime has no CUDA worker */
    expect(starfact_c_logdet_submit(rt, &sq, &opts, &s, &v, &job), "logdet", "mapping", "gpu-only without a GPU");
    expect(starfact_c_potrf_logdet_submit(rt, &sq, NULL, &opts, &s, &v, &job), "potrf_logdet", "mapping",
           "potrf_logdet gpu-only without a GPU");
    CHECK(job == NULL, "a failed submit handed out a job");
}

int main(void) {
    starfact_c_runtime* rt = check_start(2);
    if (!rt) return 1;
    const int64_t orders[] = {1, 13, 16, 3 * 16 + 5, 120};
    for (int d = 0; d < 2; ++d) {
        const int32_t dtype = d == 0 ? STARFACT_C_FLOAT32 : STARFACT_C_FLOAT64;
        for (size_t i = 0; i < sizeof orders / sizeof orders[0]; ++i) test_logdet(rt, dtype, orders[i], 16, 1.0);
        test_logdet(rt, dtype, 200, 0, 1.0); /* the plan's tile size */
        /* determinants of order 100 far outside the dtype's range, their logarithms within it */
        const double big = dtype == STARFACT_C_FLOAT64 ? 1e200 : 1e30;
        test_logdet(rt, dtype, 100, 32, big);
        test_logdet(rt, dtype, 100, 32, 1 / big);
        test_failures(rt, dtype);
    }
    test_arguments(rt);
    return check_finish("test_capi_logdet", rt);
}

/* The C ABI's QR breakdowns (capi/starfact_c.h): a geqrf job whose factorization broke down (NaN or Inf in a, with
 * every tree; with the Cholesky QR also two equal columns and a scaled near the ends of double's range) gives its info
 * to starfact_c_job_wait, leaves its factors not ready, ormqr and orgqr refuse them naming `factors`, and
 * starfact_c_qr_factors_breakdown says why; gels gives the column of NaN or Inf as info, and solves a and b scaled by
 * 1e-300 and 1e+300 as it solves them unscaled; with the tree "cholqr+fallback" two equal columns are factored by
 * a Householder tree and starfact_c_qr_factors_fallback says so. ctest `capi.qr_breakdown` (label cpu). Exit status
 * 0 when every check holds; each failed check prints a line. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capi/starfact_c.h"

static int failures = 0;
static unsigned long long rng_state = 88172645463325252ull;

#define CHECK(cond, ...)                                           \
    do {                                                           \
        if (!(cond)) {                                             \
            ++failures;                                            \
            fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                          \
            fprintf(stderr, "\n");                                 \
        }                                                          \
    } while (0)

static double uniform(void) { /* xorshift64, entries in [-0.5, 0.5] */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0 - 0.5;
}

static double* matrix(int64_t rows, int64_t cols) {
    double* a = malloc(sizeof(double) * (size_t)(rows * cols + 1));
    for (int64_t i = 0; i < rows * cols; ++i) a[i] = uniform();
    return a;
}

static starfact_c_matrix host(double* a, int64_t rows, int64_t cols) {
    starfact_c_matrix m = {a, rows, cols, rows, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    return m;
}

static starfact_c_options options(const char* tree, int64_t nb) {
    starfact_c_options o;
    starfact_c_options_init(&o);
    o.tree = tree;
    o.nb = nb;
    o.mapping = "cpu-only";
    return o;
}

static int wait_job(int status, starfact_c_job** job, int32_t* info) {
    if (status != STARFACT_C_OK) return status;
    status = starfact_c_job_wait(*job, info);
    starfact_c_job_destroy(*job);
    *job = NULL;
    return status;
}

/* geqrf of a (m x n) with `tree` breaks down at column `column` (1-based; 0: any) for the reason containing `why`; the
 * factors then serve neither ormqr nor orgqr. */
static void expect_breakdown(starfact_c_runtime* rt, const double* a, int64_t m, int64_t n, int64_t nb,
                             const char* tree, int32_t column, const char* why, const char* what) {
    double* f = malloc(sizeof(double) * (size_t)(m * n));
    memcpy(f, a, sizeof(double) * (size_t)(m * n));
    starfact_c_matrix mf = host(f, m, n);
    starfact_c_options o = options(tree, nb);
    starfact_c_qr_factors* factors = NULL;
    starfact_c_job* job = NULL;
    int32_t info = -1;
    CHECK(wait_job(starfact_c_geqrf_submit(rt, &mf, &mf, &o, &factors, &job), &job, &info) == STARFACT_C_OK,
          "%s, tree %s: geqrf: %s", what, tree, starfact_c_error_message());
    CHECK(column > 0 ? info == column : info > 0, "%s, tree %s: geqrf info %d, expected %d", what, tree, info, column);
    if (factors == NULL) {
        free(f);
        return;
    }
    starfact_c_qr_info qi;
    CHECK(starfact_c_qr_factors_info(factors, &qi) == 0 && qi.ready == 0, "%s, tree %s: factors ready", what, tree);
    int32_t broken = 0;
    const char* reason = NULL;
    CHECK(starfact_c_qr_factors_breakdown(factors, &broken, &reason) == 0 && broken == info && reason != NULL &&
              strstr(reason, why) != NULL,
          "%s, tree %s: breakdown %d, reason '%s', expected '%s'", what, tree, broken, reason ? reason : "(null)", why);
    double* c = matrix(m, 2);
    starfact_c_matrix mc = host(c, m, 2);
    int status = wait_job(starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, STARFACT_C_TRANS, &mf, factors, &mc, &mc, &o,
                                                  &job),
                          &job, &info);
    CHECK(status == STARFACT_C_INVALID_ARGUMENT && strcmp(starfact_c_error_argument(), "factors") == 0 &&
              strstr(starfact_c_error_message(), "broke down") != NULL,
          "%s, tree %s: ormqr with broken factors: status %d, %s", what, tree, status, starfact_c_error_message());
    double* q = matrix(m, n < m ? n : m);
    starfact_c_matrix mq = host(q, m, n < m ? n : m);
    status = wait_job(starfact_c_orgqr_submit(rt, &mf, factors, &mq, &o, &job), &job, &info);
    CHECK(status == STARFACT_C_INVALID_ARGUMENT && strcmp(starfact_c_error_argument(), "factors") == 0,
          "%s, tree %s: orgqr with broken factors: status %d, names '%s'", what, tree, status,
          starfact_c_error_argument());
    starfact_c_qr_factors_destroy(factors);
    free(f);
    free(c);
    free(q);
}

/* gels of a (m x n) and b (m x nrhs) with `tree`: its info. x into x (n x nrhs) when info is 0. */
static int32_t gels(starfact_c_runtime* rt, const double* a, const double* b, int64_t m, int64_t n, int64_t nrhs,
                    int64_t nb, const char* tree, double* x) {
    double* ac = malloc(sizeof(double) * (size_t)(m * n));
    double* bc = malloc(sizeof(double) * (size_t)(m * nrhs));
    memcpy(ac, a, sizeof(double) * (size_t)(m * n));
    memcpy(bc, b, sizeof(double) * (size_t)(m * nrhs));
    starfact_c_matrix ma = host(ac, m, n), mb = host(bc, m, nrhs);
    starfact_c_options o = options(tree, nb);
    starfact_c_job* job = NULL;
    int32_t info = -1;
    CHECK(wait_job(starfact_c_gels_submit(rt, &ma, &ma, &mb, &mb, &o, &job), &job, &info) == STARFACT_C_OK,
          "gels, tree %s: %s", tree, starfact_c_error_message());
    if (info == 0)
        for (int64_t j = 0; j < nrhs; ++j)
            for (int64_t i = 0; i < n; ++i) x[i + j * n] = bc[i + j * m];
    free(ac);
    free(bc);
    return info;
}

static void test_nonfinite(starfact_c_runtime* rt) {
    const int64_t m = 90, n = 20;
    const char* trees[] = {"flat", "binary", "domains=2", "panel", "cholqr"};
    for (size_t t = 0; t < sizeof trees / sizeof trees[0]; ++t) {
        const int64_t nb = strcmp(trees[t], "cholqr") == 0 ? 32 : 8;
        const int64_t column = (int64_t)((uniform() + 0.5) * (double)(n - 1));
        double* a = matrix(m, n);
        a[(int64_t)((uniform() + 0.5) * (double)(m - 1)) + column * m] = NAN;
        expect_breakdown(rt, a, m, n, nb, trees[t], (int32_t)column + 1, "NaN", "NaN in a");
        double* b = matrix(m, 2);
        double* x = malloc(sizeof(double) * (size_t)(n * 2));
        const int32_t info = gels(rt, a, b, m, n, 2, nb, trees[t], x);
        CHECK(info == column + 1, "gels with NaN in column %lld, tree %s: info %d", (long long)column, trees[t], info);
        free(a);
        free(b);
        free(x);
    }
}

static void test_cholqr(starfact_c_runtime* rt) {
    const int64_t m = 300, n = 24, nb = 32;
    double* a = matrix(m, n);
    for (int64_t i = 0; i < m; ++i) a[i + 9 * m] = a[i + 4 * m];
    expect_breakdown(rt, a, m, n, nb, "cholqr", 0, "rank deficient", "two equal columns");
    free(a);
    const double scales[] = {1e300, 1e-300};
    const char* reasons[] = {"overflows", "underflows"};
    for (int s = 0; s < 2; ++s) {
        a = matrix(m, n);
        for (int64_t i = 0; i < m * n; ++i) a[i] *= scales[s];
        expect_breakdown(rt, a, m, n, nb, "cholqr", 0, reasons[s], "a scaled near the ends of the range");
        free(a);
    }
}

/* The Householder fall-back ("cholqr+fallback"): geqrf of two equal columns gives info 0, factors that serve orgqr
 * (Q orthonormal, a = Q R) and starfact_c_qr_factors_fallback says why; a matrix the Cholesky QR factors does not
 * fall back. */
static void test_fallback(starfact_c_runtime* rt) {
    const int64_t m = 301, n = 24, nb = 32;
    for (int equal = 1; equal >= 0; --equal) {
        double* a = matrix(m, n);
        if (equal)
            for (int64_t i = 0; i < m; ++i) a[i + 9 * m] = a[i + 4 * m];
        double* f = malloc(sizeof(double) * (size_t)(m * n));
        double* q = malloc(sizeof(double) * (size_t)(m * n));
        memcpy(f, a, sizeof(double) * (size_t)(m * n));
        starfact_c_matrix mf = host(f, m, n), mq = host(q, m, n);
        starfact_c_options o = options("cholqr+fallback", nb);
        starfact_c_qr_factors* factors = NULL;
        starfact_c_job* job = NULL;
        int32_t info = -1, fell_back = -1;
        const char* reason = NULL;
        CHECK(wait_job(starfact_c_geqrf_submit(rt, &mf, &mf, &o, &factors, &job), &job, &info) == STARFACT_C_OK &&
                  info == 0,
              "fallback (equal columns %d): geqrf info %d: %s", equal, info, starfact_c_error_message());
        CHECK(starfact_c_qr_factors_fallback(factors, &fell_back, &reason) == 0 && fell_back == equal &&
                  reason != NULL && (equal ? strstr(reason, "rank deficient") != NULL : reason[0] == 0),
              "fallback (equal columns %d): fell_back %d, reason '%s'", equal, fell_back, reason ? reason : "(null)");
        CHECK(wait_job(starfact_c_orgqr_submit(rt, &mf, factors, &mq, &o, &job), &job, &info) == STARFACT_C_OK &&
                  info == 0,
              "fallback (equal columns %d): orgqr: %s", equal, starfact_c_error_message());
        double worst = 0, orth = 0, amax = 0;
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
                double qr = 0;
                for (int64_t k = 0; k <= j; ++k) qr += q[i + k * m] * f[k + j * m];
                worst = fmax(worst, fabs(qr - a[i + j * m]));
                amax = fmax(amax, fabs(a[i + j * m]));
            }
        for (int64_t j = 0; j < n; ++j)
            for (int64_t k = 0; k < n; ++k) {
                double d = 0;
                for (int64_t i = 0; i < m; ++i) d += q[i + j * m] * q[i + k * m];
                orth = fmax(orth, fabs(d - (j == k ? 1.0 : 0.0)));
            }
        CHECK(worst <= 1e-12 * amax && orth <= 1e-12, "fallback (equal columns %d): |a - QR| %g, |Q^T Q - I| %g",
              equal, worst, orth);
        starfact_c_qr_factors_destroy(factors);
        free(a);
        free(f);
        free(q);
    }
}

/* gels of (sa a, sb b) against gels of (a, b): x scaled by sb / sa. */
static void test_gels_scaled(starfact_c_runtime* rt) {
    const int64_t m = 80, n = 12, nrhs = 2;
    const char* trees[] = {"flat", "cholqr"};
    const double scales[][2] = {{1e-300, 1e-300}, {1e300, 1e300}, {1e-300, 1}, {1, 1e-300}, {1e300, 1}, {1, 1e300}};
    for (size_t t = 0; t < 2; ++t) {
        double* a = matrix(m, n);
        double* b = matrix(m, nrhs);
        double* x = malloc(sizeof(double) * (size_t)(n * nrhs));
        double* xs = malloc(sizeof(double) * (size_t)(n * nrhs));
        CHECK(gels(rt, a, b, m, n, nrhs, 32, trees[t], x) == 0, "gels unscaled, tree %s", trees[t]);
        for (size_t s = 0; s < sizeof scales / sizeof scales[0]; ++s) {
            const double sa = scales[s][0], sb = scales[s][1];
            double* as = malloc(sizeof(double) * (size_t)(m * n));
            double* bs = malloc(sizeof(double) * (size_t)(m * nrhs));
            for (int64_t i = 0; i < m * n; ++i) as[i] = a[i] * sa;
            for (int64_t i = 0; i < m * nrhs; ++i) bs[i] = b[i] * sb;
            const int32_t info = gels(rt, as, bs, m, n, nrhs, 32, trees[t], xs);
            CHECK(info == 0, "gels of a * %g, b * %g, tree %s: info %d", sa, sb, trees[t], info);
            double diff = 0, top = 0;
            for (int64_t i = 0; info == 0 && i < n * nrhs; ++i) {
                /* x_s = x sb / sa: x_s (sa / sb) against x */
                const double back = xs[i] * (sa / sb);
                const double d = isfinite(back) ? fabs(back - x[i]) : INFINITY;
                if (!(d <= diff)) diff = d;
                if (fabs(x[i]) > top) top = fabs(x[i]);
            }
            CHECK(info != 0 || diff <= 1e-12 * top, "gels of a * %g, b * %g, tree %s: x differs by %g (|x| %g)", sa, sb,
                  trees[t], diff, top);
            free(as);
            free(bs);
        }
        free(a);
        free(b);
        free(x);
        free(xs);
    }
}

int main(void) {
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
    starfact_c_runtime_config config;
    starfact_c_runtime_config_init(&config);
    config.ncpus = 2;
    config.ncuda = 0;
    starfact_c_runtime* rt = NULL;
    if (starfact_c_runtime_create(&config, &rt) != 0) {
        fprintf(stderr, "runtime: %s\n", starfact_c_error_message());
        return 1;
    }
    test_nonfinite(rt);
    test_cholqr(rt);
    test_fallback(rt);
    test_gels_scaled(rt);
    CHECK(starfact_c_runtime_destroy(rt) == 0, "destroy: %s", starfact_c_error_message());
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    else printf("capi.qr_breakdown: every check passed\n");
    return failures ? 1 : 0;
}

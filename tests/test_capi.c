/* The C ABI (capi/starfact_c.h) from C: every operation on host arrays in both precisions (scaled residuals < 60,
 * n = 1, n < nb, n not a multiple of nb, in place and into separate outputs; the copies counted: none in place), the
 * info of failing factorizations, and errors naming the argument; QR (geqrf's factors handle, orgqr, ormqr, gels) on
 * tall matrices with each tree. ctest `capi` (label cpu), so that tools/sanitize.sh
 * runs the C ABI under ASan and UBSan too. Exit status 0 when every check holds; each failed check prints a line.
 * This file holds main and the helpers the tests share (tests/capi_ops.h); the tests are in tests/capi_ops_*.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/capi_ops.h"

int failures = 0;
static unsigned long long rng_state = 88172645463325252ull;

static double uniform(void) { /* xorshift64, entries in [-0.5, 0.5] */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0 - 0.5;
}

/* A column-major n x n matrix (ld = n): SPD (random symmetric + n I) or general. */
double* matrix(int64_t n, int64_t cols, int spd) {
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

double norm1(const double* a, int64_t rows, int64_t cols) {
    double m = 0;
    for (int64_t j = 0; j < cols; ++j) {
        double s = 0;
        for (int64_t i = 0; i < rows; ++i) s += fabs(a[i + j * rows]);
        if (s > m) m = s;
    }
    return m;
}

/* ||A X - B||_1 / (||A||_1 ||X||_1 n eps). */
double solve_residual(const double* a, const double* x, const double* b, int64_t n, int64_t nrhs, double eps) {
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
double cholesky_residual(const double* a, const double* f, int64_t n, double eps) {
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

Array as(const double* a, int64_t rows, int64_t cols, int32_t dtype) {
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

double* back(const Array* a) {
    double* d = malloc(sizeof(double) * (size_t)(a->rows * a->cols + 1));
    for (int64_t i = 0; i < a->rows * a->cols; ++i)
        d[i] = a->dtype == STARFACT_C_FLOAT64 ? ((double*)a->data)[i] : (double)((float*)a->data)[i];
    return d;
}

starfact_c_matrix desc(const Array* a) {
    starfact_c_matrix m = {a->data, a->rows, a->cols, a->rows > 0 ? a->rows : 1, a->dtype, STARFACT_C_HOST};
    return m;
}

/* Waits for and frees the job a submit call (status) made; *job is read after the call (argument order). */
int wait_job(int status, starfact_c_job** job, int32_t* info) {
    if (status != STARFACT_C_OK) return status;
    status = starfact_c_job_wait(*job, info);
    starfact_c_job_destroy(*job);
    *job = NULL;
    return status;
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

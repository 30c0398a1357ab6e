/* test_capi's Cholesky and LU (tests/test_capi.c has main): potrf into a separate output and potrs in place, posv in
 * place and with a refinement (the report), potri, getrf with pivots and getrs, gesv in place, the copies counted;
 * the infos of failing factorizations and the errors naming the argument. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "tests/capi_ops.h"

void test_operations(starfact_c_runtime* rt, int32_t dtype, int64_t n, int64_t nb) {
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

void test_failures(starfact_c_runtime* rt) {
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

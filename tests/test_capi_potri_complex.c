/* The C ABI's potri on complex matrices (ctest capi.potri_complex, label cpu): starfact_c_potri_submit of fresh
 * Hermitian positive definite matrices with complex off-diagonal entries and a real diagonal, in complex64 and
 * complex128 (interleaved re/im, column-major), n = 1, n < nb, n % nb != 0, the plan's tiles, in place and into a
 * separate output, against the scaled residual ||A X - I||_1 / (||A||_1 ||X||_1 n eps) < 60 computed here in double
 * complex (X the Hermitian matrix of the lower triangle written); only the lower triangle is read (NaN above it, and an
 * imaginary part on its diagonal, change nothing) and written; LAPACK's info of a matrix that is not positive
 * definite; the plan's line of a complex potri. Exit status 0 when every check holds; each failed check prints a
 * line. */
#include "tests/capi_complex.h"

/* The array of dtype (leading dimension ld, n columns) given to potri: a's lower triangle, 0.25i added to its
 * diagonal (taken as zero), NaN strictly above it, `pad` in the rows past n. */
static void* lower_input(const zc* a, int64_t n, int64_t ld, int32_t dtype, zc pad) {
    const int64_t count = ld * (n > 0 ? n : 1);
    void* out = malloc(size_of(dtype) * (size_t)count);
    for (int64_t k = 0; k < count; ++k) {
        const int64_t i = k % ld, j = k / ld;
        const zc v = i >= n ? pad : i > j ? a[i + j * n] : i == j ? a[i + j * n] + 0.25 * I : NAN + NAN * I;
        set_entry(out, k, dtype, v);
    }
    return out;
}

/* ||A X - I||_1 / (||A||_1 ||X||_1 n eps), X the Hermitian matrix whose lower triangle the array x holds. */
static double inverse_residual(const zc* a, const void* x, int64_t n, int64_t ld, int32_t dtype) {
    zc* xf = malloc(sizeof(zc) * (size_t)(n * n + 1));
    zc* r = malloc(sizeof(zc) * (size_t)(n * n + 1));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i)
            xf[i + j * n] = i >= j ? entry(x, i + j * ld, dtype) : conj(entry(x, j + i * ld, dtype));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            zc s = i == j ? -1.0 : 0.0;
            for (int64_t k = 0; k < n; ++k) s += a[i + k * n] * xf[k + j * n];
            r[i + j * n] = s;
        }
    const double res = norm1(r, n, n) / (norm1(a, n, n) * norm1(xf, n, n) * (double)n * eps_of(dtype));
    free(r);
    free(xf);
    return res;
}

/* potri in place and into a separate output of one fresh Hermitian matrix; `nb` 0: the plan's. */
static void test_potri(starfact_c_runtime* rt, int32_t dtype, int64_t n, int64_t nb) {
    const int64_t ld = n + 3;
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = nb;
    zc* a = hermitian(n, dtype);
    void* da = lower_input(a, n, ld, dtype, 7.0);
    starfact_c_matrix ma = {da, n, n, ld, dtype, STARFACT_C_HOST};
    starfact_c_job* job = NULL;
    int32_t info = -1;
    CHECK(wait_job(starfact_c_potri_submit(rt, &ma, &ma, &opts, &job), &job, &info) == 0 && info == 0,
          "%s potri in place n=%lld nb=%lld: %s (info %d)", name_of(dtype), (long long)n, (long long)nb,
          starfact_c_error_message(), info);
    double res = inverse_residual(a, da, n, ld, dtype);
    CHECK(res < 60, "%s potri residual n=%lld nb=%lld: %g", name_of(dtype), (long long)n, (long long)nb, res);
    int upper_kept = 1, padding_kept = 1, real_diagonal = 1;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < j; ++i) upper_kept &= isnan(creal(entry(da, i + j * ld, dtype)));
        for (int64_t i = n; i < ld; ++i) padding_kept &= entry(da, i + j * ld, dtype) == 7.0;
        real_diagonal &= cimag(entry(da, j + j * ld, dtype)) == 0.0;
    }
    CHECK(upper_kept && padding_kept && real_diagonal,
          "%s potri n=%lld wrote above the diagonal (%d) or past the rows (%d), or an imaginary diagonal (%d)",
          name_of(dtype), (long long)n, !upper_kept, !padding_kept, !real_diagonal);

    /* into a separate output (compact): the input untouched */
    void* given = lower_input(a, n, ld, dtype, 7.0);
    void* dx = malloc(size_of(dtype) * (size_t)(n * n + 1));
    starfact_c_matrix mg = {given, n, n, ld, dtype, STARFACT_C_HOST}, mx = {dx, n, n, n > 0 ? n : 1, dtype,
                                                                            STARFACT_C_HOST};
    CHECK(wait_job(starfact_c_potri_submit(rt, &mg, &mx, &opts, &job), &job, &info) == 0 && info == 0,
          "%s potri into a_out n=%lld: %s (info %d)", name_of(dtype), (long long)n, starfact_c_error_message(), info);
    res = inverse_residual(a, dx, n, n, dtype);
    CHECK(res < 60, "%s potri into a_out residual n=%lld: %g", name_of(dtype), (long long)n, res);
    void* again = lower_input(a, n, ld, dtype, 7.0);
    CHECK(memcmp(given, again, size_of(dtype) * (size_t)(ld * (n > 0 ? n : 1))) == 0,
          "%s potri into a_out n=%lld changed a", name_of(dtype), (long long)n);
    free(again);
    free(dx);
    free(given);
    free(da);
    free(a);
}

/* A matrix whose leading minor of order k + 1 is not positive definite: info k + 1, as LAPACK's cpotrf/zpotrf. */
static void test_info(starfact_c_runtime* rt, int32_t dtype) {
    const int64_t n = 45;
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = 16;
    const int64_t bads[] = {0, 15, 16, 44};
    for (size_t b = 0; b < sizeof bads / sizeof bads[0]; ++b) {
        const int64_t k = bads[b];
        zc* a = hermitian(n, dtype);
        a[k + k * n] = -1.0;
        void* da = lower_input(a, n, n, dtype, 0.0);
        starfact_c_matrix ma = {da, n, n, n, dtype, STARFACT_C_HOST};
        starfact_c_job* job = NULL;
        int32_t info = -1;
        CHECK(wait_job(starfact_c_potri_submit(rt, &ma, &ma, &opts, &job), &job, &info) == 0 && info == k + 1,
              "%s potri of a matrix not positive definite at %lld: info %d (%s)", name_of(dtype), (long long)k, info,
              starfact_c_error_message());
        free(da);
        free(a);
    }
}

/* The plan of a complex potri: the element's arithmetic, the complex Cholesky's kernels, the real inverse's tiles. */
static void test_plan(int32_t dtype) {
    starfact_c_machine gpu = {8, 4, 1};
    char line[512], real_line[512];
    static double never_read[4];  /* the plan reads the shape, dtype and device only */
    starfact_c_matrix big = {never_read, 8192, 8192, 8192, dtype, STARFACT_C_HOST};
    CHECK(starfact_c_plan(NULL, &gpu, "potri", &big, NULL, NULL, NULL, line, sizeof line) == 0,
          "plan of a %s potri: %s", name_of(dtype), starfact_c_error_message());
    const char* element = is_single(dtype) ? "element=c64" : "element=c128";
    const char* arithmetic = is_single(dtype) ? "arithmetic=c64" : "arithmetic=c128";
    CHECK(strstr(line, "op=potri") && strstr(line, element) && strstr(line, arithmetic) &&
              strstr(line, "diag=cusolver") && strstr(line, "refined=no"),
          "%s potri's plan: %s", name_of(dtype), line);
    big.dtype = is_single(dtype) ? STARFACT_C_FLOAT32 : STARFACT_C_FLOAT64;
    CHECK(starfact_c_plan(NULL, &gpu, "potri", &big, NULL, NULL, NULL, real_line, sizeof real_line) == 0,
          "plan of a real potri: %s", starfact_c_error_message());
    const char* nb = strstr(line, " nb="), *real_nb = strstr(real_line, " nb=");
    CHECK(nb && real_nb && strncmp(nb, real_nb, strcspn(nb + 1, " ") + 1) == 0,
          "%s potri's tiles are not the real inverse's: %s / %s", name_of(dtype), line, real_line);
}

int main(void) {
    starfact_c_runtime* rt = check_start(2);
    if (!rt) return 1;
    const int32_t dtypes[] = {STARFACT_C_COMPLEX64, STARFACT_C_COMPLEX128};
    for (int d = 0; d < 2; ++d) {
        /* n = 1; n < nb (the plan's 256, and 16); n % nb != 0 with several tiles; n = nb */
        const int64_t orders[][2] = {{1, 0}, {13, 16}, {37, 0}, {50, 16}, {77, 32}, {64, 32}};
        for (size_t k = 0; k < sizeof orders / sizeof orders[0]; ++k)
            test_potri(rt, dtypes[d], orders[k][0], orders[k][1]);
        test_info(rt, dtypes[d]);
        test_plan(dtypes[d]);
    }
    return check_finish("test_capi_potri_complex", rt);
}

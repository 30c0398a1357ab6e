/* The C ABI on complex matrices (ctest capi.complex, label cpu): potrf, potrs, posv of fresh Hermitian positive
 * definite matrices with complex off-diagonal entries and getrf, getrs, gesv of fresh general ones, in complex64 and
 * complex128 (interleaved re/im, column-major), n = 1, n < nb, n % nb != 0, in place and into separate outputs,
 * against scaled residuals computed here in double complex (< 60); only the lower triangle of a Hermitian matrix is
 * read (NaN above it, and an imaginary part on its diagonal, change nothing); LAPACK's info of a matrix that is not
 * positive definite and of a singular one; arrays with a leading dimension of 2^31 or more (mapped without reserving
 * memory); the plan's line for complex calls; the batched posv, gesv and getrs (scaled residuals, a failing member's
 * info); and the operations that take no complex matrix yet refusing them, naming the argument (the complex QR:
 * test_capi_qr_complex.c; potri: test_capi_potri_complex.c). Exit status 0 when every check holds; each failed check prints a line. */
#define _DEFAULT_SOURCE
#include <sys/mman.h>

#include "tests/capi_complex.h"

/* ||A - L L^H||_1 / (||A||_1 n eps), L the lower triangle of f. */
static double cholesky_residual(const zc* a, const zc* f, int64_t n, double eps) {
    zc* r = malloc(sizeof(zc) * (size_t)(n * n + 1));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            zc s = a[i + j * n];
            for (int64_t k = 0; k <= (i < j ? i : j); ++k) s -= f[i + k * n] * conj(f[j + k * n]);
            r[i + j * n] = s;
        }
    const double res = norm1(r, n, n) / (norm1(a, n, n) * (double)n * eps);
    free(r);
    return res;
}
/* ||P A - L U||_1 / (||A||_1 n eps), L unit lower and U upper in f, ipiv LAPACK's 1-based interchanges. */
static double lu_residual(const zc* a, const zc* f, const int64_t* ipiv, int64_t n, double eps) {
    zc* pa = malloc(sizeof(zc) * (size_t)(n * n + 1));
    memcpy(pa, a, sizeof(zc) * (size_t)(n * n));
    for (int64_t i = 0; i < n; ++i) {
        const int64_t p = ipiv[i] - 1;
        if (p < i || p >= n) {
            free(pa);
            return INFINITY;
        }
        for (int64_t j = 0; j < n; ++j) {
            const zc t = pa[i + j * n];
            pa[i + j * n] = pa[p + j * n];
            pa[p + j * n] = t;
        }
    }
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            zc s = 0;
            for (int64_t k = 0; k <= (i < j ? i : j); ++k) s += (k == i ? 1.0 : f[i + k * n]) * f[k + j * n];
            pa[i + j * n] -= s;
        }
    const double res = norm1(pa, n, n) / (norm1(a, n, n) * (double)n * eps);
    free(pa);
    return res;
}
/* ||A X - B||_1 / (||A||_1 ||X||_1 n eps). */
static double solve_residual(const zc* a, const zc* x, const zc* b, int64_t n, int64_t nrhs, double eps) {
    zc* r = malloc(sizeof(zc) * (size_t)(n * nrhs + 1));
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = 0; i < n; ++i) {
            zc s = -b[i + j * n];
            for (int64_t k = 0; k < n; ++k) s += a[i + k * n] * x[k + j * n];
            r[i + j * n] = s;
        }
    const double res = norm1(r, n, nrhs) / (norm1(a, n, n) * norm1(x, n, nrhs) * (double)n * eps);
    free(r);
    return res;
}

/* potrf in place, potrs into another array, posv into outputs, of one fresh Hermitian matrix; `nb` 0: the plan's. */
static void test_cholesky(starfact_c_runtime* rt, int32_t dtype, int64_t n, int64_t nb) {
    const double eps = eps_of(dtype);
    const int64_t ld = n + 3, nrhs = 3;
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = nb;
    zc* a = hermitian(n, dtype);
    zc* b = general(n, nrhs, dtype);
    /* the input: the lower triangle of a, its diagonal with an imaginary part that is ignored (LAPACK's zpotrf), NaN
     * strictly above it (never read) */
    zc* given = malloc(sizeof(zc) * (size_t)(n * n + 1));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i)
            given[i + j * n] = i > j ? a[i + j * n] : i == j ? a[i + j * n] + 0.25 * I : NAN + NAN * I;
    void* da = to_array(given, n, n, ld, dtype, 7.0);
    starfact_c_matrix ma = {da, n, n, ld, dtype, STARFACT_C_HOST};
    starfact_c_job* job = NULL;
    int32_t info = -1;
    CHECK(wait_job(starfact_c_potrf_submit(rt, &ma, &ma, &opts, &job), &job, &info) == 0 && info == 0,
          "%s potrf n=%lld nb=%lld: %s (info %d)", name_of(dtype), (long long)n, (long long)nb,
          starfact_c_error_message(), info);
    zc* f = from_array(da, n, n, ld, dtype);
    CHECK(cholesky_residual(a, f, n, eps) < 60, "%s potrf residual n=%lld nb=%lld: %g", name_of(dtype), (long long)n,
          (long long)nb, cholesky_residual(a, f, n, eps));
    int upper_kept = 1, padding_kept = 1;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < j; ++i) upper_kept &= isnan(creal(entry(da, i + j * ld, dtype)));
        for (int64_t i = n; i < ld; ++i) padding_kept &= entry(da, i + j * ld, dtype) == 7.0;
    }
    CHECK(upper_kept && padding_kept, "%s potrf n=%lld wrote above the diagonal (%d) or past the rows (%d)",
          name_of(dtype), (long long)n, !upper_kept, !padding_kept);

    /* potrs with the factor (only read) into a separate b_out */
    void* db = to_array(b, n, nrhs, n, dtype, 0);
    void* dx = to_array(b, n, nrhs, n + 1, dtype, 0);
    starfact_c_matrix mb = {db, n, nrhs, n, dtype, STARFACT_C_HOST}, mx = {dx, n, nrhs, n + 1, dtype, STARFACT_C_HOST};
    CHECK(wait_job(starfact_c_potrs_submit(rt, &ma, &mb, &mx, &opts, &job), &job, &info) == 0 && info == 0,
          "%s potrs: %s", name_of(dtype), starfact_c_error_message());
    zc* x = from_array(dx, n, nrhs, n + 1, dtype);
    zc* b_after = from_array(db, n, nrhs, n, dtype);
    CHECK(solve_residual(a, x, b, n, nrhs, eps) < 60, "%s potrs residual n=%lld: %g", name_of(dtype), (long long)n,
          solve_residual(a, x, b, n, nrhs, eps));
    CHECK(memcmp(b_after, b, sizeof(zc) * (size_t)(n * nrhs)) == 0, "%s potrs wrote its input b", name_of(dtype));
    free(x);
    free(b_after);

    /* posv: the factor into a_out, X into b in place, a only read */
    free(da);
    da = to_array(given, n, n, ld, dtype, 7.0);
    ma.data = da;
    void* df = to_array(a, n, n, n, dtype, 0);
    starfact_c_matrix mf = {df, n, n, n, dtype, STARFACT_C_HOST};
    CHECK(wait_job(starfact_c_posv_submit(rt, &ma, &mf, &mb, &mb, &opts, NULL, &job), &job, &info) == 0 && info == 0,
          "%s posv: %s (info %d)", name_of(dtype), starfact_c_error_message(), info);
    free(f);
    f = from_array(df, n, n, n, dtype);
    x = from_array(db, n, nrhs, n, dtype);
    CHECK(cholesky_residual(a, f, n, eps) < 60, "%s posv factor residual n=%lld", name_of(dtype), (long long)n);
    CHECK(solve_residual(a, x, b, n, nrhs, eps) < 60, "%s posv residual n=%lld: %g", name_of(dtype), (long long)n,
          solve_residual(a, x, b, n, nrhs, eps));
    zc* a_after = from_array(da, n, n, ld, dtype);
    int read_only = 1;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j; i < n; ++i) read_only &= a_after[i + j * n] == given[i + j * n];
    CHECK(read_only, "%s posv wrote a, whose factor went to a_out", name_of(dtype));
    free(a_after);
    free(x);
    free(f);
    free(df);
    free(dx);
    free(db);
    free(da);
    free(given);
    free(b);
    free(a);
}

/* getrf into a separate a_out, getrs in place, gesv in place, of one fresh general matrix. */
static void test_lu(starfact_c_runtime* rt, int32_t dtype, int64_t n, int64_t nb) {
    const double eps = eps_of(dtype);
    const int64_t ld = n + 2, nrhs = 2;
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = nb;
    zc* a = general(n, n, dtype);
    zc* b = general(n, nrhs, dtype);
    void* da = to_array(a, n, n, ld, dtype, 5.0);
    void* dlu = to_array(a, n, n, n, dtype, 0);
    int64_t* ipiv = calloc((size_t)n + 1, sizeof(int64_t));
    starfact_c_matrix ma = {da, n, n, ld, dtype, STARFACT_C_HOST}, mlu = {dlu, n, n, n, dtype, STARFACT_C_HOST};
    memset(dlu, 0, size_of(dtype) * (size_t)(n * n));
    starfact_c_job* job = NULL;
    int32_t info = -1;
    CHECK(wait_job(starfact_c_getrf_submit(rt, &ma, &mlu, ipiv, &opts, &job), &job, &info) == 0 && info == 0,
          "%s getrf n=%lld nb=%lld: %s (info %d)", name_of(dtype), (long long)n, (long long)nb,
          starfact_c_error_message(), info);
    zc* f = from_array(dlu, n, n, n, dtype);
    CHECK(lu_residual(a, f, ipiv, n, eps) < 60, "%s getrf residual n=%lld nb=%lld: %g", name_of(dtype), (long long)n,
          (long long)nb, lu_residual(a, f, ipiv, n, eps));
    zc* a_after = from_array(da, n, n, ld, dtype);
    CHECK(memcmp(a_after, a, sizeof(zc) * (size_t)(n * n)) == 0, "%s getrf wrote a, whose factors went to a_out",
          name_of(dtype));
    free(a_after);

    void* db = to_array(b, n, nrhs, n, dtype, 0);
    starfact_c_matrix mb = {db, n, nrhs, n, dtype, STARFACT_C_HOST};
    CHECK(wait_job(starfact_c_getrs_submit(rt, &mlu, ipiv, &mb, &mb, &opts, &job), &job, &info) == 0 && info == 0,
          "%s getrs: %s", name_of(dtype), starfact_c_error_message());
    zc* x = from_array(db, n, nrhs, n, dtype);
    CHECK(solve_residual(a, x, b, n, nrhs, eps) < 60, "%s getrs residual n=%lld: %g", name_of(dtype), (long long)n,
          solve_residual(a, x, b, n, nrhs, eps));
    free(x);

    /* gesv in place (a and b), its pivots wanted */
    free(db);
    db = to_array(b, n, nrhs, n, dtype, 0);
    mb.data = db;
    memset(ipiv, 0, sizeof(int64_t) * (size_t)n);
    CHECK(wait_job(starfact_c_gesv_submit(rt, &ma, &ma, ipiv, &mb, &mb, &opts, &job), &job, &info) == 0 && info == 0,
          "%s gesv: %s (info %d)", name_of(dtype), starfact_c_error_message(), info);
    x = from_array(db, n, nrhs, n, dtype);
    free(f);
    f = from_array(da, n, n, ld, dtype);
    CHECK(solve_residual(a, x, b, n, nrhs, eps) < 60, "%s gesv residual n=%lld: %g", name_of(dtype), (long long)n,
          solve_residual(a, x, b, n, nrhs, eps));
    CHECK(lu_residual(a, f, ipiv, n, eps) < 60, "%s gesv factors residual n=%lld", name_of(dtype), (long long)n);
    int padding_kept = 1;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = n; i < ld; ++i) padding_kept &= entry(da, i + j * ld, dtype) == 5.0;
    CHECK(padding_kept, "%s gesv wrote past the rows of a", name_of(dtype));
    free(x);
    free(f);
    free(db);
    free(ipiv);
    free(dlu);
    free(da);
    free(b);
    free(a);
}

/* LAPACK's info: a Hermitian matrix whose leading minor of order 21 is not positive definite (posv), and a general one
 * whose U(8, 8) is exactly zero (gesv; getrf: the factorization completed). The right-hand sides b, solved into
 * another array b_out, stay as they were (an output viewed in place is written whatever the info, as for real
 * matrices). */
static void test_infos(starfact_c_runtime* rt, int32_t dtype) {
    const int64_t n = 40;
    zc* a = hermitian(n, dtype);
    a[20 + 20 * n] = -1000.0;
    zc* b = general(n, 1, dtype);
    void* da = to_array(a, n, n, n, dtype, 0);
    void* db = to_array(b, n, 1, n, dtype, 0);
    void* dx = to_array(b, n, 1, n, dtype, 0);
    starfact_c_matrix ma = {da, n, n, n, dtype, STARFACT_C_HOST}, mb = {db, n, 1, n, dtype, STARFACT_C_HOST};
    starfact_c_matrix mx = {dx, n, 1, n, dtype, STARFACT_C_HOST};
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = 16;
    starfact_c_job* job = NULL;
    int32_t info = 0;
    CHECK(wait_job(starfact_c_posv_submit(rt, &ma, &ma, &mb, &mx, &opts, NULL, &job), &job, &info) == 0 && info == 21,
          "%s posv of a matrix whose minor 21 fails: info %d (%s)", name_of(dtype), info, starfact_c_error_message());
    zc* b_after = from_array(db, n, 1, n, dtype);
    CHECK(memcmp(b_after, b, sizeof(zc) * (size_t)n) == 0, "%s posv with info > 0 wrote b", name_of(dtype));
    free(b_after);
    free(da);
    free(a);

    zc* g = general(n, n, dtype);
    for (int64_t i = 0; i < n; ++i) g[i + 7 * n] = 0; /* U(8, 8) is exactly zero */
    void* dg = to_array(g, n, n, n, dtype, 0);
    starfact_c_matrix mg = {dg, n, n, n, dtype, STARFACT_C_HOST};
    CHECK(wait_job(starfact_c_gesv_submit(rt, &mg, NULL, NULL, &mb, &mx, &opts, &job), &job, &info) == 0 && info == 8,
          "%s gesv of a singular matrix: info %d", name_of(dtype), info);
    b_after = from_array(db, n, 1, n, dtype);
    CHECK(memcmp(b_after, b, sizeof(zc) * (size_t)n) == 0, "%s gesv with info > 0 wrote b", name_of(dtype));
    free(b_after);
    int64_t ipiv[40];
    CHECK(wait_job(starfact_c_getrf_submit(rt, &mg, &mg, ipiv, &opts, &job), &job, &info) == 0 && info == 8,
          "%s getrf of a singular matrix: info %d", name_of(dtype), info);
    zc* f = from_array(dg, n, n, n, dtype);
    CHECK(lu_residual(g, f, ipiv, n, eps_of(dtype)) < 60, "%s getrf of a singular matrix: residual %g",
          name_of(dtype), lu_residual(g, f, ipiv, n, eps_of(dtype)));
    free(f);
    free(dg);
    free(g);
    free(dx);
    free(db);
    free(b);
}

/* A column-major n x n array with a leading dimension of 2^31 + 3 over a mapping without reserve. */
typedef struct {
    void* data;
    size_t bytes;
} Wide;
static Wide wide(int64_t n, int64_t ld, int32_t dtype) {
    Wide w;
    w.bytes = (size_t)((n - 1) * ld + n) * size_of(dtype);
    w.data = mmap(NULL, w.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (w.data == MAP_FAILED) {
        fprintf(stderr, "mmap of %zu bytes without reserve failed\n", w.bytes);
        exit(1);
    }
    return w;
}

/* potrf and getrf (with getrs) of arrays whose leading dimension is 2^31 + 3 entries: copied into tiles and back. */
static void test_wide(starfact_c_runtime* rt, int32_t dtype) {
    const int64_t n = 5, ld = ((int64_t)1 << 31) + 3;
    const double eps = eps_of(dtype);
    zc* a = hermitian(n, dtype);
    Wide w = wide(n, ld, dtype);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) set_entry(w.data, i + j * ld, dtype, a[i + j * n]);
    starfact_c_matrix m = {w.data, n, n, ld, dtype, STARFACT_C_HOST};
    starfact_c_job* job = NULL;
    int32_t info = -1;
    CHECK(wait_job(starfact_c_potrf_submit(rt, &m, &m, NULL, &job), &job, &info) == 0 && info == 0,
          "%s potrf with ld = 2^31 + 3: %s (info %d)", name_of(dtype), starfact_c_error_message(), info);
    zc* f = from_array(w.data, n, n, ld, dtype);
    CHECK(cholesky_residual(a, f, n, eps) < 60, "%s potrf with ld = 2^31 + 3: residual %g", name_of(dtype),
          cholesky_residual(a, f, n, eps));
    free(f);

    zc* g = general(n, n, dtype);
    zc* b = general(n, 1, dtype);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) set_entry(w.data, i + j * ld, dtype, g[i + j * n]);
    int64_t ipiv[5];
    CHECK(wait_job(starfact_c_getrf_submit(rt, &m, &m, ipiv, NULL, &job), &job, &info) == 0 && info == 0,
          "%s getrf with ld = 2^31 + 3: %s (info %d)", name_of(dtype), starfact_c_error_message(), info);
    f = from_array(w.data, n, n, ld, dtype);
    CHECK(lu_residual(g, f, ipiv, n, eps) < 60, "%s getrf with ld = 2^31 + 3: residual %g", name_of(dtype),
          lu_residual(g, f, ipiv, n, eps));
    void* db = to_array(b, n, 1, n, dtype, 0);
    starfact_c_matrix mb = {db, n, 1, n, dtype, STARFACT_C_HOST};
    CHECK(wait_job(starfact_c_getrs_submit(rt, &m, ipiv, &mb, &mb, NULL, &job), &job, &info) == 0,
          "%s getrs with a factor of ld = 2^31 + 3: %s", name_of(dtype), starfact_c_error_message());
    zc* x = from_array(db, n, 1, n, dtype);
    CHECK(solve_residual(g, x, b, n, 1, eps) < 60, "%s getrs with a factor of ld = 2^31 + 3", name_of(dtype));
    free(x);
    free(db);
    free(f);
    free(b);
    free(g);
    munmap(w.data, w.bytes);
    free(a);
}

/* Whether `status` is STARFACT_C_INVALID_ARGUMENT naming `argument`, the message holding `text`. */
/* The batched posv, gesv and getrs of `count` members of order n (ld n + 1, members ld * n + 3 apart, right-hand sides
 * of 2 columns): scaled residuals < 60 of every member that succeeded, the info of a member made non-definite
 * (Cholesky: member 2, column n / 2) or singular (LU: member 1, a zero column n / 2) with the others unaffected, the
 * failed member's b kept. */
static void test_batched(starfact_c_runtime* rt, int32_t dtype, int64_t n, int64_t count) {
    if (!starfact_c_has_batched(0) || !starfact_c_has_batched(1)) return;
    const int64_t ld = n + 1, stride = ld * n + 3, nrhs = 2, bstride = n * nrhs;
    const double eps = eps_of(dtype);
    zc** a = malloc(sizeof(zc*) * (size_t)count);
    zc** b = malloc(sizeof(zc*) * (size_t)count);
    void* da = calloc((size_t)(count * stride), size_of(dtype));
    void* db = calloc((size_t)(count * bstride), size_of(dtype));
    void* d0 = calloc((size_t)(count * bstride), size_of(dtype));
    int32_t* info = malloc(sizeof(int32_t) * (size_t)count);
    int32_t* ipiv = malloc(sizeof(int32_t) * (size_t)(count * n));
    int64_t failed = -1;
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.chunk = 2;
    for (int lu = 0; lu < 2; ++lu) {
        const int64_t bad = lu ? 1 : 2, col = n / 2;
        for (int64_t m = 0; m < count; ++m) {
            a[m] = lu ? general(n, n, dtype) : hermitian(n, dtype);
            if (m == bad && lu)
                for (int64_t i = 0; i < n; ++i) a[m][i + col * n] = 0;
            if (m == bad && !lu) a[m][col + col * n] = -(double)n;
            b[m] = general(n, nrhs, dtype);
            for (int64_t k = 0; k < stride; ++k) {
                const int64_t i = k % ld, j = k / ld;
                set_entry(da, m * stride + k, dtype, i < n && j < n ? a[m][i + j * n] : 7.0);
            }
            for (int64_t k = 0; k < bstride; ++k) set_entry(db, m * bstride + k, dtype, b[m][k]);
        }
        memcpy(d0, db, size_of(dtype) * (size_t)(count * bstride));
        starfact_c_batch ba = {da, n, n, ld, stride, count, dtype, STARFACT_C_HOST};
        starfact_c_batch bb = {db, n, nrhs, n, bstride, count, dtype, STARFACT_C_HOST};
        const int status = lu ? starfact_c_batched_gesv(rt, &ba, ipiv, n, &bb, info, &opts, &failed)
                              : starfact_c_batched_posv(rt, &ba, &bb, info, &opts, &failed);
        CHECK(status == 0, "batched %s of %s: %s", lu ? "gesv" : "posv", name_of(dtype), starfact_c_error_message());
        CHECK(failed == 1 && info[bad] == col + 1, "batched %s of %s, n %lld: %lld failed, info %d", lu ? "gesv" : "posv",
              name_of(dtype), (long long)n, (long long)failed, info[bad]);
        for (int64_t m = 0; m < count; ++m) {
            zc* f = from_array((char*)da + size_of(dtype) * (size_t)(m * stride), n, n, ld, dtype);
            zc* x = from_array((char*)db + size_of(dtype) * (size_t)(m * bstride), n, nrhs, n, dtype);
            if (m == bad) {
                CHECK(memcmp((char*)db + size_of(dtype) * (size_t)(m * bstride),
                             (char*)d0 + size_of(dtype) * (size_t)(m * bstride), size_of(dtype) * (size_t)bstride) == 0,
                      "batched %s of %s: the failed member's b changed", lu ? "gesv" : "posv", name_of(dtype));
            } else {
                double fr;
                if (lu) {
                    int64_t* p = malloc(sizeof(int64_t) * (size_t)(n + 1));
                    for (int64_t i = 0; i < n; ++i) p[i] = ipiv[m * n + i];
                    fr = lu_residual(a[m], f, p, n, eps);
                    free(p);
                } else {
                    fr = cholesky_residual(a[m], f, n, eps);
                }
                const double sr = solve_residual(a[m], x, b[m], n, nrhs, eps);
                CHECK(fr < 60 && sr < 60, "batched %s of %s, n %lld, member %lld: residuals %g %g",
                      lu ? "gesv" : "posv", name_of(dtype), (long long)n, (long long)m, fr, sr);
            }
            free(f);
            free(x);
        }
        if (lu) { /* getrs with the factors on fresh right-hand sides, the singular member left out of the check */
            memcpy(db, d0, size_of(dtype) * (size_t)(count * bstride));
            CHECK(starfact_c_batched_getrs(rt, &ba, ipiv, n, &bb, &opts) == 0, "batched getrs of %s: %s",
                  name_of(dtype), starfact_c_error_message());
            for (int64_t m = 0; m < count; ++m) {
                if (m == bad) continue;
                zc* x = from_array((char*)db + size_of(dtype) * (size_t)(m * bstride), n, nrhs, n, dtype);
                const double sr = solve_residual(a[m], x, b[m], n, nrhs, eps);
                CHECK(sr < 60, "batched getrs of %s, n %lld, member %lld: residual %g", name_of(dtype), (long long)n,
                      (long long)m, sr);
                free(x);
            }
        }
        for (int64_t m = 0; m < count; ++m) {
            free(a[m]);
            free(b[m]);
        }
    }
    /* a float32 b with complex members: refused, naming b */
    starfact_c_batch ba = {da, n, n, ld, stride, count, dtype, STARFACT_C_HOST};
    starfact_c_batch bf = {db, n, nrhs, n, bstride, count, STARFACT_C_FLOAT32, STARFACT_C_HOST};
    CHECK(starfact_c_batched_posv(rt, &ba, &bf, info, NULL, &failed) == STARFACT_C_INVALID_ARGUMENT &&
              strcmp(starfact_c_error_argument(), "b") == 0,
          "batched posv of %s with float32 b names %s", name_of(dtype), starfact_c_error_argument());
    free(ipiv);
    free(info);
    free(d0);
    free(db);
    free(da);
    free(b);
    free(a);
}

/* The operations without complex matrices refuse them naming the argument; so do the mixed-precision solve and the
 * options the complex factorizations do not have; the plan says how a complex call runs. */
static void test_refusals(starfact_c_runtime* rt, int32_t dtype) {
    const int64_t n = 8;
    zc* a = hermitian(n, dtype);
    void* da = to_array(a, n, n, n, dtype, 0);
    void* db = to_array(a, n, 1, n, dtype, 0);
    starfact_c_matrix ma = {da, n, n, n, dtype, STARFACT_C_HOST}, mb = {db, n, 1, n, dtype, STARFACT_C_HOST};
    starfact_c_job* job = NULL;
    double sign = 0, logabsdet = 0;
    const char* complex_name = name_of(dtype);
    CHECK(refused(starfact_c_logdet_submit(rt, &ma, NULL, &sign, &logabsdet, &job), "l", "complex matrices: potrf"),
          "logdet of %s: %s", complex_name, starfact_c_error_message());
    CHECK(refused(starfact_c_potrf_logdet_submit(rt, &ma, NULL, NULL, &sign, &logabsdet, &job), "a", complex_name),
          "potrf_logdet of %s: %s", complex_name, starfact_c_error_message());

    /* the mixed-precision solve (complex128 only: a complex64 factor, fp32 or tf32), and the options of the real
     * factorizations only */
    starfact_c_refinement refinement;
    starfact_c_refinement_init(&refinement);
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.factor = "tf32";
    if (dtype == STARFACT_C_COMPLEX64) {
        CHECK(refused(starfact_c_posv_submit(rt, &ma, NULL, &mb, &mb, NULL, &refinement, &job), "refinement",
                      "complex"),
              "posv of %s with a refinement: %s", complex_name, starfact_c_error_message());
        CHECK(refused(starfact_c_posv_submit(rt, &ma, NULL, &mb, &mb, &opts, NULL, &job), "factor", "complex"),
              "posv of %s in tf32: %s", complex_name, starfact_c_error_message());
        CHECK(strstr(starfact_c_error_message(), "starfact::posv:") == starfact_c_error_message(),
              "the factor's refusal is posv's: %s", starfact_c_error_message());
    } else {
        int32_t info = -1;
        starfact_c_solve_report report;
        for (int k = 0; k < 2; ++k) {  /* a refinement with the native factor's plan: refined (always in fp32 on
                                        * CPUs: the plan takes the low factor there); then tf32 */
            starfact_c_options o;
            starfact_c_options_init(&o);
            o.factor = k == 0 ? "fp32" : "tf32";
            void* dx = to_array(a, n, 1, n, dtype, 0);
            starfact_c_matrix mx = {dx, n, 1, n, dtype, STARFACT_C_HOST};
            int status = starfact_c_posv_submit(rt, &ma, NULL, &mx, &mx, &o, k == 0 ? &refinement : NULL, &job);
            CHECK(status == STARFACT_C_OK, "mixed posv of %s in %s: %s", complex_name, o.factor,
                  starfact_c_error_message());
            if (status == STARFACT_C_OK) {
                CHECK(starfact_c_job_wait(job, &info) == STARFACT_C_OK && info == 0, "mixed posv of %s: info %d",
                      complex_name, info);
                CHECK(starfact_c_job_report(job, &report) == STARFACT_C_OK &&
                          (strcmp(report.path, "refined") == 0 || strcmp(report.path, "gmres") == 0) &&
                          strcmp(report.factor, o.factor) == 0,
                      "mixed posv of %s in %s: path %s, factor %s", complex_name, o.factor, report.path,
                      report.factor);
                zc* x = from_array(dx, n, 1, n, dtype);
                CHECK(solve_residual(a, x, a, n, 1, eps_of(dtype)) < 60, "mixed posv of %s: residual %g",
                      complex_name, solve_residual(a, x, a, n, 1, eps_of(dtype)));
                free(x);
                starfact_c_job_destroy(job);
                job = NULL;
            }
            free(dx);
        }
        opts.factor = "bf16";
        CHECK(refused(starfact_c_posv_submit(rt, &ma, NULL, &mb, &mb, &opts, NULL, &job), "factor", "c128 posv"),
              "posv of %s in bf16: %s", complex_name, starfact_c_error_message());
        CHECK(strstr(starfact_c_error_message(), "starfact::posv:") == starfact_c_error_message(),
              "the factor's refusal is posv's: %s", starfact_c_error_message());
        refinement.max_iterations = -1;
        opts.factor = "fp32";
        CHECK(refused(starfact_c_posv_submit(rt, &ma, NULL, &mb, &mb, &opts, &refinement, &job), "max_iterations",
                      ">= 0"),
              "posv of %s with max_iterations -1: %s", complex_name, starfact_c_error_message());
    }
    starfact_c_options_init(&opts);
    opts.variant = "left";
    CHECK(refused(starfact_c_potrf_submit(rt, &ma, NULL, &opts, &job), "variant", "right"),
          "potrf of %s, left-looking: %s", complex_name, starfact_c_error_message());
    starfact_c_options_init(&opts);
    opts.mapping = "gpu-only";
    CHECK(refused(starfact_c_getrf_submit(rt, &ma, NULL, NULL, &opts, &job), "mapping", "CUDA worker"),
          "getrf of %s on GPUs only, no GPU: %s", complex_name, starfact_c_error_message());
    /* a complex a with real right-hand sides, and the reverse */
    starfact_c_matrix real_b = mb, real_a = ma;
    real_b.dtype = is_single(dtype) ? STARFACT_C_FLOAT32 : STARFACT_C_FLOAT64;
    real_a.dtype = real_b.dtype;
    CHECK(refused(starfact_c_gesv_submit(rt, &ma, NULL, NULL, &real_b, &real_b, NULL, &job), "b", "dtype of a"),
          "gesv of %s with real b: %s", complex_name, starfact_c_error_message());
    CHECK(refused(starfact_c_potrs_submit(rt, &real_a, &mb, &mb, NULL, &job), "b", "dtype of l"),
          "potrs of a real l with %s b: %s", complex_name, starfact_c_error_message());

    /* the plan: the real type's tiles, the complex arithmetic */
    starfact_c_machine gpu = {8, 4, 1};
    char line[512];
    starfact_c_matrix big = {da, 8192, 8192, 8192, dtype, STARFACT_C_HOST};
    starfact_c_matrix big_b = {da, 8192, 3, 8192, dtype, STARFACT_C_HOST};
    CHECK(starfact_c_plan(NULL, &gpu, "posv", &big, &big_b, NULL, NULL, line, sizeof line) == 0,
          "plan of a complex posv: %s", starfact_c_error_message());
    const char* element = is_single(dtype) ? "element=c64" : "element=c128";
    const char* arithmetic = is_single(dtype) ? "arithmetic=c64" : "arithmetic=c128";
    CHECK(strstr(line, element) && strstr(line, arithmetic) && strstr(line, "nb=2048") &&
              strstr(line, "tasks=gpu-only") && strstr(line, "diag=cusolver") && strstr(line, "refined=no"),
          "complex posv's plan: %s", line);
    big.device = 0; /* device-resident tiles: one task up to 16384 in c64, 4096 in c128, else tiles of 2048 */
    const char* device_tiles = is_single(dtype) ? "one_task=yes" : "nb=2048";
    CHECK(starfact_c_plan(NULL, &gpu, "potrf", &big, NULL, NULL, NULL, line, sizeof line) == 0 &&
              strstr(line, "residency=device") && strstr(line, device_tiles),
          "complex potrf's plan on a device array: %s (%s)", line, starfact_c_error_message());
    CHECK(starfact_c_plan(NULL, &gpu, "getrf", &big, NULL, NULL, NULL, line, sizeof line) == 0 &&
              strstr(line, "tasks=gpu-only") && strstr(line, "residency=device") && strstr(line, device_tiles),
          "complex getrf's plan: %s (%s)", line, starfact_c_error_message());
    big.device = STARFACT_C_HOST;
    CHECK(starfact_c_plan(NULL, &gpu, "potri", &big, NULL, NULL, NULL, line, sizeof line) == 0 && strstr(line, element),
          "plan of a complex potri: %s (%s)", line, starfact_c_error_message());
    CHECK(starfact_c_plan(NULL, &gpu, "geqrf", &big, NULL, NULL, NULL, line, sizeof line) == 0 && strstr(line, element),
          "plan of a complex geqrf: %s (%s)", line, starfact_c_error_message());

    /* a complex submit returns once its tasks are submitted: with the runtime paused, the job is not done until the
       runtime resumes */
    int32_t done = 1, info = -1;
    CHECK(starfact_c_runtime_pause(rt) == 0, "pause: %s", starfact_c_error_message());
    CHECK(starfact_c_potrf_submit(rt, &ma, &ma, NULL, &job) == 0 && starfact_c_job_done(job, &done) == 0 && done == 0,
          "a complex potrf job submitted while paused is pending: done %d (%s)", done, starfact_c_error_message());
    CHECK(starfact_c_runtime_resume(rt) == 0, "resume: %s", starfact_c_error_message());
    CHECK(job && starfact_c_job_wait(job, &info) == 0 && info == 0, "its wait: info %d", info);
    starfact_c_job_destroy(job);
    free(db);
    free(da);
    free(a);
}

int main(void) {
    starfact_c_runtime* rt = check_start(2);
    if (!rt) return 1;
    const int32_t dtypes[] = {STARFACT_C_COMPLEX64, STARFACT_C_COMPLEX128};
    for (int d = 0; d < 2; ++d) {
        const int32_t dtype = dtypes[d];
        /* n = 1; n < nb (the plan's 256, and 16); n % nb != 0 with several tiles; the plan's tiles past one */
        const int64_t orders[][2] = {{1, 0}, {13, 16}, {37, 0}, {50, 16}, {77, 32}, {300, 0}};
        for (size_t k = 0; k < sizeof orders / sizeof orders[0]; ++k) {
            test_cholesky(rt, dtype, orders[k][0], orders[k][1]);
            test_lu(rt, dtype, orders[k][0], orders[k][1]);
        }
        test_infos(rt, dtype);
        test_batched(rt, dtype, 1, 4);
        test_batched(rt, dtype, 7, 5);
        test_batched(rt, dtype, 29, 6);
        test_wide(rt, dtype);
        test_refusals(rt, dtype);
    }
    return check_finish("test_capi_complex", rt);
}

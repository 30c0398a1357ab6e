/* The C ABI's QR of complex matrices (ctest capi.qr_complex, label cpu): geqrf, orgqr, ormqr (Q and Q^H, from the left
 * and the right) and gels of fresh complex64 and complex128 matrices (interleaved re/im, column-major), tall, square
 * and wide, n = 1, n < nb and n not a multiple of nb, with the flat, binary, domains, panel and auto trees, against
 * scaled residuals computed here in double complex (< 60): ||A - Q R||, ||I - Q^H Q||, Q^H A against R, products and
 * their round trips, the least-squares normal equations and the minimum-norm solution's null-space component; a
 * NaN in A reported at its column (geqrf's info and breakdown, gels's info; the factors refused afterwards); a
 * complex geqrf job pending while the runtime is paused; the plan of a complex geqrf and gels; and the refusals,
 * naming the argument: STARFACT_C_TRANS on a complex Q, the Cholesky QR, real arrays beside complex ones, factors of
 * another dtype, options the complex QR lacks. Exit status 0 when every check holds; each failed check prints a
 * line. */
#include "tests/capi_complex.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static starfact_c_matrix host(void* data, int64_t rows, int64_t cols, int64_t ld, int32_t dtype) {
    starfact_c_matrix m = {data, rows, cols, ld, dtype, STARFACT_C_HOST};
    return m;
}

/* C := op(A) op(B) with op 'N' or 'C' (conjugate transpose); C is rows x cols, the inner dimension k. */
static zc* product(const zc* a, int64_t lda, char opa, const zc* b, int64_t ldb, char opb, int64_t rows, int64_t cols,
                   int64_t k) {
    zc* c = zalloc(rows, cols);
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i) {
            zc s = 0;
            for (int64_t l = 0; l < k; ++l) {
                const zc x = opa == 'N' ? a[i + l * lda] : conj(a[l + i * lda]);
                const zc y = opb == 'N' ? b[l + j * ldb] : conj(b[j + l * ldb]);
                s += x * y;
            }
            c[i + j * rows] = s;
        }
    return c;
}
/* ||X - Y||_1 for rows x cols matrices. */
static double distance(const zc* x, const zc* y, int64_t rows, int64_t cols) {
    zc* d = zalloc(rows, cols);
    for (int64_t k = 0; k < rows * cols; ++k) d[k] = x[k] - y[k];
    const double r = norm1(d, rows, cols);
    free(d);
    return r;
}

static starfact_c_options options(const char* tree, int64_t nb) {
    starfact_c_options o;
    starfact_c_options_init(&o);
    o.tree = tree;
    o.nb = nb;
    return o;
}

/* geqrf of a fresh m x n matrix (a only read, the factors into a_out), orgqr, and ormqr with Q and Q^H from the left
 * and the right; `nb` 0: the plan's. */
static void test_factors(starfact_c_runtime* rt, int32_t dtype, int64_t m, int64_t n, int64_t nb, const char* tree) {
    const double eps = eps_of(dtype);
    const int64_t k = min64(m, n), lda = m + 2, big = max64(m, n);
    const char* dn = name_of(dtype);
    starfact_c_options o = options(tree, nb);
    zc* a = general(m, n, dtype);
    void* da = to_array(a, m, n, lda, dtype, 7.0);
    void* df = to_array(a, m, n, m, dtype, 0);
    memset(df, 0, size_of(dtype) * (size_t)(m * n));
    starfact_c_matrix ma = host(da, m, n, lda, dtype), mf = host(df, m, n, m, dtype);
    starfact_c_qr_factors* factors = NULL;
    starfact_c_job* job = NULL;
    int32_t info = -1;
    CHECK(wait_job(starfact_c_geqrf_submit(rt, &ma, &mf, &o, &factors, &job), &job, &info) == 0 && info == 0 &&
              factors != NULL,
          "%s geqrf %lld x %lld nb=%lld tree %s: %s (info %d)", dn, (long long)m, (long long)n, (long long)nb, tree,
          starfact_c_error_message(), info);
    if (factors == NULL) {
        free(a);
        free(da);
        free(df);
        return;
    }
    zc* a_after = from_array(da, m, n, lda, dtype);
    int padding_kept = 1;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = m; i < lda; ++i) padding_kept &= entry(da, i + j * lda, dtype) == 7.0;
    CHECK(memcmp(a_after, a, sizeof(zc) * (size_t)(m * n)) == 0 && padding_kept,
          "%s geqrf wrote a, whose factors went to a_out", dn);
    free(a_after);
    starfact_c_qr_info qi;
    CHECK(starfact_c_qr_factors_info(factors, &qi) == 0 && qi.dtype == dtype && qi.ready == 1 && qi.rows == m &&
              qi.cols == n && (nb == 0 || qi.nb == nb),
          "%s factors' info: dtype %d ready %d %lld x %lld nb %lld", dn, qi.dtype, qi.ready, (long long)qi.rows,
          (long long)qi.cols, (long long)qi.nb);

    /* the thin Q, R: A = Q R and Q^H Q = I */
    void* dq = to_array(a, m, k, m, dtype, 0);
    starfact_c_matrix mq = host(dq, m, k, m, dtype);
    CHECK(wait_job(starfact_c_orgqr_submit(rt, &mf, factors, &mq, &o, &job), &job, &info) == 0 && info == 0,
          "%s orgqr: %s", dn, starfact_c_error_message());
    zc* q = from_array(dq, m, k, m, dtype);
    zc* f = from_array(df, m, n, m, dtype);
    zc* r = zalloc(k, n);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= min64(j, k - 1); ++i) r[i + j * k] = f[i + j * m];
    zc* qr = product(q, m, 'N', r, k, 'N', m, n, k);
    const double anorm = norm1(a, m, n);
    const double factorization = distance(qr, a, m, n) / (anorm * (double)big * eps);
    CHECK(factorization < 60, "%s ||A - Q R|| %lld x %lld nb=%lld tree %s: %g", dn, (long long)m, (long long)n,
          (long long)nb, tree, factorization);
    zc* qhq = product(q, m, 'C', q, m, 'N', k, k, m);
    for (int64_t i = 0; i < k; ++i) qhq[i + i * k] -= 1;
    const double orthogonality = norm1(qhq, k, k) / ((double)m * eps);
    CHECK(orthogonality < 60, "%s ||I - Q^H Q|| %lld x %lld tree %s: %g", dn, (long long)m, (long long)n, tree,
          orthogonality);

    /* Q^H A (left, STARFACT_C_CONJTRANS, into c_out): R above, zero below */
    void* dc = to_array(a, m, n, m, dtype, 0);
    void* dout = to_array(a, m, n, m + 1, dtype, 0);
    starfact_c_matrix mc = host(dc, m, n, m, dtype), mout = host(dout, m, n, m + 1, dtype);
    CHECK(wait_job(starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, STARFACT_C_CONJTRANS, &mf, factors, &mc, &mout, &o,
                                           &job),
                   &job, &info) == 0 && info == 0,
          "%s ormqr Q^H A: %s", dn, starfact_c_error_message());
    zc* qha = from_array(dout, m, n, m + 1, dtype);
    zc* rfull = zalloc(m, n);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < k; ++i) rfull[i + j * m] = r[i + j * k];
    const double left_h = distance(qha, rfull, m, n) / (anorm * (double)m * eps);
    CHECK(left_h < 60, "%s ||Q^H A - [R; 0]|| %lld x %lld tree %s: %g", dn, (long long)m, (long long)n, tree, left_h);

    /* Q E (left, STARFACT_C_NOTRANS, in place), E the first k columns of the identity: the thin Q */
    zc* e = zalloc(m, k);
    for (int64_t i = 0; i < k; ++i) e[i + i * m] = 1;
    void* de = to_array(e, m, k, m, dtype, 0);
    starfact_c_matrix me = host(de, m, k, m, dtype);
    CHECK(wait_job(starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, STARFACT_C_NOTRANS, &mf, factors, &me, &me, &o, &job),
                   &job, &info) == 0 && info == 0,
          "%s ormqr Q E: %s", dn, starfact_c_error_message());
    zc* qe = from_array(de, m, k, m, dtype);
    const double left_n = distance(qe, q, m, k) / ((double)m * eps);
    CHECK(left_n < 60, "%s ||Q E - orgqr's Q|| %lld x %lld tree %s: %g", dn, (long long)m, (long long)n, tree, left_n);

    /* D Q (right, STARFACT_C_NOTRANS): its first k columns are D times the thin Q; then (D Q) Q^H = D (right,
     * STARFACT_C_CONJTRANS, in place) */
    const int64_t p = 3;
    zc* d = general(p, m, dtype);
    void* dd = to_array(d, p, m, p, dtype, 0);
    void* ddq = to_array(d, p, m, p + 2, dtype, 0);
    starfact_c_matrix md = host(dd, p, m, p, dtype), mdq = host(ddq, p, m, p + 2, dtype);
    CHECK(wait_job(starfact_c_ormqr_submit(rt, STARFACT_C_RIGHT, STARFACT_C_NOTRANS, &mf, factors, &md, &mdq, &o,
                                           &job),
                   &job, &info) == 0 && info == 0,
          "%s ormqr D Q: %s", dn, starfact_c_error_message());
    zc* dq_got = from_array(ddq, p, m, p + 2, dtype);
    zc* dq_thin = product(d, p, 'N', q, m, 'N', p, k, m);
    const double dnorm = norm1(d, p, m);
    const double right_n = distance(dq_got, dq_thin, p, k) / (dnorm * (double)m * eps);
    CHECK(right_n < 60, "%s ||(D Q)(:, 0:k) - D Q_thin|| %lld x %lld tree %s: %g", dn, (long long)m, (long long)n,
          tree, right_n);
    CHECK(wait_job(starfact_c_ormqr_submit(rt, STARFACT_C_RIGHT, STARFACT_C_CONJTRANS, &mf, factors, &mdq, &mdq, &o,
                                           &job),
                   &job, &info) == 0 && info == 0,
          "%s ormqr (D Q) Q^H: %s", dn, starfact_c_error_message());
    zc* back = from_array(ddq, p, m, p + 2, dtype);
    const double right_h = distance(back, d, p, m) / (dnorm * (double)m * eps);
    CHECK(right_h < 60, "%s ||(D Q) Q^H - D|| %lld x %lld tree %s: %g", dn, (long long)m, (long long)n, tree, right_h);

    starfact_c_qr_factors_destroy(factors);
    free(back);
    free(dq_thin);
    free(dq_got);
    free(ddq);
    free(dd);
    free(d);
    free(qe);
    free(de);
    free(e);
    free(rfull);
    free(qha);
    free(dout);
    free(dc);
    free(qhq);
    free(qr);
    free(r);
    free(f);
    free(q);
    free(dq);
    free(df);
    free(da);
    free(a);
}

/* Solves H y = c in place for the Hermitian positive definite n x n H (a Cholesky of the test's own, overwriting H). */
static void hermitian_solve(zc* h, zc* c, int64_t n) {
    for (int64_t j = 0; j < n; ++j) {
        double d = creal(h[j + j * n]);
        for (int64_t l = 0; l < j; ++l) d -= creal(h[j + l * n] * conj(h[j + l * n]));
        d = sqrt(d);
        h[j + j * n] = d;
        for (int64_t i = j + 1; i < n; ++i) {
            zc s = h[i + j * n];
            for (int64_t l = 0; l < j; ++l) s -= h[i + l * n] * conj(h[j + l * n]);
            h[i + j * n] = s / d;
        }
    }
    for (int64_t i = 0; i < n; ++i) {
        zc s = c[i];
        for (int64_t l = 0; l < i; ++l) s -= h[i + l * n] * c[l];
        c[i] = s / h[i + i * n];
    }
    for (int64_t i = n - 1; i >= 0; --i) {
        zc s = c[i];
        for (int64_t l = i + 1; l < n; ++l) s -= conj(h[l + i * n]) * c[l];
        c[i] = s / h[i + i * n];
    }
}

/* gels of a fresh m x n a and b (max(m, n) x nrhs) in place. m >= n: the least-squares normal equations,
 * ||A^H (A X - B)|| / (||A|| (||A|| ||X|| + ||B||) max(m, n) eps); m < n: ||A X - B|| / (||A|| ||X|| n eps) and the
 * component of X in A's null space, X - A^H (A A^H)^-1 A X, against ||X|| n eps. */
static void test_gels(starfact_c_runtime* rt, int32_t dtype, int64_t m, int64_t n, int64_t nb, const char* tree) {
    const double eps = eps_of(dtype);
    const int64_t rows = max64(m, n), nrhs = 2;
    const char* dn = name_of(dtype);
    starfact_c_options o = options(tree, nb);
    zc* a = general(m, n, dtype);
    zc* b = general(m, nrhs, dtype);
    void* da = to_array(a, m, n, m, dtype, 0);
    void* db = to_array(b, m, nrhs, rows, dtype, 0); /* rows m..max(m, n) - 1 are ignored on entry when m < n */
    starfact_c_matrix ma = host(da, m, n, m, dtype), mb = host(db, rows, nrhs, rows, dtype);
    starfact_c_job* job = NULL;
    int32_t info = -1;
    CHECK(wait_job(starfact_c_gels_submit(rt, &ma, &ma, &mb, &mb, &o, &job), &job, &info) == 0 && info == 0,
          "%s gels %lld x %lld nb=%lld tree %s: %s (info %d)", dn, (long long)m, (long long)n, (long long)nb, tree,
          starfact_c_error_message(), info);
    zc* x = zalloc(n, nrhs);
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = 0; i < n; ++i) x[i + j * n] = entry(db, i + j * rows, dtype);
    zc* ax = product(a, m, 'N', x, n, 'N', m, nrhs, n);
    for (int64_t i = 0; i < m * nrhs; ++i) ax[i] -= b[i]; /* A X - B */
    const double anorm = norm1(a, m, n), xnorm = norm1(x, n, nrhs), bnorm = norm1(b, m, nrhs);
    if (m >= n) {
        zc* normal = product(a, m, 'C', ax, m, 'N', n, nrhs, m);
        const double res = norm1(normal, n, nrhs) / (anorm * (anorm * xnorm + bnorm) * (double)rows * eps);
        CHECK(res < 60, "%s gels %lld x %lld tree %s: normal equations %g", dn, (long long)m, (long long)n, tree, res);
        free(normal);
    } else {
        const double res = norm1(ax, m, nrhs) / (anorm * xnorm * (double)n * eps);
        CHECK(res < 60, "%s gels %lld x %lld tree %s: ||A X - B|| %g", dn, (long long)m, (long long)n, tree, res);
        zc* gram = product(a, m, 'N', a, m, 'C', m, m, n);
        zc* y = product(a, m, 'N', x, n, 'N', m, nrhs, n);
        for (int64_t j = 0; j < nrhs; ++j) {
            zc* g = zalloc(m, m);
            memcpy(g, gram, sizeof(zc) * (size_t)(m * m));
            hermitian_solve(g, y + j * m, m);
            free(g);
        }
        zc* projected = product(a, m, 'C', y, m, 'N', n, nrhs, m);
        const double null_part = distance(x, projected, n, nrhs) / (xnorm * (double)n * eps);
        CHECK(null_part < 60, "%s gels %lld x %lld tree %s: x's null-space component %g", dn, (long long)m,
              (long long)n, tree, null_part);
        free(projected);
        free(y);
        free(gram);
    }
    free(ax);
    free(x);
    free(db);
    free(da);
    free(b);
    free(a);
}

/* A NaN in column `column` of a: geqrf's info and breakdown, the factors refused by ormqr and orgqr naming factors,
 * gels's info. */
static void test_breakdown(starfact_c_runtime* rt, int32_t dtype, const char* tree) {
    const int64_t m = 60, n = 21, nb = 8;
    const int64_t column = (int64_t)((check_uniform() + 0.5) * (double)(n - 1));
    const int64_t row = (int64_t)((check_uniform() + 0.5) * (double)(m - 1));
    const char* dn = name_of(dtype);
    zc* a = general(m, n, dtype);
    a[row + column * m] = check_uniform() > 0 ? NAN + 0.5 * I : 0.5 + NAN * I; /* either part */
    void* da = to_array(a, m, n, m, dtype, 0);
    starfact_c_matrix ma = host(da, m, n, m, dtype);
    starfact_c_options o = options(tree, nb);
    starfact_c_qr_factors* factors = NULL;
    starfact_c_job* job = NULL;
    int32_t info = -1;
    CHECK(wait_job(starfact_c_geqrf_submit(rt, &ma, &ma, &o, &factors, &job), &job, &info) == 0 &&
              info == column + 1,
          "%s geqrf with NaN in column %lld, tree %s: info %d (%s)", dn, (long long)column, tree, info,
          starfact_c_error_message());
    int32_t broken = 0;
    const char* reason = NULL;
    CHECK(factors && starfact_c_qr_factors_breakdown(factors, &broken, &reason) == 0 && broken == column + 1 &&
              reason && strstr(reason, "NaN"),
          "%s breakdown %d, reason '%s'", dn, broken, reason ? reason : "(null)");
    zc* c = general(m, 2, dtype);
    void* dc = to_array(c, m, 2, m, dtype, 0);
    void* dq = to_array(a, m, n, m, dtype, 0);
    starfact_c_matrix mc = host(dc, m, 2, m, dtype), mq = host(dq, m, n, m, dtype);
    CHECK(refused(wait_job(starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, STARFACT_C_CONJTRANS, &ma, factors, &mc, &mc,
                                                   &o, &job),
                           &job, &info),
                  "factors", "broke down"),
          "%s ormqr with broken factors: %s", dn, starfact_c_error_message());
    CHECK(refused(wait_job(starfact_c_orgqr_submit(rt, &ma, factors, &mq, &o, &job), &job, &info), "factors",
                  "broke down"),
          "%s orgqr with broken factors: %s", dn, starfact_c_error_message());
    starfact_c_qr_factors_destroy(factors);

    /* gels: the column as info, b (into another array) untouched */
    free(da);
    da = to_array(a, m, n, m, dtype, 0);
    ma.data = da;
    void* dx = to_array(c, m, 2, m, dtype, 0);
    starfact_c_matrix mx = host(dx, m, 2, m, dtype);
    CHECK(wait_job(starfact_c_gels_submit(rt, &ma, NULL, &mc, &mx, &o, &job), &job, &info) == 0 && info == column + 1,
          "%s gels with NaN in column %lld, tree %s: info %d (%s)", dn, (long long)column, tree, info,
          starfact_c_error_message());
    zc* c_after = from_array(dc, m, 2, m, dtype);
    CHECK(memcmp(c_after, c, sizeof(zc) * (size_t)(m * 2)) == 0, "%s gels with info > 0 wrote b", dn);
    free(c_after);
    free(dx);
    free(dq);
    free(dc);
    free(c);
    free(da);
    free(a);
}

/* The tile size of a plan's line (its " nb=" field; -1: none). */
static long long plan_nb(const char* line) {
    const char* at = strstr(line, " nb=");
    long long nb = -1;
    if (at) sscanf(at + 4, "%lld", &nb);
    return nb;
}

/* Refusals naming the argument, the plan of complex QR calls, and a complex geqrf job that waits for a paused
 * runtime. */
static void test_refusals(starfact_c_runtime* rt, int32_t dtype) {
    const int64_t m = 12, n = 5;
    const char* dn = name_of(dtype);
    const int32_t real = is_single(dtype) ? STARFACT_C_FLOAT32 : STARFACT_C_FLOAT64;
    const int32_t other = is_single(dtype) ? STARFACT_C_COMPLEX128 : STARFACT_C_COMPLEX64;
    zc* a = general(m, n, dtype);
    void* da = to_array(a, m, n, m, dtype, 0);
    void* dc = to_array(a, m, n, m, dtype, 0);
    starfact_c_matrix ma = host(da, m, n, m, dtype), mc = host(dc, m, n, m, dtype);
    starfact_c_qr_factors* factors = NULL;
    starfact_c_job* job = NULL;
    int32_t info = -1;
    starfact_c_options o = options("cholqr", 0);
    CHECK(refused(starfact_c_geqrf_submit(rt, &ma, &ma, &o, &factors, &job), "tree", "cholqr") && factors == NULL &&
              job == NULL,
          "%s geqrf with the Cholesky QR: %d %s", dn, starfact_c_error_kind(), starfact_c_error_message());
    CHECK(strstr(starfact_c_error_message(), "starfact::geqrf:") == starfact_c_error_message(),
          "the tree's refusal is geqrf's: %s", starfact_c_error_message());
    o.tree = "cholqr+fallback";
    CHECK(refused(starfact_c_gels_submit(rt, &ma, NULL, &mc, &mc, &o, &job), "tree", "cholqr"),
          "%s gels with the Cholesky QR: %s", dn, starfact_c_error_message());
    o = options(NULL, 0);
    o.variant = "left";
    CHECK(refused(starfact_c_geqrf_submit(rt, &ma, &ma, &o, &factors, &job), "variant", "complex"),
          "%s geqrf, left-looking: %s", dn, starfact_c_error_message());
    starfact_c_matrix real_a = ma, real_c = mc;
    real_a.dtype = real;
    real_c.dtype = real;
    CHECK(refused(starfact_c_geqrf_submit(rt, &ma, &real_a, NULL, &factors, &job), "a_out", "dtype of a"),
          "%s geqrf into a real a_out: %s", dn, starfact_c_error_message());
    CHECK(refused(starfact_c_gels_submit(rt, &ma, NULL, &real_c, &real_c, NULL, &job), "b", "dtype of a"),
          "%s gels with a real b: %s", dn, starfact_c_error_message());
    CHECK(refused(starfact_c_gels_submit(rt, &real_a, NULL, &mc, &mc, NULL, &job), "b", "dtype of a"),
          "a real gels with a %s b: %s", dn, starfact_c_error_message());

    /* the factors of a complex geqrf: Q^T refused, Q and Q^H taken; real or other-precision arrays refused */
    CHECK(wait_job(starfact_c_geqrf_submit(rt, &ma, &ma, NULL, &factors, &job), &job, &info) == 0 && info == 0,
          "%s geqrf: %s", dn, starfact_c_error_message());
    CHECK(refused(starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, STARFACT_C_TRANS, &ma, factors, &mc, &mc, NULL, &job),
                  "trans", "CONJTRANS") &&
              job == NULL,
          "%s ormqr with STARFACT_C_TRANS: %s", dn, starfact_c_error_message());
    CHECK(refused(starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, 7, &ma, factors, &mc, &mc, NULL, &job), "trans", "7"),
          "%s ormqr with trans 7: %s", dn, starfact_c_error_message());
    CHECK(refused(starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, STARFACT_C_NOTRANS, &ma, factors, &real_c, &real_c,
                                          NULL, &job),
                  "c", "dtype of qr"),
          "%s ormqr with a real c: %s", dn, starfact_c_error_message());
    void* dq = to_array(a, m, n, m, dtype, 0);
    starfact_c_matrix real_q = host(dq, m, n, m, real);
    CHECK(refused(starfact_c_orgqr_submit(rt, &ma, factors, &real_q, NULL, &job), "q_out", "dtype of qr"),
          "%s orgqr into a real q_out: %s", dn, starfact_c_error_message());
    starfact_c_matrix other_a = ma;
    other_a.dtype = other;
    CHECK(refused(starfact_c_orgqr_submit(rt, &other_a, factors, &mc, NULL, &job), "qr", "dtype of factors"),
          "%s factors with a %s qr: %s", dn, name_of(other), starfact_c_error_message());
    CHECK(refused(starfact_c_orgqr_submit(rt, &real_a, factors, &real_q, NULL, &job), "qr", "dtype of factors"),
          "%s factors with a real qr: %s", dn, starfact_c_error_message());
    starfact_c_qr_info qi;
    CHECK(starfact_c_qr_factors_info(factors, &qi) == 0 && qi.dtype == dtype && qi.ready == 1,
          "%s factors' info: dtype %d", dn, qi.dtype);
    starfact_c_qr_factors_destroy(factors);

    /* the plan: the real QR's tiles, a Householder tree, the complex element */
    starfact_c_machine gpu = {8, 4, 1};
    char line[512], real_line[512];
    starfact_c_matrix tall = {da, 100000, 64, 100000, dtype, STARFACT_C_HOST};
    starfact_c_matrix tall_b = {da, 100000, 2, 100000, dtype, STARFACT_C_HOST};
    const char* element = is_single(dtype) ? "element=c64" : "element=c128";
    CHECK(starfact_c_plan(NULL, &gpu, "geqrf", &tall, NULL, NULL, NULL, line, sizeof line) == 0 &&
              strstr(line, element) && strstr(line, "tree=") && !strstr(line, "cholqr"),
          "%s geqrf's plan: %s (%s)", dn, line, starfact_c_error_message());
    CHECK(starfact_c_plan(NULL, &gpu, "gels", &tall, &tall_b, NULL, NULL, line, sizeof line) == 0 &&
              strstr(line, element) && !strstr(line, "cholqr"),
          "%s gels's plan: %s (%s)", dn, line, starfact_c_error_message());
    starfact_c_matrix square = {da, 3000, 3000, 3000, dtype, STARFACT_C_HOST}, real_square = square;
    real_square.dtype = real;
    CHECK(starfact_c_plan(NULL, &gpu, "geqrf", &square, NULL, NULL, NULL, line, sizeof line) == 0 &&
              starfact_c_plan(NULL, &gpu, "geqrf", &real_square, NULL, NULL, NULL, real_line, sizeof real_line) == 0 &&
              plan_nb(line) > 0 && plan_nb(line) == plan_nb(real_line),
          "%s geqrf's plan of a square matrix, the real type's tiles: %s (real: %s)", dn, line, real_line);
    o = options("cholqr", 0);
    CHECK(refused(starfact_c_plan(NULL, &gpu, "geqrf", &tall, NULL, &o, NULL, line, sizeof line), "tree", "cholqr"),
          "%s geqrf's plan with the Cholesky QR: %s", dn, starfact_c_error_message());

    /* a complex geqrf returns once its tasks are submitted: pending until the runtime resumes */
    int32_t done = 1;
    CHECK(starfact_c_runtime_pause(rt) == 0, "pause: %s", starfact_c_error_message());
    CHECK(starfact_c_geqrf_submit(rt, &ma, &mc, NULL, &factors, &job) == 0 && starfact_c_job_done(job, &done) == 0 &&
              done == 0,
          "%s geqrf submitted while paused is pending: done %d (%s)", dn, done, starfact_c_error_message());
    CHECK(starfact_c_runtime_resume(rt) == 0, "resume: %s", starfact_c_error_message());
    info = -1;
    CHECK(job && starfact_c_job_wait(job, &info) == 0 && info == 0, "%s paused geqrf's wait: info %d", dn, info);
    starfact_c_job_destroy(job);
    starfact_c_qr_factors_destroy(factors);
    free(dq);
    free(dc);
    free(da);
    free(a);
}

int main(void) {
    starfact_c_runtime* rt = check_start(2);
    if (!rt) return 1;
    const int32_t dtypes[] = {STARFACT_C_COMPLEX64, STARFACT_C_COMPLEX128};
    /* tall, square, wide; n = 1; n < nb (the plan's tiles, and 16); n % nb != 0 */
    const struct {
        int64_t m, n, nb;
        const char* tree;
    } shapes[] = {{1, 1, 0, NULL},     {40, 1, 16, "flat"},  {1, 9, 0, NULL},         {13, 9, 16, "binary"},
                  {50, 30, 16, "flat"}, {37, 37, 16, "auto"}, {20, 45, 16, "binary"}, {90, 21, 8, "domains=2"},
                  {64, 40, 16, "panel"}, {33, 33, 8, "domains=3"}, {120, 37, 0, NULL}};
    for (int d = 0; d < 2; ++d) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
            test_factors(rt, dtypes[d], shapes[s].m, shapes[s].n, shapes[s].nb, shapes[s].tree);
            test_gels(rt, dtypes[d], shapes[s].m, shapes[s].n, shapes[s].nb, shapes[s].tree);
        }
        test_breakdown(rt, dtypes[d], "flat");
        test_breakdown(rt, dtypes[d], "binary");
        test_refusals(rt, dtypes[d]);
    }
    return check_finish("test_capi_qr_complex", rt);
}

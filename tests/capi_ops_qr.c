/* test_capi's QR (tests/test_capi.c has main): geqrf into a separate output and its factors handle, orgqr, ormqr
 * from both sides, gels in place on tall matrices with each tree; on wide matrices Q R = a and gels' minimum-norm
 * solution; the info of a rank-deficient gels and the QR functions' errors naming the argument. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/capi_ops.h"

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
void test_qr(starfact_c_runtime* rt, int32_t dtype, int64_t m, int64_t n, int64_t nb, const char* tree) {
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
void test_qr_wide(starfact_c_runtime* rt, int32_t dtype, int64_t m, int64_t n, int64_t nb, const char* tree) {
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
void test_qr_failures(starfact_c_runtime* rt) {
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
        {starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, 3, &mg, factors, &mb, NULL, &opts, &job), "trans", "bad trans"},
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
            case 9: status = starfact_c_ormqr_submit(rt, STARFACT_C_LEFT, 3, &mg, factors, &mb, NULL, &opts, &job); break;
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

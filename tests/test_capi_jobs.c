/* Jobs of the C ABI waited for from several threads at once (ctest capi.jobs, label cpu): every waiter blocks until
 * the tasks and the copies are done and gets the same info (and report), the outputs hold the result when any wait
 * returns, and starfact_c_job_done says 1 only when a wait returns the final result at once. The jobs are large
 * enough (hundreds of tasks) that the waiters start while the tasks run. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <pthread.h>

#include "tests/capi_check.h"

enum { WAITERS = 4 };

/* One job and what its waiters check. */
typedef struct {
    starfact_c_job* job;
    const double* a;   /* the n x n input, column-major */
    const double* out; /* the array the job writes: potrf's factor (lower triangle), or posv's x (n x nrhs) */
    const double* b;   /* posv: the right-hand sides */
    int64_t n, nrhs;
    int posv;          /* 0: potrf into `out`; 1: posv with a refinement, x into `out` */
    pthread_barrier_t start;
} Shared;

/* What one thread saw. */
typedef struct {
    Shared* s;
    int poll;          /* 1: polls starfact_c_job_done until it says 1, then waits */
    int status;
    int32_t info, done;
    double residual;   /* of the output as the thread found it right after its wait */
    starfact_c_solve_report report;
    char message[256];
} Waiter;

static double norm1(const double* a, int64_t rows, int64_t cols, int64_t ld) {
    double m = 0;
    for (int64_t j = 0; j < cols; ++j) {
        double s = 0;
        for (int64_t i = 0; i < rows; ++i) s += fabs(a[i + j * ld]);
        if (s > m) m = s;
    }
    return m;
}

/* ||A - L L^T||_1 / (||A||_1 n eps), L the lower triangle of f (both n x n, ld n). */
static double cholesky_residual(const double* a, const double* f, int64_t n) {
    double* r = malloc(sizeof(double) * (size_t)(n * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            const int64_t lo = i < j ? i : j;
            double s = a[i + j * n];
            for (int64_t k = 0; k <= lo; ++k) s -= f[i + k * n] * f[j + k * n];
            r[i + j * n] = s;
        }
    const double res = norm1(r, n, n, n) / (norm1(a, n, n, n) * (double)n * DBL_EPSILON);
    free(r);
    return res;
}

/* ||A X - B||_1 / (||A||_1 ||X||_1 n eps). */
static double solve_residual(const double* a, const double* x, const double* b, int64_t n, int64_t nrhs) {
    double* r = malloc(sizeof(double) * (size_t)(n * nrhs));
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = 0; i < n; ++i) {
            double s = -b[i + j * n];
            for (int64_t k = 0; k < n; ++k) s += a[i + k * n] * x[k + j * n];
            r[i + j * n] = s;
        }
    const double res = norm1(r, n, nrhs, n) / (norm1(a, n, n, n) * norm1(x, n, nrhs, n) * (double)n * DBL_EPSILON);
    free(r);
    return res;
}

/* ||A v - L (L^T v)||_1 / (||A||_1 ||v||_1 n eps) for v = (1, -1, 1, ...): O(n^2), so that every waiter checks the
 * factor it finds the moment its wait returns. */
static double factor_probe(const double* a, const double* f, int64_t n) {
    double* w = calloc((size_t)n, sizeof(double));
    double* r = calloc((size_t)n, sizeof(double));
    for (int64_t k = 0; k < n; ++k) /* w = L^T v */
        for (int64_t i = k; i < n; ++i) w[k] += f[i + k * n] * ((i & 1) ? -1.0 : 1.0);
    for (int64_t k = 0; k < n; ++k) /* r = A v - L w */
        for (int64_t i = 0; i < n; ++i)
            r[i] += a[i + k * n] * ((k & 1) ? -1.0 : 1.0) - (i >= k ? f[i + k * n] * w[k] : 0);
    const double res = norm1(r, n, 1, n) / (norm1(a, n, n, n) * (double)n * (double)n * DBL_EPSILON);
    free(w);
    free(r);
    return res;
}

static void* waiter(void* arg) {
    Waiter* w = arg;
    Shared* s = w->s;
    pthread_barrier_wait(&s->start);
    if (w->poll) {
        const struct timespec pause = {0, 200000};
        for (int32_t done = 0; done == 0;) {
            if (starfact_c_job_done(s->job, &done) != STARFACT_C_OK) break;
            if (!done) nanosleep(&pause, NULL);
        }
    }
    w->status = starfact_c_job_wait(s->job, &w->info);
    snprintf(w->message, sizeof w->message, "%s", w->status ? starfact_c_error_message() : "");
    if (w->status == STARFACT_C_OK) {
        w->residual = s->posv ? solve_residual(s->a, s->out, s->b, s->n, s->nrhs) : factor_probe(s->a, s->out, s->n);
        if (s->posv && starfact_c_job_report(s->job, &w->report) != STARFACT_C_OK) w->residual = INFINITY;
    }
    if (starfact_c_job_done(s->job, &w->done) != STARFACT_C_OK) w->done = -1;
    return NULL;
}

/* Submits nothing: waits for s->job from WAITERS threads (the last of them polling job_done first), checks what each
 * saw, and frees the job. */
static void wait_from_threads(Shared* s, int32_t expected, const char* what) {
    Waiter w[WAITERS];
    pthread_t threads[WAITERS];
    pthread_barrier_init(&s->start, NULL, WAITERS);
    for (int t = 0; t < WAITERS; ++t) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].s = s;
        w[t].poll = t == WAITERS - 1;
        w[t].info = -1;
        pthread_create(&threads[t], NULL, waiter, &w[t]);
    }
    for (int t = 0; t < WAITERS; ++t) pthread_join(threads[t], NULL);
    pthread_barrier_destroy(&s->start);
    for (int t = 0; t < WAITERS; ++t) {
        CHECK(w[t].status == STARFACT_C_OK, "%s: waiter %d: status %d (%s)", what, t, w[t].status, w[t].message);
        CHECK(w[t].info == expected, "%s: waiter %d%s got info %d (expected %d)", what, t,
              w[t].poll ? " (after job_done said 1)" : "", w[t].info, expected);
        CHECK(w[t].done == 1, "%s: waiter %d: job_done after the wait says %d", what, t, w[t].done);
        if (expected == 0)
            CHECK(w[t].residual < 60, "%s: waiter %d%s found a residual of %g when its wait returned", what, t,
                  w[t].poll ? " (after job_done said 1)" : "", w[t].residual);
        if (s->posv)
            CHECK(strcmp(w[t].report.path, w[0].report.path) == 0 && w[t].report.iterations == w[0].report.iterations &&
                      w[t].report.backward_error == w[0].report.backward_error,
                  "%s: waiter %d got the report (%s, %d, %g), waiter 0 (%s, %d, %g)", what, t, w[t].report.path,
                  w[t].report.iterations, w[t].report.backward_error, w[0].report.path, w[0].report.iterations,
                  w[0].report.backward_error);
    }
    int32_t info = -1, done = -1;
    CHECK(starfact_c_job_wait(s->job, &info) == STARFACT_C_OK && info == expected, "%s: a later wait: info %d", what,
          info);
    CHECK(starfact_c_job_done(s->job, &done) == STARFACT_C_OK && done == 1, "%s: job_done at the end: %d", what, done);
    starfact_c_job_destroy(s->job);
    s->job = NULL;
}

/* A symmetric matrix, entries uniform in [-0.5, 0.5], plus n on the diagonal (SPD); `bad` > 0: its diagonal entry
 * `bad` (1-based) is -1, so that the leading minor of that order is not positive definite. */
static double* spd(int64_t n, int64_t bad) {
    double* a = malloc(sizeof(double) * (size_t)(n * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= j; ++i) a[i + j * n] = a[j + i * n] = check_uniform();
    for (int64_t j = 0; j < n; ++j) a[j + j * n] += (double)n;
    if (bad > 0) a[(bad - 1) + (bad - 1) * n] = -1.0;
    return a;
}

/* potrf of an n x n matrix into a separate output, waited for from several threads: info 0 (SPD) or k. */
static void test_potrf_waiters(starfact_c_runtime* rt, int64_t n, int64_t bad) {
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = 40; /* hundreds of tasks: the waiters start while they run */
    opts.mapping = "cpu-only";
    double* a = spd(n, bad);
    double* out = calloc((size_t)(n * n), sizeof(double));
    starfact_c_matrix in = {a, n, n, n, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_matrix mo = {out, n, n, n, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    Shared s;
    memset(&s, 0, sizeof s);
    s.a = a;
    s.out = out;
    s.n = n;
    const int status = starfact_c_potrf_submit(rt, &in, &mo, &opts, &s.job);
    CHECK(status == STARFACT_C_OK, "potrf submit: %s", starfact_c_error_message());
    if (status == STARFACT_C_OK) {
        char what[64];
        snprintf(what, sizeof what, "potrf n=%lld%s", (long long)n, bad ? " (not SPD)" : "");
        wait_from_threads(&s, (int32_t)bad, what);
        if (!bad) CHECK(cholesky_residual(a, out, n) < 60, "%s: factor residual", what);
    }
    free(out);
    free(a);
}

/* The mixed-precision posv (a report), waited for from several threads: the same info and report for all. */
static void test_posv_waiters(starfact_c_runtime* rt, int64_t n) {
    const int64_t nrhs = 2;
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.nb = 32;
    opts.mapping = "cpu-only";
    opts.factor = "fp32";
    starfact_c_refinement refine;
    starfact_c_refinement_init(&refine);
    double* a = spd(n, 0);
    double* b = malloc(sizeof(double) * (size_t)(n * nrhs));
    for (int64_t i = 0; i < n * nrhs; ++i) b[i] = check_uniform();
    double* x = malloc(sizeof(double) * (size_t)(n * nrhs));
    memcpy(x, b, sizeof(double) * (size_t)(n * nrhs));
    starfact_c_matrix ma = {a, n, n, n, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_matrix mx = {x, n, nrhs, n, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    Shared s;
    memset(&s, 0, sizeof s);
    s.a = a;
    s.out = x;
    s.b = b;
    s.n = n;
    s.nrhs = nrhs;
    s.posv = 1;
    const int status = starfact_c_posv_submit(rt, &ma, NULL, &mx, &mx, &opts, &refine, &s.job);
    CHECK(status == STARFACT_C_OK, "mixed posv submit: %s", starfact_c_error_message());
    if (status == STARFACT_C_OK) wait_from_threads(&s, 0, "mixed posv");
    free(x);
    free(b);
    free(a);
}

int main(void) {
    starfact_c_runtime* rt = check_start(2);
    if (!rt) return 1;
    const int64_t n = 1000;
    test_potrf_waiters(rt, n, 0);
    test_potrf_waiters(rt, n, n - 5);
    test_posv_waiters(rt, 600);
    return check_finish("capi.jobs", rt);
}

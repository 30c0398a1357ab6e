/* The C ABI's errors in the C ABI's terms (ctest capi.names, label cpu): a bad argument of a batched call or of the
 * refinement settings is named as starfact_c.h spells it (a, b, lu, ipiv, stride_piv, max_iterations), in
 * starfact_c_error_argument() and in the message, which names the C ABI's function and quotes none of the C++ API's
 * names (lda, strideA, refine.tolerance, batched::posv); and a batch of one member takes any stride, as the C ABI
 * promises, solving it. */
#include <float.h>
#include <math.h>

#include "tests/capi_check.h"

/* The spellings of the C++ API that must not reach a C caller. */
static const char* const cxx_names[] = {"'n'",    "'A'",    "'B'",  "'L'",     "'LU'",    "lda",     "ldb",
                                        "strideA", "strideB", "strideLU", "refine.", "batched::", "async::", "'piv'"};

/* Checks that the failed call (status) named `argument` as the C ABI's `function` does. */
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
    for (size_t i = 0; i < sizeof cxx_names / sizeof cxx_names[0]; ++i)
        CHECK(strstr(message, cxx_names[i]) == NULL, "%s: the message quotes the C++ API's %s: %s", what, cxx_names[i],
              message);
}

static starfact_c_batch batch(void* data, int64_t rows, int64_t cols, int64_t count) {
    starfact_c_batch b = {data, rows, cols, rows > 0 ? rows : 1, rows * cols, count, STARFACT_C_FLOAT64,
                          STARFACT_C_HOST};
    return b;
}

static void test_batched_names(starfact_c_runtime* rt) {
    enum { N = 20 };
    double* a = calloc(129 * 129 * 2, sizeof(double));
    double* b = calloc(129 * 4 * 2, sizeof(double));
    int32_t* ipiv = calloc(129 * 2, sizeof(int32_t));
    int32_t info[2] = {0, 0};
    int64_t failed = 0;
    starfact_c_options opts;
    starfact_c_options_init(&opts);

    starfact_c_batch big = batch(a, 129, 129, 2), rhs = batch(b, 129, 4, 2);
    expect(starfact_c_batched_posv(rt, &big, &rhs, info, &opts, &failed), "batched_posv", "a", "posv order 129");
    expect(starfact_c_batched_posv(rt, &big, NULL, info, &opts, &failed), "batched_posv", "a", "potrf order 129");
    starfact_c_batch lu33 = batch(a, 33, 33, 2), rhs33 = batch(b, 33, 4, 2);
    expect(starfact_c_batched_gesv(rt, &lu33, ipiv, 33, &rhs33, info, &opts, &failed), "batched_gesv", "a",
           "gesv order 33");
    expect(starfact_c_batched_getrs(rt, &lu33, ipiv, 33, &rhs33, &opts), "batched_getrs", "lu", "getrs order 33");

    starfact_c_batch sq = batch(a, N, N, 2), r = batch(b, N, 2, 2);
    expect(starfact_c_batched_gesv(rt, &sq, NULL, N, &r, info, &opts, &failed), "batched_gesv", "ipiv",
           "gesv without pivots");
    expect(starfact_c_batched_gesv(rt, &sq, ipiv, N - 1, &r, info, &opts, &failed), "batched_gesv", "stride_piv",
           "gesv pivot stride < n");
    expect(starfact_c_batched_getrs(rt, &sq, ipiv, N - 1, &r, &opts), "batched_getrs", "stride_piv",
           "getrs pivot stride < n");
    /* the batched kernels' 32-bit offsets: ld * cols >= 2^31 is refused before any member is touched */
    starfact_c_batch one = batch(a, N, N, 1), wide = batch(b, N, 1 << 12, 1);
    wide.ld = (int64_t)1 << 20;
    expect(starfact_c_batched_posv(rt, &one, &wide, info, &opts, &failed), "batched_posv", "b",
           "b: ld * nrhs >= 2^31");
    starfact_c_batch far = sq;
    far.ld = (int64_t)1 << 27;
    far.stride = far.ld * N;
    expect(starfact_c_batched_posv(rt, &far, NULL, info, &opts, &failed), "batched_posv", "a", "a: ld * n >= 2^31");
    starfact_c_options gpu = opts;
    gpu.mapping = "gpu-only";
    if (starfact_c_has_batched(0))
        expect(starfact_c_batched_posv(rt, &sq, &r, info, &gpu, &failed), "batched_posv", "mapping",
               "gpu-only without a GPU");
    free(a);
    free(b);
    free(ipiv);
}

/* A batch of one member with stride 0 (any stride: it is never used) is solved. */
static void test_single_member(starfact_c_runtime* rt) {
    enum { N = 24, NRHS = 3 };
    if (!starfact_c_has_batched(0) || !starfact_c_has_batched(1)) {
        printf("batched modules not built: single-member batches not run\n");
        return;
    }
    double a[N * N], f[N * N], b[N * NRHS], x[N * NRHS];
    for (int j = 0; j < N; ++j)
        for (int i = 0; i <= j; ++i) a[i + j * N] = a[j + i * N] = check_uniform();
    for (int j = 0; j < N; ++j) a[j + j * N] += N;
    for (int i = 0; i < N * NRHS; ++i) b[i] = check_uniform();
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    for (int lu = 0; lu < 2; ++lu) {
        memcpy(f, a, sizeof a);
        memcpy(x, b, sizeof b);
        starfact_c_batch ma = batch(f, N, N, 1), mb = batch(x, N, NRHS, 1);
        ma.stride = 0;
        mb.stride = 0;
        int32_t info = -1, ipiv[N];
        int64_t failed = -1;
        const int status = lu ? starfact_c_batched_gesv(rt, &ma, ipiv, N, &mb, &info, &opts, &failed)
                              : starfact_c_batched_posv(rt, &ma, &mb, &info, &opts, &failed);
        CHECK(status == STARFACT_C_OK && info == 0 && failed == 0, "%s of one member, stride 0: status %d (%s)",
              lu ? "batched_gesv" : "batched_posv", status, starfact_c_error_message());
        /* ||A X - B||_1 / (||A||_1 ||X||_1 n eps) */
        double rmax = 0, amax = 0, xmax = 0;
        for (int j = 0; j < NRHS; ++j) {
            double rs = 0, xs = 0;
            for (int i = 0; i < N; ++i) {
                double s = -b[i + j * N];
                for (int k = 0; k < N; ++k) s += a[i + k * N] * x[k + j * N];
                rs += fabs(s);
                xs += fabs(x[i + j * N]);
            }
            rmax = rs > rmax ? rs : rmax;
            xmax = xs > xmax ? xs : xmax;
        }
        for (int j = 0; j < N; ++j) {
            double s = 0;
            for (int i = 0; i < N; ++i) s += fabs(a[i + j * N]);
            amax = s > amax ? s : amax;
        }
        const double residual = rmax / (amax * xmax * N * DBL_EPSILON);
        CHECK(residual < 60, "%s of one member: residual %g", lu ? "batched_gesv" : "batched_posv", residual);
    }
}

/* The refinement settings of the mixed-precision posv, named by their fields; potrs' l and getrs' ipiv by theirs;
 * the options' fields as errors of the function called. */
static void test_solve_names(starfact_c_runtime* rt) {
    enum { N = 8 };
    double a[N * N], b[N];
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) a[i + j * N] = i == j ? N : 0.1;
    for (int i = 0; i < N; ++i) b[i] = 1;
    starfact_c_matrix ma = {a, N, N, N, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_matrix mb = {b, N, 1, N, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.factor = "fp32";
    starfact_c_job* job = NULL;
    starfact_c_refinement refine;
    starfact_c_refinement_init(&refine);
    refine.max_iterations = -1;
    expect(starfact_c_posv_submit(rt, &ma, NULL, &mb, &mb, &opts, &refine, &job), "posv", "max_iterations",
           "max_iterations < 0");
    starfact_c_refinement_init(&refine);
    refine.tolerance = NAN;
    expect(starfact_c_posv_submit(rt, &ma, NULL, &mb, &mb, &opts, &refine, &job), "posv", "tolerance",
           "tolerance NaN");
    starfact_c_refinement_init(&refine);
    refine.gmres_restart = 0;
    expect(starfact_c_posv_submit(rt, &ma, NULL, &mb, &mb, &opts, &refine, &job), "posv", "gmres_restart",
           "gmres_restart 0");
    starfact_c_options_init(&opts);
    starfact_c_matrix wrong = ma;
    wrong.dtype = 9;
    expect(starfact_c_potrs_submit(rt, &wrong, &mb, &mb, &opts, &job), "potrs", "l", "potrs l of no dtype");
    int64_t ipiv[N];
    for (int i = 0; i < N; ++i) ipiv[i] = i + 1;
    ipiv[3] = 1;
    expect(starfact_c_getrs_submit(rt, &ma, ipiv, &mb, &mb, &opts, &job), "getrs", "ipiv", "getrs bad pivot");
    expect(starfact_c_getrs_submit(rt, &ma, NULL, &mb, &mb, &opts, &job), "getrs", "ipiv", "getrs without pivots");
    /* the options' strings, parsed by the C++ parsers: errors of the function called */
    opts.variant = "lookahead=-1";
    expect(starfact_c_potrf_submit(rt, &ma, NULL, &opts, &job), "potrf", "variant", "potrf bad variant");
    starfact_c_options_init(&opts);
    opts.tree = "sideways";
    expect(starfact_c_gesv_submit(rt, &ma, NULL, NULL, &mb, &mb, &opts, &job), "gesv", "tree", "gesv bad tree");
}

int main(void) {
    starfact_c_runtime* rt = check_start(2);
    if (!rt) return 1;
    test_batched_names(rt);
    test_single_member(rt);
    test_solve_names(rt);
    return check_finish("capi.names", rt);
}

/* test_capi's batched operations (tests/test_capi.c has main): batched posv with a failing member, batched gesv
 * and getrs against each member's residual, and the error of a getrs whose b has fewer members. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/capi_ops.h"

void test_batched(starfact_c_runtime* rt) {
    const int64_t count = 9, n = 12, nrhs = 2;
    if (!starfact_c_has_batched(0) || !starfact_c_has_batched(1)) {
        fprintf(stderr, "batched modules not built: batched checks skipped\n");
        return;
    }
    double* a = malloc(sizeof(double) * (size_t)(count * n * n));
    double* g = malloc(sizeof(double) * (size_t)(count * n * n));
    double* b = malloc(sizeof(double) * (size_t)(count * n * nrhs));
    for (int64_t k = 0; k < count; ++k) {
        double* s = matrix(n, n, 1);
        double* t = matrix(n, n, 0);
        double* r = matrix(n, nrhs, 0);
        memcpy(a + k * n * n, s, sizeof(double) * (size_t)(n * n));
        memcpy(g + k * n * n, t, sizeof(double) * (size_t)(n * n));
        memcpy(b + k * n * nrhs, r, sizeof(double) * (size_t)(n * nrhs));
        free(s);
        free(t);
        free(r);
    }
    a[3 * n * n + 4 + 4 * n] = -1; /* member 3 fails at column 5 */
    double* af = malloc(sizeof(double) * (size_t)(count * n * n));
    double* x = malloc(sizeof(double) * (size_t)(count * n * nrhs));
    memcpy(af, a, sizeof(double) * (size_t)(count * n * n));
    memcpy(x, b, sizeof(double) * (size_t)(count * n * nrhs));
    starfact_c_batch ba = {af, n, n, n, n * n, count, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    starfact_c_batch bb = {x, n, nrhs, n, n * nrhs, count, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    int32_t info[9];
    int64_t failed = -1;
    starfact_c_options opts;
    starfact_c_options_init(&opts);
    opts.chunk = 4;
    CHECK(starfact_c_batched_posv(rt, &ba, &bb, info, &opts, &failed) == 0, "batched posv: %s",
          starfact_c_error_message());
    CHECK(failed == 1 && info[3] == 5, "batched posv failures %lld, info[3] %d", (long long)failed, info[3]);
    for (int64_t k = 0; k < count; ++k) {
        if (k == 3) continue;
        CHECK(solve_residual(a + k * n * n, x + k * n * nrhs, b + k * n * nrhs, n, nrhs, DBL_EPSILON) < 60,
              "batched posv member %lld", (long long)k);
    }
    memcpy(af, g, sizeof(double) * (size_t)(count * n * n));
    memcpy(x, b, sizeof(double) * (size_t)(count * n * nrhs));
    int32_t* ipiv = malloc(sizeof(int32_t) * (size_t)(count * n));
    CHECK(starfact_c_batched_gesv(rt, &ba, ipiv, n, NULL, info, &opts, &failed) == 0 && failed == 0,
          "batched getrf: %s", starfact_c_error_message());
    CHECK(starfact_c_batched_getrs(rt, &ba, ipiv, n, &bb, &opts) == 0, "batched getrs: %s", starfact_c_error_message());
    for (int64_t k = 0; k < count; ++k)
        CHECK(solve_residual(g + k * n * n, x + k * n * nrhs, b + k * n * nrhs, n, nrhs, DBL_EPSILON) < 60,
              "batched getrs member %lld", (long long)k);
    bb.count = count - 1;
    CHECK(starfact_c_batched_getrs(rt, &ba, ipiv, n, &bb, &opts) == STARFACT_C_INVALID_ARGUMENT &&
              strcmp(starfact_c_error_argument(), "b") == 0,
          "batched getrs with fewer members in b names %s", starfact_c_error_argument());
    free(ipiv);
    free(a);
    free(g);
    free(b);
    free(af);
    free(x);
}

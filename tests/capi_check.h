/* What the small C programs testing the C ABI share (test_capi_jobs.c, test_capi_names.c, test_capi_plan.c,
 * test_capi_logdet.c, and through capi_complex.h the complex ones): the CHECK macro and its count of failures, a seeded
 * generator of fresh inputs (STARFACT_TEST_SEED=N replays a run), a runtime of CPU workers, the wait for a job, the
 * test of a refusal, and the end of main. Header-only: each program includes it once. */
#ifndef STARFACT_TESTS_CAPI_CHECK_H
#define STARFACT_TESTS_CAPI_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capi/starfact_c.h"

static int check_failures = 0;
static unsigned long long check_rng = 88172645463325252ull;

#define CHECK(cond, ...)                                           \
    do {                                                           \
        if (!(cond)) {                                             \
            ++check_failures;                                      \
            fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                          \
            fprintf(stderr, "\n");                                 \
        }                                                          \
    } while (0)

/* xorshift64: entries uniform in [-0.5, 0.5]. Not thread-safe: draw inputs before starting threads. */
static inline double check_uniform(void) {
    check_rng ^= check_rng << 13;
    check_rng ^= check_rng >> 7;
    check_rng ^= check_rng << 17;
    return (double)(check_rng >> 11) / 9007199254740992.0 - 0.5;
}

/* Seeds the generator (fresh each run unless STARFACT_TEST_SEED is set; the seed is printed) and starts a runtime of
 * `ncpus` CPU workers and no GPU; NULL (with the message printed) when it cannot start. */
static starfact_c_runtime* check_start(int32_t ncpus) {
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
    check_rng ^= (seed + 1) * 0x9E3779B97F4A7C15ull;
    printf("seed: %llu (STARFACT_TEST_SEED=%llu replays this run)\n", seed, seed);
    starfact_c_runtime_config config;
    starfact_c_runtime_config_init(&config);
    config.ncpus = ncpus;
    config.ncuda = 0;
    starfact_c_runtime* rt = NULL;
    if (starfact_c_runtime_create(&config, &rt) != STARFACT_C_OK) {
        fprintf(stderr, "runtime: %s\n", starfact_c_error_message());
        return NULL;
    }
    return rt;
}

/* Waits for and destroys the job that a call returning `status` started (none when it failed); its status, the job's
 * LAPACK-style info in *info. */
static inline int wait_job(int status, starfact_c_job** job, int32_t* info) {
    if (status != STARFACT_C_OK) return status;
    status = starfact_c_job_wait(*job, info);
    starfact_c_job_destroy(*job);
    *job = NULL;
    return status;
}

/* Whether `status` is STARFACT_C_INVALID_ARGUMENT naming `argument`, the message holding `text`. */
static inline int refused(int status, const char* argument, const char* text) {
    return status == STARFACT_C_INVALID_ARGUMENT && strcmp(starfact_c_error_argument(), argument) == 0 &&
           strstr(starfact_c_error_message(), text) != NULL;
}

/* Stops the runtime and returns main's exit status (0 when every check held). */
static int check_finish(const char* name, starfact_c_runtime* rt) {
    CHECK(starfact_c_runtime_destroy(rt) == STARFACT_C_OK, "runtime destroy: %s", starfact_c_error_message());
    if (check_failures) fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else printf("%s: every check passed\n", name);
    return check_failures ? 1 : 0;
}

#endif /* STARFACT_TESTS_CAPI_CHECK_H */

/* The C ABI's door to the plan: every row of tests/plan_table.txt (the planning entry's plans, written and checked by
 * tests/test_plan.cpp through the C++ doors), asked through starfact_c_plan from C on a described machine, gives the
 * same line; the runtime's own machine plans too; bad arguments name themselves. Usage: test_capi_plan TABLE. */
#include "tests/capi_check.h"

/* The value of `key=` in a plan line, copied into out (len bytes). */
static int field(const char* line, const char* key, char* out, size_t len) {
    char pattern[32];
    snprintf(pattern, sizeof pattern, " %s=", key);
    const char* at = strncmp(line, pattern + 1, strlen(pattern) - 1) == 0 ? line - 1 : strstr(line, pattern);
    if (!at) return 0;
    at += strlen(pattern);
    size_t k = 0;
    while (at[k] && at[k] != ' ' && k + 1 < len) {
        out[k] = at[k];
        ++k;
    }
    out[k] = '\0';
    return 1;
}

static int solves(const char* op) {
    return !strcmp(op, "potrs") || !strcmp(op, "posv") || !strcmp(op, "getrs") || !strcmp(op, "gesv") ||
           !strcmp(op, "gels");
}

/* Whether a and b differ only by "diag=cusolver" in a where b has "diag=fused". */
static int same_but_diag(const char* a, const char* b) {
    const char* da = strstr(a, "diag=cusolver");
    const char* db = strstr(b, "diag=fused");
    if (!da || !db || da - a != db - b || strncmp(a, b, (size_t)(da - a)) != 0) return 0;
    return strcmp(da + strlen("diag=cusolver"), db + strlen("diag=fused")) == 0;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_capi_plan TABLE\n");
        return 2;
    }
    FILE* table = fopen(argv[1], "r");
    if (!table) {
        fprintf(stderr, "cannot open %s\n", argv[1]);
        return 2;
    }
    starfact_c_runtime* rt = check_start(2);
    if (!rt) return 1;
    static char line[1024], got[1024];
    double dummy = 0;
    int rows = 0;
    while (fgets(line, sizeof line, table)) {
        line[strcspn(line, "\n")] = '\0';
        starfact_c_machine machine;
        char factor[16], op[16], element[16], mapping[16], residency[16], m[24], n[24], nrhs[24];
        int used = 0;
        if (sscanf(line, "%d,%d,%d %15s %n", &machine.cpu_workers, &machine.cuda_workers, &machine.cuda_devices,
                   factor, &used) != 4 || used == 0) {
            CHECK(0, "unreadable row %d: %s", rows + 1, line);
            continue;
        }
        const char* plan = line + used;
        if (!field(plan, "op", op, sizeof op) || !field(plan, "element", element, sizeof element) ||
            !field(plan, "m", m, sizeof m) || !field(plan, "n", n, sizeof n) || !field(plan, "nrhs", nrhs, sizeof nrhs) ||
            !field(plan, "mapping", mapping, sizeof mapping) || !field(plan, "residency", residency, sizeof residency)) {
            CHECK(0, "row %d lacks a field: %s", rows + 1, plan);
            continue;
        }
        const int32_t dtype = strcmp(element, "fp32") == 0 ? STARFACT_C_FLOAT32 : STARFACT_C_FLOAT64;
        const int64_t rows_a = atoll(m), cols_a = atoll(n), k = atoll(nrhs);
        starfact_c_matrix a = {&dummy, rows_a, cols_a, rows_a > 0 ? rows_a : 1, dtype, STARFACT_C_HOST};
        const int64_t rows_b = strcmp(op, "gels") == 0 && cols_a > rows_a ? cols_a : rows_a;
        starfact_c_matrix b = {&dummy, rows_b, k, rows_b > 0 ? rows_b : 1, dtype, STARFACT_C_HOST};
        starfact_c_options options;
        starfact_c_options_init(&options);
        options.mapping = mapping;
        if (strcmp(factor, "native") != 0) options.factor = factor;
        if (strcmp(residency, "device") == 0) options.residency = "device";
        const int status = starfact_c_plan(NULL, &machine, op, &a, solves(op) ? &b : NULL, &options, NULL, got,
                                           sizeof got);
        CHECK(status == STARFACT_C_OK, "row %d: %s", rows + 1, starfact_c_error_message());
        /* The table is a CUDA build's: a build without the fused potf2 kernel plans cuSOLVER for the diagonal
         * tiles, the one field that may differ. */
        CHECK(status != STARFACT_C_OK || strcmp(got, plan) == 0 || same_but_diag(got, plan),
              "row %d:\n  table: %s\n  C ABI: %s", rows + 1, plan, got);
        ++rows;
    }
    fclose(table);
    CHECK(rows > 1000, "the table has %d rows", rows);

    /* the runtime's machine: CPU workers only, so 256 tiles for a potrf of order 1000 */
    starfact_c_matrix a = {&dummy, 1000, 1000, 1000, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    CHECK(starfact_c_plan(rt, NULL, "potrf", &a, NULL, NULL, NULL, got, sizeof got) == STARFACT_C_OK &&
              strstr(got, " nb=256 ") != NULL,
          "runtime plan: %s %s", got, starfact_c_error_message());
    /* a short buffer gets the line's start, terminated */
    char small[8];
    CHECK(starfact_c_plan(rt, NULL, "potrf", &a, NULL, NULL, NULL, small, sizeof small) == STARFACT_C_OK &&
              strcmp(small, "op=potr") == 0,
          "short buffer: '%s'", small);
    /* bad arguments name themselves */
    CHECK(starfact_c_plan(rt, NULL, "lu", &a, NULL, NULL, NULL, got, sizeof got) == STARFACT_C_INVALID_ARGUMENT &&
              strcmp(starfact_c_error_argument(), "op") == 0,
          "op: %s", starfact_c_error_message());
    CHECK(starfact_c_plan(rt, NULL, "posv", &a, NULL, NULL, NULL, got, sizeof got) == STARFACT_C_INVALID_ARGUMENT &&
              strcmp(starfact_c_error_argument(), "b") == 0,
          "b: %s", starfact_c_error_message());
    starfact_c_matrix wide = {&dummy, 10, 20, 10, STARFACT_C_FLOAT64, STARFACT_C_HOST};
    CHECK(starfact_c_plan(rt, NULL, "potrf", &wide, NULL, NULL, NULL, got, sizeof got) == STARFACT_C_INVALID_ARGUMENT &&
              strcmp(starfact_c_error_argument(), "a") == 0,
          "a: %s", starfact_c_error_message());
    starfact_c_options bad;
    starfact_c_options_init(&bad);
    bad.nb = -3;
    CHECK(starfact_c_plan(rt, NULL, "potrf", &a, NULL, &bad, NULL, got, sizeof got) == STARFACT_C_INVALID_ARGUMENT &&
              strcmp(starfact_c_error_argument(), "nb") == 0,
          "nb: %s", starfact_c_error_message());
    CHECK(starfact_c_plan(NULL, NULL, "potrf", &a, NULL, NULL, NULL, got, sizeof got) != STARFACT_C_OK,
          "no runtime and no machine");
    return check_finish("test_capi_plan", rt);
}

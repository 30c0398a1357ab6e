/* starfact's C ABI: plain C functions over the C++ API (include/starfact/), for bindings that cannot use C++
 * (the Python package python/starfact/ calls it through ctypes). No exception crosses it: every function returns
 * a status, STARFACT_C_OK or the kind of the error, and leaves the error's message and the name of the offending
 * argument in thread-local storage (starfact_c_error_message(), starfact_c_error_argument()).
 *
 * Matrices are column-major: starfact_c_matrix gives a pointer, the shape, the leading dimension and where the
 * memory lives (host, or a CUDA device in a CUDA build). The operations run as the C++ submit forms do: each
 * *_submit makes its arrays tiles, submits the task graph and returns a job at once; starfact_c_job_wait() waits
 * for it, puts the results into the output arrays and gives the LAPACK info. An input and its output may be the
 * same array (in place) or two (the input is then only read), and an output may be absent (NULL data) when the
 * caller does not want it. Every function may be called from several threads at once, on one runtime.
 *
 * Copies: host arrays on host-resident tiles are viewed where they lie (StarPU moves their tiles to the workers):
 * an input only read, and an array written in place, are not copied; an input whose result goes to another output
 * array is copied into that output once, at submission, and computed there. An input written by the operation
 * without an output (the factor of posv's a when a_out is absent) is copied once into tiles of starfact's own. Device
 * arrays, and options->residency "device", take device-resident tiles of starfact's own: one device-to-device copy
 * in, and one out into the output at the wait. Until the wait returns, the arrays belong to the job: the caller must
 * neither read nor write them (a viewed output holds the result from then on, also when the job is destroyed
 * without a wait; an output written in place is then written even when info > 0). A written array whose memory
 * overlaps another argument's is copied rather than viewed. starfact_c_copy_counters() counts the copies. */
#ifndef STARFACT_C_H
#define STARFACT_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Version of this interface: changes whenever a struct or a signature below changes. */
#define STARFACT_C_ABI_VERSION 6

/** Status of a call. */
enum starfact_c_status {
    STARFACT_C_OK = 0,
    STARFACT_C_INVALID_ARGUMENT = 1, /**< a bad argument; starfact_c_error_argument() names it */
    STARFACT_C_RUNTIME_ERROR = 2,    /**< StarPU, CUDA, lifetimes, a matrix that does not fit in memory */
    STARFACT_C_OUT_OF_MEMORY = 3,    /**< an allocation failed (std::bad_alloc) */
    STARFACT_C_NOT_BUILT = 4,        /**< this build lacks the feature (CUDA, a batched module) */
    STARFACT_C_INTERNAL_ERROR = 5    /**< any other failure */
};

/** Element types. The complex ones are interleaved (real part, then imaginary part: C99's float complex and double
 * complex, C++'s std::complex), in the same column-major matrices with the same leading-dimension rules (ld counts
 * complex entries). potrf, potrs, posv and potri (Hermitian matrices, lower triangle read: A = L L^H), getrf, getrs
 * and gesv, the QR (geqrf, ormqr with Q or Q^H, orgqr, gels; every tree but "cholqr") and the batched ones
 * (batched_posv: Hermitian members) take them, planned as starfact_c_plan says; the other operations (logdet,
 * potrf_logdet) refuse them with STARFACT_C_INVALID_ARGUMENT naming the argument. The mixed-precision solve takes complex128 posv
 * with factor "fp32" or "tf32" (a complex64 factor refined to complex128 accuracy, reported as the real one's); a
 * refinement, or another factor than "native", on complex64, or another lower factor on complex128, is refused naming
 * it. Their *_submit returns once the tasks are submitted, as for real matrices. */
enum starfact_c_dtype {
    STARFACT_C_FLOAT32 = 0,
    STARFACT_C_FLOAT64 = 1,
    STARFACT_C_COMPLEX64 = 2,  /**< two float32 per entry */
    STARFACT_C_COMPLEX128 = 3  /**< two float64 per entry */
};

/** Where a matrix's memory lives: host memory, or the memory of CUDA device `device` (>= 0). */
#define STARFACT_C_HOST (-1)

/** A column-major rows x cols matrix: element (i, j) at data[i + j * ld], ld >= max(1, rows), of any size up to
 * (cols - 1) * ld + rows elements within 2^63 - 1 bytes (beyond: STARFACT_C_INVALID_ARGUMENT naming it). A matrix
 * whose tiles cannot be views (ld * min(nb, cols) >= 2^31: StarPU 1.3 and the kernels address a tile in 32 bits) is
 * copied into the library's tiles and the result back. */
typedef struct starfact_c_matrix {
    void* data;     /**< NULL for an absent output (or an empty matrix) */
    int64_t rows;
    int64_t cols;
    int64_t ld;
    int32_t dtype;  /**< enum starfact_c_dtype */
    int32_t device; /**< STARFACT_C_HOST or a CUDA device ordinal */
} starfact_c_matrix;

/** `count` column-major rows x cols matrices, member k at data + k * stride elements (stride >= ld * cols; each
 * member ld * max(1, cols) < 2^31 elements, the batched kernels' 32-bit offsets; the whole within 2^63 - 1 bytes). */
typedef struct starfact_c_batch {
    void* data;
    int64_t rows;
    int64_t cols;
    int64_t ld;
    int64_t stride;
    int64_t count;
    int32_t dtype;
    int32_t device;
} starfact_c_batch;

/** Algorithm and tiling choices; NULL strings and zeros take the C++ defaults. The strings are parsed by the C++
 * parsers, whose errors name the field (mapping, variant, panel, diag, factor, residency, tree). */
typedef struct starfact_c_options {
    const char* mapping;   /**< "hybrid" (default), "gpu-only", "cpu-only" */
    const char* variant;   /**< "right" (default), "lookahead=D", "left", "left-coarse", "noprio" */
    const char* panel;     /**< "auto", "trsm", "inverse" */
    const char* diag;      /**< "auto", "fused", "cusolver" */
    const char* factor;    /**< "native" (default), "fp64", "fp32", "tf32", "bf16", "fp16", "tf32x3" */
    const char* residency; /**< "host" or "device": where the tiles live; NULL: device when an array argument is in
                                device memory (unless mapping is "cpu-only"), else host */
    int64_t nb;            /**< tile size; 0: the plan's for the operation */
    int64_t chunk;         /**< batched operations: members per task; 0: the family's default */
    const char* tree;      /**< QR (geqrf, gels): the reduction tree, "auto" (default), "flat", "binary",
                                "domains=A", "cholqr" (the Cholesky QR of tall and skinny matrices) or "panel"
                                (blocked Householder QR with whole-panel tasks); "+fallback" after it
                                ("cholqr+fallback") asks for the Householder fall-back of the Cholesky QR
                                (starfact_c_geqrf_submit) */
    int64_t ib;            /**< QR (geqrf, gels): the inner blocking of the CPU kernels, 0..nb; the Cholesky QR's
                                    panel width (below n: its blocked form, docs/qr.md); 0: the plan's */
} starfact_c_options;

/** Stopping rules of the mixed-precision solve (starfact::Refinement); starfact_c_refinement_init fills the
 * C++ defaults. posv checks them, an error naming the field (max_iterations, tolerance, ...). */
typedef struct starfact_c_refinement {
    int32_t max_iterations;
    int32_t gmres_iterations;
    int32_t gmres_restart;
    int32_t fallback;
    double stall_ratio;
    double tolerance;
    double shift;          /**< diagonal shift in units of the factor's unit roundoff; < 0: only on breakdown */
    int32_t shift_retries; /**< shifted factorizations after a breakdown */
    int32_t always_low;    /**< nonzero: factor in the low precision whatever the plan says pays */
    double time_budget;    /**< shifted factorizations and GMRES, in units of the first factorization's time */
    double time_floor;     /**< the budget's floor in seconds */
    double tile_tolerance; /**< per-tile arithmetic (starfact::Refinement::tile_tolerance); 0: off */
} starfact_c_refinement;

/** What a mixed-precision solve did (starfact::SolveReport); names are NUL-terminated. */
typedef struct starfact_c_solve_report {
    char path[16];   /**< "direct", "refined", "gmres", "fallback", "failed" */
    char factor[16]; /**< the precision of the factor the refinement used */
    int32_t iterations;
    int32_t gmres_iterations;
    int32_t low_info;
    int32_t skipped_tasks;  /**< tasks of broken-down low-precision factorizations that did not run (capped) */
    double backward_error;
    double tolerance;
    double seconds;
    double factor_seconds;
    int32_t factorizations; /**< low-precision factorizations run (more than one after breakdowns) */
    int32_t reserved2;
    double shift;           /**< diagonal shift of the last one */
    char reason[256];       /**< why the refined answer was not returned (fallback, failed, the plan's choice) */
    int64_t low_tiles;      /**< per-tile arithmetic: off-diagonal tiles in the factor's arithmetic; -1: not used */
    int64_t off_diagonal_tiles;
} starfact_c_solve_report;

/** How to start the runtime (starfact::RuntimeConfig); starfact_c_runtime_config_init fills the defaults. */
typedef struct starfact_c_runtime_config {
    int32_t ncpus;           /**< -1: StarPU's default */
    int32_t ncuda;           /**< -1: all devices; 0: none */
    int32_t workers_per_gpu; /**< 0: StarPU's default (1); starfact_c_runtime_config_init: the plan's (the
                                  drivers' default, the plan's streams_per_gpu) */
    int32_t calibrate;
    int32_t profiling;
    int32_t warm_up;
    int64_t cuda_memory_limit_mb; /**< -1: no limit */
    const char* scheduler;        /**< NULL or "": dmdas */
    const char* perfmodel_dir;    /**< NULL or "": StarPU's default; starfact_c_runtime_config_init: the drivers'
                                       ($XDG_CACHE_HOME or ~/.cache, /starfact/perfmodels) */
} starfact_c_runtime_config;

/** Counts of a started runtime. */
typedef struct starfact_c_runtime_info {
    int32_t cpu_workers;
    int32_t cuda_workers;
    int32_t cuda_devices;
    int32_t reserved;
} starfact_c_runtime_info;

typedef struct starfact_c_runtime starfact_c_runtime;
typedef struct starfact_c_job starfact_c_job;
/** The T factors of a tile QR (starfact::QRFactors): made by starfact_c_geqrf_submit, read by ormqr and orgqr,
 * freed by starfact_c_qr_factors_destroy. */
typedef struct starfact_c_qr_factors starfact_c_qr_factors;

/** Which side of C the orthogonal (unitary) factor multiplies, and whether it is transposed (ormqr): Q, Q^T or Q^H.
 * Real matrices: STARFACT_C_TRANS and STARFACT_C_CONJTRANS both apply Q^T; complex ones: STARFACT_C_CONJTRANS
 * applies Q^H, and STARFACT_C_TRANS is refused (LAPACK's unmqr takes 'N' and 'C' only). */
enum starfact_c_side { STARFACT_C_LEFT = 0, STARFACT_C_RIGHT = 1 };
enum starfact_c_trans { STARFACT_C_NOTRANS = 0, STARFACT_C_TRANS = 1, STARFACT_C_CONJTRANS = 2 };

/** What a QR's factors are (starfact_c_qr_factors_info). */
typedef struct starfact_c_qr_info {
    int64_t rows;        /**< m of the factored matrix */
    int64_t cols;        /**< n */
    int64_t nb;          /**< its tile size: ormqr and orgqr tile their arrays alike */
    int64_t ib;          /**< the inner blocking in effect (the Cholesky QR: its panels' width) */
    int64_t domain_rows; /**< tile rows per domain of the tree (flat: all of them; binary: 1) */
    int32_t dtype;       /**< enum starfact_c_dtype */
    int32_t ready;       /**< 1 once the geqrf job that made them has been waited for and gave info 0 */
    char tree[32];       /**< the tree asked for: "auto", "flat", "binary", "domains=A", "cholqr", "panel" (followed
                              by "+fallback" when asked) */
} starfact_c_qr_info;

/* ---- errors and build ------------------------------------------------------------------------------------- */

/** The message of the last failed call on this thread ("" if none). Valid until the next call on this thread. */
const char* starfact_c_error_message(void);
/** The argument the last failed call on this thread named ("" if none). */
const char* starfact_c_error_argument(void);
/** The status of the last failed call on this thread. */
int starfact_c_error_kind(void);

/** STARFACT_C_ABI_VERSION of the library. */
int starfact_c_abi_version(void);
/** The library's version, "major.minor.patch". */
const char* starfact_c_version(void);
/** 1 when built with CUDA codelets. */
int starfact_c_built_with_cuda(void);
/** Visible CUDA devices (0 without CUDA); needs no runtime. */
int starfact_c_cuda_device_count(void);
/** 1 when the batched Cholesky (family 0) or the batched LU (family 1) module is built. */
int starfact_c_has_batched(int family);

/* ---- runtime ----------------------------------------------------------------------------------------------- */

void starfact_c_runtime_config_init(starfact_c_runtime_config* config);
/** Starts StarPU (one runtime per process at a time). */
int starfact_c_runtime_create(const starfact_c_runtime_config* config, starfact_c_runtime** runtime);
/** Stops it; waits for every task first. */
int starfact_c_runtime_destroy(starfact_c_runtime* runtime);
int starfact_c_runtime_info_get(const starfact_c_runtime* runtime, starfact_c_runtime_info* info);
/** One line: workers, scheduler, tracing, model directory (valid until the next call on this thread). */
int starfact_c_runtime_describe(const starfact_c_runtime* runtime, const char** text);
/** The scheduling policy in effect (valid until the next call on this thread). */
int starfact_c_runtime_scheduler(const starfact_c_runtime* runtime, const char** text);

/** Puts the workers to sleep once every submitted task has completed (StarPU's idle workers poll, taking the
 * cores from the caller's own work); no task runs until starfact_c_runtime_resume. Pauses and resumes nest. */
int starfact_c_runtime_pause(const starfact_c_runtime* runtime);
int starfact_c_runtime_resume(const starfact_c_runtime* runtime);

/* ---- defaults ---------------------------------------------------------------------------------------------- */

void starfact_c_options_init(starfact_c_options* options);
void starfact_c_refinement_init(starfact_c_refinement* refinement);

/* ---- jobs -------------------------------------------------------------------------------------------------- */

/** Waits for the job's tasks, copies its results into its outputs and sets *info (LAPACK's: 0, or k > 0).
 * Waiting again returns the same info (or the same error). Several threads may wait for one job at once: the first
 * waits for the tasks and copies the results, the others block until it has; every one returns the same info, or
 * the same error status and message. */
int starfact_c_job_wait(starfact_c_job* job, int32_t* info);
/** Whether the job's result is final (never blocks): *done is 1 once a wait returns at once with it, i.e. the job
 * has been waited for, or its tasks have completed and no thread is waiting for it; 0 while the tasks run, and
 * while a waiting thread is still copying the results. */
int starfact_c_job_done(const starfact_c_job* job, int32_t* done);
/** The report of a mixed-precision posv job, after starfact_c_job_wait. */
int starfact_c_job_report(const starfact_c_job* job, starfact_c_solve_report* report);
/** Frees the job (waiting for its tasks if it was not waited for; the outputs of starfact's own tiles are then not
 * written, viewed ones hold what the tasks wrote). No other thread may be using the job (waiting, asking) then. */
void starfact_c_job_destroy(starfact_c_job* job);

/* ---- Cholesky, inverse -------------------------------------------------------------------------------------- */

/** potrf: the lower triangle of a (n x n) factored; the result (lower factor, strictly upper part copied from a)
 * goes to a_out (may be a; NULL data: not wanted). */
/** The machine a plan is made for (starfact::Machine): its CPU workers, CUDA workers and CUDA devices. */
typedef struct starfact_c_machine {
    int32_t cpu_workers;
    int32_t cuda_workers;
    int32_t cuda_devices;
} starfact_c_machine;

/** The plan of a call without running it (starfact::Plan, docs/api.md): op is "potrf", "potrs", "posv", "potri",
 * "getrf", "getrs", "gesv", "geqrf" or "gels"; a the matrix and b the right-hand sides of the solves (NULL
 * otherwise): their shape, dtype and device are read, their data only for being null; options and refinement (may be
 * NULL) as the operation's submit takes them. machine NULL: the runtime's workers, else those (runtime may then be
 * NULL). Writes the plan's one line (key=value pairs, what the drivers print) into buf, NUL-terminated and cut to
 * len bytes (512 hold every plan). The same plan the operation's submit runs. */
int starfact_c_plan(starfact_c_runtime* runtime, const starfact_c_machine* machine, const char* op,
                    const starfact_c_matrix* a, const starfact_c_matrix* b, const starfact_c_options* options,
                    const starfact_c_refinement* refinement, char* buf, size_t len);

int starfact_c_potrf_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                            const starfact_c_options* options, starfact_c_job** job);
/** potrs: solves with the lower factor l (only read) the n x nrhs b; X goes to b_out (may be b). */
int starfact_c_potrs_submit(starfact_c_runtime* runtime, const starfact_c_matrix* l, const starfact_c_matrix* b,
                            const starfact_c_matrix* b_out, const starfact_c_options* options, starfact_c_job** job);
/** posv: potrf then potrs; a's factor goes to a_out and X to b_out (only when info is 0, unless b_out is viewed).
 * With a refinement (not
 * NULL), or a lower options->factor on double matrices (fp32 or tf32 on complex128), it is the solve of mixed.hpp,
 * which reports what it did
 * (starfact_c_job_report): refined as `refinement` says (NULL: the defaults) when the factor is lower than the
 * matrix's precision, direct otherwise; a_out then receives A unchanged after a refined solve, its factor after a direct solve or
 * a fall-back to the double factorization. */
int starfact_c_posv_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                           const starfact_c_matrix* b, const starfact_c_matrix* b_out, const starfact_c_options* options,
                           const starfact_c_refinement* refinement, starfact_c_job** job);
/** potri: the lower triangle of the inverse of the SPD a goes to a_out's lower triangle (complex64, complex128: a
 * Hermitian positive definite, its inverse Hermitian; the diagonal's imaginary parts taken as zero). info k > 0: the
 * leading minor of order k is not positive definite (or holds NaN/Inf). */
int starfact_c_potri_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                            const starfact_c_options* options, starfact_c_job** job);

/* ---- log-determinant ---------------------------------------------------------------------------------------- */

/** logdet: log det A of the symmetric positive definite A = L L^T from its lower Cholesky factor l (n x n, as potrf
 * leaves it; only its diagonal is read): at the wait, *sign_out := 1 and *logabsdet_out := log det A =
 * 2 sum log l(i, i), a sum of logarithms that is right where det A overflows or underflows (det A = sign *
 * exp(logabsdet), as numpy.linalg.slogdet). Both outputs are host doubles and may be NULL. info k > 0: l(k, k) is not
 * a positive finite number; both outputs are then NaN. options: mapping, nb, residency. */
int starfact_c_logdet_submit(starfact_c_runtime* runtime, const starfact_c_matrix* l, const starfact_c_options* options,
                             double* sign_out, double* logabsdet_out, starfact_c_job** job);
/** potrf_logdet: potrf of a, then logdet of its factor, in one task graph; the factor goes to a_out as potrf's does
 * (may be a; NULL data: not wanted, a is then only read). info is potrf's (k > 0: the leading minor of order k is not
 * positive definite or holds NaN/Inf), then logdet's; with info > 0 both outputs are NaN. options as potrf's. */
int starfact_c_potrf_logdet_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a,
                                   const starfact_c_matrix* a_out, const starfact_c_options* options,
                                   double* sign_out, double* logabsdet_out, starfact_c_job** job);

/* ---- LU with partial pivoting ------------------------------------------------------------------------------- */

/** getrf: P a = L U; the factors go to a_out, LAPACK's 1-based pivots to ipiv_out (n host entries; may be NULL). */
int starfact_c_getrf_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                            int64_t* ipiv_out, const starfact_c_options* options, starfact_c_job** job);
/** getrs: solves with getrf's factors lu and 1-based pivots ipiv (n host entries, read during this call). */
int starfact_c_getrs_submit(starfact_c_runtime* runtime, const starfact_c_matrix* lu, const int64_t* ipiv,
                            const starfact_c_matrix* b, const starfact_c_matrix* b_out,
                            const starfact_c_options* options, starfact_c_job** job);
/** gesv: getrf then getrs; X goes to b_out only when info is 0. */
int starfact_c_gesv_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                           int64_t* ipiv_out, const starfact_c_matrix* b, const starfact_c_matrix* b_out,
                           const starfact_c_options* options, starfact_c_job** job);

/* ---- QR, least squares ------------------------------------------------------------------------------------ */

/** geqrf: a (m x n) = Q R (tile Householder QR, docs/qr.md; m < n: R upper trapezoidal, min(m, n) reflectors; a
 * complex a: Q unitary, the factors complex, every tree but "cholqr", refused naming tree). R (upper triangle) and the Householder vectors
 * (below it) go to a_out (may be a; NULL data: not wanted); the T factors to *factors, set at submission: they serve
 * ormqr and orgqr once this job has been waited for with info 0 (with a_out's contents), and are freed with
 * starfact_c_qr_factors_destroy (at any time: the jobs using them keep them alive). info k > 0: the factorization
 * broke down at column k (every tree: a holds NaN or Inf there; the Cholesky QR: a numerically rank deficient, or
 * a^T a overflowing or underflowing): a_out is meaningless, ormqr and orgqr refuse the factors, and
 * starfact_c_qr_factors_breakdown says why. options: nb (0: the plan's,
 * starfact_c_plan), tree, ib, mapping, variant
 * ("right" or "noprio"), residency.
 * A tree with "+fallback" ("cholqr+fallback", "auto+fallback"): when the Cholesky QR breaks down, a is factored again
 * by the plan's Householder tree from its original contents (a copy of a is kept for it: one more matrix of a's size)
 * and the job gives info 0; starfact_c_qr_factors_fallback says whether that happened and why. The fall-back decides
 * on the Cholesky QR's outcome, so such a job runs its factorization when it is waited for, not at submission
 * (gels likewise). */
int starfact_c_geqrf_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                            const starfact_c_options* options, starfact_c_qr_factors** factors,
                            starfact_c_job** job);
/** ormqr: with the m x m Q of geqrf's qr (its a_out, m x n, only read) and factors, side STARFACT_C_LEFT: c (m x nrhs)
 * := op(Q) c, side STARFACT_C_RIGHT: c (nrhs x m) := c op(Q); trans STARFACT_C_NOTRANS (Q), STARFACT_C_TRANS (Q^T,
 * real qr only: refused naming trans for a complex one) or STARFACT_C_CONJTRANS (Q^H; Q^T for a real qr). The result goes to c_out (may be c). options->nb must be 0 or the factors' (tree and ib are theirs). */
int starfact_c_ormqr_submit(starfact_c_runtime* runtime, int32_t side, int32_t trans, const starfact_c_matrix* qr,
                            const starfact_c_qr_factors* factors, const starfact_c_matrix* c,
                            const starfact_c_matrix* c_out, const starfact_c_options* options, starfact_c_job** job);
/** orgqr: q_out (m x min(m, n), required) := the first min(m, n) columns of the Q of geqrf's qr and factors (the
 * thin Q). */
int starfact_c_orgqr_submit(starfact_c_runtime* runtime, const starfact_c_matrix* qr,
                            const starfact_c_qr_factors* factors, const starfact_c_matrix* q_out,
                            const starfact_c_options* options, starfact_c_job** job);
/** gels: for a full-rank a (m x n) and b (max(m, n) x nrhs, as LAPACK's gels), m >= n: least squares
 * min ||a x - b||_2: geqrf, Q^T b and R x = (Q^T b)(0:n) in one task graph (a complex a: Q^H b, and for m < n the QR
 * of a^H, x = Q [R^-H b; 0], a_out holding the factors of a^H conjugate-transposed); a's QR factors go to a_out (may be a; NULL
 * data: not wanted), Q^T b with x in its first n rows (the rows below: the residual's components) to b_out (may be
 * b). m < n: the minimum-norm solution of a x = b (b's first m rows; the rows below are ignored): the QR of a^T,
 * a^T = Q R, x = Q [R^-T b; 0]; a_out gets the factors of a^T transposed (L = R^T on and below the diagonal), b_out
 * x (n rows). a and b are scaled by powers of two first when their largest entries lie outside LAPACK's [smlnum,
 * bignum], as LAPACK's gels does (a_out then holds the scaled a's factors). b_out is written only when info is 0
 * unless it is viewed. info k > 0: R(k, k) (1-based) is exactly zero (a is rank deficient) or not finite (a holds
 * NaN or Inf in column k), or the Cholesky QR broke down at column k (its Gram matrix a^T a numerically singular,
 * overflowing or underflowing; a tree with "+fallback" solves by a Householder tree instead). options as geqrf's. */
int starfact_c_gels_submit(starfact_c_runtime* runtime, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                           const starfact_c_matrix* b, const starfact_c_matrix* b_out, const starfact_c_options* options,
                           starfact_c_job** job);
/** What the factors are; `info` is filled. */
int starfact_c_qr_factors_info(const starfact_c_qr_factors* factors, starfact_c_qr_info* info);
/** Whether the geqrf job that made the factors broke down: *info := its info once it has been waited for (0: it
 * succeeded, or was not waited for yet), *reason (may be NULL) := why, a static NUL-terminated sentence ("" when
 * *info is 0). */
int starfact_c_qr_factors_breakdown(const starfact_c_qr_factors* factors, int32_t* info, const char** reason);
/** Whether the factorization the factors hold is the Householder fall-back's (options->tree with "+fallback"):
 * *fell_back := 1 when the Cholesky QR broke down and a was factored again by a Householder tree, else 0 (also
 * before the geqrf job was waited for); *reason (may be NULL) := the Cholesky QR's breakdown that caused it, a
 * static NUL-terminated sentence ("" when *fell_back is 0). */
int starfact_c_qr_factors_fallback(const starfact_c_qr_factors* factors, int32_t* fell_back, const char** reason);
/** Frees the factors (NULL: nothing); the jobs still using them keep them until they are freed themselves. */
void starfact_c_qr_factors_destroy(starfact_c_qr_factors* factors);

/* ---- batched (blocking; in place) --------------------------------------------------------------------------- */
/* Errors name the arguments below (a, b, lu, ipiv, stride_piv, info, an options field), the message the function
 * without its prefix (batched_posv). The batched kernels address members with 32-bit offsets: ld * max(rows, cols)
 * must be < 2^31 for a and b, and a device batch may hold at most 2^31 - 1 members. */

/* Every dtype: complex members (Hermitian for the Cholesky) run on CPU workers through LAPACKE's c and z routines and
 * on GPUs through the vendor's batched routines (cuSOLVER's potrfBatched, cuBLAS's trsmBatched and getrfBatched,
 * getrsBatched). */

/** Cholesky of every member of a (lower triangle, orders up to 128), in place; and with b (may be NULL), the
 * solve of each member's right-hand sides in place (members that fail keep their b). info: `count` host ints.
 * Host batches run as StarPU tasks (options: mapping, chunk); device batches run the batched kernels on the
 * legacy default stream of a's device. *failed: the members with info != 0. */
int starfact_c_batched_posv(starfact_c_runtime* runtime, const starfact_c_batch* a, const starfact_c_batch* b,
                            int32_t* info, const starfact_c_options* options, int64_t* failed);
/** LU with partial pivoting of every member (orders up to 32), in place; ipiv: the 1-based pivots, member k at
 * ipiv + k * stride_piv (host memory for host batches, device memory for device batches); with b (may be NULL),
 * the solve of each member's right-hand sides in place (members that fail keep their b). */
int starfact_c_batched_gesv(starfact_c_runtime* runtime, const starfact_c_batch* a, int32_t* ipiv,
                            int64_t stride_piv, const starfact_c_batch* b, int32_t* info,
                            const starfact_c_options* options, int64_t* failed);
/** Solves each member's right-hand sides b (in place) with getrf's factors lu and pivots ipiv. */
int starfact_c_batched_getrs(starfact_c_runtime* runtime, const starfact_c_batch* lu, const int32_t* ipiv,
                             int64_t stride_piv, const starfact_c_batch* b, const starfact_c_options* options);

/* ---- copies ------------------------------------------------------------------------------------------------ */

/** The copies of array contents the operations made since the library was loaded (into or out of tiles, or from an
 * input into its output), and their bytes; either pointer may be NULL. Process-wide: a caller measuring one call
 * reads them before and after it, with no other call running. */
void starfact_c_copy_counters(int64_t* count, int64_t* bytes);

/* ---- device memory ------------------------------------------------------------------------------------------ */

/** Blocks until `stream` (a cudaStream_t; 1: the legacy default stream, 2: the per-thread default stream) of CUDA
 * device `device` has completed its work; the calling thread's current device is kept. STARFACT_C_NOT_BUILT
 * without CUDA. */
int starfact_c_cuda_stream_synchronize(uintptr_t stream, int32_t device);

/** The CUDA device whose memory holds `pointer` (cudaPointerGetAttributes), -1 for host memory.
 * STARFACT_C_NOT_BUILT without CUDA. */
int starfact_c_cuda_pointer_device(uintptr_t pointer, int32_t* device);

#ifdef __cplusplus
}
#endif

#endif /* STARFACT_C_H */

// Mixed-precision SPD solve: a Cholesky factor in a lower precision (float tiles, tensor-core updates on CUDA
// workers), a solution refined to double accuracy (docs/mixed_precision.md).
#pragma once
#include <cstdint>
#include <string>

#include "starfact/cholesky.hpp"
#include "starfact/sequence.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {

/// The tile size of a mixed-precision solve and its array form's default (part of the plan, algorithms/plan.cpp):
/// tiles small enough that the factorization is a task graph of matrix products, which run in the low precision,
/// rather than one diagonal task, which does not. On GPU mappings (measured on the H100, docs/mixed_precision.md): 4096 from n = 12288 for the
/// tensor-core factors (TF32, BF16, FP16), whose panel solves recurse into tensor-core gemms, 2048 otherwise
/// (and for Fp32); 256 on CPUs.
int64_t mixed_tile_size(int64_t n, Mapping mapping, bool gpu, Precision factor = Precision::Tf32);

/// Stopping rules of the refinement.
struct Refinement {
    /// Classical refinement steps (x += M^-1 (b - A x), the correction through the low-precision factor M) before
    /// the solve is declared stalled; LAPACK's dsposv uses 30.
    int max_iterations = 30;
    /// Classical refinement stalls when a step reduces the largest backward error by less than this factor:
    /// GMRES takes over from the current solution.
    double stall_ratio = 0.5;
    /// GMRES iterations (each one product with A and one solve with M) over all columns and restarts; 0: no GMRES.
    int gmres_iterations = 60;
    /// Krylov vectors kept before a restart.
    int gmres_restart = 30;
    /// Whether a solve that neither refinement brings to the tolerance is done again with a double
    /// factorization (the answer is then always as accurate as the double posv's).
    bool fallback = true;
    /// Target backward error ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf) of every column; 0: LAPACK's
    /// dsposv rule, sqrt(n) times double's unit roundoff.
    double tolerance = 0;
};

/// What a solve did.
struct SolveReport {
    enum class Path {
        Direct,    ///< the factorization in the matrix's own precision and one solve (no refinement)
        Refined,   ///< low-precision factor, classical refinement reached the tolerance
        Gmres,     ///< low-precision factor, GMRES preconditioned by it reached the tolerance
        Fallback,  ///< refinement did not reach it: the double factorization was used (A now holds its factor)
        Failed,    ///< neither (fallback off: B is left as it was; or the double factorization failed: info > 0)
    };
    Path path = Path::Direct;
    Precision factor = Precision::Native;  ///< the precision of the factor the refinement used
    int iterations = 0;                    ///< classical refinement steps
    int gmres_iterations = 0;              ///< GMRES iterations (products with A), every column and restart
    double backward_error = 0;             ///< the largest column's, of the returned solution (0 when not measured)
    double tolerance = 0;                  ///< the target it was held to
    int low_info = 0;                      ///< the low-precision factorization's info (> 0: it broke down)
    double seconds = 0;                    ///< wall time of the whole solve
    /// Of which: scaling, conversion, the low-precision factorization and the first solve with it (X0)
    double factor_seconds = 0;
};
const char* to_string(SolveReport::Path p);

/// Solves A X = B for SPD A (lower triangle) with the factorization in opts.factor:
/// - Native or Fp64: potrf then potrs (the report says Direct, backward error not measured);
/// - Fp32, Tf32, Bf16, Fp16: A is scaled to a unit diagonal (D A D, D = diag(a_ii)^-1/2, so that FP16 inputs
///   cannot overflow) and copied into float tiles, factored there (Tf32/Bf16/Fp16: the trailing updates on tensor
///   cores), and X refined in double: classical refinement, then GMRES preconditioned by the factor when it
///   stalls, then, unless refine.fallback is off, the double factorization when neither reaches the tolerance.
///   A is left unchanged by a refined solve, and holds the double factor after a fallback (as LAPACK's dsposv).
/// Returns LAPACK's info: 0, or k > 0 when the double factorization met a leading minor of order k that is not
/// positive definite (the low-precision factor breaking down only sends the solve to the fallback). B holds X when
/// the returned info is 0 and the report's path is not Failed. Throws InvalidArgument naming the argument: B's
/// shape, a factor precision a float matrix has no lower form of (float solves take Native or Fp32), a
/// distributed matrix (the refined path runs on one process), bad refinement settings.
template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts, SolveReport& report,
         const Refinement& refine = {});

/// The array form: A column-major n x n (lda >= n, lower triangle used), B n x nrhs; tiled as `tiling` says
/// (nb = 0: mixed_tile_size, plan.hpp). A is copied back (unchanged, or the double factor after a fallback).
template <typename T>
int posv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb, const Options& opts,
         SolveReport& report, const Refinement& refine = {}, const Tiling& tiling = {});

namespace async {
/// The submit form of posv(A, B, opts, report, refine): returns at once with the operation index whose info
/// seq.info(op) gives after seq.wait() (the same info as the blocking form). With a lower opts.factor the solve
/// runs its first graph (scaling, conversion, the low-precision factorization, X0) like any submitted work, and
/// its refinement, which decides between graphs on the host, on a thread of its own; A and B are held for it:
/// whatever is submitted on them afterwards, into any sequence, waits until the solve is complete, and seq.wait()
/// returns once it is, with `report` filled. A, B, report and seq must stay alive until then. An error met by the
/// refinement is thrown by that wait(). Native or Fp64 (and float matrices): async::posv(A, B, seq, opts), the
/// report saying Direct. Throws InvalidArgument as the blocking form does, before anything is submitted.
template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts, SolveReport& report,
         const Refinement& refine = {});
}  // namespace async

}  // namespace starfact

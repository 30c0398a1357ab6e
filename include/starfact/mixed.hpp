// Mixed-precision SPD solve: a Cholesky factor in a lower precision (float tiles, tensor-core updates on CUDA
// workers), a solution refined to double accuracy (docs/mixed_precision.md); the same for complex<double> Hermitian
// matrices with a complex<float> factor. The general solve of the same kind, an
// LU in a lower precision refined to double accuracy, is gesv(A, piv, B, opts, report, refine) in starfact/lu.hpp,
// with the same Refinement and SolveReport.
#pragma once
#include <cstdint>
#include <string>

#include "starfact/cholesky.hpp"
#include "starfact/sequence.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {

/// Whether a double solve with this factor precision takes the refined path (Fp32, Tf32, Bf16, Fp16), rather than
/// the double factorization (Native, Fp64).
constexpr bool refines_double(Precision factor) {
    return factor != Precision::Native && factor != Precision::Fp64;
}

/// Whether a complex<double> solve with this factor precision takes the refined path: Fp32 or Tf32, a complex<float>
/// factor (on CUDA workers Tf32 runs the trailing updates on tensor cores). The other lower precisions are refused
/// for complex matrices (naming the factor); Native and Auto are the complex<double> factorization.
constexpr bool refines_complex_double(Precision factor) {
    return factor == Precision::Fp32 || factor == Precision::Tf32;
}

/// Stopping rules of the refinement.
struct Refinement {
    /// Classical refinement steps (x += M^-1 (b - A x), the correction through the low-precision factor M) before
    /// the solve is declared stalled; LAPACK's dsposv uses 30.
    int max_iterations = 30;
    /// Classical refinement stalls when a step leaves more than this fraction of the largest backward error: GMRES
    /// takes over from the current solution (with GMRES on, from a fraction of 1/8 already: GMRES needs at most as
    /// many iterations as classical refinement on the same preconditioned system, each barely dearer).
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
    /// Diagonal shift of the low-precision factorization, in units of u, the unit roundoff of the factor's
    /// arithmetic (2^-24 for Fp32, 2^-11 for Tf32 and Fp16, 2^-8 for Bf16): F is the factor of D A D + shift u I
    /// (D A D has a unit diagonal), and the refinement, GMRES-IR preconditioned by F, still solves A x = b (Higham
    /// and Pranesh, SIAM J. Sci. Comput. 43(1), 2021). A shift keeps the factorization of an ill-conditioned matrix
    /// from breaking down at the price of a weaker preconditioner. < 0 (default): no shift unless the
    /// factorization breaks down; >= 0: from the first factorization on.
    double shift = -1;
    /// How many times a factorization that breaks down is repeated with a larger shift (the first time
    /// kShiftFirst sqrt(n) u, then kShiftGrowth times the last) before the fallback.
    int shift_retries = 2;
    /// The first shift a breakdown leads to, in units of sqrt(n) u, and the factor of each further one.
    static constexpr double kShiftFirst = 0.25, kShiftGrowth = 8;
    /// What the open-ended work after the first low-precision factorization (shifted factorizations, GMRES) may
    /// take, in units of that factorization's time: once spent, GMRES stops and the solve falls back (a shifted
    /// factorization is started only when one more factorization's time is left). It bounds what an ill-conditioned
    /// matrix costs before the fallback. 0: no limit (the iteration counts above still hold).
    double time_budget = 2;
    /// The budget in seconds is never below this, so that small solves, whose factorization takes microseconds,
    /// still refine.
    double time_floor = 0.05;
    /// Factor in Options::factor whatever the plan (plan.hpp) says pays: for tests and experiments at small orders.
    bool always_low = false;
    /// With Options::factor Auto: whether a Tf32 factor that breaks down or falls short is followed by a Tf32x3 one
    /// before the fallback (the ladder). Off by default: on the H200 a Tf32x3 factorization costs about what the
    /// double one does (0.232 s against cuSOLVER's dpotrf + dpotrs 0.272 s at n = 32768, 0.073 s against 0.069 s at
    /// 20000; docs/mixed_precision.md), so Auto goes from Tf32 straight to the double factorization there.
    bool climb = false;
    /// Per-tile arithmetic (a tensor-core Options::factor): when > 0, the tasks of each tile of D A D take the cheapest
    /// arithmetic of the ladder (the factor's; TF32 above BF16 and FP16; float) whose unit roundoff u passes
    /// ||A_ij||_F NT / ||A||_F < tile_tolerance / u (NT tiles per row; the rule of the tile-adaptive Cholesky of
    /// covariance matrices, Abdulah et al., IEEE TPDS 33(4), 2022), float when none does, a diagonal tile never below
    /// TF32. Tiles far from the diagonal of a matrix whose entries decay away from it take the cheap arithmetic, the
    /// others a more accurate one: 2^-24 (float's unit roundoff) keeps the factor about as accurate as a float one;
    /// with factor Bf16, 2^-10 about as accurate as a TF32 one at BF16's rate on the small tiles. 0 (default):
    /// every tile in the factor's arithmetic. The report counts the tiles (SolveReport::low_tiles, tiles).
    double tile_tolerance = 0;
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
    Precision factor = Precision::Native;  ///< the precision of the factor the refinement used (the last rung)
    /// The factor precisions tried, in order, and why each climb (Precision::Auto), e.g.
    /// "tf32 > tf32x3 (tf32 broke down at column 4274)"; the requested precision alone otherwise
    std::string rungs;
    int iterations = 0;                    ///< classical refinement steps
    /// GMRES iterations, each one product with A and one solve with the factor for every column still iterating
    /// (the columns iterate together), over all restarts
    int gmres_iterations = 0;
    /// The largest column's, of the refined solution (Refined, Gmres; with Failed, of the last iterate, which is
    /// not returned); 0 when not measured (Direct, Fallback)
    double backward_error = 0;
    double tolerance = 0;                  ///< the target it was held to
    int low_info = 0;                      ///< the last low-precision factorization's info (> 0: it broke down)
    int factorizations = 0;                ///< low-precision factorizations run (more than one after breakdowns)
    double shift = 0;                      ///< diagonal shift of the last one (of D A D, whose diagonal is 1)
    /// With Refinement::tile_tolerance: the off-diagonal tiles the last low-precision factorization updated in its
    /// tensor-core arithmetic (the others in float), of off_diagonal_tiles; -1 without per-tile arithmetic
    int64_t low_tiles = -1;
    int64_t off_diagonal_tiles = 0;        ///< NT (NT - 1) / 2, with Refinement::tile_tolerance
    /// With Refinement::tile_tolerance: how many tiles each arithmetic took, e.g. "per tile: bf16 20, tf32 6,
    /// fp32 2; diagonal tf32 8"; empty without
    std::string tiles;
    /// Tasks of the low-precision factorizations that broke down which did not run: a factorization stops at its
    /// breakdown (the diagonal tile that breaks down is seen as soon as it is factored), since the factor is
    /// discarded then; 0 when none broke down
    int64_t skipped_tasks = 0;
    double seconds = 0;                    ///< wall time of the whole solve
    /// Of which: scaling, conversion, the first low-precision factorization and the first solve with it (X0)
    double factor_seconds = 0;
    /// Of which: GMRES (its iterations, restarts and the residuals between its rounds)
    double gmres_seconds = 0;
    /// Why the refined answer was not returned (Fallback, Failed): the factorization broke down (and at which
    /// column, with which shift), A has NaN or Inf or a diagonal that is not positive, or refinement stalled.
    std::string reason;
};
const char* to_string(SolveReport::Path p);

/// Solves A X = B for SPD A (lower triangle) with the factorization in opts.factor:
/// - Native or Fp64: potrf then potrs (the report says Direct, backward error not measured);
/// - Fp32, Tf32, Bf16, Fp16: A is scaled to a unit diagonal (D A D, D = diag(a_ii)^-1/2, so that no entry leaves
///   float's or FP16's range) and copied into float tiles, factored there (Tf32/Bf16/Fp16: the trailing updates on
///   tensor cores), and X refined in double: classical refinement, then GMRES preconditioned by the factor when it
///   stalls, then, unless refine.fallback is off, the double factorization when neither reaches the tolerance. A
///   factorization that breaks down is repeated with a diagonal shift (refine.shift) before the fallback.
///   Right-hand sides and residuals are scaled column by column by powers of two before each conversion to float,
///   so that neither their magnitude nor A's takes a value out of float's range. A NaN or Inf in A, or a diagonal
///   entry that is not positive, sends the solve to the fallback (report.reason says which). A is left unchanged by
///   a refined solve, and holds the double factor after a fallback (as LAPACK's dsposv).
/// Returns LAPACK's info: 0, or k > 0 when the double factorization met a leading minor of order k that is not
/// positive definite or not finite (the low-precision factor breaking down only sends the solve to the fallback). B
/// holds X when the returned info is 0 and the report's path is not Failed. Throws InvalidArgument naming the
/// argument: B's shape, or B holding NaN or Inf (whose backward error cannot be measured; B is left as it was), a
/// factor precision a float matrix has no lower form of (float solves take Native or Fp32), a distributed matrix
/// (the refined path runs on one process), bad refinement settings.
///
/// T may also be std::complex<double> (A Hermitian positive definite, lower triangle, the imaginary parts of its
/// diagonal taken as zero): with opts.factor Fp32 or Tf32 (refines_complex_double) the same solve in complex
/// arithmetic, D = diag(Re a_ii)^-1/2 and a std::complex<float> factor (Tf32: its trailing updates in TF32 on CUDA
/// workers' tensor cores), refined to complex<double> accuracy by the same driver, the complex<double> factorization
/// as fallback; Native and Auto are the complex<double> solve (Direct). Bf16, Fp16, Tf32x3 and Fp64 are refused
/// naming "factor", refine.tile_tolerance > 0 naming "refine.tile_tolerance". std::complex<float> takes Native or
/// Auto only (its own precision).
template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts, SolveReport& report,
         const Refinement& refine = {});

/// The array form: A column-major n x n (lda >= n, lower triangle used), B n x nrhs, host or device memory; tiled as
/// `tiling` says (nb = 0: the plan's, plan.hpp). With Residency::Host (default) host arrays are viewed as tiles (no copy:
/// StarPU moves tiles between them and the workers), device arrays likewise in device memory; with Device, host
/// arrays are copied into device memory.
/// A ends unchanged, or holding the double factor after a fallback.
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
/// The same for a call already planned (as async::posv(A, B, seq, opts, plan), cholesky.hpp): `plan` is posv's for
/// these tiles with refine.always_low; whether the solve is refined, its tile kernels, are the plan's.
template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts, SolveReport& report,
         const Refinement& refine, const Plan& plan);
}  // namespace async

}  // namespace starfact

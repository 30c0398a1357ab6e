// Tile Cholesky (lower): A = L L^T, as StarPU task graphs.
#pragma once
#include <cstdint>
#include <string>

#include "starfact/mapping.hpp"
#include "starfact/plan.hpp"
#include "starfact/sequence.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact {

/// Algorithmic variant of the tile Cholesky, expressed as a policy over one DAG (docs/variants.md).
struct Variant {
    enum class Kind {
        Right,       ///< right-looking, critical-path priorities
        Lookahead,   ///< right-looking; only the next `depth` panels raised, at most `depth` steps in flight
        Left,        ///< left-looking (lazy): a column's updates and factorization first; same DAG as Right
        LeftCoarse,  ///< left-looking with one task per tile applying all its pending updates (another DAG)
        NoPrio,      ///< the Right DAG without priorities
    };
    Kind kind = Kind::Right;
    int depth = 0;  ///< lookahead depth D (Kind::Lookahead)

    /// "right", "lookahead=D", "left", "left-coarse", "noprio"; throws InvalidArgument naming `argument`.
    static Variant parse(const std::string& text, const char* argument = "variant");
    std::string name() const;
};

/// Text forms of the plan's choices (plan.hpp): "auto", "trsm", "inverse"; throws InvalidArgument naming
/// `argument`.
PanelSolve parse_panel_solve(const std::string& text, const char* argument = "panel");
const char* to_string(PanelSolve p);
/// "auto", "fused", "cusolver"; throws InvalidArgument naming `argument`.
DiagKernel parse_diag_kernel(const std::string& text, const char* argument = "diag");
const char* to_string(DiagKernel d);

/// The arithmetic a factorization runs in (docs/mixed_precision.md).
enum class Precision {
    Native,  ///< the matrix's own precision (float or double)
    Fp64,    ///< double
    Fp32,    ///< float
    Tf32,    ///< float tiles; on CUDA workers the trailing updates on tensor cores in TF32 (float accumulation)
    Bf16,    ///< float tiles; CUDA trailing updates with BF16 inputs on tensor cores (float accumulation)
    Fp16,    ///< float tiles; CUDA trailing updates with FP16 inputs on tensor cores (float accumulation)
};
/// "native", "fp64", "fp32", "tf32", "bf16", "fp16" (also "d", "s", "double", "float"); throws InvalidArgument
/// naming `argument` and listing the names.
Precision parse_precision(const std::string& text, const char* argument = "factor");
const char* to_string(Precision p);

/// What PanelSolve::Auto means for a factorization in arithmetic `factor` under `mapping`: Inverse for the
/// tensor-core factors (Tf32, Bf16, Fp16) of matrices that are not distributed, on the GpuOnly mapping (the
/// inversion and the products run in the tensor-core arithmetic: about 10 % faster at n = 32768 in TF32 on the H100; such
/// a factor only preconditions the refinement of a mixed-precision solve, which absorbs the inverse's weaker
/// stability); else Trsm. An explicit choice is returned as is.
PanelSolve resolve_panel_solve(PanelSolve p, Precision factor, Mapping mapping, bool distributed);

/// Algorithm choices of a factorization or solve (what to compute and how; never where the output goes).
struct Options {
    Mapping mapping = Mapping::Hybrid;
    Variant variant;  ///< right-looking with critical-path priorities by default
    PanelSolve panel = PanelSolve::Auto;
    DiagKernel diag = DiagKernel::Auto;
    /// The factorization's arithmetic. posv on double matrices with Fp32, Tf32, Bf16 or Fp16 factors a float copy
    /// of A in that arithmetic and refines the solution to double accuracy (mixed.hpp); potrf on float matrices
    /// with Tf32, Bf16 or Fp16 runs its trailing updates on tensor cores (CUDA workers; CPU workers compute in
    /// float). Native or the matrix's own precision: the plain factorization.
    Precision factor = Precision::Native;
};

/// What one call did, filled by the overloads that take it.
struct RunStats {
    int64_t tasks = 0;  ///< tasks submitted
    /// geqrf by the Cholesky QR (QrTree::Kind::Cholqr): the passes it ran, 2 when the second showed its input
    /// orthonormal, else 3 (docs/qr.md); 0 for the other factorizations.
    int qr_passes = 0;
};

/// How the LAPACK-array entry points cut their arrays into tiles (the TileMatrix forms use the matrix's own).
struct Tiling {
    /// Tile size; 0: the tuned choice for the order, precision, mapping and where the array is (tile_plan, plan.hpp).
    int64_t nb = 0;
    /// Host (default): the tiles are views of the caller's host arrays (pageable or pinned): no copy, StarPU moves
    /// tiles between the arrays and the workers as tasks need them, and only the triangle an operation uses is
    /// read; arrays in GPU memory are viewed the same way, where they lie. Device: host arrays are copied into
    /// device-resident tiles first and back afterwards.
    Residency residency = Residency::Host;
};

/// Factors the lower triangle of A in place (the strictly upper tiles are neither read nor written).
/// Returns LAPACK's info: 0 on success, k > 0 if the leading minor of order k is not positive
/// definite (or holds NaN/Inf): column k (1-based, global) was the first that failed; the
/// factorization is then incomplete. Throws InvalidArgument for a non-square A or an unusable mapping.
template <typename T>
int potrf(TileMatrix<T>& A, const Options& opts = {});
/// The same, counting what it did into `stats`.
template <typename T>
int potrf(TileMatrix<T>& A, const Options& opts, RunStats& stats);

/// Solves A X = B with the factor L from potrf; B (n x nrhs, same nb) is overwritten by X.
template <typename T>
void potrs(const TileMatrix<T>& L, TileMatrix<T>& B, const Options& opts = {});
template <typename T>
void potrs(const TileMatrix<T>& L, TileMatrix<T>& B, const Options& opts, RunStats& stats);

/// potrf then potrs; returns potrf's info (B untouched when info > 0).
template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts = {});

/// LAPACK-array forms: A is column-major n x n (lda >= max(1, n)), lower triangle used (the upper one is neither
/// read nor written); the arrays, in host or device memory, are tiled as `tiling` says (host arrays by default viewed
/// in place).
template <typename T>
int potrf(Runtime& rt, int64_t n, T* A, int64_t lda, const Options& opts = {}, const Tiling& tiling = {});
template <typename T>
int posv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb, const Options& opts = {},
         const Tiling& tiling = {});

/// Submit forms: each returns once its tasks are submitted into `seq` (sequence.hpp); seq.wait() blocks
/// until they completed and gathers the infos. Operations on the same tiles chain without waiting
/// (StarPU orders them by their data): potrf, then potrs on its factor, runs as one task graph.
namespace async {
/// Submits the factorization of A; returns the operation index whose info seq.info(op) gives after wait().
template <typename T>
int potrf(TileMatrix<T>& A, Sequence& seq, const Options& opts = {});
/// Submits the solve with the factor L (from potrf, submitted before it or completed).
template <typename T>
void potrs(const TileMatrix<T>& L, TileMatrix<T>& B, Sequence& seq, const Options& opts = {});
/// potrf then potrs without a wait in between; returns potrf's operation index. Unlike the synchronous
/// posv, B is overwritten even when the factorization fails (its content is then meaningless). A double solve
/// with a lower opts.factor is the mixed-precision solve's submit form (mixed.hpp; its report dropped).
template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, Sequence& seq, const Options& opts = {});
}  // namespace async

/// Flop counts (LAWN 41) for reporting GFLOP/s.
double potrf_flops(int64_t n);
double potrs_flops(int64_t n, int64_t nrhs);

}  // namespace starfact

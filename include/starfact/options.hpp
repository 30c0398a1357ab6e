// The options of a call: what to compute and how (Options, and its choices: Variant, PanelSolve, DiagKernel,
// Precision, QrTree), how an array form cuts its arrays into tiles (Tiling), and what a call did (RunStats).
#pragma once
#include <cstdint>
#include <string>

#include "starfact/mapping.hpp"

namespace starfact {

/// How the panel tiles A[m][k] are solved against the diagonal factor L[k][k].
enum class PanelSolve {
    Auto,     ///< Trsm (the backward-stable choice), Inverse for tensor-core factors (the plan decides: plan.hpp)
    Trsm,     ///< one trsm per tile (LAPACK's backward-stable triangular solve)
    Inverse,  ///< L[k][k]^-1 once per step (trtri), then one gemm per tile (MAGMA's GPU trsm does this with
              ///< small diagonal blocks); the error grows with cond(L[k][k]) instead of being backward stable:
              ///< matrices with ill-conditioned tiles (Gaussian kernels with small nuggets) can fail with a
              ///< spurious info > 0 (docs/algorithms.md). Auto takes it for tensor-core factors only.
};
/// CUDA kernel for the diagonal tiles.
enum class DiagKernel {
    Auto,      ///< the plan's kernel for tiles of this order and precision (plan.hpp, docs/performance.md)
    Fused,     ///< our fused potf2 (kernels/potf2/, docs/potf2.md)
    Cusolver,  ///< cusolverDn<t>potrf, plus a one-block kernel merging devInfo
    Recursive, ///< our recursive Cholesky: updates and panel solves as large gemms (kernels/rpotrf/, docs/potf2.md);
               ///< in a mixed-precision solve its gemms take the factorization's tensor-core arithmetic
};
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
    /// float tiles; each CUDA trailing update as three TF32 tensor-core products of operands split into a high and
    /// a low TF32 part (A_hi B_hi + A_hi B_lo + A_lo B_hi, float accumulation): close to float accuracy at a
    /// tensor-core rate (the "3xTF32" of CUTLASS; Ootomo and Yokota, IJHPCA 36(4), 2022)
    Tf32x3,
    /// A double posv chooses (mixed.hpp, docs/mixed_precision.md): Tf32 where the plan says a tensor-core factor
    /// pays, unshifted; when it breaks down or its refinement does not reach the tolerance, the double factorization
    /// (or first Tf32x3, with Refinement::climb). Every other call: the matrix's own precision (as Native).
    Auto,
    /// std::complex<float> elements (a matrix's precision, Request::element, and its arithmetic; never a factor
    /// precision: parse_precision does not take it)
    C64,
    /// std::complex<double> elements (likewise)
    C128,
};
/// Whether a factor precision runs its float updates on tensor cores (Tf32, Bf16, Fp16, Tf32x3).
constexpr bool on_tensor_cores(Precision p) {
    return p == Precision::Tf32 || p == Precision::Bf16 || p == Precision::Fp16 || p == Precision::Tf32x3;
}
/// Whether an element precision is complex (C64, C128).
constexpr bool is_complex(Precision p) { return p == Precision::C64 || p == Precision::C128; }
/// "native", "fp64", "fp32", "tf32", "bf16", "fp16", "tf32x3", "auto" (also "d", "s", "double", "float"); throws InvalidArgument
/// naming `argument` and listing the names. (The complex element precisions, C64 and C128, are no factor names.)
Precision parse_precision(const std::string& text, const char* argument = "factor");
const char* to_string(Precision p);

/// The reduction tree of a tile QR's panels (docs/qr.md): which tiles of a tile column are factored on their own
/// and how their triangles are merged, a policy over one set of kernels. The tile rows below the diagonal split
/// into domains of `domain` consecutive tile rows: in a domain the head tile is factored (GEQRT) and the others are
/// eliminated one after the other against its triangle (TS kernels, a chain); the heads' triangles are then merged
/// pairwise (TT kernels, a binary tree).
struct QrTree {
    enum class Kind {
        Auto,     ///< the plan's choice from the shape and the worker count (plan.hpp)
        Flat,     ///< one domain: TS kernels down each column (PLASMA's original tile QR)
        Binary,   ///< domains of one tile: every tile factored at once, triangles merged by a binary tree
        Domains,  ///< domains of `domain` tile rows (flat within, binary across)
        Cholqr,   ///< no Householder tree: shifted Cholesky QR 3 with Gram matrices summed by a binary tree of tasks,
                  ///< then the Householder form reconstructed (docs/qr.md, "Tall and skinny: the Cholesky QR");
                  ///< one tile column only (n <= nb, m >= n), A of full numerical rank (cond(A) below about 1/u)
        Panel,    ///< no tile tree: blocked Householder QR, one task per panel (all tiles of tile column k from row k:
                  ///< geqrf of the gathered panel and its T), trailing updates by tiles with the compact WY form
                  ///< (docs/qr.md, "Whole-panel tasks"); the inner blocking is nb
    };
    Kind kind = Kind::Auto;
    int64_t domain = 0;  ///< tile rows per domain (Kind::Domains, >= 1)
    /// The Householder fall-back of the Cholesky QR (Kind::Cholqr, or Auto resolved to it): when it breaks down
    /// (QrBreakdown, qr.hpp), the blocking forms of geqrf and gels factor the caller's original A again with the
    /// plan's Householder tree and report it (QRFactors::fallback()) instead of the breakdown. Costs one copy of A
    /// (gels: of B too) per call, made only when the Cholesky QR runs; the submit forms refuse it (docs/qr.md,
    /// "The Householder fall-back"). No effect on the Householder trees.
    bool fallback = false;
    /// "auto", "flat", "binary", "domains=A", "cholqr", "panel", each optionally followed by "+fallback" (the field
    /// above); throws InvalidArgument naming `argument`.
    static QrTree parse(const std::string& text, const char* argument = "tree");
    /// The text parse() reads ("cholqr+fallback"); kind_name() without "+fallback".
    std::string name() const;
    std::string kind_name() const;
};
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
    /// Tile size; 0: the tuned choice for the order, precision, mapping and where the array is (the plan, plan.hpp).
    int64_t nb = 0;
    /// Host (default): the tiles are views of the caller's host arrays (pageable or pinned): no copy, StarPU moves
    /// tiles between the arrays and the workers as tasks need them, and only the triangle an operation uses is
    /// read; arrays in GPU memory are viewed the same way, where they lie. Device: host arrays are copied into
    /// device-resident tiles first and back afterwards.
    Residency residency = Residency::Host;
};

}  // namespace starfact

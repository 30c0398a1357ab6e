// The plan: every tuned choice of tile size, streams, task placement and diagonal/panel kernels, in one module
// (algorithms/plan.cpp). Each function is computable without a Runtime: the caller says whether it has CUDA
// workers (`gpu`) and over how many GPUs its tiles spread. The API's defaults, the drivers and the LS-SVM
// example all ask here.
#pragma once
#include <cstdint>
#include <string>

#include "starfact/mapping.hpp"

namespace starfact {

/// How the panel tiles A[m][k] are solved against the diagonal factor L[k][k].
enum class PanelSolve {
    Auto,     ///< Trsm (the backward-stable choice), Inverse for tensor-core factors (see resolve_panel_solve)
    Trsm,     ///< one trsm per tile (LAPACK's backward-stable triangular solve)
    Inverse,  ///< L[k][k]^-1 once per step (trtri), then one gemm per tile (MAGMA's GPU trsm does this with
              ///< small diagonal blocks); the error grows with cond(L[k][k]) instead of being backward stable:
              ///< faster with 1024 tiles on the H100, but matrices with ill-conditioned tiles (Gaussian kernels
              ///< with small nuggets) can fail with a spurious info > 0. Opt-in only.
};
/// What Auto means for a factorization in the matrix's own arithmetic: Trsm, for every mapping and tile size
/// (tensor-core factors: the overload of cholesky.hpp).
PanelSolve resolve_panel_solve(PanelSolve p);

/// CUDA kernel for the diagonal tiles.
enum class DiagKernel {
    Auto,      ///< the kernel measured faster on tiles of this order and precision (see resolve_diag_kernel)
    Fused,     ///< our fused potf2 (kernels/potf2/, docs/potf2.md)
    Cusolver,  ///< cusolverDn<t>potrf, plus a one-block kernel merging devInfo
    Recursive, ///< our recursive Cholesky: updates and panel solves as large gemms (kernels/rpotrf/, docs/potf2.md);
               ///< in a mixed-precision solve its gemms take the factorization's tensor-core arithmetic
};
/// Whether this build has the fused potf2 kernel.
bool have_fused_potf2();
/// Whether this build has the recursive Cholesky kernel (CUDA builds).
bool have_recursive_potrf();
/// What Auto means for nb x nb diagonal tiles of precision T under mapping m: the CUDA kernel measured faster on
/// one tile of that order (the kDiag rows of algorithms/plan.cpp, from `starpu_chol --sweep --nb NB --diag
/// fused|cusolver` on the H100, docs/performance.md): our fused potf2 where the build has it, except at the orders
/// where cuSOLVER's potrf was faster (double 2049..24576, float 2049..4096: there the whole-matrix task of a
/// small plan is one cuSOLVER call); Cusolver without the fused kernel; CpuOnly never runs a CUDA codelet
/// (reported as Cusolver). An explicit Fused or Cusolver is kept.
template <typename T>
DiagKernel resolve_diag_kernel(DiagKernel d, Mapping m, int64_t nb);

/// The tuned granularity of an order-n factorization on this machine type (docs/performance.md): the tile
/// size, and the CUDA workers (streams) per GPU a Runtime should have.
struct TilePlan {
    int64_t nb = 0;
    int streams_per_gpu = 0;  ///< 0: no preference (no GPU in the mapping)
};
/// The Cholesky's plan: what Tiling::nb = 0 and starpu_chol's defaults use. `gpu`: whether the runtime has CUDA
/// workers; `gpus`: the CUDA devices the tiles spread over (device-resident tiles on several GPUs take finer
/// tiles, and never one whole-matrix task).
template <typename T>
TilePlan tile_plan(int64_t n, Mapping mapping, Residency residency, bool gpu, int gpus = 1);
/// The granularity potri's array form and starpu_chol --op potri use: tile_plan's, except that a GPU
/// plan with fewer than eight tile rows (tile_plan makes a device-resident matrix one tile up to n = 16384 or 20480)
/// is cut into eight (tiles of at least 512), so that the three phases have tiles to overlap on.
template <typename T>
TilePlan potri_tile_plan(int64_t n, Mapping mapping, Residency residency, bool gpu);
/// The default tile size of an order-n LU (what Tiling::nb = 0 and starpu_lu use): 256 on CPUs; on GPU
/// mappings one tile up to n = 4096 (device-resident: 8192), so that the factorization is one panel task
/// (cuSOLVER's getrf in place on the tile), then 2048 (device-resident above 24576: 4096), so that
/// the updates are gemms near the GPU's peak and the panels, which are latency-bound, are few; device-resident
/// tiles over several GPUs (`gpus` > 1) keep 2048, whose shorter panels and finer updates spread better (4 x H100,
/// n = 65536: 2.91x one GPU against 2.48x with 4096 tiles and 2.70x with 3072, docs/multigpu.md).
/// `gpu`: whether the runtime has CUDA workers; `gpus`: the CUDA devices the tiles spread over.
template <typename T>
int64_t lu_tile_size(int64_t n, Mapping mapping, Residency residency, bool gpu, int gpus = 1);


/// Largest tile a CPU worker takes in a Hybrid run on a runtime with CUDA workers. On the H100 machine a
/// CPU core runs a 1024 x 1024 gemm about a thousand times slower than the GPU: a CPU worker that takes
/// one of the last tasks of a step delays the whole step (docs/performance.md). Smaller tiles stay open to
/// both kinds of workers.
constexpr int64_t kHybridCpuMaxTile = 512;
/// The mapping the tasks on nb x nb tiles get (the hybrid rule): `m`, except Hybrid above kHybridCpuMaxTile
/// on a runtime with CUDA workers (`gpu`), which becomes GpuOnly.
Mapping task_mapping(Mapping m, int64_t nb, bool gpu);

/// The reduction tree of a tile QR's panels (docs/qr.md): which tiles of a tile column are factored on their own
/// and how their triangles are merged, a policy over one set of kernels. The tile rows below the diagonal split
/// into domains of `domain` consecutive tile rows: in a domain the head tile is factored (GEQRT) and the others are
/// eliminated one after the other against its triangle (TS kernels, a chain); the heads' triangles are then merged
/// pairwise (TT kernels, a binary tree).
struct QrTree {
    enum class Kind {
        Auto,     ///< the plan's choice from the shape and the worker count (qr_domain_rows)
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
    /// "auto", "flat", "binary", "domains=A", "cholqr", "panel"; throws InvalidArgument naming `argument`.
    static QrTree parse(const std::string& text, const char* argument = "tree");
    std::string name() const;
};
/// Tile rows per domain for an mt x nt tile QR run by `workers` workers: Flat mt, Binary 1, Domains its own
/// (at most mt); Auto: flat when the matrix has at most 2 nt tile rows (the trailing updates keep the workers busy),
/// else about two domains per worker, so that the panels of a tall matrix run in parallel.
int64_t qr_domain_rows(const QrTree& tree, int64_t mt, int64_t nt, int workers);
/// Whether geqrf factors an m x n matrix in nb x nb tiles by the Cholesky QR (QrTree::Kind::Cholqr) rather than a
/// Householder tree: Cholqr always; Auto on mappings with CUDA workers (`gpu`, not CpuOnly) for tall and skinny
/// matrices of one tile column and at least two tile rows, n <= 512 (docs/qr.md has the measurements); never
/// otherwise.
bool qr_uses_cholqr(const QrTree& tree, int64_t m, int64_t n, int64_t nb, Mapping mapping, bool gpu);
/// Whether geqrf factors an m x n matrix in nb x nb tiles with whole-panel tasks (QrTree::Kind::Panel) rather than
/// a Householder tree: Panel always; Auto on mappings with CUDA workers (`gpu`, not CpuOnly) for matrices of at least
/// two tile columns with m >= n and m <= 4 n (square and moderately tall; docs/qr.md has the measurements); never
/// otherwise (the CPU keeps the trees).
bool qr_uses_panel(const QrTree& tree, int64_t m, int64_t n, int64_t nb, Mapping mapping, bool gpu);
/// The default tile size of an m x n QR (what Tiling::nb = 0 and starpu_qr use): 192 on CPUs; on GPU mappings 2048
/// (cuSOLVER's geqrf on the tiles, gemms for the updates), and for tall-skinny matrices (n <= 512) tiles far taller
/// than the matrix is wide: nb = 32768, one tile column of 32768 x n tiles (docs/qr.md has the measurements).
template <typename T>
int64_t qr_tile_size(int64_t m, int64_t n, Mapping mapping, Residency residency, bool gpu, int gpus = 1);
/// The inner blocking of the CPU QR kernels: nb on mappings that may run CUDA codelets (their kernels form one
/// triangular factor per tile, which every worker must read alike), else min(nb, 32).
int64_t qr_inner_block(int64_t nb, Mapping mapping, bool gpu);

}  // namespace starfact

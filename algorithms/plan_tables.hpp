// Internal: the plan's tuned tables and rules (algorithms/plan.cpp), one per decision, private to the library. The
// planning entry (algorithms/plan_entry.cpp, starfact/plan.hpp) calls them, once per call; everything else asks the
// entry, except the task options' hybrid rule (task_mapping, dag.hpp) and the QR fall-back's choice of tree.
#pragma once
#include <cstdint>

#include "starfact/plan.hpp"

namespace starfact::detail {

/// Largest tile a CPU worker takes in a Hybrid run on a runtime with CUDA workers: a CPU worker that takes one of
/// the last large tasks of a step delays the whole step (docs/performance.md). Smaller tiles stay open to both kinds
/// of workers.
constexpr int64_t kHybridCpuMaxTile = 512;
/// The mapping the tasks on nb x nb tiles get (the hybrid rule): `m`, except Hybrid above kHybridCpuMaxTile
/// on a runtime with CUDA workers (`gpu`), which becomes GpuOnly.
Mapping task_mapping(Mapping m, int64_t nb, bool gpu);

/// Tile rows per domain for an mt x nt tile QR run by `workers` workers: Flat mt, Binary 1, Domains its own
/// (at most mt); Auto: flat when the matrix has at most 2 nt tile rows (the trailing updates keep the workers busy),
/// else about two domains per worker, so that the panels of a tall matrix run in parallel.
int64_t qr_domain_rows(const QrTree& tree, int64_t mt, int64_t nt, int workers);
/// Whether geqrf factors an m x n matrix in nb x nb tiles by the Cholesky QR (QrTree::Kind::Cholqr) rather than a
/// Householder tree: Cholqr always; Auto on mappings with CUDA workers (`gpu`, not CpuOnly) for tall and skinny
/// matrices of one tile column and at least two tile rows: n <= 512, or n <= 4096 with m >= 8 n; and for
/// 4096 < n <= 16384, m >= 2 n, or m >= n from n = 12000 (the blocked form, in one tile column of one tile or more;
/// docs/qr.md has the measurements); never otherwise.
bool qr_uses_cholqr(const QrTree& tree, int64_t m, int64_t n, int64_t nb, Mapping mapping, bool gpu);
/// Whether the automatic choice takes the Cholesky QR for an m x n matrix only in its blocked form (n > 4096): a
/// matrix distributed over MPI ranks, whose Cholesky QR runs in one panel, takes a Householder tree there instead.
bool qr_cholqr_panels_only(int64_t m, int64_t n);
/// The plan `p` (the one-process plan of an Auto tree) for an m x n matrix in nb tiles distributed over `grid_rows`
/// rows of ranks: the Cholesky QR (except its blocked-only shapes) and the panel tree as planned, else the
/// hierarchical tree, one domain of tile rows per grid row, with the trees' inner blocking (nb, as with GPUs).
Plan qr_distributed_plan(Plan p, int64_t m, int64_t n, int64_t nb, int64_t grid_rows);
/// Whether geqrf factors an m x n matrix in nb x nb tiles with whole-panel tasks (QrTree::Kind::Panel) rather than
/// a Householder tree: Panel always; Auto on mappings with CUDA workers (`gpu`, not CpuOnly) for matrices of at least
/// two tile columns with m >= n that the Cholesky QR does not take (docs/qr.md has the measurements); never
/// otherwise (the CPU keeps the trees).
bool qr_uses_panel(const QrTree& tree, int64_t m, int64_t n, int64_t nb, Mapping mapping, bool gpu);
/// The inner blocking of the CPU QR kernels: nb on mappings that may run CUDA codelets (their kernels form one
/// triangular factor per tile, which every worker must read alike), else min(nb, 32).
int64_t qr_inner_block(int64_t nb, Mapping mapping, bool gpu);
/// The Cholesky QR's panel width (QRFactors::ib of its factors): `requested` (> 0) up to n, else n (one panel: the
/// Cholesky QR of the whole column) or, for the wide shapes where it measured faster on GPUs, the blocked form's
/// panels (algorithms/cholqr.cpp; docs/qr.md). STARFACT_QR_CHOLQR_PANEL=w asks for panels of w (A/B runs).
int64_t qr_cholqr_panel(int64_t m, int64_t n, int64_t requested, Mapping mapping, bool gpu);

/// What Auto means for a factorization in the matrix's own arithmetic: Trsm, for every mapping and tile size
/// (tensor-core factors: the overload of cholesky.hpp).
PanelSolve resolve_panel_solve(PanelSolve p);

/// What PanelSolve::Auto means for a factorization in arithmetic `factor` under `mapping`: Inverse for the
/// tensor-core factors (Tf32, Bf16, Fp16) of matrices that are not distributed, on the GpuOnly mapping (the
/// inversion and the products run in the tensor-core arithmetic: about 10 % faster at n = 32768 in TF32 on the H100; such
/// a factor only preconditions the refinement of a mixed-precision solve, which absorbs the inverse's weaker
/// stability); else Trsm. An explicit choice is returned as is.
PanelSolve resolve_panel_solve(PanelSolve p, Precision factor, Mapping mapping, bool distributed);

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


/// The default tile size of an m x n QR (what Tiling::nb = 0 and starpu_qr use): 192 on CPUs; on GPU mappings 2048
/// (cuSOLVER's geqrf on the tiles, gemms for the updates), and for the Cholesky QR's tall and skinny shapes
/// (qr_uses_cholqr) tiles far taller than the matrix is wide: one tile column of 32768 x n tiles (65536 from
/// m = 131072 for n <= 512; for fewer than 65536 rows, m / 2, at least n; docs/qr.md has the measurements).
template <typename T>
int64_t qr_tile_size(int64_t m, int64_t n, Mapping mapping, Residency residency, bool gpu, int gpus = 1);
/// The tile size of a mixed-precision solve and its array form's default (part of the plan, algorithms/plan.cpp):
/// tiles small enough that the factorization is a task graph of matrix products, which run in the low precision,
/// rather than one diagonal task, which does not. On GPU mappings (measured on the H100, docs/mixed_precision.md): 4096 from n = 12288 for the
/// tensor-core factors (TF32, BF16, FP16), whose panel solves recurse into tensor-core gemms, 2048 otherwise
/// (and for Fp32); 256 on CPUs.
int64_t mixed_tile_size(int64_t n, Mapping mapping, bool gpu, Precision factor = Precision::Tf32);

/// How a double solve asked for in `factor` runs (the plan, algorithms/plan.cpp): in that precision with
/// refinement (`low`), or, where the low precision cannot pay, by the double factorization; and the array form's
/// tile size for that choice. On GPU mappings the tensor-core factors (Tf32, Bf16, Fp16) pay from n = 16384:
/// below it the conversion and the refinement's latency-bound steps cost more than the faster factorization saves
/// (measured on the H100, docs/mixed_precision.md), so the double path runs and the report says so. Fp32, which buys
/// memory rather than speed, and CPU mappings always take the low precision.
struct SolvePlan {
    bool low = false;  ///< factor in `factor` and refine (else the double factorization)
    int64_t nb = 0;    ///< tile size of the array form (mixed_tile_size, or tile_plan<double>)
};
SolvePlan solve_plan(int64_t n, Mapping mapping, Residency residency, bool gpu, int gpus, Precision factor);
/// The order from which a tensor-core factor pays on GPU mappings.
constexpr int64_t kTensorCoreSolveMinOrder = 16384;

/// How a double gesv asked for in `factor` runs (the plan): in that precision with refinement (`low`), or by the
/// double LU; and the tile size for that choice. The rule is solve_plan's, with the LU's threshold
/// (kTensorCoreLuSolveMinOrder) and tiles: for the refined path mixed_tile_size (tiles smaller than the matrix, so
/// that the factorization's trailing updates are tensor-core gemms, not one float getrf on a whole-matrix tile), for
/// the double path lu_tile_size<double>.
SolvePlan lu_solve_plan(int64_t n, Mapping mapping, Residency residency, bool gpu, int gpus, Precision factor);
/// The order from which a tensor-core factor of the LU pays on GPU mappings. Measured on one H200 on a matrix of
/// condition 1e2 (docs/mixed_precision.md, "Measured: gesv"): the TF32 solve took 0.175 s at n = 16384 against the
/// double gesv's 0.130 s, and 0.591 s at 32768 against 0.637 s: the float LU's panels bound its factorization and the
/// float LU needs tens of GMRES iterations, so the refined path pays only from 32768.
constexpr int64_t kTensorCoreLuSolveMinOrder = 32768;

}  // namespace starfact::detail

// Tuning table of the fused potf2 (kernels/potf2/): per precision and tile order, the inner
// blocking `ib`, the cut-off (largest single-kernel tile), the leaf variant and the large-tile form, found
// by tools/sweep_potf2.sh (tune_potf2) on the H100 (table and numbers in docs/potf2.md), plus the entry
// point that takes an explicit configuration (used by the sweep, the benches and the tests).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/potf2/potf2.hpp"

namespace starfact::detail::gpu {

/// One configuration of the tile Cholesky: `ib` = columns per panel of the leaf kernel, `cutoff` = largest
/// tile the leaf kernel takes whole (larger tiles are split), `blocked` = tiles above the cut-off are
/// factored block column by block column with our own kernels (potf2_forms.cuh) instead of the recursive
/// halving with cuBLAS trsm/syrk, `rdiag` = the replicated-diagonal kernel (potf2_rdiag.cuh) as the leaf,
/// which in the blocked form also solves the rows below each diagonal block in the same launch; it takes
/// ib = 8 and ignores `looped` and `right_looking`. The library compiles only the rdiag leaf:
/// potf2_tile_tuned requires `rdiag` and ib = 8. `rdiag = false` names the single-block leaves of the
/// tuning tool (tools/tune/potf2/, rejected for the library: docs/potf2.md), where `looped` = the diagonal
/// block and the rows below it solved by runtime loops through shared memory instead of unrolled register
/// code, and `right_looking` = the right-looking look-ahead kernel instead of the left-looking one.
struct Potf2Config {
    int ib;
    int cutoff;
    bool looped = false;
    bool right_looking = false;
    bool blocked = false;
    bool rdiag = false;
    /// > 0: the two-stream form (potf2_forms.cuh, factor_lookahead; needs rdiag and a Potf2Aux): panels of
    /// `cutoff` columns on a chain stream, groups of `group` columns, each group's update of the rest of
    /// the matrix in gemms on the caller's stream, overlapped with the next group's panels.
    int group = 0;
    /// Columns per piece of that update (each piece: a syrk on its square, a gemm below); 0: a quarter
    /// of the columns to update (at least `group`).
    int bulk_piece = 0;
};

/// Largest tile the fused kernel can hold (the whole tile lives in shared memory: 128 x 128 doubles =
/// 128 KiB of the H100's 227 KiB per block). Every cut-off must be <= this.
constexpr int kPotf2LeafMax = 128;
/// Smallest cut-off accepted (below it the recursion only adds launches).
constexpr int kPotf2MinCutoff = 16;

/// One row of the tuning table: the configuration for tiles of order <= max_n.
struct Potf2TableRow {
    int max_n;
    Potf2Config config;
};

/// Tuning table: the fastest configuration per tile order on the H100, GPU time. Up to 3000 the one-stream
/// blocked form (`tune_potf2 --auto`, tools/sweep_potf2.sh), above the two-stream form
/// (`bench_potrf_tile --sweep`); docs/potf2.md, "Tuning". Rows by increasing max_n, the last row covers
/// every larger order. {max_n, {ib, cutoff, looped, right_looking, blocked, rdiag, group, bulk_piece}}
template <typename T> struct Potf2Table;
template <> struct Potf2Table<float> {
    static constexpr Potf2TableRow rows[] = {
        {3000, {8, 128, false, false, true, true}},
        {5000, {8, 128, false, false, true, true, 1024, 1 << 16}},
        {7000, {8, 128, false, false, true, true, 256, 1 << 16}},
        {10000, {8, 128, false, false, true, true, 512, 1 << 16}},
        {1 << 30, {8, 128, false, false, true, true, 1024}},
    };
};
template <> struct Potf2Table<double> {
    static constexpr Potf2TableRow rows[] = {
        {128, {8, 128, false, false, true, true}},
        {3000, {8, 64, false, false, true, true}},
        {14000, {8, 128, false, false, true, true, 512}},
        {1 << 30, {8, 64, false, false, true, true, 512}},
    };
};

/// The configuration potf2_tile<T> uses for an n x n tile.
template <typename T>
constexpr Potf2Config potf2_default_config(int n) {
    for (const Potf2TableRow& r : Potf2Table<T>::rows)
        if (n <= r.max_n) return r.config;
    return Potf2Table<T>::rows[sizeof(Potf2Table<T>::rows) / sizeof(Potf2TableRow) - 1].config;
}

/// Workspace bytes potf2_tile_tuned<T> needs for an n x n tile with cut-off `cutoff` (0 if none).
inline size_t potf2_workspace_bytes_for(int n, int cutoff) { return n > cutoff ? 256 : 0; }

/// potf2_tile (potf2.hpp) with an explicit configuration; throws InvalidArgument on an unsupported one.
template <typename T>
void potf2_tile_tuned(const Potf2Config& config, cublasHandle_t cublas, cudaStream_t stream, int n, T* A, int ld,
                      int* info, int64_t offset, void* workspace, size_t workspace_bytes,
                      const Potf2Aux* aux = nullptr);

}  // namespace starfact::detail::gpu

// potrs_batched (orders n <= N, see solve_staged.cuh): solves L L^T X = B for a batch of small
// systems with the factors from potrf_batched. One group of G lanes per system (potrs_group_for: 4 or 8
// for n <= 8, 16 up to n = 40 (float) / 64 (double), 32 above), WPB warps per block; each group stages its factor in
// shared memory (cp.async, all loads in flight at once, one commit group per block of G columns that
// the forward solve waits for just before its steps), then runs the forward/backward chains
// warp-synchronously; any number of right-hand sides (solved one after the other from the same
// staged factor). Grid-stride over the batch (any batch count). With `info` (the second pass of the
// two-pass posv), members whose info is not 0 are skipped: their B stays unchanged.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/batched_chol/potrf_kernel.cuh"
#include "kernels/batched_chol/solve_staged.cuh"

namespace starfact::batched::gpu {

/// Lanes per system for potrs of compiled order n: a power of two >= n for n <= 8, then 16 lanes (1..4
/// register rows each) up to n = 40 (float) / 64 (double), then a warp. Batch 10,000 on the H100: a warp
/// per system from n = 17 on left 10,000 systems at 1.2 waves; 16 lanes took float n = 17..40 10..30% and
/// double 17..64 up to 30% faster, float 44..64 up to 16% slower (four register rows of float per lane).
template <typename T>
constexpr int potrs_group_for(int n) { return n <= 4 ? 4 : n <= 8 ? 8 : n <= (sizeof(T) == 8 ? 64 : 40) ? 16 : 32; }

/// Warps per potrs block for order N: as many as fit in 48 KiB of shared memory, 1..4.
template <typename T, int N>
constexpr int potrs_warps() {
    constexpr int per_warp = (32 / potrs_group_for<T>(N)) * solve_smem_elems<T, N>() * static_cast<int>(sizeof(T));
    constexpr int w = 48 * 1024 / per_warp;
    return w < 1 ? 1 : w > 4 ? 4 : w;
}

template <typename T, int N, int G, int WPB>
__global__ void __launch_bounds__(32 * WPB)
    potrs_batched_kernel(BatchRef<T> L, int n, int lda, BatchRef<T> B, int ldb, int nrhs, const int* info,
                         int64_t batch) {
    constexpr int SPB = 32 * WPB / G;  // systems per block
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int group = threadIdx.x / G, lane = threadIdx.x % G;
    T* S = reinterpret_cast<T*>(smem_raw) + group * solve_smem_elems<T, N>();
    for (int64_t base = static_cast<int64_t>(blockIdx.x) * SPB; base < batch;
         base += static_cast<int64_t>(gridDim.x) * SPB) {
        const int64_t i = base + group;
        const bool go = i < batch && (info == nullptr || info[i] == 0);
        // every lane runs the solve (full-warp shuffles); inactive groups neither load nor store
        // the copies of later column blocks overlap the first forward steps (solve_staged: LAZY)
        const T* Li = go ? L.get(i) : nullptr;
        stage_issue<T, N, G>(Li, n, lda, go, go && stage_vec_ok(Li, lda), S, lane);
        solve_staged<T, N, G, true>(S, n, go ? B.get(i) : nullptr, ldb, nrhs, go, lane);
        __syncwarp();  // S is restaged for the next system
    }
}

}  // namespace starfact::batched::gpu

// potrs_batched (orders n <= N, see solve_group.cuh): solves L L^T X = B for a batch of small systems with the factors from potrf_batched;
// one group of G lanes (G = 32 for n > 16, fewer for tiny n) per system, 128 threads per block,
// any number of right-hand sides (solved one after the other by the same group).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "codelets/cuda/batched_chol/potrf_kernel.cuh"
#include "codelets/cuda/batched_chol/solve_group.cuh"

namespace starfact::batched::gpu {

constexpr int kPotrsBlock = 128;

template <typename T, int N, int G>
__global__ void __launch_bounds__(kPotrsBlock)
    potrs_batched_kernel(BatchRef<T> L, int n, int lda, BatchRef<T> B, int ldb, int nrhs, int64_t batch) {
    constexpr int SPB = kPotrsBlock / G;  // systems per block
    const int group = threadIdx.x / G, lane = threadIdx.x % G;
    for (int64_t base = static_cast<int64_t>(blockIdx.x) * SPB; base < batch;
         base += static_cast<int64_t>(gridDim.x) * SPB) {
        const int64_t i = base + group;
        const bool go = i < batch;
        // every lane runs the solve (full-warp shuffles); inactive groups neither load nor store
        solve_group<T, N, G>(go ? L.get(i) : nullptr, n, lda, go ? B.get(i) : nullptr, ldb, nrhs, go, lane);
    }
}

}  // namespace starfact::batched::gpu

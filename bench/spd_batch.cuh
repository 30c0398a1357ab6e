// Device-side test batches for the batched Cholesky bench and tuner: fill_spd writes `batch`
// symmetric positive definite n x n matrices (column-major, back to back), member m's entries a hash
// of (m, i, j) in [-0.5, 0.5] with n added on the diagonal (diagonally dominant, well conditioned).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace starfact::bench {

/// Leading dimension lda >= n (members lda * n apart); the padding rows i >= n get the same hash values
/// (never part of the matrix).
template <typename T>
__global__ void fill_spd(T* A, int n, int lda, int64_t batch) {
    const int64_t nn = int64_t(lda) * n, total = batch * nn;
    for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
        const int64_t m = e / nn;
        const int k = static_cast<int>(e - m * nn), i = k % lda, j = k / lda;
        const int lo = i < j ? i : j, hi = i < j ? j : i;
        uint64_t h = (static_cast<uint64_t>(m) * 1315423911u) ^ (static_cast<uint64_t>(lo) << 32) ^ (hi * 2654435761u);
        h ^= h >> 33; h *= 0xff51afd7ed558ccdULL; h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53ULL; h ^= h >> 33;
        T v = static_cast<T>(static_cast<double>(h >> 11) / 9007199254740992.0 - 0.5);
        if (i == j) v += T(n);
        A[e] = v;
    }
}

}  // namespace starfact::bench

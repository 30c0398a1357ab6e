// Device helpers shared by the batched LU kernels: lane segments (one segment of S lanes per
// matrix, S = the power of two >= n), the butterfly arg-max of the pivot search, the batch
// addressing of the strided and pointer-array layouts, and the tile staging copies.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "codelets/cuda/batched_lu/launch.hpp"

namespace starfact::batched::kernels {

__device__ __forceinline__ float abs_of(float x) { return fabsf(x); }
__device__ __forceinline__ double abs_of(double x) { return fabs(x); }

/// Smallest normal number: LAPACK scales by the reciprocal of a pivot at least this large, else divides.
template <typename T> __device__ __forceinline__ T safe_min();
template <> __device__ __forceinline__ float safe_min<float>() { return 1.17549435e-38f; }
template <> __device__ __forceinline__ double safe_min<double>() { return 2.2250738585072014e-308; }


/// Pivot search over the S lanes of a segment: the largest |value| among the candidate rows, ties
/// to the smallest logical row position (LAPACK's i?amax takes the first maximum). The maximum
/// goes through a butterfly of xor shuffles; for S < 32 the position rides along in the same
/// butterfly, for S = 32 one warp-wide __reduce_min_sync picks the first position among the lanes
/// holding the maximum. Non-candidates pass v = -1. Every lane of the segment ends with (v, pos).
template <int S, typename R>
__device__ __forceinline__ void argmax_butterfly(R& v, int& pos) {
    if constexpr (S == 32) {
        R m = v;
#pragma unroll
        for (int off = 16; off > 0; off /= 2) {
            const R o = __shfl_xor_sync(0xffffffffu, m, off);
            m = o > m ? o : m;
        }
        const unsigned key = (v == m && v >= R(0)) ? static_cast<unsigned>(pos) : 0xffffffffu;
        pos = static_cast<int>(__reduce_min_sync(0xffffffffu, key));
        v = m;
    } else {
#pragma unroll
        for (int off = S / 2; off > 0; off /= 2) {
            const R ov = __shfl_xor_sync(0xffffffffu, v, off);
            const int op = __shfl_xor_sync(0xffffffffu, pos, off);
            if (ov > v || (ov == v && op < pos)) {
                v = ov;
                pos = op;
            }
        }
    }
}

/// Copies an N x N column-major tile (leading dimension ld) into shared memory (leading
/// dimension N), the S lanes of the segment reading consecutive elements of each column.
template <typename T, int N, int S>
__device__ __forceinline__ void stage_in(T* sm, const T* A, int ld, int lane) {
#pragma unroll 4
    for (int idx = lane; idx < N * N; idx += S) {
        const int c = idx / N, r = idx - c * N;
        sm[idx] = A[r + static_cast<int64_t>(c) * ld];
    }
}
template <typename T, int N, int S>
__device__ __forceinline__ void stage_out(const T* sm, T* A, int ld, int lane) {
#pragma unroll 4
    for (int idx = lane; idx < N * N; idx += S) {
        const int c = idx / N, r = idx - c * N;
        A[r + static_cast<int64_t>(c) * ld] = sm[idx];
    }
}

}  // namespace starfact::batched::kernels

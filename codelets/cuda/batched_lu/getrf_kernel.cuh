// Batched LU with partial pivoting (LAPACK getrf semantics) for n <= 32, register version:
// a segment of S lanes factors one matrix, lane i owns row i in registers. The pivot search is a
// butterfly arg-max over the segment's shuffles; rows never move while factoring ("lazy
// swapping": each lane tracks the logical position LAPACK's row interchanges would give its row,
// and writes the row there once at the end). NFTB matrices per thread block; STAGE routes the
// global loads and stores through shared memory (coalesced tile copies) instead of direct
// per-row accesses. The kernel template and its launcher are included by the per-precision
// instantiation files and by the tuning sweep of the bench.
#pragma once
#include <climits>

#include "codelets/cuda/batched_lu/common.cuh"

namespace starfact::batched::kernels {

/// Shared memory of one block of the getrf / inverse kernels: per matrix an N x N staging tile
/// (STAGE only) and a double buffer for the broadcast pivot row.
template <typename T, int N, int NFTB, bool STAGE>
constexpr size_t lu_smem_bytes() {
    return static_cast<size_t>(NFTB) * ((STAGE ? N * N : 0) + 2 * N) * sizeof(T);
}

template <typename T, int N, int NFTB, bool STAGE>
__global__ void __launch_bounds__(seg_lanes(N) * NFTB)
getrf_kernel(BatchRef<T> A, int* __restrict__ ipiv, int64_t stride_piv, int* __restrict__ info, int64_t batch) {
    constexpr int S = seg_lanes(N);
    static_assert((S * NFTB) % 32 == 0, "a block must be whole warps");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int seg = threadIdx.x / S, lane = threadIdx.x % S;
    const int64_t b = static_cast<int64_t>(blockIdx.x) * NFTB + seg;
    const bool valid = b < batch;
    const bool active = valid && lane < N;
    T* tile = reinterpret_cast<T*>(smem_raw) + seg * ((STAGE ? N * N : 0) + 2 * N);
    T* prow = tile + (STAGE ? N * N : 0);
    T* Ab = valid ? A(b) : nullptr;

    T r[N];
    if (STAGE) {
        if (valid) stage_in<T, N, S>(tile, Ab, A.ld, lane);
        __syncwarp();
#pragma unroll
        for (int j = 0; j < N; ++j) r[j] = active ? tile[lane + j * N] : T(0);
    } else {
#pragma unroll
        for (int j = 0; j < N; ++j) r[j] = active ? Ab[lane + static_cast<int64_t>(j) * A.ld] : T(0);
    }

    int pos = lane;  // logical row position after the interchanges so far
    int my_ipiv = 0, first_zero = 0;
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const bool cand = active && pos >= k;
        T v = cand ? abs_of(r[k]) : T(-1);
        int p = cand ? pos : INT_MAX;
        argmax_butterfly<S>(v, p);
        const bool is_piv = active && pos == p;
        if (active && pos == k) pos = p;  // LAPACK swaps rows k and p
        if (is_piv) pos = k;
        if (lane == k) my_ipiv = p + 1;
        if (v == T(0) && first_zero == 0) first_zero = k + 1;
        T* buf = prow + (k & 1) * N;
        if (is_piv) {
#pragma unroll
            for (int j = k; j < N; ++j) buf[j] = r[j];
        }
        __syncwarp();
        if (active && pos > k) {
            const T piv = buf[k];
            T l = r[k];
            if (v != T(0)) l = v >= safe_min<T>() ? l * (T(1) / piv) : l / piv;
            r[k] = l;
#pragma unroll
            for (int j = k + 1; j < N; ++j) r[j] = fma(-l, buf[j], r[j]);
        }
    }

    if (STAGE) {
        if (active) {
#pragma unroll
            for (int j = 0; j < N; ++j) tile[pos + j * N] = r[j];
        }
        __syncwarp();
        if (valid) stage_out<T, N, S>(tile, Ab, A.ld, lane);
    } else if (active) {
#pragma unroll
        for (int j = 0; j < N; ++j) Ab[pos + static_cast<int64_t>(j) * A.ld] = r[j];
    }
    if (active) ipiv[b * stride_piv + lane] = my_ipiv;
    if (valid && lane == 0) info[b] = first_zero;
}

/// Grid of ceil(batch / NFTB) blocks of S * NFTB lanes; opts into large shared memory when needed.
template <typename T, int N, int NFTB, bool STAGE>
cudaError_t launch_getrf(BatchRef<T> A, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
                         cudaStream_t stream) {
    constexpr size_t smem = lu_smem_bytes<T, N, NFTB, STAGE>();
    auto* kern = getrf_kernel<T, N, NFTB, STAGE>;
    if (smem > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        if (e != cudaSuccess) return e;
    }
    const int64_t blocks = (batch + NFTB - 1) / NFTB;
    kern<<<static_cast<unsigned>(blocks), seg_lanes(N) * NFTB, smem, stream>>>(A, ipiv, stride_piv, info, batch);
    return cudaGetLastError();
}

}  // namespace starfact::batched::kernels

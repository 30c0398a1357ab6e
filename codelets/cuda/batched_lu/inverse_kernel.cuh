// Batched inversion for n <= 32 in one kernel: Gauss-Jordan elimination with partial (row)
// pivoting, fused factorization and inversion, no separate laswp / trsm passes. Lane i owns row
// i of the in-place tableau in registers; the pivot search is the same butterfly arg-max as
// getrf (so the pivot order is LAPACK's), rows never move (lazy swapping) and the column
// permutation of the in-place result is undone in the single final store:
//     C(pos(i), p_m) = r_i[m],  p_m = lane of the pivot chosen at step m, pos(i) = row i's final position.
// Singular members (an exactly zero pivot) get info = first zero pivot step and C is not written.
#pragma once
#include <climits>

#include "codelets/cuda/batched_lu/common.cuh"
#include "codelets/cuda/batched_lu/getrf_kernel.cuh"

namespace starfact::batched::kernels {

template <typename T, int N, int NFTB, bool STAGE>
__global__ void __launch_bounds__(seg_lanes(N) * NFTB)
inverse_kernel(BatchRef<T> A, BatchRef<T> C, int* __restrict__ ipiv, int64_t stride_piv, int* __restrict__ info,
               int64_t batch) {
    constexpr int S = seg_lanes(N);
    static_assert((S * NFTB) % 32 == 0, "a block must be whole warps");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int seg = threadIdx.x / S, lane = threadIdx.x % S;
    const int64_t b = static_cast<int64_t>(blockIdx.x) * NFTB + seg;
    const bool valid = b < batch;
    const bool active = valid && lane < N;
    T* tile = reinterpret_cast<T*>(smem_raw) + seg * ((STAGE ? N * N : 0) + 2 * N);
    T* prow = tile + (STAGE ? N * N : 0);
    const T* Ab = valid ? A(b) : nullptr;
    // Segment mask inside the warp, for finding the pivot's lane from a ballot.
    const int seg_shift = (threadIdx.x % 32) / S * S;
    const unsigned seg_mask = S == 32 ? 0xffffffffu : ((1u << S) - 1u);

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

    int pos = lane;
    int my_ipiv = 0, first_zero = 0;
    int piv_lane[N];
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const bool cand = active && pos >= k;
        T v = cand ? abs_of(r[k]) : T(-1);
        int p = cand ? pos : INT_MAX;
        argmax_butterfly<S>(v, p);
        const bool is_piv = active && pos == p;
        if (active && pos == k) pos = p;
        if (is_piv) pos = k;
        if (lane == k) my_ipiv = p + 1;
        if (v == T(0) && first_zero == 0) first_zero = k + 1;
        piv_lane[k] = __ffs((__ballot_sync(0xffffffffu, is_piv) >> seg_shift) & seg_mask) - 1;
        T* buf = prow + (k & 1) * N;
        if (is_piv) {
            const T dinv = T(1) / r[k];
#pragma unroll
            for (int j = 0; j < N; ++j) {
                r[j] = j == k ? dinv : r[j] * dinv;
                buf[j] = r[j];
            }
        }
        __syncwarp();
        if (active && !is_piv) {
            const T f = r[k];
            r[k] = T(0);
#pragma unroll
            for (int j = 0; j < N; ++j) r[j] = fma(-f, buf[j], r[j]);
        }
    }

    if (valid && first_zero == 0) {
        T* Cb = C(b);
        if (STAGE) {
            __syncwarp(seg_mask << seg_shift);
            if (active) {
#pragma unroll
                for (int m = 0; m < N; ++m) tile[pos + piv_lane[m] * N] = r[m];
            }
            __syncwarp(seg_mask << seg_shift);
            stage_out<T, N, S>(tile, Cb, C.ld, lane);
        } else if (active) {
#pragma unroll
            for (int m = 0; m < N; ++m) Cb[pos + static_cast<int64_t>(piv_lane[m]) * C.ld] = r[m];
        }
    }
    if (active && ipiv) ipiv[b * stride_piv + lane] = my_ipiv;
    if (valid && lane == 0) info[b] = first_zero;
}

template <typename T, int N, int NFTB, bool STAGE>
cudaError_t launch_inverse(BatchRef<T> A, BatchRef<T> C, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
                           cudaStream_t stream) {
    constexpr size_t smem = lu_smem_bytes<T, N, NFTB, STAGE>();
    auto* kern = inverse_kernel<T, N, NFTB, STAGE>;
    if (smem > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        if (e != cudaSuccess) return e;
    }
    const int64_t blocks = (batch + NFTB - 1) / NFTB;
    kern<<<static_cast<unsigned>(blocks), seg_lanes(N) * NFTB, smem, stream>>>(A, C, ipiv, stride_piv, info, batch);
    return cudaGetLastError();
}

}  // namespace starfact::batched::kernels

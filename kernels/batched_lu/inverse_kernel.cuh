// Batched inversion for n <= 32 in one kernel: Gauss-Jordan elimination with partial (row)
// pivoting, fused factorization and inversion, no separate laswp / trsm passes. Lane i owns row
// i of the in-place tableau in registers; the pivot search is getrf's (common.cuh), so the pivot
// order is LAPACK's; rows never move (lazy swapping) and the column permutation of the in-place
// result is undone in the single final store:
//     C(pos(i), p_m) = r_i[m],  p_m = lane of the pivot chosen at step m, pos(i) = row i's final position.
// Step k: the pivot lane publishes its row unscaled with its reciprocal 1/a_pk (for n > 8
// computed by every lane while the search runs); every other row i subtracts l_i = a_ik / a_pk times the
// pivot row and takes -l_i in column k; the pivot row puts 1 in column k and is scaled by 1/a_pk
// only once, at the end (the later updates are linear, so deferring the scaling gives the same
// matrix and keeps the scaling off the per-step critical path). LOOKAHEAD updates column k+1
// first and starts the next search before the rest of the update, as in getrf; MINB as in getrf.
// Singular members (an exactly zero pivot) get info = first zero pivot step and C is not written.
#pragma once
#include "kernels/batched_lu/common.cuh"

namespace starfact::batched::gpu {

template <typename T, int N, int NFTB, bool STAGE, int SEARCH, bool LOOKAHEAD, int MINB>
__global__ void __launch_bounds__(seg_lanes(N) * NFTB, MINB)
inverse_kernel(LuBatch<T> A, LuBatch<T> C, int* __restrict__ ipiv, int64_t stride_piv, int* __restrict__ info,
               int64_t batch) {
    constexpr int S = seg_lanes(N), RS = pivot_row_stride<T, N>();
    constexpr bool SPEC = search_for<S, SEARCH>() == kSearchReduce;  // as in getrf
    static_assert((S * NFTB) % 32 == 0, "a block must be whole warps");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T r[N];
    const Segment<T> sg = open_segment<T, N, NFTB, STAGE>(A, batch, smem_raw, r);
    const bool active = sg.active;
    const int seg_base = sg.wlane - sg.lane;  // warp lane of the segment's lane 0

    int pos = sg.lane;
    int my_ipiv = 0, first_zero = 0;
    unsigned piv_lanes[(N + 5) / 6] = {};  // lane of the step-m pivot, 5 bits each
    T rinv = SPEC ? rcp_speculative(r[0]) : T(0);
    T my_scale = T(1);  // 1 / this row's pivot, applied at the end
    unsigned key = pivot_search<S, SEARCH>(r[0], active, pos, sg.wlane);
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const int p = static_cast<int>(key >> 5);
        piv_lanes[k / 6] |= ((key - static_cast<unsigned>(seg_base)) & 31u) << (5 * (k % 6));
        const bool is_piv = active && pos == p;
        if (active && pos == k) pos = p;
        if (is_piv) pos = k;
        if (sg.lane == k) my_ipiv = p + 1;
        T* buf = sg.prow + (k & 1) * RS;
        if (is_piv) {
#pragma unroll
            for (int j = 0; j < N; ++j) buf[j] = r[j];
            my_scale = SPEC ? rcp_exact(r[k], rinv) : T(1) / r[k];
            buf[N] = my_scale;
            r[k] = T(1);
        }
        __syncwarp();
        const T piv = sg.valid ? buf[k] : T(1);  // the whole segment agrees on info
        if (piv == T(0) && first_zero == 0) first_zero = k + 1;
        const bool upd = active && !is_piv;
        T l = T(0);
        if (upd) l = r[k] * buf[N];
        if (LOOKAHEAD && k + 1 < N) {
            if (upd) r[k + 1] = fma(-l, buf[k + 1], r[k + 1]);
            if (SPEC) rinv = rcp_speculative(r[k + 1]);
            key = pivot_search<S, SEARCH>(r[k + 1], active && pos > k, pos, sg.wlane);
        }
        if (upd) {
#pragma unroll
            for (int j = 0; j < N; ++j)
                if (j != k && !(LOOKAHEAD && j == k + 1)) r[j] = fma(-l, buf[j], r[j]);
            r[k] = -l;
        }
        if (!LOOKAHEAD && k + 1 < N) {
            if (SPEC) rinv = rcp_speculative(r[k + 1]);
            key = pivot_search<S, SEARCH>(r[k + 1], active && pos > k, pos, sg.wlane);
        }
    }

    if (sg.valid && first_zero == 0) {
        T* Cb = C(sg.b);
        const unsigned seg_mask = (S == 32 ? 0xffffffffu : ((1u << S) - 1u)) << seg_base;
        if (STAGE) {
            __syncwarp(seg_mask);
            if (active) {
#pragma unroll
                for (int m = 0; m < N; ++m)
                    sg.tile[pos + static_cast<int>((piv_lanes[m / 6] >> (5 * (m % 6))) & 31u) * N] = r[m] * my_scale;
            }
            __syncwarp(seg_mask);
            stage_out<T, N, S>(sg.tile, Cb, C.ld, sg.lane);
        } else if (active) {
#pragma unroll
            for (int m = 0; m < N; ++m)
                Cb[pos + static_cast<int64_t>((piv_lanes[m / 6] >> (5 * (m % 6))) & 31u) * C.ld] = r[m] * my_scale;
        }
    }
    if (active && ipiv) ipiv[sg.b * stride_piv + sg.lane] = my_ipiv;
    if (sg.valid && sg.lane == 0) info[sg.b] = first_zero;
}

template <typename T, int N, int NFTB, bool STAGE, int SEARCH, bool LOOKAHEAD, int MINB = 0>
cudaError_t run_inverse(LuBatch<T> A, LuBatch<T> C, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
                        cudaStream_t stream) {
    constexpr size_t smem = lu_smem_bytes<T, N, NFTB, STAGE>();
    auto* kern = inverse_kernel<T, N, NFTB, STAGE, SEARCH, LOOKAHEAD, MINB>;
    if (smem > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        if (e != cudaSuccess) return e;
    }
    const int64_t blocks = (batch + NFTB - 1) / NFTB;
    kern<<<static_cast<unsigned>(blocks), seg_lanes(N) * NFTB, smem, stream>>>(A, C, ipiv, stride_piv, info, batch);
    return cudaGetLastError();
}

}  // namespace starfact::batched::gpu

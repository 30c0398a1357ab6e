// Batched LU with partial pivoting (LAPACK getrf semantics) for n <= 32, register version:
// a segment of S lanes factors one matrix, lane i owns row i in registers. Rows never move while
// factoring ("lazy swapping": each lane tracks the logical position LAPACK's row interchanges
// would give its row, and writes the row there once at the end). Per step k the pivot lane
// publishes its row through a double-buffered shared row, for n > 8 with its reciprocal
// (computed by every lane while the search runs, so no division sits on the step's critical
// path); with LOOKAHEAD the other lanes update column k+1 first and start the search of step k+1
// before the rest of the rank-1 update, which then overlaps the search's latency. SEARCH picks
// the pivot search (common.cuh); NFTB matrices per thread block; STAGE routes the global loads
// and stores through a shared-memory tile; MINB (> 0) caps the registers through
// __launch_bounds__. The kernel template and its launcher are included by the per-precision
// instantiation files and by the tuning sweep of the bench.
#pragma once
#include "kernels/batched_lu/common.cuh"

namespace starfact::batched::gpu {

template <typename T, int N, int NFTB, bool STAGE, int SEARCH, bool LOOKAHEAD, int MINB>
__global__ void __launch_bounds__(seg_lanes(N) * NFTB, MINB)
getrf_kernel(LuBatch<T> A, int* __restrict__ ipiv, int64_t stride_piv, int* __restrict__ info, int64_t batch) {
    constexpr int S = seg_lanes(N), RS = pivot_row_stride<T, N>();
    // Speculative reciprocals pay off where the step is latency bound (warp-reduction search,
    // n > 8); for n <= 8 the extra instructions cost more than the latency they hide.
    constexpr bool SPEC = search_for<S, SEARCH>() == kSearchReduce;
    static_assert((S * NFTB) % 32 == 0, "a block must be whole warps");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T r[N];
    const Segment<T> sg = open_segment<T, N, NFTB, STAGE>(A, batch, smem_raw, r);
    const bool active = sg.active;

    int pos = sg.lane;  // logical row position after the interchanges so far
    int my_ipiv = 0, first_zero = 0;
    // SPEC: reciprocal of this lane's entry of the pivot column (published if it is the pivot).
    T rinv = SPEC ? rcp_speculative(r[0]) : T(0);
    unsigned key = pivot_search<S, SEARCH>(r[0], active, pos, sg.wlane);
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const int p = static_cast<int>(key >> 5);
        const bool is_piv = active && pos == p;
        if (active && pos == k) pos = p;  // LAPACK swaps rows k and p
        if (is_piv) pos = k;
        if (sg.lane == k) my_ipiv = p + 1;
        T* buf = sg.prow + (k & 1) * RS;
        if (is_piv) {
#pragma unroll
            for (int j = k; j < N; ++j) buf[j] = r[j];
            if (SPEC) buf[N] = rcp_exact(r[k], rinv);
        }
        __syncwarp();
        const T piv = sg.valid ? buf[k] : T(1);  // the whole segment agrees on info
        if (piv == T(0) && first_zero == 0) first_zero = k + 1;
        const bool upd = active && pos > k;
        // Multiplier: scaled by the reciprocal when |pivot| >= the smallest normal, divided
        // otherwise, unscaled for an exactly zero pivot (LAPACK's ?getf2 / ?getrf2).
        T l = r[k];
        if (upd && piv != T(0)) l = abs_of(piv) >= safe_min<T>() ? l * (SPEC ? buf[N] : T(1) / piv) : l / piv;
        const int first_rest = LOOKAHEAD ? k + 2 : k + 1;
        if (LOOKAHEAD && k + 1 < N) {
            if (upd) {
                r[k] = l;
                r[k + 1] = fma(-l, buf[k + 1], r[k + 1]);
            }
            if (SPEC) rinv = rcp_speculative(r[k + 1]);
            key = pivot_search<S, SEARCH>(r[k + 1], active && pos > k, pos, sg.wlane);
        }
        if (upd) {
            r[k] = l;
#pragma unroll
            for (int j = first_rest; j < N; ++j) r[j] = fma(-l, buf[j], r[j]);
        }
        if (!LOOKAHEAD && k + 1 < N) {
            if (SPEC) rinv = rcp_speculative(r[k + 1]);
            key = pivot_search<S, SEARCH>(r[k + 1], active && pos > k, pos, sg.wlane);
        }
    }

    T* Ab = sg.valid ? A(sg.b) : nullptr;
    if (STAGE) {
        if (active) {
#pragma unroll
            for (int j = 0; j < N; ++j) sg.tile[pos + j * N] = r[j];
        }
        __syncwarp();
        if (sg.valid) stage_out<T, N, S>(sg.tile, Ab, A.ld, sg.lane);
    } else if (active) {
#pragma unroll
        for (int j = 0; j < N; ++j) Ab[pos + static_cast<int64_t>(j) * A.ld] = r[j];
    }
    if (active) ipiv[sg.b * stride_piv + sg.lane] = my_ipiv;
    if (sg.valid && sg.lane == 0) info[sg.b] = first_zero;
}

/// Grid of ceil(batch / NFTB) blocks of S * NFTB lanes; opts into large shared memory when needed.
template <typename T, int N, int NFTB, bool STAGE, int SEARCH, bool LOOKAHEAD, int MINB = 0>
cudaError_t run_getrf(LuBatch<T> A, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
                      cudaStream_t stream) {
    constexpr size_t smem = lu_smem_bytes<T, N, NFTB, STAGE>();
    auto* kern = getrf_kernel<T, N, NFTB, STAGE, SEARCH, LOOKAHEAD, MINB>;
    if (smem > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        if (e != cudaSuccess) return e;
    }
    const int64_t blocks = (batch + NFTB - 1) / NFTB;
    kern<<<static_cast<unsigned>(blocks), seg_lanes(N) * NFTB, smem, stream>>>(A, ipiv, stride_piv, info, batch);
    return cudaGetLastError();
}

}  // namespace starfact::batched::gpu

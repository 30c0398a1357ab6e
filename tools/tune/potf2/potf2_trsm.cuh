// Panel trsm of the blocked form with the tuning tool's single-block leaves (tools/tune/potf2/potf2_leaf.cuh,
// which factor only the diagonal block): L21 = A21 L11^{-T}, row blocks in parallel, L11 in shared memory.
// The library's replicated-diagonal kernel solves these rows in its own launch and needs no trsm.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/potf2/potf2_panel.cuh"

namespace starfact::detail::gpu::potf2_impl {

/// L21 = A21 L11^{-T} for RB rows per block: L11 and the block's rows in shared memory; per step of IB2
/// columns, one warp solves them for its rows (registers), then all threads update the columns to the
/// right. Skipped when the tile failed before column k0 (then the panel is not used).
template <typename T, int BMAX, int RB, int IB2, int NT>
__global__ void __launch_bounds__(NT, 1) potf2_trsm_kernel(PanelParams<T> p) {
    static_assert(RB == 32 && NT % RB == 0, "one warp solves the row block");
    constexpr int PH = NT / RB;  // column phases of the update
    extern __shared__ __align__(16) unsigned char potf2_panel_smem[];
    const int b = p.b, ld = p.ld, tid = static_cast<int>(threadIdx.x);
    T* Ls = reinterpret_cast<T*>(potf2_panel_smem);  // b x b, leading dimension b
    T* Xs = Ls + b * b;                               // RB x b, leading dimension RB
    T* inv = Xs + RB * b;                             // b
    if (*p.flag != 0 && *p.flag - 1 < p.k0) return;
    const int r0 = static_cast<int>(blockIdx.x) * RB;
    const int rows = min(RB, p.m - r0);

    for (int j = tid / RB; j < b; j += PH) {  // coalesced: a warp reads 32 consecutive rows
        const int i = tid % RB;
        if (i < rows) Xs[i + j * RB] = p.B[(r0 + i) + static_cast<int64_t>(j) * ld];
        for (int ii = i; ii < b; ii += RB)
            if (ii >= j) Ls[ii + j * b] = p.L[ii + static_cast<int64_t>(j) * ld];
    }
    __syncthreads();
    for (int c = tid; c < b; c += NT) inv[c] = T(1) / Ls[c + c * b];
    __syncthreads();

    for (int c0 = 0; c0 < b; c0 += IB2) {
        const int w = min(IB2, b - c0);
        if (tid < RB) {  // solve columns [c0, c0 + w) of row tid
            T x[IB2];
#pragma unroll
            for (int q = 0; q < IB2; ++q) x[q] = q < w ? Xs[tid + (c0 + q) * RB] : T(0);
#pragma unroll
            for (int q = 0; q < IB2; ++q) {
                if (q < w) {
                    x[q] *= inv[c0 + q];
#pragma unroll
                    for (int q2 = q + 1; q2 < IB2; ++q2)
                        if (q2 < w) x[q2] = fma(-x[q], Ls[(c0 + q2) + (c0 + q) * b], x[q2]);
                }
            }
#pragma unroll
            for (int q = 0; q < IB2; ++q)
                if (q < w) Xs[tid + (c0 + q) * RB] = x[q];
        }
        __syncthreads();
        if (c0 + w < b) {  // X(:, j) -= X(:, c0:c0+w) L(j, c0:c0+w)^T, j >= c0 + w
            const int i = tid % RB;
            T x[IB2];
#pragma unroll
            for (int q = 0; q < IB2; ++q) x[q] = q < w ? Xs[i + (c0 + q) * RB] : T(0);
            for (int j = c0 + w + tid / RB; j < b; j += PH) {
                T s = T(0);
#pragma unroll
                for (int q = 0; q < IB2; ++q)
                    if (q < w) s = fma(x[q], Ls[j + (c0 + q) * b], s);
                Xs[i + j * RB] -= s;
            }
        }
        __syncthreads();
    }
    for (int j = tid / RB; j < b; j += PH) {
        const int i = tid % RB;
        if (i < rows) p.B[(r0 + i) + static_cast<int64_t>(j) * ld] = Xs[i + j * RB];
    }
}

}  // namespace starfact::detail::gpu::potf2_impl

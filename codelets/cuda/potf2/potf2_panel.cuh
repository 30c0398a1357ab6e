// Kernels of the blocked form of the fused potf2 (tiles larger than the cut-off, see potf2.cu): after the
// leaf kernel factored the diagonal block L11 (b x b, b <= 128), potf2_trsm_kernel computes the panel
// below, L21 = A21 L11^{-T} (row blocks in parallel, L11 in shared memory), and potf2_syrk_kernel the
// trailing update A22 -= L21 L21^T on the lower triangle (one block per 32 x 32 tile). Both read the
// tile's failure flag first and skip work that an earlier failure made pointless.
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "codelets/cuda/potf2/pdl.cuh"

namespace starfact::detail::gpu::potf2_impl {

template <typename T>
struct PanelParams {
    const T* L;     // L11 (b x b, lower), leading dimension ld
    T* B;           // A21 (m x b) in, L21 out
    T* C;           // A22 (m x m, lower)
    int b;          // panel width (<= BMAX)
    int m;          // rows below the diagonal block
    int ld;
    const int* flag;  // tile failure flag (0 or first failing tile column, 1-based)
    int k0;           // tile column of the panel
};

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

/// A22 -= L21 L21^T, lower triangle, one TS x TS tile per block (blockIdx.x enumerates the lower tiles
/// row by row), 2 x 2 outputs per thread. Latency-bound at these sizes (m <= 512, b <= KMAX = 128): the
/// two TS x b slices of L21 go to shared memory in one batch of cp.async copies (all in flight at
/// once, one global latency), then the whole k range runs without further barriers. Dynamic shared
/// memory: 2 b (TS + 1) elements. Skipped after a failure.
template <typename T, int TS, int KMAX, int NT>
__global__ void __launch_bounds__(NT) potf2_syrk_kernel(PanelParams<T> p) {
    static_assert(TS == 32 && NT == 256 && KMAX % (NT / TS) == 0, "layout: 16 x 16 threads, 2 x 2 outputs each");
    extern __shared__ __align__(16) unsigned char potf2_syrk_smem[];
    T* Xi = reinterpret_cast<T*>(potf2_syrk_smem);  // Xi[k * (TS + 1) + i] = L21(i0 + i, k)
    pdl_wait();  // launched as a programmatic dependent of the panel kernel (potf2.cu)
    pdl_allow_next();
    if (*p.flag != 0) return;
    // Tile (I, J), I >= J, from the linear index t = I (I + 1) / 2 + J.
    const int t = static_cast<int>(blockIdx.x);
    int I = static_cast<int>((sqrtf(8.0f * t + 1.0f) - 1.0f) * 0.5f);
    while (I * (I + 1) / 2 > t) --I;
    while ((I + 1) * (I + 2) / 2 <= t) ++I;
    const int J = t - I * (I + 1) / 2;
    const int i0 = I * TS, j0 = J * TS;
    const int tid = static_cast<int>(threadIdx.x);
    const int tx = tid % 16, ty = tid / 16;
    const int ld = p.ld, m = p.m, b = p.b;
    T* Xj = I == J ? Xi : Xi + b * (TS + 1);  // a diagonal tile reads one slice twice
    const T* X = p.B;
    // Thread (row lane, k group): rows i = tid % TS, columns k = tid / TS + (NT / TS) s.
    const int li = tid % TS, lk = tid / TS;
#pragma unroll
    for (int s = 0; s < KMAX / (NT / TS); ++s) {
        const int k = lk + (NT / TS) * s;
        if (k < b) {
            T* di = Xi + k * (TS + 1) + li;
            if (i0 + li < m)
                __pipeline_memcpy_async(di, X + (i0 + li) + static_cast<int64_t>(k) * ld, sizeof(T));
            else
                *di = T(0);
            if (I != J) {
                T* dj = Xj + k * (TS + 1) + li;
                if (j0 + li < m)
                    __pipeline_memcpy_async(dj, X + (j0 + li) + static_cast<int64_t>(k) * ld, sizeof(T));
                else
                    *dj = T(0);
            }
        }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    T acc[2][2] = {{T(0), T(0)}, {T(0), T(0)}};
#pragma unroll 8
    for (int k = 0; k < b; ++k) {
        const T* xi = Xi + k * (TS + 1);
        const T* xj = Xj + k * (TS + 1);
        const T a0 = xi[tx], a1 = xi[tx + 16];
        const T c0 = xj[ty], c1 = xj[ty + 16];
        acc[0][0] = fma(a0, c0, acc[0][0]);
        acc[0][1] = fma(a0, c1, acc[0][1]);
        acc[1][0] = fma(a1, c0, acc[1][0]);
        acc[1][1] = fma(a1, c1, acc[1][1]);
    }
#pragma unroll
    for (int a = 0; a < 2; ++a)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            const int i = i0 + tx + 16 * a, j = j0 + ty + 16 * c;
            if (i < m && j < m && i >= j) p.C[i + static_cast<int64_t>(j) * ld] -= acc[a][c];
        }
}

}  // namespace starfact::detail::gpu::potf2_impl

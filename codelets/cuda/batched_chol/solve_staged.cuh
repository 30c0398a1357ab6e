// Triangular solves L L^T X = B for one small system by a group of G lanes of one warp (G a power of
// two <= 32), with the factor staged in shared memory first:
//   1. stage: every load of the lower triangle is issued up front, coalesced per column, as cp.async
//      copies straight into shared memory (hundreds of loads per lane in flight without registers),
//      packed column by column: S[pk(r, c)], pk(r, c) = c (2N - c - 1) / 2 + r, r >= c;
//      D[j] = 1 / L[j][j] once per system (off every chain).
//   2. forward L y = b (axpy form): lane l holds rows l, l+G, ... of the right-hand side in
//      registers; step j broadcasts x_j by a shuffle and every row i > j does x_i -= (L_ij D_j) x_j,
//      the coefficient read from S and scaled off the chain; y = x * D afterwards.
//   3. backward L^T z = y (axpy form on rows of L): step j (descending) broadcasts w_j and every
//      row i < j does w_i -= (L_ji D_j) w_j; z = w * D afterwards.
// The serial chain of a step is one shuffle and one FMA; shared-memory reads are independent of it.
// Orders n <= N: rows/columns n..N-1 are the identity extension (S = 0 off the diagonal, D = 1,
// right-hand side 0, never stored).
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

namespace starfact::batched::gpu {

/// Shared-memory elements one system needs: packed lower triangle + reciprocal diagonal.
template <int N>
__host__ __device__ constexpr int solve_smem_elems() {
    return N * (N + 1) / 2 + N;
}

/// Packed index of (r, c), r >= c, in the column-packed lower triangle of order N.
template <int N>
__device__ __forceinline__ int packed(int r, int c) {
    return c * (2 * N - c - 1) / 2 + r;
}

/// Stages the lower triangle of L (order n <= N, leading dimension lda) into S and its reciprocal
/// diagonal into S + N(N+1)/2. Every lane of the warp must call it (it ends with __syncwarp); L
/// written by this block must be ordered before the call by a barrier. `go` false stages the
/// identity (inactive members).
template <typename T, int N, int G>
__device__ __forceinline__ void stage_lower(const T* L, int n, int lda, bool go, T* S, int lane) {
    const int ne = go ? n : 0;
#pragma unroll 4
    for (int c = 0; c < N; ++c) {
#pragma unroll
        for (int k = 0; k < (N + G - 1) / G; ++k) {
            const int r = c + lane + k * G;
            if (r < N) {
                T* dst = S + packed<N>(r, c);
                if (r < ne && c < ne) {
                    const T* src = L + r + static_cast<long long>(c) * lda;
                    __pipeline_memcpy_async(dst, src, sizeof(T));
                } else {
                    *dst = T(0);
                }
            }
        }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncwarp();
    T* D = S + N * (N + 1) / 2;
#pragma unroll
    for (int k = 0; k < (N + G - 1) / G; ++k) {
        const int i = lane + k * G;
        if (i < N) D[i] = i < ne ? T(1) / S[packed<N>(i, i)] : T(1);
    }
    __syncwarp();
}

/// Solves with the staged factor for the nrhs columns of B (leading dimension ldb). Every lane of
/// the warp must call it (full-warp shuffles); `go` false skips loads and stores.
template <typename T, int N, int G>
__device__ __forceinline__ void solve_staged(const T* S, int n, T* B, int ldb, int nrhs, bool go, int lane) {
    static_assert(G == 1 || G == 2 || G == 4 || G == 8 || G == 16 || G == 32, "G must be a power of two <= 32");
    constexpr int RR = (N + G - 1) / G;
    constexpr unsigned kMask = 0xffffffffu;
    const T* D = S + N * (N + 1) / 2;
    // packed(j, i) for the backward step = rowbase[r] + j, i = lane + r G (i < N)
    int rowbase[RR];
    T dr[RR];
#pragma unroll
    for (int r = 0; r < RR; ++r) {
        const int i = lane + r * G;
        rowbase[r] = i < N ? i * (2 * N - i - 1) / 2 : 0;
        dr[r] = i < N ? D[i] : T(0);
    }
    for (int c = 0; c < nrhs; ++c) {
        T* b = go ? B + static_cast<long long>(c) * ldb : nullptr;
        T x[RR];
#pragma unroll
        for (int r = 0; r < RR; ++r) {
            const int i = lane + G * r;
            x[r] = (go && i < n) ? b[i] : T(0);
        }
        // forward: L y = b; step j = jb G + jl: register block jb (compile time), lane jl (a short
        // runtime loop, partly unrolled: enough look-ahead for the shared-memory reads, few registers)
#pragma unroll
        for (int jb = 0; jb < RR; ++jb) {
#pragma unroll 4
            for (int jl = 0; jl < G; ++jl) {
                const int j = jb * G + jl;
                if (N % G != 0 && j >= N) break;  // uniform
                const T dj = D[j];
                const T xj = __shfl_sync(kMask, x[jb], jl, G);
                const int col = j * (2 * N - j - 1) / 2;  // packed(i, j) = col + i
#pragma unroll
                for (int r = jb; r < RR; ++r) {
                    const int i = lane + G * r;
                    const T coef = (i > j && i < N) ? S[col + i] * dj : T(0);
                    x[r] -= coef * xj;
                }
            }
        }
#pragma unroll
        for (int r = 0; r < RR; ++r) x[r] *= dr[r];
        // backward: L^T z = y, steps j descending
#pragma unroll
        for (int jb = RR - 1; jb >= 0; --jb) {
#pragma unroll 4
            for (int jl = G - 1; jl >= 0; --jl) {
                const int j = jb * G + jl;
                if (N % G != 0 && j >= N) continue;  // uniform
                const T dj = D[j];
                const T wj = __shfl_sync(kMask, x[jb], jl, G);
#pragma unroll
                for (int r = 0; r <= jb; ++r) {
                    const int i = lane + G * r;
                    const T coef = i < j ? S[rowbase[r] + j] * dj : T(0);
                    x[r] -= coef * wj;
                }
            }
        }
#pragma unroll
        for (int r = 0; r < RR; ++r) x[r] *= dr[r];
        if (go) {
#pragma unroll
            for (int r = 0; r < RR; ++r) {
                const int i = lane + G * r;
                if (i < n) b[i] = x[r];
            }
        }
    }
}

}  // namespace starfact::batched::gpu

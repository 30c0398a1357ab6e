// Triangular solves L L^T X = B for one small system by a group of G lanes of one warp (G a power of
// two <= 32): lane l holds rows l, l+G, l+2G, ... of the current right-hand side in registers.
//   forward  L y = b   : column (axpy) form, y_j broadcast by a shuffle, column j of L read coalesced
//   backward L^T x = y : dot form, x_j = (y_j - sum_{i>j} L[i][j] x_i) / L[j][j], a G-lane
//                        shuffle reduction per column, column j of L read coalesced
// Orders n <= N: rows/columns n..N-1 act as the identity (loads synthesize it, stores skip it).
// Only the lower triangle of L is read. Diagonal reciprocals do not depend on the recurrence, so
// their loads and divisions leave the critical path (one shuffle and one FMA per column).
#pragma once
#include <cuda_runtime.h>

namespace starfact::batched::gpu {

/// Every lane of the warp must call this (full-warp shuffles); `go` false turns the loads into
/// zeros and skips the stores (inactive or failed members).
template <typename T, int N, int G>
__device__ __forceinline__ void solve_group(const T* L, int n, int lda, T* B, int ldb, int nrhs, bool go,
                                            int lane) {
    static_assert(G == 1 || G == 2 || G == 4 || G == 8 || G == 16 || G == 32, "G must be a power of two <= 32");
    constexpr int RR = (N + G - 1) / G;
    constexpr unsigned kMask = 0xffffffffu;
    for (int c = 0; c < nrhs; ++c) {
        T* b = go ? B + static_cast<int64_t>(c) * ldb : nullptr;
        T x[RR];
#pragma unroll
        for (int r = 0; r < RR; ++r) {
            const int i = lane + G * r;
            x[r] = (go && i < n) ? b[i] : T(0);
        }
        // forward: L y = b
#pragma unroll
        for (int j = 0; j < N; ++j) {
            const T inv = (go && j < n) ? T(1) / L[j + j * lda] : T(1);
            const T yj = __shfl_sync(kMask, x[j / G], j % G, G) * inv;
            if (lane == j % G) x[j / G] = yj;
#pragma unroll
            for (int r = j / G; r < RR; ++r) {
                const int i = lane + G * r;
                const T lij = (go && i > j && i < n && j < n) ? L[i + j * lda] : T(0);
                x[r] -= lij * yj;
            }
        }
        // backward: L^T x = y
#pragma unroll
        for (int j = N - 1; j >= 0; --j) {
            const T inv = (go && j < n) ? T(1) / L[j + j * lda] : T(1);
            T part = T(0);
#pragma unroll
            for (int r = j / G; r < RR; ++r) {
                const int i = lane + G * r;
                const T lij = (go && i > j && i < n && j < n) ? L[i + j * lda] : T(0);
                part += lij * x[r];
            }
#pragma unroll
            for (int o = G / 2; o > 0; o >>= 1) part += __shfl_xor_sync(kMask, part, o, G);
            const T xj = (__shfl_sync(kMask, x[j / G], j % G, G) - part) * inv;
            if (lane == j % G) x[j / G] = xj;
        }
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

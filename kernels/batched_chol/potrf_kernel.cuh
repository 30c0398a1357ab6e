// Batched small Cholesky (lower, A = L L^T) as a CUDA kernel: one matrix per group of NT threads,
// MPB matrices per thread block, the order N and the tuning parameters (NB, NT, MPB) fixed at compile
// time so that every loop over the panel unrolls and the panel lives in registers.
// Size grouping: a kernel for order N factors any n <= N as the n x n matrix extended by the identity,
// diag(A, I) = diag(L, I): the loads synthesize the identity outside n x n and the stores skip it,
// so the math itself has no bounds checks and one instantiation serves a range of orders.
//
// Algorithm (non-resident left-looking, panels of width NB):
//   for each panel P (columns C0 .. C0+W-1, W = min(NB, N - C0)), rows C0 .. N-1:
//     load the panel's lower part from global memory into registers (thread t: rows C0+t, C0+t+NT, ...)
//     for each earlier panel Q: stream L[C0:N, Q] (already stored) through shared memory and apply
//       A_P -= L[C0:N, Q] * L[C0:C0+W, Q]^T          (left-looking update, registers += smem * smem)
//       (chunks are double-buffered: cp.async copies of chunk Q+1 are in flight while chunk Q is used)
//     right-looking Cholesky inside the panel: per column k one shared-memory broadcast of the
//       panel column, sqrt/reciprocal computed by every thread, rank-1 update of the registers
// Barriers are those of the matrix's NT threads (group_sync): warp barriers when NT <= 32.
//     store the panel's lower part (the only bounds checks are on loads and stores)
// Per-matrix info: 0, or the first (1-based) column whose pivot is not a positive finite number.
// The math after a failed pivot goes on with NaNs; only info is meaningful for that member.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include <cuda_pipeline.h>

#include "kernels/batched_chol/solve_staged.cuh"

namespace starfact::batched::gpu {

/// Where the matrices of a batch live: pointer array if `ptrs` is set, else base + i * stride.
template <typename T>
struct BatchRef {
    T* base;
    T* const* ptrs;
    int64_t stride;
    __device__ __forceinline__ T* get(int64_t i) const { return ptrs ? ptrs[i] : base + i * stride; }
};

/// Reciprocal square root pair (l = sqrt(d), inv = 1 / l): IEEE sqrt and division by default,
/// the hardware rsqrt approximation when FAST.
template <bool FAST>
__device__ __forceinline__ void sqrt_inv(float d, float& l, float& inv) {
    if (FAST) { inv = rsqrtf(d); l = d * inv; }
    else { l = sqrtf(d); inv = 1.0f / l; }
}
template <bool FAST>
__device__ __forceinline__ void sqrt_inv(double d, double& l, double& inv) {
    if (FAST) { inv = rsqrt(d); l = d * inv; }
    else { l = sqrt(d); inv = 1.0 / l; }
}

template <typename T>
__device__ __forceinline__ bool good_pivot(T d) {
    return d > T(0) && isfinite(d);
}

/// The same pointer, opaque to the compiler (stops it from keeping per-element addresses alive).
template <typename T>
__device__ __forceinline__ T* launder(T* p) {
    asm volatile("" : "+l"(p));
    return p;
}

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

/// Chunk buffers of the left-looking update: 2 (double buffering) when some panel streams two or
/// more earlier panels, 1 when at most one, 0 for a single panel.
template <int N, int NB>
__host__ __device__ constexpr int potrf_chunk_buffers() {
    return ceil_div(N, NB) - 1 >= 2 ? 2 : ceil_div(N, NB) - 1;
}

/// Shared-memory elements one matrix needs: the streamed chunks (NB columns of ceil(N/NT)*NT rows
/// each) and the in-panel broadcast area (NB x NB).
template <int N, int NB, int NT>
__host__ __device__ constexpr int potrf_smem_elems() {
    return potrf_chunk_buffers<N, NB>() * NB * ceil_div(N, NT) * NT + NB * NB;
}

/// Per-matrix shared memory of the fused posv kernel: the factorization's, reused by the staged solve.
/// Rounded up to 16 bytes: the staged solve reads 16 bytes at a time at 16-byte boundaries of its system.
template <typename T, int N, int NB, int NT>
__host__ __device__ constexpr int posv_smem_elems() {
    constexpr int V = kSolveVec<T>;
    constexpr int m = potrf_smem_elems<N, NB, NT>() > solve_smem_elems<T, N>() ? potrf_smem_elems<N, NB, NT>()
                                                                              : solve_smem_elems<T, N>();
    return (m + V - 1) / V * V;
}

/// Barrier of the NT threads that factor one matrix: a warp barrier when the group lies inside one
/// warp (NT <= 32: barrier-free with respect to the rest of the block, every lane of the warp takes
/// the same path through the kernel), else the block barrier. Both order shared and global memory
/// among the threads they synchronize.
template <int NT>
__device__ __forceinline__ void group_sync() {
    if constexpr (NT <= 32) __syncwarp();
    else __syncthreads();
}

/// Blocks per SM asked of the register allocator so that OCC threads stay resident per SM (tuning
/// parameter: OCC = 256 allows up to 255 registers per thread, 512 up to 128).
template <int THREADS, int OCC>
constexpr int kMinBlocks = THREADS >= OCC ? 1 : OCC / THREADS;

/// One panel of the factorization, then the next one (compile-time recursion over panels).
template <typename T, int N, int NB, int NT, bool FAST, int P>
__device__ __forceinline__ void potrf_panel(T* A, int n, int lda, bool active, int t, T* chunk, T* bcast,
                                            int& info) {
    constexpr int C0 = P * NB;
    constexpr int W = (N - C0) < NB ? (N - C0) : NB;  // panel width
    constexpr int R = N - C0;                          // panel rows (diagonal block included)
    constexpr int S = ceil_div(R, NT);                 // rows per thread
    constexpr int SR = S * NT;                         // rows of the chunk buffer actually used

    constexpr int E = NB * R;  // elements of one streamed chunk
    T* const chunk1 = chunk + NB * SR;  // second buffer: used only when P >= 2 (then it exists)
    // Chunk q of the left-looking update: chunk[k * SR + r] = L[C0 + r][q * NB + k], r < R, k < NB
    // (earlier panels are full width), copied by cp.async (zeros outside n x n: rows C0 + r > every
    // column of panel q, so the identity extension is 0 there), then committed as one batch.
    auto issue_chunk = [&](int q, T* buf) {
        const int k0 = q * NB;
        // a rolled loop is enough: cp.async does not wait for its data, every copy stays in flight
#pragma unroll 2
        for (int it = 0; it < ceil_div(E, NT); ++it) {
            const int e = t + it * NT;
            if (e < E) {
                const int k = e / R, r = e - k * R;
                T* dst = buf + k * SR + r;
                if (active && C0 + r < n && k0 + k < n) __pipeline_memcpy_async(dst, A + (C0 + r) + (k0 + k) * lda, sizeof(T));
                else *dst = T(0);
            }
        }
        __pipeline_commit();
    };
    if constexpr (P > 0) issue_chunk(0, chunk);  // in flight during the panel loads below

    // 32-bit offsets from the panel's diagonal corner (lda * n < 2^31 is checked by the API): a
    // 64-bit address per register element would otherwise stay live from the load to the store.
    T* const Ap = active ? A + C0 + static_cast<int64_t>(C0) * lda : nullptr;
    T a[S][W];
    // ---- load the panel's lower part (upper entries read as 0, never stored) ----
#pragma unroll
    for (int j = 0; j < W; ++j) {
#pragma unroll
        for (int s = 0; s < S; ++s) {
            const int r = t + NT * s;  // row within the panel
            const bool inside = C0 + r < n && C0 + j < n;
            a[s][j] = (active && r < R && r >= j) ? (inside ? Ap[r + j * lda] : T(r == j)) : T(0);
        }
    }

    // ---- left-looking update from the earlier panels, streamed through shared memory ----
    for (int q = 0; q < P; ++q) {
        T* const cur = (q & 1) ? chunk1 : chunk;
        if (q + 1 < P) {
            issue_chunk(q + 1, (q & 1) ? chunk : chunk1);  // the other buffer: free since the last barrier
            __pipeline_wait_prior(1);                       // chunk q has landed (this thread's copies)
        } else {
            __pipeline_wait_prior(0);
        }
        group_sync<NT>();  // every thread's copies of chunk q are visible
#pragma unroll 2
        for (int k = 0; k < NB; ++k) {
            T x[S], y[W];
#pragma unroll
            for (int s = 0; s < S; ++s) x[s] = cur[k * SR + t + NT * s];
#pragma unroll
            for (int j = 0; j < W; ++j) y[j] = cur[k * SR + j];
#pragma unroll
            for (int s = 0; s < S; ++s)
#pragma unroll
                for (int j = 0; j < W; ++j) a[s][j] -= x[s] * y[j];
        }
        group_sync<NT>();  // the chunk issued in the next iteration overwrites this buffer
    }

    // ---- right-looking Cholesky of the panel, in registers ----
#pragma unroll
    for (int k = 0; k < W; ++k) {
        // publish column k of the panel's top W rows (rows >= k are the ones read)
#pragma unroll
        for (int s = 0; s < S; ++s) {
            const int r = t + NT * s;
            if (r < W && r >= k) bcast[k * NB + r] = a[s][k];
        }
        group_sync<NT>();
        const T d = bcast[k * NB + k];
        if (info == 0 && !good_pivot(d)) info = C0 + k + 1;
        T l, inv;
        sqrt_inv<FAST>(d, l, inv);
#pragma unroll
        for (int s = 0; s < S; ++s) {
            const int r = t + NT * s;
            a[s][k] = (r == k) ? l : a[s][k] * inv;
        }
#pragma unroll
        for (int j = k + 1; j < W; ++j) {
            const T ljk = static_cast<volatile T*>(bcast)[k * NB + j] * inv;
#pragma unroll
            for (int s = 0; s < S; ++s) a[s][j] -= a[s][k] * ljk;
        }
    }

    // ---- store the panel's lower part ----
    if (active) {
        T* const As = launder(Ap);  // fresh addresses: none kept live since the loads
#pragma unroll
        for (int j = 0; j < W; ++j) {
#pragma unroll
            for (int s = 0; s < S; ++s) {
                const int r = t + NT * s;
                if (r < R && r >= j && C0 + r < n && C0 + j < n) As[r + j * lda] = a[s][j];
            }
        }
    }
    if constexpr (C0 + NB < N) {
        group_sync<NT>();  // the stores above are read back by the next panel's chunks
        potrf_panel<T, N, NB, NT, FAST, P + 1>(A, n, lda, active, t, chunk, bcast, info);
    }
}

/// Factors matrix `i` of the batch with the NT threads of group threadIdx.y; every thread of the
/// block must call it (it synchronizes the block). Returns info (same value in every thread).
template <typename T, int N, int NB, int NT, bool FAST>
__device__ __forceinline__ int potrf_matrix(T* A, int n, int lda, bool active, T* mine) {
    T* chunk = mine;  // the chunk buffers, then the broadcast area
    T* bcast = chunk + potrf_chunk_buffers<N, NB>() * NB * ceil_div(N, NT) * NT;
    int info = 0;
    potrf_panel<T, N, NB, NT, FAST, 0>(A, n, lda, active, threadIdx.x, chunk, bcast, info);
    return info;
}

/// potrf_batched for orders n <= N: blockDim = (NT, MPB), OCC resident threads per SM asked for; matrix blockIdx.x * MPB + threadIdx.y (grid-stride over the batch).
template <typename T, int N, int NB, int NT, int MPB, int OCC, bool FAST>
__global__ void __launch_bounds__(NT* MPB, kMinBlocks<NT * MPB, OCC>) potrf_batched_kernel(BatchRef<T> A, int n, int lda, int* info, int64_t batch) {
    static_assert(N >= 1 && NB >= 1 && NB <= N && NT >= 1 && MPB >= 1, "bad potrf configuration");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* smem = reinterpret_cast<T*>(smem_raw);
    for (int64_t base = static_cast<int64_t>(blockIdx.x) * MPB; base < batch;
         base += static_cast<int64_t>(gridDim.x) * MPB) {
        const int64_t i = base + threadIdx.y;
        const bool active = i < batch;
        T* Ai = active ? A.get(i) : nullptr;
        const int inf = potrf_matrix<T, N, NB, NT, FAST>(Ai, n, lda, active,
                                                         smem + threadIdx.y * potrf_smem_elems<N, NB, NT>());
        if (active && threadIdx.x == 0 && info) info[i] = inf;
        group_sync<NT>();  // shared memory is reused by the next matrix
    }
}

/// posv_batched (fused): factor, then the first G = min(NT, 32) threads of the group stage L back
/// (cp.async of single elements, L1/L2-hot) into the matrix's shared memory and solve (solve_staged.cuh). A member whose
/// info != 0 keeps B unchanged.
template <typename T, int N, int NB, int NT, int MPB, int OCC, bool FAST>
__global__ void __launch_bounds__(NT* MPB, kMinBlocks<NT * MPB, OCC>)
    posv_batched_kernel(BatchRef<T> A, int n, int lda, BatchRef<T> B, int ldb, int nrhs, int* info, int64_t batch) {
    constexpr int G = NT < 32 ? NT : 32;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* smem = reinterpret_cast<T*>(smem_raw);
    for (int64_t base = static_cast<int64_t>(blockIdx.x) * MPB; base < batch;
         base += static_cast<int64_t>(gridDim.x) * MPB) {
        const int64_t i = base + threadIdx.y;
        const bool active = i < batch;
        T* Ai = active ? A.get(i) : nullptr;
        T* const mine = smem + threadIdx.y * posv_smem_elems<T, N, NB, NT>();
        const int inf = potrf_matrix<T, N, NB, NT, FAST>(Ai, n, lda, active, mine);
        if (active && threadIdx.x == 0 && info) info[i] = inf;
        group_sync<NT>();  // L (global) visible to the whole block, the chunk buffers free
        if (threadIdx.x < G) {
            // Groups of G lanes are warp-aligned (NT is a power of two or a multiple of 32), and every
            // lane of such a warp takes part in the shuffles and __syncwarp, so full-warp masks are safe.
            const bool go = active && inf == 0;
            stage_lower<T, N, G>(Ai, n, lda, go, /*vec=*/false, mine, threadIdx.x);  // any alignment
            solve_staged<T, N, G, false>(mine, n, active ? B.get(i) : nullptr, ldb, nrhs, go, threadIdx.x);
        }
        group_sync<NT>();
    }
}

}  // namespace starfact::batched::gpu

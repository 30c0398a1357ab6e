// Batched solve with getrf's factors (LAPACK getrs, no transpose) for n <= 32 and any nrhs, and
// the inverse from factors (getri: the same solve with the identity as right-hand side, written
// to a separate output). One block per matrix: the factors and the row permutation are staged in
// shared memory (every lane reads the same entry: broadcasts), each lane solves whole columns of
// B held in registers.
#pragma once
#include "kernels/batched_lu/common.cuh"

namespace starfact::batched::gpu {

constexpr int kGetrsThreads = 32;

template <typename T, int N>
__global__ void __launch_bounds__(kGetrsThreads)
getrs_kernel(LuBatch<T> LU, const int* __restrict__ ipiv, int64_t stride_piv, LuBatch<T> B, LuBatch<T> X,
             int nrhs, bool identity_rhs) {
    __shared__ T lu[N * N];
    __shared__ int perm[N];
    const int64_t b = blockIdx.x;
    const int tid = threadIdx.x;
    stage_in<T, N, kGetrsThreads>(lu, LU(b), LU.ld, tid);
    if (tid == 0) {
        for (int i = 0; i < N; ++i) perm[i] = i;
        const int* pv = ipiv + b * stride_piv;
        for (int k = 0; k < N; ++k) {
            const int p = min(max(pv[k] - 1, k), N - 1);  // LAPACK: k <= ipiv[k]-1 < n
            const int t = perm[k];
            perm[k] = perm[p];
            perm[p] = t;
        }
    }
    __syncthreads();
    // Volatile reads keep the factors in shared memory: hoisting all n^2 of them out of the
    // column loop into registers would spill.
    const volatile T* f = lu;
    const T* Bb = identity_rhs ? nullptr : B(b);
    T* Xb = X(b);
    for (int j = tid; j < nrhs; j += kGetrsThreads) {
        T x[N];
#pragma unroll
        for (int i = 0; i < N; ++i)
            x[i] = identity_rhs ? T(perm[i] == j ? 1 : 0) : Bb[perm[i] + static_cast<int64_t>(j) * B.ld];
#pragma unroll
        for (int k = 0; k < N; ++k) {
#pragma unroll
            for (int i = k + 1; i < N; ++i) x[i] = fma(-f[i + k * N], x[k], x[i]);
        }
#pragma unroll
        for (int k = N - 1; k >= 0; --k) {
            x[k] /= f[k + k * N];
#pragma unroll
            for (int i = 0; i < k; ++i) x[i] = fma(-f[i + k * N], x[k], x[i]);
        }
#pragma unroll
        for (int i = 0; i < N; ++i) Xb[i + static_cast<int64_t>(j) * X.ld] = x[i];
    }
}

template <typename T, int N>
cudaError_t run_getrs(LuBatch<T> LU, const int* ipiv, int64_t stride_piv, LuBatch<T> B, LuBatch<T> X, int nrhs,
                      bool identity_rhs, int64_t batch, cudaStream_t stream) {
    getrs_kernel<T, N><<<static_cast<unsigned>(batch), kGetrsThreads, 0, stream>>>(LU, ipiv, stride_piv, B, X, nrhs,
                                                                                   identity_rhs);
    return cudaGetLastError();
}

}  // namespace starfact::batched::gpu

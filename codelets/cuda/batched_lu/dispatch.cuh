// Dispatchers from the runtime order n (1..32) to the kernel instantiation the tuning table
// picks; included once per precision by the *_float.cu / *_double.cu files.
#pragma once
#include "codelets/cuda/batched_lu/getrf_kernel.cuh"
#include "codelets/cuda/batched_lu/getrs_kernel.cuh"
#include "codelets/cuda/batched_lu/inverse_kernel.cuh"
#include "codelets/cuda/batched_lu/launch.hpp"
#include "codelets/cuda/batched_lu/tuning.hpp"

namespace starfact::batched::kernels {

template <typename T, int N = 1>
cudaError_t getrf_dispatch_from(int n, BatchRef<T> A, int* ipiv, int64_t sp, int* info, int64_t batch,
                                cudaStream_t s) {
    if (n == N) {
        constexpr LuConfig c = getrf_config<T>(N);
        return launch_getrf<T, N, c.nftb, c.stage, c.search, c.lookahead, c.minb>(A, ipiv, sp, info, batch, s);
    }
    if constexpr (N < 32) return getrf_dispatch_from<T, N + 1>(n, A, ipiv, sp, info, batch, s);
    return cudaErrorInvalidValue;
}

template <typename T, int N = 1>
cudaError_t inverse_dispatch_from(int n, BatchRef<T> A, BatchRef<T> C, int* ipiv, int64_t sp, int* info,
                                  int64_t batch, cudaStream_t s) {
    if (n == N) {
        constexpr LuConfig c = inverse_config<T>(N);
        return launch_inverse<T, N, c.nftb, c.stage, c.search, c.lookahead, c.minb>(A, C, ipiv, sp, info, batch, s);
    }
    if constexpr (N < 32) return inverse_dispatch_from<T, N + 1>(n, A, C, ipiv, sp, info, batch, s);
    return cudaErrorInvalidValue;
}

template <typename T, int N = 1>
cudaError_t getrs_dispatch_from(int n, BatchRef<T> LU, const int* ipiv, int64_t sp, BatchRef<T> B, BatchRef<T> X,
                                int nrhs, bool identity, int64_t batch, cudaStream_t s) {
    if (n == N) return launch_getrs<T, N>(LU, ipiv, sp, B, X, nrhs, identity, batch, s);
    if constexpr (N < 32) return getrs_dispatch_from<T, N + 1>(n, LU, ipiv, sp, B, X, nrhs, identity, batch, s);
    return cudaErrorInvalidValue;
}

template <typename T>
cudaError_t getrf_dispatch(int n, BatchRef<T> A, int* ipiv, int64_t sp, int* info, int64_t batch, cudaStream_t s) {
    return getrf_dispatch_from<T>(n, A, ipiv, sp, info, batch, s);
}
template <typename T>
cudaError_t inverse_dispatch(int n, BatchRef<T> A, BatchRef<T> C, int* ipiv, int64_t sp, int* info, int64_t batch,
                             cudaStream_t s) {
    return inverse_dispatch_from<T>(n, A, C, ipiv, sp, info, batch, s);
}
template <typename T>
cudaError_t getrs_dispatch(int n, BatchRef<T> LU, const int* ipiv, int64_t sp, BatchRef<T> B, BatchRef<T> X, int nrhs,
                           bool identity, int64_t batch, cudaStream_t s) {
    return getrs_dispatch_from<T>(n, LU, ipiv, sp, B, X, nrhs, identity, batch, s);
}

}  // namespace starfact::batched::kernels

// Internal: the batch addressing struct and the per-precision dispatchers (n -> kernel
// instantiation chosen by the tuning table) that the host API and the StarPU codelet call.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#if defined(__CUDACC__)
#define STARFACT_BLU_HD __host__ __device__ __forceinline__
#else
#define STARFACT_BLU_HD inline
#endif
#if defined(__CUDACC__)
#define STARFACT_BLU_CONSTEXPR __host__ __device__ constexpr
#else
#define STARFACT_BLU_CONSTEXPR constexpr
#endif

namespace starfact::batched::kernels {

/// Lanes per matrix: the smallest power of two >= n (n <= 32), so segments never straddle a warp.
STARFACT_BLU_CONSTEXPR int seg_lanes(int n) {
    return n <= 1 ? 1 : n <= 2 ? 2 : n <= 4 ? 4 : n <= 8 ? 8 : n <= 16 ? 16 : 32;
}

/// One matrix of a batch: base + b * stride (strided layout) or ptrs[b] (pointer array).
template <typename T>
struct BatchRef {
    T* base;
    T* const* ptrs;
    int64_t stride;
    int ld;
    STARFACT_BLU_HD T* operator()(int64_t b) const { return ptrs ? ptrs[b] : base + b * stride; }
};

template <typename T>
cudaError_t getrf_dispatch(int n, BatchRef<T> A, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
                           cudaStream_t stream);
template <typename T>
cudaError_t inverse_dispatch(int n, BatchRef<T> A, BatchRef<T> C, int* ipiv, int64_t stride_piv, int* info,
                             int64_t batch, cudaStream_t stream);
template <typename T>
cudaError_t getrs_dispatch(int n, BatchRef<T> LU, const int* ipiv, int64_t stride_piv, BatchRef<T> B, BatchRef<T> X,
                           int nrhs, bool identity_rhs, int64_t batch, cudaStream_t stream);

}  // namespace starfact::batched::kernels

// Internal host-side entry points of the batched LU kernels: the batch addressing struct and the
// launchers from a runtime order n to the kernel instance the tuning table picks (dispatch.cuh), used
// by the public device API (algorithms/batched_lu_device.cpp), the chunk codelet (codelets/batched_lu_chunk.cpp)
// and the bench.
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

namespace starfact::batched::gpu {

/// Lanes per matrix: the smallest power of two >= n (n <= 32), so segments never straddle a warp.
STARFACT_BLU_CONSTEXPR int seg_lanes(int n) {
    return n <= 1 ? 1 : n <= 2 ? 2 : n <= 4 ? 4 : n <= 8 ? 8 : n <= 16 ? 16 : 32;
}

/// The matrices of an LU batch: member b at base + b * stride (strided layout) or ptrs[b] (pointer array),
/// with their leading dimension (the Cholesky kernels' BatchRef leaves ld to a separate argument).
template <typename T>
struct LuBatch {
    T* base;
    T* const* ptrs;
    int64_t stride;
    int ld;
    STARFACT_BLU_HD T* operator()(int64_t b) const { return ptrs ? ptrs[b] : base + b * stride; }
};

/// getrf (pivots at ipiv + b * stride_piv), the fused inverse (C may be A; ipiv may be null) and the solve
/// with the factors (identity_rhs: B is the identity, generated on the fly: getri) of order n = 1..32;
/// cudaErrorInvalidValue for other n.
template <typename T>
cudaError_t launch_getrf(int n, LuBatch<T> A, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
                         cudaStream_t stream);
template <typename T>
cudaError_t launch_inverse(int n, LuBatch<T> A, LuBatch<T> C, int* ipiv, int64_t stride_piv, int* info,
                           int64_t batch, cudaStream_t stream);
template <typename T>
cudaError_t launch_getrs(int n, LuBatch<T> LU, const int* ipiv, int64_t stride_piv, LuBatch<T> B, LuBatch<T> X,
                         int nrhs, bool identity_rhs, int64_t batch, cudaStream_t stream);

}  // namespace starfact::batched::gpu

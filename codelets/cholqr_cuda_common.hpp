// Shared by the Cholesky QR's CUDA implementations (codelets/cholqr_cuda.cpp: the factorization;
// codelets/cholqr_apply_cuda.cpp: applying Q): error checks, copies, and the sizes of the Gram's and products'
// partial sums in the worker's workspace.
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <starpu.h>

#include <cstddef>

namespace starfact::detail::cholqr {

inline void ok(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_ABORT_MSG("starfact: cuBLAS %s failed (status %d)", what, static_cast<int>(s));
}
inline void ok(cudaError_t e, const char* what) {
    if (e != cudaSuccess) STARPU_ABORT_MSG("starfact: %s failed: %s", what, cudaGetErrorString(e));
}

template <typename T>
void copy_async(int m, int n, const T* src, int lds, T* dst, int ldd, cudaStream_t stream) {
    if (m > 0 && n > 0)
        ok(cudaMemcpy2DAsync(dst, sizeof(T) * ldd, src, sizeof(T) * lds, sizeof(T) * m, n, cudaMemcpyDeviceToDevice,
                             stream),
           "cudaMemcpy2DAsync");
}

/// Products with a small result and a depth of thousands of rows (the Gram matrices, Y^T C) are summed from partial
/// products over chunks of the depth (one strided batched gemm into the worker's workspace): a single gemm would keep
/// a few of the GPU's multiprocessors busy. About kChunkBlocks result blocks of 128 x 128 in all, chunks of at least
/// kChunkMinDepth rows.
constexpr int kChunkBlocks = 64;
constexpr int kChunkMinDepth = 512;
template <typename T>
constexpr size_t partials_bytes() {
    return static_cast<size_t>(kChunkBlocks) * 128 * 128 * sizeof(T);
}

}  // namespace starfact::detail::cholqr
#endif

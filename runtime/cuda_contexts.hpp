// Internal: per-CUDA-worker cuSOLVER handle, workspace and info scratch, created once per Runtime
// on each worker's own thread and bound to StarPU's per-worker stream. cuBLAS handles are StarPU's
// (starpu_cublas_init / starpu_cublas_get_local_handle).
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#endif
#include <cstddef>
#include <string>
#include <vector>

namespace starfact::detail {

struct CudaWorkerContext {
#ifdef STARFACT_HAVE_CUDA
    cusolverDnHandle_t solver = nullptr;
    cudaStream_t stream = nullptr;
#endif
    void* work = nullptr;      // device workspace (cuSOLVER)
    size_t work_bytes = 0;
    int* dev_info = nullptr;   // one device int for cuSOLVER's devInfo
};

struct CudaContexts {
    std::vector<CudaWorkerContext> per_worker;  // indexed by StarPU worker id
    CudaWorkerContext& local() const;           // the calling CUDA worker's context
#ifdef STARFACT_HAVE_CUDA
    /// Grows every CUDA worker's workspace to at least bytes_for(its handle, n) (runs on each
    /// worker's thread, between task graphs).
    void reserve(int n, size_t (*bytes_for)(cusolverDnHandle_t, int));
#endif
    void create();   // on each CUDA worker
    void destroy();  // on each CUDA worker
};

#ifdef STARFACT_HAVE_CUDA
void check_cuda(cudaError_t e, const char* what);
void check_cublas(cublasStatus_t s, const char* what);
void check_cusolver(cusolverStatus_t s, const char* what);
#endif

}  // namespace starfact::detail

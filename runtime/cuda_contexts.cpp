// Per-CUDA-worker cuSOLVER handles, workspaces and info scratch.
#include "runtime/cuda_contexts.hpp"

#include <starpu.h>

#include <string>

#include "starfact/error.hpp"

namespace starfact::detail {

#ifdef STARFACT_HAVE_CUDA
void check_cuda(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw RuntimeError(std::string(what) + ": " + cudaGetErrorString(e));
}
void check_cublas(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS) throw RuntimeError(std::string(what) + ": cuBLAS status " + std::to_string(s));
}
void check_cusolver(cusolverStatus_t s, const char* what) {
    if (s != CUSOLVER_STATUS_SUCCESS)
        throw RuntimeError(std::string(what) + ": cuSOLVER status " + std::to_string(s));
}

namespace {
// Worker-side bodies: StarPU calls them on each CUDA worker's own thread (exceptions must not
// cross StarPU's C frames, so failures abort with a message, as StarPU itself does).
void create_on_worker(void* arg) {
    auto* ctxs = static_cast<CudaContexts*>(arg);
    CudaWorkerContext& c = ctxs->per_worker[starpu_worker_get_id_check()];
    c.stream = starpu_cuda_get_local_stream();
    if (cusolverDnCreate(&c.solver) != CUSOLVER_STATUS_SUCCESS) STARPU_ABORT_MSG("cusolverDnCreate failed");
    cusolverDnSetStream(c.solver, c.stream);
    if (cudaMalloc(&c.dev_info, sizeof(int)) != cudaSuccess) STARPU_ABORT_MSG("cudaMalloc(devInfo) failed");
}
void destroy_on_worker(void* arg) {
    auto* ctxs = static_cast<CudaContexts*>(arg);
    CudaWorkerContext& c = ctxs->per_worker[starpu_worker_get_id_check()];
    cudaStreamSynchronize(c.stream);
    if (c.solver) cusolverDnDestroy(c.solver);
    cudaFree(c.work);
    cudaFree(c.dev_info);
    c = CudaWorkerContext{};
}
struct Reserve {
    CudaContexts* ctxs;
    int n;
    size_t (*bytes_for)(cusolverDnHandle_t, int);
};
void reserve_on_worker(void* arg) {
    auto* r = static_cast<Reserve*>(arg);
    CudaWorkerContext& c = r->ctxs->per_worker[starpu_worker_get_id_check()];
    const size_t bytes = r->bytes_for(c.solver, r->n);
    if (c.work_bytes >= bytes) return;
    cudaStreamSynchronize(c.stream);
    cudaFree(c.work);
    c.work = nullptr;
    c.work_bytes = 0;
    if (cudaMalloc(&c.work, bytes) != cudaSuccess) STARPU_ABORT_MSG("cudaMalloc(workspace) failed");
    c.work_bytes = bytes;
}
}  // namespace

void CudaContexts::create() {
    per_worker.assign(starpu_worker_get_count(), CudaWorkerContext{});
    starpu_execute_on_each_worker(create_on_worker, this, STARPU_CUDA);
}
void CudaContexts::destroy() { starpu_execute_on_each_worker(destroy_on_worker, this, STARPU_CUDA); }
void CudaContexts::reserve(int n, size_t (*bytes_for)(cusolverDnHandle_t, int)) {
    Reserve r{this, n, bytes_for};
    starpu_execute_on_each_worker(reserve_on_worker, &r, STARPU_CUDA);
}
#else
void CudaContexts::create() {}
void CudaContexts::destroy() {}
#endif

CudaWorkerContext& CudaContexts::local() const {
    return const_cast<CudaWorkerContext&>(per_worker[starpu_worker_get_id_check()]);
}

}  // namespace starfact::detail

// Per-CUDA-worker cuSOLVER handles, workspaces and info scratch.
#include "runtime/cuda_contexts.hpp"

#include <starpu.h>
#ifdef STARFACT_HAVE_CUDA
#include <starpu_cublas_v2.h>
#endif

#include <cstdlib>
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
    int least = 0, greatest = 0;
    cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (cudaStreamCreateWithPriority(&c.aux_stream, cudaStreamNonBlocking, greatest) != cudaSuccess)
        STARPU_ABORT_MSG("cudaStreamCreateWithPriority failed");
    if (cublasCreate(&c.aux_cublas) != CUBLAS_STATUS_SUCCESS) STARPU_ABORT_MSG("cublasCreate failed");
    cublasSetStream(c.aux_cublas, c.aux_stream);
    cublasSetPointerMode(c.aux_cublas, CUBLAS_POINTER_MODE_HOST);
    for (cudaEvent_t& e : c.aux_events)
        if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess)
            STARPU_ABORT_MSG("cudaEventCreateWithFlags failed");
}
void destroy_on_worker(void* arg) {
    auto* ctxs = static_cast<CudaContexts*>(arg);
    CudaWorkerContext& c = ctxs->per_worker[starpu_worker_get_id_check()];
    cudaStreamSynchronize(c.stream);
    if (c.solver) cusolverDnDestroy(c.solver);
    if (c.aux_stream) cudaStreamSynchronize(c.aux_stream);
    if (c.aux_cublas) cublasDestroy(c.aux_cublas);
    for (cudaEvent_t e : c.aux_events)
        if (e) cudaEventDestroy(e);
    if (c.aux_stream) cudaStreamDestroy(c.aux_stream);
    cudaFree(c.work);
    cudaFree(c.scratch);
    cudaFree(c.dev_info);
    std::free(c.host_work);
    c = CudaWorkerContext{};
}
struct Reserve {
    CudaContexts* ctxs;
    int n;
    Workspace (*need)(cusolverDnHandle_t, int);
};
void grow_device(cudaStream_t stream, void** p, size_t* have, size_t want) {
    if (*have >= want) return;
    cudaStreamSynchronize(stream);
    cudaFree(*p);
    *p = nullptr;
    *have = 0;
    if (cudaMalloc(p, want) != cudaSuccess) STARPU_ABORT_MSG("cudaMalloc(workspace) failed");
    *have = want;
}
void reserve_on_worker(void* arg) {
    auto* r = static_cast<Reserve*>(arg);
    CudaWorkerContext& c = r->ctxs->per_worker[starpu_worker_get_id_check()];
    const Workspace w = r->need(c.solver, r->n);
    grow_device(c.stream, &c.work, &c.work_bytes, w.device);
    grow_device(c.stream, &c.scratch, &c.scratch_bytes, w.scratch);
    if (c.host_work_bytes < w.host) {
        cudaStreamSynchronize(c.stream);
        std::free(c.host_work);
        c.host_work = std::malloc(w.host);
        if (!c.host_work) STARPU_ABORT_MSG("malloc(host workspace) failed");
        c.host_work_bytes = w.host;
    }
}
}  // namespace

namespace gpu {
WorkerStream::WorkerStream(CudaContexts* contexts, bool urgent) : c_(contexts->local()), urgent_(urgent) {
    stream = urgent ? c_.aux_stream : c_.stream;
    cublas = urgent ? c_.aux_cublas : starpu_cublas_get_local_handle();
}
WorkerStream::~WorkerStream() {
    if (!urgent_) return;
    cudaEventRecord(c_.aux_events[1], c_.aux_stream);
    cudaStreamWaitEvent(c_.stream, c_.aux_events[1], 0);
}
}  // namespace gpu

void CudaContexts::create() {
    per_worker.assign(starpu_worker_get_count(), CudaWorkerContext{});
    starpu_execute_on_each_worker(create_on_worker, this, STARPU_CUDA);
}
void CudaContexts::destroy() { starpu_execute_on_each_worker(destroy_on_worker, this, STARPU_CUDA); }
void CudaContexts::reserve(int n, Workspace (*need)(cusolverDnHandle_t, int)) {
    std::lock_guard<std::mutex> lock(reserved_mutex_);
    auto it = reserved_.find(need);
    if (it != reserved_.end() && it->second >= n) return;
    Reserve r{this, n, need};
    starpu_execute_on_each_worker(reserve_on_worker, &r, STARPU_CUDA);
    reserved_[need] = n;
}
#else
void CudaContexts::create() {}
void CudaContexts::destroy() {}
#endif

CudaWorkerContext& CudaContexts::local() const {
    return const_cast<CudaWorkerContext&>(per_worker[starpu_worker_get_id_check()]);
}

}  // namespace starfact::detail

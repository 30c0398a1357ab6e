// Internal: per-CUDA-worker cuSOLVER handle, workspace and info scratch, created once per Runtime
// on each worker's own thread and bound to StarPU's per-worker stream, and WorkerStream, the stream and
// cuBLAS handle a CUDA codelet runs on. cuBLAS handles are StarPU's (starpu_cublas_init /
// starpu_cublas_get_local_handle).
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <starpu.h>  // before starpu_cublas_v2.h, which needs starpu_config.h's STARPU_USE_CUDA
#include <starpu_cublas_v2.h>
#endif
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace starfact::detail {

struct CudaWorkerContext {
#ifdef STARFACT_HAVE_CUDA
    cusolverDnHandle_t solver = nullptr;
    cudaStream_t stream = nullptr;
#endif
    void* work = nullptr;       // device workspace (cuSOLVER, our kernels)
    size_t work_bytes = 0;
    void* host_work = nullptr;  // host workspace (cuSOLVER's 64-bit API)
    size_t host_work_bytes = 0;
    void* scratch = nullptr;    // one tile of device scratch (out-of-place products)
    size_t scratch_bytes = 0;
    int* dev_info = nullptr;    // one device int for cuSOLVER's devInfo
#ifdef STARFACT_HAVE_CUDA
    // A second stream (highest priority) with its cuBLAS handle and two events: the chain stream of
    // the two-stream large-tile potrf (kernels/potf2/, Potf2Aux).
    cudaStream_t aux_stream = nullptr;
    cublasHandle_t aux_cublas = nullptr;
    cudaEvent_t aux_events[2] = {nullptr, nullptr};
#endif
};

/// Workspace a kernel needs on each CUDA worker for tiles of order n.
struct Workspace {
    size_t device = 0, host = 0, scratch = 0;
};

struct CudaContexts {
    std::vector<CudaWorkerContext> per_worker;  // indexed by StarPU worker id
    CudaWorkerContext& local() const;           // the calling CUDA worker's context
#ifdef STARFACT_HAVE_CUDA
    /// Grows every CUDA worker's buffers to at least need(its handle, n), field by field (runs on
    /// each worker's thread, between task graphs; buffers never shrink). A repeated call for an order
    /// already reserved with the same `need` returns at once: the round trip through every worker
    /// (starpu_execute_on_each_worker) cost ~0.5 ms per factorization on the H100 machine.
    void reserve(int n, Workspace (*need)(cusolverDnHandle_t, int));

private:
    std::mutex reserved_mutex_;
    std::map<Workspace (*)(cusolverDnHandle_t, int), int> reserved_;  // largest n reserved per `need`
public:
#endif
    void create();   // on each CUDA worker
    void destroy();  // on each CUDA worker
};

#ifdef STARFACT_HAVE_CUDA
namespace gpu {
/// Where a CUDA codelet issues its work: StarPU's stream and cuBLAS handle of the worker, or, for a task
/// the DAG marked urgent (its critical path: TaskOptions::urgent), the worker's highest-priority stream,
/// whose thread blocks the GPU schedules ahead of those queued by the other workers' streams. Urgent work
/// is joined back into the worker's stream when the scope ends (StarPU detects the task's completion
/// there). Its predecessors are complete when StarPU starts the task, so it waits for nothing else.
/// It lives in the runtime, beside the per-worker contexts it draws on: it wraps StarPU's per-worker stream,
/// which kernels/ must not know, and it names no codelet. The codelets open one and pass its stream and
/// handle to the kernels.
class WorkerStream {
public:
    WorkerStream(CudaContexts* contexts, bool urgent);  // runtime/cuda_contexts.cpp
    ~WorkerStream();
    WorkerStream(const WorkerStream&) = delete;
    WorkerStream& operator=(const WorkerStream&) = delete;
    cudaStream_t stream;
    cublasHandle_t cublas;

private:
    CudaWorkerContext& c_;
    bool urgent_;
};
}  // namespace gpu

void check_cuda(cudaError_t e, const char* what);
void check_cublas(cublasStatus_t s, const char* what);
void check_cusolver(cusolverStatus_t s, const char* what);
#endif

}  // namespace starfact::detail

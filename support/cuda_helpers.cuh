// CUDA helpers of the GPU baselines (reference_cuda.cu, gemm_ceiling.cu): status checks that throw, owners of
// CUDA, cuBLAS and cuSOLVER objects, device allocation, and runs timed with CUDA events. Internal to support/.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace starfact::support::cuda {

inline void ok(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
inline void ok(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}
inline void ok(cusolverStatus_t s, const char* what) {
    if (s != CUSOLVER_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + ": cuSOLVER status " + std::to_string(s));
}

/// Owners that release a CUDA, cuBLAS or cuSOLVER object on every exit path.
template <auto Destroy>
struct Destroyer {
    template <typename P>
    void operator()(P p) const { Destroy(p); }
};
template <typename Handle, auto Destroy>
using Owned = std::unique_ptr<std::remove_pointer_t<Handle>, Destroyer<Destroy>>;
using Stream = Owned<cudaStream_t, cudaStreamDestroy>;
using Event = Owned<cudaEvent_t, cudaEventDestroy>;
using BlasHandle = Owned<cublasHandle_t, cublasDestroy>;
using SolverHandle = Owned<cusolverDnHandle_t, cusolverDnDestroy>;
using SolverParams = Owned<cusolverDnParams_t, cusolverDnDestroyParams>;
template <typename T>
using DevicePtr = std::unique_ptr<T, Destroyer<cudaFree>>;
template <typename T>
using PinnedPtr = std::unique_ptr<T, Destroyer<cudaFreeHost>>;

/// A cuSOLVER handle on a stream of its own, with the 64-bit API's params when `x_api`.
struct Solver {
    Stream stream;  // declared first: released after the handle and the params
    SolverHandle handle;
    SolverParams params;

    explicit Solver(bool x_api) {
        cusolverDnHandle_t h = nullptr;
        ok(cusolverDnCreate(&h), "cusolverDnCreate");
        handle.reset(h);
        if (x_api) {
            cusolverDnParams_t p = nullptr;
            ok(cusolverDnCreateParams(&p), "cusolverDnCreateParams");
            params.reset(p);
        }
        cudaStream_t s = nullptr;
        ok(cudaStreamCreate(&s), "cudaStreamCreate");
        stream.reset(s);
        ok(cusolverDnSetStream(h, s), "cusolverDnSetStream");
    }
};

template <typename T>
DevicePtr<T> device_alloc(size_t count, const char* what) {
    T* p = nullptr;
    ok(cudaMalloc(&p, count * sizeof(T)), what);
    return DevicePtr<T>(p);
}

inline Event new_event() {
    cudaEvent_t e = nullptr;
    cudaEventCreate(&e);
    return Event(e);
}

inline BlasHandle new_blas() {
    cublasHandle_t h = nullptr;
    ok(cublasCreate(&h), "cublasCreate");
    return BlasHandle(h);
}

/// warmup + repeat runs on `stream`: `restore` (untimed), then `call` between two CUDA events; the seconds of the
/// runs after the warm-up.
template <typename Restore, typename Call>
std::vector<double> timed_runs(cudaStream_t stream, int warmup, int repeat, Restore restore, Call call) {
    const Event e0 = new_event(), e1 = new_event();
    std::vector<double> seconds;
    for (int run = 0; run < warmup + repeat; ++run) {
        restore();
        cudaEventRecord(e0.get(), stream);
        call();
        cudaEventRecord(e1.get(), stream);
        ok(cudaEventSynchronize(e1.get()), "cudaEventSynchronize");
        float ms = 0;
        cudaEventElapsedTime(&ms, e0.get(), e1.get());
        if (run >= warmup) seconds.push_back(ms * 1e-3);
    }
    return seconds;
}

template <typename T>
size_t matrix_bytes(int64_t n) {
    return static_cast<size_t>(n) * n * sizeof(T);
}

/// Makes `device` the calling thread's current CUDA device for the guard's lifetime (handles, streams and
/// allocations belong to the device current when they are made: a baseline whose handle sat on another GPU than
/// its matrix would time peer accesses).
class DeviceGuard {
public:
    explicit DeviceGuard(int device) {
        ok(cudaGetDevice(&before_), "cudaGetDevice");
        if (before_ != device) ok(cudaSetDevice(device), "cudaSetDevice");
    }
    ~DeviceGuard() { cudaSetDevice(before_); }
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
    int before_ = 0;
};

}  // namespace starfact::support::cuda

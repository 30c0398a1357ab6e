// Shared helpers for the bench/ programs (CUDA): error checks (CUDA runtime, cuSOLVER/cuBLAS status), CUDA-event timing with warm-up and
// medians, and the device-to-device copy bandwidth that memory-bound kernels are compared with.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace starfact::bench {

inline void cuda_check(cudaError_t e, const char* what, const char* file, int line) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, cudaGetErrorString(e));
        std::exit(1);
    }
}
#define STARFACT_BENCH_CUDA(call) ::starfact::bench::cuda_check((call), #call, __FILE__, __LINE__)

/// Status check for cuSOLVER / cuBLAS calls (any status type whose success value is 0; the caller
/// includes the library's header): prints the call and the status, exits.
inline void status_check(int status, const char* what, const char* file, int line) {
    if (status != 0) {
        std::fprintf(stderr, "%s:%d: %s failed (%d)\n", file, line, what, status);
        std::exit(1);
    }
}
#define STARFACT_BENCH_STATUS(call) ::starfact::bench::status_check(static_cast<int>(call), #call, __FILE__, __LINE__)

inline double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const size_t k = v.size();
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/// Median seconds of `repeat` runs of body(stream) after `warmup` runs, timed with CUDA events.
/// `reset(stream)` (untimed) runs before each run, e.g. to restore the input that body overwrites.
template <typename Body, typename Reset>
double time_median(cudaStream_t stream, int warmup, int repeat, Body body, Reset reset) {
    cudaEvent_t e0, e1;
    STARFACT_BENCH_CUDA(cudaEventCreate(&e0));
    STARFACT_BENCH_CUDA(cudaEventCreate(&e1));
    std::vector<double> t;
    for (int r = 0; r < warmup + repeat; ++r) {
        reset(stream);
        STARFACT_BENCH_CUDA(cudaEventRecord(e0, stream));
        body(stream);
        STARFACT_BENCH_CUDA(cudaEventRecord(e1, stream));
        STARFACT_BENCH_CUDA(cudaEventSynchronize(e1));
        float ms = 0;
        STARFACT_BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= warmup) t.push_back(ms * 1e-3);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return median(t);
}
template <typename Body>
double time_median(cudaStream_t stream, int warmup, int repeat, Body body) {
    return time_median(stream, warmup, repeat, body, [](cudaStream_t) {});
}

/// Achieved bandwidth (bytes read + written per second) of cudaMemcpyAsync device-to-device on
/// `bytes` bytes: the reference for memory-bound kernels ("% of copy").
inline double copy_bandwidth(size_t bytes, cudaStream_t stream, int warmup = 3, int repeat = 10) {
    void *src = nullptr, *dst = nullptr;
    STARFACT_BENCH_CUDA(cudaMalloc(&src, bytes));
    STARFACT_BENCH_CUDA(cudaMalloc(&dst, bytes));
    STARFACT_BENCH_CUDA(cudaMemsetAsync(src, 1, bytes, stream));
    const double s = time_median(stream, warmup, repeat, [&](cudaStream_t st) {
        STARFACT_BENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st));
    });
    cudaFree(src);
    cudaFree(dst);
    return 2.0 * static_cast<double>(bytes) / s;
}

}  // namespace starfact::bench

// bench_cusolver_api: cuSOLVER's two Cholesky entry points on the same matrix, the same stream and the same
// workspace sizes as starfact's one-task plan gives them: the legacy cusolverDn<t>potrf (32-bit sizes) and the
// generic cusolverDnXpotrf (64-bit sizes, the call a user of cuSOLVER makes and the drivers' vendor baseline).
// Interleaved runs (legacy, X, legacy, X, ...) so that clock drift hits both alike; medians; the ratio
// legacy_time / X_time (> 1: the generic API is faster).
//   bench_cusolver_api [--ns 4096,8192,16384] [--prec d|s|ds] [--warmup 2] [--repeat 7]
#include <cusolverDn.h>

#include <cstdio>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "bench/common.hpp"
#include "kernels/cuda_blas.hpp"  // the library's own cuSOLVER calls: potrf_buffer_size, potrf, cuda_type

namespace {

/// A(i, j) = A(j, i) uniform in [-0.5, 0.5] from a hash of (min, max), plus n on the diagonal: SPD.
template <typename T>
__global__ void fill_spd(T* a, int64_t n) {
    const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
    const int64_t j = blockIdx.y;
    if (i >= n) return;
    uint64_t h = static_cast<uint64_t>(i < j ? i : j) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(i < j ? j : i);
    h ^= h >> 33; h *= 0xff51afd7ed558ccdull; h ^= h >> 33;
    T v = static_cast<T>((h >> 11) * (1.0 / 9007199254740992.0) - 0.5);
    if (i == j) v += static_cast<T>(n);
    a[i + j * n] = v;
}

template <typename T>
void run(cusolverDnHandle_t h, cudaStream_t s, int n, int warmup, int repeat) {
    using namespace starfact::bench;
    namespace gpu = starfact::detail::gpu;
    T *a = nullptr, *a0 = nullptr, *w = nullptr;
    int* info = nullptr;
    const size_t bytes = sizeof(T) * size_t(n) * n;
    STARFACT_BENCH_CUDA(cudaMalloc(&a, bytes));
    STARFACT_BENCH_CUDA(cudaMalloc(&a0, bytes));
    STARFACT_BENCH_CUDA(cudaMalloc(&info, sizeof(int)));
    fill_spd<T><<<dim3((n + 255) / 256, n), 256, 0, s>>>(a0, n);
    int lwork = 0;
    STARFACT_BENCH_STATUS(gpu::potrf_buffer_size(h, n, a, n, &lwork));
    cusolverDnParams_t params;
    STARFACT_BENCH_STATUS(cusolverDnCreateParams(&params));
    size_t dev_bytes = 0, host_bytes = 0;
    const cudaDataType_t type = gpu::cuda_type<T>();
    STARFACT_BENCH_STATUS(cusolverDnXpotrf_bufferSize(h, params, CUBLAS_FILL_MODE_LOWER, n, type, a, n, type,
                                                      &dev_bytes, &host_bytes));
    const size_t work = std::max(dev_bytes, sizeof(T) * size_t(lwork));
    STARFACT_BENCH_CUDA(cudaMalloc(&w, work));
    std::vector<char> host(host_bytes + 1);
    auto reset = [&](cudaStream_t st) { cudaMemcpyAsync(a, a0, bytes, cudaMemcpyDeviceToDevice, st); };
    std::vector<double> tl, tx;
    for (int r = 0; r < warmup + repeat; ++r) {
        const double l = time_median(s, 0, 1, [&](cudaStream_t) { gpu::potrf(h, n, a, n, w, lwork, info); }, reset);
        const double x = time_median(s, 0, 1, [&](cudaStream_t) {
            cusolverDnXpotrf(h, params, CUBLAS_FILL_MODE_LOWER, n, type, a, n, type, w, work, host.data(), host_bytes,
                             info);
        }, reset);
        if (r >= warmup) tl.push_back(l), tx.push_back(x);
    }
    int h_info = -1;
    STARFACT_BENCH_CUDA(cudaMemcpy(&h_info, info, sizeof(int), cudaMemcpyDeviceToHost));
    const double ml = median(tl), mx = median(tx), flops = double(n) * n * n / 3.0;
    std::printf("%s %6d  legacy %.5f s (%6.1f TFLOP/s)  X %.5f s (%6.1f TFLOP/s)  legacy/X %.3f  lwork %d vs %zu B"
                "  info %d\n", sizeof(T) == 8 ? "d" : "s", n, ml, flops / ml * 1e-12, mx, flops / mx * 1e-12, ml / mx,
                lwork, dev_bytes, h_info);
    cusolverDnDestroyParams(params);
    cudaFree(a), cudaFree(a0), cudaFree(w), cudaFree(info);
}

}  // namespace

int main(int argc, char** argv) {
    std::string ns = "2048,4096,6144,8192,12288,16384", prec = "ds";
    int warmup = 2, repeat = 7;
    for (int i = 1; i < argc; ++i) {
        const std::string f = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (f == "--ns" && v) ns = v, ++i;
        else if (f == "--prec" && v) prec = v, ++i;
        else if (f == "--warmup" && v) warmup = std::atoi(v), ++i;
        else if (f == "--repeat" && v) repeat = std::atoi(v), ++i;
        else {
            std::fprintf(stderr, "usage: bench_cusolver_api [--ns LIST] [--prec d|s|ds] [--warmup K] [--repeat R]\n");
            return f == "--help" ? 0 : 1;
        }
    }
    cusolverDnHandle_t h;
    cudaStream_t s;
    STARFACT_BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    STARFACT_BENCH_STATUS(cusolverDnCreate(&h));
    STARFACT_BENCH_STATUS(cusolverDnSetStream(h, s));
    std::stringstream list(ns);
    for (std::string item; std::getline(list, item, ',');) {
        const int n = std::atoi(item.c_str());
        if (prec.find('d') != std::string::npos) run<double>(h, s, n, warmup, repeat);
        if (prec.find('s') != std::string::npos) run<float>(h, s, n, warmup, repeat);
    }
    cusolverDnDestroy(h);
    cudaStreamDestroy(s);
    return 0;
}

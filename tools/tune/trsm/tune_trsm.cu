// The Cholesky panel solve B := B L^-T on one tile, alone on one stream (CUDA events, medians of 9): cuBLAS trsm
// against the recursive form of kernels/trsm_recursive.hpp with bases 64..512, in float, with TF32 gemms, and in
// double, with a gemm of the same shape for scale. Behind kTrsmRecursiveBase and the choice to recurse only with
// tensor-core gemms (docs/mixed_precision.md).  Usage: tune_trsm [n ...]   (default 1024 2048 4096)
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/trsm_recursive.hpp"

using namespace starfact::detail;

namespace {

template <typename F>
double median_ms(F&& body, int reps = 9) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t;
    for (int r = 0; r < reps; ++r) {
        cudaEventRecord(a);
        body();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <typename T>
void run(const char* name, int compute, int n, cublasHandle_t h) {
    const int m = n;
    std::vector<T> hl(static_cast<size_t>(n) * n), hb(static_cast<size_t>(m) * n);
    std::mt19937 g(1);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) hl[i + static_cast<size_t>(j) * n] = i < j ? T(0) : i == j ? T(n) : T(u(g));
    for (T& v : hb) v = T(u(g));
    T *L, *B, *B0;
    cudaMalloc(&L, sizeof(T) * n * n);
    cudaMalloc(&B, sizeof(T) * m * n);
    cudaMalloc(&B0, sizeof(T) * m * n);
    cudaMemcpy(L, hl.data(), sizeof(T) * n * n, cudaMemcpyHostToDevice);
    cudaMemcpy(B0, hb.data(), sizeof(T) * m * n, cudaMemcpyHostToDevice);
    auto reset = [&] { cudaMemcpy(B, B0, sizeof(T) * m * n, cudaMemcpyDeviceToDevice); };
    auto solve = [&](auto base) {
        constexpr int Base = decltype(base)::value;
        return median_ms([&] {
            reset();
            if (Base == 0)
                gpu::trsm(h, Side::Right, Uplo::Lower, Op::Trans, Diag::NonUnit, m, n, T(1), L, n, B, m);
            else
                gpu::trsm_right_lower_trans<Base>(h, compute, m, n, L, n, B, m);
        });
    };
    const double copy = median_ms(reset);
    const double t0 = solve(std::integral_constant<int, 0>{}) - copy;
    const double t64 = solve(std::integral_constant<int, 64>{}) - copy;
    const double t128 = solve(std::integral_constant<int, 128>{}) - copy;
    const double t256 = solve(std::integral_constant<int, 256>{}) - copy;
    const double t512 = solve(std::integral_constant<int, 512>{}) - copy;
    const double tg = median_ms([&] {
        if constexpr (sizeof(T) == sizeof(float)) {
            if (compute)
                gpu::gemm_fast(h, compute, Op::NoTrans, Op::Trans, m, n, n, 1.0f, B0, m, L, n, 0.0f, B, m);
            else
                gpu::gemm(h, Op::NoTrans, Op::Trans, m, n, n, 1.0f, B0, m, L, n, 0.0f, B, m);
        } else {
            gpu::gemm(h, Op::NoTrans, Op::Trans, m, n, n, T(1), B0, m, L, n, T(0), B, m);
        }
    });
    std::printf("%-6s n=%5d  cublas trsm %7.3f ms | recursive base 64 %7.3f  128 %7.3f  256 %7.3f  512 %7.3f | "
                "gemm of the same shape %7.3f ms\n",
                name, n, t0, t64, t128, t256, t512, tg);
    cudaFree(L);
    cudaFree(B);
    cudaFree(B0);
}

}  // namespace

int main(int argc, char** argv) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::fprintf(stderr, "tune_trsm: no CUDA device\n");
        return 77;
    }
    std::vector<int> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
    if (sizes.empty()) sizes = {1024, 2048, 4096};
    cublasHandle_t h;
    cublasCreate(&h);
    for (int n : sizes) {
        if (n < 1) {
            std::fprintf(stderr, "tune_trsm: sizes must be >= 1 (got %d)\n", n);
            return 2;
        }
        run<float>("float", 0, n, h);
        run<float>("tf32", 1, n, h);
        run<double>("double", 0, n, h);
    }
    cublasDestroy(h);
    return 0;
}

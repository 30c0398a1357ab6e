// The cuBLAS gemm rate that factorization rates are compared with (reference.hpp: cublas_gemm_tflops).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "kernels/cuda_blas.hpp"
#include "support/cuda_helpers.cuh"
#include "support/reference.hpp"

namespace starfact::support {
namespace {

using namespace cuda;

/// C := A B, all n x n with ld = n.
template <typename T>
cublasStatus_t gemm(cublasHandle_t h, int64_t n, const T* A, const T* B, T* C) {
    using detail::Op;
    return detail::gpu::gemm<T>(h, Op::NoTrans, Op::NoTrans, n, n, n, T(1), A, n, B, n, T(0), C, n);
}

}  // namespace

template <typename T>
double cublas_gemm_tflops(int64_t n, int repeat) {
    const size_t count = static_cast<size_t>(n) * n;
    const DevicePtr<T> A = device_alloc<T>(count, "cudaMalloc");
    const DevicePtr<T> C = device_alloc<T>(count, "cudaMalloc");
    // Random-looking data (never time products of zeros): a non-trivial bit pattern, finite values.
    std::vector<T> h(count);
    for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<T>((i * 2654435761u % 1000) / 1000.0 - 0.5);
    ok(cudaMemcpy(A.get(), h.data(), matrix_bytes<T>(n), cudaMemcpyHostToDevice), "cudaMemcpy");
    const BlasHandle handle = new_blas();
    // Two warm-up products on the default stream, nothing to restore between runs.
    std::vector<double> t = timed_runs(nullptr, 2, repeat, [] {},
                                       [&] { ok(gemm(handle.get(), n, A.get(), A.get(), C.get()), "cublas<t>gemm"); });
    std::sort(t.begin(), t.end());
    return 2.0 * double(n) * double(n) * double(n) / t[t.size() / 2] * 1e-12;
}
template double cublas_gemm_tflops<float>(int64_t, int);
template double cublas_gemm_tflops<double>(int64_t, int);

}  // namespace starfact::support

// The "3xTF32" float gemm (Precision::Tf32x3, TaskOptions::compute 4): each operand split into a high TF32 part
// (rounded to nearest) and the low part that float keeps beyond it, then C := alpha (A_lo B_hi + A_hi B_lo +
// A_hi B_hi) + beta C as three TF32 tensor-core gemms, the small products first (Ootomo and Yokota, IJHPCA 36(4),
// 2022; the A_lo B_lo term, 2^-22 relative, is dropped). The split parts live in stream-ordered memory from the
// device's default pool, which keeps what it has (no release at synchronization).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <mutex>

#include "kernels/cuda_blas.hpp"

namespace starfact::detail::gpu {
namespace {

__device__ __forceinline__ float round_tf32(float x) {
    uint32_t bits;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));
    return __uint_as_float(bits);
}

__global__ void split_kernel(int rows, int cols, const float* A, int64_t lda, float* hi, float* lo) {
    const int64_t count = static_cast<int64_t>(rows) * cols;
    for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < count;
         e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int64_t r = e % rows, c = e / rows;
        const float x = A[r + c * lda];
        const float h = round_tf32(x);
        hi[e] = h;
        lo[e] = x - h;
    }
}

/// hi, lo: rows x cols, contiguous (ld = rows).
cudaError_t split(int rows, int cols, const float* A, int lda, float* hi, float* lo, cudaStream_t stream) {
    const int64_t count = static_cast<int64_t>(rows) * cols;
    if (count == 0) return cudaSuccess;
    const int threads = 256;
    const int blocks = static_cast<int>(std::min<int64_t>((count + threads - 1) / threads, 4096));
    split_kernel<<<blocks, threads, 0, stream>>>(rows, cols, A, lda, hi, lo);
    return cudaGetLastError();
}

/// The default pool of the current device keeps its memory between gemms (once per device).
void keep_pool_memory() {
    static std::mutex lock;
    static bool done[64] = {};
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64) return;
    std::lock_guard<std::mutex> guard(lock);
    if (done[device]) return;
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
        uint64_t keep = UINT64_MAX;
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    done[device] = true;
}

}  // namespace

cublasStatus_t gemm_tf32x3(cublasHandle_t h, Op a, Op b, int m, int n, int k, float alpha, const float* A, int lda,
                           const float* B, int ldb, float beta, float* C, int ldc) {
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    if (k == 0) return gemm<float>(h, a, b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    cudaStream_t stream;
    cublasStatus_t s = cublasGetStream(h, &stream);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    keep_pool_memory();
    const int ar = a == Op::NoTrans ? m : k, ac = a == Op::NoTrans ? k : m;
    const int br = b == Op::NoTrans ? k : n, bc = b == Op::NoTrans ? n : k;
    const bool same = A == B && lda == ldb && ar == br && ac == bc;  // A B^T with B = A (syrk): one split
    const size_t asize = static_cast<size_t>(ar) * ac, bsize = same ? 0 : static_cast<size_t>(br) * bc;
    void* work = nullptr;
    if (cudaMallocAsync(&work, sizeof(float) * 2 * (asize + bsize), stream) != cudaSuccess) {
        cudaGetLastError();
        return CUBLAS_STATUS_ALLOC_FAILED;
    }
    float* ahi = static_cast<float*>(work);
    float* alo = ahi + asize;
    float* bhi = same ? ahi : alo + asize;
    float* blo = same ? alo : bhi + bsize;
    if (split(ar, ac, A, lda, ahi, alo, stream) != cudaSuccess ||
        (!same && split(br, bc, B, ldb, bhi, blo, stream) != cudaSuccess)) {
        cudaFreeAsync(work, stream);
        return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    const float one = 1.0f;
    auto product = [&](const float* x, const float* y, const float* scale) {
        return cublasGemmEx(h, op(a), op(b), m, n, k, &alpha, x, CUDA_R_32F, ar, y, CUDA_R_32F, br, scale, C,
                            CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
    };
    s = product(alo, bhi, &beta);
    if (s == CUBLAS_STATUS_SUCCESS) s = product(ahi, blo, &one);
    if (s == CUBLAS_STATUS_SUCCESS) s = product(ahi, bhi, &one);
    cudaFreeAsync(work, stream);
    return s;
}

}  // namespace starfact::detail::gpu

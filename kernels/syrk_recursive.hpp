// Internal: the symmetric update C := alpha A A^T + beta C of a float tile in a tensor-core arithmetic, by halving
// (as the recursive Cholesky's updates, Elmroth, Gustavson, Jonsson and Kagstrom, SIAM Review 46(1), 2004): the
// block below the diagonal is one gemm, the two diagonal halves recurse, down to `base` rows, whose square blocks
// one gemm computes whole. cuBLAS has no tensor-core syrk; one gemm over the whole tile does twice the flops. The
// strictly upper triangle is written only inside the diagonal blocks of `base` rows (the factorization reads the
// lower one).
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cstdint>

#include "kernels/cuda_blas.hpp"

namespace starfact::detail::gpu {

/// Rows at and below which a diagonal block is one gemm.
constexpr int kSyrkRecursiveBase = 1024;

/// C (n x n, ldc) := alpha A A^T + beta C on its lower triangle, A n x k (lda), gemms in arithmetic `compute`
/// (TaskOptions::compute: 1 TF32, 2 BF16, 3 FP16).
inline cublasStatus_t syrk_lower_fast(cublasHandle_t h, int compute, int n, int k, float alpha, const float* A,
                                      int lda, float beta, float* C, int ldc, int base = kSyrkRecursiveBase) {
    if (n <= 0) return CUBLAS_STATUS_SUCCESS;
    if (n <= base) return gemm_fast(h, compute, Op::NoTrans, Op::Trans, n, n, k, alpha, A, lda, A, lda, beta, C, ldc);
    const int n1 = ((n / 2 + 63) / 64) * 64, n2 = n - n1;
    cublasStatus_t s = syrk_lower_fast(h, compute, n1, k, alpha, A, lda, beta, C, ldc, base);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    s = gemm_fast(h, compute, Op::NoTrans, Op::Trans, n2, n1, k, alpha, A + n1, lda, A, lda, beta, C + n1, ldc);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    return syrk_lower_fast(h, compute, n2, k, alpha, A + n1, lda, beta, C + n1 + static_cast<int64_t>(n1) * ldc, ldc,
                           base);
}

}  // namespace starfact::detail::gpu
#endif

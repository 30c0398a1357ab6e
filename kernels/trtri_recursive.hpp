// Internal: the inverse of a lower-triangular tile, X := L^-1, by recursive halving of L, so that almost all its
// flops are gemms (the recursive formulation of Elmroth, Gustavson, Jonsson and Kagstrom, SIAM Review 46(1), 2004):
//
//   [L11  0 ]^-1   [X11  0 ]      X11 := L11^-1,  X22 := L22^-1   (recursively)
//   [L21 L22]    = [X21 X22]      X21 := -X22 (L21 X11)           (two gemms through a scratch W)
//
// down to `base` columns, where cuBLAS trsm solves L X = I. X's strictly upper triangle is zero, so that the panel
// solves of the inverse path apply X by plain gemms (codelets/trsm_inverse.cpp). Used for float tiles of a
// tensor-core factorization (`compute` != 0, TaskOptions::compute), whose gemms run in that arithmetic, as the
// factorization's other updates do: cuSOLVER's Xtrtri takes milliseconds per 2048 tile, the recursion a few tensor-
// core gemms.
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/cuda_blas.hpp"

namespace starfact::detail::gpu {

/// Columns at and below which the inversion solves L X = I with cuBLAS trsm.
constexpr int kTrtriRecursiveBase = 256;

/// Entries of scratch trtri_lower_recursive needs for order n: the largest X21 block, (n - n1) x n1.
inline int64_t trtri_recursive_scratch(int n) {
    const int64_t n1 = ((n / 2 + 63) / 64) * 64;
    return n > kTrtriRecursiveBase ? (n - n1) * n1 : 0;
}

/// X := L^-1 for the n x n lower-triangular L (ldl; its strictly upper part is not read) into X (ldx, not
/// overlapping L; its strictly upper part set to zero), on the stream `h` is bound to. W: at least
/// trtri_recursive_scratch(n) entries. A zero on L's diagonal gives Inf/NaN, as trsm would.
template <typename T>
cublasStatus_t trtri_lower_recursive(cublasHandle_t h, cudaStream_t stream, int compute, int n, const T* L, int ldl,
                                     T* X, int ldx, T* W, int base = kTrtriRecursiveBase) {
    if (n <= 0) return CUBLAS_STATUS_SUCCESS;
    if (n <= base) {
        launch_identity<T>(X, n, ldx, stream);
        return trsm(h, Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, n, n, T(1), L, ldl, X, ldx);
    }
    const int n1 = ((n / 2 + 63) / 64) * 64, n2 = n - n1;
    T* X21 = X + n1;
    T* X22 = X + n1 + static_cast<int64_t>(n1) * ldx;
    if (cudaMemset2DAsync(X + static_cast<int64_t>(n1) * ldx, sizeof(T) * ldx, 0, sizeof(T) * n1, n2, stream) !=
        cudaSuccess)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    cublasStatus_t s = trtri_lower_recursive(h, stream, compute, n1, L, ldl, X, ldx, W, base);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    s = trtri_lower_recursive(h, stream, compute, n2, L + n1 + static_cast<int64_t>(n1) * ldl, ldl, X22, ldx, W, base);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    // W := L21 X11 (n2 x n1), then X21 := -X22 W: both factors' strictly upper parts are zero, so gemms are exact.
    if constexpr (is_real_single_v<T>) {
        if (compute) {
            s = gemm_fast(h, compute, Op::NoTrans, Op::NoTrans, n2, n1, n1, 1.0f, L + n1, ldl, X, ldx, 0.0f, W, n2);
            if (s != CUBLAS_STATUS_SUCCESS) return s;
            return gemm_fast(h, compute, Op::NoTrans, Op::NoTrans, n2, n1, n2, -1.0f, X22, ldx, W, n2, 0.0f, X21, ldx);
        }
    }
    s = gemm(h, Op::NoTrans, Op::NoTrans, n2, n1, n1, T(1), L + n1, ldl, X, ldx, T(0), W, n2);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    return gemm(h, Op::NoTrans, Op::NoTrans, n2, n1, n2, T(-1), X22, ldx, W, n2, T(0), X21, ldx);
}

}  // namespace starfact::detail::gpu
#endif

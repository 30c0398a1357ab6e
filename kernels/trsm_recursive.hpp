// Internal: the panel solve of the tile Cholesky, B := B L^-T (L lower, n x n; B m x n), by recursive halving of L
// (the recursive formulation of Elmroth, Gustavson, Jonsson and Kagstrom, SIAM Review 46(1), 2004):
//
//   [X1 X2] [L11^T L21^T; 0 L22^T] = [B1 B2]:   X1 := B1 L11^-T;  B2 -= X1 L21^T;  X2 := B2 L22^-T
//
// so that almost all its flops are gemms, down to `Base` columns, where cuBLAS trsm solves. Used for float tiles
// whose gemms run on tensor cores (`compute` != 0, TaskOptions::compute), like the factorization's other updates.
// cuBLAS trsm is latency-bound on whole tiles (H100, tools/tune/trsm: a 2048 x 2048 solve 0.84 ms in float and in
// double, a TF32 gemm of the same shape 0.09 ms); the recursion takes it to 0.69 ms at 2048 and from 2.68 to 1.70 ms
// at 4096 with TF32 gemms, and gains nothing in float or double arithmetic, where the gemms are no faster than the
// solve's own. Same operations as a blocked trsm in another order: backward stable.
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <type_traits>

#include "kernels/cuda_blas.hpp"

namespace starfact::detail::gpu {

/// Columns at and below which the recursion stops (a multiple of 64, so that the halves stay aligned).
constexpr int kTrsmRecursiveBase = 128;

/// B := B L^-T by recursive halving of L down to `base` columns (runtime form; below 64 the halves lose their
/// alignment: callers pass multiples of 64). Complex T: B := B L^-H (the Hermitian Cholesky's panel; its gemms on
/// tensor cores for std::complex<float> with compute 1, gemm_fast).
template <typename T>
cublasStatus_t trsm_right_lower_trans(cublasHandle_t h, int compute, int m, int n, const T* L, int ldl, T* B, int ldb,
                                      int base) {
    constexpr Op t = is_complex_v<T> ? Op::ConjTrans : Op::Trans;
    if (m <= 0 || n <= 0) return CUBLAS_STATUS_SUCCESS;
    if (n <= base) return trsm(h, Side::Right, Uplo::Lower, t, Diag::NonUnit, m, n, T(1), L, ldl, B, ldb);
    const int n1 = ((n / 2 + 63) / 64) * 64, n2 = n - n1;
    cublasStatus_t s = trsm_right_lower_trans(h, compute, m, n1, L, ldl, B, ldb, base);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    T* B2 = B + static_cast<int64_t>(n1) * ldb;
    const T* L21 = L + n1;
    if constexpr (is_single_v<T>) {
        s = compute ? gemm_fast(h, compute, Op::NoTrans, t, m, n2, n1, T(-1), B, ldb, L21, ldl, T(1), B2, ldb)
                    : gemm(h, Op::NoTrans, t, m, n2, n1, T(-1), B, ldb, L21, ldl, T(1), B2, ldb);
    } else {
        s = gemm(h, Op::NoTrans, t, m, n2, n1, T(-1), B, ldb, L21, ldl, T(1), B2, ldb);
    }
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    return trsm_right_lower_trans(h, compute, m, n2, L + n1 + static_cast<int64_t>(n1) * ldl, ldl, B2, ldb, base);
}

/// The same with the base fixed at compile time (the panel solve of the tile DAG: kTrsmRecursiveBase).
template <int Base = kTrsmRecursiveBase, typename T>
cublasStatus_t trsm_right_lower_trans(cublasHandle_t h, int compute, int m, int n, const T* L, int ldl, T* B,
                                      int ldb) {
    return trsm_right_lower_trans(h, compute, m, n, L, ldl, B, ldb, Base);
}

/// The LU's row-panel solve, B := L^-1 B (L unit lower, m x m; B m x n), by recursive halving of L down to `base`
/// rows, the same recursion transposed:
///
///   [L11 0; L21 L22] [X1; X2] = [B1; B2]:   X1 := L11^-1 B1;  B2 -= L21 X1;  X2 := L22^-1 B2
///
/// for the float tiles of a tensor-core LU (the mixed-precision gesv's factorization, TaskOptions::compute != 0),
/// whose row panels cuBLAS trsm would solve at its latency-bound rate. Not measured on its own yet: the Cholesky's
/// panel recursion above was (docs/mixed_precision.md).
template <typename T>
cublasStatus_t trsm_left_lower_unit(cublasHandle_t h, int compute, int m, int n, const T* L, int ldl, T* B, int ldb,
                                    int base = kTrsmRecursiveBase) {
    if (m <= 0 || n <= 0) return CUBLAS_STATUS_SUCCESS;
    if (m <= base) return trsm(h, Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, m, n, T(1), L, ldl, B, ldb);
    const int m1 = ((m / 2 + 63) / 64) * 64, m2 = m - m1;
    cublasStatus_t s = trsm_left_lower_unit(h, compute, m1, n, L, ldl, B, ldb, base);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    T* B2 = B + m1;
    const T* L21 = L + m1;
    if constexpr (is_real_single_v<T>) {
        s = compute ? gemm_fast(h, compute, Op::NoTrans, Op::NoTrans, m2, n, m1, -1.0f, L21, ldl, B, ldb, 1.0f, B2, ldb)
                    : gemm(h, Op::NoTrans, Op::NoTrans, m2, n, m1, -1.0f, L21, ldl, B, ldb, 1.0f, B2, ldb);
    } else {
        s = gemm(h, Op::NoTrans, Op::NoTrans, m2, n, m1, T(-1), L21, ldl, B, ldb, T(1), B2, ldb);
    }
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    return trsm_left_lower_unit(h, compute, m2, n, L + m1 + static_cast<int64_t>(m1) * ldl, ldl, B2, ldb, base);
}

}  // namespace starfact::detail::gpu
#endif

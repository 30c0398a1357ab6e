// Batched LU with partial pivoting, solve and inversion for many tiny matrices (n = 0..32), float, double,
// std::complex<float> and std::complex<double>, in namespace starfact::batched (conventions: batched_options.hpp):
//   starfact::batched::getrf / inverse (Runtime&, host arrays): the batch is cut into chunks, one StarPU
//       task per chunk, run by CPU workers (a LAPACKE loop) and CUDA workers (the kernels below).
//   starfact::batched::device::getrf / getrs / getri / inverse (CUDA builds): the kernels themselves on
//       device arrays, asynchronous on a CUDA stream, strided or pointer-array layouts.
// starfact's batched kernels are real: the complex types take the vendor's batched routines on GPUs
// (cublas<C|Z>getrfBatched, getrsBatched, getriBatched; the fused inverse as getrfBatched on a copy of A, then
// getriBatched into C; docs/batched_lu.md, "Complex matrices"), with the same arguments and results.
// Pivots are LAPACK's (1-based, row k swapped with ipiv[k] - 1, first maximum on ties) and stored at
// ipiv + i * stride_piv (stride_piv >= n). info[i] is LAPACK's: 0, or k > 0 when U(k,k) is exactly zero
// (that member alone is affected).
#pragma once
#include <cstdint>

#include "starfact/batched_options.hpp"
#include "starfact/runtime.hpp"

namespace starfact::batched {

/// Largest order the batched LU kernels handle.
constexpr int64_t kMaxLuOrder = 32;

/// LU = P A_i of A_i = A + i * strideA (host memory, n x n, leading dimension lda, strideA >= lda * n),
/// in place; pivots at ipiv + i * stride_piv, info: host array of batch ints. Returns the number of
/// members with info != 0.
template <typename T>
int64_t getrf(Runtime& rt, int64_t n, T* A, int64_t lda, int64_t strideA, int* ipiv, int64_t stride_piv, int* info,
              int64_t batch, const Options& opts = {});

/// A_i^-1 in place (A_i unspecified where info[i] > 0, info as getrf's). Returns the number of singular members.
template <typename T>
int64_t inverse(Runtime& rt, int64_t n, T* A, int64_t lda, int64_t strideA, int* info, int64_t batch,
                const Options& opts = {});

/// LAWN 41 flop counts of one matrix.
double getrf_flops(int64_t n);
double getri_flops(int64_t n);
double getrs_flops(int64_t n, int64_t nrhs);

#ifdef STARFACT_HAVE_CUDA
namespace device {

/// LU = P A of each n x n matrix, in place (LAPACK ?getrf).
template <typename T>
void getrf(int64_t n, T* A, int64_t lda, int64_t strideA, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
           Stream stream = nullptr);
template <typename T>
void getrf(int64_t n, T* const* A, int64_t lda, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
           Stream stream = nullptr);

/// Solves A X = B with getrf's factors, B (n x nrhs, any nrhs >= 0) overwritten by X (LAPACK ?getrs 'N').
template <typename T>
void getrs(int64_t n, int64_t nrhs, const T* LU, int64_t lda, int64_t strideLU, const int* ipiv, int64_t stride_piv,
           T* B, int64_t ldb, int64_t strideB, int64_t batch, Stream stream = nullptr);
template <typename T>
void getrs(int64_t n, int64_t nrhs, const T* const* LU, int64_t lda, const int* ipiv, int64_t stride_piv,
           T* const* B, int64_t ldb, int64_t batch, Stream stream = nullptr);

/// C = A^-1 from getrf's factors (out of place, like cublas<t>getriBatched).
template <typename T>
void getri(int64_t n, const T* LU, int64_t lda, int64_t strideLU, const int* ipiv, int64_t stride_piv, T* C,
           int64_t ldc, int64_t strideC, int64_t batch, Stream stream = nullptr);
template <typename T>
void getri(int64_t n, const T* const* LU, int64_t lda, const int* ipiv, int64_t stride_piv, T* const* C,
           int64_t ldc, int64_t batch, Stream stream = nullptr);

/// C = A^-1 straight from A, factorization and inversion fused in one kernel (Gauss-Jordan with
/// LAPACK's partial pivoting). C may be A (same ld and stride: in place). ipiv may be null (else it
/// receives the pivot order). Members with info > 0 (exactly singular) leave C unwritten.
template <typename T>
void inverse(int64_t n, const T* A, int64_t lda, int64_t strideA, T* C, int64_t ldc, int64_t strideC, int* ipiv,
             int64_t stride_piv, int* info, int64_t batch, Stream stream = nullptr);
template <typename T>
void inverse(int64_t n, const T* const* A, int64_t lda, T* const* C, int64_t ldc, int* ipiv, int64_t stride_piv,
             int* info, int64_t batch, Stream stream = nullptr);

}  // namespace device
#endif

}  // namespace starfact::batched

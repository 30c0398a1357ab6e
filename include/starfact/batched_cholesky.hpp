// Batched small Cholesky factorizations and solves (lower, A_i = L_i L_i^T, orders 0..128), float and
// double, and Hermitian ones (A_i = L_i L_i^H) of std::complex<float> and std::complex<double>, in namespace
// starfact::batched (conventions: batched_options.hpp):
//   starfact::batched::potrf / posv (Runtime&, host arrays): the batch is cut into chunks, one StarPU
//       task per chunk, so CPU workers (a LAPACKE loop) and every GPU (the batched kernels) share it.
//   starfact::batched::device::potrf / potrs / posv (CUDA builds): the kernels themselves on device
//       arrays, asynchronous on a CUDA stream, strided or pointer-array layouts, any batch count.
// starfact's batched kernels are real: the complex types take the vendor's batched routines on GPUs
// (cusolverDn<c|z>potrfBatched, then two cublas<C|Z>trsmBatched for the solves; docs/batched_cholesky.md,
// "Complex matrices"), with the same arguments, info rule and untouched upper triangle.
// Only the lower triangle of A is read and written (the upper triangle and any padding rows lda > n are
// left untouched). info[i] = 0 on success, else the first (1-based) column j whose pivot is not a
// positive finite number (complex: its real part; the leading minor of order j is not positive definite, or the
// data holds NaN/Inf); the factor of such a member is then meaningless and posv leaves its B unchanged.
#pragma once
#include <cstdint>

#include "starfact/batched_options.hpp"
#include "starfact/runtime.hpp"

namespace starfact::batched {

/// Largest order the batched Cholesky kernels handle.
constexpr int64_t kMaxCholeskyOrder = 128;

/// Factors A_i = A + i * strideA (host memory, n x n, leading dimension lda, strideA >= lda * n),
/// i = 0 .. batch-1, in place. info: host array of batch ints. Returns the number of members with
/// info != 0.
template <typename T>
int64_t potrf(Runtime& rt, int64_t n, T* A, int64_t lda, int64_t strideA, int* info, int64_t batch,
              const Options& opts = {});

/// Factors A_i and solves A_i X_i = B_i (B_i = B + i * strideB, n x nrhs, ldb >= n, strideB >= ldb * nrhs),
/// B_i overwritten by X_i for members with info[i] == 0. Returns the number of failed members.
template <typename T>
int64_t posv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, int64_t strideA, T* B, int64_t ldb,
             int64_t strideB, int* info, int64_t batch, const Options& opts = {});

#ifdef STARFACT_HAVE_CUDA
namespace device {

/// Strided layout: A_i = A + i * strideA (strideA >= lda * n). Pointer-array layout: A[i] (a device
/// array of batch device pointers). info: device array of batch ints.
template <typename T>
void potrf(int64_t n, T* A, int64_t lda, int64_t strideA, int* info, int64_t batch, Stream stream = nullptr);
template <typename T>
void potrf(int64_t n, T* const* A, int64_t lda, int* info, int64_t batch, Stream stream = nullptr);

/// Solves L_i L_i^T X_i = B_i with the factors from potrf (B_i overwritten), any nrhs >= 0.
template <typename T>
void potrs(int64_t n, int64_t nrhs, const T* L, int64_t lda, int64_t strideL, T* B, int64_t ldb, int64_t strideB,
           int64_t batch, Stream stream = nullptr);
template <typename T>
void potrs(int64_t n, int64_t nrhs, const T* const* L, int64_t lda, T* const* B, int64_t ldb, int64_t batch,
           Stream stream = nullptr);

/// potrf + potrs (one fused kernel for small orders, two passes above); members with info != 0 keep B.
template <typename T>
void posv(int64_t n, int64_t nrhs, T* A, int64_t lda, int64_t strideA, T* B, int64_t ldb, int64_t strideB,
          int* info, int64_t batch, Stream stream = nullptr);
template <typename T>
void posv(int64_t n, int64_t nrhs, T* const* A, int64_t lda, T* const* B, int64_t ldb, int* info, int64_t batch,
          Stream stream = nullptr);

}  // namespace device
#endif

}  // namespace starfact::batched

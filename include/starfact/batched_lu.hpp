// Batched LU with partial pivoting, solve and inversion for many tiny matrices (n = 1..32),
// float and double, in namespace starfact::batched.
//
// Device entry points (CUDA builds): column-major matrices in device memory, in the strided
// layout (matrix b at A + b * strideA) or as a device array of device pointers (Aarray[b]).
// Pivots are LAPACK's (1-based, row k swapped with ipiv[k] - 1, first maximum on ties) and
// stored at ipiv + b * stride_piv (stride_piv >= n). info[b] is LAPACK's: 0, or k > 0 when
// U(k,k) is exactly zero (that member alone is affected). Calls are asynchronous on `stream`.
//
// StarPU entry points (every build): host arrays, the batch split into chunks that run as
// tasks on the CPU workers (a LAPACKE loop) and on the CUDA workers (the kernels above).
//
// Bad arguments throw starfact::InvalidArgument naming the argument; a failed launch throws
// starfact::RuntimeError.
#pragma once
#include <cstdint>

#include "starfact/mapping.hpp"
#include "starfact/runtime.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*: no CUDA header needed here

namespace starfact::batched {

using Stream = CUstream_st*;

/// Largest order the batched kernels accept.
constexpr int kMaxOrder = 32;

// ---- device, strided layout ----------------------------------------------------------------------

/// LU = P A of each n x n matrix, in place (LAPACK ?getrf).
template <typename T>
void getrf_batched(int n, T* A, int lda, int64_t strideA, int* ipiv, int64_t stride_piv, int* info,
                   int64_t batch, Stream stream = nullptr);

/// Solves A X = B with getrf's factors, B (n x nrhs, any nrhs >= 0) overwritten by X (LAPACK ?getrs 'N').
template <typename T>
void getrs_batched(int n, int nrhs, const T* LU, int lda, int64_t strideA, const int* ipiv, int64_t stride_piv,
                   T* B, int ldb, int64_t strideB, int64_t batch, Stream stream = nullptr);

/// C = A^-1 from getrf's factors (out of place, like cublas<t>getriBatched).
template <typename T>
void getri_batched(int n, const T* LU, int lda, int64_t strideA, const int* ipiv, int64_t stride_piv, T* C, int ldc,
                   int64_t strideC, int64_t batch, Stream stream = nullptr);

/// C = A^-1 straight from A, factorization and inversion fused in one kernel (Gauss-Jordan with
/// LAPACK's partial pivoting). C may be A (same ld and stride: in place). ipiv may be null (else
/// it receives the pivot order). Members with info > 0 (exactly singular) leave C unwritten.
template <typename T>
void inverse_batched(int n, const T* A, int lda, int64_t strideA, T* C, int ldc, int64_t strideC, int* ipiv,
                     int64_t stride_piv, int* info, int64_t batch, Stream stream = nullptr);

// ---- device, pointer-array layout (device arrays of device pointers) -------------------------------

template <typename T>
void getrf_batched(int n, T* const* Aarray, int lda, int* ipiv, int64_t stride_piv, int* info, int64_t batch,
                   Stream stream = nullptr);
template <typename T>
void getrs_batched(int n, int nrhs, const T* const* LUarray, int lda, const int* ipiv, int64_t stride_piv,
                   T* const* Barray, int ldb, int64_t batch, Stream stream = nullptr);
template <typename T>
void getri_batched(int n, const T* const* LUarray, int lda, const int* ipiv, int64_t stride_piv, T* const* Carray,
                   int ldc, int64_t batch, Stream stream = nullptr);
template <typename T>
void inverse_batched(int n, const T* const* Aarray, int lda, T* const* Carray, int ldc, int* ipiv,
                     int64_t stride_piv, int* info, int64_t batch, Stream stream = nullptr);

// ---- StarPU: host arrays spread over CPU and CUDA workers -----------------------------------------

struct BatchOptions {
    Mapping mapping = Mapping::Hybrid;
    /// Matrices per task; 0 picks about 4 chunks per worker (at least 256 matrices each).
    int64_t chunk = 0;
};

/// getrf of `batch` contiguous n x n matrices (A: batch * n * n values, lda = n, column-major),
/// ipiv: batch * n, info: batch. Blocks until done.
template <typename T>
void getrf(Runtime& rt, int n, T* A, int* ipiv, int* info, int64_t batch, const BatchOptions& opts = {});

/// In-place inverse of `batch` contiguous n x n matrices; info as getrf's (A unspecified where info > 0).
template <typename T>
void inverse(Runtime& rt, int n, T* A, int* info, int64_t batch, const BatchOptions& opts = {});

/// LAWN 41 flop counts of one matrix.
double getrf_flops(int n);
double getri_flops(int n);
double getrs_flops(int n, int nrhs);

}  // namespace starfact::batched

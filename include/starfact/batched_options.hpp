// What the two batched families (batched_cholesky.hpp, batched_lu.hpp) share: the options of their
// StarPU entry points and the stream type of their device entry points.
//
// Both families follow one convention:
//   device (asynchronous on `stream`):  f(n, [nrhs,] A, lda, [strideA,] [ipiv, stride_piv,] [B, ldb, [strideB,]]
//                                         [info,] batch, stream)
//   StarPU (host arrays, blocking):     f(rt, n, [nrhs,] A, lda, strideA, [ipiv, stride_piv,] [B, ldb, strideB,]
//                                         info, batch, opts) -> number of members with info != 0
// with int64_t sizes, column-major matrices, a strided layout (member i at A + i * strideA) and, on the
// device, a pointer-array layout (the same function without the strides, A a device array of batch device
// pointers). Bad arguments throw starfact::InvalidArgument naming the argument, failed launches
// starfact::RuntimeError.
#pragma once
#include <cstdint>

#include "starfact/mapping.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*: no CUDA header needed here

namespace starfact::batched {

/// A CUDA stream (cudaStream_t); nullptr: the legacy default stream.
using Stream = CUstream_st*;

/// Options of the StarPU entry points, which cut a host batch into chunks of consecutive members, one
/// task per chunk, run by CPU workers (a LAPACKE loop) or GPUs (the batched kernels).
struct Options {
    /// Where chunk tasks may run (Hybrid: CPU workers and GPUs, StarPU's scheduler decides).
    Mapping mapping = Mapping::Hybrid;
    /// Members per chunk; 0 picks the family's default: Cholesky, at most 8 MiB of matrices per chunk
    /// and at least two chunks per worker; LU, about four chunks per worker of at least 256 members each.
    int64_t chunk = 0;
};

}  // namespace starfact::batched

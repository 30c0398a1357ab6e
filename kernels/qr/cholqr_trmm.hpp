// Internal: X := X triu(V) in place on the FP64 tensor cores, the Cholesky QR's solve against the inverse of its
// factor (codelets/cholqr_cuda.cpp). No StarPU: the codelet passes the stream.
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>

#include <cstdint>

namespace starfact::detail::gpu {

/// Rows per thread block of launch_cholqr_trmm_inplace: a block owns its rows for the whole product, so a tile of
/// m rows keeps m / kCholqrTrmmRows blocks busy (the codelet takes the cuBLAS form below a few per multiprocessor).
constexpr int kCholqrTrmmRows = 128;

/// X (m x n, leading dimension ldx) := X triu(V), V n x n (leading dimension ldv; only its upper triangle is read),
/// in place and without scratch memory: each thread block owns kCholqrTrmmRows rows of X and forms its block columns
/// of the product from the last to the first, a block column J from X(:, 0:end(J)), which the block columns after it
/// no longer need. About m n^2 flops (half of a full gemm's), read and written once.
void launch_cholqr_trmm_inplace(double* X, int64_t ldx, int m, int n, const double* V, int64_t ldv,
                                cudaStream_t stream);

}  // namespace starfact::detail::gpu
#endif

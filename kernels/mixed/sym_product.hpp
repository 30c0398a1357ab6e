// The refinement's product with a symmetric matrix stored by its lower tiles, for one right-hand side, reading each
// tile once: y_i -= A_ik x_k and, for an off-diagonal tile, y_k -= A_ik^T x_i, many tiles per launch (a diagonal
// tile is read in its lower triangle only). cuBLAS would read an off-diagonal tile twice (gemv, then gemv
// transposed) and take symv for the diagonal ones, one launch each; this product runs near the memory bandwidth.
// The sums reach y through atomic additions: their last bits may vary from run to run. No StarPU here.
#pragma once

#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>

#include <vector>

namespace starfact::detail::gpu {

/// One tile A (m x k, column-major, leading dimension lda) at block (i, k) of the lower triangle: xi, yi are the
/// vectors' rows of block row i, xk, yk those of block column k (for a diagonal tile the same, and m == k).
struct SymTile {
    const double* a;
    const double* xi;
    const double* xk;
    double* yi;
    double* yk;
    int lda, m, k, diagonal;
};

/// y -= A x over `tiles` (every y entry initialised by the caller), asynchronous on `stream`.
cudaError_t symmetric_product(const std::vector<SymTile>& tiles, cudaStream_t stream);

}  // namespace starfact::detail::gpu
#endif

// The refinement's memory-bound products with the tiles of a lower-triangular tile matrix, for one right-hand side,
// many tiles per launch, each tile read once (codelets/refine_fused.cpp):
//   rows:  y_i -= A_ik x_k                    (the forward sweep's updates with F; with cols, a symmetric product)
//   cols:  y_k -= A_ik^T x_i                  (the backward sweep's updates; with rows, the symmetric product's
//                                              other half, so that y -= A x reads each of A's lower tiles once)
// A diagonal tile (i == k) is read in its lower triangle only: rows takes its diagonal, cols its strictly lower part.
// One launch replaces a gemv per tile (or two, for a symmetric product: cuBLAS would read an off-diagonal tile once
// as A_ik and once as A_ik^T) and runs near the memory bandwidth. The sums reach y through atomic additions: their
// last bits may vary from run to run. No StarPU here.
#pragma once

#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>

#include <vector>

namespace starfact::detail::gpu {

/// One tile A (m x k, column-major, leading dimension lda) at block (i, k): xi, yi the vectors' rows of block row i,
/// xk, yk those of block column k (for a diagonal tile the same, m == k). Unused ones may be null.
template <typename T>
struct TileTerm {
    const T* a;
    const T* xi;
    const T* xk;
    T* yi;
    T* yk;
    int lda, m, k, diagonal;
};

/// The products above over `tiles` (every y entry initialised by the caller), asynchronous on `stream`.
template <typename T>
cudaError_t tile_products(const std::vector<TileTerm<T>>& tiles, bool rows, bool cols, cudaStream_t stream);

}  // namespace starfact::detail::gpu
#endif

// The equilibration of a general matrix before its conversion to float (the mixed-precision gesv,
// algorithms/gesv_mixed_ops.cpp): row maxima of |A| and scales that are powers of two, as LAPACK's dgeequb. With
// column_max (convert.hpp) for the column maxima of the row-scaled matrix. Column-major tiles; a CPU form and a CUDA
// form (asynchronous on `stream`) of each. No StarPU here.
#pragma once

#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace starfact::detail {

namespace cpu {
/// r[a] = max(r[a], max_b |X[a][b]|) for a < m, NaN when any of those is NaN (r starts at 0).
void row_max(int m, int n, const double* X, int ldx, double* r);
/// s[a] := 1 / the smallest power of two >= s[a] (1 for 0; NaN for NaN or infinity): the exact scale that brings
/// a row or column whose largest entry is s[a] into (1/2, 1]. Powers of two within [2^-1023, 2^1021], so that
/// neither a scale nor its inverse overflows.
void inverse_power_of_two(int n, double* s);
}  // namespace cpu

#ifdef STARFACT_HAVE_CUDA
namespace gpu {
/// cpu::row_max (r accumulated by an atomic max on the bit patterns; NaN wins).
cudaError_t row_max(int m, int n, const double* X, int ldx, double* r, cudaStream_t stream);
cudaError_t inverse_power_of_two(int n, double* s, cudaStream_t stream);
}  // namespace gpu
#endif

}  // namespace starfact::detail

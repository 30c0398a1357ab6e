// The element-wise tile kernels of the mixed-precision solve (algorithms/posv_mixed.cpp): the diagonal scaling,
// the double <-> float conversions through it, the row sums of |A| (with the conversion of A). Column-major tiles; a CPU form (plain loops)
// and a CUDA form (asynchronous on `stream`) of each. No StarPU here.
#pragma once
#include <cstdint>

#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace starfact::detail {

/// How a tile's columns are scaled in to_low: not, by the row scaling (a diagonal tile), or by their own vector.
enum class ColumnScale : int { None = 0, SameAsRows = 1, Own = 2 };

namespace cpu {
/// d[a] = A[a][a]^-1/2 for a < n (NaN where A[a][a] is not positive and finite).
void diag_scale(int n, const double* A, int lda, double* d);
/// F[a][b] = dr[a] * X[a][b] * (dc[b], dr[b] or 1 as `cs` says), rounded to float.
void to_low(int m, int n, const double* X, int ldx, const double* dr, const double* dc, ColumnScale cs, float* F,
            int ldf);
/// X[a][b] += dr[a] * Z[a][b].
void add_low(int m, int n, const float* Z, int ldz, const double* dr, double* X, int ldx);
/// s[a] += sum_b |A[a][b]| and, when t is given, t[b] += sum_a |A[a][b]|; `diagonal`: A is a diagonal tile of
/// which only the lower triangle is stored, and s gets the row sums of the full symmetric tile.
void abs_sums(int m, int n, const double* A, int lda, bool diagonal, double* s, double* t);
/// to_low of a tile of A (columns scaled by dc, or by dr for a diagonal tile) and abs_sums of it, in one call.
void to_low_sums(int m, int n, const double* X, int ldx, const double* dr, const double* dc, bool diagonal, float* F,
                 int ldf, double* s, double* t);
}  // namespace cpu

#ifdef STARFACT_HAVE_CUDA
namespace gpu {
cudaError_t diag_scale(int n, const double* A, int lda, double* d, cudaStream_t stream);
cudaError_t to_low(int m, int n, const double* X, int ldx, const double* dr, const double* dc, ColumnScale cs,
                   float* F, int ldf, cudaStream_t stream);
cudaError_t add_low(int m, int n, const float* Z, int ldz, const double* dr, double* X, int ldx, cudaStream_t stream);
/// The same as cpu::to_low_sums, in one pass over X (the sums accumulated atomically: their last bits may vary).
cudaError_t to_low_sums(int m, int n, const double* X, int ldx, const double* dr, const double* dc, bool diagonal,
                        float* F, int ldf, double* s, double* t, cudaStream_t stream);
}  // namespace gpu
#endif

}  // namespace starfact::detail

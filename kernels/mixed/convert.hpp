// The element-wise tile kernels of the mixed-precision solve (algorithms/posv_mixed.cpp): the diagonal scaling,
// the conversion of A to float through it (with the row sums of |A| and the diagonal shift, in one pass), and the
// conversions of right-hand sides, column-scaled so that no value leaves float's range. Column-major tiles; a CPU
// form (plain loops) and a CUDA form (asynchronous on `stream`) of each. No StarPU here.
#pragma once
#include <cstdint>

#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace starfact::detail {

namespace cpu {
/// d[a] = A[a][a]^-1/2 for a < n (NaN where A[a][a] is not positive and finite).
void diag_scale(int n, const double* A, int lda, double* d);
/// s[a] += sum_b |A[a][b]| and, when t is given, t[b] += sum_a |A[a][b]|; `diagonal`: A is a diagonal tile of
/// which only the lower triangle is stored, and s gets the row sums of the full symmetric tile.
void abs_sums(int m, int n, const double* A, int lda, bool diagonal, double* s, double* t);
/// F[a][b] = float(dr[a] A[a][b] dc[b]) (dc = dr for a diagonal tile, whose diagonal also gets + shift) and
/// abs_sums of A, in one call.
void to_low_sums(int m, int n, const double* X, int ldx, const double* dr, const double* dc, bool diagonal,
                 double shift, float* F, int ldf, double* s, double* t);
/// s[b] = max(s[b], max_a |dr[a] X[a][b]|), NaN when any of those is NaN (s starts at 0).
void column_max(int m, int n, const double* X, int ldx, const double* dr, double* s);
/// s[b] := the smallest power of two >= s[b] (1 for 0, NaN for NaN or infinity): an exact column scale.
void power_of_two(int n, double* s);
/// F[a][b] = float(dr[a] X[a][b] / s[b]) (s from power_of_two: |F| <= 1).
void to_low_scaled(int m, int n, const double* X, int ldx, const double* dr, const double* s, float* F, int ldf);
/// X[a][b] += dr[a] s[b] Z[a][b].
void add_low_scaled(int m, int n, const float* Z, int ldz, const double* dr, const double* s, double* X, int ldx);
/// *out = the sum of F[a][b]^2 over the tile; `diagonal`: F is a diagonal tile of which only the lower triangle is
/// stored, and *out is the full symmetric tile's (the strict lower part counted twice). NaN propagates.
void sum_squares(int m, int n, const float* F, int ldf, bool diagonal, double* out);
/// X[a][b] = double(F[a][b]) (exact).
void widen(int m, int n, const float* F, int ldf, double* X, int ldx);
/// F[a][b] = float(X[a][b]) (rounded to nearest).
void narrow(int m, int n, const double* X, int ldx, float* F, int ldf);
}  // namespace cpu

#ifdef STARFACT_HAVE_CUDA
namespace gpu {
cudaError_t diag_scale(int n, const double* A, int lda, double* d, cudaStream_t stream);
/// The same as cpu::to_low_sums, in one pass over X (the sums accumulated atomically: their last bits may vary).
cudaError_t to_low_sums(int m, int n, const double* X, int ldx, const double* dr, const double* dc, bool diagonal,
                        double shift, float* F, int ldf, double* s, double* t, cudaStream_t stream);
/// cpu::column_max (s accumulated atomically; NaN wins).
cudaError_t column_max(int m, int n, const double* X, int ldx, const double* dr, double* s, cudaStream_t stream);
cudaError_t power_of_two(int n, double* s, cudaStream_t stream);
cudaError_t to_low_scaled(int m, int n, const double* X, int ldx, const double* dr, const double* s, float* F,
                          int ldf, cudaStream_t stream);
cudaError_t add_low_scaled(int m, int n, const float* Z, int ldz, const double* dr, const double* s, double* X,
                           int ldx, cudaStream_t stream);
/// cpu::sum_squares into device memory (*out zeroed first, then accumulated atomically: its last bits may vary).
cudaError_t sum_squares(int m, int n, const float* F, int ldf, bool diagonal, double* out, cudaStream_t stream);
cudaError_t widen(int m, int n, const float* F, int ldf, double* X, int ldx, cudaStream_t stream);
cudaError_t narrow(int m, int n, const double* X, int ldx, float* F, int ldf, cudaStream_t stream);
}  // namespace gpu
#endif

}  // namespace starfact::detail

// The element-wise tile kernels of the mixed-precision Hermitian solve (algorithms/mixed_complex_ops.cpp) that the
// real ones (convert.hpp) cannot do on a complex tile read as real numbers: the diagonal scaling from the real parts
// of a diagonal tile, and the conversion of A to complex<float> through it with the row sums of |A| (moduli) in one
// pass. The scaling vector holds each d_a twice (d2[2a] = d2[2a + 1] = d_a), so that a complex tile of m rows read as
// 2m real rows (real and imaginary parts interleaved) is scaled row by row: the real kernels' column scales,
// to_low_scaled and add_low_scaled then convert right-hand sides and solutions of complex solves unchanged.
// Column-major tiles; a CPU form (plain loops) and a CUDA form (asynchronous on `stream`). No StarPU here.
#pragma once
#include <complex>

#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace starfact::detail {

namespace cpu {
/// d2[2a] = d2[2a + 1] = Re(A[a][a])^-1/2 for a < n (NaN where the real part is not positive and finite; the
/// imaginary part of a Hermitian matrix's diagonal is taken as zero, as LAPACK's zpotrf takes it).
void diag_scale_pairs(int n, const std::complex<double>* A, int lda, double* d2);
/// F[a][b] = complex<float>(dr[a] X[a][b] dc[b]) with dr[a] = dr2[2a], dc[b] = dc2[2b]; s[a] += sum_b |X[a][b]| and,
/// with t, t[b] += sum_a |X[a][b]|. `diagonal` (dc2 = dr2, t unused): X is a diagonal tile of which the lower
/// triangle is stored; F gets the lower triangle, a real diagonal dr[a]^2 Re(X[a][a]) + shift and a zero strictly
/// upper part, and s the row sums of the Hermitian tile.
void to_low_sums_complex(int m, int n, const std::complex<double>* X, int ldx, const double* dr2, const double* dc2,
                         bool diagonal, double shift, std::complex<float>* F, int ldf, double* s, double* t);
}  // namespace cpu

#ifdef STARFACT_HAVE_CUDA
namespace gpu {
cudaError_t diag_scale_pairs(int n, const std::complex<double>* A, int lda, double* d2, cudaStream_t stream);
/// cpu::to_low_sums_complex in one pass over X (the sums accumulated atomically: their last bits may vary).
cudaError_t to_low_sums_complex(int m, int n, const std::complex<double>* X, int ldx, const double* dr2,
                                const double* dc2, bool diagonal, double shift, std::complex<float>* F, int ldf,
                                double* s, double* t, cudaStream_t stream);
}  // namespace gpu
#endif

}  // namespace starfact::detail

// Internal: the CUDA kernels of the QR's range checks and scalings (codelets/qr_finite.cpp, codelets/qr_scaling.cpp):
// the first column of a tile holding NaN or Inf, the largest magnitude of a tile's leading rows, and the scaling of
// a tile's rows by the power of two that brings gels' A or B into range. No StarPU: the codelets pass the stream;
// the CPU twins are plain loops in the codelets.
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>

#include "kernels/qr/qr_scale_rule.hpp"

namespace starfact::detail::gpu {

/// Which entries of a tile a check reads.
enum class Part {
    All,       ///< every entry
    Upper,     ///< those on and above the diagonal
};
/// *first := min(*first, the first column j of the rows x cols tile A whose `part` holds NaN or Inf). One int on the
/// device, which the caller sets to a large value before the first tile.
template <typename T>
void launch_qr_first_nonfinite(const T* A, int ld, int rows, int cols, Part part, int* first, cudaStream_t stream);
/// *out := max(*out, max |A(i, j)| over i < rows, j < cols), NaN when one of them is NaN; *out (a double on the
/// device, >= 0) set by the caller before the first tile.
template <typename T>
void launch_qr_absmax(const T* A, int ld, int rows, int cols, double* out, cudaStream_t stream);
/// A(i, j) := A(i, j) 2^k for first <= i < last, k = qr_rescale_exponent(m, ranges, which)
/// (kernels/qr/qr_scale_rule.hpp; m: the two maxima, on the device); nothing when k is 0.
template <typename T>
void launch_qr_rescale(T* A, int ld, int first, int last, int cols, const double* m, const QrScaleRanges& ranges,
                       QrRescale which, cudaStream_t stream);

}  // namespace starfact::detail::gpu
#endif

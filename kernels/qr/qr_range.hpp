// Internal: the CUDA kernels of the QR's range checks (codelets/qr_finite.cpp): the first column of a tile holding NaN
// or Inf. No StarPU: the codelets pass the stream; the CPU twins are plain loops in the codelets.
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>

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

}  // namespace starfact::detail::gpu
#endif

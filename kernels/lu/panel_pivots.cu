// After cuSOLVER's getrf of a tile-LU panel: the step's global 1-based pivots and the matrix's LAPACK
// info, written on the device so that the asynchronous CUDA panel task never waits for the host.
#include "kernels/lu/lu_kernels.hpp"

namespace starfact::detail::gpu {
namespace {

__global__ void panel_pivots_kernel(const int* dev_ipiv, int kb, const int* dev_info, int* piv, int* info,
                                    int64_t offset) {
    for (int i = threadIdx.x; i < kb; i += blockDim.x) piv[i] = static_cast<int>(offset + dev_ipiv[i]);
    if (threadIdx.x == 0) {
        const int local = *dev_info;
        if (local > 0 && *info == 0) *info = static_cast<int>(offset + local);
    }
}

}  // namespace

void launch_panel_pivots(const int* dev_ipiv, int kb, const int* dev_info, int* piv, int* info, int64_t offset,
                         cudaStream_t stream) {
    panel_pivots_kernel<<<1, 256, 0, stream>>>(dev_ipiv, kb, dev_info, piv, info, offset);
}

}  // namespace starfact::detail::gpu

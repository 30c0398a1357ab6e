// Merges a cuSOLVER devInfo into an operation's info variable without a host round trip.
#include <cstdint>

#include "kernels/cuda_blas.hpp"

namespace starfact::detail::gpu {
namespace {

__global__ void merge_info_kernel(const int* dev_info, int* info, int64_t offset) {
    if (*dev_info > 0 && *info == 0) *info = static_cast<int>(offset + *dev_info);
}

}  // namespace

void launch_merge_info(const int* dev_info, int* info, int64_t offset, cudaStream_t stream) {
    merge_info_kernel<<<1, 1, 0, stream>>>(dev_info, info, offset);
}

}  // namespace starfact::detail::gpu

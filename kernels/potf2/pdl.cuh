// Programmatic dependent launch (PDL, sm_90) for the kernels of the blocked potf2 form: the device side
// (wait for / release the neighbouring kernels of the stream) and the host side (a launch with the
// programmatic-serialization attribute).
#pragma once
#include <cuda_runtime.h>

namespace starfact::detail::gpu::potf2_impl {

/// CUDA C++ Programming Guide, "Programmatic Dependent Launch and Synchronization": a kernel launched
/// with the programmatic-serialization attribute may start once every block of the previous kernel of
/// the stream has called pdl_allow_next() (or exited); pdl_wait() then blocks until that kernel has
/// completed and its writes are visible (a no-op after a normal launch). Completion order is transitive
/// only along a chain of kernels that all wait, so potf2.cu uses it only between its own kernels.
__device__ __forceinline__ void pdl_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void pdl_allow_next() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }

/// kernel<<<grid, block, smem, stream>>>(args...), as a programmatic dependent of the previous kernel of
/// the stream when `dependent` (the kernel must call pdl_wait() before touching global memory).
template <typename... Params, typename... Args>
cudaError_t launch_pdl(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                       bool dependent, Args&&... args) {
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = dependent ? attr : nullptr;
    cfg.numAttrs = dependent ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, kernel, static_cast<Args&&>(args)...);
}

}  // namespace starfact::detail::gpu::potf2_impl

// The C ABI's CUDA helpers for bindings: the synchronization of a stream before the library reads device memory
// that the caller's streams may still be writing, and the device a pointer belongs to.
#include <string>

#include "capi/errors.hpp"
#include "capi/starfact_c.h"
#include "starfact/error.hpp"
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

extern "C" {

int starfact_c_cuda_stream_synchronize(uintptr_t stream, int32_t device) {
    return starfact::capi::guarded([&] {
#ifdef STARFACT_HAVE_CUDA
        int previous = 0;
        auto check = [](cudaError_t e, const char* what) {
            if (e != cudaSuccess)
                throw starfact::RuntimeError(std::string("starfact: ") + what + ": " + cudaGetErrorString(e));
        };
        check(cudaGetDevice(&previous), "cudaGetDevice");
        check(cudaSetDevice(device), "cudaSetDevice");
        const cudaError_t e = cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream));
        cudaSetDevice(previous);
        check(e, "cudaStreamSynchronize");
#else
        (void)stream;
        (void)device;
        throw starfact::capi::NotBuilt("stream", "starfact was built without CUDA: no stream to synchronize");
#endif
    });
}

int starfact_c_cuda_pointer_device(uintptr_t pointer, int32_t* device) {
    return starfact::capi::guarded([&] {
        starfact::require(device != nullptr, "cuda_pointer_device", "device", "is null");
#ifdef STARFACT_HAVE_CUDA
        cudaPointerAttributes attr{};
        if (cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(pointer)) != cudaSuccess) {
            cudaGetLastError();
            *device = -1;
            return;
        }
        *device = (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged) ? attr.device : -1;
#else
        (void)pointer;
        throw starfact::capi::NotBuilt("pointer", "starfact was built without CUDA: no device memory");
#endif
    });
}

}  // extern "C"

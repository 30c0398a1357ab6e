// The FP64 tensor-core step both the rdiag kernel's trailing update and the blocked form's syrk use.
#pragma once
#include <cuda_runtime.h>

namespace starfact::detail::gpu::potf2_impl {

/// D = A B + D on the FP64 tensor cores, one 8 x 8 x 4 step for the warp (PTX mma.m8n8k4.f64: lane
/// l = 4 g + t holds A(g, t), B(t, g) and D(g, 2t), D(g, 2t + 1)).
__device__ __forceinline__ void dmma_8x8x4(double& d0, double& d1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(d0), "+d"(d1)
                 : "d"(a), "d"(b));
}

}  // namespace starfact::detail::gpu::potf2_impl

// The random symmetric test matrix (check.hpp's random_symmetric) generated in GPU memory, for TileMatrix tiles
// that live on a GPU and for the drivers' vendor baselines. No StarPU here.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace starfact::detail::gpu {

/// Fills rows x cols entries at p (memory of the current device, leading dimension ld) with entries
/// (i0 + r, j0 + c) of random_symmetric(seed, shift), asynchronously on `stream`. Returns the launch status.
template <typename T>
cudaError_t launch_random_symmetric(T* p, int64_t ld, int64_t rows, int64_t cols, int64_t i0, int64_t j0,
                                    uint64_t seed, double shift, cudaStream_t stream);

}  // namespace starfact::detail::gpu

// The entries of starfact's reproducible random matrices as a pure function of (seed, row, column), callable
// from host code and from CUDA kernels: random_symmetric() and random_matrix() (check.hpp) fill host arrays with
// it, and the drivers generate the same matrices tile by tile, on the CPU or on the GPU holding each tile.
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define STARFACT_HOST_DEVICE __host__ __device__
#else
#define STARFACT_HOST_DEVICE
#endif

namespace starfact::detail {

/// splitmix64's finalizer: a well-mixed 64-bit hash.
STARFACT_HOST_DEVICE inline uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/// Uniform in [-0.5, 0.5) from (seed, i, j).
STARFACT_HOST_DEVICE inline double uniform_entry(uint64_t seed, int64_t i, int64_t j) {
    const uint64_t h = splitmix64(seed ^ splitmix64(static_cast<uint64_t>(i) * 0x100000001B3ull ^
                                                    splitmix64(static_cast<uint64_t>(j))));
    return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

/// Entry (i, j) of random_symmetric(seed, shift): symmetric, `shift` added on the diagonal.
STARFACT_HOST_DEVICE inline double symmetric_entry(uint64_t seed, int64_t i, int64_t j, double shift) {
    return i >= j ? uniform_entry(seed, i, j) + (i == j ? shift : 0.0) : uniform_entry(seed, j, i);
}

}  // namespace starfact::detail

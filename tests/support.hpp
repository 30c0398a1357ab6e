// Shared test helpers: the process-wide Runtime, fresh random seeds, matrix builders.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "starfact/starfact.hpp"

namespace starfact::test {

/// The Runtime created by the test binary's main (tests/main_*.cpp).
Runtime& runtime();

/// A fresh seed per call (std::random_device); tests print it with INFO for reproduction.
inline uint64_t fresh_seed() {
    static std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

/// n x n SPD matrix with leading dimension ld (the padding rows hold a marker value).
template <typename T>
std::vector<T> spd_matrix(int64_t n, int64_t ld, uint64_t seed) {
    std::vector<T> A(static_cast<size_t>(ld) * std::max<int64_t>(n, 1), T(-777));
    random_symmetric<T>(n, A.data(), ld, seed, static_cast<double>(n));
    return A;
}

/// Residual threshold from the LAPACK/Chameleon convention.
constexpr double kResidualLimit = 60.0;

}  // namespace starfact::test

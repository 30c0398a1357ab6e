// Shared test helpers: the process-wide Runtime, reproducible random seeds (tests/seeds.hpp), matrix builders.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <chrono>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

#include "kernels/cpu_lapack.hpp"
#include "starfact/starfact.hpp"
#include "tests/seeds.hpp"

namespace starfact::test {

/// The Runtime created by the test binary's main (tests/main_*.cpp).
Runtime& runtime();

/// n x n SPD matrix with leading dimension ld (the padding rows hold a marker value).
template <typename T>
std::vector<T> spd_matrix(int64_t n, int64_t ld, uint64_t seed) {
    std::vector<T> A(static_cast<size_t>(ld) * std::max<int64_t>(n, 1), T(-777));
    random_symmetric<T>(n, A.data(), ld, seed, static_cast<double>(n));
    return A;
}

/// Gaussian-kernel (squared-exponential) matrix exp(-((x_i - x_j) / ell)^2) + nugget I on n sorted random
/// points in [0, 1], leading dimension ld, as Gaussian-process codes factor them: neighbouring columns are
/// nearly equal, so diagonal blocks and tiles are ill-conditioned themselves (what separates a backward-
/// stable triangular solve from a product with an inverted diagonal block). Regenerated (next seed)
/// until LAPACK's potrf factors it in precision T. Returns the seed used.
template <typename T>
uint64_t gaussian_kernel_spd(int64_t n, T* A, int64_t ld, double ell, double nugget, uint64_t seed) {
    for (;; ++seed) {
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        std::vector<double> x(static_cast<size_t>(n));
        for (double& v : x) v = u(rng);
        std::sort(x.begin(), x.end());
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) {
                const double d = (x[i] - x[j]) / ell;
                A[i + j * ld] = static_cast<T>(std::exp(-d * d) + (i == j ? nugget : 0.0));
            }
        std::vector<T> L(A, A + static_cast<size_t>(ld) * n);
        const int info = starfact::detail::cpu::potrf<T>(static_cast<int>(n), L.data(), static_cast<int>(ld));
        if (info == 0) return seed;
    }
}

/// Tasks still submitted once StarPU has settled: a Sequence's wait() returns when the last task's callback
/// ran, and StarPU drops the task from its submitted count a moment later. Polls up to one second.
inline int settled_pending_tasks(const Runtime& rt) {
    for (int i = 0; i < 1000 && rt.pending_tasks() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return rt.pending_tasks();
}

/// Residual threshold from the LAPACK/Chameleon convention.
constexpr double kResidualLimit = 60.0;

/// Default options with the mapping m.
inline Options on(Mapping m) {
    Options o;
    o.mapping = m;
    return o;
}

/// One entry (i, j), i >= j, of an otherwise SPD matrix set to v (negative, NaN or Inf), and the info
/// LAPACK returns for the result.
template <typename T>
struct BadEntry {
    int64_t i, j;
    T v;
    int expected;
};

/// The names a tile-algorithm test file uses unqualified: the library's and the helpers above.
/// A test file says `using namespace starfact::test::prelude;` once.
namespace prelude {
using namespace starfact;
using test::BadEntry;
using test::base_seed;
using test::settled_pending_tasks;
using test::fresh_seed;
using test::gaussian_kernel_spd;
using test::kResidualLimit;
using test::on;
using test::runtime;
using test::spd_matrix;
}  // namespace prelude

}  // namespace starfact::test

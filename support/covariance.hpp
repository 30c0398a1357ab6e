// A covariance test matrix whose entries decay away from the diagonal: the exponential kernel (Matern 1/2)
// exp(-|x_i - x_j| / length) over n random points of the unit square, numbered along a Morton (Z-order) curve, so
// that points close in the plane are close in the numbering and the tiles far from the diagonal are small (the
// matrices of Gaussian-process and geostatistics codes; the per-tile arithmetic of the mixed-precision solve,
// Refinement::tile_tolerance). Header-only: the drivers and the tests share it.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <thread>
#include <utility>
#include <vector>

namespace starfact::support {

/// The n points (x, y) in [0, 1)^2 from `seed`, sorted by their Morton code (16 bits per coordinate).
inline std::vector<std::pair<double, double>> morton_points(int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::pair<uint64_t, std::pair<double, double>>> keyed(static_cast<size_t>(n));
    auto spread = [](uint64_t v) {  // the 16 bits of v at the even positions
        v &= 0xffff;
        v = (v | (v << 8)) & 0x00ff00ff;
        v = (v | (v << 4)) & 0x0f0f0f0f;
        v = (v | (v << 2)) & 0x33333333;
        v = (v | (v << 1)) & 0x55555555;
        return v;
    };
    for (auto& k : keyed) {
        const double x = u(rng), y = u(rng);
        const uint64_t qx = static_cast<uint64_t>(x * 65536.0), qy = static_cast<uint64_t>(y * 65536.0);
        k = {spread(qx) | (spread(qy) << 1), {x, y}};
    }
    std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::pair<double, double>> points(static_cast<size_t>(n));
    for (size_t i = 0; i < points.size(); ++i) points[i] = keyed[i].second;
    return points;
}

/// The n x n covariance matrix exp(-|x_i - x_j| / length) (+ nugget on the diagonal) of morton_points(n, seed),
/// column-major, ld = n, both triangles; computed on the host's cores.
inline std::vector<double> covariance_spd(int64_t n, double length, double nugget, uint64_t seed) {
    const std::vector<std::pair<double, double>> p = morton_points(n, seed);
    std::vector<double> A(static_cast<size_t>(n * n));
    const unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 64u));
    auto columns = [&](unsigned t) {
        for (int64_t j = t; j < n; j += threads)
            for (int64_t i = 0; i < n; ++i) {
                const double dx = p[static_cast<size_t>(i)].first - p[static_cast<size_t>(j)].first;
                const double dy = p[static_cast<size_t>(i)].second - p[static_cast<size_t>(j)].second;
                A[static_cast<size_t>(i + j * n)] = std::exp(-std::sqrt(dx * dx + dy * dy) / length) + (i == j ? nugget : 0.0);
            }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(columns, t);
    columns(0);
    for (auto& th : pool) th.join();
    return A;
}

}  // namespace starfact::support

// Per-tile arithmetic of the mixed-precision solve [mixed][tiles] (Refinement::tile_tolerance,
// algorithms/tile_arithmetic.hpp): the rule that takes an off-diagonal tile into the factor's tensor-core arithmetic,
// checked on hand-made tile norms, and the solve with it on a covariance matrix whose far tiles are small, whose
// report must count the tiles the rule, computed here independently from D A D, takes.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "algorithms/tile_arithmetic.hpp"
#include "codelets/codelets.hpp"
#include "support/covariance.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using starfact::detail::TileArithmetic;

namespace {

constexpr double kFloatUnit = 0x1p-24;

/// The tiles of the rule, computed from A in double: d = diag(A)^-1/2, F = float(D A D), per lower tile its sum of
/// squares, then ||F_mn||_F mt / ||F||_F < tolerance / u for the off-diagonal ones.
int64_t expected_low_tiles(const std::vector<double>& A, int64_t n, int64_t nb, double tolerance, double u) {
    const int64_t mt = (n + nb - 1) / nb;
    std::vector<double> d(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) d[static_cast<size_t>(i)] = 1.0 / std::sqrt(A[static_cast<size_t>(i + i * n)]);
    std::vector<double> sums(static_cast<size_t>(mt * mt), 0.0);
    double total = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j; i < n; ++i) {
            const double f = static_cast<float>(d[static_cast<size_t>(i)] * A[static_cast<size_t>(i + j * n)] *
                                                d[static_cast<size_t>(j)]);
            sums[static_cast<size_t>(i / nb + (j / nb) * mt)] += f * f;
            total += (i == j ? 1.0 : 2.0) * f * f;
        }
    int64_t low = 0;
    for (int64_t tj = 0; tj < mt; ++tj)
        for (int64_t ti = tj + 1; ti < mt; ++ti)
            low += std::sqrt(sums[static_cast<size_t>(ti + tj * mt)]) * static_cast<double>(mt) / std::sqrt(total) <
                   tolerance / u;
    return low;
}

}  // namespace

TEST_CASE("per-tile arithmetic: the rule takes small off-diagonal tiles, never the diagonal ones", "[mixed][tiles][cpu]") {
    const int64_t mt = 3;
    auto at = [](int64_t m, int64_t n) { return static_cast<size_t>(TileArithmetic::packed_index(m, n)); };
    std::vector<double> sums(6);
    sums[at(0, 0)] = sums[at(1, 1)] = sums[at(2, 2)] = 4;
    sums[at(1, 0)] = 1e-2;   // ||.||_F 0.1: ratio 0.1 * 3 / ||A||_F (3.47) = 0.087
    sums[at(2, 0)] = 1e-12;  // 1e-6: ratio 8.7e-7
    sums[at(2, 1)] = 1e-8;   // 1e-4: ratio 8.7e-5
    // tf32 (u = 2^-11) at float's tolerance: below 2^-13 = 1.2e-4, so (2, 0) and (2, 1)
    const TileArithmetic tf32(mt, sums, kFloatUnit, Precision::Tf32);
    CHECK(tf32.low_tiles() == 2);
    CHECK(tf32.off_diagonal_tiles() == 3);
    CHECK(tf32.compute(1, 0) == 0);
    CHECK(tf32.compute(2, 0) == starfact::detail::compute_of(Precision::Tf32));
    CHECK(tf32.compute(2, 1) == starfact::detail::compute_of(Precision::Tf32));
    for (int64_t k = 0; k < mt; ++k) CHECK(tf32.compute(k, k) == 0);
    CHECK(tf32.summary() == "per tile: tf32 2, fp32 1; diagonal fp32 3");
    // bf16 (u = 2^-8): below 2^-16 = 1.5e-5, so (2, 0) only; (2, 1) climbs to tf32, (1, 0) to float
    const TileArithmetic bf16(mt, sums, kFloatUnit, Precision::Bf16);
    CHECK(bf16.low_tiles() == 1);
    CHECK(bf16.compute(2, 0) == starfact::detail::compute_of(Precision::Bf16));
    CHECK(bf16.compute(2, 1) == starfact::detail::compute_of(Precision::Tf32));
    CHECK(bf16.compute(1, 0) == 0);
    CHECK(bf16.summary() == "per tile: bf16 1, tf32 1, fp32 1; diagonal fp32 3");
    // a tolerance that lets the diagonal tiles (ratio 1.73) take tf32 but never bf16
    const TileArithmetic loose(mt, sums, 0x1p-8 * 2.0, Precision::Bf16);
    for (int64_t k = 0; k < mt; ++k) CHECK(loose.compute(k, k) == starfact::detail::compute_of(Precision::Tf32));
    CHECK(loose.low_tiles() == 3);
    // a looser tolerance takes (1, 0) as well
    CHECK(TileArithmetic(mt, sums, 1e-4, Precision::Tf32).low_tiles() == 3);
    // NaN or zero norms: nothing to compare with, every tile in float
    std::vector<double> nan = sums;
    nan[at(2, 1)] = std::numeric_limits<double>::quiet_NaN();
    CHECK(TileArithmetic(mt, nan, kFloatUnit, Precision::Tf32).low_tiles() == 0);
    CHECK(TileArithmetic(mt, std::vector<double>(6, 0.0), kFloatUnit, Precision::Tf32).low_tiles() == 0);
    CHECK(TileArithmetic(1, {4.0}, kFloatUnit, Precision::Tf32).off_diagonal_tiles() == 0);
}

TEST_CASE("per-tile arithmetic: a covariance matrix refined to double accuracy, its small tiles counted",
          "[mixed][tiles][cpu]") {
    for (int64_t n : {701, 64}) {  // 8 tile rows (n % nb != 0), and n < nb
        const int64_t nb = 90, nrhs = 2;
        const uint64_t seed = fresh_seed();
        INFO("n=" << n << " seed=" << seed);
        const std::vector<double> A = starfact::support::covariance_spd(n, 0.01, 0.0, seed);
        std::vector<double> B(static_cast<size_t>(n * nrhs));
        random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
        std::vector<double> F = A, X = B;
        Options opts;
        opts.mapping = Mapping::CpuOnly;
        opts.factor = Precision::Tf32;
        Refinement refine;
        refine.always_low = true;
        refine.tile_tolerance = kFloatUnit;
        SolveReport report;
        REQUIRE(posv(runtime(), n, nrhs, F.data(), n, X.data(), n, opts, report, refine, Tiling{nb}) == 0);
        INFO("path=" << to_string(report.path) << " low tiles=" << report.low_tiles << " of "
                     << report.off_diagonal_tiles << " backward error=" << report.backward_error);
        CHECK((report.path == SolveReport::Path::Refined || report.path == SolveReport::Path::Gmres));
        CHECK(report.backward_error <= report.tolerance);
        CHECK(solve_residual<double>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
        CHECK(F == A);
        const int64_t mt = (n + nb - 1) / nb;
        CHECK(report.off_diagonal_tiles == mt * (mt - 1) / 2);
        CHECK(report.low_tiles == expected_low_tiles(A, n, nb, kFloatUnit, 0x1p-11));
        if (mt == 8) {  // the far tiles of this matrix are small, the ones beside the diagonal are not
            CHECK(report.low_tiles > 0);
            CHECK(report.low_tiles < report.off_diagonal_tiles);
        }
        // without it, the report says so
        SolveReport plain;
        F = A;
        X = B;
        refine.tile_tolerance = 0;
        REQUIRE(posv(runtime(), n, nrhs, F.data(), n, X.data(), n, opts, plain, refine, Tiling{nb}) == 0);
        CHECK(plain.low_tiles == -1);
    }
}

TEST_CASE("per-tile arithmetic: a tolerance outside [0, 1) is refused by name", "[mixed][tiles][cpu][errors]") {
    const int64_t n = 10;
    std::vector<double> A = starfact::support::covariance_spd(n, 0.1, 0.0, 1), B(static_cast<size_t>(n), 1.0);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    opts.factor = Precision::Tf32;
    for (double bad : {-1.0, 1.0, std::numeric_limits<double>::quiet_NaN()}) {
        Refinement refine;
        refine.tile_tolerance = bad;
        SolveReport report;
        CHECK_THROWS_WITH(posv(runtime(), n, 1, A.data(), n, B.data(), n, opts, report, refine),
                          Catch::Contains("refine.tile_tolerance"));
    }
}

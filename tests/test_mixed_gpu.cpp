// The mixed-precision solve on GPU workers [gpu][mixed]: the float factor's trailing updates on tensor cores (tf32,
// bf16, fp16) and float, host- and device-resident tiles; double accuracy after refinement, the path reported, A
// left unchanged; the fall-back on a matrix the float factor cannot serve. Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

using namespace starfact::test::prelude;

namespace {

void check_mixed_gpu(int64_t n, int64_t nrhs, int64_t nb, Precision factor, Residency residency) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nrhs=" << nrhs << " nb=" << nb << " factor=" << to_string(factor)
              << " residency=" << to_string(residency) << " seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    std::vector<double> B(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
    std::vector<double> F = A, X = B;
    Options opts;
    opts.mapping = Mapping::GpuOnly;
    opts.factor = factor;
    SolveReport report;
    REQUIRE(posv(runtime(), n, nrhs, F.data(), n, X.data(), n, opts, report, Refinement{}, Tiling{nb, residency}) == 0);
    INFO("path=" << to_string(report.path) << " iterations=" << report.iterations << " gmres="
                 << report.gmres_iterations << " backward error=" << report.backward_error);
    CHECK((report.path == SolveReport::Path::Refined || report.path == SolveReport::Path::Gmres));
    CHECK(report.backward_error <= report.tolerance);
    CHECK(solve_residual<double>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    CHECK(F == A);
}

}  // namespace

TEST_CASE("GPU mixed-precision posv reaches double accuracy from tensor-core factors", "[gpu][mixed]") {
    for (Precision p : {Precision::Fp32, Precision::Tf32, Precision::Bf16, Precision::Fp16})
        for (Residency r : {Residency::Host, Residency::Device}) {
            check_mixed_gpu(1000, 1, 256, p, r);
            check_mixed_gpu(1500, 3, 512, p, r);  // not a multiple of nb
        }
    check_mixed_gpu(1, 1, 256, Precision::Tf32, Residency::Device);
    check_mixed_gpu(100, 2, 256, Precision::Bf16, Residency::Device);  // n < nb
}

TEST_CASE("GPU mixed-precision posv falls back on a matrix the float factor cannot serve", "[gpu][mixed]") {
    const int64_t n = 600, nb = 256;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    // J + 1e-12 I (J all ones; cond ~ 6e14): SPD in double, but its float rounding is J, of rank one, on which the
    // float factorization breaks down at its second column; the double one does not.
    std::vector<double> A(static_cast<size_t>(n * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i + j * n)] = 1.0 + (i == j ? 1e-12 : 0.0);
    std::vector<double> B(static_cast<size_t>(n));
    random_matrix<double>(n, 1, B.data(), n, seed + 1);
    std::vector<double> F = A, X = B;
    Options opts;
    opts.mapping = Mapping::GpuOnly;
    opts.factor = Precision::Tf32;
    SolveReport report;
    REQUIRE(posv(runtime(), n, 1, F.data(), n, X.data(), n, opts, report, Refinement{}, Tiling{nb, Residency::Device}) == 0);
    INFO("path=" << to_string(report.path) << " low info=" << report.low_info);
    CHECK(report.path == SolveReport::Path::Fallback);
    CHECK(report.low_info > 0);
    CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
}

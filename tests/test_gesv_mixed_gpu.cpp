// The mixed-precision gesv on GPU workers [gpu][gesv_mixed]: the float LU's trailing updates on tensor cores (tf32,
// bf16, fp16) and in float, host- and device-resident tiles; double accuracy after refinement, the path reported,
// A left unchanged; the plan's double path below its order; the fall-back on a matrix the float LU cannot serve.
// Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/gesv_mixed_support.hpp"
#include "tests/lu_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using starfact::test::gesv_mixed::check_refined;
using starfact::test::gesv_mixed::Outcome;
using starfact::test::gesv_mixed::solve;

namespace {

Options on_gpus(Precision p) {
    Options o;
    o.mapping = Mapping::GpuOnly;
    o.factor = p;
    return o;
}

void check_gesv_gpu(int64_t n, int64_t nrhs, int64_t nb, Precision p, Residency residency) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nrhs=" << nrhs << " nb=" << nb << " factor=" << to_string(p)
              << " residency=" << to_string(residency) << " seed=" << seed);
    const std::vector<double> A = test::lu::random_general<double>(n, n, seed);
    std::vector<double> B(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
    Refinement low;
    low.always_low = true;  // below the order from which the plan takes the tensor cores
    low.time_budget = 0;    // the first calls also load cuBLAS's kernels: no time limit on GMRES here
    const Outcome o = solve(A, n, B, n, n, nrhs, on_gpus(p), low, Tiling{nb, residency});
    check_refined(o, A, n, B, n, n, nrhs);
    CHECK(o.report.factor == p);
}

}  // namespace

TEST_CASE("GPU mixed-precision gesv reaches double accuracy from tensor-core LU factors", "[gpu][gesv_mixed]") {
    for (Precision p : {Precision::Tf32, Precision::Fp32, Precision::Bf16, Precision::Fp16})
        for (Residency r : {Residency::Host, Residency::Device}) {
            check_gesv_gpu(1000, 1, 256, p, r);
            check_gesv_gpu(1500, 3, 512, p, r);  // not a multiple of nb
        }
    check_gesv_gpu(1, 1, 256, Precision::Tf32, Residency::Device);
    check_gesv_gpu(100, 2, 256, Precision::Tf32, Residency::Host);  // n < nb
}

TEST_CASE("GPU mixed-precision gesv, tile form: tf32 on device-resident and host-resident tiles",
          "[gpu][gesv_mixed]") {
    const int64_t n = 2000, nb = 512, nrhs = 2;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = test::lu::random_general<double>(n, n, seed);
    std::vector<double> B(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
    for (Residency r : {Residency::Device, Residency::Host}) {
        INFO("residency=" << to_string(r));
        TileMatrix<double> a(runtime(), n, nb, r), b(runtime(), n, nrhs, nb, r);
        a.import(A.data(), n);
        b.import(B.data(), n);
        Pivots piv(a);
        SolveReport report;
        Refinement low;
        low.always_low = true;
        low.time_budget = 0;
        REQUIRE(gesv(a, piv, b, on_gpus(Precision::Tf32), report, low) == 0);
        INFO("path=" << to_string(report.path) << " iterations=" << report.iterations
                     << " gmres=" << report.gmres_iterations << " backward error=" << report.backward_error);
        CHECK((report.path == SolveReport::Path::Refined || report.path == SolveReport::Path::Gmres));
        CHECK(report.backward_error <= report.tolerance);
        std::vector<double> X(B.size()), LU(A.size());
        b.export_to(X.data(), n);
        a.export_to(LU.data(), n);
        CHECK(LU == A);
        CHECK(test::lu::general_solve_residual<double>(n, nrhs, A.data(), X.data(), B.data()) < kResidualLimit);
    }
}

TEST_CASE("GPU mixed-precision gesv: below the plan's order the double LU runs, reported", "[gpu][gesv_mixed][plan]") {
    const int64_t n = 900, nb = 256;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = test::lu::random_general<double>(n, n, seed);
    std::vector<double> B(static_cast<size_t>(n));
    random_matrix<double>(n, 1, B.data(), n, seed + 1);
    const Outcome o = solve(A, n, B, n, n, 1, on_gpus(Precision::Tf32), Refinement{}, Tiling{nb, Residency::Device});
    REQUIRE(o.info == 0);
    CHECK(o.report.path == SolveReport::Path::Direct);
    CHECK_THAT(o.report.reason, Catch::Contains("pays from n = 32768"));
    CHECK(test::lu::lu_residual<double>(n, A.data(), n, o.LU.data(), n, o.ipiv) < kResidualLimit);  // the double LU
    CHECK(test::lu::general_solve_residual<double>(n, 1, A.data(), o.X.data(), B.data()) < kResidualLimit);
}

TEST_CASE("GPU mixed-precision gesv: a matrix singular in float goes to the double LU", "[gpu][gesv_mixed]") {
    const int64_t n = 600, nb = 256, nrhs = 2;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    // [[1, 1], [1, 1 + 1e-10]] beside a random block: the 2 x 2 block is singular once rounded to float
    std::vector<double> A(static_cast<size_t>(n * n), 0.0);
    const std::vector<double> G = test::lu::random_general<double>(n - 2, n - 2, seed);
    for (int64_t j = 0; j < n - 2; ++j)
        for (int64_t i = 0; i < n - 2; ++i) A[(i + 2) + (j + 2) * n] = G[i + j * (n - 2)] + (i == j ? 4.0 : 0.0);
    A[0] = A[n] = A[1] = 1.0;
    A[1 + n] = 1.0 + 1e-10;
    std::vector<double> B(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
    Refinement low;
    low.always_low = true;
    for (Residency r : {Residency::Device, Residency::Host}) {
        INFO("residency=" << to_string(r));
        const Outcome o = solve(A, n, B, n, n, nrhs, on_gpus(Precision::Tf32), low, Tiling{nb, r});
        INFO("path=" << to_string(o.report.path) << " reason=" << o.report.reason);
        REQUIRE(o.info == 0);
        CHECK(o.report.path == SolveReport::Path::Fallback);
        CHECK(o.report.low_info == 2);
        CHECK(test::lu::lu_residual<double>(n, A.data(), n, o.LU.data(), n, o.ipiv) < kResidualLimit);
        CHECK(test::lu::general_solve_residual<double>(n, nrhs, A.data(), o.X.data(), B.data()) < kResidualLimit);
    }
}

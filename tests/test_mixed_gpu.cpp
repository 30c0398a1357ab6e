// The mixed-precision solve on GPU workers [gpu][mixed]: the float factor's trailing updates on tensor cores (tf32,
// bf16, fp16) and float, host- and device-resident tiles; double accuracy after refinement, the path reported, A
// left unchanged; the fall-back on a matrix the float factor cannot serve. Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cmath>
#include <limits>
#include <random>

#include "kernels/mixed/convert.hpp"
#include "tests/mixed_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;

namespace {

/// J + eps I (J all ones), column-major n x n: SPD in double; rounded to float it is J, of rank one.
std::vector<double> ones_plus_diagonal(int64_t n, double eps) {
    std::vector<double> A(static_cast<size_t>(n * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i + j * n)] = 1.0 + (i == j ? eps : 0.0);
    return A;
}

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
    Refinement low;
    low.always_low = true;  // below the order from which the plan takes the tensor cores
    REQUIRE(posv(runtime(), n, nrhs, F.data(), n, X.data(), n, opts, report, low, Tiling{nb, residency}) == 0);
    INFO("path=" << to_string(report.path) << " iterations=" << report.iterations << " gmres="
                 << report.gmres_iterations << " backward error=" << report.backward_error);
    CHECK((report.path == SolveReport::Path::Refined || report.path == SolveReport::Path::Gmres));
    CHECK(report.backward_error <= report.tolerance);
    CHECK(solve_residual<double>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    CHECK(F == A);
}

}  // namespace

TEST_CASE("GPU conversion of A with its sums of |A| equals the CPU form", "[gpu][mixed]") {
    // to_low_sums: one pass with the sums accumulated atomically (their last bits may differ from the CPU's);
    // diagonal tiles count the stored lower triangle into the row sums of the symmetric tile.
    for (bool diagonal : {false, true})
        for (int m : {1, 37, 300, 2048}) {
            const int n = diagonal ? m : m + 13, ld = m + 3;
            INFO("diagonal=" << diagonal << " m=" << m << " n=" << n);
            std::mt19937_64 rng(fresh_seed());
            std::uniform_real_distribution<double> u(-2, 2);
            std::vector<double> X(static_cast<size_t>(ld) * n), dr(m), dc(n), s(m, 0.5), t(n, 0.25);
            for (double& v : X) v = u(rng);
            for (double& v : dr) v = 0.5 + std::fabs(u(rng));
            for (double& v : dc) v = 0.5 + std::fabs(u(rng));
            std::vector<float> F(X.size(), 0.0f), Fg = F;
            std::vector<double> sg = s, tg = t;
            const double shift = diagonal ? 0.125 : 0.0;
            detail::cpu::to_low_sums(m, n, X.data(), ld, dr.data(), dc.data(), diagonal, shift, F.data(), ld, s.data(),
                                     diagonal ? nullptr : t.data());
            double *dX, *ddr, *ddc, *ds, *dt;
            float* dF;
            REQUIRE(cudaMalloc(&dX, sizeof(double) * X.size()) == cudaSuccess);
            REQUIRE(cudaMalloc(&ddr, sizeof(double) * m) == cudaSuccess);
            REQUIRE(cudaMalloc(&ddc, sizeof(double) * n) == cudaSuccess);
            REQUIRE(cudaMalloc(&ds, sizeof(double) * m) == cudaSuccess);
            REQUIRE(cudaMalloc(&dt, sizeof(double) * n) == cudaSuccess);
            REQUIRE(cudaMalloc(&dF, sizeof(float) * F.size()) == cudaSuccess);
            cudaMemcpy(dX, X.data(), sizeof(double) * X.size(), cudaMemcpyHostToDevice);
            cudaMemcpy(ddr, dr.data(), sizeof(double) * m, cudaMemcpyHostToDevice);
            cudaMemcpy(ddc, dc.data(), sizeof(double) * n, cudaMemcpyHostToDevice);
            cudaMemcpy(ds, sg.data(), sizeof(double) * m, cudaMemcpyHostToDevice);
            cudaMemcpy(dt, tg.data(), sizeof(double) * n, cudaMemcpyHostToDevice);
            cudaMemcpy(dF, Fg.data(), sizeof(float) * F.size(), cudaMemcpyHostToDevice);
            REQUIRE(detail::gpu::to_low_sums(m, n, dX, ld, ddr, ddc, diagonal, shift, dF, ld, ds,
                                             diagonal ? nullptr : dt, nullptr) == cudaSuccess);
            REQUIRE(cudaMemcpy(Fg.data(), dF, sizeof(float) * F.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
            cudaMemcpy(sg.data(), ds, sizeof(double) * m, cudaMemcpyDeviceToHost);
            cudaMemcpy(tg.data(), dt, sizeof(double) * n, cudaMemcpyDeviceToHost);
            for (double* p : {dX, ddr, ddc, ds, dt}) cudaFree(p);
            cudaFree(dF);
            double es = 0, et = 0;
            int64_t mismatches = 0;
            for (int i = 0; i < m; ++i) es = std::fmax(es, std::fabs(s[i] - sg[i]) / s[i]);
            for (int j = 0; j < n; ++j) et = std::fmax(et, std::fabs(t[j] - tg[j]) / t[j]);
            for (int j = 0; j < n; ++j)
                for (int i = diagonal ? j : 0; i < m; ++i)
                    mismatches += F[i + static_cast<size_t>(j) * ld] != Fg[i + static_cast<size_t>(j) * ld];
            CHECK(es < 1e-13);
            CHECK(et < 1e-13);
            CHECK(mismatches == 0);
        }
}

TEST_CASE("GPU column-scaled conversions of right-hand sides equal the CPU forms", "[gpu][mixed]") {
    // column_max + power_of_two + to_low_scaled + add_low_scaled on columns of every magnitude, a zero column and a
    // column holding NaN (its scale must be NaN on both).
    const int m = 777, n = 5, ld = m + 2;
    std::mt19937_64 rng(fresh_seed());
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> X(static_cast<size_t>(ld) * n), d(m), Y(X.size());
    const double magnitude[n] = {1e-300, 1e-20, 1.0, 1e200, 1.0};
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) X[i + static_cast<size_t>(j) * ld] = j == 2 ? 0.0 : magnitude[j] * u(rng);
    X[100 + static_cast<size_t>(4) * ld] = std::numeric_limits<double>::quiet_NaN();
    for (double& v : d) v = 0.5 + std::fabs(u(rng));
    for (double& v : Y) v = u(rng);
    std::vector<double> s(n, 0.0), Yc = Y;
    std::vector<float> F(X.size(), 0.0f);
    detail::cpu::column_max(m, n, X.data(), ld, d.data(), s.data());
    detail::cpu::power_of_two(n, s.data());
    detail::cpu::to_low_scaled(m, n, X.data(), ld, d.data(), s.data(), F.data(), ld);
    detail::cpu::add_low_scaled(m, n, F.data(), ld, d.data(), s.data(), Yc.data(), ld);
    double *dX, *dd, *ds, *dY;
    float* dF;
    REQUIRE(cudaMalloc(&dX, sizeof(double) * X.size()) == cudaSuccess);
    REQUIRE(cudaMalloc(&dY, sizeof(double) * Y.size()) == cudaSuccess);
    REQUIRE(cudaMalloc(&dd, sizeof(double) * m) == cudaSuccess);
    REQUIRE(cudaMalloc(&ds, sizeof(double) * n) == cudaSuccess);
    REQUIRE(cudaMalloc(&dF, sizeof(float) * F.size()) == cudaSuccess);
    cudaMemcpy(dX, X.data(), sizeof(double) * X.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(dY, Y.data(), sizeof(double) * Y.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(dd, d.data(), sizeof(double) * m, cudaMemcpyHostToDevice);
    REQUIRE(cudaMemset(ds, 0, sizeof(double) * n) == cudaSuccess);
    REQUIRE(detail::gpu::column_max(m, n, dX, ld, dd, ds, nullptr) == cudaSuccess);
    REQUIRE(detail::gpu::power_of_two(n, ds, nullptr) == cudaSuccess);
    REQUIRE(detail::gpu::to_low_scaled(m, n, dX, ld, dd, ds, dF, ld, nullptr) == cudaSuccess);
    REQUIRE(detail::gpu::add_low_scaled(m, n, dF, ld, dd, ds, dY, ld, nullptr) == cudaSuccess);
    std::vector<double> sg(n), Yg(Y.size());
    std::vector<float> Fg(F.size());
    REQUIRE(cudaMemcpy(sg.data(), ds, sizeof(double) * n, cudaMemcpyDeviceToHost) == cudaSuccess);
    cudaMemcpy(Fg.data(), dF, sizeof(float) * F.size(), cudaMemcpyDeviceToHost);
    cudaMemcpy(Yg.data(), dY, sizeof(double) * Y.size(), cudaMemcpyDeviceToHost);
    for (double* p : {dX, dd, ds, dY}) cudaFree(p);
    cudaFree(dF);
    for (int j = 0; j < 4; ++j) {
        INFO("column " << j);
        CHECK(sg[j] == s[j]);
        int exponent = 0;
        CHECK(std::frexp(s[j], &exponent) == 0.5);  // a power of two
        double fmax = 0;
        for (int i = 0; i < m; ++i) {
            const size_t e = i + static_cast<size_t>(j) * ld;
            CHECK(Fg[e] == F[e]);
            CHECK(Yg[e] == Yc[e]);
            fmax = std::fmax(fmax, std::fabs(F[e]));
        }
        CHECK(fmax <= 1.0);
        if (j != 2) CHECK(fmax > 0.25);  // the scale uses float's range: no flush to zero
    }
    CHECK(s[2] == 1.0);  // a zero column keeps its values
    CHECK(std::isnan(s[4]));
    CHECK(std::isnan(sg[4]));
}

TEST_CASE("GPU mixed-precision posv reaches double accuracy from tensor-core factors", "[gpu][mixed]") {
    for (Precision p : {Precision::Fp32, Precision::Tf32, Precision::Bf16, Precision::Fp16})
        for (Residency r : {Residency::Host, Residency::Device}) {
            check_mixed_gpu(1000, 1, 256, p, r);
            check_mixed_gpu(1500, 3, 512, p, r);  // not a multiple of nb
        }
    check_mixed_gpu(1, 1, 256, Precision::Tf32, Residency::Device);
    check_mixed_gpu(100, 2, 256, Precision::Bf16, Residency::Device);  // n < nb
}

TEST_CASE("GPU mixed-precision posv: below the plan's order the double path runs, reported", "[gpu][mixed][plan]") {
    const int64_t n = 900, nb = 256;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    std::vector<double> B(static_cast<size_t>(n));
    random_matrix<double>(n, 1, B.data(), n, seed + 1);
    Options opts;
    opts.mapping = Mapping::GpuOnly;
    opts.factor = Precision::Tf32;
    for (bool submit : {false, true}) {
        TileMatrix<double> a(runtime(), n, nb, Residency::Device), b(runtime(), n, 1, nb, Residency::Device);
        a.import(A.data(), n);
        b.import(B.data(), n);
        SolveReport report;
        if (submit) {
            Sequence seq(runtime());
            const int op = async::posv(a, b, seq, opts, report);
            REQUIRE(seq.wait() == 0);
            CHECK(seq.info(op) == 0);
        } else {
            REQUIRE(posv(a, b, opts, report) == 0);
        }
        INFO("submit=" << submit << " reason=" << report.reason);
        CHECK(report.path == SolveReport::Path::Direct);
        CHECK_THAT(report.reason, Catch::Contains("16384"));
        std::vector<double> X(B.size());
        b.export_to(X.data(), n);
        CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    }
}

TEST_CASE("GPU mixed-precision posv: a matrix the float factor cannot serve, by the fallback and by the shift", "[gpu][mixed]") {
    const int64_t n = 600, nb = 256;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    // J + 1e-12 I (J all ones; cond ~ 6e14): SPD in double, but its float rounding is J, of rank one, on which the
    // float factorization breaks down at its second column; the double one does not.
    const std::vector<double> A = ones_plus_diagonal(n, 1e-12);
    std::vector<double> B(static_cast<size_t>(n));
    random_matrix<double>(n, 1, B.data(), n, seed + 1);
    std::vector<double> F = A, X = B;
    Options opts;
    opts.mapping = Mapping::GpuOnly;
    opts.factor = Precision::Tf32;
    SolveReport report;
    Refinement no_shift;
    no_shift.shift_retries = 0;
    no_shift.always_low = true;
    REQUIRE(posv(runtime(), n, 1, F.data(), n, X.data(), n, opts, report, no_shift, Tiling{nb, Residency::Device}) == 0);
    INFO("path=" << to_string(report.path) << " low info=" << report.low_info);
    CHECK(report.path == SolveReport::Path::Fallback);
    CHECK(report.low_info > 0);
    CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    // With the shifted factorizations (the default), the same matrix stays on the tensor cores: J + shift I factors,
    // and GMRES preconditioned by it meets J + 1e-12 I's two clusters of eigenvalues.
    Refinement shifted;
    shifted.always_low = true;
    shifted.time_budget = 0;  // however long the shifted factorization and GMRES take on this small matrix
    for (Residency r : {Residency::Host, Residency::Device}) {
        F = A;
        X = B;
        REQUIRE(posv(runtime(), n, 1, F.data(), n, X.data(), n, opts, report, shifted, Tiling{nb, r}) == 0);
        INFO("residency=" << to_string(r) << " path=" << to_string(report.path) << " shift=" << report.shift
                          << " factorizations=" << report.factorizations << " gmres=" << report.gmres_iterations
                          << " reason=" << report.reason);
        CHECK(report.path == SolveReport::Path::Gmres);
        CHECK(report.factorizations >= 2);
        CHECK(report.backward_error <= report.tolerance);
        CHECK(solve_residual<double>(n, 1, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
        CHECK(F == A);
    }
}

TEST_CASE("GPU mixed-precision posv, submit form: ordered before later work on A and B, and the fall-back",
          "[gpu][mixed][async]") {
    const int64_t nb = 256;
    for (Residency r : {Residency::Host, Residency::Device})
        for (int64_t n : {int64_t(700), int64_t(1100)})
            test::check_submit_form_order(n, nb, Precision::Tf32, Mapping::GpuOnly, r);
    // the fall-back on J + 1e-12 I, device-resident: A receives the double factor, B the solution
    const int64_t n = 600;
    const std::vector<double> A = ones_plus_diagonal(n, 1e-12);
    test::check_submit_form_fallback(A, n, nb, Precision::Tf32, Mapping::GpuOnly, Residency::Device);
}

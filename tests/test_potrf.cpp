// CPU tile Cholesky: scaled residuals for both precisions, many (n, nb), leading dimensions > n,
// both mappings that run on CPUs, priorities on and off.
#include <catch2/catch.hpp>

#include <limits>

#include "algorithms/plan_tables.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;

namespace {

/// Factors a copy of A (order n, leading dimension ld) with opts, requires info == 0, checks the scaled
/// residual and returns the factor.
template <typename T>
std::vector<T> factor_checked(const std::vector<T>& A, int64_t n, int64_t ld, const Options& opts,
                              const Tiling& tiling) {
    std::vector<T> L = A;
    REQUIRE(potrf(runtime(), n, L.data(), ld, opts, tiling) == 0);
    const double res = potrf_residual<T>(n, A.data(), ld, L.data(), ld);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
    return L;
}

template <typename T>
void check_potrf(int64_t n, int64_t nb, Mapping mapping, Variant variant = {}, PanelSolve panel = PanelSolve::Auto,
                 int64_t pad = 3) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nb=" << nb << " mapping=" << to_string(mapping) << " variant=" << variant.name()
              << " panel=" << to_string(panel) << " seed=" << seed
              << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
    const int64_t ld = n + pad;
    const std::vector<T> A = spd_matrix<T>(n, ld, seed);
    Options opts;
    const Tiling tiling{nb};
    opts.mapping = mapping;
    opts.variant = variant;
    opts.panel = panel;
    const std::vector<T> L = factor_checked(A, n, ld, opts, tiling);
    // The strictly upper triangle and the padding rows are neither read nor written.
    bool untouched = true;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < ld; ++i)
            if ((i < j || i >= n) && L[i + j * ld] != A[i + j * ld]) untouched = false;
    CHECK(untouched);
}

template <typename T>
void sweep(Mapping mapping, Variant variant = {}, PanelSolve panel = PanelSolve::Auto) {
    for (int64_t nb : {1, 5, 16, 64, 100}) {
        for (int64_t n : {int64_t(1), int64_t(2), nb - 1, nb, nb + 1, 3 * nb + 7}) {
            if (n < 1) continue;
            check_potrf<T>(n, nb, mapping, variant, panel);
        }
    }
    for (int64_t nb : {64, 100, 256}) check_potrf<T>(1000, nb, mapping, variant, panel);
}

}  // namespace

TEMPLATE_TEST_CASE("potrf residual < 60 on CPU workers", "[potrf][cpu]", float, double) {
    sweep<TestType>(Mapping::CpuOnly);
}

TEMPLATE_TEST_CASE("every variant: residual < 60 on the foundation sizes", "[potrf][cpu][variants]", float, double) {
    for (const char* v : {"lookahead=0", "lookahead=1", "lookahead=2", "left", "left-coarse", "noprio"})
        sweep<TestType>(Mapping::CpuOnly, Variant::parse(v));
}

TEMPLATE_TEST_CASE("inverse panel solve (trtri + gemm): residual < 60", "[potrf][cpu][panel]", float, double) {
    sweep<TestType>(Mapping::CpuOnly, Variant{}, PanelSolve::Inverse);
    sweep<TestType>(Mapping::CpuOnly, Variant::parse("left"), PanelSolve::Inverse);
    check_potrf<TestType>(777, 64, Mapping::Hybrid, Variant::parse("lookahead=1"), PanelSolve::Inverse);
}

TEMPLATE_TEST_CASE("potrf with hybrid mapping and without priorities", "[potrf][cpu]", float, double) {
    check_potrf<TestType>(777, 64, Mapping::Hybrid);
    check_potrf<TestType>(777, 64, Mapping::CpuOnly, Variant::parse("noprio"));
    check_potrf<TestType>(100, 128, Mapping::Hybrid, Variant::parse("noprio"));  // n < nb: a single tile
}

TEMPLATE_TEST_CASE("potrf on a TileMatrix: n = 0 and repeated factorizations", "[potrf][cpu]", float, double) {
    TileMatrix<TestType> empty(runtime(), 0, 32);
    CHECK(potrf(empty) == 0);
    const int64_t n = 300, nb = 48;
    for (int rep = 0; rep < 3; ++rep) {
        const uint64_t seed = fresh_seed();
        INFO("seed=" << seed << " rep=" << rep);
        const std::vector<TestType> A = spd_matrix<TestType>(n, n, seed);
        TileMatrix<TestType> tiles(runtime(), n, nb);
        CHECK(tiles.mt() == 7);
        CHECK(tiles.tile_rows(6) == n - 6 * nb);
        tiles.import(A.data(), n);
        Options opts;
        opts.mapping = Mapping::CpuOnly;
        REQUIRE(potrf(tiles, opts) == 0);
        std::vector<TestType> L(A.size());
        tiles.export_to(L.data(), n);
        CHECK(potrf_residual<TestType>(n, A.data(), n, L.data(), n) < kResidualLimit);
        CHECK(settled_pending_tasks(runtime()) == 0);
    }
}

TEST_CASE("the residual check fails on a wrong factor", "[potrf][cpu][check]") {
    // Guards the guard: a perturbed factor must push the residual far above the limit.
    const int64_t n = 200;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    std::vector<double> L = A;
    Options opts;
    const Tiling tiling{32};
    opts.mapping = Mapping::CpuOnly;
    REQUIRE(potrf(runtime(), n, L.data(), n, opts, tiling) == 0);
    CHECK(potrf_residual<double>(n, A.data(), n, L.data(), n) < kResidualLimit);
    L[150 + 20 * n] += 1e-6;
    CHECK(potrf_residual<double>(n, A.data(), n, L.data(), n) > kResidualLimit);
}

TEST_CASE("tensor-core factors solve their panels through the inverted diagonal tile by default", "[potrf][cpu]") {
    for (Precision f : {Precision::Tf32, Precision::Bf16, Precision::Fp16}) {
        CHECK(detail::resolve_panel_solve(PanelSolve::Auto, f, Mapping::GpuOnly, false) == PanelSolve::Inverse);
        // CPU workers in the mapping: LAPACK's trsm; distributed matrices: the inverse's temporary tile is not
        // distributed
        CHECK(detail::resolve_panel_solve(PanelSolve::Auto, f, Mapping::Hybrid, false) == PanelSolve::Trsm);
        CHECK(detail::resolve_panel_solve(PanelSolve::Auto, f, Mapping::CpuOnly, false) == PanelSolve::Trsm);
        CHECK(detail::resolve_panel_solve(PanelSolve::Auto, f, Mapping::GpuOnly, true) == PanelSolve::Trsm);
        CHECK(detail::resolve_panel_solve(PanelSolve::Trsm, f, Mapping::GpuOnly, false) == PanelSolve::Trsm);
    }
    CHECK(detail::resolve_panel_solve(PanelSolve::Inverse, Precision::Fp64, Mapping::CpuOnly, false) == PanelSolve::Inverse);
}

TEMPLATE_TEST_CASE("default options factor Gaussian-kernel matrices (ill-conditioned tiles) as LAPACK does",
                   "[potrf][cpu]", float, double) {
    using T = TestType;
    // The inverse panel solve loses definiteness on these (a spurious info > 0), so the default is the
    // backward-stable trsm, for every mapping.
    CHECK(detail::resolve_panel_solve(PanelSolve::Auto) == PanelSolve::Trsm);
    for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid, Mapping::GpuOnly})
        for (Precision f : {Precision::Native, Precision::Fp64, Precision::Fp32})
            CHECK(detail::resolve_panel_solve(PanelSolve::Auto, f, m, false) == PanelSolve::Trsm);
    const int64_t n = 300, ld = n + 2;
    const double ell = 0.1, nugget = sizeof(T) == 4 ? 1e-5 : 1e-12;
    for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
        for (int64_t nb : {64, 100}) {
            std::vector<T> A(static_cast<size_t>(ld * n), T(-777));
            const uint64_t seed = gaussian_kernel_spd<T>(n, A.data(), ld, ell, nugget, fresh_seed());
            INFO("n=" << n << " nb=" << nb << " mapping=" << to_string(m) << " ell=" << ell << " nugget=" << nugget
                      << " seed=" << seed << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
            Options opts;
            const Tiling tiling{nb};
            opts.mapping = m;
            factor_checked(A, n, ld, opts, tiling);
        }
    }
}

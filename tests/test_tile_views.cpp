// TileMatrix views of a caller's array (no copy: StarPU moves tiles from and to the array) and the solvers' workspace
// tiles (no home); the array forms of the API, which tile the caller's arrays as views.
#include <catch2/catch.hpp>
#include <lapacke.h>

#include <cmath>
#include <limits>

#include "tests/support.hpp"

using namespace starfact::test::prelude;

TEST_CASE("a TileMatrix view factors the caller's array in place and touches nothing else", "[views][cpu]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int64_t n : {int64_t(1), int64_t(21), int64_t(100)}) {
        const int64_t nb = 32, lda = n + 5;
        const uint64_t seed = fresh_seed();
        INFO("n=" << n << " seed=" << seed);
        const std::vector<double> A = spd_matrix<double>(n, lda, seed);
        std::vector<double> V = A;
        // The upper triangle and the rows past n hold NaN: a lower_only view never reads or writes them.
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < lda; ++i)
                if (i < j || i >= n) V[static_cast<size_t>(i + j * lda)] = nan;
        const std::vector<double> untouched = V;
        TileLayout lower;
        lower.lower_only = true;
        {
            TileMatrix<double> view(runtime(), n, n, nb, V.data(), lda, lower);
            CHECK(view.is_view());
            CHECK(view.residency() == Residency::Host);
            Options opts;
            opts.mapping = Mapping::CpuOnly;
            REQUIRE(potrf(view, opts) == 0);
            std::vector<double> L(static_cast<size_t>(n * n), 0.0);
            view.export_to(L.data(), n);  // the view's current contents, through StarPU
            CHECK(potrf_residual<double>(n, A.data(), lda, L.data(), n) < kResidualLimit);
        }
        // once the view is gone the array holds the factor
        CHECK(potrf_residual<double>(n, A.data(), lda, V.data(), lda) < kResidualLimit);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < lda; ++i)
                if (i < j || i >= n) CHECK(std::isnan(V[static_cast<size_t>(i + j * lda)]));
    }
}

TEST_CASE("a TileMatrix view: import and export go through the array; bad views are refused by name",
          "[views][cpu][errors]") {
    const int64_t m = 50, n = 30, nb = 16, ld = 53;
    std::vector<double> V(static_cast<size_t>(ld * n), 0.0), src(static_cast<size_t>(m * n)), out(src.size());
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<double>(i) + 0.5;
    {
        TileMatrix<double> view(runtime(), m, n, nb, V.data(), ld);
        view.import(src.data(), m);
        view.export_to(out.data(), m);
        CHECK(out == src);
    }
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) CHECK(V[static_cast<size_t>(i + j * ld)] == src[static_cast<size_t>(i + j * m)]);
    CHECK_THROWS_WITH((TileMatrix<double>(runtime(), m, n, nb, nullptr, ld)), Catch::Contains("'data'"));
    CHECK_THROWS_WITH((TileMatrix<double>(runtime(), m, n, nb, V.data(), m - 1)), Catch::Contains("'ld'"));
    CHECK_THROWS_WITH((TileMatrix<double>(runtime(), m, n, 0, V.data(), ld)), Catch::Contains("'nb'"));
    TileLayout lower;
    lower.lower_only = true;
    CHECK_THROWS_WITH((TileMatrix<double>(runtime(), m, n, nb, V.data(), ld, lower)), Catch::Contains("'layout'"));
    TileLayout spread;
    spread.grid = Grid{1, 2};
    CHECK_THROWS_WITH((TileMatrix<double>(runtime(), m, n, nb, V.data(), ld, spread)), Catch::Contains("distributed"));
    CHECK_NOTHROW(TileMatrix<double>(runtime(), 0, 0, nb, nullptr, 1));
}

TEST_CASE("workspace tiles: written by tasks or import, read back through host memory", "[views][cpu]") {
    const int64_t n = 70, nb = 32;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    TileMatrix<double> w(detail::WorkspaceTiles{}, runtime(), n, n, nb);
    CHECK(w.home_node(0, 0) == -1);  // no home
    w.import(A.data(), n);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    REQUIRE(potrf(w, opts) == 0);
    std::vector<double> L(A.size(), 0.0);
    w.export_to(L.data(), n);
    CHECK(potrf_residual<double>(n, A.data(), n, L.data(), n) < kResidualLimit);
}

TEST_CASE("the array forms work on the caller's arrays in place: only the lower triangle is read",
          "[views][cpu]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const int64_t n = 90, lda = 97, ldb = 93, nrhs = 3, nb = 32;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::vector<double> A = spd_matrix<double>(n, lda, seed);
    for (int64_t j = 1; j < n; ++j)
        for (int64_t i = 0; i < j; ++i) A[static_cast<size_t>(i + j * lda)] = nan;  // never read
    std::vector<double> B(static_cast<size_t>(ldb * nrhs));
    random_matrix<double>(n, nrhs, B.data(), ldb, seed + 1);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    for (Precision p : {Precision::Native, Precision::Fp32}) {
        INFO("factor=" << to_string(p));
        opts.factor = p;
        std::vector<double> F = A, X = B;
        REQUIRE(posv(runtime(), n, nrhs, F.data(), lda, X.data(), ldb, opts, Tiling{nb}) == 0);
        CHECK(solve_residual<double>(n, nrhs, A.data(), lda, X.data(), ldb, B.data(), ldb) < kResidualLimit);
        for (int64_t j = 1; j < n; ++j)
            for (int64_t i = 0; i < j; ++i) CHECK(std::isnan(F[static_cast<size_t>(i + j * lda)]));
    }
    opts.factor = Precision::Native;
    std::vector<double> F = A;
    REQUIRE(potrf(runtime(), n, F.data(), lda, opts, Tiling{nb}) == 0);
    CHECK(potrf_residual<double>(n, A.data(), lda, F.data(), lda) < kResidualLimit);
    std::vector<double> G = A;
    REQUIRE(potri(runtime(), n, G.data(), lda, opts, Tiling{nb}) == 0);
    CHECK(potri_residual<double>(n, A.data(), lda, G.data(), lda) < kResidualLimit);
}

// CPU tile solves: ||A X - B|| / (||A|| ||X|| n eps) < 60 for several right-hand-side counts.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

using namespace starfact::test::prelude;

namespace {

template <typename T>
void check_posv(int64_t n, int64_t nrhs, int64_t nb, Mapping mapping) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nrhs=" << nrhs << " nb=" << nb << " seed=" << seed << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
    const int64_t lda = n + 1, ldb = n + 2;
    const std::vector<T> A = spd_matrix<T>(n, lda, seed);
    std::vector<T> B(static_cast<size_t>(ldb) * std::max<int64_t>(nrhs, 1));
    random_matrix<T>(n, nrhs, B.data(), ldb, seed + 1);
    std::vector<T> F = A, X = B;
    Options opts;
    const Tiling tiling{nb};
    opts.mapping = mapping;
    REQUIRE(posv(runtime(), n, nrhs, F.data(), lda, X.data(), ldb, opts, tiling) == 0);
    const double res = solve_residual<T>(n, nrhs, A.data(), lda, X.data(), ldb, B.data(), ldb);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
    CHECK(potrf_residual<T>(n, A.data(), lda, F.data(), lda) < kResidualLimit);
}

}  // namespace

TEMPLATE_TEST_CASE("posv residual < 60 with many right-hand sides", "[potrs][cpu]", float, double) {
    const int64_t nb = 32;
    for (int64_t n : {int64_t(1), nb - 1, nb, 3 * nb + 7, int64_t(500)})
        for (int64_t nrhs : {int64_t(1), int64_t(3), nb + 5, int64_t(100)}) check_posv<TestType>(n, nrhs, nb, Mapping::CpuOnly);
    check_posv<TestType>(333, 17, 64, Mapping::Hybrid);
}

TEMPLATE_TEST_CASE("potrs on tiles reuses one factor for several solves", "[potrs][cpu]", float, double) {
    const int64_t n = 250, nb = 40;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<TestType> A = spd_matrix<TestType>(n, n, seed);
    TileMatrix<TestType> L(runtime(), n, nb);
    L.import(A.data(), n);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    REQUIRE(potrf(L, opts) == 0);
    for (int64_t nrhs : {1, 7, 45}) {
        std::vector<TestType> B(static_cast<size_t>(n) * nrhs), X(B.size());
        random_matrix<TestType>(n, nrhs, B.data(), n, seed + nrhs);
        TileMatrix<TestType> tb(runtime(), n, nrhs, nb);
        tb.import(B.data(), n);
        potrs(L, tb, opts);
        tb.export_to(X.data(), n);
        CHECK(solve_residual<TestType>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    }
    CHECK(settled_pending_tasks(runtime()) == 0);
}

TEST_CASE("the solve residual check fails on a wrong solution", "[potrs][cpu][check]") {
    const int64_t n = 120, nrhs = 2;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    std::vector<double> B(n * nrhs);
    random_matrix<double>(n, nrhs, B.data(), n, 5);
    std::vector<double> F = A, X = B;
    Options opts;
    const Tiling tiling{32};
    opts.mapping = Mapping::CpuOnly;
    REQUIRE(posv(runtime(), n, nrhs, F.data(), n, X.data(), n, opts, tiling) == 0);
    CHECK(solve_residual<double>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
    X[17] *= 1.0 + 1e-8;
    CHECK(solve_residual<double>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) > kResidualLimit);
}

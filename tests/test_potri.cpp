// SPD inverse on CPU workers: potri (potrf + trtri + lauum as one graph) by its scaled residual, trtri and lauum
// alone against LAPACKE, the infos of non-SPD and singular inputs, a check that the residual rejects a wrong
// inverse, and the operations chained in one Sequence without waits.
#include <catch2/catch.hpp>

#include <lapacke.h>

#include <limits>
#include <type_traits>

#include "tests/inverse_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::inverse;

namespace {

const char* prec_name(size_t bytes) { return bytes == 4 ? "s" : "d"; }


/// Whether X equals Y outside the lower triangle of the leading n x n block (strictly upper part, padding rows).
template <typename T>
bool outside_lower_untouched(int64_t n, const std::vector<T>& X, const std::vector<T>& Y, int64_t ld) {
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < ld; ++i)
            if ((i < j || i >= n) && X[i + j * ld] != Y[i + j * ld]) return false;
    return true;
}

template <typename T>
void check_potri(int64_t n, int64_t nb, Mapping mapping) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nb=" << nb << " mapping=" << to_string(mapping) << " seed=" << seed
              << " prec=" << prec_name(sizeof(T)));
    const int64_t ld = n + 2;
    const std::vector<T> A = spd_matrix<T>(n, ld, seed);
    std::vector<T> X = A;
    Options opts;
    opts.mapping = mapping;
    REQUIRE(potri(runtime(), n, X.data(), ld, opts, Tiling{nb}) == 0);
    const double res = potri_residual<T>(n, A.data(), ld, X.data(), ld);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
    CHECK(outside_lower_untouched(n, X, A, ld));
}

/// L: the Cholesky factor (LAPACKE) of a fresh SPD matrix, padded with ld - n marker rows.
template <typename T>
std::vector<T> lapacke_factor(int64_t n, int64_t ld, uint64_t seed) {
    std::vector<T> L = spd_matrix<T>(n, ld, seed);
    REQUIRE(lapacke_potrf<T>(n, L.data(), ld) == 0);
    return L;
}

}  // namespace

TEMPLATE_TEST_CASE("potri: ||A inv(A) - I|| / (||A|| ||inv(A)|| n eps) < 60", "[potri][cpu]", float, double) {
    for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
        check_potri<TestType>(1, 16, m);
        check_potri<TestType>(20, 32, m);              // n < nb: one tile
        check_potri<TestType>(32, 32, m);              // n = nb
        check_potri<TestType>(3 * 32 + 7, 32, m);      // a partial last tile
        check_potri<TestType>(3 * 64 + 7, 64, m);
        check_potri<TestType>(400, 64, m);
    }
    check_potri<TestType>(400, 100, Mapping::CpuOnly);
}

TEMPLATE_TEST_CASE("potri on a TileMatrix: n = 0, RunStats, no priorities", "[potri][cpu]", float, double) {
    using T = TestType;
    TileMatrix<T> empty(runtime(), 0, 32);
    CHECK(potri(empty) == 0);
    const int64_t n = 150, nb = 40;  // mt = 4
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<T> A = spd_matrix<T>(n, n, seed);
    TileMatrix<T> tiles(runtime(), n, nb);
    tiles.import(A.data(), n);
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    opts.variant = Variant::parse("noprio");
    RunStats stats;
    REQUIRE(potri(tiles, opts, stats) == 0);
    // potrf: mt(mt+1)(mt+2)/6 = 20; trtri: mt(mt+1)(mt+2)/6 = 20 (per step k: mt-1-k + (mt-1-k)k + k + 1);
    // lauum: 20 as well (per step k: k(k+1)/2 + k + 1).
    CHECK(stats.tasks == 60);
    std::vector<T> X(A.size());
    tiles.export_to(X.data(), n);
    CHECK(potri_residual<T>(n, A.data(), n, X.data(), n) < kResidualLimit);
}

TEMPLATE_TEST_CASE("trtri and lauum on tiles agree with LAPACKE", "[potri][cpu]", float, double) {
    using T = TestType;
    const double tol = 100.0 * std::numeric_limits<T>::epsilon();
    for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
        for (auto [n, nb] : {std::pair<int64_t, int64_t>{1, 8}, {30, 32}, {32, 32}, {103, 32}, {200, 48}}) {
            const uint64_t seed = fresh_seed();
            INFO("n=" << n << " nb=" << nb << " mapping=" << to_string(m) << " seed=" << seed
                      << " prec=" << prec_name(sizeof(T)));
            const int64_t ld = n + 3;
            const std::vector<T> L = lapacke_factor<T>(n, ld, seed);
            Options opts;
            opts.mapping = m;

            std::vector<T> ref = L, got = L;
            REQUIRE(lapacke_trtri<T>(n, ref.data(), ld) == 0);
            {
                TileMatrix<T> tiles(runtime(), n, nb);
                tiles.import(got.data(), ld);
                REQUIRE(trtri(tiles, opts) == 0);
                tiles.export_to(got.data(), ld);
            }
            CHECK(lower_rel_diff(n, got, ref, ld) < tol * static_cast<double>(n));
            CHECK(outside_lower_untouched(n, got, L, ld));

            ref = L;
            got = L;
            REQUIRE(lapacke_lauum<T>(n, ref.data(), ld) == 0);
            {
                TileMatrix<T> tiles(runtime(), n, nb);
                tiles.import(got.data(), ld);
                lauum(tiles, opts);
                tiles.export_to(got.data(), ld);
            }
            CHECK(lower_rel_diff(n, got, ref, ld) < tol * static_cast<double>(n));
            CHECK(outside_lower_untouched(n, got, L, ld));
        }
    }
}

TEMPLATE_TEST_CASE("potri of a non-SPD matrix returns potrf's info", "[potri][cpu]", float, double) {
    using T = TestType;
    const int64_t n = 150, nb = 32;
    for (int64_t bad : {0, 31, 32, 100, 149}) {
        const uint64_t seed = fresh_seed();
        INFO("bad=" << bad << " seed=" << seed);
        std::vector<T> A = spd_matrix<T>(n, n, seed);
        A[bad + bad * n] = T(-1);
        std::vector<T> L = A;
        const int expected = lapacke_potrf<T>(n, L.data(), n);
        REQUIRE(expected == bad + 1);
        for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
            Options opts;
            opts.mapping = m;
            std::vector<T> X = A;
            CHECK(potri(runtime(), n, X.data(), n, opts, Tiling{nb}) == expected);
        }
    }
    // The runtime is still usable afterwards.
    check_potri<T>(n, nb, Mapping::CpuOnly);
}

TEMPLATE_TEST_CASE("trtri of a singular triangle returns the zero diagonal's index", "[potri][cpu]", float, double) {
    using T = TestType;
    const int64_t n = 100, nb = 24;
    for (int64_t zero : {0, 23, 24, 77, 99}) {
        const uint64_t seed = fresh_seed();
        INFO("zero=" << zero << " seed=" << seed);
        std::vector<T> L = lapacke_factor<T>(n, n, seed);
        L[zero + zero * n] = T(0);
        std::vector<T> ref = L;
        const int expected = lapacke_trtri<T>(n, ref.data(), n);
        REQUIRE(expected == zero + 1);
        TileMatrix<T> tiles(runtime(), n, nb);
        tiles.import(L.data(), n);
        Options opts;
        opts.mapping = Mapping::CpuOnly;
        CHECK(trtri(tiles, opts) == expected);
    }
}

TEST_CASE("the inverse residual check fails on a wrong inverse", "[potri][cpu][check]") {
    // Guards the guard: a perturbed inverse must push the residual far above the limit.
    const int64_t n = 200;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    std::vector<double> X = A;
    Options opts;
    opts.mapping = Mapping::CpuOnly;
    REQUIRE(potri(runtime(), n, X.data(), n, opts, Tiling{32}) == 0);
    CHECK(potri_residual<double>(n, A.data(), n, X.data(), n) < kResidualLimit);
    X[150 + 20 * n] *= 1.0 + 1e-6;
    CHECK(potri_residual<double>(n, A.data(), n, X.data(), n) > kResidualLimit);
}

TEST_CASE("potri and its tile operations reject bad arguments", "[potri][cpu]") {
    TileMatrix<double> rect(runtime(), 64, 32, 32);
    CHECK_THROWS_WITH(potri(rect), Catch::Contains("'A'"));
    CHECK_THROWS_WITH(trtri(rect), Catch::Contains("'L'"));
    CHECK_THROWS_WITH(lauum(rect), Catch::Contains("'L'"));
    std::vector<double> A(16, 0.0);
    CHECK_THROWS_AS(potri(runtime(), 4, A.data(), 3), InvalidArgument);
    CHECK_THROWS_WITH(potri(runtime(), 4, A.data(), 3), Catch::Contains("'lda'"));
}

TEMPLATE_TEST_CASE("potrf, potrs, trtri and lauum chained in one sequence equal the synchronous calls",
                   "[potri][async][cpu]", float, double) {
    using T = TestType;
    const int64_t n = 237, nrhs = 3, nb = 48;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<T> A = spd_matrix<T>(n, n, seed);
    std::vector<T> B(static_cast<size_t>(n * nrhs));
    random_matrix<T>(n, nrhs, B.data(), n, seed + 1);
    Options o;
    o.mapping = Mapping::CpuOnly;

    // Synchronous: posv, then potri on a copy of A.
    std::vector<T> Xs(B.size()), Is(A.size());
    {
        TileMatrix<T> a(runtime(), n, nb), b(runtime(), n, nrhs, nb);
        a.import(A.data(), n);
        b.import(B.data(), n);
        REQUIRE(posv(a, b, o) == 0);
        b.export_to(Xs.data(), n);
        a.import(A.data(), n);
        REQUIRE(potri(a, o) == 0);
        a.export_to(Is.data(), n);
    }

    // One sequence, no waits: the solve uses the factor before trtri and lauum overwrite it with the inverse;
    // potri of a second copy runs in the same graph.
    std::vector<T> Xa(B.size()), Ia(A.size()), Ia2(A.size());
    TileMatrix<T> a(runtime(), n, nb), b(runtime(), n, nrhs, nb), a2(runtime(), n, nb);
    a.import(A.data(), n);
    b.import(B.data(), n);
    a2.import(A.data(), n);
    Sequence seq(runtime());
    const int op_f = async::potrf(a, seq, o);
    async::potrs(a, b, seq, o);
    const int op_t = async::trtri(a, seq, o);
    async::lauum(a, seq, o);
    const int op_i = async::potri(a2, seq, o);
    CHECK(seq.operations() == 4);  // potrf, trtri, and potri's two
    REQUIRE(seq.wait() == 0);
    CHECK(seq.info(op_f) == 0);
    CHECK(seq.info(op_t) == 0);
    CHECK(seq.info(op_i) == 0);
    CHECK(seq.info(op_i + 1) == 0);
    b.export_to(Xa.data(), n);
    a.export_to(Ia.data(), n);
    a2.export_to(Ia2.data(), n);
    CHECK(solve_residual<T>(n, nrhs, A.data(), n, Xa.data(), n, B.data(), n) < kResidualLimit);
    CHECK(potri_residual<T>(n, A.data(), n, Ia.data(), n) < kResidualLimit);
    CHECK(potri_residual<T>(n, A.data(), n, Ia2.data(), n) < kResidualLimit);
    // The same tasks in the same data order: the results agree to rounding.
    const double tol = 1e3 * std::numeric_limits<T>::epsilon();
    double dx = 0, sx = 0;
    for (size_t i = 0; i < Xs.size(); ++i) {
        dx = std::max(dx, std::abs(double(Xs[i]) - double(Xa[i])));
        sx = std::max(sx, std::abs(double(Xs[i])));
    }
    CHECK(dx <= tol * sx);
    CHECK(lower_rel_diff(n, Ia, Is, n) <= tol);
    CHECK(lower_rel_diff(n, Ia2, Is, n) <= tol);
}

TEMPLATE_TEST_CASE("async potri of a non-SPD matrix: the sequence reports potrf's info", "[potri][async][cpu]", float,
                   double) {
    using T = TestType;
    const int64_t n = 90, nb = 32, bad = 40;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::vector<T> A = spd_matrix<T>(n, n, seed);
    A[bad + bad * n] = T(-1);
    TileMatrix<T> a(runtime(), n, nb);
    a.import(A.data(), n);
    Options o;
    o.mapping = Mapping::CpuOnly;
    Sequence seq(runtime());
    const int op = async::potri(a, seq, o);
    CHECK(seq.wait() == bad + 1);
    CHECK(seq.info(op) == bad + 1);
}

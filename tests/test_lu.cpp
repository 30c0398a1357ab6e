// CPU tile LU with partial pivoting: scaled residuals ||PA - LU|| / (||A|| n eps) for both precisions,
// many (n, nb) and both mappings that run on CPUs; pivots equal LAPACK's; singular matrices give LAPACK's
// info without NaN; gesv, getrf_nopiv, the async forms and bad arguments.
#include <catch2/catch.hpp>

#include <random>

#include "algorithms/lu_interchanges.hpp"
#include "tests/laswp_tile_checks.hpp"
#include "tests/lu_support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::lu;

namespace {

/// Factors a copy of A (order n, leading dimension ld) and checks info, the residual and (when asked)
/// that the pivots are LAPACK's; returns the factor.
template <typename T>
std::vector<T> check_getrf(const std::vector<T>& A, int64_t n, int64_t ld, int64_t nb, Mapping mapping,
                           bool same_pivots) {
    std::vector<T> LU = A;
    std::vector<int64_t> ipiv(static_cast<size_t>(n), -1);
    const int info = getrf(runtime(), n, LU.data(), ld, ipiv.data(), on(mapping), Tiling{nb});
    REQUIRE(info == 0);
    const double res = lu_residual<T>(n, A.data(), ld, LU.data(), ld, ipiv);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
    // The padding rows are neither read nor written.
    bool untouched = true;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = n; i < ld; ++i)
            if (LU[i + j * ld] != A[i + j * ld]) untouched = false;
    CHECK(untouched);
    if (same_pivots) {
        std::vector<T> ref = A;
        std::vector<int> ref_piv(static_cast<size_t>(n));
        REQUIRE(lapack_getrf<T>(static_cast<int>(n), ref.data(), static_cast<int>(ld), ref_piv.data()) == 0);
        bool same = true;
        for (int64_t i = 0; i < n; ++i) same = same && ipiv[i] == ref_piv[i];
        CHECK(same);
    }
    return LU;
}

template <typename T>
void check_random(int64_t n, int64_t nb, Mapping mapping) {
    const uint64_t seed = fresh_seed();
    INFO("n=" << n << " nb=" << nb << " mapping=" << to_string(mapping) << " seed=" << seed
              << " prec=" << (sizeof(T) == 4 ? "s" : "d"));
    const int64_t ld = n + 3;
    // One tile: the panel is LAPACK's getrf on the same array, so the pivots are LAPACK's exactly.
    check_getrf<T>(random_general<T>(n, ld, seed), n, ld, nb, mapping, n <= nb);
}

}  // namespace

TEMPLATE_TEST_CASE("getrf residual < 60 on CPU workers", "[lu][cpu]", float, double) {
    for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
        for (int64_t nb : {1, 7, 16, 64}) {
            for (int64_t n : {int64_t(1), int64_t(2), nb - 1, nb, nb + 1, 3 * nb + 7}) {
                if (n < 1) continue;
                check_random<TestType>(n, nb, m);
            }
        }
        check_random<TestType>(500, 64, m);
        check_random<TestType>(500, 100, m);
    }
}

TEMPLATE_TEST_CASE("getrf pivots equal LAPACK's, ties included", "[lu][cpu]", float, double) {
    using T = TestType;
    // Small integers with many equal magnitudes in every column. When the matrix is one tile, the panel is
    // LAPACK's getrf on the same data: the whole ipiv (every choice among equal candidates) must be LAPACK's.
    // With several tiles the first column is still seen as given: its tie goes to the first candidate.
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 rng(seed);
    for (int64_t n : {1, 5, 9, 12, 16, 40}) {
        for (int64_t nb : {4, 16, 64}) {
            for (int kind = 0; kind < 2; ++kind) {
                INFO("n=" << n << " nb=" << nb << " kind=" << (kind == 0 ? "signs" : "small integers"));
                std::vector<T> A(static_cast<size_t>(n * n));
                for (T& a : A) {
                    const int sign = (rng() & 1) ? 1 : -1;
                    a = kind == 0 ? T(sign) : T(sign * static_cast<int>(1 + rng() % 3));
                }
                for (int64_t i = 0; i < n; ++i) A[i] = T((i % 2) ? -3 : 3);  // column 0: all tied
                std::vector<T> ref = A;
                std::vector<int> ref_piv(static_cast<size_t>(n));
                const int ref_info = lapack_getrf<T>(static_cast<int>(n), ref.data(), static_cast<int>(n), ref_piv.data());
                std::vector<T> LU = A;
                std::vector<int64_t> ipiv(static_cast<size_t>(n));
                const int info = getrf(runtime(), n, LU.data(), n, ipiv.data(), on(Mapping::CpuOnly), Tiling{nb});
                CHECK(ipiv[0] == 1);  // the first of the equal magnitudes, as LAPACK's i<t>amax
                CHECK(ipiv[0] == ref_piv[0]);
                if (n <= nb) {
                    CHECK(info == ref_info);
                    bool same = true;
                    for (int64_t i = 0; i < n; ++i) same = same && ipiv[i] == ref_piv[i];
                    CHECK(same);
                }
                CHECK(all_finite(LU));
                CHECK(lu_residual<T>(n, A.data(), n, LU.data(), n, ipiv) < kResidualLimit);
            }
        }
    }
}

TEST_CASE("getrf pivots equal LAPACK's on random matrices of several tiles", "[lu][cpu]") {
    // No ties: the candidates differ far above the rounding of the different update order (double).
    for (int64_t nb : {7, 16, 32}) {
        const int64_t n = 3 * nb + 7;
        const uint64_t seed = fresh_seed();
        INFO("n=" << n << " nb=" << nb << " seed=" << seed);
        check_getrf<double>(random_general<double>(n, n, seed), n, n, nb, Mapping::CpuOnly, true);
    }
}

TEMPLATE_TEST_CASE("exactly singular matrices give LAPACK's info and no NaN", "[lu][cpu]", float, double) {
    using T = TestType;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    struct Case {
        const char* what;
        int64_t n, nb, index;
    };
    // A zero column j is still zero when its panel comes (the updates of a zero column are zero): U(j, j) is
    // exactly zero, whatever the tiling. A repeated row is exactly singular too, but whether a pivot comes out
    // exactly zero depends on the rounding: LAPACK's info is compared where the panel is LAPACK's getrf on the
    // same data (one tile), and elsewhere the factorization must complete without NaN.
    for (Case c : {Case{"zero column", 70, 16, 0}, Case{"zero column", 70, 16, 37}, Case{"zero column", 70, 16, 69},
                   Case{"zero column", 40, 64, 12}, Case{"repeated row", 40, 64, 20},
                   Case{"repeated row", 12, 16, 11}, Case{"repeated row", 70, 16, 50}}) {
        const int64_t n = c.n;
        INFO(c.what << " at " << c.index << " n=" << n << " nb=" << c.nb);
        std::vector<T> A = random_general<T>(n, n, seed + static_cast<uint64_t>(c.index));
        const bool zero_column = std::string(c.what) == "zero column";
        if (zero_column) {
            for (int64_t i = 0; i < n; ++i) A[i + c.index * n] = T(0);
        } else {
            for (int64_t j = 0; j < n; ++j) A[c.index + j * n] = A[3 + j * n];  // the same as row 3
        }
        std::vector<T> ref = A;
        std::vector<int> ref_piv(static_cast<size_t>(n));
        const int ref_info = lapack_getrf<T>(static_cast<int>(n), ref.data(), static_cast<int>(n), ref_piv.data());
        if (zero_column) CHECK(ref_info > 0);
        for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
            std::vector<T> LU = A;
            std::vector<int64_t> ipiv(static_cast<size_t>(n));
            const int info = getrf(runtime(), n, LU.data(), n, ipiv.data(), on(m), Tiling{c.nb});
            if (zero_column || n <= c.nb) CHECK(info == ref_info);
            CHECK(info >= 0);
            CHECK(info <= n);
            CHECK(all_finite(LU));
            // The factorization completed: P A = L U still holds.
            CHECK(lu_residual<T>(n, A.data(), n, LU.data(), n, ipiv) < kResidualLimit);
        }
    }
}

TEST_CASE("the LU residual check fails on a wrong factor", "[lu][cpu][check]") {
    // Guards the guard: a perturbed factor must push the residual far above the limit.
    const int64_t n = 200;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = random_general<double>(n, n, seed);
    std::vector<double> LU = A;
    std::vector<int64_t> ipiv(static_cast<size_t>(n));
    REQUIRE(getrf(runtime(), n, LU.data(), n, ipiv.data(), on(Mapping::CpuOnly), Tiling{32}) == 0);
    CHECK(lu_residual<double>(n, A.data(), n, LU.data(), n, ipiv) < kResidualLimit);
    LU[150 + 20 * n] += 1e-6;
    CHECK(lu_residual<double>(n, A.data(), n, LU.data(), n, ipiv) > kResidualLimit);
    CHECK(getrf_residual<double>(n, A.data(), n, LU.data(), n, ipiv.data()) > kResidualLimit);
    LU[150 + 20 * n] -= 1e-6;
    CHECK(getrf_residual<double>(n, A.data(), n, LU.data(), n, ipiv.data()) < kResidualLimit);
    std::swap(ipiv[10], ipiv[11]);  // wrong interchanges
    CHECK(lu_residual<double>(n, A.data(), n, LU.data(), n, ipiv) > kResidualLimit);
    CHECK(getrf_residual<double>(n, A.data(), n, LU.data(), n, ipiv.data()) > kResidualLimit);
}

TEMPLATE_TEST_CASE("gesv: solve residual < 60", "[lu][cpu]", float, double) {
    using T = TestType;
    const int64_t n = 203, nb = 32;
    for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
        for (int64_t nrhs : {int64_t(1), int64_t(7), nb + 5}) {
            const uint64_t seed = fresh_seed();
            INFO("nrhs=" << nrhs << " mapping=" << to_string(m) << " seed=" << seed);
            GesvProblem<T> p(n, nrhs, seed);
            REQUIRE(gesv(runtime(), n, nrhs, p.LU.data(), n, p.ipiv.data(), p.X.data(), n, on(m), Tiling{nb}) == 0);
            const double res = general_solve_residual<T>(n, nrhs, p.A.data(), p.X.data(), p.B.data());
            INFO("residual=" << res);
            CHECK(res < kResidualLimit);
            CHECK(gesv_residual<T>(n, nrhs, p.A.data(), n, p.X.data(), n, p.B.data(), n) < kResidualLimit);
            CHECK(lu_residual<T>(n, p.A.data(), n, p.LU.data(), n, p.ipiv) < kResidualLimit);
        }
    }
}

TEMPLATE_TEST_CASE("getrf_nopiv on a diagonally dominant matrix", "[lu][cpu]", float, double) {
    using T = TestType;
    for (int64_t n : {1, 50, 201}) {
        const uint64_t seed = fresh_seed();
        INFO("n=" << n << " seed=" << seed);
        std::vector<T> A = random_general<T>(n, n, seed);
        for (int64_t i = 0; i < n; ++i) A[i + i * n] += T(n);  // |a_ii| > sum of the others in its row
        TileMatrix<T> a(runtime(), n, 32);
        a.import(A.data(), n);
        REQUIRE(getrf_nopiv(a, on(Mapping::CpuOnly)) == 0);
        std::vector<T> LU(A.size());
        a.export_to(LU.data(), n);
        std::vector<int64_t> identity(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) identity[i] = i + 1;
        CHECK(lu_residual<T>(n, A.data(), n, LU.data(), n, identity) < kResidualLimit);
    }
    // A zero pivot is reported (1-based, global).
    const int64_t n = 40;
    std::vector<T> A(static_cast<size_t>(n * n), T(0));
    for (int64_t i = 0; i < n; ++i) A[i + i * n] = T(i == 33 ? 0 : 2);
    TileMatrix<T> a(runtime(), n, 16);
    a.import(A.data(), n);
    CHECK(getrf_nopiv(a, on(Mapping::CpuOnly)) == 34);
}

TEMPLATE_TEST_CASE("async getrf: two factorizations in one sequence report their own info", "[lu][cpu][async]",
                   float, double) {
    using T = TestType;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const int64_t n1 = 150, n2 = 90, nb = 32, zero = 41;
    const std::vector<T> A1 = random_general<T>(n1, n1, seed);
    std::vector<T> A2 = random_general<T>(n2, n2, seed + 1);
    for (int64_t i = 0; i < n2; ++i) A2[i + zero * n2] = T(0);  // column 42 (1-based) is zero
    TileMatrix<T> a1(runtime(), n1, nb), a2(runtime(), n2, nb);
    a1.import(A1.data(), n1);
    a2.import(A2.data(), n2);
    Pivots p1(a1), p2(a2);
    std::vector<T> B(static_cast<size_t>(n1 * 3));
    random_matrix<T>(n1, 3, B.data(), n1, seed + 2);
    TileMatrix<T> b(runtime(), n1, 3, nb);
    b.import(B.data(), n1);
    Sequence seq(runtime());
    const Options o = on(Mapping::CpuOnly);
    const int op1 = async::getrf(a1, p1, seq, o);
    async::getrs(a1, p1, b, seq, o);
    const int op2 = async::getrf(a2, p2, seq, o);
    CHECK(seq.wait() == zero + 1);
    CHECK(seq.info(op1) == 0);
    CHECK(seq.info(op2) == zero + 1);
    std::vector<T> LU1(A1.size()), X(B.size()), LU2(A2.size());
    a1.export_to(LU1.data(), n1);
    a2.export_to(LU2.data(), n2);
    b.export_to(X.data(), n1);
    CHECK(lu_residual<T>(n1, A1.data(), n1, LU1.data(), n1, p1.ipiv()) < kResidualLimit);
    CHECK(general_solve_residual<T>(n1, 3, A1.data(), X.data(), B.data()) < kResidualLimit);
    CHECK(all_finite(LU2));
    CHECK(lu_residual<T>(n2, A2.data(), n2, LU2.data(), n2, p2.ipiv()) < kResidualLimit);
    CHECK(seq.done());
}

TEST_CASE("LU: bad arguments throw InvalidArgument naming them", "[lu][cpu][errors]") {
    auto names = [](auto&& f, const char* arg) {
        try {
            f();
            FAIL("no exception for " << arg);
        } catch (const InvalidArgument& e) {
            CHECK(e.argument() == arg);
        }
    };
    Runtime& rt = runtime();
    TileMatrix<double> rect(rt, 10, 12, 4), sq(rt, 12, 4), other_nb(rt, 12, 12, 5), b(rt, 12, 2, 4), b_rows(rt, 11, 2, 4);
    Pivots p(sq), p_other(rt, 12, 5);
    Pivots p_rect(rt, 12, 4);
    const Options cpu = on(Mapping::CpuOnly);
    names([&] { getrf(rect, p_rect, cpu); }, "A");
    names([&] { getrf(sq, p_other, cpu); }, "piv");
    names([&] { Options o = cpu; o.variant = Variant::parse("left"); getrf(sq, p, o); }, "variant");
    names([&] { getrs(sq, p, b_rows, cpu); }, "B");
    names([&] { getrs(sq, p_other, b, cpu); }, "piv");
    names([&] { getrs(other_nb, p_other, b, cpu); }, "B");
    names([&] { gesv(sq, p, b_rows, cpu); }, "B");
    names([&] { getrf_nopiv(rect, cpu); }, "A");
    names([&] { Pivots bad(rt, -1, 4); }, "n");
    names([&] { Pivots bad(rt, 4, 0); }, "nb");
    std::vector<double> A(16);
    std::vector<int64_t> ipiv(4);
    names([&] { getrf(rt, -1, A.data(), 4, ipiv.data(), cpu); }, "n");
    names([&] { getrf(rt, 4, A.data(), 3, ipiv.data(), cpu); }, "lda");
    names([&] { getrf(rt, 4, A.data(), 4, static_cast<int64_t*>(nullptr), cpu); }, "ipiv");
    names([&] { getrf(rt, 4, static_cast<double*>(nullptr), 4, ipiv.data(), cpu); }, "A");
    names([&] { getrf(rt, 4, A.data(), 4, ipiv.data(), cpu, Tiling{-1}); }, "nb");
    names([&] { gesv(rt, 4, -1, A.data(), 4, ipiv.data(), A.data(), 4, cpu); }, "nrhs");
    names([&] { gesv(rt, 4, 1, A.data(), 4, ipiv.data(), A.data(), 3, cpu); }, "ldb");
    Sequence seq(rt);
    names([&] { async::getrf(rect, p_rect, seq, cpu); }, "A");
    CHECK(seq.submitted() == 0);  // nothing was submitted for the rejected call
    CHECK(seq.wait() == 0);
}

TEMPLATE_TEST_CASE("LU interchanges applied tile by tile equal LAPACK's laswp", "[lu][cpu][laswp]", float, double,
                   std::complex<float>, std::complex<double>) {
    // The distributed LU's interchanges (compose, gather, spread, top: codelets/laswp_compose.cpp, laswp_tile.cpp),
    // here on one process's tiles split as for grids of 1 to 3 rows, against LAPACK on pivots that reach back to rows
    // interchanged before (a row taken twice) as well as random ones; the composed permutation against
    // compose_interchanges (tests/laswp_tile_checks.hpp).
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 rng(seed);
    for (const auto& [n, nb] : {std::pair<int64_t, int64_t>{100, 16}, {37, 8}, {64, 16}, {9, 16}, {700, 256}})
        starfact::test::laswp_tile::check_tile_interchanges<TestType>(Mapping::CpuOnly, Residency::Host, n, nb, rng);
}

TEMPLATE_TEST_CASE("LU with its interchanges tile by tile in one process: residuals < 60", "[lu][cpu][laswp]", float,
                   double, std::complex<float>, std::complex<double>) {
    // getrf and getrs through the distributed LU's interchange tasks (tile_interchange_rows_for_tests), n = 1,
    // below, at and not multiple of the tile size.
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 rng(seed);
    for (int rows : {2, 3})
        for (const auto& [n, nb] : {std::pair<int64_t, int64_t>{1, 8}, {5, 8}, {16, 16}, {37, 8}, {100, 16}})
            starfact::test::laswp_tile::check_lu_tile_by_tile<TestType>(Mapping::CpuOnly, Residency::Host, n, nb, 3,
                                                                       rows, rng);
}

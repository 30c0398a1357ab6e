// The complex tile LU on CPU workers [complex][lu][cpu]: getrf, getrs and gesv on fresh random complex matrices
// (real and imaginary parts uniform in [-1, 1)), checked by the scaled residuals ||P A - L U||_F / (||A||_F n eps) and
// ||A X - B||_F / (||A||_F ||X||_F n eps) < 60, computed here element by element; orders 1, below the tile size, a
// multiple of it and with a partial last tile. The pivots equal LAPACKE's cgetrf/zgetrf on the same input where no
// near tie can make the two orders of rounding choose differently: double matrices drawn at random, and, in both
// precisions, a column diagonally dominant matrix with its rows permuted at random (each step's pivot then leads the
// others by a wide margin). A matrix with an exactly zero column k reports info = k + 1 as LAPACK does, its
// factorization completed; gesv then leaves B untouched.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "starfact/cholesky_complex.hpp"
#include "tests/hermitian_matrices.hpp"
#include "tests/lu_complex_checks.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using starfact::test::Factored;
using starfact::test::complex_letter;
using starfact::test::draw;
using starfact::test::eps;
using starfact::test::frobenius;
using starfact::test::getrf_residual;
using starfact::test::hpd_matrix;
using starfact::test::lapack_getrf;
using starfact::test::permuted_dominant;
using starfact::test::random_block;
using starfact::test::solve_residual;
using starfact::test::tile_getrf;

TEMPLATE_TEST_CASE("complex getrf, getrs and gesv: scaled residuals < 60", "[complex][lu][cpu]", std::complex<float>,
                   std::complex<double>) {
    using C = TestType;
    constexpr bool single = std::is_same_v<C, std::complex<float>>;
    const int64_t nb = 32;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    for (int64_t n : {int64_t(1), nb - 5, nb, 3 * nb + 7}) {
        const int64_t nrhs = n == nb ? nb + 3 : n % 2 == 0 ? 1 : 5;  // B of two tile columns once
        INFO("n=" << n << " nb=" << nb << " nrhs=" << nrhs << " seed=" << seed << " prec=" << complex_letter<C>());
        const std::vector<C> A = random_block<C>(n, n, g);
        const Factored<C> f = tile_getrf(A, n, nb, Mapping::CpuOnly);
        REQUIRE(f.info == 0);
        const double factor_residual = getrf_residual(A, f.F, f.ipiv, n);
        INFO("getrf residual=" << factor_residual);
        CHECK(factor_residual < kResidualLimit);
        if (!single) CHECK(f.ipiv == lapack_getrf(A, n).second);  // no near tie in double

        // getrs with the factors of A
        TileMatrix<C> tA(runtime(), n, nb), tB(runtime(), n, nrhs, nb);
        tA.import(A.data(), n);
        Pivots piv(tA);
        REQUIRE(getrf(tA, piv, on(Mapping::CpuOnly)) == 0);
        const std::vector<C> B = random_block<C>(n, nrhs, g);
        tB.import(B.data(), n);
        getrs(tA, piv, tB, on(Mapping::Hybrid));
        std::vector<C> X(B.size());
        tB.export_to(X.data(), n);
        const double getrs_residual = solve_residual(A, X, B, n, nrhs);
        INFO("getrs residual=" << getrs_residual);
        CHECK(getrs_residual < kResidualLimit);

        // gesv
        TileMatrix<C> tS(runtime(), n, nb), tB2(runtime(), n, nrhs, nb);
        tS.import(A.data(), n);
        const std::vector<C> B2 = random_block<C>(n, nrhs, g);
        tB2.import(B2.data(), n);
        Pivots p2(tS);
        REQUIRE(gesv(tS, p2, tB2, on(Mapping::Hybrid)) == 0);
        tB2.export_to(X.data(), n);
        const double gesv_residual = solve_residual(A, X, B2, n, nrhs);
        INFO("gesv residual=" << gesv_residual);
        CHECK(gesv_residual < kResidualLimit);
    }
}

TEMPLATE_TEST_CASE("complex getrf pivots as LAPACKE's getrf on a permuted dominant matrix", "[complex][lu][cpu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    const int64_t nb = 16;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    for (int64_t n : {int64_t(1), nb - 3, nb, 4 * nb + 5}) {
        INFO("n=" << n << " nb=" << nb << " seed=" << seed);
        const std::vector<C> A = permuted_dominant<C>(n, g);
        const Factored<C> f = tile_getrf(A, n, nb, Mapping::Hybrid);
        REQUIRE(f.info == 0);
        const auto [info, ipiv] = lapack_getrf(A, n);
        REQUIRE(info == 0);
        CHECK(f.ipiv == ipiv);
        CHECK(getrf_residual(A, f.F, f.ipiv, n) < kResidualLimit);
        if (n > 1) CHECK(std::any_of(ipiv.begin(), ipiv.end(), [&, i = int64_t(0)](int64_t p) mutable {
                             return p != ++i;  // a row interchange happened
                         }));
    }
}

TEMPLATE_TEST_CASE("complex getrf reports an exactly zero pivot as LAPACK does", "[complex][lu][cpu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    const int64_t nb = 16;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    for (int64_t n : {int64_t(1), int64_t(11), int64_t(57)}) {
        const int64_t k = std::uniform_int_distribution<int64_t>(0, n - 1)(g);
        INFO("n=" << n << " k=" << k << " seed=" << seed);
        std::vector<C> A = random_block<C>(n, n, g);
        for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i + k * n)] = C(0);  // column k: U(k+1, k+1) = 0
        const Factored<C> f = tile_getrf(A, n, nb, Mapping::CpuOnly);
        CHECK(f.info == k + 1);
        CHECK(lapack_getrf(A, n).first == k + 1);
        CHECK(getrf_residual(A, f.F, f.ipiv, n) < kResidualLimit);  // completed past the zero pivot

        const std::vector<C> B = random_block<C>(n, 2, g);
        TileMatrix<C> tS(runtime(), n, nb), tB(runtime(), n, 2, nb);
        tS.import(A.data(), n);
        tB.import(B.data(), n);
        Pivots piv(tS);
        CHECK(gesv(tS, piv, tB, on(Mapping::CpuOnly)) == k + 1);
        std::vector<C> X(B.size());
        tB.export_to(X.data(), n);
        CHECK(X == B);  // untouched
    }
}

TEST_CASE("complex getrf, getrs and gesv name their bad arguments", "[complex][lu][cpu][errors]") {
    using C = std::complex<double>;
    const auto argument_of = [](auto&& call) -> std::string {
        try {
            call();
        } catch (const InvalidArgument& e) {
            return e.argument();
        }
        return "(accepted)";
    };
    TileMatrix<C> rect(runtime(), 40, 30, 16), A(runtime(), 40, 16), B(runtime(), 40, 2, 16),
        short_B(runtime(), 39, 2, 16), other(runtime(), 41, 16);
    Pivots rect_piv(runtime(), 40, 16), piv(A), other_piv(other);
    CHECK(argument_of([&] { getrf(rect, rect_piv); }) == "A");
    CHECK(argument_of([&] { getrf(A, other_piv); }) == "piv");
    CHECK(argument_of([&] { getrf(A, piv, on(Mapping::GpuOnly)); }) == "mapping");
    CHECK(argument_of([&] { getrs(A, piv, short_B); }) == "B");
    CHECK(argument_of([&] { getrs(A, other_piv, B); }) == "piv");
    CHECK(argument_of([&] { getrs(A, piv, B, on(Mapping::GpuOnly)); }) == "mapping");
    CHECK(argument_of([&] { gesv(A, piv, short_B); }) == "B");
    CHECK(argument_of([&] { gesv(rect, rect_piv, B); }) == "A");
    CHECK(argument_of([&] { gesv(A, piv, B, on(Mapping::GpuOnly)); }) == "mapping");
}

TEMPLATE_TEST_CASE("complex async getrf, getrs and gesv share one sequence, each with its own info",
                   "[complex][lu][cpu][async]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const int64_t n = 70, nb = 32, nrhs = 2, k = 33;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed << " prec=" << complex_letter<C>());
    std::mt19937_64 g(seed);
    const std::vector<C> A = random_block<C>(n, n, g);
    std::vector<C> singular = random_block<C>(n, n, g);
    for (int64_t i = 0; i < n; ++i) singular[static_cast<size_t>(i + k * n)] = C(0);  // U(k+1, k+1) = 0
    const std::vector<C> B = random_block<C>(n, nrhs, g), B2 = random_block<C>(n, nrhs, g);
    TileMatrix<C> tA(runtime(), n, nb), tZ(runtime(), n, nb), tS(runtime(), n, nb), tB(runtime(), n, nrhs, nb),
        tB2(runtime(), n, nrhs, nb);
    tA.import(A.data(), n);
    tZ.import(singular.data(), n);
    tS.import(A.data(), n);
    tB.import(B.data(), n);
    tB2.import(B2.data(), n);
    Pivots pA(tA), pZ(tZ), pS(tS);
    Sequence seq(runtime());
    const int good = async::getrf(tA, pA, seq, on(Mapping::CpuOnly));
    async::getrs(tA, pA, tB, seq, on(Mapping::CpuOnly));  // follows the factorization without a wait
    const int failing = async::getrf(tZ, pZ, seq, on(Mapping::CpuOnly));
    const int solved = async::gesv(tS, pS, tB2, seq, on(Mapping::Hybrid));
    CHECK(seq.wait() == k + 1);  // the first nonzero info
    CHECK(seq.info(good) == 0);
    CHECK(seq.info(failing) == k + 1);
    CHECK(seq.info(solved) == 0);
    std::vector<C> X(B.size());
    tB.export_to(X.data(), n);
    CHECK(solve_residual(A, X, B, n, nrhs) < kResidualLimit);
    tB2.export_to(X.data(), n);
    CHECK(solve_residual(A, X, B2, n, nrhs) < kResidualLimit);
    std::vector<C> F(A.size());
    tA.export_to(F.data(), n);
    CHECK(getrf_residual(A, F, pA.ipiv(), n) < kResidualLimit);
}

TEMPLATE_TEST_CASE("complex factorizations and solves from several threads at once", "[complex][cpu][threads]",
                   std::complex<float>, std::complex<double>) {
    // Each of four threads: the Cholesky (blocking potrf then potrs, or async::posv) of a Hermitian positive definite
    // matrix, or the LU (blocking getrf then getrs, or async::gesv) of a general one, every fourth Cholesky on a
    // matrix whose leading minor of order k + 1 fails and every fourth LU on one with a zero column k (info k + 1).
    // Catch2's assertions are not thread-safe: the threads collect what went wrong.
    using C = TestType;
    constexpr int kThreads = 4;
    const int64_t nb = 16, rounds = 12, nrhs = 2;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed << " prec=" << complex_letter<C>());
    Options o;
    o.mapping = Mapping::CpuOnly;
    std::vector<std::vector<std::string>> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            std::vector<std::string>& mine = failures[static_cast<size_t>(t)];
            try {
                std::mt19937_64 g(seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(t + 1));
                Sequence seq(runtime());
                for (int64_t r = 0; r < rounds; ++r) {
                    const int64_t n = std::uniform_int_distribution<int64_t>(1, 60)(g);
                    const int64_t k = std::uniform_int_distribution<int64_t>(0, n - 1)(g);
                    const bool cholesky = r % 2 == 0, async = r % 4 >= 2, failing = r % 8 >= 6;
                    std::vector<C> A = cholesky ? hpd_matrix<C>(n, g) : random_block<C>(n, n, g);
                    if (failing && cholesky) A[static_cast<size_t>(k + k * n)] = C(-1, 0);
                    if (failing && !cholesky)
                        for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i + k * n)] = C(0);
                    const std::vector<C> B = random_block<C>(n, nrhs, g);
                    TileMatrix<C> a(runtime(), n, nb), b(runtime(), n, nrhs, nb);
                    a.import(A.data(), n);
                    b.import(B.data(), n);
                    Pivots piv(a);
                    int info = 0;
                    if (cholesky && async) {
                        const int op = async::posv(a, b, seq, o);
                        seq.wait();
                        info = seq.info(op);
                    } else if (cholesky) {
                        info = potrf(a, o);
                        if (info == 0) potrs(a, b, o);
                    } else if (async) {
                        const int op = async::gesv(a, piv, b, seq, o);
                        seq.wait();
                        info = seq.info(op);
                    } else {
                        info = getrf(a, piv, o);
                        if (info == 0) getrs(a, piv, b, o);
                    }
                    const std::string what = "thread " + std::to_string(t) + " round " + std::to_string(r) + " (" +
                                             (cholesky ? "cholesky" : "lu") + (async ? " async" : "") + ", n " +
                                             std::to_string(n) + ")";
                    const int expected = failing ? static_cast<int>(k + 1) : 0;
                    if (info != expected) {
                        mine.push_back(what + ": info " + std::to_string(info) + ", expected " +
                                       std::to_string(expected));
                        continue;
                    }
                    if (failing) continue;
                    std::vector<C> X(B.size());
                    b.export_to(X.data(), n);
                    const double res = solve_residual(A, X, B, n, nrhs);
                    if (!(res < kResidualLimit)) mine.push_back(what + ": solve residual " + std::to_string(res));
                }
            } catch (const std::exception& e) {
                mine.push_back("thread " + std::to_string(t) + " threw: " + e.what());
            }
        });
    for (std::thread& th : threads) th.join();
    for (const auto& f : failures)
        for (const std::string& line : f) UNSCOPED_INFO(line);
    for (const auto& f : failures) CHECK(f.empty());
    CHECK(settled_pending_tasks(runtime()) == 0);
}

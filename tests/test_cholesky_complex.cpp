// The complex tile Cholesky on CPU workers [complex][cpu]: potrf, potrs and posv on fresh random Hermitian positive
// definite matrices with complex off-diagonals and a real diagonal, checked by the scaled residuals
// ||A - L L^H||_F / (||A||_F n eps) and ||A X - B||_F / (||A||_F ||X||_F n eps) < 60, computed here element by
// element; orders 1, below the tile size, a multiple of it and with a partial last tile. A matrix whose leading
// minor of order k + 1 is not positive definite (a negative or a NaN diagonal entry) makes potrf report info = k + 1,
// as LAPACK does, and posv leave B.
#include <catch2/catch.hpp>

#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "starfact/cholesky_complex.hpp"
#include "tests/complex_matrices.hpp"
#include "tests/hermitian_matrices.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using starfact::test::complex_letter;
using starfact::test::hermitian_factor_residual;
using starfact::test::hpd_matrix;
using starfact::test::random_block;
using starfact::test::solve_residual;


TEMPLATE_TEST_CASE("complex potrf and posv: scaled residuals < 60", "[complex][cpu]", std::complex<float>,
                   std::complex<double>) {
    using C = TestType;
    const int64_t nb = 32;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    for (int64_t n : {int64_t(1), nb - 5, nb, 3 * nb + 7, int64_t(150)}) {
        const int64_t nrhs = n % 2 == 0 ? 1 : 5;
        INFO("n=" << n << " nb=" << nb << " nrhs=" << nrhs << " seed=" << seed << " prec=" << complex_letter<C>());
        const std::vector<C> A = hpd_matrix<C>(n, g);
        TileMatrix<C> tA(runtime(), n, nb);
        tA.import(A.data(), n);
        REQUIRE(potrf(tA, on(Mapping::CpuOnly)) == 0);
        std::vector<C> F(A.size());
        tA.export_to(F.data(), n);
        const double factor_residual = hermitian_factor_residual(A, F, n);
        INFO("potrf residual=" << factor_residual);
        CHECK(factor_residual < kResidualLimit);

        const std::vector<C> B = random_block<C>(n, nrhs, g);
        TileMatrix<C> tS(runtime(), n, nb), tB(runtime(), n, nrhs, nb);
        tS.import(A.data(), n);
        tB.import(B.data(), n);
        REQUIRE(posv(tS, tB, on(Mapping::Hybrid)) == 0);
        std::vector<C> X(B.size());
        tB.export_to(X.data(), n);
        const double residual = solve_residual(A, X, B, n, nrhs);
        INFO("posv residual=" << residual);
        CHECK(residual < kResidualLimit);

        // potrs on the factor of the first call: a second solve with the same L.
        TileMatrix<C> tB2(runtime(), n, nrhs, nb);
        const std::vector<C> B2 = random_block<C>(n, nrhs, g);
        tB2.import(B2.data(), n);
        potrs(tA, tB2, on(Mapping::CpuOnly));
        tB2.export_to(X.data(), n);
        CHECK(solve_residual(A, X, B2, n, nrhs) < kResidualLimit);
    }
}

TEMPLATE_TEST_CASE("complex potrf reports the first leading minor that is not positive definite", "[complex][cpu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    using R = typename C::value_type;
    const int64_t nb = 16;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    for (bool nan : {false, true})
        for (int64_t n : {int64_t(1), int64_t(11), int64_t(57)}) {
            const int64_t k = std::uniform_int_distribution<int64_t>(0, n - 1)(g);
            INFO("n=" << n << " k=" << k << " nan=" << nan << " seed=" << seed);
            std::vector<C> A = hpd_matrix<C>(n, g);
            // The leading minor of order k is a principal block of A, still definite; the pivot of order k + 1,
            // a_kk - a^H A_k^-1 a <= a_kk = -1, is not (nor is a NaN, which passes a test "pivot <= 0").
            A[static_cast<size_t>(k + k * n)] = nan ? C(std::numeric_limits<R>::quiet_NaN(), 0) : C(-1, 0);
            TileMatrix<C> tA(runtime(), n, nb);
            tA.import(A.data(), n);
            CHECK(potrf(tA, on(Mapping::CpuOnly)) == k + 1);

            const std::vector<C> B = random_block<C>(n, 2, g);
            TileMatrix<C> tS(runtime(), n, nb), tB(runtime(), n, 2, nb);
            tS.import(A.data(), n);
            tB.import(B.data(), n);
            CHECK(posv(tS, tB, on(Mapping::CpuOnly)) == k + 1);
            std::vector<C> X(B.size());
            tB.export_to(X.data(), n);
            CHECK(X == B);  // untouched
        }
}

TEST_CASE("complex potrf names its bad arguments", "[complex][cpu][errors]") {
    TileMatrix<std::complex<double>> rect(runtime(), 40, 30, 16);
    try {
        potrf(rect);
        FAIL("a non-square A was accepted");
    } catch (const InvalidArgument& e) {
        CHECK(e.argument() == "A");
    }
    TileMatrix<std::complex<double>> A(runtime(), 40, 16), B(runtime(), 39, 2, 16);
    try {
        potrs(A, B);
        FAIL("B with the wrong number of rows was accepted");
    } catch (const InvalidArgument& e) {
        CHECK(e.argument() == "B");
    }
    // test_cpu's Runtime has no CUDA worker: a gpu-only mapping cannot run there.
    REQUIRE(runtime().cuda_workers() == 0);
    try {
        potrf(A, on(Mapping::GpuOnly));
        FAIL("a gpu-only mapping was accepted without a CUDA worker");
    } catch (const InvalidArgument& e) {
        CHECK(e.argument() == "mapping");
    }
}

TEMPLATE_TEST_CASE("complex async potrf, potrs and posv share one sequence, each with its own info",
                   "[complex][cpu][async]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const int64_t n = 75, nb = 32, nrhs = 3;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed << " prec=" << complex_letter<C>());
    std::mt19937_64 g(seed);
    const std::vector<C> A = hpd_matrix<C>(n, g);
    std::vector<C> bad = hpd_matrix<C>(n, g);
    bad[static_cast<size_t>(40 + 40 * n)] = C(-1, 0);  // the leading minor of order 41 is not definite
    const std::vector<C> B = random_block<C>(n, nrhs, g), B2 = random_block<C>(n, nrhs, g);
    TileMatrix<C> tA(runtime(), n, nb), tBad(runtime(), n, nb), tS(runtime(), n, nb), tB(runtime(), n, nrhs, nb),
        tB2(runtime(), n, nrhs, nb);
    tA.import(A.data(), n);
    tBad.import(bad.data(), n);
    tS.import(A.data(), n);
    tB.import(B.data(), n);
    tB2.import(B2.data(), n);
    Sequence seq(runtime());
    const int good = async::potrf(tA, seq, on(Mapping::CpuOnly));
    async::potrs(tA, tB, seq, on(Mapping::CpuOnly));  // follows the factorization without a wait
    const int failing = async::potrf(tBad, seq, on(Mapping::CpuOnly));
    const int solved = async::posv(tS, tB2, seq, on(Mapping::Hybrid));
    CHECK(seq.wait() == 41);  // the first nonzero info
    CHECK(seq.info(good) == 0);
    CHECK(seq.info(failing) == 41);
    CHECK(seq.info(solved) == 0);
    std::vector<C> X(B.size());
    tB.export_to(X.data(), n);
    CHECK(solve_residual(A, X, B, n, nrhs) < kResidualLimit);
    tB2.export_to(X.data(), n);
    CHECK(solve_residual(A, X, B2, n, nrhs) < kResidualLimit);
    std::vector<C> F(A.size());
    tA.export_to(F.data(), n);
    CHECK(hermitian_factor_residual(A, F, n) < kResidualLimit);
}

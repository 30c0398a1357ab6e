// The complex tile Cholesky on CPU workers [complex][cpu]: potrf, potrs and posv on fresh random Hermitian positive
// definite matrices with complex off-diagonals and a real diagonal, checked by the scaled residuals
// ||A - L L^H||_F / (||A||_F n eps) and ||A X - B||_F / (||A||_F ||X||_F n eps) < 60, computed here element by
// element; orders 1, below the tile size, a multiple of it and with a partial last tile. A matrix whose leading
// minor of order k + 1 is not positive definite makes potrf report info = k + 1, as LAPACK does, and posv leave B.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "starfact/cholesky_complex.hpp"
#include "tests/complex_matrices.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using starfact::test::draw;
using starfact::test::eps;
using starfact::test::frobenius;
using starfact::test::random_block;
using starfact::test::solve_residual;

namespace {

/// n x n Hermitian positive definite: random complex entries below the diagonal (real and imaginary parts uniform in
/// [-1, 1)), their conjugates above, and a real diagonal of 3 sqrt(n) + 1 + a uniform draw in [0, 1). The
/// off-diagonal part's norm is near 2 sqrt(2 n / 3), below 3 sqrt(n): the shift keeps A definite without making
/// it diagonally dominant.
template <typename C>
std::vector<C> hpd_matrix(int64_t n, std::mt19937_64& g) {
    using R = typename C::value_type;
    std::vector<C> A(static_cast<size_t>(n * n), C(0));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = j + 1; i < n; ++i) {
            A[static_cast<size_t>(i + j * n)] = draw<R>(g);
            A[static_cast<size_t>(j + i * n)] = std::conj(A[static_cast<size_t>(i + j * n)]);
        }
        A[static_cast<size_t>(j + j * n)] = C(static_cast<R>(3.0 * std::sqrt(static_cast<double>(n)) + 1.0 + u(g)), 0);
    }
    return A;
}

/// ||A - L L^H||_F / (||A||_F n eps), L the lower triangle of F, both n x n (A Hermitian: all of it compared).
template <typename C>
double potrf_residual(const std::vector<C>& A, const std::vector<C>& F, int64_t n) {
    double s = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            std::complex<double> llh = 0;
            for (int64_t k = 0; k <= std::min(i, j); ++k)
                llh += std::complex<double>(F[static_cast<size_t>(i + k * n)]) *
                       std::conj(std::complex<double>(F[static_cast<size_t>(j + k * n)]));
            s += std::norm(std::complex<double>(A[static_cast<size_t>(i + j * n)]) - llh);
        }
    return std::sqrt(s) / (frobenius(A) * static_cast<double>(std::max<int64_t>(n, 1)) * eps<C>());
}

}  // namespace

TEMPLATE_TEST_CASE("complex potrf and posv: scaled residuals < 60", "[complex][cpu]", std::complex<float>,
                   std::complex<double>) {
    using C = TestType;
    const int64_t nb = 32;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    for (int64_t n : {int64_t(1), nb - 5, nb, 3 * nb + 7, int64_t(150)}) {
        const int64_t nrhs = n % 2 == 0 ? 1 : 5;
        INFO("n=" << n << " nb=" << nb << " nrhs=" << nrhs << " seed=" << seed << " prec="
                  << (std::is_same<C, std::complex<float>>::value ? "c" : "z"));
        const std::vector<C> A = hpd_matrix<C>(n, g);
        TileMatrix<C> tA(runtime(), n, nb);
        tA.import(A.data(), n);
        REQUIRE(potrf(tA, on(Mapping::CpuOnly)) == 0);
        std::vector<C> F(A.size());
        tA.export_to(F.data(), n);
        const double factor_residual = potrf_residual(A, F, n);
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
    const int64_t nb = 16;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    for (int64_t n : {int64_t(1), int64_t(11), int64_t(57)}) {
        const int64_t k = std::uniform_int_distribution<int64_t>(0, n - 1)(g);
        INFO("n=" << n << " k=" << k << " seed=" << seed);
        std::vector<C> A = hpd_matrix<C>(n, g);
        // The leading minor of order k is a principal block of A, still definite; the pivot of order k + 1,
        // a_kk - a^H A_k^-1 a <= a_kk = -1, is not.
        A[static_cast<size_t>(k + k * n)] = C(-1, 0);
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
    try {
        potrf(A, on(Mapping::GpuOnly));
        FAIL("a gpu-only mapping was accepted");
    } catch (const InvalidArgument& e) {
        CHECK(e.argument() == "opts.mapping");
    }
}

// The complex Hermitian inverse on CPU workers [potri][complex][cpu]: potri (potrf, trtri and lauum as one graph) in c
// and z on fresh random Hermitian positive definite matrices with complex off-diagonals and a real diagonal, through
// the LAPACK-array form, the tile forms (with RunStats) and the async:: forms (with and without a plan), checked by
// potri_residual ||A X - I||_1 / (||A||_1 ||X||_1 n eps) < 60; orders 1, below the tile size, a multiple of it and
// with a partial last tile. Only the lower triangle is read (an imaginary part on the diagonal and markers above it
// change nothing) and written. trtri and lauum (L^H L) alone against LAPACKE's c and z routines; a matrix that is not
// positive definite gives potrf's info, as LAPACK's; the residual rejects a wrong inverse.
#include <catch2/catch.hpp>

#include <complex>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "starfact/check.hpp"
#include "starfact/cholesky_complex.hpp"
#include "starfact/inverse.hpp"
#include "starfact/plan.hpp"
#include "tests/complex_matrices.hpp"
#include "tests/hermitian_matrices.hpp"
#include "tests/inverse_support.hpp"
#include "tests/support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::inverse;
using starfact::test::complex_letter;
using starfact::test::hpd_matrix;

namespace {

/// What the strictly upper triangle and the padding rows hold on input: never read, never written.
template <typename C>
C marker() {
    return C(-7.0, 3.0);
}

/// A (n x n, compact) in an array of leading dimension ld: its lower triangle, an imaginary part added to the diagonal
/// (taken as zero), marker() above the diagonal and in the padding rows.
template <typename C>
std::vector<C> lower_input(const std::vector<C>& A, int64_t n, int64_t ld) {
    std::vector<C> given(static_cast<size_t>(ld * std::max<int64_t>(n, 1)), marker<C>());
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j; i < n; ++i)
            given[static_cast<size_t>(i + j * ld)] = A[static_cast<size_t>(i + j * n)] + (i == j ? C(0, 0.25) : C(0));
    return given;
}

/// Whether X holds marker() outside the lower triangle of its leading n x n block.
template <typename C>
bool outside_lower_untouched(const std::vector<C>& X, int64_t n, int64_t ld) {
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < ld; ++i)
            if ((i < j || i >= n) && X[static_cast<size_t>(i + j * ld)] != marker<C>()) return false;
    return true;
}

/// potri through the LAPACK-array form on tiles of nb: info 0, the residual, the lower triangle only written.
template <typename C>
void check_array_potri(int64_t n, int64_t nb, Mapping mapping, std::mt19937_64& g) {
    const int64_t ld = n + 2;
    INFO("n=" << n << " nb=" << nb << " mapping=" << to_string(mapping) << " prec=" << complex_letter<C>());
    const std::vector<C> A = hpd_matrix<C>(n, g);
    std::vector<C> X = lower_input(A, n, ld);
    REQUIRE(potri(runtime(), n, X.data(), ld, on(mapping), Tiling{nb}) == 0);
    const double res = potri_residual<C>(n, A.data(), n, X.data(), ld);
    INFO("residual=" << res);
    CHECK(res < kResidualLimit);
    CHECK(outside_lower_untouched(X, n, ld));
    // the inverse of a Hermitian matrix is Hermitian: a real diagonal
    double imag = 0;
    for (int64_t j = 0; j < n; ++j) imag = std::max(imag, std::abs(double(X[static_cast<size_t>(j + j * ld)].imag())));
    CHECK(imag == 0.0);
}

/// The argument the InvalidArgument thrown by f names ("" when f throws none).
template <typename F>
std::string refusal(F&& f) {
    try {
        f();
    } catch (const InvalidArgument& e) {
        return e.argument();
    }
    return "";
}

/// The Cholesky factor (LAPACKE) of a fresh Hermitian positive definite matrix, n x n.
template <typename C>
std::vector<C> lapacke_factor(int64_t n, std::mt19937_64& g) {
    std::vector<C> L = hpd_matrix<C>(n, g);
    REQUIRE(lapacke_potrf<C>(n, L.data(), n) == 0);
    return L;
}

}  // namespace

TEMPLATE_TEST_CASE("complex potri: ||A inv(A) - I|| / (||A|| ||inv(A)|| n eps) < 60", "[potri][complex][cpu]",
                   std::complex<float>, std::complex<double>) {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::mt19937_64 g(seed);
    for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
        check_array_potri<TestType>(1, 16, m, g);
        check_array_potri<TestType>(20, 32, m, g);          // n < nb: one tile
        check_array_potri<TestType>(32, 32, m, g);          // n = nb
        check_array_potri<TestType>(3 * 32 + 7, 32, m, g);  // a partial last tile
        check_array_potri<TestType>(150, 48, m, g);
    }
    check_array_potri<TestType>(37, 0, Mapping::CpuOnly, g);  // the plan's tiles
}

TEMPLATE_TEST_CASE("complex potri on a TileMatrix: n = 0, RunStats, the options it refuses", "[potri][complex][cpu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    TileMatrix<C> empty(runtime(), 0, 32);
    CHECK(potri(empty) == 0);
    const int64_t n = 150, nb = 40;  // mt = 4
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed << " prec=" << complex_letter<C>());
    std::mt19937_64 g(seed);
    const std::vector<C> A = hpd_matrix<C>(n, g);
    TileMatrix<C> tiles(runtime(), n, nb);
    tiles.import(A.data(), n);
    RunStats stats;
    REQUIRE(potri(tiles, on(Mapping::CpuOnly), stats) == 0);
    CHECK(stats.tasks == 60);  // potrf, trtri and lauum: mt(mt+1)(mt+2)/6 = 20 each (as the real potri's)
    std::vector<C> X(A.size());
    tiles.export_to(X.data(), n);
    CHECK(potri_residual<C>(n, A.data(), n, X.data(), n) < kResidualLimit);
    // without RunStats, hybrid
    tiles.import(A.data(), n);
    REQUIRE(potri(tiles, on(Mapping::Hybrid)) == 0);
    tiles.export_to(X.data(), n);
    CHECK(potri_residual<C>(n, A.data(), n, X.data(), n) < kResidualLimit);
    // the complex Cholesky's restrictions, named
    Options left = on(Mapping::CpuOnly);
    left.variant = Variant::parse("left");
    CHECK(refusal([&] { potri(tiles, left); }) == "variant");
    Options inverse_panel = on(Mapping::CpuOnly);
    inverse_panel.panel = PanelSolve::Inverse;
    CHECK(refusal([&] { potri(tiles, inverse_panel); }) == "panel");
    TileMatrix<C> rect(runtime(), 64, 32, 32);
    CHECK_THROWS_WITH(potri(rect), Catch::Contains("'A'"));
    std::vector<C> small(16);
    CHECK_THROWS_WITH(potri(runtime(), 4, small.data(), 3), Catch::Contains("'lda'"));
}

TEMPLATE_TEST_CASE("complex trtri and lauum on tiles agree with LAPACKE", "[potri][complex][cpu]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    const double tol = 100.0 * static_cast<double>(std::numeric_limits<typename C::value_type>::epsilon());
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid})
        for (auto [n, nb] : {std::pair<int64_t, int64_t>{1, 8}, {30, 32}, {32, 32}, {103, 32}, {200, 48}}) {
            INFO("n=" << n << " nb=" << nb << " mapping=" << to_string(m) << " seed=" << seed
                      << " prec=" << complex_letter<C>());
            const std::vector<C> L = lapacke_factor<C>(n, g);
            std::vector<C> ref = L, got = L;
            REQUIRE(lapacke_trtri<C>(n, ref.data(), n) == 0);
            {
                TileMatrix<C> tiles(runtime(), n, nb);
                tiles.import(got.data(), n);
                REQUIRE(trtri(tiles, on(m)) == 0);
                tiles.export_to(got.data(), n);
            }
            CHECK(lower_rel_diff(n, got, ref, n) < tol * static_cast<double>(n));
            ref = L;
            got = L;
            REQUIRE(lapacke_lauum<C>(n, ref.data(), n) == 0);  // L^H L
            {
                TileMatrix<C> tiles(runtime(), n, nb);
                tiles.import(got.data(), n);
                lauum(tiles, on(m));
                tiles.export_to(got.data(), n);
            }
            CHECK(lower_rel_diff(n, got, ref, n) < tol * static_cast<double>(n));
        }
}

TEMPLATE_TEST_CASE("complex potri of a matrix that is not positive definite returns potrf's info",
                   "[potri][complex][cpu]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const int64_t n = 150, nb = 32;
    const uint64_t seed = fresh_seed();
    std::mt19937_64 g(seed);
    for (int64_t bad : {0, 31, 32, 100, 149}) {
        INFO("bad=" << bad << " seed=" << seed << " prec=" << complex_letter<C>());
        std::vector<C> A = hpd_matrix<C>(n, g);
        A[static_cast<size_t>(bad + bad * n)] = C(-1);
        std::vector<C> L = A;
        const int expected = lapacke_potrf<C>(n, L.data(), n);
        REQUIRE(expected == bad + 1);
        for (Mapping m : {Mapping::CpuOnly, Mapping::Hybrid}) {
            std::vector<C> X = A;
            CHECK(potri(runtime(), n, X.data(), n, on(m), Tiling{nb}) == expected);
        }
        // the submit form: the sequence's info and the factorization's operation's
        TileMatrix<C> a(runtime(), n, nb);
        a.import(A.data(), n);
        Sequence seq(runtime());
        const int op = async::potri(a, seq, on(Mapping::CpuOnly));
        CHECK(seq.wait() == expected);
        CHECK(seq.info(op) == expected);
    }
    // a singular factor: trtri's info
    std::vector<C> L = lapacke_factor<C>(70, g);
    L[40 + 40 * 70] = C(0);
    TileMatrix<C> tiles(runtime(), 70, 16);
    tiles.import(L.data(), 70);
    CHECK(trtri(tiles, on(Mapping::CpuOnly)) == 41);
    // the runtime is still usable afterwards
    check_array_potri<C>(50, 16, Mapping::CpuOnly, g);
}

TEMPLATE_TEST_CASE("complex potri submitted: with and without a plan, chained with potrf and potrs",
                   "[potri][complex][async][cpu]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    const int64_t n = 137, nb = 32, nrhs = 2;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed << " prec=" << complex_letter<C>());
    std::mt19937_64 g(seed);
    const std::vector<C> A = hpd_matrix<C>(n, g);
    const std::vector<C> B = starfact::test::random_block<C>(n, nrhs, g);
    const Options o = on(Mapping::CpuOnly);
    TileMatrix<C> a1(runtime(), n, nb), a2(runtime(), n, nb), a3(runtime(), n, nb), b(runtime(), n, nrhs, nb);
    a1.import(A.data(), n);
    a2.import(A.data(), n);
    a3.import(A.data(), n);
    b.import(B.data(), n);
    Request r;
    r.op = Operation::Potri;
    r.m = r.n = n;
    r.options = o;
    const Plan planned = plan(a2, r);
    CHECK(planned.nb == nb);
    CHECK(planned.element == (std::is_same_v<C, std::complex<float>> ? Precision::C64 : Precision::C128));
    Sequence seq(runtime());
    const int op1 = async::potri(a1, seq, o);
    const int op2 = async::potri(a2, seq, o, planned);
    // the factor solves, then trtri and lauum overwrite it with the inverse: one graph, no wait
    const int op3 = async::potrf(a3, seq, o);
    async::potrs(a3, b, seq, o);
    const int op4 = async::trtri(a3, seq, o);
    async::lauum(a3, seq, o);
    REQUIRE(seq.wait() == 0);
    for (int op : {op1, op1 + 1, op2, op2 + 1, op3, op4}) CHECK(seq.info(op) == 0);
    std::vector<C> X(A.size()), Y(B.size());
    for (TileMatrix<C>* t : {&a1, &a2, &a3}) {
        t->export_to(X.data(), n);
        const double res = potri_residual<C>(n, A.data(), n, X.data(), n);
        INFO("residual=" << res);
        CHECK(res < kResidualLimit);
    }
    b.export_to(Y.data(), n);
    CHECK(starfact::test::solve_residual(A, Y, B, n, nrhs) < kResidualLimit);
    // a plan made for another operation is refused, naming it
    r.op = Operation::Potrf;
    const Plan potrf_plan = plan(a2, r);
    CHECK(refusal([&] { async::potri(a2, seq, o, potrf_plan); }) == "plan");
    seq.wait();
}

TEMPLATE_TEST_CASE("the complex inverse residual fails on a wrong inverse", "[potri][complex][cpu][check]",
                   std::complex<float>, std::complex<double>) {
    using C = TestType;
    const int64_t n = 120;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed << " prec=" << complex_letter<C>());
    std::mt19937_64 g(seed);
    const std::vector<C> A = hpd_matrix<C>(n, g);
    std::vector<C> X = A;
    REQUIRE(potri(runtime(), n, X.data(), n, on(Mapping::CpuOnly), Tiling{32}) == 0);
    CHECK(potri_residual<C>(n, A.data(), n, X.data(), n) < kResidualLimit);
    std::vector<C> wrong = X;  // one entry off by a tenth of the diagonal's, in its imaginary part
    wrong[90 + 20 * n] += C(0, 0.1) * std::abs(X[20 + 20 * n]);
    CHECK(potri_residual<C>(n, A.data(), n, wrong.data(), n) > kResidualLimit);
    wrong = X;  // conj(X): the inverse of conj(A)
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j + 1; i < n; ++i) wrong[i + j * n] = std::conj(X[i + j * n]);
    CHECK(potri_residual<C>(n, A.data(), n, wrong.data(), n) > kResidualLimit);
}

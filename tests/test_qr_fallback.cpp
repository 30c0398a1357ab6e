// CPU: the Householder fall-back of the Cholesky QR (QrTree::fallback, "cholqr+fallback"). With it, what the
// Cholesky QR refuses (a zero column, two equal columns with an exactly singular A^T A, cond beyond its range, A^T A
// overflowing) is factored again by a Householder tree from the original A: the blocking tile and array forms of
// geqrf give a correct factorization (||A - Q R|| / (||A|| n eps) and ||I - Q^T Q|| / (m eps) below 60) and
// QRFactors::fallback() names the breakdown that caused it; gels solves (the normal equations' residual below 60).
// Without it the breakdown is reported as before. Both precisions, m not a multiple of nb, n = 1; the submit forms
// refuse the option naming 'tree'.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tests/qr_support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::qr;

namespace {

struct Shape {
    int64_t m, n, nb;
};

/// The inputs the Cholesky QR refuses, for an m x n shape (n >= 1).
enum class Input { ZeroColumn, EqualColumnsExact, Overflow };

template <typename T>
std::vector<T> make_input(Input input, const Shape& s, uint64_t seed) {
    std::vector<T> A = random_rect<T>(s.m, s.n, s.m, seed);
    auto column = [&](int64_t j) { return A.begin() + j * s.m; };
    std::mt19937_64 rng(seed);
    switch (input) {
        case Input::ZeroColumn: {
            const int64_t j = static_cast<int64_t>(rng() % static_cast<uint64_t>(s.n));
            std::fill(column(j), column(j) + s.m, T(0));
            break;
        }
        case Input::EqualColumnsExact: {  // small integers: A^T A is computed exactly, and is exactly singular
            for (T& x : A) x = std::round(x * 6);
            if (s.n > 1) {
                const int64_t j = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(s.n - 1));
                std::copy(column(0), column(0) + s.m, column(j));
            } else {
                std::fill(A.begin(), A.end(), T(0));  // n = 1: the one column is zero (A^T A = 0)
            }
            break;
        }
        case Input::Overflow: {
            const T big = sizeof(T) == 4 ? T(1e30) : T(1e300);
            for (T& x : A) x *= big;
            break;
        }
    }
    return A;
}

const char* name(Input input) {
    switch (input) {
        case Input::ZeroColumn: return "zero column";
        case Input::EqualColumnsExact: return "two equal integer columns";
        case Input::Overflow: return "entries too large to square";
    }
    return "";
}

/// Checks the factorization held in F (geqrf's output for the original A) and the factors f: orgqr's Q orthonormal,
/// ||A - Q R||_1 / (||A||_1 n eps) < 60.
template <typename T>
void expect_factored(const std::vector<T>& A, const std::vector<T>& F, QRFactors<T>& f, const Shape& s) {
    std::vector<T> Q(static_cast<size_t>(s.m * s.n));
    orgqr(runtime(), s.m, s.n, F.data(), s.m, f, Q.data(), s.m, on(Mapping::CpuOnly));
    const double orth = orthogonality_residual(s.m, s.n, Q.data(), s.m);
    // qr_residual divides by m eps: times m / n for the scaled residual in n eps.
    const double resid = qr_residual(s.m, s.n, A.data(), s.m, Q.data(), s.m, F.data(), s.m) * double(s.m) / double(s.n);
    INFO("orthogonality=" << orth << " residual=" << resid);
    CHECK(orth < kResidualLimit);
    CHECK(resid < kResidualLimit);
}

/// Whether a QR breakdown is one the fall-back answers for `input`.
bool expected_reason(Input input, QrBreakdown why) {
    if (input == Input::Overflow) return why == QrBreakdown::Overflow;
    return why == QrBreakdown::RankDeficient || why == QrBreakdown::Underflow;  // n = 1 zero: A^T A underflows
}

}  // namespace

TEMPLATE_TEST_CASE("qr fallback: what the Cholesky QR refuses is factored by a Householder tree, and said so",
                   "[qr][fallback][cholqr][cpu]", float, double) {
    using T = TestType;
    const Options cpu = on(Mapping::CpuOnly);
    for (const Shape& s : {Shape{7, 1, 4}, Shape{130, 1, 32}, Shape{120, 20, 32}, Shape{301, 24, 32},
                           Shape{1000, 50, 96}}) {
        for (const Input input : {Input::ZeroColumn, Input::EqualColumnsExact, Input::Overflow}) {
            const uint64_t seed = fresh_seed();
            INFO("m=" << s.m << " n=" << s.n << " nb=" << s.nb << " input: " << name(input) << " seed=" << seed);
            const std::vector<T> A = make_input<T>(input, s, seed);
            {  // the array form, with the fall-back
                std::vector<T> F = A;
                QRFactors<T> f(runtime(), s.m, s.n, s.nb, QrTree::parse("cholqr+fallback"));
                REQUIRE_NOTHROW(geqrf(runtime(), s.m, s.n, F.data(), s.m, f, cpu));
                CHECK(f.fell_back());
                CHECK(expected_reason(input, f.fallback()));
                CHECK(f.breakdown() == QrBreakdown::None);
                CHECK_FALSE(f.cholqr());
                CHECK(f.factored());
                expect_factored(A, F, f, s);
            }
            {  // the tile form, with the fall-back
                TileMatrix<T> a(runtime(), s.m, s.n, s.nb);
                a.import(A.data(), s.m);
                QRFactors<T> f(a, QrTree::parse("cholqr+fallback"));
                REQUIRE_NOTHROW(geqrf(a, f, cpu));
                CHECK(f.fell_back());
                std::vector<T> F(A.size());
                a.export_to(F.data(), s.m);
                expect_factored(A, F, f, s);
            }
            {  // without it: the breakdown, as before
                std::vector<T> F = A;
                QRFactors<T> f(runtime(), s.m, s.n, s.nb, QrTree::parse("cholqr"));
                CHECK_THROWS_AS(geqrf(runtime(), s.m, s.n, F.data(), s.m, f, cpu), InvalidArgument);
                CHECK(expected_reason(input, f.breakdown()));
                CHECK_FALSE(f.fell_back());
                CHECK_FALSE(f.factored());
            }
        }
    }
}

TEMPLATE_TEST_CASE("qr fallback: gels solves a matrix beyond the Cholesky QR's range with it, reports without it",
                   "[qr][fallback][cholqr][cpu]", float, double) {
    using T = TestType;
    const Options cpu = on(Mapping::CpuOnly);
    // Beyond the Cholesky QR's rank check (1000 u), within the Householder QR's range (1 / u).
    const double cond = sizeof(T) == 4 ? 1e6 : 1e15;
    for (const Shape& s : {Shape{600, 40, 64}, Shape{1000, 50, 96}}) {
        const int64_t nrhs = 3;
        const uint64_t seed = fresh_seed();
        INFO("m=" << s.m << " n=" << s.n << " nb=" << s.nb << " cond=" << cond << " seed=" << seed);
        const std::vector<double> Ad = conditioned(s.m, s.n, cond, seed);
        const std::vector<T> A(Ad.begin(), Ad.end()), B = random_rect<T>(s.m, nrhs, s.m, seed + 1);
        for (const bool fallback : {true, false}) {
            INFO("fallback=" << fallback);
            TileMatrix<T> a(runtime(), s.m, s.n, s.nb), b(runtime(), s.m, nrhs, s.nb);
            a.import(A.data(), s.m);
            b.import(B.data(), s.m);
            QRFactors<T> f(a, QrTree::parse(fallback ? "cholqr+fallback" : "cholqr"));
            const int info = gels(a, f, b, cpu);
            if (!fallback) {
                CHECK(info > 0);
                CHECK(f.breakdown() == QrBreakdown::RankDeficient);
                CHECK_FALSE(f.fell_back());
                continue;
            }
            REQUIRE(info == 0);
            CHECK(f.fallback() == QrBreakdown::RankDeficient);
            std::vector<T> X(static_cast<size_t>(s.m * nrhs));
            b.export_to(X.data(), s.m);
            const double r = normal_equations_residual(s.m, s.n, nrhs, A.data(), s.m, X.data(), s.m, B.data(), s.m);
            INFO("normal equations residual=" << r);
            CHECK(r < kResidualLimit);
        }
    }
}

TEST_CASE("qr fallback: a matrix the Cholesky QR factors stays its; the factors forget an earlier fall-back",
          "[qr][fallback][cholqr][cpu]") {
    const Shape s{301, 24, 32};
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> good = random_rect<double>(s.m, s.n, s.m, seed);
    const std::vector<double> bad = make_input<double>(Input::ZeroColumn, s, seed);
    QRFactors<double> f(runtime(), s.m, s.n, s.nb, QrTree::parse("cholqr+fallback"));
    std::vector<double> F = bad;
    geqrf(runtime(), s.m, s.n, F.data(), s.m, f, on(Mapping::CpuOnly));
    CHECK(f.fell_back());
    F = good;
    geqrf(runtime(), s.m, s.n, F.data(), s.m, f, on(Mapping::CpuOnly));
    CHECK_FALSE(f.fell_back());
    CHECK(f.cholqr());
    expect_factored(good, F, f, s);
}

TEST_CASE("qr fallback: the text form, and the submit forms refuse it naming tree", "[qr][fallback][cpu]") {
    CHECK(QrTree::parse("cholqr+fallback").fallback);
    CHECK(QrTree::parse("cholqr+fallback").kind == QrTree::Kind::Cholqr);
    CHECK(QrTree::parse("cholqr+fallback").name() == "cholqr+fallback");
    CHECK(QrTree::parse("auto+fallback").kind == QrTree::Kind::Auto);
    CHECK_FALSE(QrTree::parse("cholqr").fallback);
    CHECK_THROWS_AS(QrTree::parse("+fallback"), InvalidArgument);
    CHECK_THROWS_AS(QrTree::parse("cholqr+fall"), InvalidArgument);

    TileMatrix<double> a(runtime(), 100, 10, 32), b(runtime(), 100, 2, 32);
    QRFactors<double> f(a, QrTree::parse("cholqr+fallback"));
    Sequence seq(runtime());
    try {
        async::geqrf(a, f, seq, on(Mapping::CpuOnly));
        FAIL("async::geqrf took the fall-back");
    } catch (const InvalidArgument& e) {
        CHECK(e.argument() == "tree");
    }
    try {
        async::gels(a, f, b, seq, on(Mapping::CpuOnly));
        FAIL("async::gels took the fall-back");
    } catch (const InvalidArgument& e) {
        CHECK(e.argument() == "tree");
    }
    seq.wait();
}

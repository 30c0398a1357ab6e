// CPU: the QR's breakdowns, one path for every tree and form. NaN or Inf in A (every tree, tall and wide): the
// blocking forms throw naming A, the submit forms return the column, gels returns it, QRFactors::breakdown() says
// why and a factorization that broke down serves no ormqr. The Cholesky QR: cond >= 1e15, a zero column, two equal
// columns (also with an exactly singular A^T A) reported as rank deficiency; A scaled near the ends of the range
// reported as the overflow or underflow of A^T A, not as rank deficiency (gels, which scales A first, solves).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/qr_support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::qr;

namespace {

struct Outcome {
    int async = 0, gels = 0, gels_async = 0;  // the info of the submit form, gels and its submit form
    QrBreakdown kind = QrBreakdown::None;
    std::string message, argument;
    bool factored_after_throw = true, ormqr_refused = false;
};

/// Runs the factorization of the m x n A (leading dimension m) through every form with `tree` in tiles of nb.
template <typename T>
Outcome run_forms(const std::vector<T>& A, int64_t m, int64_t n, int64_t nb, const QrTree& tree) {
    Outcome out;
    const Options cpu = on(Mapping::CpuOnly);
    {
        TileMatrix<T> a(runtime(), m, n, nb);
        a.import(A.data(), m);
        QRFactors<T> f(a, tree);
        try {
            geqrf(a, f, cpu);
        } catch (const InvalidArgument& e) {
            out.message = e.what();
            out.argument = e.argument();
            out.kind = f.breakdown();
            out.factored_after_throw = f.factored();
            TileMatrix<T> c(runtime(), m, 2, nb);
            try {
                ormqr(Side::Left, Trans::Transpose, a, f, c, cpu);
            } catch (const InvalidArgument& r) {
                out.ormqr_refused = r.argument() == "T";
            }
        }
    }
    {
        TileMatrix<T> a(runtime(), m, n, nb);
        a.import(A.data(), m);
        QRFactors<T> f(a, tree);
        Sequence seq(runtime());
        async::geqrf(a, f, seq, cpu);
        out.async = seq.wait();
        if (out.async > 0) CHECK(f.breakdown() == out.kind);
    }
    {
        std::vector<T> F = A;
        QRFactors<T> f(runtime(), m, n, nb, tree);
        CHECK_THROWS_AS(geqrf(runtime(), m, n, F.data(), m, f, cpu), InvalidArgument);
    }
    if (m >= n) {
        const int64_t rows = std::max(m, n);
        const std::vector<T> B = random_rect<T>(rows, 2, rows, 99);
        TileMatrix<T> a(runtime(), m, n, nb), b(runtime(), rows, 2, nb);
        a.import(A.data(), m);
        b.import(B.data(), rows);
        QRFactors<T> f(runtime(), rows, std::min(m, n), nb, tree);
        out.gels = gels(a, f, b, cpu);
        CHECK((f.breakdown() != QrBreakdown::None) == (out.gels > 0));
        a.import(A.data(), m);
        b.import(B.data(), rows);
        Sequence seq(runtime());
        const int op = async::gels(a, f, b, seq, cpu);
        seq.wait();
        out.gels_async = seq.info(op);
    }
    return out;
}

/// A with entries uniform in [-0.5, 0.5].
template <typename T>
std::vector<T> uniform(int64_t m, int64_t n, uint64_t seed) {
    return random_rect<T>(m, n, m, seed);
}

template <typename T>
std::vector<T> cast(const std::vector<double>& A) {
    return std::vector<T>(A.begin(), A.end());
}

}  // namespace

TEMPLATE_TEST_CASE("qr breakdown: NaN or Inf in A is reported by every tree and form, naming its column",
                   "[qr][breakdown][cpu]", float, double) {
    using T = TestType;
    struct Case {
        const char* tree;
        int64_t m, n, nb;
    };
    for (const Case& c : {Case{"flat", 130, 20, 8}, Case{"binary", 130, 20, 8}, Case{"domains=2", 130, 20, 8},
                          Case{"panel", 130, 20, 8}, Case{"cholqr", 130, 20, 32}, Case{"flat", 20, 50, 8},
                          Case{"binary", 20, 50, 16}}) {
        for (const T bad : {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity()}) {
            const uint64_t seed = fresh_seed();
            std::mt19937_64 rng(seed);
            const int64_t column = static_cast<int64_t>(rng() % static_cast<uint64_t>(c.n));
            const int64_t row = static_cast<int64_t>(rng() % static_cast<uint64_t>(c.m));
            INFO("tree=" << c.tree << " m=" << c.m << " n=" << c.n << " bad=" << bad << " at (" << row << ", " << column
                         << ") seed=" << seed);
            std::vector<T> A = uniform<T>(c.m, c.n, seed);
            A[static_cast<size_t>(row + column * c.m)] = bad;
            const Outcome o = run_forms(A, c.m, c.n, c.nb, QrTree::parse(c.tree));
            INFO("message: " << o.message);
            CHECK(o.argument == "A");
            CHECK(o.message.find("Inf") != std::string::npos);
            CHECK(o.message.find("rank deficient") == std::string::npos);
            const bool gram_overflow = std::string(c.tree) == "cholqr" && std::isinf(bad);
            CHECK(o.kind == (gram_overflow ? QrBreakdown::Overflow : QrBreakdown::NotFinite));
            CHECK(o.async == column + 1);
            CHECK_FALSE(o.factored_after_throw);
            CHECK(o.ormqr_refused);
            if (c.m >= c.n) {
                CHECK(o.gels == column + 1);
                CHECK(o.gels_async == column + 1);
            }
        }
    }
}

TEST_CASE("qr breakdown: the Cholesky QR reports cond >= 1e15 and zero columns as rank deficiency",
          "[qr][breakdown][cholqr][cpu]") {
    struct Shape {
        int64_t m, n, nb;
    };
    for (const Shape& s : {Shape{600, 40, 64}, Shape{2000, 100, 256}}) {
        // The rule is |R(j, j)| < 1000 u max |R(i, i)| (codelets/cholqr_impl.hpp), about cond > 9e12; R's smallest
        // diagonal entry exceeds the smallest singular value by a draw-dependent factor, so cond = 1e14 (within 10x of
        // the rule) is refused for most draws but not all: from 1e15 on, for every draw.
        for (double cond : {1e15, 1e16, 1e17}) {
            const uint64_t seed = fresh_seed();
            INFO("cond=" << cond << " m=" << s.m << " n=" << s.n << " seed=" << seed);
            const Outcome o = run_forms(conditioned(s.m, s.n, cond, seed), s.m, s.n, s.nb, QrTree::parse("cholqr"));
            INFO("message: " << o.message);
            CHECK(o.kind == QrBreakdown::RankDeficient);
            CHECK(o.message.find("rank deficient") != std::string::npos);
            CHECK(o.async > 0);
            CHECK(o.gels > 0);
            CHECK(o.gels_async > 0);
        }
        for (int64_t column : {int64_t(0), s.n / 2, s.n - 1}) {
            const uint64_t seed = fresh_seed();
            INFO("zero column " << column << " m=" << s.m << " n=" << s.n << " seed=" << seed);
            std::vector<double> A = uniform<double>(s.m, s.n, seed);
            for (int64_t i = 0; i < s.m; ++i) A[static_cast<size_t>(i + column * s.m)] = 0;
            const Outcome o = run_forms(A, s.m, s.n, s.nb, QrTree::parse("cholqr"));
            CHECK(o.kind == QrBreakdown::RankDeficient);
            CHECK(o.async == column + 1);
            CHECK(o.gels == column + 1);
        }
    }
}

TEMPLATE_TEST_CASE("qr breakdown: the Cholesky QR reports two equal columns, also with an exactly singular A^T A",
                   "[qr][breakdown][cholqr][cpu]", float, double) {
    using T = TestType;
    struct Shape {
        int64_t m, n, nb;
    };
    for (const Shape& s : {Shape{120, 20, 32}, Shape{600, 40, 64}, Shape{2000, 100, 256}, Shape{5000, 8, 1024}}) {
        for (int trial = 0; trial < 6; ++trial) {
            const uint64_t seed = fresh_seed();
            std::mt19937_64 rng(seed);
            const int64_t j = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(s.n - 1));
            const int64_t i = static_cast<int64_t>(rng() % static_cast<uint64_t>(j));
            const bool integers = trial % 2 == 1;  // small integers: A^T A is computed exactly, exactly singular
            INFO("m=" << s.m << " n=" << s.n << " column " << j << " := column " << i << (integers ? " (integers)" : "")
                      << " seed=" << seed);
            std::vector<T> A = uniform<T>(s.m, s.n, seed);
            if (integers)
                for (T& x : A) x = std::round(x * 6);
            for (int64_t r = 0; r < s.m; ++r) A[static_cast<size_t>(r + j * s.m)] = A[static_cast<size_t>(r + i * s.m)];
            const Outcome o = run_forms(A, s.m, s.n, s.nb, QrTree::parse("cholqr"));
            INFO("message: " << o.message);
            CHECK(o.kind == QrBreakdown::RankDeficient);
            CHECK(o.argument == "A");
            CHECK(o.async > 0);
            CHECK(o.gels > 0);
            CHECK(o.gels_async > 0);
        }
    }
}

TEMPLATE_TEST_CASE("qr breakdown: the Cholesky QR reports a matrix near the ends of the range as overflow or underflow",
                   "[qr][breakdown][cholqr][cpu]", float, double) {
    using T = TestType;
    const int64_t m = 300, n = 24, nb = 32;
    const double big = sizeof(T) == 4 ? 1e30 : 1e300;
    for (const double scale : {big, 1 / big}) {
        const uint64_t seed = fresh_seed();
        INFO("scale=" << scale << " seed=" << seed);
        std::vector<double> A = conditioned(m, n, 10, seed);
        for (double& x : A) x *= scale;
        const Outcome o = run_forms(cast<T>(A), m, n, nb, QrTree::parse("cholqr"));
        INFO("message: " << o.message);
        CHECK(o.kind == (scale > 1 ? QrBreakdown::Overflow : QrBreakdown::Underflow));
        CHECK(o.message.find(scale > 1 ? "overflow" : "underflow") != std::string::npos);
        CHECK(o.message.find("rank deficient") == std::string::npos);
        CHECK(o.async > 0);
        // gels scales A first, as LAPACK's: it solves.
        CHECK(o.gels == 0);
        CHECK(o.gels_async == 0);
    }
}

TEST_CASE("qr breakdown: the Householder trees factor what the Cholesky QR refuses", "[qr][breakdown][cpu]") {
    const int64_t m = 300, n = 24, nb = 8;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::vector<double> A = uniform<double>(m, n, seed);
    for (int64_t r = 0; r < m; ++r) A[static_cast<size_t>(r + 7 * m)] = A[static_cast<size_t>(r + 3 * m)];
    for (const char* tree : {"flat", "binary", "panel"}) {
        INFO("tree=" << tree);
        std::vector<double> F = A, Q(static_cast<size_t>(m * n));
        QRFactors<double> f(runtime(), m, n, nb, QrTree::parse(tree));
        geqrf(runtime(), m, n, F.data(), m, f, on(Mapping::CpuOnly));
        CHECK(f.breakdown() == QrBreakdown::None);
        orgqr(runtime(), m, n, F.data(), m, f, Q.data(), m, on(Mapping::CpuOnly));
        CHECK(orthogonality_residual(m, n, Q.data(), m) < kResidualLimit);
        CHECK(qr_residual(m, n, A.data(), m, Q.data(), m, F.data(), m) < kResidualLimit);
    }
}

// CPU tile QR's least squares: gels of tall and wide matrices (the minimum-norm solution, as LAPACK's) for both
// precisions and every reduction tree, in the TileMatrix, array and async:: forms; residuals < 60
// (tests/qr_support.hpp); gels' info on rank-deficient matrices as LAPACK's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tests/qr_support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::qr;

TEMPLATE_TEST_CASE("gels solves least squares with residual < 60", "[qr][cpu]", float, double) {
    using T = TestType;
    struct Case {
        int64_t m, n, nrhs, nb;
        const char* tree;
    };
    for (Case c : {Case{1, 1, 1, 4, "flat"}, Case{30, 30, 2, 8, "flat"}, Case{57, 20, 5, 8, "binary"},
                   Case{200, 31, 16, 32, "domains=2"}, Case{90, 1, 3, 16, "auto"}, Case{64, 10, 1, 128, "flat"},
                   Case{30, 30, 1, 8, "panel"}, Case{57, 20, 5, 8, "panel"}, Case{200, 31, 16, 32, "panel"},
                   Case{90, 1, 3, 16, "panel"}, Case{64, 10, 1, 128, "panel"}}) {
        const uint64_t seed = fresh_seed();
        INFO("m=" << c.m << " n=" << c.n << " nrhs=" << c.nrhs << " nb=" << c.nb << " tree=" << c.tree
                  << " seed=" << seed);
        const int64_t lda = c.m + 1, ldb = c.m + 3;
        const std::vector<T> A = random_rect<T>(c.m, c.n, lda, seed), B = random_rect<T>(c.m, c.nrhs, ldb, seed + 7);
        // The TileMatrix form with the tree of the case.
        TileMatrix<T> a(runtime(), c.m, c.n, c.nb), b(runtime(), c.m, c.nrhs, c.nb);
        a.import(A.data(), lda);
        b.import(B.data(), ldb);
        QRFactors<T> f(a, QrTree::parse(c.tree));
        REQUIRE(gels(a, f, b, on(Mapping::CpuOnly)) == 0);
        std::vector<T> X(static_cast<size_t>(ldb * c.nrhs));
        b.export_to(X.data(), ldb);
        const double res = normal_equations_residual(c.m, c.n, c.nrhs, A.data(), lda, X.data(), ldb, B.data(), ldb);
        INFO("residual=" << res);
        CHECK(res < kResidualLimit);
        // The array form.
        std::vector<T> A2 = A, B2 = B;
        REQUIRE(gels(runtime(), c.m, c.n, c.nrhs, A2.data(), lda, B2.data(), ldb, on(Mapping::Hybrid),
                     Tiling{c.nb}) == 0);
        CHECK(normal_equations_residual(c.m, c.n, c.nrhs, A.data(), lda, B2.data(), ldb, B.data(), ldb) < kResidualLimit);
    }
}

namespace {

/// LAPACKE's gels ('N') of A (m x n, lda) and B (max(m, n) x nrhs, ldb) in place; its info.
template <typename T>
int lapack_gels(int64_t m, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb) {
    return starfact::detail::cpu::gels<T>('N', static_cast<int>(m), static_cast<int>(n), static_cast<int>(nrhs), A,
                                          static_cast<int>(lda), B, static_cast<int>(ldb));
}
}  // namespace

TEMPLATE_TEST_CASE("gels of a wide matrix: the minimum-norm solution, as LAPACK's", "[qr][cpu]", float, double) {
    using T = TestType;
    struct Case {
        int64_t m, n, nrhs, nb;
        const char* tree;
    };
    for (Case c : {Case{1, 5, 1, 4, "flat"}, Case{7, 30, 2, 8, "binary"}, Case{20, 57, 3, 8, "domains=2"},
                   Case{16, 64, 1, 16, "flat"}, Case{5, 70, 4, 16, "auto"}, Case{31, 200, 16, 32, "binary"},
                   Case{20, 57, 3, 8, "panel"}, Case{31, 200, 16, 32, "panel"}, Case{1, 5, 1, 4, "panel"}}) {
        const uint64_t seed = fresh_seed();
        INFO("m=" << c.m << " n=" << c.n << " nrhs=" << c.nrhs << " nb=" << c.nb << " tree=" << c.tree
                  << " seed=" << seed);
        const int64_t lda = c.m + 1, ldb = c.n + 3;  // B: max(m, n) rows
        const std::vector<T> A = random_rect<T>(c.m, c.n, lda, seed), B = random_rect<T>(c.m, c.nrhs, ldb, seed + 7);
        std::vector<T> ref_a = A, ref = B;
        REQUIRE(lapack_gels(c.m, c.n, c.nrhs, ref_a.data(), lda, ref.data(), ldb) == 0);
        auto check = [&](const std::vector<T>& X, const char* form) {
            INFO(form);
            const double res = system_residual(c.m, c.n, c.nrhs, A.data(), lda, X.data(), ldb, B.data(), ldb);
            const double diff = scaled_difference(c.n, c.nrhs, X.data(), ldb, ref.data(), ldb);  // the minimum norm
            INFO("residual=" << res << " against LAPACK's=" << diff);
            CHECK(res < kResidualLimit);
            CHECK(diff < kResidualLimit);
        };
        // The TileMatrix form: the factors are A^T's.
        TileMatrix<T> a(runtime(), c.m, c.n, c.nb), b(runtime(), c.n, c.nrhs, c.nb);
        a.import(A.data(), lda);
        b.import(B.data(), ldb);  // rows m .. n-1 are input too (LAPACK ignores them): here the marker values
        QRFactors<T> f(runtime(), c.n, c.m, c.nb, QrTree::parse(c.tree));
        REQUIRE(gels(a, f, b, on(Mapping::CpuOnly)) == 0);
        std::vector<T> X(static_cast<size_t>(ldb * c.nrhs));
        b.export_to(X.data(), ldb);
        check(X, "TileMatrix form");
        // A holds the factors of A^T transposed: L = R^T on and below its diagonal, as LAPACK's L up to signs.
        std::vector<T> LQ(A.size());
        a.export_to(LQ.data(), lda);
        for (int64_t i = 0; i < c.m; ++i) CHECK(std::abs(std::abs(double(LQ[i + i * lda])) -
                                                     std::abs(double(ref_a[i + i * lda]))) <
                                            1e3 * c.n * std::numeric_limits<T>::epsilon());
        // The array form and the submit form.
        std::vector<T> A2 = A, B2 = B;
        REQUIRE(gels(runtime(), c.m, c.n, c.nrhs, A2.data(), lda, B2.data(), ldb, on(Mapping::Hybrid),
                     Tiling{c.nb}) == 0);
        check(B2, "array form");
        a.import(A.data(), lda);
        b.import(B.data(), ldb);
        Sequence seq(runtime());
        const int op = async::gels(a, f, b, seq, on(Mapping::Hybrid));
        CHECK(seq.wait() == 0);
        CHECK(seq.info(op) == 0);
        b.export_to(X.data(), ldb);
        check(X, "submit form");
    }
}

TEMPLATE_TEST_CASE("gels reports an exactly zero diagonal of R as LAPACK's info, tall and wide", "[qr][cpu]", float,
                   double) {
    using T = TestType;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    for (int64_t column : {0, 5, 12, 19}) {
        for (const char* tree : {"flat", "binary", "panel"}) {
            const int64_t m = 45, n = 20, nrhs = 2;
            INFO("zero column " << column << " tree " << tree);
            std::vector<T> A = random_rect<T>(m, n, m, seed + column), B = random_rect<T>(m, nrhs, m, seed + 1);
            for (int64_t i = 0; i < m; ++i) A[i + column * m] = T(0);
            std::vector<T> ref = A, ref_b = B;
            const int ref_info = lapack_gels(m, n, nrhs, ref.data(), m, ref_b.data(), m);
            CHECK(ref_info == column + 1);
            TileMatrix<T> a(runtime(), m, n, 8), b(runtime(), m, nrhs, 8);
            a.import(A.data(), m);
            b.import(B.data(), m);
            QRFactors<T> f(a, QrTree::parse(tree));
            CHECK(gels(a, f, b, on(Mapping::CpuOnly)) == ref_info);
            // The submit form: the same info from the Sequence.
            a.import(A.data(), m);
            b.import(B.data(), m);
            Sequence seq(runtime());
            const int op = async::gels(a, f, b, seq, on(Mapping::CpuOnly));
            CHECK(seq.wait() == ref_info);
            CHECK(seq.info(op) == ref_info);
        }
    }
    // A wide matrix with a zero row: R of A^T (LAPACK: L of A) has a zero diagonal entry there.
    for (int64_t row : {0, 5, 12, 19}) {
        for (const char* tree : {"flat", "binary", "panel"}) {
            const int64_t m = 20, n = 45, nrhs = 2;
            INFO("zero row " << row << " tree " << tree);
            std::vector<T> A = random_rect<T>(m, n, m, seed + row), B = random_rect<T>(n, nrhs, n, seed + 1);
            for (int64_t j = 0; j < n; ++j) A[row + j * m] = T(0);
            std::vector<T> ref = A, ref_b = B;
            const int ref_info = lapack_gels(m, n, nrhs, ref.data(), m, ref_b.data(), n);
            CHECK(ref_info == row + 1);
            TileMatrix<T> a(runtime(), m, n, 8), b(runtime(), n, nrhs, 8);
            a.import(A.data(), m);
            b.import(B.data(), n);
            QRFactors<T> f(runtime(), n, m, 8, QrTree::parse(tree));
            CHECK(gels(a, f, b, on(Mapping::CpuOnly)) == ref_info);
            std::vector<T> A2 = A, B2 = B;
            CHECK(gels(runtime(), m, n, nrhs, A2.data(), m, B2.data(), n, on(Mapping::CpuOnly), Tiling{8}) == ref_info);
            a.import(A.data(), m);
            Sequence seq(runtime());
            const int op = async::gels(a, f, b, seq, on(Mapping::CpuOnly));
            CHECK(seq.wait() == ref_info);
            CHECK(seq.info(op) == ref_info);
        }
    }
}

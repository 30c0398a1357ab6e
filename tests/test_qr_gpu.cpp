// GPU tile QR [gpu][qr]: the CUDA kernels (GEQRT, UNMQR, TS and TT factorizations and applications from the left and
// from the right, the zero-diagonal check, the identity tiles, the triangular solve) under the GPU-only mapping for
// every tree, both precisions, host- and device-resident tiles; each CUDA kernel against the CPU one: factors made by
// GPU workers applied by CPU workers and the other way round (the T tiles and reflectors must mean the same to both),
// and the hybrid mapping, where both kinds of workers take tasks of one graph; gels' info with an exactly zero column
// (reflectors with tau = 0 in the CUDA triangular factor); wide matrices (m < n: R trapezoidal; gels' minimum-norm
// solution with the transposes, the solve with R^T and its update on CUDA workers, against LAPACK's); a few tiles of
// each path tagged [sanitize] for compute-sanitizer. Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <type_traits>
#include <utility>

#include "tests/qr_support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::qr;

namespace {

template <typename T>
void expect_gpu_qr(int64_t m, int64_t n, int64_t nb, const char* tree, int64_t ib, Mapping factor, Mapping apply) {
    const uint64_t seed = fresh_seed();
    INFO("m=" << m << " n=" << n << " nb=" << nb << " tree=" << tree << " ib=" << ib << " factor=" << to_string(factor)
              << " apply=" << to_string(apply) << " prec=" << (sizeof(T) == 4 ? "s" : "d") << " seed=" << seed);
    const QrCheck c = check_qr<T>(runtime(), m, n, nb, QrTree::parse(tree), ib, on(factor), on(apply), seed);
    INFO("orthogonality=" << c.orthogonality << " factorization=" << c.factorization << " apply=" << c.apply
                          << " reduce=" << c.reduce);
    CHECK(c.failure().empty());
}

/// The GPU Cholesky QR of A (m x n, tiles of nb rows): orthogonality and residual < 60, and the passes it ran (0: any).
void expect_gpu_cholqr_passes(const std::vector<double>& A, int64_t m, int64_t n, int64_t nb, int passes,
                              int64_t ib = 0) {
    TileMatrix<double> a(runtime(), m, n, nb), q(runtime(), m, n, nb);
    a.import(A.data(), m);
    QRFactors<double> f(a, QrTree::parse("cholqr"), ib);
    RunStats stats;
    geqrf(a, f, on(Mapping::GpuOnly), stats);
    if (passes > 0) CHECK(stats.qr_passes == passes);
    orgqr(a, f, q, on(Mapping::GpuOnly));
    std::vector<double> F(A.size()), Q(A.size());
    a.export_to(F.data(), m);
    q.export_to(Q.data(), m);
    const double orth = orthogonality_residual(m, n, Q.data(), m),
                 res = qr_residual(m, n, A.data(), m, Q.data(), m, F.data(), m);
    INFO("orthogonality=" << orth << " residual=" << res);
    CHECK(orth < kResidualLimit);
    CHECK(res < kResidualLimit);
}

template <typename T>
void expect_gpu_right(int64_t m, int64_t n, int64_t k, int64_t nb, const char* tree, int64_t ib, Mapping factor,
                      Mapping apply) {
    const uint64_t seed = fresh_seed();
    INFO("m=" << m << " n=" << n << " k=" << k << " nb=" << nb << " tree=" << tree << " ib=" << ib << " factor="
              << to_string(factor) << " apply=" << to_string(apply) << " prec=" << (sizeof(T) == 4 ? "s" : "d")
              << " seed=" << seed);
    const RightCheck c =
        check_ormqr_right<T>(runtime(), m, n, k, nb, QrTree::parse(tree), ib, on(factor), on(apply), seed);
    INFO("orthogonality=" << c.orthogonality << " factorization=" << c.factorization << " C*Q=" << c.notrans
                          << " C*Q^T=" << c.trans);
    CHECK(c.failure().empty());
}

}  // namespace

TEMPLATE_TEST_CASE("GPU-only QR paths on a few tiles, for the sanitizers", "[gpu][qr][sanitize]", float, double) {
    // Every CUDA codelet of the QR on tiles of 32 (3 x 2 or 2 x 3 tiles; domains of 2: TS and TT kernels), so that
    // compute-sanitizer sees each launch of starfact's own kernels (tests/test_qr_kernels_gpu.cpp tests them
    // alone) with the codelets' real arguments: geqrf of tall and wide matrices, orgqr, ormqr from the left and
    // from the right, gels of a tall and of a wide matrix, each with an exactly zero R(k, k) too (info).
    using T = TestType;
    expect_gpu_qr<T>(70, 40, 32, "domains=2", 0, Mapping::GpuOnly, Mapping::GpuOnly);
    expect_gpu_qr<T>(40, 70, 32, "domains=2", 0, Mapping::GpuOnly, Mapping::GpuOnly);
    expect_gpu_right<T>(70, 40, 5, 32, "domains=2", 0, Mapping::GpuOnly, Mapping::GpuOnly);
    expect_gpu_qr<T>(70, 40, 32, "panel", 0, Mapping::GpuOnly, Mapping::GpuOnly);  // the panel codelet
    expect_gpu_qr<T>(40, 70, 32, "panel", 0, Mapping::GpuOnly, Mapping::GpuOnly);
    expect_gpu_right<T>(70, 40, 5, 32, "panel", 0, Mapping::GpuOnly, Mapping::GpuOnly);
    expect_gpu_qr<T>(130, 20, 32, "cholqr", 0, Mapping::GpuOnly, Mapping::GpuOnly);  // the Cholesky QR's codelets
    // The panel codelet's Cholesky QR (float's on a double copy): a tall panel (2400 x 256) and one halved (2400 x 520:
    // its left half of 288 columns by the Cholesky QR, its right by geqrf, then T's coupling block).
    expect_gpu_qr<T>(2400, 256, 256, "panel", 0, Mapping::GpuOnly, Mapping::GpuOnly);
    expect_gpu_qr<T>(2400, 520, 520, "panel", 0, Mapping::GpuOnly, Mapping::GpuOnly);
    if constexpr (sizeof(T) == 4) {
        // float's own Cholesky QR kernels (on GPUs a float column is otherwise factored in double and narrowed)
        setenv("STARFACT_QR_WIDEN", "off", 1);
        expect_gpu_qr<T>(130, 20, 32, "cholqr", 0, Mapping::GpuOnly, Mapping::GpuOnly);
        expect_gpu_qr<T>(300, 140, 160, "cholqr", 0, Mapping::GpuOnly, Mapping::GpuOnly);
        unsetenv("STARFACT_QR_WIDEN");
    }
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const int64_t nrhs = 2, nb = 32;
    for (bool wide : {false, true}) {
        const int64_t m = wide ? 40 : 70, n = wide ? 70 : 40, ldb = std::max(m, n);
        INFO("m=" << m << " n=" << n);
        const std::vector<T> A = random_rect<T>(m, n, m, seed), B = random_rect<T>(m, nrhs, ldb, seed + 1);
        TileMatrix<T> a(runtime(), m, n, nb), b(runtime(), ldb, nrhs, nb);
        QRFactors<T> f(runtime(), wide ? n : m, wide ? m : n, nb, QrTree::parse("domains=2"));
        a.import(A.data(), m);
        b.import(B.data(), ldb);
        REQUIRE(gels(a, f, b, on(Mapping::GpuOnly)) == 0);
        std::vector<T> X(B.size());
        b.export_to(X.data(), ldb);
        const double res = normal_equations_residual(m, n, nrhs, A.data(), m, X.data(), ldb, B.data(), ldb);
        INFO("residual=" << res);
        CHECK(res < kResidualLimit);
        // An exactly zero column (tall) or row (wide) in the second tile: R(k, k) = 0 at k = 33.
        std::vector<T> Z = A;
        for (int64_t l = 0; l < (wide ? n : m); ++l) Z[wide ? 32 + l * m : l + 32 * m] = T(0);
        a.import(Z.data(), m);
        b.import(B.data(), ldb);
        CHECK(gels(a, f, b, on(Mapping::GpuOnly)) == 33);
    }
    // The Cholesky QR's codelets (Gram gemms and their sums, the shifted potrf, the solves by blocks of 128 columns,
    // the modified LU, Y^T C and the updates): two passes on a well-conditioned matrix, three on cond 1e8.
    expect_gpu_qr<T>(300, 140, 160, "cholqr", 0, Mapping::GpuOnly, Mapping::GpuOnly);
    expect_gpu_right<T>(300, 40, 3, 64, "cholqr", 0, Mapping::GpuOnly, Mapping::GpuOnly);
    if constexpr (sizeof(T) == 8) {
        expect_gpu_cholqr_passes(conditioned(300, 140, 10, seed + 2), 300, 140, 160, 2);
        expect_gpu_cholqr_passes(conditioned(300, 140, 1e8, seed + 3), 300, 140, 160, 3);
        // The second pass's decision by the power method on the device (its input's 2-norm distance from
        // orthonormal 0.05, the Frobenius norm and 1-norm above 0.1): two passes; at 0.3, three.
        expect_gpu_cholqr_passes(two_level(2000, 200, two_level_small(2000, 200, 0.05), seed + 4), 2000, 200, 256, 2);
        expect_gpu_cholqr_passes(two_level(2000, 200, two_level_small(2000, 200, 0.3), seed + 5), 2000, 200, 256, 3);
        // Wide tiles, no chunks of the Gram: its lower triangle by block columns of 256 (n = 1500) and by syrk (n =
        // 2048); the modified LU blocked on two levels (n > 256).
        expect_gpu_cholqr_passes(conditioned(3200, 1500, 10, seed + 6), 3200, 1500, 1600, 2);
        expect_gpu_cholqr_passes(conditioned(4200, 2048, 10, seed + 7), 4200, 2048, 2100, 2);
        expect_gpu_cholqr_passes(conditioned(4200, 2048, 1e8, seed + 8), 4200, 2048, 2100, 3);
    }
}

TEMPLATE_TEST_CASE("GPU-only ormqr from the right against the explicit Q; factors crossing worker kinds", "[gpu][qr]",
                   float, double) {
    for (const char* tree : {"flat", "binary", "domains=3", "panel"}) {
        expect_gpu_right<TestType>(1, 1, 1, 64, tree, 0, Mapping::GpuOnly, Mapping::GpuOnly);
        expect_gpu_right<TestType>(100, 1, 7, 64, tree, 0, Mapping::GpuOnly, Mapping::GpuOnly);
        expect_gpu_right<TestType>(333, 150, 1, 64, tree, 0, Mapping::GpuOnly, Mapping::GpuOnly);
        expect_gpu_right<TestType>(300, 300, 70, 64, tree, 0, Mapping::GpuOnly, Mapping::GpuOnly);
        expect_gpu_right<TestType>(50, 50, 20, 128, tree, 0, Mapping::GpuOnly, Mapping::GpuOnly);  // m < nb
        expect_gpu_right<TestType>(150, 333, 30, 64, tree, 0, Mapping::GpuOnly, Mapping::GpuOnly);  // m < n
    }
    for (const char* tree : {"flat", "binary", "panel"}) {
        // The CUDA right-side kernels against the CPU ones on the same factors, and both kinds in one graph.
        expect_gpu_right<TestType>(333, 150, 40, 64, tree, 0, Mapping::GpuOnly, Mapping::CpuOnly);
        expect_gpu_right<TestType>(333, 150, 40, 64, tree, 64, Mapping::CpuOnly, Mapping::GpuOnly);
        expect_gpu_right<TestType>(600, 300, 90, 64, tree, 0, Mapping::Hybrid, Mapping::Hybrid);
    }
}

TEMPLATE_TEST_CASE("GPU-only geqrf, orgqr, ormqr residuals < 60, every tree", "[gpu][qr]", float, double) {
    struct Shape {
        int64_t m, n, nb;
    };
    for (const char* tree : {"flat", "binary", "domains=3", "panel"})
        for (Shape s : {Shape{1, 1, 64}, Shape{100, 1, 64}, Shape{64, 64, 64}, Shape{300, 300, 64},
                        Shape{333, 150, 64}, Shape{1000, 70, 128}, Shape{515, 515, 128}, Shape{200, 40, 256},
                        Shape{1, 100, 64}, Shape{150, 333, 64}, Shape{64, 200, 128}, Shape{256, 700, 128}})
            expect_gpu_qr<TestType>(s.m, s.n, s.nb, tree, 0, Mapping::GpuOnly, Mapping::GpuOnly);
    expect_gpu_qr<TestType>(4000, 128, 512, "auto", 0, Mapping::GpuOnly, Mapping::GpuOnly);
    expect_gpu_qr<TestType>(1100, 1000, 256, "auto", 0, Mapping::GpuOnly, Mapping::GpuOnly);  // auto = panel
    // Tall panels (8 rows per column or more, 256 columns or more) by the Cholesky QR: 3001 x 600 in tiles of 256
    // (panels of 3001 to 1977 rows by the Cholesky QR, the last ones by geqrf), m % nb and n % nb not 0.
    expect_gpu_qr<TestType>(3001, 600, 256, "panel", 0, Mapping::GpuOnly, Mapping::GpuOnly);
    // Panels too square for the Cholesky QR, halved by recursion (codelets/qr_panel.cpp, factor_panel; float's
    // Cholesky QR parts on a double copy): 3001 x 1500 in tiles of 1024, whose first panel (3001 x 1024) halves into
    // parts of 512 and 256 columns, the tall ones by the Cholesky QR, the others by geqrf, and whose second (1977 x
    // 476) is one geqrf; 1300 x 1300 in tiles of 600 (halves of 320 and 280 columns by geqrf, T's coupling block
    // between them).
    expect_gpu_qr<TestType>(3001, 1500, 1024, "panel", 0, Mapping::GpuOnly, Mapping::GpuOnly);
    expect_gpu_qr<TestType>(1300, 1300, 600, "panel", 0, Mapping::GpuOnly, Mapping::GpuOnly);
}

TEMPLATE_TEST_CASE("GPU panel tree: a tall panel the Cholesky QR cannot factor is factored by Householder",
                   "[gpu][qr]", float, double) {
    // Two equal columns in the first panel (rank deficient: the reconstruction's rank check refuses it) and a zero
    // column in the second: both panels fall back to geqrf, whose factors are as good as on any matrix (float's
    // Cholesky QR runs on a double copy, and the panel stays as it was for geqrf).
    using T = TestType;
    const int64_t m = 4000, n = 520, nb = 256;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    std::vector<T> A = random_rect<T>(m, n, m, seed);
    std::copy(A.begin() + 10 * m, A.begin() + 11 * m, A.begin() + 11 * m);
    std::fill(A.begin() + 300 * m, A.begin() + 301 * m, T(0));
    TileMatrix<T> a(runtime(), m, n, nb), q(runtime(), m, n, nb);
    a.import(A.data(), m);
    QRFactors<T> f(a, QrTree::parse("panel"));
    REQUIRE_NOTHROW(geqrf(a, f, on(Mapping::GpuOnly)));
    orgqr(a, f, q, on(Mapping::GpuOnly));
    std::vector<T> F(A.size()), Q(A.size());
    a.export_to(F.data(), m);
    q.export_to(Q.data(), m);
    const double orth = orthogonality_residual(m, n, Q.data(), m),
                 res = qr_residual(m, n, A.data(), m, Q.data(), m, F.data(), m);
    INFO("orthogonality=" << orth << " residual=" << res);
    CHECK(orth < kResidualLimit);
    CHECK(res < kResidualLimit);
}

TEMPLATE_TEST_CASE("CUDA QR kernels against the CPU ones: factors cross between worker kinds", "[gpu][qr]", float,
                   double) {
    for (const char* tree : {"flat", "binary", "panel"}) {
        // Factored by the CUDA kernels, applied by the CPU ones, and the other way round (ib = nb: one triangular
        // factor per tile, the layout both kinds share).
        expect_gpu_qr<TestType>(333, 150, 64, tree, 0, Mapping::GpuOnly, Mapping::CpuOnly);
        expect_gpu_qr<TestType>(333, 150, 64, tree, 64, Mapping::CpuOnly, Mapping::GpuOnly);
        expect_gpu_qr<TestType>(190, 190, 32, tree, 32, Mapping::CpuOnly, Mapping::GpuOnly);
        // Both kinds in one graph.
        expect_gpu_qr<TestType>(600, 300, 64, tree, 0, Mapping::Hybrid, Mapping::Hybrid);
    }
    // An inner blocking below nb keeps every task on CPU workers, whatever the mapping.
    expect_gpu_qr<TestType>(200, 100, 64, "flat", 16, Mapping::GpuOnly, Mapping::GpuOnly);
}

TEMPLATE_TEST_CASE("GPU-only gels: residual < 60 and LAPACK's info for a zero column", "[gpu][qr]", float, double) {
    using T = TestType;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    for (Residency r : {Residency::Host, Residency::Device})
        for (const char* tree : {"flat", "binary", "panel"}) {
            const int64_t m = 700, n = 300, nrhs = 16, nb = 128;
            INFO("residency=" << to_string(r) << " tree=" << tree);
            const std::vector<T> A = random_rect<T>(m, n, m, seed), B = random_rect<T>(m, nrhs, m, seed + 1);
            TileMatrix<T> a(runtime(), m, n, nb, r), b(runtime(), m, nrhs, nb, r);
            a.import(A.data(), m);
            b.import(B.data(), m);
            QRFactors<T> f(a, QrTree::parse(tree));
            REQUIRE(gels(a, f, b, on(Mapping::GpuOnly)) == 0);
            std::vector<T> X(B.size());
            b.export_to(X.data(), m);
            const double res = normal_equations_residual(m, n, nrhs, A.data(), m, X.data(), m, B.data(), m);
            INFO("residual=" << res);
            CHECK(res < kResidualLimit);
            for (int64_t column : {0, 129, 299}) {
                INFO("zero column " << column);
                std::vector<T> Z = A;
                for (int64_t i = 0; i < m; ++i) Z[i + column * m] = T(0);
                a.import(Z.data(), m);
                b.import(B.data(), m);
                CHECK(gels(a, f, b, on(Mapping::GpuOnly)) == column + 1);
            }
        }
}

TEMPLATE_TEST_CASE("GPU-only gels of a wide matrix: LAPACK's minimum-norm solution and info", "[gpu][qr]", float,
                   double) {
    using T = TestType;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    for (Residency r : {Residency::Host, Residency::Device})
        for (const char* tree : {"flat", "binary", "panel"}) {
            const int64_t m = 300, n = 700, nrhs = 16, nb = 128;
            INFO("residency=" << to_string(r) << " tree=" << tree);
            const std::vector<T> A = random_rect<T>(m, n, m, seed), B = random_rect<T>(m, nrhs, n, seed + 1);
            std::vector<T> ref_a = A, ref = B;
            REQUIRE(starfact::detail::cpu::gels<T>('N', m, n, nrhs, ref_a.data(), m, ref.data(), n) == 0);
            TileMatrix<T> a(runtime(), m, n, nb, r), b(runtime(), n, nrhs, nb, r);
            a.import(A.data(), m);
            b.import(B.data(), n);
            QRFactors<T> f(runtime(), n, m, nb, QrTree::parse(tree));
            REQUIRE(gels(a, f, b, on(Mapping::GpuOnly)) == 0);
            std::vector<T> X(B.size());
            b.export_to(X.data(), n);
            const double diff = scaled_difference(n, nrhs, X.data(), n, ref.data(), n);
            INFO("against LAPACK's=" << diff);
            CHECK(diff < kResidualLimit);
            for (int64_t row : {0, 129, 299}) {
                INFO("zero row " << row);
                std::vector<T> Z = A;
                for (int64_t j = 0; j < n; ++j) Z[row + j * m] = T(0);
                a.import(Z.data(), m);
                b.import(B.data(), n);
                CHECK(gels(a, f, b, on(Mapping::GpuOnly)) == row + 1);
            }
        }
}

TEMPLATE_TEST_CASE("GPU-only QR on device-resident tiles, async chain", "[gpu][qr]", float, double) {
    using T = TestType;
    for (const char* tree : {"binary", "panel"}) {
        const uint64_t seed = fresh_seed();
        INFO("seed=" << seed << " tree=" << tree);
        const int64_t m = 1500, n = 600, nb = 256;
        const std::vector<T> A = random_rect<T>(m, n, m, seed);
        TileMatrix<T> a(runtime(), m, n, nb, Residency::Device), q(runtime(), m, n, nb, Residency::Device);
        a.import(A.data(), m);
        QRFactors<T> f(a, QrTree::parse(tree));
        Sequence seq(runtime());
        async::geqrf(a, f, seq, on(Mapping::GpuOnly));
        async::orgqr(a, f, q, seq, on(Mapping::GpuOnly));
        // From the right on device-resident tiles: (W Q) Q^T = W.
        const int64_t k = 300;
        const std::vector<T> W = random_rect<T>(k, m, k, seed + 9);
        TileMatrix<T> w(runtime(), k, m, nb, Residency::Device);
        w.import(W.data(), k);
        async::ormqr(Side::Right, Trans::NoTrans, a, f, w, seq, on(Mapping::GpuOnly));
        async::ormqr(Side::Right, Trans::Transpose, a, f, w, seq, on(Mapping::GpuOnly));
        CHECK(seq.wait() == 0);
        std::vector<T> F(A.size()), Q(A.size()), V(W.size());
        a.export_to(F.data(), m);
        q.export_to(Q.data(), m);
        w.export_to(V.data(), k);
        CHECK(orthogonality_residual(m, n, Q.data(), m) < kResidualLimit);
        CHECK(qr_residual(m, n, A.data(), m, Q.data(), m, F.data(), m) < kResidualLimit);
        CHECK(scaled_difference(k, m, V.data(), k, W.data(), k) < kResidualLimit);
    }
}

TEMPLATE_TEST_CASE("GPU Cholesky QR (tree cholqr): residuals < 60, both sides, GPU and CPU workers alike",
                   "[gpu][qr][cholqr]", float, double) {
    // The CUDA codelets of the Cholesky QR (Gram gemms, the tree's adds, cuSOLVER's potrf with the shift, the
    // one-block modified LU, the solves, Y^T C and the updates), GPU-only and mixed with CPU workers: factors made on
    // GPUs applied on CPUs and the other way round (one representation for both), n = 1, m = n, m % nb != 0.
    using T = TestType;
    struct Shape {
        int64_t m, n, nb;
    };
    // Tiles of 35001 rows take the in-place solve kernel in double (kernels/qr/cholqr_trmm.hpp), float on its copy.
    for (const Shape& s : {Shape{1, 1, 4}, Shape{17, 17, 32}, Shape{700, 1, 128}, Shape{1000, 50, 128},
                           Shape{5000, 200, 1024}, Shape{30000, 256, 4096}, Shape{70001, 300, 35001}})
        for (const auto& [factor, apply] : {std::pair{Mapping::GpuOnly, Mapping::GpuOnly},
                                            std::pair{Mapping::GpuOnly, Mapping::CpuOnly},
                                            std::pair{Mapping::CpuOnly, Mapping::GpuOnly}}) {
            if (s.m > 5000 && factor == Mapping::CpuOnly) continue;
            expect_gpu_qr<T>(s.m, s.n, s.nb, "cholqr", 0, factor, apply);
            if (s.m <= 1000) expect_gpu_right<T>(s.m, s.n, 3, s.nb, "cholqr", 0, factor, apply);
        }
}

TEMPLATE_TEST_CASE("GPU Cholesky QR in panels (ib < n): residuals < 60, both sides, GPU and CPU workers alike",
                   "[gpu][qr][cholqr]", float, double) {
    // The blocked form's windows on the CUDA codelets (the panels' passes below their first row, the trailing
    // updates on the same tiles, T in ib-column blocks), factors made on GPUs applied on CPUs and the other way round;
    // square in one tile and in two tiles, the last one shorter than n (the plan's shapes beyond 4096 columns).
    using T = TestType;
    struct Shape {
        int64_t m, n, nb, ib;
    };
    for (const Shape& s : {Shape{1000, 50, 128, 16}, Shape{5000, 200, 1024, 64}, Shape{30000, 256, 4096, 100},
                           Shape{70001, 700, 8192, 256}, Shape{3000, 3000, 3000, 512}, Shape{5000, 3001, 3001, 1024},
                           Shape{70001, 300, 35001, 128}})
        for (const auto& [factor, apply] : {std::pair{Mapping::GpuOnly, Mapping::GpuOnly},
                                            std::pair{Mapping::GpuOnly, Mapping::CpuOnly},
                                            std::pair{Mapping::CpuOnly, Mapping::GpuOnly}}) {
            if (s.m > 5000 && factor == Mapping::CpuOnly) continue;
            expect_gpu_qr<T>(s.m, s.n, s.nb, "cholqr", s.ib, factor, apply);
            if (s.m <= 1000) expect_gpu_right<T>(s.m, s.n, 3, s.nb, "cholqr", s.ib, factor, apply);
        }
    const uint64_t seed = fresh_seed();
    INFO("cond 1e10 seed=" << seed);
    if (std::is_same<T, double>::value)
        expect_gpu_cholqr_passes(conditioned(20000, 64, 1e10, seed), 20000, 64, 4096, 0, 16);
    if (std::is_same<T, double>::value)  // one tile of 40000 rows: the in-place solve kernel
        expect_gpu_cholqr_passes(conditioned(40000, 64, 1e10, seed + 1), 40000, 64, 40000, 0, 16);
}

TEST_CASE("GPU Cholesky QR: cond 1e6 and 1e12 keep residuals < 60 past the TF32 first pass, in both first passes",
          "[gpu][qr][cholqr]") {
    // cond 1e12 is beyond the TF32 first pass's range: the blocking form starts over in double.
    for (const char* first : {"tf32", "double"})
        for (double cond : {1e6, 1e12}) {
            const uint64_t seed = fresh_seed();
            INFO("first pass " << first << " cond=" << cond << " seed=" << seed);
            setenv("STARFACT_QR_FIRST_PASS", first, 1);
            expect_gpu_cholqr_passes(conditioned(20000, 64, cond, seed), 20000, 64, 4096, 0);
            unsetenv("STARFACT_QR_FIRST_PASS");
        }
}

TEST_CASE("GPU Cholesky QR: cond 1e10 keeps orthogonality < 60; a zero column is reported", "[gpu][qr][cholqr]") {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const int64_t m = 20000, n = 64, nb = 4096;
    const std::vector<double> A = conditioned(m, n, 1e10, seed);  // singular values from 1 to 1e-10
    for (Residency r : {Residency::Host, Residency::Device}) {
        INFO("residency=" << to_string(r));
        TileMatrix<double> a(runtime(), m, n, nb, r), q(runtime(), m, n, nb, r);
        a.import(A.data(), m);
        QRFactors<double> f(a, QrTree::parse("cholqr"));
        geqrf(a, f, on(Mapping::GpuOnly));
        orgqr(a, f, q, on(Mapping::GpuOnly));
        std::vector<double> F(A.size()), Q(A.size());
        a.export_to(F.data(), m);
        q.export_to(Q.data(), m);
        const double orth = orthogonality_residual(m, n, Q.data(), m), res = qr_residual(m, n, A.data(), m, Q.data(),
                                                                                           m, F.data(), m);
        INFO("orthogonality=" << orth << " residual=" << res);
        CHECK(orth < kResidualLimit);
        CHECK(res < kResidualLimit);
        // gels on the GPU: one and several right-hand sides; a zero column: info > 0.
        for (int64_t nrhs : {1, 7}) {
            const std::vector<double> B = random_rect<double>(m, nrhs, m, seed + 3);
            TileMatrix<double> b(runtime(), m, nrhs, nb, r);
            a.import(A.data(), m);
            b.import(B.data(), m);
            REQUIRE(gels(a, f, b, on(Mapping::GpuOnly)) == 0);
            std::vector<double> X(B.size());
            b.export_to(X.data(), m);
            CHECK(normal_equations_residual(m, n, nrhs, A.data(), m, X.data(), m, B.data(), m) < kResidualLimit);
            std::vector<double> Z = A;
            for (int64_t i = 0; i < m; ++i) Z[i + 30 * m] = 0;
            a.import(Z.data(), m);
            b.import(B.data(), m);
            CHECK(gels(a, f, b, on(Mapping::GpuOnly)) > 0);
        }
    }
}

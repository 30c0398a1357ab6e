// Arrays whose leading dimension is 2^31 entries or more (tests/wide_array.hpp: mapped without reserving memory)
// through the array forms, the tile forms' import and export, and TileMatrix views: solved correctly (each checked
// by a scaled residual against the original data, the entries past each column untouched) or refused by name,
// never a crash or a silent wrong answer; extents beyond 64 bits refused naming the leading dimension.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/lu_support.hpp"
#include "tests/qr_support.hpp"
#include "tests/support.hpp"
#include "tests/wide_array.hpp"

using namespace starfact::test::prelude;
using starfact::test::kWide;
using starfact::test::WideArray;
using starfact::test::lu::lu_residual;
using starfact::test::qr::normal_equations_residual;
using starfact::test::qr::random_rect;
using starfact::test::qr::scaled_difference;

namespace {

const Options kCpu = on(Mapping::CpuOnly);

/// A general n x n matrix, diagonally weighted so that pivoting still matters but the matrix is well conditioned.
std::vector<double> general(int64_t n, uint64_t seed) {
    std::vector<double> A = random_rect<double>(n, n, n, seed);
    for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i + i * n)] += 0.5;
    return A;
}

}  // namespace

TEST_CASE("the Cholesky array forms solve arrays whose leading dimension is 2^31 or more", "[wide][cpu]") {
    Runtime& rt = runtime();
    for (int64_t n : {int64_t(3), int64_t(21), int64_t(40)}) {
        const int64_t nrhs = 3, nb = 8;
        const uint64_t seed = fresh_seed();
        INFO("n=" << n << " seed=" << seed);
        const std::vector<double> A = spd_matrix<double>(n, n, seed);
        std::vector<double> B(static_cast<size_t>(n * nrhs));
        random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
        {
            WideArray<double> a(n, n, kWide + 3);
            a.put(A);
            REQUIRE(potrf(rt, n, a.data(), a.ld(), kCpu, Tiling{nb}) == 0);
            const std::vector<double> L = a.get();
            CHECK(potrf_residual<double>(n, A.data(), n, L.data(), n) < kResidualLimit);
            CHECK(a.markers_intact());
        }
        for (Precision factor : {Precision::Native, Precision::Fp32}) {
            INFO("posv factor=" << to_string(factor));
            Options o = kCpu;
            o.factor = factor;
            WideArray<double> a(n, n, kWide + 5), b(n, nrhs, kWide + 11);
            a.put(A);
            b.put(B);
            REQUIRE(posv(rt, n, nrhs, a.data(), a.ld(), b.data(), b.ld(), o, Tiling{nb}) == 0);
            const std::vector<double> X = b.get();
            CHECK(solve_residual<double>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
            CHECK(a.markers_intact());
            CHECK(b.markers_intact());
        }
        {
            WideArray<float> a(n, n, kWide + 1);
            const std::vector<float> Af = spd_matrix<float>(n, n, seed + 2);
            a.put(Af);
            REQUIRE(potri(rt, n, a.data(), a.ld(), kCpu, Tiling{nb}) == 0);
            const std::vector<float> X = a.get();
            CHECK(potri_residual<float>(n, Af.data(), n, X.data(), n) < kResidualLimit);
            CHECK(a.markers_intact());
        }
    }
}

TEST_CASE("the LU array forms solve arrays whose leading dimension is 2^31 or more", "[wide][cpu]") {
    Runtime& rt = runtime();
    for (int64_t n : {int64_t(4), int64_t(29)}) {
        const int64_t nrhs = 2, nb = 8;
        const uint64_t seed = fresh_seed();
        INFO("n=" << n << " seed=" << seed);
        const std::vector<double> A = general(n, seed);
        std::vector<int64_t> ipiv(static_cast<size_t>(n));
        {
            WideArray<double> a(n, n, kWide + 7);
            a.put(A);
            REQUIRE(getrf(rt, n, a.data(), a.ld(), ipiv.data(), kCpu, Tiling{nb}) == 0);
            const std::vector<double> LU = a.get();
            CHECK(lu_residual<double>(n, A.data(), n, LU.data(), n, ipiv) < kResidualLimit);
            CHECK(a.markers_intact());
        }
        std::vector<double> B(static_cast<size_t>(n * nrhs));
        random_matrix<double>(n, nrhs, B.data(), n, seed + 1);
        WideArray<double> a(n, n, kWide + 9), b(n, nrhs, 3 * kWide);
        a.put(A);
        b.put(B);
        REQUIRE(gesv(rt, n, nrhs, a.data(), a.ld(), ipiv.data(), b.data(), b.ld(), kCpu, Tiling{nb}) == 0);
        const std::vector<double> X = b.get();
        CHECK(gesv_residual<double>(n, nrhs, A.data(), n, X.data(), n, B.data(), n) < kResidualLimit);
        CHECK(a.markers_intact());
        CHECK(b.markers_intact());
    }
}

TEST_CASE("the QR array forms solve arrays whose leading dimension is 2^31 or more", "[wide][cpu]") {
    Runtime& rt = runtime();
    for (int64_t n : {int64_t(3), int64_t(17)}) {
        const int64_t m = n + 9, nrhs = 2, nb = 8, k = n;
        const uint64_t seed = fresh_seed();
        INFO("m=" << m << " n=" << n << " seed=" << seed);
        const std::vector<double> A = random_rect<double>(m, n, m, seed);
        const std::vector<double> C = random_rect<double>(m, nrhs, m, seed + 1);
        WideArray<double> a(m, n, kWide + 13), q(m, k, kWide + 2), c(m, nrhs, kWide + 4);
        a.put(A);
        QRFactors<double> f(rt, m, n, nb);
        geqrf(rt, m, n, a.data(), a.ld(), f, kCpu);
        CHECK(a.markers_intact());
        orgqr(rt, m, n, a.data(), a.ld(), f, q.data(), q.ld(), kCpu);
        const std::vector<double> F = a.get(), Q = q.get();
        CHECK(orthogonality_residual<double>(m, k, Q.data(), m) < kResidualLimit);
        CHECK(qr_residual<double>(m, n, A.data(), m, Q.data(), m, F.data(), m) < kResidualLimit);
        CHECK(q.markers_intact());
        // Q^T C by ormqr on the wide array against Q^T C with the explicit Q.
        c.put(C);
        ormqr(rt, Side::Left, Trans::Transpose, m, nrhs, a.data(), a.ld(), f, c.data(), c.ld(), kCpu);
        const std::vector<double> D = c.get();
        std::vector<double> ref(static_cast<size_t>(k * nrhs), 0.0);
        for (int64_t j = 0; j < nrhs; ++j)
            for (int64_t i = 0; i < k; ++i)
                for (int64_t l = 0; l < m; ++l) ref[i + j * k] += Q[l + i * m] * C[l + j * m];
        CHECK(scaled_difference<double>(k, nrhs, D.data(), m, ref.data(), k) < kResidualLimit);
        CHECK(c.markers_intact());
        // Least squares: both arrays wide.
        WideArray<double> g(m, n, kWide + 21), b(m, nrhs, kWide + 22);
        g.put(A);
        b.put(C);
        REQUIRE(gels(rt, m, n, nrhs, g.data(), g.ld(), b.data(), b.ld(), kCpu, Tiling{nb}) == 0);
        const std::vector<double> X = b.get();
        CHECK(normal_equations_residual<double>(m, n, nrhs, A.data(), m, X.data(), m, C.data(), m) < kResidualLimit);
        CHECK(g.markers_intact());
        CHECK(b.markers_intact());
    }
}

TEST_CASE("the tile forms import from and export to arrays whose leading dimension is 2^31 or more", "[wide][cpu]") {
    Runtime& rt = runtime();
    const int64_t n = 26, nb = 8;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    WideArray<double> a(n, n, 2 * kWide + 1);
    a.put(A);
    TileMatrix<double> t(rt, n, nb);
    t.import(a.data(), a.ld());
    REQUIRE(potrf(t, kCpu) == 0);
    t.export_to(a.data(), a.ld());
    const std::vector<double> L = a.get();
    CHECK(potrf_residual<double>(n, A.data(), n, L.data(), n) < kResidualLimit);
    CHECK(a.markers_intact());
}

TEST_CASE("a TileMatrix view is made only over tiles StarPU and the kernels can address", "[wide][views][cpu]") {
    Runtime& rt = runtime();
    const int64_t n = 21, nb = 16;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    // nb * ld < 2^31: a view, factored in place.
    const int64_t fits = kWide / nb - 1;
    CHECK(TileMatrix<double>::viewable(n, nb, fits));
    CHECK_FALSE(TileMatrix<double>::viewable(n, nb, fits + 1));
    // One column: the pitch in bytes must stay below 2^31, what CUDA's 2D copies take.
    CHECK(TileMatrix<double>::viewable(1, nb, kWide / 8 - 1));
    CHECK_FALSE(TileMatrix<double>::viewable(1, nb, kWide / 8));
    CHECK(TileMatrix<float>::viewable(1, nb, kWide / 8));
    CHECK_FALSE(TileMatrix<float>::viewable(2, 1, kWide / 4));
    {
        WideArray<double> a(n, n, fits);
        a.put(A);
        {
            TileLayout lower;
            lower.lower_only = true;
            TileMatrix<double> view(rt, n, n, nb, a.data(), a.ld(), lower);
            CHECK(view.is_view());
            REQUIRE(potrf(view, kCpu) == 0);
        }
        const std::vector<double> L = a.get();
        CHECK(potrf_residual<double>(n, A.data(), n, L.data(), n) < kResidualLimit);
        CHECK(a.markers_intact());
    }
    // One entry more: refused by name, saying why and what to do instead; the array form copies instead.
    WideArray<double> a(n, n, fits + 1);
    a.put(A);
    CHECK_THROWS_MATCHES((TileMatrix<double>(rt, n, n, nb, a.data(), a.ld())), InvalidArgument,
                         Catch::Matchers::Predicate<InvalidArgument>(
                             [](const InvalidArgument& e) {
                                 const std::string w = e.what();
                                 return e.argument() == "ld" && w.find("2^31") != std::string::npos &&
                                        w.find("import") != std::string::npos;
                             },
                             "names 'ld', the 2^31 bound and import()"));
    REQUIRE(potrf(rt, n, a.data(), a.ld(), kCpu, Tiling{nb}) == 0);
    const std::vector<double> L = a.get();
    CHECK(potrf_residual<double>(n, A.data(), n, L.data(), n) < kResidualLimit);
    CHECK(a.markers_intact());
}

TEST_CASE("extents beyond 64 bits are refused naming the leading dimension", "[wide][errors][cpu]") {
    Runtime& rt = runtime();
    const int64_t huge = int64_t(1) << 62;  // (n - 1) * huge overflows from n = 3 on
    std::vector<double> A(64, 1.0), B(64, 1.0);
    std::vector<int64_t> ipiv(8);
    auto names = [](const std::string& argument) {
        return Catch::Matchers::Predicate<InvalidArgument>(
            [argument](const InvalidArgument& e) {
                const std::string what = e.what();
                return e.argument() == argument && what.find("'" + argument + "'") != std::string::npos;
            },
            "names '" + argument + "'");
    };
    CHECK_THROWS_MATCHES(potrf(rt, 3, A.data(), huge, kCpu), InvalidArgument, names("lda"));
    CHECK_THROWS_MATCHES(potri(rt, 3, A.data(), huge, kCpu), InvalidArgument, names("lda"));
    CHECK_THROWS_MATCHES(posv(rt, 3, 3, A.data(), 3, B.data(), huge, kCpu), InvalidArgument, names("ldb"));
    CHECK_THROWS_MATCHES(getrf(rt, 5, A.data(), huge / 2, ipiv.data(), kCpu), InvalidArgument, names("lda"));
    CHECK_THROWS_MATCHES(gesv(rt, 3, 4, A.data(), 3, ipiv.data(), B.data(), huge, kCpu), InvalidArgument, names("ldb"));
    QRFactors<double> f(rt, 4, 3, 2);
    CHECK_THROWS_MATCHES(geqrf(rt, 4, 3, A.data(), huge, f, kCpu), InvalidArgument, names("lda"));
    CHECK_THROWS_MATCHES(gels(rt, 4, 3, 3, A.data(), 4, B.data(), huge, kCpu), InvalidArgument, names("ldb"));
    TileMatrix<double> t(rt, 4, 3, 2);
    CHECK_THROWS_MATCHES(t.import(A.data(), huge), InvalidArgument, names("lda"));
    CHECK_THROWS_MATCHES(t.export_to(A.data(), huge), InvalidArgument, names("lda"));
    CHECK_THROWS_MATCHES((TileMatrix<double>(rt, 4, 3, 2, A.data(), huge)), InvalidArgument, names("ld"));
    // Entries that fit 64 bits but bytes that do not: (3 - 1) * 2^61 entries of 8 bytes.
    CHECK_THROWS_MATCHES(potrf(rt, 3, A.data(), huge / 2, kCpu), InvalidArgument, names("lda"));
}

TEST_CASE("the accuracy checks read arrays whose leading dimension is 2^31 or more", "[wide][cpu]") {
    const int64_t n = 23, nrhs = 2;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed), G = general(n, seed + 1);
    std::vector<double> B(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B.data(), n, seed + 2);
    // Answers computed by LAPACK on compact copies, then read through wide arrays by the checks.
    std::vector<double> L = A, X = B, F = G, Y = B, I = A;
    std::vector<lapack_int> p(static_cast<size_t>(n));
    namespace lapack = starfact::detail::cpu;
    REQUIRE(lapack::posv<double>(n, nrhs, L.data(), n, X.data(), n) == 0);
    REQUIRE(lapack::potrf<double>(n, I.data(), n) == 0);
    REQUIRE(lapack::potri<double>(n, I.data(), n) == 0);
    REQUIRE(lapack::gesv<double>(n, nrhs, F.data(), n, p.data(), Y.data(), n) == 0);
    const std::vector<int64_t> ipiv(p.begin(), p.end());
    WideArray<double> a(n, n, kWide + 1), l(n, n, kWide + 2), x(n, nrhs, kWide + 3), b(n, nrhs, kWide + 4),
        g(n, n, kWide + 5), f(n, n, kWide + 6), y(n, nrhs, kWide + 7), inv(n, n, kWide + 8);
    a.put(A);
    l.put(L);
    x.put(X);
    b.put(B);
    g.put(G);
    f.put(F);
    y.put(Y);
    inv.put(I);
    auto same = [](double wide, double compact) { return wide < kResidualLimit && wide == Approx(compact); };
    CHECK(same(potrf_residual<double>(n, a.data(), a.ld(), l.data(), l.ld()),
               potrf_residual<double>(n, A.data(), n, L.data(), n)));
    CHECK(same(solve_residual<double>(n, nrhs, a.data(), a.ld(), x.data(), x.ld(), b.data(), b.ld()),
               solve_residual<double>(n, nrhs, A.data(), n, X.data(), n, B.data(), n)));
    CHECK(same(potri_residual<double>(n, a.data(), a.ld(), inv.data(), inv.ld()),
               potri_residual<double>(n, A.data(), n, I.data(), n)));
    CHECK(same(getrf_residual<double>(n, g.data(), g.ld(), f.data(), f.ld(), ipiv.data()),
               getrf_residual<double>(n, G.data(), n, F.data(), n, ipiv.data())));
    CHECK(same(gesv_residual<double>(n, nrhs, g.data(), g.ld(), y.data(), y.ld(), b.data(), b.ld()),
               gesv_residual<double>(n, nrhs, G.data(), n, Y.data(), n, B.data(), n)));
}

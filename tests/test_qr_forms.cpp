// CPU tile QR's forms: the TileMatrix and async:: forms chained in one graph (geqrf, orgqr, ormqr from both sides)
// and the blocking forms with stats, for both precisions; bad arguments of every form named in InvalidArgument;
// QR from several threads at once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <thread>

#include "algorithms/plan_tables.hpp"  // the QR rules behind the plan
#include "tests/qr_support.hpp"

using namespace starfact::test::prelude;
using namespace starfact::test::qr;
using starfact::detail::qr_inner_block;

TEMPLATE_TEST_CASE("QR: TileMatrix and async forms chain in one graph", "[qr][cpu]", float, double) {
    using T = TestType;
    for (const char* tree : {"domains=2", "panel"}) {
        const uint64_t seed = fresh_seed();
        const bool panel = std::string(tree) == "panel";
        INFO("seed=" << seed << " tree=" << tree);
        const int64_t m = 150, n = 70, nb = 32;
        const std::vector<T> A = random_rect<T>(m, n, m, seed);
        TileMatrix<T> a(runtime(), m, n, nb), q(runtime(), m, n, nb), c(runtime(), m, 4, nb);
        a.import(A.data(), m);
        const std::vector<T> C = random_rect<T>(m, 4, m, seed + 3);
        c.import(C.data(), m);
        QRFactors<T> f(a, QrTree::parse(tree));
        CHECK_FALSE(f.factored());
        Sequence seq(runtime());
        async::geqrf(a, f, seq, on(Mapping::CpuOnly));
        async::orgqr(a, f, q, seq, on(Mapping::CpuOnly));
        async::ormqr(Side::Left, Trans::Transpose, a, f, c, seq, on(Mapping::CpuOnly));
        async::ormqr(Side::Left, Trans::NoTrans, a, f, c, seq, on(Mapping::CpuOnly));
        // From the right on a 5 x m matrix: (W Q) Q^T = W.
        const std::vector<T> W = random_rect<T>(5, m, 5, seed + 5);
        TileMatrix<T> w(runtime(), 5, m, nb);
        w.import(W.data(), 5);
        async::ormqr(Side::Right, Trans::NoTrans, a, f, w, seq, on(Mapping::CpuOnly));
        async::ormqr(Side::Right, Trans::Transpose, a, f, w, seq, on(Mapping::CpuOnly));
        CHECK(seq.wait() == 0);
        CHECK(f.factored());
        CHECK(f.domain_rows() == (panel ? a.mt() : 2));
        CHECK(f.panel() == panel);
        CHECK(f.ib() == (panel ? nb : qr_inner_block(nb, Mapping::CpuOnly, false)));
        std::vector<T> F(A.size()), Q(A.size()), D(C.size());
        a.export_to(F.data(), m);
        q.export_to(Q.data(), m);
        c.export_to(D.data(), m);
        CHECK(orthogonality_residual(m, n, Q.data(), m) < kResidualLimit);
        CHECK(qr_residual(m, n, A.data(), m, Q.data(), m, F.data(), m) < kResidualLimit);
        CHECK(scaled_difference(m, 4, D.data(), m, C.data(), m) < kResidualLimit);
        std::vector<T> V(W.size());
        w.export_to(V.data(), 5);
        CHECK(scaled_difference(5, m, V.data(), 5, W.data(), 5) < kResidualLimit);
        // The blocking forms with stats.
        a.import(A.data(), m);
        RunStats stats;
        geqrf(a, f, on(Mapping::CpuOnly), stats);
        CHECK(stats.tasks > 0);
    }
}

TEST_CASE("QR: bad arguments throw InvalidArgument naming them", "[qr][cpu][errors]") {
    Runtime& rt = runtime();
    auto names = [](const std::string& argument) {
        return Catch::Predicate<const InvalidArgument&>(
            [argument](const InvalidArgument& e) { return e.argument() == argument; }, "names " + argument);
    };
    CHECK_THROWS_MATCHES(QRFactors<double>(rt, -1, 0, 4), InvalidArgument, names("m"));
    CHECK_THROWS_MATCHES(QRFactors<double>(rt, 10, 5, -2), InvalidArgument, names("nb"));
    CHECK_THROWS_MATCHES(QRFactors<double>(rt, 10, 5, 4, QrTree{}, 5), InvalidArgument, names("ib"));
    // The panel tree forms one T per panel: an inner blocking below min(nb, n) is refused.
    CHECK_THROWS_MATCHES(QRFactors<double>(rt, 10, 5, 4, QrTree::parse("panel"), 2), InvalidArgument, names("ib"));
    CHECK_THROWS_WITH(QRFactors<double>(rt, 10, 5, 4, QrTree::parse("panel"), 2), Catch::Contains("panel tree"));
    TileMatrix<double> wide(rt, 10, 20, 4), a(rt, 20, 10, 4), other(rt, 21, 10, 4), c(rt, 20, 3, 4), c_bad(rt, 19, 3, 4),
        c_nb(rt, 20, 3, 5);
    QRFactors<double> f(a), g(other);
    CHECK_THROWS_MATCHES(geqrf(wide, f), InvalidArgument, names("T"));  // f is shaped for a, not for the wide one
    CHECK_THROWS_MATCHES(geqrf(a, g), InvalidArgument, names("T"));
    CHECK_THROWS_MATCHES(ormqr(Side::Left, Trans::Transpose, a, f, c), InvalidArgument, names("T"));  // not factored
    Options bad_variant;
    bad_variant.variant = Variant::parse("left");
    CHECK_THROWS_MATCHES(geqrf(a, f, bad_variant), InvalidArgument, names("variant"));
    {  // a's tiles hold whatever their memory held: give it values, so that geqrf factors rather than breaks down
        std::vector<double> values(static_cast<size_t>(20 * 10));
        random_matrix<double>(20, 10, values.data(), 20, fresh_seed());
        a.import(values.data(), 20);
    }
    geqrf(a, f, on(Mapping::CpuOnly));
    CHECK_THROWS_MATCHES(ormqr(Side::Left, Trans::Transpose, a, f, c_bad), InvalidArgument, names("C"));
    CHECK_THROWS_MATCHES(ormqr(Side::Left, Trans::Transpose, a, f, c_nb), InvalidArgument, names("C"));
    // From the right C must have A's m columns: c (20 x 3) has not, c_wide (3 x 19) neither; another tile size.
    TileMatrix<double> c_wide(rt, 3, 19, 4), c_right_nb(rt, 3, 20, 5), c_right(rt, 3, 20, 4);
    CHECK_THROWS_MATCHES(ormqr(Side::Right, Trans::NoTrans, a, f, c), InvalidArgument, names("C"));
    CHECK_THROWS_MATCHES(ormqr(Side::Right, Trans::Transpose, a, f, c_wide), InvalidArgument, names("C"));
    CHECK_THROWS_MATCHES(ormqr(Side::Right, Trans::NoTrans, a, f, c_right_nb), InvalidArgument, names("C"));
    CHECK_THROWS_WITH(ormqr(Side::Right, Trans::NoTrans, a, f, c), Catch::Contains("as many columns as A has rows"));
    ormqr(Side::Right, Trans::NoTrans, a, f, c_right, on(Mapping::CpuOnly));
    CHECK_THROWS_MATCHES(orgqr(a, f, c), InvalidArgument, names("Q"));
    CHECK_THROWS_MATCHES(gels(a, f, c_bad), InvalidArgument, names("B"));
    // A wide A's least squares factor A^T: T shaped for it (f is: a is wide^T's shape), B of max(m, n) rows.
    CHECK_THROWS_MATCHES(gels(wide, g, c), InvalidArgument, names("T"));
    CHECK_THROWS_WITH(gels(wide, g, c), Catch::Contains("shaped for A^T"));
    CHECK_THROWS_MATCHES(gels(wide, f, c_bad), InvalidArgument, names("B"));
    Options gpu;
    gpu.mapping = Mapping::GpuOnly;
    CHECK_THROWS_MATCHES(geqrf(a, f, gpu), InvalidArgument, names("mapping"));
    // Array forms.
    std::vector<double> A(400, 1.0), B(400, 1.0);
    CHECK_THROWS_MATCHES(gels(rt, 10, 20, 1, A.data(), 10, B.data(), 10), InvalidArgument, names("ldb"));  // < n
    CHECK_THROWS_MATCHES(gels(rt, 20, 10, 1, A.data(), 19, B.data(), 20), InvalidArgument, names("lda"));
    CHECK_THROWS_MATCHES(gels(rt, 20, 10, 1, A.data(), 20, B.data(), 19), InvalidArgument, names("ldb"));
    CHECK_THROWS_MATCHES(gels(rt, 20, 10, -1, A.data(), 20, B.data(), 20), InvalidArgument, names("nrhs"));
    CHECK_THROWS_MATCHES(gels<double>(rt, 20, 10, 1, nullptr, 20, B.data(), 20), InvalidArgument, names("A"));
    QRFactors<double> h(rt, 20, 10, 4);
    CHECK_THROWS_MATCHES(geqrf(rt, 20, 9, A.data(), 20, h), InvalidArgument, names("T"));
    CHECK_THROWS_MATCHES(geqrf(rt, 20, 10, A.data(), 20, h, {}, Tiling{8}), InvalidArgument, names("tiling"));
    CHECK_THROWS_MATCHES(geqrf(rt, 10, 20, A.data(), 10, h), InvalidArgument, names("T"));
    CHECK_THROWS_MATCHES(orgqr(rt, 20, 10, A.data(), 20, h, B.data(), 19), InvalidArgument, names("ldq"));
    CHECK_THROWS_MATCHES(ormqr(rt, Side::Left, Trans::NoTrans, 20, 1, A.data(), 20, h, B.data(), 20), InvalidArgument,
                         names("T"));
    std::vector<double> F(400, 0.0);
    for (int64_t i = 0; i < 20; ++i) F[static_cast<size_t>(i * 21)] = 1.0;
    geqrf(rt, 20, 10, F.data(), 20, h, on(Mapping::CpuOnly));
    // From the right C is nrhs x m: ldc >= nrhs (3), not m.
    CHECK_THROWS_MATCHES(ormqr(rt, Side::Right, Trans::NoTrans, 20, 3, F.data(), 20, h, B.data(), 2), InvalidArgument,
                         names("ldc"));
    ormqr(rt, Side::Right, Trans::NoTrans, 20, 3, F.data(), 20, h, B.data(), 3, on(Mapping::CpuOnly));
    // Empty problems are no-ops.
    QRFactors<double> empty(rt, 0, 0, 4);
    geqrf<double>(rt, 0, 0, nullptr, 1, empty);
    CHECK(gels<double>(rt, 5, 0, 2, nullptr, 5, B.data(), 5) == 0);
    // A 0 x 4 A: the minimum-norm solution is 0, as LAPACK's (B has max(m, n) = 4 rows).
    CHECK(gels<double>(rt, 0, 4, 2, nullptr, 1, B.data(), 4) == 0);
    CHECK(std::all_of(B.begin(), B.begin() + 8, [](double x) { return x == 0.0; }));
}

TEST_CASE("QR from several threads at once", "[qr][cpu][threads]") {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    constexpr int kThreads = 4;
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            try {
                const char* trees[] = {"flat", "binary", "domains=2", "auto"};
                Options o;
                o.mapping = Mapping::CpuOnly;
                for (int rep = 0; rep < 3; ++rep) {
                    const QrCheck c = check_qr<double>(runtime(), 60 + 11 * t, 25 + 3 * rep, 8,
                                                       QrTree::parse(trees[t]), 0, o, o, seed + 100 * t + rep);
                    if (!c.failure().empty()) failures[static_cast<size_t>(t)] += c.failure();
                }
            } catch (const std::exception& e) {
                failures[static_cast<size_t>(t)] += e.what();
            }
        });
    for (std::thread& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
        INFO("thread " << t);
        CHECK(failures[static_cast<size_t>(t)].empty());
    }
}

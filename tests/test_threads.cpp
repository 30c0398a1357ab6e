// Concurrent submission into one Runtime: eight threads, each on its own matrices, run every operation of the
// API (potrf with every option, posv, potri, getrf, getrf_nopiv, gesv, batched::posv) in its blocking, async::
// and LAPACK-array forms on small random matrices cut into several tiles, a quarter of them failing (non-SPD or
// singular), and check every result in the thread that made it; then threads solving with one shared factor,
// and threads pausing the workers at once. Catch2's assertions are not thread-safe: the threads collect what
// went wrong and the test reports it after the join. STARFACT_TEST_SEED=<base seed> (tests/seeds.hpp) repeats a
// run's operations (their interleaving is the scheduler's).
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "starfact/batched_cholesky.hpp"
#include "tests/support.hpp"
#include "tests/thread_worker.hpp"

using namespace starfact::test::prelude;

namespace {

using namespace starfact::test::threads;

/// Runs body(thread index) on kThreads threads at once and returns every failure they reported.
template <typename Body>
std::vector<std::string> on_threads(Body body) {
    std::vector<std::vector<std::string>> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            try {
                failures[static_cast<size_t>(t)] = body(t);
            } catch (const std::exception& e) {
                failures[static_cast<size_t>(t)].push_back("thread " + std::to_string(t) + " threw: " + e.what());
            }
        });
    for (auto& th : threads) th.join();
    std::vector<std::string> all;
    for (const auto& f : failures) all.insert(all.end(), f.begin(), f.end());
    return all;
}

void report(const std::vector<std::string>& failures) {
    for (size_t i = 0; i < failures.size() && i < 20; ++i) UNSCOPED_INFO(failures[i]);
    CHECK(failures.empty());
}

}  // namespace

TEST_CASE("eight threads submit every operation in every form into one Runtime", "[threads][cpu]") {
    Runtime& rt = runtime();
    const uint64_t seed = run_seed("threads");
    INFO("seed=" << seed << " (STARFACT_TEST_SEED=" << base_seed() << " repeats the operations)");
    INFO(kThreads << " threads x " << kOperations << " operations, scheduler " << rt.scheduler()
                  << (rt.tracing() ? ", steps marked for the trace" : ""));
    report(on_threads([&](int t) {
        Worker w(rt, seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(t + 1), t);
        w.run(kOperations);
        return w.failures();
    }));
    CHECK(settled_pending_tasks(rt) == 0);
}

TEMPLATE_TEST_CASE("threads solve with one shared factor at once", "[threads][cpu]", float, double) {
    // A factor only read by the solves (potrs and getrs read L, U and the pivots): StarPU runs the readers of a
    // tile concurrently once its writer has completed, whichever thread submitted them.
    using T = TestType;
    Runtime& rt = runtime();
    const uint64_t seed = run_seed("shared factor");
    INFO("seed=" << seed);
    const int64_t n = 61, nb = 9, nrhs = 2, solves = 40;
    Options o;
    o.mapping = Mapping::CpuOnly;
    const std::vector<T> S = spd_matrix<T>(n, n, seed);
    std::vector<T> G(static_cast<size_t>(n * n));
    random_matrix<T>(n, n, G.data(), n, seed + 1);
    TileMatrix<T> L(rt, n, nb), LU(rt, n, nb);
    L.import(S.data(), n);
    LU.import(G.data(), n);
    Pivots piv(LU);
    REQUIRE(potrf(L, o) == 0);
    REQUIRE(getrf(LU, piv, o) == 0);
    report(on_threads([&](int t) {
        std::vector<std::string> failures;
        Sequence seq(rt);
        for (int64_t s = 0; s < solves; ++s) {
            std::vector<T> B(static_cast<size_t>(n * nrhs)), X(B.size());
            random_matrix<T>(n, nrhs, B.data(), n, seed + 2 + static_cast<uint64_t>(t * solves + s));
            TileMatrix<T> b(rt, n, nrhs, nb);
            b.import(B.data(), n);
            const bool cholesky = s % 2 == 0, async = s % 4 < 2;
            if (cholesky && async) async::potrs(L, b, seq, o);
            if (cholesky && !async) potrs(L, b, o);
            if (!cholesky && async) async::getrs(LU, piv, b, seq, o);
            if (!cholesky && !async) getrs(LU, piv, b, o);
            if (async) seq.wait();
            b.export_to(X.data(), n);
            const double r = cholesky ? solve_residual<T>(n, nrhs, S.data(), n, X.data(), n, B.data(), n)
                                      : gesv_residual<T>(n, nrhs, G.data(), n, X.data(), n, B.data(), n);
            if (!(r < kResidualLimit))
                failures.push_back("thread " + std::to_string(t) + " solve " + std::to_string(s) + " (" +
                                   (cholesky ? "potrs" : "getrs") + (async ? " async" : "") + "): residual " +
                                   std::to_string(r));
        }
        return failures;
    }));
    CHECK(settled_pending_tasks(rt) == 0);
}

TEST_CASE("threads pause and resume the workers at once", "[threads][cpu]") {
    // StarPU 1.3 counts pauses with an unlocked increment: Runtime::pause and resume serialize their calls, so
    // that after concurrent ones a pause still holds the workers and a resume lets them go. Each round checks
    // with a factorization of 35 tasks chained by their tiles (a worker already past its pause check may start
    // one of them, never the whole graph).
    Runtime& rt = runtime();
    const int64_t n = 40, nb = 8;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    TileMatrix<double> a(rt, n, nb);
    Options o;
    o.mapping = Mapping::CpuOnly;
    for (int round = 0; round < 20; ++round) {
        INFO("round " << round);
        report(on_threads([&](int) {
            for (int i = 0; i < 2000; ++i) Runtime::Paused paused(rt);
            return std::vector<std::string>{};
        }));
        a.import(A.data(), n);
        Sequence seq(rt);
        bool held = false, ran = false;
        {
            Runtime::Paused paused(rt);
            async::potrf(a, seq, o);
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            held = !seq.done();
        }
        for (int i = 0; i < 10000 && !(ran = seq.done()); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        for (int i = 0; i < 1000 && !seq.done(); ++i) rt.resume();  // left asleep: wake them, to report
        CHECK(seq.wait() == 0);
        CHECK(held);
        CHECK(ran);
        if (!held || !ran) break;
    }
}

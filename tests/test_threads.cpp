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

using namespace starfact::test::prelude;

namespace {

constexpr int kThreads = 8;
constexpr int kOperations = 1000;  // per thread: 10 to 20 s in all under each scheduler on two cores
constexpr int64_t kMaxOrder = 64;

/// The seed of the whole test case (fresh_seed(), from STARFACT_TEST_SEED); printed with the base seed that
/// repeats it before the threads start (an abort in StarPU would take Catch2's report with it).
uint64_t run_seed(const char* test) {
    const uint64_t seed = fresh_seed();
    std::printf("%s: seed %llu (STARFACT_TEST_SEED=%llu repeats its operations)\n", test,
                static_cast<unsigned long long>(seed), static_cast<unsigned long long>(base_seed()));
    std::fflush(stdout);
    return seed;
}

enum class Kind { Potrf, Posv, Potri, Getrf, Gesv, Batched };
enum class Form { Blocking, Async, Array };

const char* name(Kind k) {
    switch (k) {
        case Kind::Potrf: return "potrf";
        case Kind::Posv: return "posv";
        case Kind::Potri: return "potri";
        case Kind::Getrf: return "getrf";
        case Kind::Gesv: return "gesv";
        case Kind::Batched: return "batched::posv";
    }
    return "?";
}
const char* name(Form f) { return f == Form::Blocking ? "blocking" : f == Form::Async ? "async" : "array"; }

/// One operation, drawn from its thread's generator; describe() is what a failure prints.
struct Case {
    Kind kind = Kind::Potrf;
    Form form = Form::Blocking;
    bool dbl = true;
    int64_t n = 0, nb = 1, nrhs = 1, ld = 0;
    int64_t bad = -1;        // the failing column (0-based): non-SPD diagonal or zero column; -1: none
    bool variation = false;  // potrf/potri: RunStats overload; posv/gesv async: factor then solve, not the driver;
                             // getrf: without pivoting; batched: one member per chunk
    uint64_t seed = 0;
    Options opts;

    int expected() const { return bad < 0 ? 0 : static_cast<int>(bad + 1); }
    bool lu() const { return kind == Kind::Getrf || kind == Kind::Gesv; }
    /// Asks for the fused diagonal kernel where this build has none: must throw naming 'diag'.
    bool refused() const {
        return (kind == Kind::Potrf || kind == Kind::Posv || kind == Kind::Potri) && opts.diag == DiagKernel::Fused &&
               !have_fused_potf2();
    }
    std::string describe() const {
        std::ostringstream os;
        os << name(kind) << " " << name(form) << (dbl ? " double" : " float") << " n=" << n << " nb=" << nb
           << " ld=" << ld << " nrhs=" << nrhs << " bad=" << bad << " variation=" << variation
           << " matrix seed=" << seed << " mapping=" << to_string(opts.mapping) << " variant=" << opts.variant.name()
           << " panel=" << to_string(opts.panel) << " diag=" << to_string(opts.diag);
        return os.str();
    }
};

Case draw(std::mt19937_64& rng) {
    auto pick = [&](int k) { return static_cast<int>(rng() % static_cast<uint64_t>(k)); };
    Case c;
    c.kind = static_cast<Kind>(pick(6));
    c.form = static_cast<Form>(pick(3));
    c.dbl = pick(2) == 1;
    c.n = 1 + pick(kMaxOrder);
    c.nb = 3 + pick(14);  // 3 .. 16: several tiles, the last one mostly partial
    c.ld = c.n + pick(3);
    c.nrhs = 1 + pick(4);
    c.variation = pick(3) == 0;
    c.seed = rng();
    c.opts.mapping = pick(2) ? Mapping::CpuOnly : Mapping::Hybrid;
    if (c.lu()) {
        c.opts.variant.kind = pick(2) ? Variant::Kind::Right : Variant::Kind::NoPrio;
    } else {
        const Variant::Kind kinds[] = {Variant::Kind::Right, Variant::Kind::Lookahead, Variant::Kind::Left,
                                       Variant::Kind::LeftCoarse, Variant::Kind::NoPrio};
        c.opts.variant.kind = kinds[pick(5)];
        c.opts.variant.depth = pick(4);
        const PanelSolve panels[] = {PanelSolve::Auto, PanelSolve::Trsm, PanelSolve::Inverse};
        c.opts.panel = panels[pick(3)];
        const DiagKernel diags[] = {DiagKernel::Auto, DiagKernel::Cusolver, DiagKernel::Fused};
        c.opts.diag = pick(8) == 0 ? diags[2] : diags[pick(2)];
    }
    const bool nopiv = c.kind == Kind::Getrf && c.variation;
    if (pick(4) == 0 && !nopiv) c.bad = pick(static_cast<int>(c.n));
    return c;
}

/// One submitting thread: its generator, its long-lived Sequence (reused by every async operation), and what
/// went wrong.
class Worker {
public:
    Worker(Runtime& rt, uint64_t seed, int id) : rt_(rt), rng_(seed), id_(id), seq_(rt) {}

    void run(int operations) {
        for (op_ = 0; op_ < operations; ++op_) {
            const Case c = draw(rng_);
            try {
                const bool refused = c.refused();
                bool threw_diag = false;
                try {
                    c.dbl ? one<double>(c) : one<float>(c);
                } catch (const InvalidArgument& e) {
                    if (!refused || e.argument() != "diag") throw;
                    threw_diag = true;
                }
                expect(!refused || threw_diag, c, "fused diag in a build without it did not throw");
            } catch (const std::exception& e) {
                expect(false, c, std::string("threw: ") + e.what());
            }
        }
    }
    const std::vector<std::string>& failures() const { return failures_; }

private:
    template <typename T>
    void one(const Case& c) {
        switch (c.kind) {
            case Kind::Potrf: return potrf_case<T>(c);
            case Kind::Posv: return posv_case<T>(c);
            case Kind::Potri: return potri_case<T>(c);
            case Kind::Getrf: return getrf_case<T>(c);
            case Kind::Gesv: return gesv_case<T>(c);
            case Kind::Batched: return batched_case<T>(c);
        }
    }

    void expect(bool ok, const Case& c, const std::string& what) {
        if (!ok && failures_.size() < 20)
            failures_.push_back("thread " + std::to_string(id_) + " operation " + std::to_string(op_) + " (" +
                                c.describe() + "): " + what);
    }
    void expect_info(int info, const Case& c) {
        expect(info == c.expected(),
               c, "info " + std::to_string(info) + ", expected " + std::to_string(c.expected()));
    }
    void expect_residual(double r, const Case& c, const char* which) {
        expect(r < kResidualLimit, c, std::string(which) + " residual " + std::to_string(r));
    }

    /// An SPD matrix (leading dimension c.ld), non-SPD at column c.bad when set: leading minor c.bad + 1 fails.
    template <typename T>
    std::vector<T> spd(const Case& c) const {
        std::vector<T> A = spd_matrix<T>(c.n, c.ld, c.seed);
        if (c.bad >= 0) A[c.bad + c.bad * c.ld] = T(-1);
        return A;
    }
    /// A random general matrix, with column c.bad zero when set: U(bad, bad) is then exactly zero (every
    /// update of that column subtracts products with zeros) and info = bad + 1.
    template <typename T>
    std::vector<T> general(const Case& c) const {
        std::vector<T> A(static_cast<size_t>(c.ld * c.n), T(-777));
        random_matrix<T>(c.n, c.n, A.data(), c.ld, c.seed);
        if (c.bad >= 0)
            for (int64_t i = 0; i < c.n; ++i) A[i + c.bad * c.ld] = T(0);
        return A;
    }
    template <typename T>
    std::vector<T> rhs(const Case& c) const {
        std::vector<T> B(static_cast<size_t>(c.n * c.nrhs));
        random_matrix<T>(c.n, c.nrhs, B.data(), c.n, c.seed + 1);
        return B;
    }

    /// The operation index's info, after waiting on the thread's sequence (whose wait() also reports the
    /// failures of earlier operations: it is reused).
    int waited(int op) {
        seq_.wait();
        return seq_.info(op);
    }

    template <typename T>
    void potrf_case(const Case& c) {
        const std::vector<T> A = spd<T>(c);
        std::vector<T> L = A;
        int info = -1;
        if (c.form == Form::Array) {
            info = potrf(rt_, c.n, L.data(), c.ld, c.opts, Tiling{c.nb});
        } else {
            TileMatrix<T> a(rt_, c.n, c.nb);
            a.import(A.data(), c.ld);
            if (c.form == Form::Async) {
                info = waited(async::potrf(a, seq_, c.opts));
            } else if (c.variation) {
                RunStats stats;
                info = potrf(a, c.opts, stats);
                expect(stats.tasks >= a.mt(), c, "RunStats counted " + std::to_string(stats.tasks) + " tasks");
            } else {
                info = potrf(a, c.opts);
            }
            a.export_to(L.data(), c.ld);
        }
        expect_info(info, c);
        if (c.bad < 0) expect_residual(potrf_residual<T>(c.n, A.data(), c.ld, L.data(), c.ld), c, "potrf");
    }

    template <typename T>
    void posv_case(const Case& c) {
        const std::vector<T> A = spd<T>(c), B = rhs<T>(c);
        std::vector<T> X = B;
        int info = -1;
        if (c.form == Form::Array) {
            std::vector<T> F = A;
            info = posv(rt_, c.n, c.nrhs, F.data(), c.ld, X.data(), c.n, c.opts, Tiling{c.nb});
        } else {
            TileMatrix<T> a(rt_, c.n, c.nb), b(rt_, c.n, c.nrhs, c.nb);
            a.import(A.data(), c.ld);
            b.import(B.data(), c.n);
            if (c.form == Form::Blocking) {
                info = posv(a, b, c.opts);
            } else if (c.variation) {
                const int op = async::potrf(a, seq_, c.opts);
                async::potrs(a, b, seq_, c.opts);
                info = waited(op);
            } else {
                info = waited(async::posv(a, b, seq_, c.opts));
            }
            b.export_to(X.data(), c.n);
        }
        expect_info(info, c);
        if (c.bad < 0)
            expect_residual(solve_residual<T>(c.n, c.nrhs, A.data(), c.ld, X.data(), c.n, B.data(), c.n), c, "posv");
        else if (c.form != Form::Async)
            expect(X == B, c, "B was written although the factorization failed");
    }

    template <typename T>
    void potri_case(const Case& c) {
        const std::vector<T> A = spd<T>(c);
        std::vector<T> X = A;
        int info = -1;
        if (c.form == Form::Array) {
            info = potri(rt_, c.n, X.data(), c.ld, c.opts, Tiling{c.nb});
        } else {
            TileMatrix<T> a(rt_, c.n, c.nb);
            a.import(A.data(), c.ld);
            if (c.form == Form::Async) {
                const int op = async::potri(a, seq_, c.opts);
                info = waited(op);
                if (info == 0) info = seq_.info(op + 1);  // trtri's
            } else if (c.variation) {
                RunStats stats;
                info = potri(a, c.opts, stats);
                expect(stats.tasks >= 3 * a.mt(), c, "RunStats counted " + std::to_string(stats.tasks) + " tasks");
            } else {
                info = potri(a, c.opts);
            }
            a.export_to(X.data(), c.ld);
        }
        expect_info(info, c);
        if (c.bad < 0) expect_residual(potri_residual<T>(c.n, A.data(), c.ld, X.data(), c.ld), c, "potri");
    }

    template <typename T>
    void getrf_case(const Case& c) {
        const bool nopiv = c.variation && c.form != Form::Array;
        const std::vector<T> A = nopiv ? spd<T>(c) : general<T>(c);  // nopiv: diagonally dominant
        std::vector<T> LU = A;
        std::vector<int64_t> ipiv(static_cast<size_t>(c.n), -1);
        int info = -1;
        if (c.form == Form::Array) {
            info = getrf(rt_, c.n, LU.data(), c.ld, ipiv.data(), c.opts, Tiling{c.nb});
        } else {
            TileMatrix<T> a(rt_, c.n, c.nb);
            a.import(A.data(), c.ld);
            Pivots piv(a);
            if (nopiv)
                info = c.form == Form::Async ? waited(async::getrf_nopiv(a, seq_, c.opts)) : getrf_nopiv(a, c.opts);
            else
                info = c.form == Form::Async ? waited(async::getrf(a, piv, seq_, c.opts)) : getrf(a, piv, c.opts);
            a.export_to(LU.data(), c.ld);
            ipiv = piv.ipiv();  // the identity without pivoting
        }
        expect_info(info, c);
        // Complete even when singular: P A = L U holds, with no NaN.
        expect_residual(getrf_residual<T>(c.n, A.data(), c.ld, LU.data(), c.ld, ipiv.data()), c, "getrf");
    }

    template <typename T>
    void gesv_case(const Case& c) {
        const std::vector<T> A = general<T>(c), B = rhs<T>(c);
        std::vector<T> X = B;
        int info = -1;
        if (c.form == Form::Array) {
            std::vector<T> F = A;
            std::vector<int64_t> ipiv(static_cast<size_t>(c.n));
            info = gesv(rt_, c.n, c.nrhs, F.data(), c.ld, ipiv.data(), X.data(), c.n, c.opts, Tiling{c.nb});
        } else {
            TileMatrix<T> a(rt_, c.n, c.nb), b(rt_, c.n, c.nrhs, c.nb);
            a.import(A.data(), c.ld);
            b.import(B.data(), c.n);
            Pivots piv(a);
            if (c.form == Form::Blocking) {
                info = gesv(a, piv, b, c.opts);
            } else if (c.variation) {
                const int op = async::getrf(a, piv, seq_, c.opts);
                async::getrs(a, piv, b, seq_, c.opts);
                info = waited(op);
            } else {
                info = waited(async::gesv(a, piv, b, seq_, c.opts));
            }
            b.export_to(X.data(), c.n);
        }
        expect_info(info, c);
        if (c.bad < 0)
            expect_residual(gesv_residual<T>(c.n, c.nrhs, A.data(), c.ld, X.data(), c.n, B.data(), c.n), c, "gesv");
        else if (c.form != Form::Async)
            expect(X == B, c, "B was written although the factorization failed");
    }

    /// Blocking only. A batch of 1 to 6 SPD members of order n, the last one non-SPD at column c.bad when set.
    template <typename T>
    void batched_case(const Case& c) {
        const int64_t batch = 1 + static_cast<int64_t>(c.seed % 6), strideA = c.ld * c.n, strideB = c.n * c.nrhs;
        std::vector<T> A(static_cast<size_t>(batch * strideA)), B(static_cast<size_t>(batch * strideB));
        for (int64_t i = 0; i < batch; ++i) {
            Case member = c;
            member.seed = c.seed + static_cast<uint64_t>(i);
            member.bad = i == batch - 1 ? c.bad : -1;
            const std::vector<T> Ai = spd<T>(member), Bi = rhs<T>(member);
            std::copy(Ai.begin(), Ai.end(), A.begin() + i * strideA);
            std::copy(Bi.begin(), Bi.end(), B.begin() + i * strideB);
        }
        std::vector<T> F = A, X = B;
        std::vector<int> info(static_cast<size_t>(batch), -1);
        batched::Options o;
        o.mapping = c.opts.mapping;
        o.chunk = c.variation ? 1 : 0;
        const int64_t failed =
            batched::posv<T>(rt_, c.n, c.nrhs, F.data(), c.ld, strideA, X.data(), c.n, strideB, info.data(), batch, o);
        expect(failed == (c.bad < 0 ? 0 : 1), c, "batch of " + std::to_string(batch) + ": " + std::to_string(failed) +
                                                     " members failed");
        for (int64_t i = 0; i < batch; ++i) {
            const int expected = i == batch - 1 ? c.expected() : 0;
            const T* a = A.data() + i * strideA;
            const T* b = B.data() + i * strideB;
            const T* x = X.data() + i * strideB;
            expect(info[static_cast<size_t>(i)] == expected,
                   c, "member " + std::to_string(i) + ": info " + std::to_string(info[static_cast<size_t>(i)]) +
                          ", expected " + std::to_string(expected));
            if (expected == 0)
                expect_residual(solve_residual<T>(c.n, c.nrhs, a, c.ld, x, c.n, b, c.n), c, "batched::posv");
            else
                expect(std::equal(b, b + strideB, x), c, "B of the failed member was written");
        }
    }

    Runtime& rt_;
    std::mt19937_64 rng_;
    int id_;
    int op_ = 0;  // the operation being run, for the failure messages
    Sequence seq_;
    std::vector<std::string> failures_;
};

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

// The submitting side of tests/test_threads.cpp: one operation drawn at random (Case: every operation of the API in
// its blocking, async:: and LAPACK-array forms, a quarter of them failing) and the thread that runs and checks
// a stream of them (Worker), collecting what went wrong instead of asserting (Catch2 is not thread-safe).
#pragma once
#include <algorithm>
#include <cstdio>
#include <exception>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "starfact/batched_cholesky.hpp"
#include "tests/support.hpp"

namespace starfact::test::threads {

using namespace starfact::test::prelude;

inline constexpr int kThreads = 8;
inline constexpr int kOperations = 1000;  // per thread: 10 to 20 s in all under each scheduler on two cores
inline constexpr int64_t kMaxOrder = 64;

/// The seed of the whole test case (fresh_seed(), from STARFACT_TEST_SEED); printed with the base seed that
/// repeats it before the threads start (an abort in StarPU would take Catch2's report with it).
inline uint64_t run_seed(const char* test) {
    const uint64_t seed = fresh_seed();
    std::printf("%s: seed %llu (STARFACT_TEST_SEED=%llu repeats its operations)\n", test,
                static_cast<unsigned long long>(seed), static_cast<unsigned long long>(base_seed()));
    std::fflush(stdout);
    return seed;
}

enum class Kind { Potrf, Posv, Potri, Getrf, Gesv, Batched };
enum class Form { Blocking, Async, Array };

inline const char* name(Kind k) {
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
inline const char* name(Form f) { return f == Form::Blocking ? "blocking" : f == Form::Async ? "async" : "array"; }

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
           << " panel=" << to_string(opts.panel) << " diag=" << to_string(opts.diag)
           << " factor=" << to_string(opts.factor);
        return os.str();
    }
};

inline Case draw(std::mt19937_64& rng) {
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
    // A third of the blocking and array double solves take the mixed-precision path (a float factor refined to
    // double accuracy, or the double fall-back where the matrix is not SPD).
    if (c.kind == Kind::Posv && c.dbl && c.form != Form::Async && pick(3) == 0)
        c.opts.factor = pick(2) ? Precision::Fp32 : Precision::Tf32;
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

    /// A factorization in place of the SPD matrix of c (potrf, potri) in c.form, into X; returns its info. The
    /// forms: array(X), async_form(a) (its info, waited for), blocking(a, stats) (stats: null, or the RunStats
    /// overload's, which must count at least tasks_per_row tasks per tile row).
    template <typename T, typename Array, typename Async, typename Blocking>
    int in_place(const Case& c, const std::vector<T>& A, std::vector<T>& X, int64_t tasks_per_row, Array array,
                 Async async_form, Blocking blocking) {
        if (c.form == Form::Array) return array(X.data());
        TileMatrix<T> a(rt_, c.n, c.nb);
        a.import(A.data(), c.ld);
        int info = -1;
        if (c.form == Form::Async) {
            info = async_form(a);
        } else if (c.variation) {
            RunStats stats;
            info = blocking(a, &stats);
            expect(stats.tasks >= tasks_per_row * a.mt(), c,
                   "RunStats counted " + std::to_string(stats.tasks) + " tasks");
        } else {
            info = blocking(a, nullptr);
        }
        a.export_to(X.data(), c.ld);
        return info;
    }

    template <typename T>
    void potrf_case(const Case& c) {
        const std::vector<T> A = spd<T>(c);
        std::vector<T> L = A;
        const int info = in_place<T>(
            c, A, L, 1, [&](T* X) { return potrf(rt_, c.n, X, c.ld, c.opts, Tiling{c.nb}); },
            [&](TileMatrix<T>& a) { return waited(async::potrf(a, seq_, c.opts)); },
            [&](TileMatrix<T>& a, RunStats* stats) { return stats ? potrf(a, c.opts, *stats) : potrf(a, c.opts); });
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
        const int info = in_place<T>(
            c, A, X, 3, [&](T* Y) { return potri(rt_, c.n, Y, c.ld, c.opts, Tiling{c.nb}); },
            [&](TileMatrix<T>& a) {
                const int op = async::potri(a, seq_, c.opts);
                const int potrf_info = waited(op);
                return potrf_info == 0 ? seq_.info(op + 1) : potrf_info;  // then trtri's
            },
            [&](TileMatrix<T>& a, RunStats* stats) { return stats ? potri(a, c.opts, *stats) : potri(a, c.opts); });
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

}  // namespace starfact::test::threads

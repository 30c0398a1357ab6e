// LS-SVM training and prediction as StarPU task graphs over starfact tiles:
//   assemble:  for J, for I >= J:  gram  H[I][J] := k(X_I, X_J) (+ I/C on the diagonal)
//   factor:    async::potrf(H)                           (starfact's tile Cholesky)
//   solve:     async::potrs(H, B), B = [1, y_1 .. y_m]   (the forward solve follows the factorization column by column)
//   predict:   for I, for J:  apply  S[I] += k(T_I, X_J) B[J]   (test kernel tiles never stored)
// all submitted before the first wait, each phase in its own Sequence so that its completion time can be read.
// The conjugate-gradient solver replaces factor + solve by iterations of tile products on the same H.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>

#include "blocks.hpp"
#include "codelets.hpp"
#include "lssvm.hpp"

namespace lssvm {

using starfact::InvalidArgument;
using starfact::Mapping;
using starfact::Residency;
using starfact::Sequence;
using starfact::TileMatrix;

Engine::Engine(starfact::Runtime& rt)
    : rt_(rt), s_(std::make_unique<Codelets<float>>()), d_(std::make_unique<Codelets<double>>()) {}
Engine::~Engine() = default;
template <> const Codelets<float>& Engine::codelets<float>() const { return *s_; }
template <> const Codelets<double>& Engine::codelets<double>() const { return *d_; }

KernelType parse_kernel(const std::string& s) {
    if (s == "rbf") return KernelType::Rbf;
    if (s == "linear") return KernelType::Linear;
    throw std::invalid_argument("--kernel must be rbf or linear (got '" + s + "')");
}
const char* to_string(KernelType k) { return k == KernelType::Rbf ? "rbf" : "linear"; }

double effective_gamma(const Hyper& h, const Dataset& train) {
    if (h.gamma > 0) return h.gamma;
    double sum = 0, sq = 0;
    for (double v : train.X) {
        sum += v;
        sq += v * v;
    }
    const double n = static_cast<double>(train.X.size());
    const double var = n > 0 ? sq / n - (sum / n) * (sum / n) : 0;
    return var > 0 && train.d > 0 ? 1.0 / (static_cast<double>(train.d) * var) : 1.0;
}

double accuracy(const std::vector<int>& pred, const std::vector<int>& truth) {
    if (truth.empty()) return 0;
    size_t ok = 0;
    for (size_t i = 0; i < truth.size(); ++i) ok += pred[i] == truth[i];
    return static_cast<double>(ok) / static_cast<double>(truth.size());
}

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void validate(const Dataset& train, const Dataset& test, const Hyper& h, const RunOptions& o, const char* fn) {
    starfact::require(h.C > 0 && std::isfinite(h.C), fn, "C", "must be a positive number (got " + std::to_string(h.C) + ")");
    starfact::require(h.kernel != KernelType::Rbf || std::isfinite(h.gamma), fn, "gamma", "must be finite");
    starfact::require(train.n >= 2, fn, "train", "needs at least 2 samples (got " + std::to_string(train.n) + ")");
    starfact::require(train.classes() >= 2, fn, "train", "needs at least 2 classes");
    starfact::require(static_cast<int64_t>(train.y.size()) == train.n, fn, "train", "has a label count unlike its sample count");
    starfact::require(test.n == 0 || test.d == train.d, fn, "test",
                      "has " + std::to_string(test.d) + " features, the training set " + std::to_string(train.d));
    starfact::require(o.nb == 0 || o.nb >= 16, fn, "nb", "must be 0 (tuned) or >= 16 (got " + std::to_string(o.nb) + ")");
    starfact::require(o.cg_tol > 0 && o.cg_tol < 1, fn, "cg_tol", "must be in (0, 1)");
    starfact::require(o.cg_maxit >= 1, fn, "cg_maxit", "must be >= 1");
}

/// [1, y_1 .. y_m] with y_c = +1 for class c, -1 otherwise: column-major n x (1 + m).
std::vector<double> right_hand_sides(const Dataset& train) {
    const int64_t n = train.n, m = train.classes();
    std::vector<double> r(static_cast<size_t>(n * (m + 1)), -1.0);
    for (int64_t i = 0; i < n; ++i) {
        r[i] = 1.0;
        r[i + (1 + train.y[i]) * n] = 1.0;
    }
    return r;
}

}  // namespace

void finish(Result& res, const std::vector<double>& sol, const std::vector<double>& S, const Dataset& train,
            const Dataset& test, double C) {
    const int64_t n = train.n, m = train.classes(), nt = test.n;
    const double s_eta = std::accumulate(sol.begin(), sol.begin() + n, 0.0);
    res.bias.assign(static_cast<size_t>(m), 0.0);
    res.alpha.assign(static_cast<size_t>(n * m), 0.0);
    for (int64_t c = 0; c < m; ++c) {
        const double* nu = sol.data() + (c + 1) * n;
        res.bias[c] = std::accumulate(nu, nu + n, 0.0) / s_eta;
        for (int64_t i = 0; i < n; ++i) res.alpha[i + c * n] = nu[i] - res.bias[c] * sol[i];
    }
    // Training decisions without another kernel product: K a + b 1 = y - a / C (the system's rows).
    res.train_pred.assign(static_cast<size_t>(n), 0);
    for (int64_t i = 0; i < n; ++i) {
        double best = -1e300;
        for (int64_t c = 0; c < m; ++c) {
            const double f = (train.y[i] == c ? 1.0 : -1.0) - res.alpha[i + c * n] / C;
            if (f > best) best = f, res.train_pred[i] = static_cast<int>(c);
        }
    }
    res.test_pred.assign(static_cast<size_t>(nt), 0);
    for (int64_t t = 0; t < nt; ++t) {
        double best = -1e300;
        for (int64_t c = 0; c < m; ++c) {
            const double f = S[t + (c + 1) * nt] - res.bias[c] * S[t] + res.bias[c];
            if (f > best) best = f, res.test_pred[t] = static_cast<int>(c);
        }
    }
    res.train_accuracy = accuracy(res.train_pred, train.y);
    res.test_accuracy = accuracy(res.test_pred, test.y);
}

namespace {

/// The features of a data set in precision T, in pinned memory.
template <typename T>
void convert(const Dataset& d, HostArray<T>& out) {
    for (size_t i = 0; i < d.X.size(); ++i) out[i] = static_cast<T>(d.X[i]);
}

void submit(Sequence& seq, starpu_task* t, Mapping m, int priority, const char* name) {
    t->where = where_of(m);
    t->priority = priority;
    t->name = name;
    seq.submit(t);
}

/// The lower tiles of H = K + I/C, columns first (the order the factorization consumes them).
template <typename T>
void submit_assembly(const Codelets<T>& cl, const KernelArgs& ka, const RowBlocks<T>& xb, TileMatrix<T>& H,
                     Sequence& seq, Mapping m) {
    const int64_t mt = H.mt();
    for (int64_t j = 0; j < mt; ++j)
        for (int64_t i = j; i < mt; ++i) {
            const int prio = static_cast<int>(2 * (mt - j) - (i - j)) + 1;  // the potrf DAG's critical-path scale
            if (i == j)
                submit(seq, cl.gram_diag(ka, xb.x(i), xb.norms(i), H.tile(i, i)), m, prio, "gram");
            else
                submit(seq, cl.gram(ka, xb.x(i), xb.x(j), xb.norms(i), xb.norms(j), H.tile(i, j)), m, prio, "gram");
        }
}

/// S[I] += k(A_I, B_J) V[J] for every block pair.
template <typename T>
void submit_apply(const Codelets<T>& cl, const KernelArgs& ka, const RowBlocks<T>& a, const RowBlocks<T>& b,
                  const TileMatrix<T>& V, TileMatrix<T>& S, const ScratchTile& scratch, Sequence& seq, Mapping m) {
    for (int64_t j = b.blocks() - 1; j >= 0; --j)  // the backward solve completes the last blocks first
        for (int64_t i = 0; i < a.blocks(); ++i)
            submit(seq, cl.apply(ka, a.x(i), b.x(j), a.norms(i), b.norms(j), V.tile(j, 0), S.tile(i, 0), scratch.handle()),
                   m, 0, "kernel_apply");
}

template <typename T>
std::vector<T> to_T(const std::vector<double>& v) {
    return std::vector<T>(v.begin(), v.end());
}
template <typename T>
std::vector<double> to_double(const std::vector<T>& v) {
    return std::vector<double>(v.begin(), v.end());
}

/// CG on H X = R for every column at once (each with its own step lengths); X starts at 0.
template <typename T>
void conjugate_gradients(const Codelets<T>& cl, const TileMatrix<T>& H, const std::vector<double>& R,
                         std::vector<double>& X, int64_t nrhs, const RunOptions& o, Result& res, Mapping m) {
    starfact::Runtime& rt = H.runtime();
    const int64_t n = H.n(), mt = H.mt(), nb = H.nb();
    TileMatrix<T> P(rt, n, nrhs, nb), Y(rt, n, nrhs, nb);
    std::vector<double> r = R, p = R, y(R.size());
    std::vector<T> pt(R.size()), yt(R.size());
    X.assign(R.size(), 0.0);
    std::vector<double> rr(nrhs), bnorm(nrhs);
    std::vector<bool> active(nrhs, true);
    for (int64_t c = 0; c < nrhs; ++c) {
        rr[c] = 0;
        for (int64_t i = 0; i < n; ++i) rr[c] += r[i + c * n] * r[i + c * n];
        bnorm[c] = std::sqrt(rr[c]);
        active[c] = bnorm[c] > 0;
    }
    Sequence seq(rt);
    res.cg_iterations = 0;
    for (int it = 1; it <= o.cg_maxit; ++it) {
        for (size_t i = 0; i < p.size(); ++i) pt[i] = static_cast<T>(p[i]);
        P.import(pt.data(), n);
        // Y = H P from the lower tiles: Y_I += H_IJ P_J and, below the diagonal, Y_J += H_IJ^T P_I.
        for (int64_t i = 0; i < mt; ++i)
            for (int64_t j = 0; j <= i; ++j) {
                submit(seq, cl.gemm(false, j == 0 ? 0.0 : 1.0, H.tile(i, j), P.tile(j, 0), Y.tile(i, 0)), m, 0, "cg_matvec");
                if (i != j) submit(seq, cl.gemm(true, 1.0, H.tile(i, j), P.tile(i, 0), Y.tile(j, 0)), m, 0, "cg_matvec");
            }
        seq.wait();
        Y.export_to(yt.data(), n);
        for (size_t i = 0; i < y.size(); ++i) y[i] = static_cast<double>(yt[i]);
        double worst = 0;
        bool any = false;
        for (int64_t c = 0; c < nrhs; ++c) {
            if (!active[c]) continue;
            double* pc = p.data() + c * n;
            double* rc = r.data() + c * n;
            const double* yc = y.data() + c * n;
            double py = 0;
            for (int64_t i = 0; i < n; ++i) py += pc[i] * yc[i];
            const double a = rr[c] / py;
            double rr_new = 0;
            for (int64_t i = 0; i < n; ++i) {
                X[i + c * n] += a * pc[i];
                rc[i] -= a * yc[i];
                rr_new += rc[i] * rc[i];
            }
            const double rel = std::sqrt(rr_new) / bnorm[c];
            worst = std::max(worst, rel);
            if (!(py > 0) || !std::isfinite(rel)) {  // H not SPD in this precision, or breakdown
                active[c] = false;
                res.cg_converged = false;
                continue;
            }
            if (rel <= o.cg_tol) {
                active[c] = false;
                continue;
            }
            any = true;
            const double beta = rr_new / rr[c];
            rr[c] = rr_new;
            for (int64_t i = 0; i < n; ++i) pc[i] = rc[i] + beta * pc[i];
        }
        res.cg_iterations = it;
        if (o.progress && (it % 25 == 0 || !any))
            std::fprintf(stderr, "\rCG iteration %d: largest relative residual %.3e   ", it, worst);
        if (!any) break;
    }
    if (o.progress) std::fprintf(stderr, "\n");
    for (bool a : active)
        if (a) res.cg_converged = false;
}

}  // namespace

template <typename T>
Result run(const Engine& engine, const Dataset& train, const Dataset& test, const Hyper& h, const RunOptions& o) {
    validate(train, test, h, o, "lssvm::run");
    starfact::Runtime& rt = engine.runtime();
    rt.require_mapping(o.mapping, "lssvm::run");
    const Codelets<T>& cl = engine.codelets<T>();
    const int64_t n = train.n, nt = test.n, d = train.d, nrhs = train.classes() + 1;
    const bool gpu = o.mapping != Mapping::CpuOnly && rt.cuda_workers() > 0;
    const Residency residency = gpu ? Residency::Device : Residency::Host;
    const bool mixed = sizeof(T) == sizeof(double) && o.solver == Solver::Cholesky &&
                       starfact::refines_double(o.factor);
    // The LS-SVM factors in o.factor whatever the order (the plan's always_low tiles).
    starfact::Request request;
    request.op = starfact::Operation::Posv;
    request.element = sizeof(T) == sizeof(float) ? starfact::Precision::Fp32 : starfact::Precision::Fp64;
    request.m = request.n = n;
    request.nrhs = nrhs;
    request.options.mapping = o.mapping;
    request.options.factor = mixed ? o.factor : starfact::Precision::Native;
    request.tiling.residency = residency;
    request.always_low = mixed;
    const int64_t planned = starfact::plan(request, starfact::Machine::of(rt)).nb;
    const int64_t nb = std::max<int64_t>(o.nb > 0 ? o.nb : planned, nrhs);
    const KernelArgs ka{h.kernel, effective_gamma(h, train), 1.0 / h.C};
    const KernelArgs ka_apply{h.kernel, ka.gamma, 0.0};

    Result res;
    const auto t_setup = Clock::now();
    HostArray<T> X(static_cast<size_t>(n * d)), XT(static_cast<size_t>(std::max<int64_t>(nt, 1) * d));
    convert(train, X);
    convert(test, XT);
    RowBlocks<T> xb(X.data(), n, d, nb);
    RowBlocks<T> tb(XT.data(), std::max<int64_t>(nt, 1), d, nb);
    TileMatrix<T> H(rt, n, nb, residency);
    const std::vector<double> rhs = right_hand_sides(train);
    TileMatrix<T> B(rt, n, nrhs, nb), S(rt, std::max<int64_t>(nt, 1), nrhs, nb);
    B.import(to_T<T>(rhs).data(), n);
    S.import(std::vector<T>(static_cast<size_t>(std::max<int64_t>(nt, 1) * nrhs), T(0)).data(), std::max<int64_t>(nt, 1));
    ScratchTile scratch(nb, nb, sizeof(T));
    res.t.setup = since(t_setup);

    starfact::Options opts;
    opts.mapping = o.mapping;
    Sequence s_asm(rt), s_fac(rt), s_sol(rt), s_pred(rt);
    const auto t0 = Clock::now();
    submit_assembly(cl, ka, xb, H, s_asm, o.mapping);
    if (!o.overlap) s_asm.wait(), res.t.assemble = since(t0);
    std::vector<double> sol;
    if (mixed) {
        // The refined solve decides between its steps on the host: it starts once H is assembled.
        s_asm.wait();
        res.t.assemble = since(t0);
        starfact::Options mo = opts;
        mo.factor = o.factor;
        res.info = starfact::posv(H, B, mo, res.mixed, o.refine);
        res.t.factor = res.t.solve = since(t0);
        if (o.progress)
            std::fprintf(stderr, "  solved at %.3f s (%s factor, %s, %d refinement + %d GMRES iterations)\n",
                         res.t.solve, starfact::to_string(o.factor), starfact::to_string(res.mixed.path),
                         res.mixed.iterations, res.mixed.gmres_iterations);
        if (res.info != 0) {
            res.t.total = since(t0);
            return res;
        }
        if (nt > 0) submit_apply(cl, ka_apply, tb, xb, B, S, scratch, s_pred, o.mapping);
        s_pred.wait();
        res.t.predict = since(t0);
        std::vector<T> bt(rhs.size());
        B.export_to(bt.data(), n);
        sol = to_double(bt);
    } else if (o.solver == Solver::Cholesky) {
        const int op = starfact::async::potrf(H, s_fac, opts);
        if (!o.overlap) s_fac.wait(), res.t.factor = since(t0);
        starfact::async::potrs(H, B, s_sol, opts);
        if (!o.overlap) s_sol.wait(), res.t.solve = since(t0);
        if (nt > 0) submit_apply(cl, ka_apply, tb, xb, B, S, scratch, s_pred, o.mapping);
        if (o.overlap) {
            s_asm.wait();
            res.t.assemble = since(t0);
            if (o.progress) std::fprintf(stderr, "  kernel matrix assembled at %.3f s\n", res.t.assemble);
            s_fac.wait();
            res.t.factor = since(t0);
            if (o.progress) std::fprintf(stderr, "  factored at %.3f s\n", res.t.factor);
            s_sol.wait();
            res.t.solve = since(t0);
            if (o.progress) std::fprintf(stderr, "  solved at %.3f s\n", res.t.solve);
        }
        res.info = s_fac.info(op);
        s_pred.wait();
        res.t.predict = since(t0);
        if (res.info != 0) {  // the solution and the products are meaningless: no predictions
            res.t.total = since(t0);
            return res;
        }
        std::vector<T> bt(rhs.size());
        B.export_to(bt.data(), n);
        sol = to_double(bt);
    } else {
        s_asm.wait();
        res.t.assemble = since(t0);
        res.t.factor = res.t.assemble;
        conjugate_gradients(cl, H, rhs, sol, nrhs, o, res, o.mapping);
        res.t.solve = since(t0);
        B.import(to_T<T>(sol).data(), n);
        if (nt > 0) submit_apply(cl, ka_apply, tb, xb, B, S, scratch, s_pred, o.mapping);
        s_pred.wait();
        res.t.predict = since(t0);
    }
    std::vector<T> st(static_cast<size_t>(std::max<int64_t>(nt, 1) * nrhs));
    S.export_to(st.data(), std::max<int64_t>(nt, 1));
    std::vector<double> Sd(static_cast<size_t>(nt * nrhs));
    for (int64_t c = 0; c < nrhs; ++c)
        for (int64_t t = 0; t < nt; ++t) Sd[t + c * nt] = st[t + c * std::max<int64_t>(nt, 1)];
    finish(res, sol, Sd, train, test, h.C);
    res.solution = sol;
    res.t.total = since(t0);
    return res;
}

template <typename T>
double relative_residual(const Engine& engine, const Dataset& train, const Hyper& h, const Result& r,
                         const RunOptions& o) {
    starfact::Runtime& rt = engine.runtime();
    const int64_t n = train.n, d = train.d, nrhs = train.classes() + 1;
    starfact::require(static_cast<int64_t>(r.solution.size()) == n * nrhs, "lssvm::relative_residual", "r",
                      "holds no solution of this training set");
    const bool gpu = o.mapping != Mapping::CpuOnly && rt.cuda_workers() > 0;
    starfact::Request request;
    request.op = starfact::Operation::Potrf;
    request.element = sizeof(T) == sizeof(float) ? starfact::Precision::Fp32 : starfact::Precision::Fp64;
    request.m = request.n = n;
    request.options.mapping = o.mapping;
    request.tiling = {o.nb, gpu ? Residency::Device : Residency::Host};
    const int64_t nb = std::max<int64_t>(starfact::plan(request, starfact::Machine::of(rt)).nb, nrhs);
    HostArray<T> X(static_cast<size_t>(n * d));
    convert(train, X);
    RowBlocks<T> xb(X.data(), n, d, nb);
    TileMatrix<T> V(rt, n, nrhs, nb), S(rt, n, nrhs, nb);
    V.import(to_T<T>(r.solution).data(), n);
    S.import(std::vector<T>(static_cast<size_t>(n * nrhs), T(0)).data(), n);
    ScratchTile scratch(nb, nb, sizeof(T));
    Sequence seq(rt);
    submit_apply(engine.codelets<T>(), KernelArgs{h.kernel, effective_gamma(h, train), 0.0}, xb, xb, V, S, scratch, seq,
                 o.mapping);
    seq.wait();
    std::vector<T> st(static_cast<size_t>(n * nrhs));
    S.export_to(st.data(), n);
    const std::vector<double> rhs = right_hand_sides(train);
    double num = 0, den = 0;
    for (size_t i = 0; i < st.size(); ++i) {
        const double e = static_cast<double>(st[i]) + r.solution[i] / h.C - rhs[i];
        num += e * e;
        den += rhs[i] * rhs[i];
    }
    return std::sqrt(num / den);
}

template Result run<float>(const Engine&, const Dataset&, const Dataset&, const Hyper&, const RunOptions&);
template Result run<double>(const Engine&, const Dataset&, const Dataset&, const Hyper&, const RunOptions&);
template double relative_residual<float>(const Engine&, const Dataset&, const Hyper&, const Result&, const RunOptions&);
template double relative_residual<double>(const Engine&, const Dataset&, const Hyper&, const Result&, const RunOptions&);

}  // namespace lssvm

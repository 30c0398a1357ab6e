// Mixed-precision SPD solve (mixed.hpp): factor D A D (D = diag(A)^-1/2) in float tiles, the trailing updates in
// the requested tensor-core arithmetic, then refine X in double (docs/mixed_precision.md):
//
//   F := float(D A D);  potrf(F)                                  one task graph, with ||A||_inf and X0
//   X0 := D F^-T F^-1 D B
//   repeat:  R := B - A X  (double)                                classical refinement (LAPACK's dsposv)
//            stop when every column's backward error reaches the tolerance, or a step gains less than stall_ratio
//            X += D F^-T F^-1 D R
//   then, per column still above the tolerance:                    GMRES-IR (Carson & Higham, SISC 2018):
//            GMRES on M^-1 A d = M^-1 r with M^-1 = D F^-T F^-1 D, in double on the host, each iteration one
//            product with A and one solve with F as task graphs;  x += d
//   then, if still above:  the double potrf + potrs on A (fallback)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/arguments.hpp"
#include "algorithms/dag.hpp"
#include "algorithms/mixed_ops.hpp"
#include "algorithms/submit.hpp"
#include "starfact/error.hpp"
#include "starfact/mixed.hpp"

namespace starfact {

const char* to_string(SolveReport::Path p) {
    switch (p) {
        case SolveReport::Path::Direct: return "direct";
        case SolveReport::Path::Refined: return "refined";
        case SolveReport::Path::Gmres: return "gmres";
        case SolveReport::Path::Fallback: return "fallback";
        case SolveReport::Path::Failed: return "failed";
    }
    return "?";
}

namespace {

using detail::MixedOps;

/// Largest |v| of column j of an n x c column-major host array.
double column_max(const std::vector<double>& v, int64_t n, int64_t j) {
    double m = 0;
    for (int64_t i = 0; i < n; ++i) m = std::max(m, std::fabs(v[static_cast<size_t>(i + j * n)]));
    return m;
}

/// Backward errors ||r_j|| / (||A|| ||x_j|| + ||b_j||) of every column (infinity norms).
std::vector<double> backward_errors(const std::vector<double>& r, const std::vector<double>& x,
                                    const std::vector<double>& bnorm, double anorm, int64_t n, int64_t c) {
    std::vector<double> e(static_cast<size_t>(c));
    for (int64_t j = 0; j < c; ++j) {
        const double den = anorm * column_max(x, n, j) + bnorm[static_cast<size_t>(j)];
        const double num = column_max(r, n, j);
        e[static_cast<size_t>(j)] = den > 0 ? num / den : (num > 0 ? std::numeric_limits<double>::infinity() : 0.0);
        if (!std::isfinite(num)) e[static_cast<size_t>(j)] = std::numeric_limits<double>::infinity();
    }
    return e;
}

double largest(const std::vector<double>& v) {
    double m = 0;
    for (double e : v) m = std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(m, e);
    return m;
}

/// Restarted GMRES on M^-1 A d = M^-1 r (left preconditioning by the low-precision factor), d0 = 0, in double on
/// the host; stops when the preconditioned residual fell by `reduction` or after `budget` iterations. Returns the
/// iterations used; d receives the correction.
int gmres(MixedOps& ops, const std::vector<double>& r, std::vector<double>& d, int restart, int budget,
          double reduction) {
    const int64_t n = ops.n();
    const size_t N = static_cast<size_t>(n);
    d.assign(N, 0.0);
    std::vector<double> w(N), z(N);
    ops.apply_low(r, z);  // z = M^-1 r
    double beta0 = 0;
    for (double v : z) beta0 += v * v;
    beta0 = std::sqrt(beta0);
    if (!(beta0 > 0) || !std::isfinite(beta0)) return 0;
    int used = 0;
    double beta = beta0;
    while (used < budget && beta > reduction * beta0) {
        const int m = std::min(restart, budget - used);
        std::vector<std::vector<double>> V(static_cast<size_t>(m) + 1, std::vector<double>(N));
        std::vector<double> H(static_cast<size_t>((m + 1) * m), 0.0), cs(static_cast<size_t>(m)),
            sn(static_cast<size_t>(m)), g(static_cast<size_t>(m) + 1, 0.0);
        auto h = [&](int i, int j) -> double& { return H[static_cast<size_t>(i + j * (m + 1))]; };
        for (size_t i = 0; i < N; ++i) V[0][i] = z[i] / beta;
        g[0] = beta;
        int k = 0;
        for (; k < m; ++k) {
            ops.apply_a(V[static_cast<size_t>(k)], w);  // w = A v_k
            ops.apply_low(w, z);                        // z = M^-1 A v_k
            ++used;
            for (int i = 0; i <= k; ++i) {  // modified Gram-Schmidt
                double dot = 0;
                for (size_t e = 0; e < N; ++e) dot += z[e] * V[static_cast<size_t>(i)][e];
                h(i, k) = dot;
                for (size_t e = 0; e < N; ++e) z[e] -= dot * V[static_cast<size_t>(i)][e];
            }
            double nz = 0;
            for (double v : z) nz += v * v;
            nz = std::sqrt(nz);
            h(k + 1, k) = nz;
            if (nz > 0)
                for (size_t e = 0; e < N; ++e) V[static_cast<size_t>(k) + 1][e] = z[e] / nz;
            for (int i = 0; i < k; ++i) {  // previous Givens rotations
                const double t = cs[static_cast<size_t>(i)] * h(i, k) + sn[static_cast<size_t>(i)] * h(i + 1, k);
                h(i + 1, k) = -sn[static_cast<size_t>(i)] * h(i, k) + cs[static_cast<size_t>(i)] * h(i + 1, k);
                h(i, k) = t;
            }
            const double rr = std::hypot(h(k, k), h(k + 1, k));
            cs[static_cast<size_t>(k)] = rr > 0 ? h(k, k) / rr : 1.0;
            sn[static_cast<size_t>(k)] = rr > 0 ? h(k + 1, k) / rr : 0.0;
            h(k, k) = rr;
            h(k + 1, k) = 0;
            g[static_cast<size_t>(k) + 1] = -sn[static_cast<size_t>(k)] * g[static_cast<size_t>(k)];
            g[static_cast<size_t>(k)] *= cs[static_cast<size_t>(k)];
            beta = std::fabs(g[static_cast<size_t>(k) + 1]);
            if (beta <= reduction * beta0 || nz == 0) {
                ++k;
                break;
            }
        }
        // y := H(0:k, 0:k)^-1 g(0:k); d += V y
        std::vector<double> y(static_cast<size_t>(k));
        for (int i = k - 1; i >= 0; --i) {
            double s = g[static_cast<size_t>(i)];
            for (int j = i + 1; j < k; ++j) s -= h(i, j) * y[static_cast<size_t>(j)];
            y[static_cast<size_t>(i)] = h(i, i) != 0 ? s / h(i, i) : 0.0;
        }
        for (int j = 0; j < k; ++j)
            for (size_t e = 0; e < N; ++e) d[e] += y[static_cast<size_t>(j)] * V[static_cast<size_t>(j)][e];
        if (beta <= reduction * beta0 || used >= budget) break;
        // restart: z = M^-1 (r - A d)
        ops.apply_a(d, w);
        for (size_t e = 0; e < N; ++e) w[e] = r[e] - w[e];
        ops.apply_low(w, z);
        beta = 0;
        for (double v : z) beta += v * v;
        beta = std::sqrt(beta);
    }
    return used;
}

}  // namespace

namespace detail {

void require_mixed_solve(const char* function, const TileMatrix<double>& A, const TileMatrix<double>& B,
                         const Options& opts, const Refinement& refine) {
    require_right_hand_sides(function, A, B);
    require(!A.distributed() && !B.distributed(), function, "A",
            "is distributed over MPI ranks: the mixed-precision solve runs in one process (factor fp64 for the "
            "distributed double solve)");
    require(refine.max_iterations >= 0, function, "refine.max_iterations",
            "must be >= 0 (got " + std::to_string(refine.max_iterations) + ")");
    require(refine.gmres_iterations >= 0, function, "refine.gmres_iterations",
            "must be >= 0 (got " + std::to_string(refine.gmres_iterations) + ")");
    require(refine.gmres_restart >= 1, function, "refine.gmres_restart",
            "must be >= 1 (got " + std::to_string(refine.gmres_restart) + ")");
    require(refine.stall_ratio > 0 && refine.stall_ratio <= 1, function, "refine.stall_ratio",
            "must be in (0, 1] (got " + std::to_string(refine.stall_ratio) + ")");
    require(refine.tolerance >= 0 && std::isfinite(refine.tolerance), function, "refine.tolerance",
            "must be >= 0 and finite (got " + std::to_string(refine.tolerance) + ")");
    A.runtime().require_mapping(opts.mapping, function);
}

double mixed_tolerance(const Refinement& refine, int64_t n) {
    constexpr double unit = 0x1p-53;  // double's unit roundoff
    // Refinement stops at the tolerance (default: LAPACK's dsposv rule, sqrt(n) u).
    return refine.tolerance > 0 ? refine.tolerance : std::sqrt(static_cast<double>(n)) * unit;
}

bool refine_solution(MixedOps& ops, const Refinement& refine, double tolerance, SolveReport& report) {
    const int64_t n = ops.n();
    std::vector<double> x, r;
    ops.b_host(r);
    const int64_t c = n > 0 ? static_cast<int64_t>(r.size()) / n : 0;
    std::vector<double> bnorm(static_cast<size_t>(c));
    for (int64_t j = 0; j < c; ++j) bnorm[static_cast<size_t>(j)] = column_max(r, n, j);
    ops.residual(r, x);  // R = B - A X, both on the host
    std::vector<double> err = backward_errors(r, x, bnorm, ops.anorm(), n, c);
    bool converged = false;
    double prev = std::numeric_limits<double>::infinity();
    while (true) {
        const double now = largest(err);
        converged = now <= tolerance;
        if (converged || report.iterations >= refine.max_iterations || now > refine.stall_ratio * prev) break;
        prev = now;
        ops.correct();  // X += M^-1 R
        ++report.iterations;
        ops.residual(r, x);
        err = backward_errors(r, x, bnorm, ops.anorm(), n, c);
    }
    report.path = SolveReport::Path::Refined;
    // GMRES-IR for the columns still above the tolerance
    for (int round = 0; !converged && refine.gmres_iterations > report.gmres_iterations && round < 8; ++round) {
        report.path = SolveReport::Path::Gmres;
        const double before = largest(err);
        for (int64_t j = 0; j < c; ++j) {
            if (err[static_cast<size_t>(j)] <= tolerance) continue;
            std::vector<double> rj(r.begin() + j * n, r.begin() + (j + 1) * n), dj;
            report.gmres_iterations += gmres(ops, rj, dj, refine.gmres_restart,
                                             refine.gmres_iterations - report.gmres_iterations, 1e-12);
            for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i + j * n)] += dj[static_cast<size_t>(i)];
        }
        ops.set_solution(x);  // x: X from the last residual(), corrected column by column
        ops.residual(r, x);
        err = backward_errors(r, x, bnorm, ops.anorm(), n, c);
        converged = largest(err) <= tolerance;
        if (!(largest(err) < 0.9 * before)) break;  // no progress: leave it to the fallback
    }
    report.backward_error = largest(err);
    return converged;
}

}  // namespace detail

template <typename T>
int posv(TileMatrix<T>& A, TileMatrix<T>& B, const Options& opts, SolveReport& report, const Refinement& refine) {
    const auto t0 = std::chrono::steady_clock::now();
    auto finish = [&](int info) {
        report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return info;
    };
    report = SolveReport{};
    report.factor = opts.factor;
    detail::require_factor_precision<T>("posv", opts.factor, true);
    if (!detail::lower_factor<T>(opts.factor)) {  // the plain solve (a float one in a tensor-core arithmetic too)
        report.path = SolveReport::Path::Direct;
        const int info = posv(A, B, opts);
        if (info > 0) report.path = SolveReport::Path::Failed;
        return finish(info);
    }
    if constexpr (sizeof(T) == sizeof(double)) {
        detail::require_mixed_solve("posv", A, B, opts, refine);
        const int64_t n = A.n(), c = B.n();
        if (n == 0 || c == 0) {
            report.path = SolveReport::Path::Refined;
            return finish(0);
        }
        report.tolerance = detail::mixed_tolerance(refine, n);
        MixedOps ops(A, B, opts);
        report.low_info = ops.factor();  // F, D, ||A||, X0 = M^-1 B
        report.factor_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        report.backward_error = std::numeric_limits<double>::infinity();
        if (report.low_info == 0 && detail::refine_solution(ops, refine, report.tolerance, report)) return finish(0);
        if (!refine.fallback) {  // B as it was: never an answer short of the tolerance
            report.path = SolveReport::Path::Failed;
            ops.restore_b();
            return finish(0);
        }
        // The double factorization, on A itself (as LAPACK's dsposv), from the original right-hand sides.
        report.path = SolveReport::Path::Fallback;
        report.backward_error = std::numeric_limits<double>::quiet_NaN();
        ops.restore_b();
        Options hi = opts;
        hi.factor = Precision::Native;
        const int info = posv(A, B, hi);
        if (info > 0) report.path = SolveReport::Path::Failed;
        return finish(info);
    } else {
        return finish(0);  // not reached: float solves take the plain path above
    }
}

template <typename T>
int posv(Runtime& rt, int64_t n, int64_t nrhs, T* A, int64_t lda, T* B, int64_t ldb, const Options& opts,
         SolveReport& report, const Refinement& refine, const Tiling& tiling) {
    detail::require_solve_arrays("posv", n, nrhs, A, lda, B, ldb, tiling);
    detail::require_factor_precision<T>("posv", opts.factor, true);
    const int64_t nb = tiling.nb > 0 ? tiling.nb : mixed_tile_size(n, opts.mapping, rt.cuda_workers() > 0, opts.factor);
    TileMatrix<T> a(rt, n, n, nb, tiling.residency), b(rt, n, nrhs, nb, tiling.residency);
    a.import(A, lda);
    b.import(B, ldb);
    const int info = posv(a, b, opts, report, refine);
    if (report.path == SolveReport::Path::Fallback || report.path == SolveReport::Path::Failed ||
        report.path == SolveReport::Path::Direct)
        a.export_to(A, lda);
    if (info == 0 && report.path != SolveReport::Path::Failed) b.export_to(B, ldb);
    return info;
}

template int posv<float>(TileMatrix<float>&, TileMatrix<float>&, const Options&, SolveReport&, const Refinement&);
template int posv<double>(TileMatrix<double>&, TileMatrix<double>&, const Options&, SolveReport&, const Refinement&);
template int posv<float>(Runtime&, int64_t, int64_t, float*, int64_t, float*, int64_t, const Options&, SolveReport&,
                         const Refinement&, const Tiling&);
template int posv<double>(Runtime&, int64_t, int64_t, double*, int64_t, double*, int64_t, const Options&,
                          SolveReport&, const Refinement&, const Tiling&);

}  // namespace starfact

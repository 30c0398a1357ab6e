// The one refinement driver of the mixed-precision solves (refine_ops.hpp), over the operator and preconditioner
// each solve gives it (the SPD posv's MixedOps, the LU gesv's LuRefineOps):
//
//   while the low-precision factorization breaks down: again with a larger shift (Higham & Pranesh, SISC 2021;
//            the Cholesky only)
//   repeat:  R := B - A X  (double)                                classical refinement (LAPACK's dsposv, dsgesv)
//            stop when every column's backward error reaches the tolerance, or a step gains less than stall_ratio
//            X += M^-1 R
//   then, for the columns still above the tolerance:               GMRES-IR (Carson & Higham, SISC 2018), in its
//            flexible form: GMRES on A d = r right-preconditioned by M^-1 (applied in float, which the flexible
//            form admits), every column at once, the Krylov vectors in the solve's memory (mixed_gmres.cpp); x += d
//   then, if still above: the caller's double factorization (fallback)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "algorithms/arguments.hpp"
#include "algorithms/plan_tables.hpp"
#include "algorithms/refine_ops.hpp"
#include "starfact/error.hpp"
#include "starfact/mixed.hpp"

namespace starfact {

namespace {

/// Largest |v| of column j of an n x c column-major host array (the modulus of complex entries); NaN when the column
/// holds one.
template <typename T>
double column_max(const std::vector<T>& v, int64_t n, int64_t j) {
    double m = 0;
    for (int64_t i = 0; i < n; ++i) {
        const double e = std::abs(v[static_cast<size_t>(i + j * n)]);
        if (std::isnan(e)) return e;
        m = std::max(m, e);
    }
    return m;
}

/// Backward errors ||r_j|| / (||A|| ||x_j|| + ||b_j||) of every column (infinity norms); infinity where r_j or x_j
/// is not finite.
template <typename T>
std::vector<double> backward_errors(const std::vector<T>& r, const std::vector<T>& x,
                                    const std::vector<double>& bnorm, double anorm, int64_t n, int64_t c) {
    std::vector<double> e(static_cast<size_t>(c));
    for (int64_t j = 0; j < c; ++j) {
        const double xn = column_max(x, n, j), num = column_max(r, n, j);
        const double den = anorm * xn + bnorm[static_cast<size_t>(j)];
        double& ej = e[static_cast<size_t>(j)];
        if (!std::isfinite(num) || !std::isfinite(xn)) ej = std::numeric_limits<double>::infinity();
        else ej = den > 0 ? num / den : (num > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    }
    return e;
}

double largest(const std::vector<double>& v) {
    double m = 0;
    for (double e : v) m = std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(m, e);
    return m;
}

using Clock = std::chrono::steady_clock;

/// When the shifted factorizations and GMRES give up for the fallback: Refinement::time_budget times the first
/// factorization's time (at least Refinement::time_floor) after that factorization ended; none when the budget is 0.
struct Deadline {
    Clock::time_point at = Clock::time_point::max();
    bool passed() const { return Clock::now() > at; }
    /// Whether `seconds` more fit before it.
    bool allows(double seconds) const {
        return at == Clock::time_point::max() ||
               Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)) <= at;
    }
};

}  // namespace

namespace detail {

template <typename T>
void require_mixed_solve(const char* function, const TileMatrix<T>& A, const TileMatrix<T>& B, const Options& opts,
                         const Refinement& refine) {
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
    require(refine.shift_retries >= 0, function, "refine.shift_retries",
            "must be >= 0 (got " + std::to_string(refine.shift_retries) + ")");
    require(std::isfinite(refine.shift) && refine.shift <= 1e12, function, "refine.shift",
            "must be < 0 (automatic) or a finite multiple of the unit roundoff (got " + std::to_string(refine.shift) + ")");
    require(refine.time_budget >= 0 && std::isfinite(refine.time_budget), function, "refine.time_budget",
            "must be >= 0 and finite (got " + std::to_string(refine.time_budget) + "; 0: no limit)");
    require(refine.time_floor >= 0 && std::isfinite(refine.time_floor), function, "refine.time_floor",
            "must be >= 0 and finite (got " + std::to_string(refine.time_floor) + ")");
    require(refine.tile_tolerance >= 0 && refine.tile_tolerance < 1, function, "refine.tile_tolerance",
            "must be in [0, 1) (got " + std::to_string(refine.tile_tolerance) + "; 0: every tile in the factor's "
            "arithmetic; 2^-24 about a float factor's accuracy)");
    if constexpr (is_complex_v<T>)
        require(refine.tile_tolerance == 0, function, "refine.tile_tolerance",
                "must be 0 for complex matrices (per-tile arithmetic is the real solve's; got " +
                    std::to_string(refine.tile_tolerance) + ")");
    A.runtime().require_mapping(opts.mapping, function);
}

double mixed_tolerance(const Refinement& refine, int64_t n) {
    constexpr double unit = 0x1p-53;  // double's unit roundoff
    // Refinement stops at the tolerance (default: LAPACK's dsposv rule, sqrt(n) u).
    return refine.tolerance > 0 ? refine.tolerance : std::sqrt(static_cast<double>(n)) * unit;
}

double factor_unit_roundoff(Precision p) {
    switch (p) {
        case Precision::Tf32:
        case Precision::Auto:  // its first rung is Tf32
        case Precision::Fp16: return 0x1p-11;
        case Precision::Bf16: return 0x1p-8;
        case Precision::Tf32x3: return 0x1p-21;
        default: return 0x1p-24;
    }
}

bool low_factor_planned(const Plan& plan, const Options& opts, SolveReport& report) {
    if (plan.refined) return true;
    const int64_t from = plan.op == Operation::Gesv ? kTensorCoreLuSolveMinOrder : kTensorCoreSolveMinOrder;
    report.path = SolveReport::Path::Direct;
    report.reason = std::string("the plan ran the double factorization: on GPUs a ") + to_string(opts.factor) +
                    " factor pays from n = " + std::to_string(from) + " (Refinement::always_low factors in it anyway)";
    return false;
}

double first_shift(const Refinement& refine, Precision factor) {
    return refine.shift > 0 ? refine.shift * factor_unit_roundoff(factor) : 0.0;
}

namespace {

/// The classical steps' largest ratio of successive backward errors while GMRES waits (refine_solution).
constexpr double kGmresHandover = 0.125;

/// Classical refinement, then GMRES-IR for the columns still above `tolerance` (r, x: R and X of the last residual,
/// err their backward errors). X is left in B. Returns whether every column reached the tolerance.
template <typename T>
bool refine_solution(RefineOps<T>& ops, const Refinement& refine, double tolerance, const std::vector<double>& bnorm,
                     const Deadline& deadline, SolveReport& report) {
    const int64_t n = ops.n(), c = ops.columns();
    std::vector<T> x, r;
    ops.residual(r, x);  // R = B - A X, both on the host
    std::vector<double> err = backward_errors(r, x, bnorm, ops.anorm(), n, c);
    bool converged = false;
    double prev = std::numeric_limits<double>::infinity();
    // With GMRES on, it takes over once a classical step gains less than kGmresHandover: on the system that
    // classical refinement iterates on (M^-1 A, M the low-precision factor), GMRES needs at most as many
    // iterations, and each costs barely more than a classical step once the vectors stay in the solve's memory.
    const double stall = refine.gmres_iterations > 0 ? std::min(refine.stall_ratio, kGmresHandover) : refine.stall_ratio;
    while (true) {
        const double now = largest(err);
        converged = now <= tolerance;
        if (converged || report.iterations >= refine.max_iterations || !(now <= stall * prev)) break;
        prev = now;
        ops.correct();  // X += M^-1 R
        ++report.iterations;
        ops.residual(r, x);
        err = backward_errors(r, x, bnorm, ops.anorm(), n, c);
    }
    report.path = SolveReport::Path::Refined;
    // GMRES-IR for the columns still above the tolerance, from the best solution classical refinement reached
    for (int round = 0; !converged && refine.gmres_iterations > report.gmres_iterations && round < 8 && !deadline.passed();
         ++round) {
        report.path = SolveReport::Path::Gmres;
        const double before = largest(err);
        // each column's target: a 2-norm of r - A d that keeps its backward error, measured in the infinity
        // norm (<= the 2-norm), below half the tolerance
        std::vector<bool> active(static_cast<size_t>(c));
        std::vector<double> target(static_cast<size_t>(c));
        for (int64_t j = 0; j < c; ++j) {
            const size_t uj = static_cast<size_t>(j);
            active[uj] = !(err[uj] <= tolerance);
            target[uj] = 0.5 * tolerance * (ops.anorm() * column_max(x, n, j) + bnorm[uj]);
        }
        const auto started = Clock::now();
        report.gmres_iterations += ops.gmres(active, target, r, refine.gmres_restart,
                                             refine.gmres_iterations - report.gmres_iterations,
                                             [&deadline] { return deadline.passed(); });  // X += d
        ops.residual(r, x);
        report.gmres_seconds += std::chrono::duration<double>(Clock::now() - started).count();
        err = backward_errors(r, x, bnorm, ops.anorm(), n, c);
        converged = largest(err) <= tolerance;
        if (!(largest(err) < 0.9 * before)) break;  // no progress: leave it to the fallback
    }
    report.backward_error = largest(err);
    return converged;
}

std::string sci(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2e", v);
    return text;
}

}  // namespace

template <typename T>
MixedOutcome refine_mixed(RefineOps<T>& ops, int low_info, const Refinement& refine, Precision requested,
                          SolveReport& report, const char* function) {
    const int64_t n = ops.n(), c = ops.columns();
    const MixedOutcome unsolved = refine.fallback ? MixedOutcome::Fallback : MixedOutcome::Failed;
    report.path = refine.fallback ? SolveReport::Path::Fallback : SolveReport::Path::Failed;
    report.backward_error = 0;
    report.low_info = low_info;
    auto note_tiles = [&] {  // the per-tile arithmetic of the last factorization, the tasks skipped after breakdowns
        report.skipped_tasks = ops.skipped_tasks();
        report.low_tiles = ops.low_tiles();
        report.off_diagonal_tiles = ops.off_diagonal_tiles();
        report.tiles = ops.tile_summary();
    };
    note_tiles();
    // B, once, on the host: a column with NaN or Inf has no measurable backward error
    std::vector<T> b;
    ops.b_host(b);
    std::vector<double> bnorm(static_cast<size_t>(c));
    for (int64_t j = 0; j < c; ++j) {
        bnorm[static_cast<size_t>(j)] = column_max(b, n, j);
        if (!std::isfinite(bnorm[static_cast<size_t>(j)])) {
            ops.restore_b();
            throw InvalidArgument(function, "B",
                                  "holds NaN or Inf (column " + std::to_string(j + 1) +
                                      "): the refined solve cannot measure a backward error for it");
        }
    }
    if (const std::string why = ops.unusable(); !why.empty()) {
        report.reason = why;
        return unsolved;
    }
    if (!std::isfinite(ops.anorm())) {
        report.reason = "||A||_inf is not finite (NaN or Inf in A, or its row sums overflow)";
        return unsolved;
    }
    Deadline deadline;
    auto set_deadline = [&](Clock::time_point from, double unit) {
        if (refine.time_budget > 0)
            deadline.at = from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                                     std::max(refine.time_budget * unit, refine.time_floor)));
    };
    set_deadline(Clock::now(), report.factor_seconds);
    // The ladder (Precision::Auto): from Tf32 to Tf32x3, once, when Tf32 breaks down or its refinement does not
    // reach the tolerance; the climb re-factors unshifted, and the refinement on the new rung has the budget the
    // first one had (from the end of that factorization).
    Precision factor = ops.low_precision();
    report.factor = factor;
    report.rungs = to_string(factor);
    auto climb = [&](const std::string& why) {
        if (requested != Precision::Auto || !refine.climb || factor != Precision::Tf32) return false;
        factor = Precision::Tf32x3;
        ops.set_low_precision(factor);
        report.factor = factor;
        report.rungs += std::string(" > ") + to_string(factor) + " (" + why + ")";
        report.shift = 0;
        low_info = ops.factor(0);
        ++report.factorizations;
        report.low_info = low_info;
        note_tiles();
        set_deadline(Clock::now(), report.factor_seconds);
        return true;
    };
    while (true) {
        if (low_info > 0 && climb("tf32 broke down at column " + std::to_string(low_info))) continue;
        const double u = factor_unit_roundoff(factor);
        // Auto never shifts its Tf32 rung: a shifted Tf32 factor has not paid in any measurement (the GMRES it
        // needs took longer than the double factorization), so a breakdown climbs or falls back at once.
        // (and a factorization that a shift does not cure, the LU's, is never retried)
        const int retries =
            !ops.shifts() || (requested == Precision::Auto && factor == Precision::Tf32) ? 0 : refine.shift_retries;
        // a retry costs about what the first factorization did
        for (int retry = 0; low_info > 0 && retry < retries && deadline.allows(report.factor_seconds); ++retry) {
            report.shift = report.shift > 0 ? report.shift * Refinement::kShiftGrowth
                                            : Refinement::kShiftFirst * std::sqrt(static_cast<double>(n)) * u;
            low_info = ops.factor(report.shift);
            ++report.factorizations;
            report.low_info = low_info;
            note_tiles();
        }
        if (low_info > 0) {
            report.reason = std::string("the ") + to_string(factor) + " " + ops.factorization_name() +
                            " broke down at column " + std::to_string(low_info);
            if (ops.shifts())
                report.reason += " (diagonal shift " + sci(report.shift) + ", " +
                                 std::to_string(report.factorizations) + " attempt(s))";
            else
                report.reason += " (a zero pivot: U is singular in that arithmetic)";
            return unsolved;
        }
        if (refine_solution(ops, refine, report.tolerance, bnorm, deadline, report)) {
            report.reason.clear();
            return MixedOutcome::Solved;
        }
        if (climb("tf32 refinement reached " + sci(report.backward_error))) continue;
        break;
    }
    report.reason = "refinement reached a backward error of " + sci(report.backward_error) + " (tolerance " +
                    sci(report.tolerance) + ")" + (deadline.passed() ? " within its time budget" : "");
    report.path = refine.fallback ? SolveReport::Path::Fallback : SolveReport::Path::Failed;
    if (refine.fallback) report.backward_error = 0;  // the fallback's answer is not measured
    return unsolved;
}

template void require_mixed_solve<double>(const char*, const TileMatrix<double>&, const TileMatrix<double>&,
                                          const Options&, const Refinement&);
template void require_mixed_solve<std::complex<double>>(const char*, const TileMatrix<std::complex<double>>&,
                                                        const TileMatrix<std::complex<double>>&, const Options&,
                                                        const Refinement&);
template MixedOutcome refine_mixed<double>(RefineOps<double>&, int, const Refinement&, Precision, SolveReport&,
                                           const char*);
template MixedOutcome refine_mixed<std::complex<double>>(RefineOps<std::complex<double>>&, int, const Refinement&,
                                                         Precision, SolveReport&, const char*);

}  // namespace detail

}  // namespace starfact

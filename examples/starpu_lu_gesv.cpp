// starpu_lu --factor-prec P: the mixed-precision gesv (starfact::gesv with Options::factor and a SolveReport) on the
// random general matrix or, with --cond K, on U diag(s) V^T of condition K; per run the path, the iterations and the
// backward error; then, in the same process and on the same matrix and right-hand sides, starfact's double gesv (the
// same form and tiles' residency), cuSOLVER's dgetrf + dgetrs on device-resident data and its IRS gesv at the same
// lowest precision, classical and GMRES, and the ratios (docs/starpu_lu.md, docs/mixed_precision.md).
#include <algorithm>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "examples/starpu_lu.hpp"
#include "support/reference_solve.hpp"

namespace starfact::lu_driver {

using support::fmt;
using support::median;
using support::Table;

namespace {

/// The timed runs of one solve configuration on the same A and B.
struct Timed {
    std::vector<double> seconds;
    SolveReport report;
    int info = 0;
    std::vector<double> X;  // the last run's solution
};

}  // namespace

int run_gesv(const Settings& s, Runtime& rt, Mapping mapping) {
    const int64_t n = s.n > 0 ? s.n : (rt.cuda_workers() > 0 ? 16384 : 2000), nrhs = s.nrhs;
    const bool gpu = rt.cuda_workers() > 0 && mapping != Mapping::CpuOnly;
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    Request request;
    request.op = Operation::Gesv;
    request.m = request.n = n;
    request.nrhs = nrhs;
    request.options.mapping = mapping;
    request.options.factor = s.factor;
    request.tiling = Tiling{s.nb > 0 ? s.nb : 0, residency};
    request.always_low = s.always_low;
    const Plan planned = plan(request, Machine::of(rt));
    const int64_t nb = planned.nb;
    const Table table(s.csv, {"impl", "n", "nb", "factor", "cond", "form", "run", "seconds", "factor_s", "GFLOP/s",
                              "path", "iterations", "gmres", "backward_error", "info"});
    table.note("starpu_lu --factor-prec " + std::string(to_string(s.factor)) + ": " + rt.describe());
    table.note("plan: " + planned.to_string());
    std::vector<double> A = s.cond > 0 ? support::conditioned_general(n, s.cond, s.seed, rt.cuda_devices() > 0)
                                       : support::host_matrix<double>(n, "starpu_lu");
    if (s.cond <= 0) random_matrix<double>(n, n, A.data(), n, s.seed);
    std::vector<double> B(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B.data(), n, s.seed + 1);
    const std::string cond_text = s.cond > 0 ? fmt("%.0e", s.cond) : "-";
    const std::string form = s.array ? "array" : s.device_resident ? "tiles-device" : "tiles-host";
    const double flops = getrf_flops(n) + 2.0 * static_cast<double>(n) * static_cast<double>(n) * nrhs;
    Refinement refine;
    refine.always_low = s.always_low;
    if (s.refine_budget >= 0) refine.time_budget = s.refine_budget;
    // The tile form's matrices (pinned host or device memory, the plan's tiles), or the array form's arrays.
    std::unique_ptr<TileMatrix<double>> a, b;
    std::unique_ptr<Pivots> piv;
    if (!s.array) {
        a = std::make_unique<TileMatrix<double>>(rt, n, nb, residency);
        b = std::make_unique<TileMatrix<double>>(rt, n, nrhs, nb, residency);
        piv = std::make_unique<Pivots>(*a);
    }
    std::vector<double> Aw, Xw;
    std::vector<int64_t> ipiv(static_cast<size_t>(n));
    table.header();
    auto time_solve = [&](Precision factor, const char* impl) {
        Options opts;
        opts.mapping = mapping;
        opts.variant = Variant::parse(s.priorities ? "right" : "noprio");
        opts.factor = factor;
        Timed t;
        t.seconds = support::timed_runs(
            "starpu_lu", s.warmup, s.repeat,
            [&](const support::Run&) {
                if (s.array) {
                    Aw = A;
                    Xw = B;
                } else {
                    a->import(A.data(), n);
                    b->import(B.data(), n);
                }
            },
            [&](const support::Run& run) {
                const bool trace = run.last && !s.trace_dir.empty() && factor == s.factor;
                if (trace) rt.trace_start();
                t.info = s.array ? gesv(rt, n, nrhs, Aw.data(), n, ipiv.data(), Xw.data(), n, opts, t.report, refine,
                                        Tiling{s.nb > 0 ? s.nb : 0})
                                 : gesv(*a, *piv, *b, opts, t.report, refine);
                if (trace) rt.trace_stop();
            },
            [&](const support::Run& run, double sec) {
                const SolveReport& r = t.report;
                const bool measured = r.path == SolveReport::Path::Refined || r.path == SolveReport::Path::Gmres;
                table.row({impl, std::to_string(n), std::to_string(nb), to_string(factor), cond_text, form,
                           std::to_string(run.timed_index), fmt("%.4f", sec), fmt("%.4f", r.factor_seconds),
                           fmt("%.1f", flops / sec * 1e-9), to_string(r.path), std::to_string(r.iterations),
                           std::to_string(r.gmres_iterations), measured ? fmt("%.2e", r.backward_error) : "-",
                           std::to_string(t.info)});
                if (!r.reason.empty()) table.note(std::string("  ") + to_string(r.path) + ": " + r.reason);
                return t.info == 0;
            });
        t.X.resize(B.size());
        if (s.array) t.X = Xw;
        else b->export_to(t.X.data(), n);
        return t;
    };
    const Timed low = time_solve(s.factor, "starfact");
    if (low.info != 0) {
        table.note("matrix is singular: info = " + std::to_string(low.info));
        return 2;
    }
    const double ours = median(low.seconds);
    const SolveReport& report = low.report;
    double berr = -1;
    if (s.check) {  // the backward error of the returned solution, computed the same way for every implementation
        Runtime::Paused quiet(rt);
        berr = support::host_backward_error(n, nrhs, A.data(), low.X.data(), B.data());
        table.note("starfact backward error (host, infinity norms) " + fmt("%.2e", berr) + ", path " +
                   to_string(report.path) + ", " + std::to_string(report.iterations) + " refinement + " +
                   std::to_string(report.gmres_iterations) + " GMRES iterations, " +
                   std::to_string(report.factorizations) + " factorization(s), tolerance " +
                   fmt("%.2e", report.tolerance) + (report.reason.empty() ? "" : ", reason: " + report.reason));
    }
    std::string summary = "summary: starfact gesv " + std::string(to_string(s.factor)) + " (" + form + ") median " +
                          fmt("%.4f", ours) + " s, " + fmt("%.1f", flops / ours * 1e-9) +
                          " GFLOP/s (double-solve flops), path " + to_string(report.path);
    if (refines_double(s.factor)) {  // starfact's own double gesv on the same data, form and residency
        const Timed hi = time_solve(Precision::Fp64, "starfact-fp64");
        const double t = median(hi.seconds);
        summary += "; starfact gesv fp64 median " + fmt("%.4f", t) + " s, ratio fp64/" + to_string(s.factor) + " = " +
                   fmt("%.3f", t / ours);
    }
#ifdef STARFACT_HAVE_CUDA
    if (s.vendor && gpu) {
        Runtime::Paused quiet(rt);
        std::vector<support::VendorBaseline> baselines;
        baselines.push_back({"cusolver dgetrf+dgetrs", [&] {
                                 return support::cusolver_dgesv(n, nrhs, A.data(), B.data(), s.warmup, s.repeat);
                             }});
        if (refines_double(s.factor))
            for (bool gmres : {false, true})
                baselines.push_back({std::string("cusolver IRS gesv ") + to_string(s.factor) +
                                         (gmres ? " gmres" : " classical"),
                                     [&, gmres] {
                                         return support::cusolver_irs_gesv(n, nrhs, A.data(), B.data(), s.factor,
                                                                           gmres, s.warmup, s.repeat);
                                     }});
        support::report_vendor_solves(table, baselines, ours, summary);
    }
#else
    (void)gpu;
#endif
    table.note(summary);
    // A refined answer is held to its tolerance by the solve; a direct or fallback one to the double LU's accuracy.
    if (berr >= 0 && !(berr <= std::max(10 * report.tolerance, 1e-12))) {
        table.note("backward error check FAILED");
        return 3;
    }
    return 0;
}

}  // namespace starfact::lu_driver

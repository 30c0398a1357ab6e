// starpu_chol --op posv --factor-prec P: the mixed-precision solve (starfact::posv with Options::factor and a
// SolveReport) on the random SPD matrix or, with --cond K, on Q diag(s) Q^T of condition K (--covariance L: an
// exponential-kernel covariance matrix, support/covariance.hpp); per run the path, the
// iterations, the shift and the backward error; then, on a GPU, cuSOLVER's dpotrf + dpotrs (on device-resident data,
// and, for host-resident or --array runs, from the host arrays with the copies timed) and its IRS gesv at the same
// lowest precision on the same matrix and right-hand sides, and the ratios.
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "examples/starpu_chol/run_common.hpp"
#include "support/covariance.hpp"
#include "support/reference_solve.hpp"

namespace starfact::chol_driver {

int run_mixed(const Settings& s, Runtime& rt, Mapping mapping) {
    const int64_t n = matrix_order(s, rt), nrhs = s.nrhs;
    const bool gpu = rt.cuda_workers() > 0 && mapping != Mapping::CpuOnly;
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    const Plan planned = driver_plan(s, mapping, n, rt, "posv");
    const int64_t nb = planned.nb;
    const Table table(s.csv, {"impl", "n", "nb", "factor", "cond", "form", "run", "seconds", "factor_s", "GFLOP/s",
                              "path", "iterations", "gmres", "factorizations", "shift", "backward_error", "info"});
    table.note("starpu_chol --op posv --factor-prec " + std::string(to_string(s.factor)) + ": " + rt.describe());
    table.note("plan: " + planned.to_string());
    std::vector<double> A = s.cond > 0         ? support::conditioned_spd(n, s.cond, s.seed, rt.cuda_devices() > 0)
                            : s.covariance > 0 ? support::covariance_spd(n, s.covariance, 0.0, s.seed)
                                               : support::host_matrix<double>(n, "starpu_chol");
    if (s.cond <= 0 && s.covariance <= 0) random_symmetric<double>(n, A.data(), n, s.seed, static_cast<double>(n));
    std::vector<double> B(static_cast<size_t>(n * nrhs));
    random_matrix<double>(n, nrhs, B.data(), n, s.seed + 1);
    const std::string cond_text = s.cond > 0 ? fmt("%.0e", s.cond) : s.covariance > 0 ? "cov " + fmt("%g", s.covariance) : "-";
    // The tile form's matrices (pinned host or device memory), or the array form's arrays (views: no copy).
    std::unique_ptr<TileMatrix<double>> a, b;
    std::vector<double> Aw, X;
    if (s.array) {
        Aw = A;
        X = B;
    } else {
        a = std::make_unique<TileMatrix<double>>(rt, n, nb, residency, layout_of(s, false));
        b = std::make_unique<TileMatrix<double>>(rt, n, nrhs, nb, residency, layout_of(s, false));
    }
    const std::string form = s.array ? "array" : s.device_resident ? "tiles-device" : "tiles-host";
    Options opts = options_for(s, mapping, s.variant);
    opts.factor = s.factor;
    Refinement refine;
    refine.shift = s.shift;
    refine.always_low = s.always_low;
    if (s.refine_budget >= 0) refine.time_budget = s.refine_budget;
    refine.tile_tolerance = s.tile_tolerance;
    const double flops = potrf_flops(n) + potrs_flops(n, nrhs);
    table.header();
    SolveReport report;
    int info = 0;
    bool restore_a = true;
    const std::vector<double> seconds = support::timed_runs(
        "starpu_chol", s.warmup, s.repeat,
        [&](const support::Run&) {
            if (s.array) {  // A is only read by a refined solve; X becomes B again
                if (restore_a) Aw = A;
                X = B;
            } else {
                a->import(A.data(), n);
                b->import(B.data(), n);
            }
        },
        [&](const support::Run& run) {
            const bool trace = run.last && !s.trace_dir.empty();  // FxT records the last timed run
            if (trace) rt.trace_start();
            if (s.array)
                info = posv(rt, n, nrhs, Aw.data(), n, X.data(), n, opts, report, refine, Tiling{s.nb > 0 ? s.nb : 0});
            else
                info = posv(*a, *b, opts, report, refine);
            if (trace) rt.trace_stop();
            restore_a = report.path != SolveReport::Path::Refined && report.path != SolveReport::Path::Gmres;
        },
        [&](const support::Run& run, double sec) {
            table.row({"starfact", std::to_string(n), std::to_string(nb), to_string(s.factor), cond_text, form,
                       std::to_string(run.timed_index), fmt("%.4f", sec), fmt("%.4f", report.factor_seconds),
                       fmt("%.1f", flops / sec * 1e-9), to_string(report.path), std::to_string(report.iterations),
                       std::to_string(report.gmres_iterations), std::to_string(report.factorizations),
                       fmt("%.2e", report.shift),
                       report.path == SolveReport::Path::Direct || report.path == SolveReport::Path::Fallback
                           ? "-"
                           : fmt("%.2e", report.backward_error),
                       std::to_string(info)});
            if (!report.reason.empty())
                table.note(std::string("  ") + to_string(report.path) + ": " + report.reason +
                           (report.skipped_tasks > 0 ? " (" + std::to_string(report.skipped_tasks) +
                                                           " tasks of the broken-down factorization skipped)"
                                                     : std::string()));
            return info == 0;
        });
    if (report.low_tiles >= 0)
        table.note("per-tile arithmetic (last run): " + std::to_string(report.low_tiles) + " of " +
                   std::to_string(report.off_diagonal_tiles) + " off-diagonal tiles in " + to_string(report.factor) +
                   " (" + report.tiles + ")");
    if (info != 0) {
        table.note("matrix is not positive definite: info = " + std::to_string(info));
        return 2;
    }
    // The backward error of the returned solution, computed the same way for every implementation.
    if (s.check) {
        std::vector<double> Xc(B.size());
        if (s.array)
            Xc = X;
        else
            b->export_to(Xc.data(), n);
        Runtime::Paused quiet(rt);
        const double berr = support::host_backward_error(n, nrhs, A.data(), Xc.data(), B.data());
        table.note("starfact backward error (host, infinity norms) " + fmt("%.2e", berr) + ", path " +
                   to_string(report.path) + ", factor " + report.rungs + ", " + std::to_string(report.iterations) + " refinement + " +
                   std::to_string(report.gmres_iterations) + " GMRES iterations, " +
                   std::to_string(report.factorizations) + " factorization(s), shift " + fmt("%.2e", report.shift) +
                   ", tolerance " + fmt("%.2e", report.tolerance) +

                   (report.gmres_iterations > 0
                        ? ", GMRES " + fmt("%.4f", report.gmres_seconds) + " s (" +
                              fmt("%.2f", 1e3 * report.gmres_seconds / report.gmres_iterations) + " ms per iteration)"
                        : std::string()));
    }
    const double ours = median(seconds);
    std::string summary = "summary: starfact posv " + std::string(to_string(s.factor)) + " (" + form + ") median " +
                          fmt("%.4f", ours) + " s, " + fmt("%.1f", flops / ours * 1e-9) +
                          " GFLOP/s (double-solve flops), path " + to_string(report.path);
#ifdef STARFACT_HAVE_CUDA
    if (s.vendor && gpu) {
        Runtime::Paused quiet(rt);
        std::vector<support::VendorBaseline> baselines;
        baselines.push_back({"cusolver dpotrf+dpotrs", [&] {
                                 return support::cusolver_dposv(n, nrhs, A.data(), B.data(), s.warmup, s.repeat);
                             }});
        if (!s.device_resident)  // what a user with the matrix in host memory does
            baselines.push_back({"cusolver dpotrf+dpotrs from host arrays", [&] {
                                     return support::cusolver_dposv_host(n, nrhs, A.data(), B.data(), s.warmup,
                                                                         s.repeat);
                                 }});
        if (s.factor != Precision::Fp64)
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
    return 0;
}

}  // namespace starfact::chol_driver

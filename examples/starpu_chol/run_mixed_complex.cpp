// starpu_chol --prec z --op posv --factor-prec fp32|tf32: the mixed-precision Hermitian solve (starfact::posv on
// complex<double> tiles with Options::factor and a SolveReport, mixed.hpp) on a random Hermitian positive definite
// matrix (complex entries uniform in [-0.5, 0.5] below the diagonal, their conjugates above, a real diagonal plus n:
// well conditioned); per run the path, the iterations and the backward error; then starfact's complex<double> posv
// (potrf + potrs, its own plan's tiles) on the same matrix and right-hand sides, and, with a GPU, cuSOLVER's zpotrf
// (the factorization alone, on a device copy), and the ratios. bench_posv_mixed_complex times the same solve against
// cuSOLVER's zpotrf + zpotrs.
#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "examples/starpu_chol/run_common.hpp"
#include "starfact/cholesky_complex.hpp"
#include "support/reference_complex.hpp"

namespace starfact::chol_driver {

namespace {

using Z = std::complex<double>;

/// max_j ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf) on the host (A whole, both triangles).
double backward_error(int64_t n, int64_t nrhs, const std::vector<Z>& A, const std::vector<Z>& X,
                      const std::vector<Z>& B) {
    double anorm = 0;
    for (int64_t j = 0; j < n; ++j) {  // Hermitian: the columns' 1-norms are the rows'
        double c = 0;
        for (int64_t i = 0; i < n; ++i) c += std::abs(A[static_cast<size_t>(i + j * n)]);
        anorm = std::max(anorm, c);
    }
    double worst = 0;
    for (int64_t c = 0; c < nrhs; ++c) {
        std::vector<Z> r(B.begin() + c * n, B.begin() + (c + 1) * n);
        for (int64_t j = 0; j < n; ++j) {
            const Z x = X[static_cast<size_t>(j + c * n)];
            for (int64_t i = 0; i < n; ++i) r[static_cast<size_t>(i)] -= A[static_cast<size_t>(i + j * n)] * x;
        }
        double rn = 0, xn = 0, bn = 0;
        for (int64_t i = 0; i < n; ++i) {
            rn = std::max(rn, std::abs(r[static_cast<size_t>(i)]));
            xn = std::max(xn, std::abs(X[static_cast<size_t>(i + c * n)]));
            bn = std::max(bn, std::abs(B[static_cast<size_t>(i + c * n)]));
        }
        worst = std::max(worst, rn / (anorm * xn + bn));
    }
    return worst;
}

}  // namespace

int run_mixed_complex(const Settings& s, Runtime& rt, Mapping mapping) {
    const int64_t n = matrix_order(s, rt), nrhs = s.nrhs;
    const bool gpu = rt.cuda_workers() > 0 && mapping != Mapping::CpuOnly;
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    const Plan planned = driver_plan(s, mapping, n, rt, "posv");
    const int64_t nb = planned.nb;
    const Table table(s.csv, {"impl", "n", "nb", "factor", "run", "seconds", "factor_s", "GFLOP/s", "path",
                              "iterations", "gmres", "factorizations", "backward_error", "info"});
    table.note("starpu_chol --prec z --op posv --factor-prec " + std::string(to_string(s.factor)) + ": " +
               rt.describe());
    table.note("plan: " + planned.to_string());
    std::vector<Z> A = support::host_matrix<Z>(n, "starpu_chol"), B(static_cast<size_t>(n * nrhs));
    support::random_hermitian<Z>(n, A.data(), n, s.seed, static_cast<double>(n));
    support::random_complex<Z>(n, nrhs, B.data(), n, s.seed + 1);
    TileMatrix<Z> a(rt, n, nb, residency), b(rt, n, nrhs, nb, residency);
    Options opts;
    opts.mapping = mapping;
    opts.factor = s.factor;
    Refinement refine;
    refine.shift = s.shift;
    refine.always_low = s.always_low;
    if (s.refine_budget >= 0) refine.time_budget = s.refine_budget;
    const double flops = 4.0 * (potrf_flops(n) + potrs_flops(n, nrhs));  // the complex<double> solve's, in real flops
    table.header();
    SolveReport report;
    int info = 0;
    const std::vector<double> seconds = support::timed_runs(
        "starpu_chol", s.warmup, s.repeat,
        [&](const support::Run&) {
            a.import(A.data(), n);
            b.import(B.data(), n);
        },
        [&](const support::Run&) { info = posv(a, b, opts, report, refine); },
        [&](const support::Run& run, double sec) {
            table.row({"starfact", std::to_string(n), std::to_string(nb), to_string(s.factor),
                       std::to_string(run.timed_index), fmt("%.4f", sec), fmt("%.4f", report.factor_seconds),
                       fmt("%.1f", flops / sec * 1e-9), to_string(report.path), std::to_string(report.iterations),
                       std::to_string(report.gmres_iterations), std::to_string(report.factorizations),
                       report.path == SolveReport::Path::Refined || report.path == SolveReport::Path::Gmres
                           ? fmt("%.2e", report.backward_error)
                           : "-",
                       std::to_string(info)});
            if (!report.reason.empty()) table.note(std::string("  ") + to_string(report.path) + ": " + report.reason);
            return info == 0;
        });
    if (info != 0) {
        table.note("matrix is not positive definite: info = " + std::to_string(info));
        return 2;
    }
    double berr = -1;
    if (s.check) {
        std::vector<Z> X(B.size());
        b.export_to(X.data(), n);
        Runtime::Paused quiet(rt);
        berr = backward_error(n, nrhs, A, X, B);
        table.note("starfact backward error (host, infinity norms) " + fmt("%.2e", berr) + ", tolerance " +
                   fmt("%.2e", report.tolerance) + ", path " + to_string(report.path));
    }
    const double ours = median(seconds);
    std::string summary = "summary: starfact posv z in " + std::string(to_string(s.factor)) + " median " +
                          fmt("%.4f", ours) + " s, " + fmt("%.1f", flops / ours * 1e-9) +
                          " GFLOP/s (complex<double>-solve flops), path " + to_string(report.path);
    if (s.vendor) {
        // starfact's complex<double> solve on its own plan's tiles, the same matrix and right-hand sides
        Request zr;
        zr.op = Operation::Posv;
        zr.element = Precision::C128;
        zr.m = zr.n = n;
        zr.nrhs = nrhs;
        zr.options.mapping = mapping;
        zr.tiling.residency = residency;
        const int64_t znb = plan(zr, Machine::of(rt)).nb;
        TileMatrix<Z> za(rt, n, znb, residency), zb(rt, n, nrhs, znb, residency);
        Options zopts;
        zopts.mapping = mapping;
        int zinfo = 0;
        const std::vector<double> zs = support::timed_runs(
            "starpu_chol", s.warmup, s.repeat,
            [&](const support::Run&) {
                za.import(A.data(), n);
                zb.import(B.data(), n);
            },
            [&](const support::Run&) { zinfo = posv(za, zb, zopts); },
            [&](const support::Run& run, double sec) {
                table.row({"starfact-z", std::to_string(n), std::to_string(znb), "native",
                           std::to_string(run.timed_index), fmt("%.4f", sec), "-", fmt("%.1f", flops / sec * 1e-9),
                           "direct", "0", "0", "0", "-", std::to_string(zinfo)});
                return zinfo == 0;
            });
        const double tz = median(zs);
        summary += "; starfact zposv median " + fmt("%.4f", tz) + " s, ratio zposv/mixed = " + fmt("%.3f", tz / ours);
#ifdef STARFACT_HAVE_CUDA
        if (gpu) {
            const support::DeviceCopy<Z> ref(true, n, A.data());
            Runtime::Paused quiet(rt);
            const VendorRun v = ref.dev->cusolver_potrf(s.warmup, s.repeat, false);
            const double tv = median(v.seconds);
            summary += "; cusolver zpotrf alone median " + fmt("%.4f", tv) + " s, ratio zpotrf/mixed = " +
                       fmt("%.3f", tv / ours) + " (bench_posv_mixed_complex times zpotrf + zpotrs)";
        }
#endif
    }
    (void)gpu;
    table.note(summary);
    return s.check && !(berr <= 4 * report.tolerance) && report.path != SolveReport::Path::Fallback ? 1 : 0;
}

}  // namespace starfact::chol_driver

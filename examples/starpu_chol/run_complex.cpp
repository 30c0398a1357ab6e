// starpu_chol --prec c|z: the complex tile Cholesky (starfact/cholesky_complex.hpp) of a random Hermitian positive
// definite matrix on the plan's tiles, one line per timed run, then a solve with the last run's factor (potrs) and its
// residual, then the vendor's c/z potrf on the same matrix in the same process (cusolverDnXpotrf on a device copy
// with a GPU, and for host-resident tiles also with the copies timed; else one LAPACKE call), and the summary with
// the ratio vendor / starfact. The same table, timing, alternation on CPU cores and exit statuses as run_single.cpp.
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

/// What the timed runs of starfact's potrf left.
struct Runs {
    std::vector<double> seconds;
    double residual = -1;  // of the last run, when checked
    int info = 0;
    support::BusyShare busy;
    Runtime::Transfers moved;  // in the last run
};

/// The part of one run row after `prefix`: run index, seconds, GFLOP/s, residual, info.
std::vector<std::string> row(std::vector<std::string> cells, int index, double sec, double flops, double residual,
                             int info) {
    cells.push_back(std::to_string(index));
    cells.push_back(fmt("%.4f", sec));
    cells.push_back(fmt("%.1f", flops / sec * 1e-9));
    cells.push_back(residual_text(residual));
    cells.push_back(std::to_string(info));
    return cells;
}

template <typename C>
int run(const Settings& s, Runtime& rt, Mapping mapping) {
    const int64_t n = matrix_order(s, rt);
    const bool gpu = mapping != Mapping::CpuOnly && rt.cuda_workers() > 0;
    const Plan planned = driver_plan(s, mapping, n, rt, "potrf");
    const int64_t nb = planned.nb;
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    const double flops = 4.0 * potrf_flops(n);  // a complex multiply-add is 4 real ones
    const Table table(s.csv, {"impl", "n", "nb", "prec", "variant", "panel", "diag", "mapping", "sched", "residency",
                              "run", "seconds", "GFLOP/s", "residual", "info"});
    table.note("starpu_chol: " + rt.describe());
    if (support::model_based(rt.scheduler()) && !models_present(rt, s.prec))
        table.note("note: performance models not yet calibrated on this machine: the " + std::to_string(s.warmup) +
                   " warm-up run(s) calibrate them" + (s.warmup == 0 ? " (none requested: dmda* timings are uncalibrated)" : ""));

    // The Hermitian positive definite matrix, whole (both triangles: the solve's residual reads all of it), on the
    // host; with a GPU also on the device (the cuSOLVER baseline, the residual, and the device-resident tiles' source).
    std::vector<C> A = support::host_matrix<C>(n, "starpu_chol");
    support::random_hermitian<C>(n, A.data(), n, s.seed, static_cast<double>(n));
    const Reference<C> ref(gpu, n, A.data());  // (run_common.hpp)
    TileMatrix<C> tiles(rt, n, nb, residency, layout_of(s, false));
    if (residency == Residency::Device) table.note(placement_text(tiles));
    Options opts;
    opts.mapping = mapping;  // the complex Cholesky's only option
    const std::string diag = mapping == Mapping::CpuOnly ? "lapack" : to_string(planned.diag);
    table.note("plan: " + planned.to_string());

    // Warm-up and timed runs of potrf on tiles refilled before each (device-to-device for device-resident tiles);
    // the residual of the last run when `check`; a row per timed run, numbered from `first`.
    const std::vector<std::string> prefix = {"starfact", std::to_string(n), std::to_string(nb), std::string(1, s.prec),
                                             s.variant.name(), to_string(planned.panel), diag, to_string(mapping),
                                             rt.scheduler(), to_string(residency)};
    const auto potrf_runs = [&](int warmup, int repeat, bool check, bool trace_last, bool rows, int first) {
        Runs out;
        out.seconds = support::timed_runs(
            "starpu_chol", warmup, repeat,
            [&](const support::Run& r) {
                const C* src = residency == Residency::Device && ref.device_copy() ? ref.device_copy() : A.data();
                tiles.import(src, n);
                rt.transfers();  // resets StarPU's bus counters
                if (r.last && s.profiling) support::profiling_reset();
                if (r.last && trace_last) rt.trace_start();
            },
            [&](const support::Run&) { out.info = potrf(tiles, opts); },
            [&](const support::Run& r, double sec) {
                if (r.last && trace_last) rt.trace_stop();
                if (r.last && s.profiling) out.busy = support::profiling_read();
                out.moved = rt.transfers();
                if (r.last && check && out.info == 0) out.residual = ref.residual(rt, tiles, n, A.data());
                if (rows)
                    table.row(row(prefix, first + r.timed_index, sec, flops, r.last ? out.residual : -1, out.info));
                return out.info == 0;
            });
        return out;
    };

    if (s.calibrate) {
        potrf_runs(s.warmup, 0, false, false, false, 0);
        table.note("calibrated: " + std::to_string(s.warmup) + " run(s) of the complex Cholesky (" +
                   std::string(1, s.prec) + ") " + to_string(mapping) + " n=" + std::to_string(n) +
                   " nb=" + std::to_string(nb) + "; models in " + rt.perfmodel_dir());
        return 0;
    }
    table.header();
    // On the CPU cores starfact and LAPACKE take turns, one timed run each per round after their warm-ups (as the real
    // factorization does: a machine whose speed drifts weighs on both alike).
    const bool alternate = mapping == Mapping::CpuOnly && s.vendor && s.repeat > 1 && s.trace_dir.empty();
    Runs m;
    VendorRun v;
    if (alternate) {
        for (int r = 0; r < s.repeat; ++r) {
            const bool last = r + 1 == s.repeat;
            const int warmup = r == 0 ? s.warmup : 0;
            const Runs one = potrf_runs(warmup, 1, s.check && last, false, true, r);
            m.seconds.insert(m.seconds.end(), one.seconds.begin(), one.seconds.end());
            m.info = one.info;
            m.residual = one.residual;
            m.busy = one.busy;
            m.moved = one.moved;
            if (m.info != 0) break;
            const VendorRun w = ref.vendor(rt, n, A.data(), warmup, 1, s.check && last);
            v.name = w.name;
            v.info = w.info;
            v.residual = w.residual;
            v.seconds.insert(v.seconds.end(), w.seconds.begin(), w.seconds.end());
        }
    } else {
        m = potrf_runs(s.warmup, s.repeat, s.check, !s.trace_dir.empty(), true, 0);
    }
    if (m.info != 0) {
        table.note("matrix is not positive definite: info = " + std::to_string(m.info));
        return 2;
    }

    // A X = B with the last run's factor, on tiles of the same size and residency.
    double solve_residual = -1;
    if (s.check) {
        const int64_t nrhs = s.nrhs;
        std::vector<C> B(static_cast<size_t>(n) * static_cast<size_t>(nrhs)), X(B.size());
        support::random_complex<C>(n, nrhs, B.data(), n, s.seed + 1);
        TileMatrix<C> b(rt, n, nrhs, nb, residency);
        b.import(B.data(), n);
        potrs(tiles, b, opts);
        b.export_to(X.data(), n);
        Runtime::Paused quiet(rt);
        solve_residual = support::complex_solve_residual<C>(n, nrhs, A.data(), X.data(), B.data());
        table.note("solve: potrs, nrhs = " + std::to_string(nrhs) +
                   ", residual ||A X - B|| / (||A|| ||X|| n eps) = " + residual_text(solve_residual));
    }

    const double ours = median(m.seconds);
    std::string summary = "summary: starfact median " + fmt("%.4f", ours) + " s, " + fmt("%.1f", flops / ours * 1e-9) +
                          " GFLOP/s (complex " + std::string(1, s.prec) + "potrf, 4x the real flops)";
    if (support::counts_transfers(s, mapping == Mapping::CpuOnly) && gpu)
        summary += support::transfer_summary(m.moved, m.seconds.empty() ? 0.0 : m.seconds.back());
    if (gpu && !support::gpu_busy_text(m.busy).empty()) table.note(support::gpu_busy_text(m.busy) + " (last timed run)");
    if (s.vendor) {
        if (!alternate) v = ref.vendor(rt, n, A.data(), s.warmup, s.repeat, s.check);
        if (ref.device() >= 0)
            table.note("vendor: cusolverDnXpotrf (" + std::string(s.prec == 'c' ? "CUDA_C_32F" : "CUDA_C_64F") +
                       ") on GPU " + std::to_string(ref.device()) + " alone, on its own copy of the matrix");
        const std::vector<std::string> vendor_prefix = {v.name, std::to_string(n), "-", std::string(1, s.prec), "-",
                                                        "-", "-", "-", "-", v.name == "cusolver" ? "device" : "host"};
        for (size_t i = 0; i < v.seconds.size(); ++i)
            table.row(row(vendor_prefix, static_cast<int>(i + 1), v.seconds[i], flops,
                          i + 1 == v.seconds.size() ? v.residual : -1, v.info));
        summary += support::vendor_summary(v, flops, ours);
        if (gpu && residency == Residency::Host) {  // what a host user does instead: copies + cuSOLVER
            const VendorRun h = ref.vendor(rt, n, A.data(), s.warmup, s.repeat, false, true);
            const std::vector<std::string> host_prefix = {h.name, std::to_string(n), "-", std::string(1, s.prec), "-",
                                                          "-", "-", "-", "-", "host"};
            for (size_t i = 0; i < h.seconds.size(); ++i)
                table.row(row(host_prefix, static_cast<int>(i + 1), h.seconds[i], flops, -1, h.info));
            const double th = median(h.seconds);
            summary += "; " + h.name + " median " + fmt("%.4f", th) + " s; ratio " + h.name + "/starfact = " +
                       fmt("%.3f", th / ours);
        }
    }
    // (a NaN residual fails the check)
    const bool nan = std::isnan(m.residual) || std::isnan(solve_residual);
    const int status = summary_status(table, summary, nan ? INFINITY : std::max(m.residual, solve_residual));
    if (mapping == Mapping::CpuOnly && support::gpus_in_use(s) == 0)
        table.note("no GPU here: this was starfact's CPU path, StarPU tasks on the CPU cores against one multithreaded "
                   "LAPACKE call. starfact is made for NVIDIA GPUs: with one, this command factors on it against "
                   "cuSOLVER (docs/starpu_chol.md)");
    return status;
}

}  // namespace

int run_complex(const Settings& s, Runtime& rt, Mapping mapping) {
    return s.prec == 'c' ? run<std::complex<float>>(s, rt, mapping) : run<std::complex<double>>(s, rt, mapping);
}

}  // namespace starfact::chol_driver

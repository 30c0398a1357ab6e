// starpu_chol's single run: one configuration, one line per timed run, then the vendor on the same matrix.
#include <algorithm>
#include <string>
#include <vector>

#include "examples/starpu_chol/run_common.hpp"

namespace starfact::chol_driver {
namespace {

/// starfact's timed runs (rows in `table`) and the vendor's (into `v`) in turns: both warm up, then each round
/// times one run of each; the residuals are checked on the last round.
template <typename T>
Measured alternating(const Settings& s, Runtime& rt, TileMatrix<T>& tiles, const Reference<T>& ref, const T* A,
                     int64_t n, const Options& opts, const Table& table, const std::vector<std::string>& prefix,
                     VendorRun& v) {
    Measured out;
    Settings one = s;
    one.repeat = 1;
    for (int r = 0; r < s.repeat; ++r) {
        one.warmup = r == 0 ? s.warmup : 0;
        one.check = s.check && r + 1 == s.repeat;
        const Measured m = measure<T>(one, rt, tiles, ref, A, n, opts, false, nullptr, prefix);
        const VendorRun w = ref.vendor(rt, n, A, one.warmup, 1, one.check);
        v.name = w.name;
        v.info = w.info;
        v.residual = w.residual;
        v.seconds.insert(v.seconds.end(), w.seconds.begin(), w.seconds.end());
        out.info = m.info;
        out.tasks = m.tasks;
        out.residual = m.residual;
        for (double sec : m.seconds) {
            out.seconds.push_back(sec);
            std::vector<std::string> cells = prefix;
            cells.push_back(std::to_string(out.seconds.size()));
            cells.push_back(fmt("%.4f", sec));
            cells.push_back(fmt("%.1f", potrf_flops(n) / sec * 1e-9));
            cells.push_back(residual_text(r + 1 == s.repeat ? out.residual : -1));
            cells.push_back(std::to_string(out.info));
            table.row(cells);
        }
        if (m.info != 0) break;
    }
    return out;
}

template <typename T>
int run(const Settings& s, Runtime& rt, Mapping mapping) {
    const int64_t n = matrix_order(s, rt);
    const bool gpu = mapping != Mapping::CpuOnly && rt.cuda_workers() > 0;
    const int64_t nb = tile_size(s, mapping, n, rt);
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    const Table table(s.csv, {"impl", "n", "nb", "prec", "variant", "panel", "diag", "mapping", "sched", "residency",
                              "run", "seconds", "GFLOP/s", "residual", "info"});
    table.note("starpu_chol: " + rt.describe());
    if (support::model_based(rt.scheduler()) && !models_present(rt, s.prec))
        table.note("note: performance models not yet calibrated on this machine: the " + std::to_string(s.warmup) +
                   " warm-up run(s) calibrate them" + (s.warmup == 0 ? " (none requested: dmda* timings are uncalibrated)" : ""));

    // Without a residual check nothing needs the n x n host array: the tiles are generated where they live (the
    // out-of-core and multi-GPU runs, whose matrices may only fit as tiles), and the cuSOLVER baseline generates the
    // same matrix in its GPU's memory. A CPU-only run's LAPACK baseline still needs the array.
    const bool tiles_only = !s.check && !s.calibrate && (!s.vendor || gpu);
    std::vector<T> A;
    if (!tiles_only) {
        A = support::host_matrix<T>(n, "starpu_chol");
        random_symmetric<T>(n, A.data(), n, s.seed, static_cast<double>(n));
    } else {
        table.note(std::string("matrix generated tile by tile where the tiles live (--no-check: no n x n host array)") +
                   (s.vendor ? "; the vendor baseline generates the same matrix on its GPU" : ""));
    }
    const Reference<T> ref = tiles_only ? Reference<T>(gpu && s.vendor, n, s.seed, static_cast<double>(n))
                                        : Reference<T>(gpu, n, A.data());
    // The generated matrix has no upper triangle of tiles.
    TileMatrix<T> tiles(rt, n, nb, residency, layout_of(s, tiles_only));
    if (residency == Residency::Device) table.note(placement_text(tiles));
    const Options opts = options_for(s, mapping, s.variant);
    const Plan planned = driver_plan(s, mapping, n, rt, "potrf");
    const std::string diag = mapping == Mapping::CpuOnly ? "lapack" : to_string(planned.diag);
    const std::string panel = to_string(planned.panel);
    table.note("plan: " + planned.to_string());

    if (s.calibrate) {
        Settings cal = s;
        cal.repeat = 0;
        measure<T>(cal, rt, tiles, ref, A.data(), n, opts, false, nullptr, {});
        table.note("calibrated: " + std::to_string(s.warmup) + " run(s) of " + s.variant.name() + " " +
                   to_string(mapping) + " n=" + std::to_string(n) + " nb=" + std::to_string(nb) + "; models in " +
                   rt.perfmodel_dir());
        return 0;
    }
    table.header();
    const std::vector<std::string> prefix = {"starfact", std::to_string(n), std::to_string(nb), std::string(1, s.prec),
                                             s.variant.name(), panel, diag, to_string(mapping), rt.scheduler(),
                                             to_string(residency)};
    // On the CPU cores starfact and LAPACKE take turns, one timed run each per round (their warm-ups first), so that
    // a machine whose speed drifts during the runs (a build's write-back, the clock) weighs on both alike.
    const bool alternate = mapping == Mapping::CpuOnly && s.vendor && s.repeat > 1 && s.trace_dir.empty();
    VendorRun v;
    const Measured m = alternate ? alternating<T>(s, rt, tiles, ref, A.data(), n, opts, table, prefix, v)
                                 : measure<T>(s, rt, tiles, ref, tiles_only ? nullptr : A.data(), n, opts,
                                              !s.trace_dir.empty(), &table, prefix);
    if (m.info != 0) {
        table.note("matrix is not positive definite: info = " + std::to_string(m.info));
        return 2;
    }
    const double ours = median(m.seconds);
    std::string summary = "summary: starfact median " + fmt("%.4f", ours) + " s, " +
                          fmt("%.1f", potrf_flops(n) / ours * 1e-9) + " GFLOP/s, " + std::to_string(m.tasks) + " tasks";
    if (support::counts_transfers(s, mapping == Mapping::CpuOnly) && gpu)
        summary += support::transfer_summary(m.moved, m.seconds.empty() ? 0.0 : m.seconds.back());
    if (gpu && !support::gpu_busy_text(m.busy).empty()) table.note(support::gpu_busy_text(m.busy) + " (last timed run)");
    if (s.vendor) {
        if (!alternate) v = ref.vendor(rt, n, A.data(), s.warmup, s.repeat, s.check);
        if (ref.device() >= 0)
            table.note("vendor: cusolverDnXpotrf on GPU " + std::to_string(ref.device()) +
                       " alone, on its own copy of the matrix");
        for (size_t i = 0; i < v.seconds.size(); ++i)
            table.row({v.name, std::to_string(n), "-", std::string(1, s.prec), "-", "-", "-", "-", "-",
                       v.name == "cusolver" ? "device" : "host", std::to_string(i + 1), fmt("%.4f", v.seconds[i]),
                       fmt("%.1f", potrf_flops(n) / v.seconds[i] * 1e-9),
                       residual_text(i + 1 == v.seconds.size() ? v.residual : -1), std::to_string(v.info)});
        summary += support::vendor_summary(v, potrf_flops(n), ours);
        if (gpu && residency == Residency::Host) {  // what a host user does instead: copies + cuSOLVER
            const VendorRun h = ref.vendor(rt, n, A.data(), s.warmup, s.repeat, false, true);
            const double th = median(h.seconds);
            for (size_t i = 0; i < h.seconds.size(); ++i)
                table.row({h.name, std::to_string(n), "-", std::string(1, s.prec), "-", "-", "-", "-", "-", "host",
                           std::to_string(i + 1), fmt("%.4f", h.seconds[i]),
                           fmt("%.1f", potrf_flops(n) / h.seconds[i] * 1e-9), "-", std::to_string(h.info)});
            summary += "; " + h.name + " median " + fmt("%.4f", th) + " s; ratio " + h.name + "/starfact = " +
                       fmt("%.3f", th / ours);
        }
    }
    const int status = summary_status(table, summary, m.residual);
    if (mapping == Mapping::CpuOnly && support::gpus_in_use(s) == 0)
        table.note("no GPU here: this was starfact's CPU path, StarPU tasks on the CPU cores against one multithreaded "
                   "LAPACKE call. starfact is made for NVIDIA GPUs: with one, this command factors n = 16384 on it "
                   "against cuSOLVER (docs/results.md)");
    return status;
}

}  // namespace

int run_single(const Settings& s, Runtime& rt, Mapping mapping) {
    if (support::complex_prec(s.prec)) return run_complex(s, rt, mapping);
    return s.prec == 's' ? run<float>(s, rt, mapping) : run<double>(s, rt, mapping);
}

}  // namespace starfact::chol_driver

// starpu_chol --compare: every scheduler x mapping x variant on the same matrix, one table (median seconds,
// GFLOP/s, time relative to the best row, residual, tasks, busy shares of the last timed run).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "examples/starpu_chol/run_common.hpp"

namespace starfact::chol_driver {
namespace {

struct CompareRow {
    std::string sched, mapping, variant;
    Measured m;
};

template <typename T>
int run(const Settings& s) {
    if (std::getenv("STARPU_SCHED")) {
        std::fprintf(stderr, "[starpu_chol] --compare: STARPU_SCHED=%s ignored, schedulers come from --scheds\n",
                     std::getenv("STARPU_SCHED"));
        unsetenv("STARPU_SCHED");
    }
    const Table table(s.csv, {"sched", "mapping", "variant", "seconds", "GFLOP/s", "x best", "residual", "tasks",
                              "CPU busy%", "GPU busy%", "GPU idle%"});
    std::vector<CompareRow> rows;
    std::vector<T> A;
    int64_t n = 0, nb = 0;
    VendorRun vendor;
    size_t total = 0, done = 0;  // known once the first runtime tells whether a GPU is present
    for (const std::string& sched : s.scheds) {
        Runtime rt(support::runtime_config(s, sched, false));
        if (rows.empty()) table.note("starpu_chol --compare: " + rt.describe());
        std::vector<Mapping> mappings = s.mappings;
        if (mappings.empty()) {
            if (rt.cuda_workers() > 0) mappings = {Mapping::GpuOnly, Mapping::Hybrid};
            else mappings = {Mapping::CpuOnly};
        }
        const bool gpu = rt.cuda_workers() > 0;
        if (total == 0) total = s.scheds.size() * mappings.size() * s.variants.size();
        if (A.empty()) {
            n = matrix_order(s, rt);
            nb = tile_size(s, gpu ? Mapping::GpuOnly : Mapping::CpuOnly, n, rt);
            A.resize(static_cast<size_t>(n) * n);
            random_symmetric<T>(n, A.data(), n, s.seed, static_cast<double>(n));
            table.note("n=" + std::to_string(n) + " nb=" + std::to_string(nb) + " prec=" + s.prec + " panel=" +
                       to_string(s.panel) + " diag=" + to_string(s.diag) + " residency=" +
                       (s.device_resident ? "device" : "host") + ", " + std::to_string(s.warmup) + " warm-up and " +
                       std::to_string(s.repeat) + " timed runs per row (warm-ups calibrate the models)");
        }
        const Reference<T> ref(gpu, n, A.data());
        TileMatrix<T> tiles(rt, n, nb, s.device_resident ? Residency::Device : Residency::Host, layout_of(s, false));
        if (s.vendor && vendor.name.empty()) vendor = ref.vendor(rt, n, A.data(), s.warmup, s.repeat, false);
        for (Mapping mapping : mappings) {
            if (!rt.supports(mapping)) {
                table.note("skipped " + std::string(to_string(mapping)) + ": no suitable worker");
                continue;
            }
            for (const Variant& v : s.variants) {
                std::fprintf(stderr, "[starpu_chol] compare %zu/%zu: %s %s %s\n", ++done, total, sched.c_str(),
                             to_string(mapping), v.name().c_str());
                const Options opts = options_for(s, mapping, v);
                rows.push_back({rt.scheduler(), to_string(mapping), v.name(),
                                measure<T>(s, rt, tiles, ref, A.data(), n, opts, false, nullptr, {})});
                if (rows.back().m.info != 0) {
                    table.note("matrix is not positive definite: info = " + std::to_string(rows.back().m.info));
                    return 2;
                }
            }
        }
    }
    double best = 1e300;
    for (const auto& r : rows) best = std::min(best, median(r.m.seconds));
    table.header();
    for (const auto& r : rows) {
        const double t = median(r.m.seconds);
        table.row({r.sched, r.mapping, r.variant, fmt("%.4f", t), fmt("%.1f", potrf_flops(n) / t * 1e-9),
                   fmt("%.2f", t / best), residual_text(r.m.residual), std::to_string(r.m.tasks),
                   r.m.busy.has_cpu ? fmt("%.1f", r.m.busy.cpu) : "-", r.m.busy.has_gpu ? fmt("%.1f", r.m.busy.gpu) : "-",
                   r.m.busy.has_gpu ? fmt("%.1f", r.m.busy.gpu_idle) : "-"});
    }
    if (!vendor.name.empty()) {
        const double t = median(vendor.seconds);
        table.row({vendor.name, "-", "-", fmt("%.4f", t), fmt("%.1f", potrf_flops(n) / t * 1e-9), fmt("%.2f", t / best),
                   "-", "-", "-", "-", "-"});
    }
    for (const auto& r : rows)
        if (r.m.residual >= 60) {
            table.note("residual check FAILED (>= 60) for " + r.sched + " " + r.mapping + " " + r.variant);
            return 3;
        }
    return 0;
}

}  // namespace

int run_compare(const Settings& s) { return s.prec == 's' ? run<float>(s) : run<double>(s); }

}  // namespace starfact::chol_driver

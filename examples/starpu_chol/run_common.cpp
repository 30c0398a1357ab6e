// starpu_chol's shared run helpers and the timing of one configuration (run_common.hpp).
#include "examples/starpu_chol/run_common.hpp"

#include <complex>

namespace starfact::chol_driver {

int64_t matrix_order(const Settings& s, const Runtime& rt) {
    return s.n > 0 ? s.n : (rt.cuda_workers() > 0 ? 16384 : 2000);
}

TileLayout layout_of(const Settings& s, bool lower_only, const Grid& grid) {
    TileLayout layout;
    layout.grid = grid;
    layout.lower_only = lower_only;
    layout.placement = s.placement;
    layout.device_grid = s.device_grid;
    return layout;
}

template <typename T>
std::string placement_text(const TileMatrix<T>& tiles) {
    if (tiles.residency() != Residency::Device) return "";
    const Grid& g = tiles.device_grid();
    return "placement=" + std::string(to_string(tiles.layout().placement)) +
           (tiles.layout().placement == DevicePlacement::BlockCyclic2D
                ? " device-grid=" + std::to_string(g.p) + "x" + std::to_string(g.q)
                : "") +
           " over " + std::to_string(tiles.runtime().cuda_devices()) + " GPU(s)";
}

Options options_for(const Settings& s, Mapping mapping, const Variant& variant) {
    Options opts;
    opts.mapping = mapping;
    opts.variant = variant;
    opts.panel = s.panel;
    opts.diag = s.diag;
    opts.factor = s.factor;  // --factor-prec: a float potrf's tensor-core updates (run_mixed sets its own)
    return opts;
}

Plan driver_plan(const Settings& s, Mapping m, int64_t n, const Runtime& rt, const std::string& op) {
    Request r;
    r.op = parse_operation(op, "--op");
    r.element = support::element_of(s.prec);  // c, z: the complex Cholesky's plan
    r.m = r.n = n;
    r.nrhs = r.op == Operation::Posv ? s.nrhs : 0;
    r.options = options_for(s, m, s.variant);
    r.options.factor = s.factor;
    r.tiling.nb = s.nb > 0 ? s.nb : 0;  // no --nb: the plan's
    r.tiling.residency = s.device_resident ? Residency::Device : Residency::Host;
    r.always_low = s.always_low;
    r.distributed = rt.mpi_size() > 1;  // a run on several ranks spreads its tiles over them (run_grid.cpp)
    Machine machine = Machine::of(rt);
    machine.cuda_devices *= rt.mpi_size();  // a distributed matrix spreads over every rank's GPUs
    return plan(r, machine);
}

int64_t tile_size(const Settings& s, Mapping m, int64_t n, const Runtime& rt) {
    return driver_plan(s, m, n, rt, "potrf").nb;
}

bool models_present(const Runtime& rt, char prec) {
    if (support::complex_prec(prec))  // the complex tile codelets' models (codelets/complex_tiles.cpp)
        return support::models_present(rt, prec, {"potrf_tile", "trsm_tile", "herk_tile", "gemm_tile"});
    return support::models_present(rt, prec, {"potrf", "trsm", "syrk", "gemm"});
}

int summary_status(const Table& table, const std::string& summary, double residual) {
    table.note(summary);
    if (residual >= 60) {
        table.note("residual check FAILED (>= 60)");
        return 3;
    }
    return 0;
}

template <typename T>
Measured measure(const Settings& s, Runtime& rt, TileMatrix<T>& tiles, const Reference<T>& ref, const T* A, int64_t n,
                 Options opts, bool trace_last, const Table* per_run, const std::vector<std::string>& row_prefix) {
    Measured out;
    RunStats stats;
    const bool profile_last = s.compare || s.profiling;  // busy shares of the last timed run
    out.seconds = support::timed_runs(
        "starpu_chol", s.warmup, s.repeat,
        [&](const support::Run& run) {
            if (A) {
                const T* src = tiles.residency() == Residency::Device && ref.device_copy() ? ref.device_copy() : A;
                tiles.import(src, n);
            } else {
                random_symmetric(tiles, s.seed, static_cast<double>(n));  // where the tiles live
            }
            rt.transfers();  // resets StarPU's bus counters
            if (run.last && profile_last) support::profiling_reset();
            if (trace_last && run.last) rt.trace_start();
            stats.tasks = 0;
        },
        [&](const support::Run&) { out.info = potrf(tiles, opts, stats); },
        [&](const support::Run& run, double sec) {
            if (trace_last && run.last) rt.trace_stop();
            if (run.last && profile_last) out.busy = support::profiling_read();
            out.moved = rt.transfers();
            out.tasks = stats.tasks;
            if (run.last && s.check && out.info == 0) out.residual = ref.residual(rt, tiles, n, A);
            if (per_run) {
                std::vector<std::string> cells = row_prefix;
                cells.push_back(std::to_string(run.timed_index));
                cells.push_back(fmt("%.4f", sec));
                cells.push_back(fmt("%.1f", potrf_flops(n) / sec * 1e-9));
                cells.push_back(residual_text(run.last ? out.residual : -1));
                cells.push_back(std::to_string(out.info));
                per_run->row(cells);
            }
            return out.info == 0;
        });
    return out;
}

template std::string placement_text<float>(const TileMatrix<float>&);
template std::string placement_text<double>(const TileMatrix<double>&);
template std::string placement_text<std::complex<float>>(const TileMatrix<std::complex<float>>&);
template std::string placement_text<std::complex<double>>(const TileMatrix<std::complex<double>>&);
template Measured measure<float>(const Settings&, Runtime&, TileMatrix<float>&, const Reference<float>&, const float*,
                                 int64_t, Options, bool, const Table*, const std::vector<std::string>&);
template Measured measure<double>(const Settings&, Runtime&, TileMatrix<double>&, const Reference<double>&,
                                  const double*, int64_t, Options, bool, const Table*, const std::vector<std::string>&);

}  // namespace starfact::chol_driver

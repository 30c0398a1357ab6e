// starpu_chol: the starfact experiment driver for tile Cholesky. See --help and docs/starpu_chol.md.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "starfact/starfact.hpp"
#include "support/cli.hpp"
#include "support/driver_common.hpp"
#include "support/profile.hpp"
#include "support/reference.hpp"
#include "support/trace.hpp"
#ifdef STARFACT_HAVE_MPI
#include <mpi.h>
#endif

namespace {

using namespace starfact;
using starfact::support::Cli;
using starfact::support::default_mapping;
using starfact::support::fmt;
using starfact::support::median;
using starfact::support::model_based;
using starfact::support::residual_text;
using starfact::support::runtime_config;
using starfact::support::Table;
using starfact::support::VendorRun;

const char* kHelp = R"(usage: starpu_chol [flags]

Factors a random SPD matrix (entries uniform in [-0.5, 0.5], n added to the diagonal) with starfact's
tile Cholesky under StarPU, prints one line per timed run, then the vendor's potrf on the same matrix
in the same process (cuSOLVER on device-resident data when a GPU is used, else one LAPACKE call with
all OpenBLAS threads) and the ratio vendor_time / starfact_time (> 1: starfact is faster).

problem
  --op OP           potrf (default): the factorization; posv: potrf then potrs on --nrhs random right-hand
                    sides, residual ||A X - B||_1 / (||A||_1 ||X||_1 n eps), no vendor baseline;
                    potri: the SPD inverse, potrf + trtri + lauum as one
                    task graph (tiles: starfact::potri_tile_plan unless --nb), its residual
                    ||A inv(A) - I||_1 / (||A||_1 ||inv(A)||_1 n eps), and the vendor's potrf + potri on the
                    same matrix (cuSOLVER on device-resident data with a GPU, else LAPACKE)
  --nrhs K          right-hand sides of --op posv (default 1)
  --n N             matrix order (default 16384 with a GPU, 2000 without)
  --nb NB           tile size (default: the tuned plan, starfact::tile_plan: on GPU mappings the whole
                    matrix is one tile up to a tuned order, larger tiles above; cpu-only 256;
                    docs/performance.md)
  --prec s|d        precision: s = float, d = double (default d)
  --seed S          random seed (default 1)
algorithm, mapping and runtime
  --variant V       right (default), lookahead=D, left, left-coarse, noprio (docs/variants.md)
  --panel P         panel solve: trsm (cuBLAS/BLAS trsm per tile, backward stable), inverse (trtri of the
                    diagonal tile, then one gemm per tile: faster with 1024 tiles on the H100 but not
                    backward stable, ill-conditioned tiles can give a spurious info > 0), auto (default:
                    trsm; docs/algorithms.md)
  --diag K          CUDA kernel for diagonal tiles: fused (our potf2), cusolver (cuSOLVER potrf), auto
                    (default: fused when the build has it, else cusolver; fused is 1.2-2.0x cuSOLVER
                    per tile on the H100 at nb = 64..2048: docs/potf2.md)
  --gpu-only        every task on CUDA workers (default when a GPU is present)
  --hybrid          StarPU chooses among CPU and CUDA workers
  --cpu-only        every task on CPU workers (default without a GPU)
  --sched NAME      StarPU scheduler (default dmdas; STARPU_SCHED, if set, wins)
  --device-resident tiles live in GPU memory (default: pinned host memory); with several GPUs, spread over
                    them as --placement says
  --placement P     how device-resident tiles spread over the GPUs (docs/multigpu.md): 2d (default): 2D
                    block-cyclic over a Pd x Qd device grid, tile (i, j) on GPU (i mod Pd) * Qd + (j mod Qd);
                    cyclic: tile (i, j) on GPU (i + j) mod K. The same with one GPU
  --device-grid PxQ the Pd x Qd device grid of --placement 2d; Pd * Qd must be the number of GPUs in use
                    (default: the most square with Pd <= Qd: 2 -> 1x2, 4 -> 2x2, 8 -> 2x4)
  --ncpus N         CPU workers (default: 0 for --gpu-only, whose tasks never run on a CPU, and StarPU's
                    choice otherwise; STARPU_NCPU wins)
  --ncuda N         CUDA devices (default: all; STARPU_NCUDA wins). Runs on a GPU report, for the last timed run,
                    each GPU's busy % (two bounds from the per-stream counters: the busiest stream's share
                    and the streams' summed shares) and, with host-resident tiles or several GPUs, the
                    bytes StarPU moved (host->GPU, GPU->host, GPU->GPU)
  --streams N       CUDA workers (streams) per GPU (default 4; STARPU_NWORKER_PER_CUDA wins)
  --gpu-mem-limit MB
                    MiB of each GPU's memory StarPU may use for tiles (STARPU_LIMIT_CUDA_MEM, which wins):
                    host-resident tiles beyond it are evicted and fetched again (out-of-core,
                    docs/out_of_core.md); not with --device-resident
  --perfmodel-dir D performance models directory (default ~/.cache/starfact/perfmodels unless
                    STARPU_PERF_MODEL_DIR or STARPU_HOME is set; this flag wins over both)
distributed (mpirun -np N starpu_chol ...; docs/mpi.md)
  --grid PxQ        the P x Q process grid: tile (i, j) on rank (i mod P) * Q + (j mod Q), P * Q must be the
                    number of ranks (default: the most square P x Q with P <= Q). With more than one rank (or
                    --grid), the matrix is spread over the ranks (lower triangle of tiles only), StarPU-MPI runs
                    each task on the rank owning the tile it writes; rank 0 prints the table, the residual is
                    checked on rank 0 after gathering the factor (or solution); no vendor baseline. Not
                    supported on several ranks: --op potri, --compare, --sweep, --calibrate, --trace.
                    --gpu-only needs a GPU on every rank. Run with one rank, starpu_chol is one process
comparison (one process, one table)
  --compare         run every variant x mapping x scheduler below on the same matrix, print one table:
                    median seconds, GFLOP/s, time relative to the best row, residual, tasks, and for
                    the last timed run the CPU and GPU workers' busy % and the GPUs' idle % (an upper
                    bound with several streams per GPU: 100 - the busiest stream's share)
  --variants LIST   comma-separated (default right,lookahead=2,left,noprio)
  --mappings LIST   comma-separated (default gpu-only,hybrid with a GPU, cpu-only without)
  --scheds LIST     comma-separated (default dmdas,lws)
sweep (one process, one CSV and a plot)
  --sweep           for every n of --ns, precision of --precs and mapping of --mappings (default: the
                    mapping flag given, else gpu-only and hybrid with a GPU, cpu-only without): the tuned plan's
                    run against the vendor on the same matrix (medians of --repeat after --warmup), one
                    CSV row each (--sweep-csv), a progress line per point on stderr, and the cuBLAS gemm
                    rate of each precision as the ceiling; plot with tools/plot_sweep.py
  --ns LIST         orders for --sweep (default 1024,2048,4096,6000,8192,12288,16384,24576,32768)
  --precs LIST      precisions for --sweep (default d,s)
  --sweep-csv FILE  where --sweep writes its CSV (default starpu_chol_sweep.csv)
runs, models and output
  --warmup K        untimed runs first; they also calibrate the performance models (default 2)
  --repeat R        timed runs (default 3); summaries use their median
  --calibrate       calibration only: K warm-up runs (default 5) per configuration with
                    STARPU_CALIBRATE=1, then report where the models are and exit
  --check           compute the scaled residual ||A - L L^T||_1 / (||A||_1 n eps) (default on;
                    on the GPU when one is present); exit status 3 if it is >= 60
  --no-check        skip the residual
  --no-vendor       skip the cuSOLVER / LAPACKE baseline (with host-resident tiles on a GPU, the vendor
                    path of a host user is timed too: copy to the GPU, cuSOLVER potrf, copy back)
  --trace DIR       record the last timed run with FxT into DIR, then write DIR/paje.trace, dag.dot,
                    tasks.rec (starpu_fxt_tool) and DIR/gantt.svg (one lane per worker)
  --csv             CSV rows instead of the table (notes start with '#')
  --help            this text

exit status: 0 ok, 1 bad arguments or runtime error, 2 matrix not SPD (info > 0), 3 residual >= 60
)";

/// The shared flags (support/driver_common.hpp) and the Cholesky driver's own.
struct Settings : support::DriverFlags {
    Variant variant;
    PanelSolve panel = PanelSolve::Auto;
    DiagKernel diag = DiagKernel::Auto;
    bool compare = false;
    std::vector<Variant> variants;
    std::vector<Mapping> mappings;
    std::vector<std::string> scheds;
    bool sweep = false;
    std::vector<int64_t> ns;
    std::string precs = "ds", sweep_csv = "starpu_chol_sweep.csv";
    std::string op = "potrf";
    int64_t nrhs = 1;
    Grid grid{0, 0};  // --grid; 0 x 0: not given
    DevicePlacement placement = DevicePlacement::BlockCyclic2D;  // --placement
    Grid device_grid{0, 0};                                      // --device-grid; 0 x 0: the most square
};

/// "PxQ" -> {P, Q}; throws std::invalid_argument naming `flag` otherwise.
Grid parse_grid(const std::string& text, const char* flag = "--grid") {
    const auto x = text.find('x');
    int p = 0, q = 0;
    size_t used_p = 0, used_q = 0;
    try {
        if (x != std::string::npos) {
            p = std::stoi(text.substr(0, x), &used_p);
            q = std::stoi(text.substr(x + 1), &used_q);
        }
    } catch (const std::exception&) {
        used_p = 0;
    }
    if (x == std::string::npos || used_p != x || used_q != text.size() - x - 1 || p < 1 || q < 1 || p > 65536 ||
        q > 65536)
        throw std::invalid_argument(std::string(flag) + " needs PxQ with positive integers P and Q, e.g. 2x3 (got '" +
                                    text + "')");
    return {p, q};
}

Settings parse(int argc, char** argv) {
    Settings s;
    Cli cli(argc, argv);
    while (!cli.done()) {
        const std::string f = cli.next();
        if (f == "--help") {
            std::cout << kHelp;
            std::exit(0);
        } else if (support::parse_common_flag(cli, f, s)) {
        } else if (f == "--op") s.op = cli.choice({"potrf", "potri", "posv"});
        else if (f == "--nrhs") s.nrhs = cli.integer(1, 1 << 20);
        else if (f == "--grid") s.grid = parse_grid(cli.value());
        else if (f == "--placement") s.placement = parse_device_placement(cli.choice({"2d", "cyclic"}), "--placement");
        else if (f == "--device-grid") s.device_grid = parse_grid(cli.value(), "--device-grid");
        else if (f == "--variant") s.variant = Variant::parse(cli.value(), "--variant");
        else if (f == "--panel") s.panel = parse_panel_solve(cli.value(), "--panel");
        else if (f == "--diag") s.diag = parse_diag_kernel(cli.value(), "--diag");
        else if (f == "--compare") { cli.no_value(); s.compare = true; }
        else if (f == "--variants") for (const auto& v : support::split_list(cli.value())) s.variants.push_back(Variant::parse(v, "--variants"));
        else if (f == "--mappings") for (const auto& m : support::split_list(cli.value())) s.mappings.push_back(parse_mapping(m, "--mappings"));
        else if (f == "--scheds") s.scheds = support::split_list(cli.value());
        else if (f == "--calibrate") { cli.no_value(); s.calibrate = true; }
        else if (f == "--trace") s.trace_dir = cli.value();
        else if (f == "--sweep") { cli.no_value(); s.sweep = true; }
        else if (f == "--ns") s.ns = support::int_list(cli.value(), "--ns", 1, int64_t(1) << 20);
        else if (f == "--precs") {
            s.precs.clear();
            for (const auto& p : support::split_list(cli.value())) {
                if (p != "s" && p != "d") throw std::invalid_argument("--precs must list s and/or d (got '" + p + "')");
                s.precs += p;
            }
        } else if (f == "--sweep-csv") s.sweep_csv = cli.value();
        else cli.unknown();
    }
    if (s.warmup < 0) s.warmup = s.calibrate ? 5 : 2;
    // Busy shares of the last timed run: --compare's table, and the per-GPU busy % of runs that count transfers
    // anyway (host-resident tiles, several GPUs). A device-resident run on one GPU keeps StarPU's profiling off,
    // so that its timings are those of an application's call.
    s.profiling = s.compare || (default_mapping(s) != Mapping::CpuOnly && support::gpus_in_use(s) > 0 &&
                                support::counts_transfers(s, false));
    if (s.device_grid.p > 0 && s.placement == DevicePlacement::Cyclic)
        throw std::invalid_argument("--device-grid is the grid of --placement 2d: drop it with --placement cyclic");
    if (s.gpu_mem_limit_mb > 0 && s.device_resident)
        throw std::invalid_argument("--gpu-mem-limit limits where StarPU caches host-resident tiles: drop --device-resident");
    if (s.compare && !s.trace_dir.empty()) throw std::invalid_argument("--trace records one configuration: drop --compare");
    if (s.sweep && (s.compare || !s.trace_dir.empty()))
        throw std::invalid_argument("--sweep runs its own set of configurations: drop --compare and --trace");
    if (s.op != "potrf" && (s.compare || s.sweep || s.calibrate))
        throw std::invalid_argument("--op " + s.op + " runs one configuration: drop --compare, --sweep and --calibrate");
    if (s.ns.empty()) s.ns = {1024, 2048, 4096, 6000, 8192, 12288, 16384, 24576, 32768};
    if (s.variants.empty()) s.variants = {Variant::parse("right"), Variant::parse("lookahead=2"), Variant::parse("left"),
                                          Variant::parse("noprio")};
    if (s.scheds.empty()) s.scheds = {"dmdas", "lws"};
    return s;
}

/// The tile layout of a run: this process's matrix (or `grid`'s ranks), the flags' device placement.
TileLayout layout_of(const Settings& s, bool lower_only, const Grid& grid = Grid{}) {
    TileLayout layout;
    layout.grid = grid;
    layout.lower_only = lower_only;
    layout.placement = s.placement;
    layout.device_grid = s.device_grid;
    return layout;
}

/// "placement=2d device-grid=2x2" for the notes of device-resident runs ("" for host-resident ones).
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

/// The algorithm choices of a run: the flags' panel solve and diagonal kernel, this mapping and variant.
Options options_for(const Settings& s, Mapping mapping, const Variant& variant) {
    Options opts;
    opts.mapping = mapping;
    opts.variant = variant;
    opts.panel = s.panel;
    opts.diag = s.diag;
    return opts;
}

/// The tile size of a run: --nb, else the tuned plan for this order, precision, mapping, residency and GPU count.
int64_t tile_size(const Settings& s, Mapping m, int64_t n, const Runtime& rt) {
    if (s.nb > 0) return s.nb;
    const Residency r = s.device_resident ? Residency::Device : Residency::Host;
    const bool gpu = rt.cuda_workers() > 0;
    const int gpus = rt.cuda_devices() * rt.mpi_size();  // a distributed matrix spreads over every rank's GPUs
    return s.prec == 's' ? tile_plan<float>(n, m, r, gpu, gpus).nb : tile_plan<double>(n, m, r, gpu, gpus).nb;
}

/// Whether this machine already has history for the four Cholesky kernels of this precision.
bool models_present(const Runtime& rt, char prec) {
    return support::models_present(rt, prec, {"potrf", "trsm", "syrk", "gemm"});
}

/// Device-side copy of A, cuSOLVER baseline and residuals when a GPU is in use (no-op otherwise).
template <typename T>
struct Reference : support::DeviceCopy<T> {
    using support::DeviceCopy<T>::DeviceCopy;
    double residual(const Runtime& rt, const TileMatrix<T>& L, int64_t n, const T* A) const {
#ifdef STARFACT_HAVE_CUDA
        if (this->dev) return this->dev->residual_of(L);
#endif
        std::vector<T> Lh(static_cast<size_t>(n) * n);
        L.export_to(Lh.data(), n);
        Runtime::Paused quiet(rt);
        return potrf_residual<T>(n, A, n, Lh.data(), n);
    }
    VendorRun vendor(const Runtime& rt, int64_t n, const T* A, int warmup, int repeat, bool check,
                     bool host_path = false) const {
#ifdef STARFACT_HAVE_CUDA
        if (this->dev) return this->dev->cusolver_potrf(warmup, repeat, check, host_path);
#endif
        Runtime::Paused quiet(rt);
        return support::lapacke_potrf<T>(n, A, warmup, repeat, check);
    }
};

struct Measured {
    std::vector<double> seconds;
    double residual = -1;
    int info = 0;
    int64_t tasks = 0;
    support::BusyShare busy;
    Runtime::Transfers moved;  ///< bytes StarPU moved in the last timed run (when counted)
};

/// Warm-up + timed runs of one configuration on `tiles` (refilled from A before every run).
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

/// One configuration, one line per run, then the vendor on the same matrix.
template <typename T>
int run_single(const Settings& s, Runtime& rt, Mapping mapping) {
    const int64_t n = s.n > 0 ? s.n : (rt.cuda_workers() > 0 ? 16384 : 2000);
    const bool gpu = mapping != Mapping::CpuOnly && rt.cuda_workers() > 0;
    const int64_t nb = tile_size(s, mapping, n, rt);
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    const Table table(s.csv, {"impl", "n", "nb", "prec", "variant", "panel", "diag", "mapping", "sched", "residency",
                              "run", "seconds", "GFLOP/s", "residual", "info"});
    table.note("starpu_chol: " + rt.describe());
    if (model_based(rt.scheduler()) && !models_present(rt, s.prec))
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
    const std::string diag = mapping == Mapping::CpuOnly ? "lapack"
                             : to_string(resolve_diag_kernel(s.diag, mapping));
    const std::string panel = to_string(resolve_panel_solve(s.panel, mapping, nb));

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
    const Measured m = measure<T>(s, rt, tiles, ref, tiles_only ? nullptr : A.data(), n, opts, !s.trace_dir.empty(),
                                  &table, prefix);
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
        const VendorRun v = ref.vendor(rt, n, A.data(), s.warmup, s.repeat, s.check);
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
    table.note(summary);
    if (m.residual >= 60) {
        table.note("residual check FAILED (>= 60)");
        return 3;
    }
    return 0;
}

/// --op potri: potrf + trtri + lauum as one graph, timed per run; its inverse residual; the vendor's potrf +
/// potri on the same matrix (cuSOLVER on device-resident data, else LAPACKE) and the ratio vendor / ours.
template <typename T>
int run_potri(const Settings& s, Runtime& rt, Mapping mapping) {
    const int64_t n = s.n > 0 ? s.n : (rt.cuda_workers() > 0 ? 16384 : 2000);
    const bool gpu = mapping != Mapping::CpuOnly && rt.cuda_workers() > 0;
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    const int64_t nb = s.nb > 0 ? s.nb : potri_tile_plan<T>(n, mapping, residency, rt.cuda_workers() > 0).nb;
    const Table table(s.csv, {"impl", "n", "nb", "prec", "mapping", "sched", "residency", "run", "seconds", "GFLOP/s",
                              "residual", "info"});
    table.note("starpu_chol --op potri: " + rt.describe());
    std::vector<T> A = support::host_matrix<T>(n, "starpu_chol");
    random_symmetric<T>(n, A.data(), n, s.seed, static_cast<double>(n));
    const Reference<T> ref(gpu, n, A.data());
    TileMatrix<T> tiles(rt, n, nb, residency, layout_of(s, false));
    if (residency == Residency::Device) table.note(placement_text(tiles));
    const Options opts = options_for(s, mapping, s.variant);
    const std::vector<std::string> prefix = {"starfact", std::to_string(n), std::to_string(nb), std::string(1, s.prec),
                                             to_string(mapping), rt.scheduler(), to_string(residency)};
    table.header();
    Measured m;
    RunStats stats;
    for (int r = 0; r < s.warmup + s.repeat; ++r) {
        const bool last = r == s.warmup + s.repeat - 1;
        tiles.import(residency == Residency::Device && ref.device_copy() ? ref.device_copy() : A.data(), n);
        stats.tasks = 0;
        const bool trace = last && !s.trace_dir.empty();  // FxT records the last run (the phases' overlap)
        if (trace) rt.trace_start();
        const auto t0 = std::chrono::steady_clock::now();
        m.info = potri(tiles, opts, stats);
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (trace) rt.trace_stop();
        if (r < s.warmup) {
            std::fprintf(stderr, "[starpu_chol] warm-up %d/%d: %.3f s\n", r + 1, s.warmup, sec);
            continue;
        }
        m.seconds.push_back(sec);
        m.tasks = stats.tasks;
        if (last && s.check && m.info == 0) {
#ifdef STARFACT_HAVE_CUDA
            if (ref.dev) m.residual = ref.dev->inverse_residual_of(tiles);
#endif
            if (m.residual < 0) {
                std::vector<T> X(A.size());
                tiles.export_to(X.data(), n);
                Runtime::Paused quiet(rt);
                m.residual = potri_residual<T>(n, A.data(), n, X.data(), n);
            }
        }
        std::vector<std::string> cells = prefix;
        for (const std::string& c : {std::to_string(r - s.warmup + 1), fmt("%.4f", sec),
                                     fmt("%.1f", potri_flops(n) / sec * 1e-9), residual_text(last ? m.residual : -1),
                                     std::to_string(m.info)})
            cells.push_back(c);
        table.row(cells);
        if (m.info != 0) break;
    }
    if (m.info != 0) {
        table.note("matrix is not positive definite: info = " + std::to_string(m.info));
        return 2;
    }
    const double ours = median(m.seconds);
    std::string summary = "summary: starfact potri median " + fmt("%.4f", ours) + " s, " +
                          fmt("%.1f", potri_flops(n) / ours * 1e-9) + " GFLOP/s, " + std::to_string(m.tasks) + " tasks";
    if (s.vendor) {
        VendorRun v;
#ifdef STARFACT_HAVE_CUDA
        if (ref.dev) v = ref.dev->cusolver_potri(s.warmup, s.repeat, s.check);
#endif
        if (v.name.empty()) {
            Runtime::Paused quiet(rt);
            v = support::lapacke_potri<T>(n, A.data(), s.warmup, s.repeat, s.check);
        }
        for (size_t i = 0; i < v.seconds.size(); ++i)
            table.row({v.name, std::to_string(n), "-", std::string(1, s.prec), "-", "-",
                       v.name == "cusolver" ? "device" : "host", std::to_string(i + 1), fmt("%.4f", v.seconds[i]),
                       fmt("%.1f", potri_flops(n) / v.seconds[i] * 1e-9),
                       residual_text(i + 1 == v.seconds.size() ? v.residual : -1), std::to_string(v.info)});
        const double theirs = median(v.seconds);
        summary += "; " + v.name + " potrf+potri median " + fmt("%.4f", theirs) + " s; ratio " + v.name +
                   "/starfact = " + fmt("%.3f", theirs / ours);
    }
    table.note(summary);
    if (m.residual >= 60) {
        table.note("residual check FAILED (>= 60)");
        return 3;
    }
    return 0;
}

/// Sum over the ranks of a distributed run (the value itself in one process).
int64_t sum_over_ranks(const Runtime& rt, int64_t v) {
#ifdef STARFACT_HAVE_MPI
    if (rt.mpi()) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
#else
    (void)rt;
#endif
    return v;
}

/// potrf, or posv (--op posv), on a matrix spread over `grid` (1 x 1: this process's own matrix): the table and
/// the residual on rank 0, after gathering the factor or the solution; no vendor baseline.
template <typename T>
int run_grid(const Settings& s, Runtime& rt, Mapping mapping, const Grid& grid) {
    const int64_t n = s.n > 0 ? s.n : (rt.cuda_workers() > 0 ? 16384 : 2000);
    const int64_t nb = tile_size(s, mapping, n, rt);
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    const bool solve = s.op == "posv", root = rt.mpi_rank() == 0;
    const int64_t nrhs = solve ? s.nrhs : 0;
    const std::string grid_text = std::to_string(grid.p) + "x" + std::to_string(grid.q);
    const Table table(s.csv, {"impl", "n", "nb", "prec", "variant", "mapping", "sched", "residency", "grid", "run",
                              "seconds", "GFLOP/s", "residual", "info"});
    if (root) table.note("starpu_chol" + std::string(solve ? " --op posv" : "") + ": " + rt.describe());
    // Without a residual check each rank generates its own tiles where they live; with one, every rank builds the
    // whole matrix (the same on every rank: same seed) and imports its tiles.
    const bool generated = !s.check;
    std::vector<T> A, B(static_cast<size_t>(n * nrhs));
    if (!generated) {
        A = support::host_matrix<T>(n, "starpu_chol");
        random_symmetric<T>(n, A.data(), n, s.seed, static_cast<double>(n));
    }
    if (solve) random_matrix<T>(n, nrhs, B.data(), n, s.seed + 1);
    TileMatrix<T> tiles(rt, n, nb, residency, layout_of(s, true, grid));
    if (root && residency == Residency::Device) table.note(placement_text(tiles));
    std::unique_ptr<TileMatrix<T>> rhs;
    if (solve) rhs = std::make_unique<TileMatrix<T>>(rt, n, nrhs, nb, residency, layout_of(s, false, grid));
    const Options opts = options_for(s, mapping, s.variant);
    const double flops = potrf_flops(n) + (solve ? potrs_flops(n, nrhs) : 0.0);
    if (root) table.header();
    Measured m;
    RunStats stats;
    m.seconds = support::timed_runs(
        root ? "starpu_chol" : nullptr, s.warmup, s.repeat,  // one process prints
        [&](const support::Run&) {
            if (generated)
                random_symmetric(tiles, s.seed, static_cast<double>(n));
            else
                tiles.import(A.data(), n);
            if (solve) rhs->import(B.data(), n);
            stats.tasks = 0;
            rt.barrier();  // every rank starts the clock together
        },
        [&](const support::Run&) {
            m.info = potrf(tiles, opts, stats);  // its wait() agrees on info over the ranks
            if (solve && m.info == 0) potrs(tiles, *rhs, opts, stats);
            rt.barrier();  // the slowest rank's time
        },
        [&](const support::Run& run, double sec) {
            m.tasks = sum_over_ranks(rt, stats.tasks);
            if (run.last && s.check && m.info == 0) {
                std::vector<T> out(solve ? B.size() : A.size());
                if (solve) rhs->export_to(out.data(), n);  // collective: every rank receives it
                else tiles.export_to(out.data(), n);
                if (root) {
                    Runtime::Paused quiet(rt);
                    m.residual = solve ? solve_residual<T>(n, nrhs, A.data(), n, out.data(), n, B.data(), n)
                                       : potrf_residual<T>(n, A.data(), n, out.data(), n);
                }
            }
            if (root)
                table.row({"starfact", std::to_string(n), std::to_string(nb), std::string(1, s.prec), s.variant.name(),
                           to_string(mapping), rt.scheduler(), to_string(residency), grid_text,
                           std::to_string(run.timed_index), fmt("%.4f", sec), fmt("%.1f", flops / sec * 1e-9),
                           residual_text(run.last ? m.residual : -1), std::to_string(m.info)});
            return m.info == 0;
        });
    if (m.info != 0) {
        if (root) table.note("matrix is not positive definite: info = " + std::to_string(m.info));
        return 2;
    }
    const double ours = median(m.seconds);
    if (root)
        table.note("summary: starfact" + std::string(solve ? " posv" : "") + " median " + fmt("%.4f", ours) + " s, " +
                   fmt("%.1f", flops / ours * 1e-9) + " GFLOP/s, " + std::to_string(m.tasks) + " tasks on " +
                   std::to_string(rt.mpi_size()) + " MPI rank" + (rt.mpi_size() > 1 ? "s" : "") + ", grid " + grid_text +
                   (s.vendor ? " (no vendor baseline for this run)" : ""));
    if (root && m.residual >= 60) {
        table.note("residual check FAILED (>= 60)");
        return 3;
    }
    return 0;
}

struct CompareRow {
    std::string sched, mapping, variant;
    Measured m;
};

/// Every scheduler x mapping x variant on the same matrix, one table.
template <typename T>
int run_compare(const Settings& s) {
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
        Runtime rt(runtime_config(s, sched, false));
        if (rows.empty()) table.note("starpu_chol --compare: " + rt.describe());
        std::vector<Mapping> mappings = s.mappings;
        if (mappings.empty()) {
            if (rt.cuda_workers() > 0) mappings = {Mapping::GpuOnly, Mapping::Hybrid};
            else mappings = {Mapping::CpuOnly};
        }
        const bool gpu = rt.cuda_workers() > 0;
        if (total == 0) total = s.scheds.size() * mappings.size() * s.variants.size();
        if (A.empty()) {
            n = s.n > 0 ? s.n : (gpu ? 16384 : 2000);
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

/// One point of --sweep: the plan's run and the vendor's on the same matrix; appends a CSV row.
template <typename T>
void sweep_point(const Settings& s, Runtime& rt, Mapping mapping, int64_t n, std::ofstream& csv, size_t index,
                 size_t total) {
    Settings one = s;
    one.prec = sizeof(T) == 4 ? 's' : 'd';
    const bool gpu = mapping != Mapping::CpuOnly && rt.cuda_workers() > 0;
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    const int64_t nb = tile_size(one, mapping, n, rt);
    std::vector<T> A(static_cast<size_t>(n) * n);
    random_symmetric<T>(n, A.data(), n, s.seed + static_cast<uint64_t>(n), static_cast<double>(n));
    const Reference<T> ref(gpu, n, A.data());
    TileMatrix<T> tiles(rt, n, nb, residency, layout_of(s, false));
    const Options opts = options_for(s, mapping, s.variant);
    const Measured m = measure<T>(one, rt, tiles, ref, A.data(), n, opts, false, nullptr, {});
    const double ours = median(m.seconds);
    VendorRun v;
    if (s.vendor && m.info == 0) v = ref.vendor(rt, n, A.data(), s.warmup, s.repeat, false);
    const double theirs = v.seconds.empty() ? 0 : median(v.seconds);
    const double tf = potrf_flops(n) * 1e-12;
    csv << to_string(mapping) << ',' << one.prec << ',' << n << ',' << nb << ',' << to_string(residency) << ','
        << fmt("%.6f", ours) << ',' << fmt("%.3f", tf / ours) << ',' << (v.name.empty() ? "-" : v.name) << ','
        << fmt("%.6f", theirs) << ',' << fmt("%.3f", theirs > 0 ? tf / theirs : 0) << ','
        << fmt("%.3f", theirs > 0 ? theirs / ours : 0) << ',' << residual_text(m.residual) << ',' << m.info << '\n';
    csv.flush();
    std::fprintf(stderr, "[starpu_chol] sweep %zu/%zu: %s %c n=%lld nb=%lld: %.4f s, %.2f TFLOP/s%s%s\n", index, total,
                 to_string(mapping), one.prec, static_cast<long long>(n), static_cast<long long>(nb), ours, tf / ours,
                 theirs > 0 ? (", x" + fmt("%.3f", theirs / ours) + " " + v.name).c_str() : "",
                 m.residual >= 60 || m.info != 0 ? "  FAILED" : "");
    if (m.info != 0) throw RuntimeError("--sweep: the test matrix of n = " + std::to_string(n) + " is not SPD");
    if (m.residual >= 60) throw RuntimeError("--sweep: residual >= 60 at n = " + std::to_string(n));
}

/// --sweep: every order x precision x mapping, one CSV (see --help), the gemm ceilings first.
int run_sweep(const Settings& s) {
    std::vector<Mapping> mappings = s.mappings;
    const bool have_gpu = built_with_cuda() && cuda_device_count() > 0;
    if (mappings.empty() && s.mapping >= 0) mappings = {static_cast<Mapping>(s.mapping)};  // --gpu-only etc.
    if (mappings.empty()) mappings = have_gpu ? std::vector<Mapping>{Mapping::GpuOnly, Mapping::Hybrid}
                                              : std::vector<Mapping>{Mapping::CpuOnly};
    std::ofstream csv(s.sweep_csv);
    if (!csv) throw std::invalid_argument("--sweep-csv: cannot write " + s.sweep_csv);
    csv << "mapping,prec,n,nb,residency,seconds,TFLOPs,vendor,vendor_seconds,vendor_TFLOPs,ratio,residual,info\n";
#ifdef STARFACT_HAVE_CUDA
    if (have_gpu)
        for (char p : s.precs) {  // the ceiling: cuBLAS gemm at n = 8192
            const double tf = p == 's' ? support::cublas_gemm_tflops<float>(8192)
                                       : support::cublas_gemm_tflops<double>(8192);
            csv << "gemm," << p << ",8192,-,device,-," << fmt("%.3f", tf) << ",cublas,-,-,-,-,0\n";
        }
#endif
    const size_t total = mappings.size() * s.precs.size() * s.ns.size();
    size_t index = 0;
    for (Mapping mapping : mappings) {
        Runtime rt(runtime_config(s, s.sched, mapping == Mapping::CpuOnly, mapping == Mapping::GpuOnly));
        rt.require_mapping(mapping, "starpu_chol --sweep");
        std::fprintf(stderr, "[starpu_chol] sweep %s: %s\n", to_string(mapping), rt.describe().c_str());
        for (char p : s.precs)
            for (int64_t n : s.ns) {
                ++index;
                if (p == 's') sweep_point<float>(s, rt, mapping, n, csv, index, total);
                else sweep_point<double>(s, rt, mapping, n, csv, index, total);
            }
    }
    std::printf("sweep: %zu points in %s; plot: python3 tools/plot_sweep.py %s -o starpu_chol_sweep.png\n", total,
                s.sweep_csv.c_str(), s.sweep_csv.c_str());
    return 0;
}

/// MPI for a distributed run (several ranks, or --grid), started by the driver before its Runtime so that the
/// checks of the set-up are collective; nothing otherwise.
class MpiSession {
public:
    /// Under mpirun (or another launcher), or asked for by --grid: MPI_Init_thread.
    MpiSession(int* argc, char*** argv, bool wanted) {
#ifdef STARFACT_HAVE_MPI
        const char* launched[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"};
        for (const char* v : launched) wanted = wanted || std::getenv(v) != nullptr;
        if (!wanted) return;
        int provided = 0;
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
        active_ = true;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
#else
        (void)argc, (void)argv, (void)wanted;
#endif
    }
    ~MpiSession() {
#ifdef STARFACT_HAVE_MPI
        if (active_) MPI_Finalize();
#endif
    }
    bool active() const { return active_; }
    int rank() const { return rank_; }
    int size() const { return size_; }
    /// Whether `ok` holds on every rank (collective); `failed` lists the ranks where it does not.
    bool all(bool ok, std::string* failed) const {
        std::vector<int> oks(static_cast<size_t>(size_), ok ? 1 : 0);
#ifdef STARFACT_HAVE_MPI
        int mine = ok ? 1 : 0;
        if (active_) MPI_Allgather(&mine, 1, MPI_INT, oks.data(), 1, MPI_INT, MPI_COMM_WORLD);
#endif
        for (int r = 0; r < size_; ++r)
            if (!oks[r]) *failed += (failed->empty() ? "" : ",") + std::to_string(r);
        return failed->empty();
    }
    /// Whether every rank's `error` is empty (collective); if not, the first rank with one prints it ("starpu_chol:
    /// ...", its rank named when some ranks have none) and every rank is to stop.
    bool all_or_first_says(const std::string& error) const {
        std::string failed;
        if (all(error.empty(), &failed)) return true;
        const int first = std::stoi(failed.substr(0, failed.find(',')));
        const bool everywhere = std::count(failed.begin(), failed.end(), ',') + 1 == size_;
        if (first == rank_) {
            const std::string who = everywhere ? "" : "rank " + std::to_string(rank_) + ": ";
            std::fprintf(stderr, "starpu_chol: %s%s\n", who.c_str(), error.c_str());
        }
        return false;
    }
    /// Ends every rank after an error that only this rank may have seen.
    [[noreturn]] void abort() const {
#ifdef STARFACT_HAVE_MPI
        MPI_Abort(MPI_COMM_WORLD, 1);
#endif
        std::exit(1);
    }

private:
    bool active_ = false;
    int rank_ = 0, size_ = 1;
};

/// The grid of a distributed run; throws std::invalid_argument for a set-up it cannot run (the same on every rank).
Grid distributed_setup(const Settings& s, const MpiSession& mpi) {
    const Grid grid = s.grid.p > 0 ? s.grid : Grid::square(mpi.size());
    if (grid.ranks() != mpi.size())
        throw std::invalid_argument("--grid " + std::to_string(grid.p) + "x" + std::to_string(grid.q) + " has " +
                                    std::to_string(grid.ranks()) + " processes but " + std::to_string(mpi.size()) +
                                    " MPI ranks run (P * Q must be the number of ranks)");
    if (mpi.size() == 1) return grid;
    const std::pair<bool, const char*> unsupported[] = {{s.op == "potri", "--op potri"}, {s.compare, "--compare"},
                                                        {s.sweep, "--sweep"}, {s.calibrate, "--calibrate"},
                                                        {!s.trace_dir.empty(), "--trace"}};
    for (const auto& u : unsupported)
        if (u.first)
            throw std::invalid_argument(std::string(u.second) + " is not supported on several MPI ranks (run it with one)");
    return grid;
}

}  // namespace

int main(int argc, char** argv) {
    bool grid_flag = false;  // --grid asks for MPI even without a launcher
    for (int i = 1; i < argc; ++i) grid_flag = grid_flag || std::string(argv[i]).rfind("--grid", 0) == 0;
    MpiSession mpi(&argc, &argv, grid_flag);
    Settings s;
    std::string bad_flags;
    try {
        s = parse(argc, argv);
        if (!s.perfmodel_dir.empty()) setenv("STARPU_PERF_MODEL_DIR", s.perfmodel_dir.c_str(), 1);
        if (!s.trace_dir.empty()) support::prepare_trace(s.trace_dir);
    } catch (const std::exception& e) {
        bad_flags = e.what();
    }
    // Ranks may have been given different flags (mpirun ... : ...): all stop when one cannot go on.
    if (!mpi.all_or_first_says(bad_flags)) return 1;
    if (!mpi.active() && s.grid.ranks() > 1) {
        std::fprintf(stderr, "starpu_chol: --grid %dx%d needs MPI, and this starpu_chol was built without it\n",
                     s.grid.p, s.grid.q);
        return 1;
    }
    const bool distributed = mpi.active() && (mpi.size() > 1 || s.grid.p > 0);
    if (distributed) {
        // Checks every rank makes alike (the flags), then the GPUs, which differ per rank: all ranks stop together.
        Grid grid;
        std::string bad_setup;
        try {
            grid = distributed_setup(s, mpi);
        } catch (const std::exception& e) {
            bad_setup = e.what();
        }
        if (!mpi.all_or_first_says(bad_setup)) return 1;
        const Mapping mapping = default_mapping(s);
        std::string no_gpu;
        const bool gpu_here = built_with_cuda() && cuda_device_count() > 0 && s.ncuda != 0;
        if (!mpi.all(mapping != Mapping::GpuOnly || gpu_here, &no_gpu)) {
            if (mpi.rank() == 0)
                std::fprintf(stderr, "starpu_chol: --gpu-only: no usable GPU on MPI rank(s) %s\n", no_gpu.c_str());
            return 1;
        }
        // An error on one rank ends every rank (the others may be waiting for this one), with its message.
        const auto fail = [&](const char* what) {
            std::fprintf(stderr, "starpu_chol: rank %d: %s\n", mpi.rank(), what);
            mpi.abort();
        };
        int rc = 0;
        try {
            RuntimeConfig cfg = runtime_config(s, s.sched, mapping == Mapping::CpuOnly, mapping == Mapping::GpuOnly);
            cfg.mpi = true;
            Runtime rt(cfg);
            // Caught while the Runtime lives: its destructor would abort the job before the handler below runs.
            try {
                rt.require_mapping(mapping, "starpu_chol");
                if (s.device_resident && rt.cuda_devices() == 0)
                    throw InvalidArgument("starpu_chol", "--device-resident", "needs a GPU, and none is usable");
                rc = s.prec == 's' ? run_grid<float>(s, rt, mapping, grid) : run_grid<double>(s, rt, mapping, grid);
            } catch (const std::exception& e) {
                fail(e.what());
            } catch (...) {
                fail("an exception that is not a std::exception");
            }
        } catch (const std::exception& e) {
            fail(e.what());
        }
        return rc;
    }
    int rc = 0;
    std::vector<std::string> workers;  // lane names for the Gantt chart
    try {
        if (s.compare) return s.prec == 's' ? run_compare<float>(s) : run_compare<double>(s);
        if (s.sweep) return run_sweep(s);
        {
            const Mapping mapping = default_mapping(s);
            Runtime rt(runtime_config(s, s.sched, mapping == Mapping::CpuOnly, mapping == Mapping::GpuOnly));
            rt.require_mapping(mapping, "starpu_chol");
            if (s.device_resident && rt.cuda_devices() == 0)
                throw InvalidArgument("starpu_chol", "--device-resident", "needs a GPU, and none is usable");
            if (s.op == "potri") rc = s.prec == 's' ? run_potri<float>(s, rt, mapping) : run_potri<double>(s, rt, mapping);
            else if (s.op == "posv") rc = s.prec == 's' ? run_grid<float>(s, rt, mapping, Grid{})
                                                        : run_grid<double>(s, rt, mapping, Grid{});
            else rc = s.prec == 's' ? run_single<float>(s, rt, mapping) : run_single<double>(s, rt, mapping);
            workers = support::worker_names();
        }  // StarPU shuts down here and writes the FxT file
        if (!s.trace_dir.empty() && rc == 0) rc = support::finish_trace(s.trace_dir, workers, "starpu_chol " + s.variant.name() + " (last timed run)",
                                   "starpu_chol", s.csv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "starpu_chol: %s\n", e.what());
        return 1;
    }
    return rc;
}

// starpu_qr: the starfact experiment driver for the tile Householder QR (geqrf, gels, orgqr); under mpirun or with
// --grid the distributed run of examples/starpu_qr_mpi.cpp. See --help and docs/qr.md.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

// StarPU's SimGrid build renames main (starpu_simgrid_wrap.h) so that SimGrid starts first and takes its own
// --cfg/--log flags out of argv: the file that defines main includes <starpu.h>.
#include <starpu.h>

#include "examples/mpi_launch.hpp"
#include "examples/starpu_qr.hpp"
#include "starfact/starfact.hpp"
#include "support/cli.hpp"
#include "support/driver_common.hpp"
#include "support/reference_qr.hpp"
#include "support/simulated_tiles.hpp"

namespace {

using namespace starfact;
using starfact::support::Cli;
using starfact::support::fmt;
using starfact::support::median;
using starfact::support::QrOp;
using starfact::support::residual_text;
using starfact::support::Table;
using starfact::support::VendorRun;
using starfact::qr_driver::op_flops;
using starfact::qr_driver::Settings;

/// The tree column: the tree asked for with its domain size, or "cholqr" / "panel" (auto: "auto=cholqr",
/// "auto=panel") for the Cholesky QR and the whole-panel tasks.
template <typename T>
std::string tree_text(const QrTree& tree, const QRFactors<T>& f) {
    if (f.cholqr()) return tree.kind == QrTree::Kind::Auto ? "auto=cholqr" : "cholqr";
    if (f.panel()) return tree.kind == QrTree::Kind::Auto ? "auto=panel" : "panel";
    return tree.name() + "(" + std::to_string(f.domain_rows()) + ")";
}

std::string help() {
    return std::string(R"(usage: starpu_qr [flags]

Factors a random m x n matrix (entries uniform in [-0.5, 0.5]) with starfact's tile Householder QR under
StarPU, prints one line per timed run, checks the factors, then runs the vendor's routines on the same matrix in
the same process (cuSOLVER on a device copy when a GPU is used, else LAPACKE with all OpenBLAS threads) and the
ratio vendor_time / starfact_time (> 1: starfact is faster).

problem
  --m M             rows (default: n). m < n: a wide matrix (R upper trapezoidal; gels gives the minimum-norm
                    solution through the QR of A^T, orgqr all of the m x m Q)
)") + support::common_flags_help({"--n"}) +
           R"(  --nb NB           tile size (default: starfact::plan's: 192 on CPUs; on GPUs 2048, and for the
                    Cholesky QR's shapes one tile column of tall tiles: 32768 rows (n <= 512: 65536 from
                    m = 131072), m / 2 below 65536 rows, at least n)
  --ib IB           inner blocking of the CPU kernels; the Cholesky QR's panel width (IB < n: the blocked form,
                    a Householder QR in panels of IB columns, each factored by the Cholesky QR) (default: the
                    plan's: qr_inner_block, nb with GPUs, else 32; for the Cholesky QR qr_cholqr_panel: one panel
                    below 512 columns and on CPUs, 256 from m >= 128 n, else 1024 from n = 2048)
  --op OP           geqrf (default), gels (least squares, m < n: the minimum-norm solution) or orgqr (the thin
                    Q, m x min(m, n), after an untimed geqrf). The cuSOLVER baselines: geqrf: cusolverDnXgeqrf
                    (m < n too); gels, m >= n: Xgeqrf + <t>ormqr (Q^T B) + cublas<t>trsm; gels, m < n:
                    cublas<t>geam (A^T) + Xgeqrf of A^T + cublas<t>trsm (R^T Y = B) + <t>ormqr (X = Q [Y; 0]);
                    orgqr: <t>orgqr of Q's first min(m, n) columns (cuSOLVER's orgqr takes m >= n). Without
                    --device-resident, also what a user with host arrays calls (geqrf; gels, m >= n): cuSOLVER
                    with the copies of A (and B) to the GPU and of the results back timed (cusolver+copies). On
                    CPU runs LAPACKE's <t>geqrf, <t>gels, <t>orgqr
  --nrhs R          right-hand sides of gels (default 1)
  --tree TREE       reduction tree: auto (default: the plan's), flat, binary, domains=A (A tile rows a domain), or
                    cholqr: shifted Cholesky QR 3 with the Householder form reconstructed (tall and skinny: one tile
                    column, n <= nb; auto picks it on GPUs for at least two tile rows and n <= 512, or n <= 4096
                    with m >= 8 n, or n <= 16384 with m >= 2 n, or m >= n from n = 12000), or panel: blocked
                    Householder QR with one task per panel (geqrf of the gathered tile column) and trailing
                    updates by tiles (auto picks it on GPUs for n > nb and m >= n, where the Cholesky QR does
                    not run)
  --compare         time every tree of --trees on the same matrix, one table
  --trees LIST      the trees of --compare (default flat,binary,auto)
)" + support::common_flags_help({"--prec", "--seed"}) +
           R"(mapping and runtime
)" + support::common_flags_help({"--gpu-only", "--hybrid", "--cpu-only"}) +
           R"(  --noprio          submit without priorities (Variant noprio)
)" + support::common_flags_help({"--sched"}) +
           R"(  --device-resident tiles live in GPU memory (default: pinned host memory)
  --ncpus N         CPU workers (default: 0 for --gpu-only, StarPU's choice otherwise; STARPU_NCPU wins)
  --ncuda N         CUDA devices (default: all; STARPU_NCUDA wins)
)" + support::common_flags_help({"--streams", "--perfmodel-dir"}) +
           R"(  --calibrate       keep calibrating the performance models in every run (STARPU_CALIBRATE=1; what
                    sim/calibrate.sh records for simulated runs)
runs and output
)" + support::common_flags_help({"--warmup", "--repeat"}) +
           R"(  --check           after the last timed run of each tree: ||I - Q^T Q||_1 / (m eps) and
                    ||A - Q R||_1 / (||A||_1 m eps) (Q formed by orgqr), for gels also ||A^T (A X - B)||_1 /
                    (||A||_1 (||A||_1 ||X||_1 + ||B||_1) m eps) (a wide gels: only this one); on the GPU with
                    cuBLAS when one is used, else on the host with OpenBLAS (default on); exit status 3 if one
                    is >= 60
  --no-check        skip the checks
  --no-vendor       skip the cuSOLVER / LAPACKE baseline
  --trace DIR       record the last timed run with FxT into DIR (paje.trace, gantt.svg; docs/traces.md)
)" + support::common_flags_help({"--csv", "--help"}) +
           R"(distributed runs (docs/mpi.md)
  --grid PxQ        the P x Q process grid of a run over MPI ranks (mpirun -np N starpu_qr ...; default: the
                    most square grid of the ranks): A (and B, Q) spread 2D block-cyclically, the trees that run
                    distributed (auto: the hierarchical tree over the grid rows; flat, binary, domains=A; not
                    cholqr or panel), the checks on the gathered results on every rank, rank 0 prints the table;
                    no vendor baseline or --trace there
)" +
           R"(
exit status: 0 ok, 1 bad arguments or runtime error, 2 rank deficient (gels info > 0), 3 a check >= 60
)";
}

Settings parse(int argc, char** argv) {
    Settings s;
    std::string trees = "flat,binary,auto";
    Cli cli(argc, argv);
    while (!cli.done()) {
        const std::string f = cli.next();
        if (f == "--help") {
            std::cout << help();
            std::exit(0);
        } else if (support::parse_common_flag(cli, f, s)) {
        } else if (f == "--m") s.m = cli.integer(1, int64_t(1) << 26);
        else if (f == "--ib") s.ib = cli.integer(1, int64_t(1) << 20);
        else if (f == "--nrhs") s.nrhs = cli.integer(1, 1 << 20);
        else if (f == "--op") {
            const std::string v = cli.value();
            if (v == "geqrf") s.op = QrOp::Geqrf;
            else if (v == "gels") s.op = QrOp::Gels;
            else if (v == "orgqr") s.op = QrOp::Orgqr;
            else throw std::invalid_argument("--op must be one of geqrf, gels, orgqr (got '" + v + "')");
        } else if (f == "--tree") s.tree = QrTree::parse(cli.value(), "--tree");
        else if (f == "--trees") trees = cli.value();
        else if (f == "--compare") { cli.no_value(); s.compare = true; }
        else if (f == "--noprio") { cli.no_value(); s.priorities = false; }
        else if (f == "--trace") s.trace_dir = cli.value();
        else if (f == "--calibrate") { cli.no_value(); s.calibrate = true; }
        else if (f == "--grid") s.grid = support::parse_grid(cli.value());
        else cli.unknown();
    }
    if (s.warmup < 0) s.warmup = 2;
    if (s.compare) {
        std::stringstream list(trees);
        for (std::string t; std::getline(list, t, ',');) s.trees.push_back(QrTree::parse(t, "--trees"));
    } else {
        s.trees.push_back(s.tree);
    }
    return s;
}

template <typename T>
int run(const Settings& s, Runtime& rt, Mapping mapping) {
    const bool gpu = mapping != Mapping::CpuOnly && rt.cuda_workers() > 0;
    const int64_t n = s.n > 0 ? s.n : (gpu ? 8192 : 1000);
    const int64_t m = s.m > 0 ? s.m : n;
    const int64_t k = std::min(m, n), ldb = std::max(m, n);  // Q is m x k; B holds max(m, n) rows, as LAPACK's
    const bool wide = m < n;
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    Request request;
    request.op = s.op == QrOp::Gels ? Operation::Gels : Operation::Geqrf;
    request.element = sizeof(T) == sizeof(float) ? Precision::Fp32 : Precision::Fp64;
    request.m = m;
    request.n = n;
    request.nrhs = s.op == QrOp::Gels ? s.nrhs : 0;
    request.options.mapping = mapping;
    request.tiling = Tiling{s.nb > 0 ? s.nb : 0, residency};  // no --nb: the plan's
    request.tree = s.trees.size() == 1 ? s.trees.front() : QrTree{};
    request.ib = s.ib;
    const Plan planned = plan(request, Machine::of(rt));
    const int64_t nb = planned.nb;
    const int64_t nrhs = s.op == QrOp::Gels ? s.nrhs : 0;
    const double flops = op_flops(s, m, n);
    const Table table(s.csv, {"impl", "op", "m", "n", "nb", "ib", "tree", "prec", "mapping", "sched", "residency",
                              "run", "seconds", "GFLOP/s", "orth", "resid", "ls_resid", "info"});
    table.note("starpu_qr: " + rt.describe());
    table.note("plan: " + planned.to_string());
    std::vector<T> A, B;
    random_problem(s, m, n, ldb, nrhs, A, B);
#ifdef STARFACT_HAVE_CUDA
    std::unique_ptr<support::DeviceQrReference<T>> dev;
    if (gpu && (s.vendor || s.check))
        dev = std::make_unique<support::DeviceQrReference<T>>(m, n, A.data(), nrhs, nrhs ? B.data() : nullptr);
#endif
    TileMatrix<T> tiles(rt, m, n, nb, residency);
    std::unique_ptr<TileMatrix<T>> b, q;
    if (nrhs > 0) b = std::make_unique<TileMatrix<T>>(rt, ldb, nrhs, nb, residency);
    if (s.op == QrOp::Orgqr || s.check) q = std::make_unique<TileMatrix<T>>(rt, m, k, nb, residency);
    // A wide gels leaves the factors of A^T in A (docs/qr.md), which orgqr does not take: its check is the solution's.
    const bool qr_checks = !(wide && s.op == QrOp::Gels);
    Options opts;
    opts.mapping = mapping;
    opts.variant = Variant::parse(s.priorities ? "right" : "noprio");
    table.header();
    bool failed = false;
    int info = 0;
    std::string summary;
    double best = 0;
    for (const QrTree& tree : s.trees) {
        // A wide gels factors A^T: its factors are shaped n x m.
        QRFactors<T> f(rt, qr_checks ? m : n, qr_checks ? n : m, nb, tree, s.ib);
        double orth = -1, resid = -1, ls = -1;
        RunStats stats;
        const std::vector<double> seconds = support::timed_runs(
            "starpu_qr", s.warmup, s.repeat,
            [&](const support::Run&) {
#ifdef STARFACT_HAVE_CUDA
                const T* src = dev && residency == Residency::Device ? dev->a() : A.data();
                const T* bsrc = dev && residency == Residency::Device ? dev->b() : B.data();
#else
                const T* src = A.data();
                const T* bsrc = B.data();
#endif
                if (support::kRunComputes) {
                    tiles.import(src, m);
                    if (b) b->import(bsrc, ldb);
                } else {
                    support::make_tiles_valid(tiles);
                    if (b) support::make_tiles_valid(*b);
                }
                if (s.op == QrOp::Orgqr) geqrf(tiles, f, opts);
                stats.tasks = 0;
            },
            [&](const support::Run& r) {
                const bool trace = r.last && !s.trace_dir.empty();
                if (trace) rt.trace_start();
                switch (s.op) {
                    case QrOp::Geqrf: geqrf(tiles, f, opts, stats); break;
                    case QrOp::Gels: info = gels(tiles, f, *b, opts); break;
                    case QrOp::Orgqr: orgqr(tiles, f, *q, opts); break;
                }
                if (trace) rt.trace_stop();
            },
            [&](const support::Run& r, double sec) {
                if (r.last && s.check && info == 0) {
                    if (s.op != QrOp::Orgqr && qr_checks) orgqr(tiles, f, *q, opts);
                    bool on_device = false;
#ifdef STARFACT_HAVE_CUDA
                    if (dev) {
                        on_device = true;
                        if (qr_checks) dev->check_qr(tiles, *q, &orth, &resid);
                        if (b) ls = dev->check_gels(*b);
                    }
#endif
                    if (!on_device) {
                        std::vector<T> F(A.size()), Q(static_cast<size_t>(m * k)), X(B.size());
                        if (qr_checks) {
                            tiles.export_to(F.data(), m);
                            q->export_to(Q.data(), m);
                        }
                        if (b) b->export_to(X.data(), ldb);
                        Runtime::Paused quiet(rt);
                        if (qr_checks) {
                            orth = orthogonality_residual(m, k, Q.data(), m);
                            resid = qr_residual(m, n, A.data(), m, Q.data(), m, F.data(), m);
                        }
                        if (b) ls = gels_residual(m, n, nrhs, A.data(), m, X.data(), ldb, B.data(), ldb);
                    }
                }
                table.row({"starfact", support::to_string(s.op), std::to_string(m), std::to_string(n),
                           std::to_string(nb), std::to_string(f.ib()), tree_text(tree, f),
                           std::string(1, s.prec), to_string(mapping), rt.scheduler(), to_string(residency),
                           std::to_string(r.timed_index), fmt("%.4f", sec), fmt("%.1f", flops / sec * 1e-9),
                           residual_text(r.last ? orth : -1), residual_text(r.last ? resid : -1),
                           residual_text(r.last ? ls : -1), std::to_string(info)});
                return info == 0;
            });
        if (info != 0) {
            table.note("matrix is rank deficient: info = " + std::to_string(info));
            return 2;
        }
        if (orth >= 60 || resid >= 60 || ls >= 60) failed = true;
        const double ours = median(seconds);
        if (best == 0 || ours < best) {
            best = ours;
            summary = "summary: starfact " + std::string(support::to_string(s.op)) + " median " + fmt("%.4f", ours) +
                      " s, " + fmt("%.1f", flops / ours * 1e-9) + " GFLOP/s (tree " + tree.name() + ")" +
                      (stats.tasks > 0 ? ", " + std::to_string(stats.tasks) + " tasks" : std::string()) +
                      (stats.qr_passes > 0 ? ", " + std::to_string(stats.qr_passes) + " Cholesky QR passes"
                                           : std::string());
        }
    }
    if (s.vendor) {
        VendorRun v;
#ifdef STARFACT_HAVE_CUDA
        if (dev) {
            v = dev->cusolver(s.op, s.warmup, s.repeat);
            table.note("vendor: cuSOLVER on GPU " + std::to_string(dev->device()) + " alone, on its own copy of A" +
                       (s.op == QrOp::Gels ? " and B" : "") + " (" + support::cusolver_qr_calls(s.op, m, n) + ")");
        }
#endif
        if (v.seconds.empty()) {
            Runtime::Paused quiet(rt);
            v = support::lapacke_qr<T>(s.op, m, n, nrhs, A.data(), B.data(), s.warmup, s.repeat);
        }
        for (size_t i = 0; i < v.seconds.size(); ++i)
            table.row({v.name, support::to_string(s.op), std::to_string(m), std::to_string(n), "-", "-", "-",
                       std::string(1, s.prec), "-", "-", v.name == "cusolver" ? "device" : "host", std::to_string(i + 1),
                       fmt("%.4f", v.seconds[i]), fmt("%.1f", flops / v.seconds[i] * 1e-9), "-", "-", "-",
                       std::to_string(v.info)});
        summary += support::vendor_summary(v, flops, best);
#ifdef STARFACT_HAVE_CUDA
        // What a user with host arrays calls instead: the copies and cuSOLVER (geqrf; gels of a tall A).
        if (dev && residency == Residency::Host && (s.op == QrOp::Geqrf || (s.op == QrOp::Gels && m >= n))) {
            const VendorRun h = dev->cusolver(s.op, s.warmup, s.repeat, true);
            for (size_t i = 0; i < h.seconds.size(); ++i)
                table.row({h.name, support::to_string(s.op), std::to_string(m), std::to_string(n), "-", "-", "-",
                           std::string(1, s.prec), "-", "-", "host", std::to_string(i + 1), fmt("%.4f", h.seconds[i]),
                           fmt("%.1f", flops / h.seconds[i] * 1e-9), "-", "-", "-", std::to_string(h.info)});
            const double th = support::median(h.seconds);
            summary += "; " + h.name + " median " + fmt("%.4f", th) + " s; ratio " + h.name + "/starfact = " +
                       fmt("%.3f", th / best);
        }
#endif
    }
    table.note(summary);
    if (failed) {
        table.note("check FAILED (>= 60)");
        return 3;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Settings s;
    // Several MPI ranks, or --grid: the distributed QR (examples/starpu_qr_mpi.cpp).
    bool grid_flag = false;
    for (int i = 1; i < argc; ++i) grid_flag = grid_flag || std::string(argv[i]) == "--grid";
    if (grid_flag || starfact::examples::mpi_launched()) {
        try {
            s = parse(argc, argv);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "starpu_qr: %s\n", e.what());
            return 1;
        }
        return qr_driver::run_distributed(s, &argc, &argv);
    }
    return support::driver_main(
        "starpu_qr", argc, argv, s, [&](int c, char** v) { s = parse(c, v); },
        [&](Runtime& rt, Mapping mapping) { return s.prec == 's' ? run<float>(s, rt, mapping) : run<double>(s, rt, mapping); });
}

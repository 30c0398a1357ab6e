// starpu_qr over MPI ranks (mpirun -np N starpu_qr ..., or --grid PxQ): geqrf, gels or orgqr on an m x n matrix
// distributed 2D block-cyclically (docs/mpi.md, the distributed QR) with the trees that run distributed, one table
// printed by rank 0, the checks computed on every rank from the gathered results (so every rank exits alike); no
// vendor baseline. Also simulated over several nodes in the SMPI build (smpirun, tools/simulate.sh --nodes: the
// Cholesky QR of a tall and skinny matrix, docs/simulation.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "examples/mpi_launch.hpp"
#include "examples/starpu_qr.hpp"
#include "kernels/scalar.hpp"
#include "starfact/starfact.hpp"
#include "support/driver_common.hpp"
#include "support/reference_qr.hpp"
#include "support/simulated_tiles.hpp"

namespace starfact::qr_driver {

#ifdef STARFACT_HAVE_MPI
namespace {

using support::fmt;
using support::QrOp;
using support::residual_text;

/// The tree column: the tree asked for, with the kind auto resolved to, and its domain size ("auto=domains(3)",
/// "flat(7)", "binary(1)", "domains=2(2)", "cholqr", "panel").
template <typename T>
std::string tree_text(const QrTree& tree, const QRFactors<T>& f, int64_t mt) {
    const bool chosen = tree.kind == QrTree::Kind::Auto;
    if (f.cholqr()) return chosen ? "auto=cholqr" : "cholqr";
    if (f.panel()) return chosen ? "auto=panel" : "panel";
    const int64_t d = f.domain_rows();
    const char* kind = f.row_cycle() > 1 ? "domains" : d == 1 ? "binary" : d >= mt ? "flat" : "domains";
    return (chosen ? std::string("auto=") + kind : tree.name()) + "(" + std::to_string(d) + ")";
}

/// How the tree of `column` grouped the tile rows on `grid` (a note under the table).
template <typename T>
std::string tree_note(const std::string& column, const QRFactors<T>& f, const Grid& grid) {
    if (f.cholqr())
        return "tree " + column + ": the Cholesky QR: each tile's Gram matrix on its rank, their sums, the n x n "
               "factorizations and the reconstruction on the first tile's rank";
    if (f.panel())
        return "tree " + column + ": the panel tree: each panel gathered on the rank of its diagonal tile, the updates "
               "on the ranks of their tiles";
    if (f.row_cycle() > 1)
        return "tree " + column + ": the hierarchical tree: at each step, domains of " +
               std::to_string(f.domain_rows()) + " tile rows within each of the " + std::to_string(f.row_cycle()) +
               " grid rows (tile rows i mod " + std::to_string(f.row_cycle()) +
               "), their heads merged by a binary tree inside the grid row, then across the grid rows";
    return "tree " + column + ": consecutive tile rows as in one process" +
           (grid.p > 1 ? std::string(" (StarPU-MPI moves the top tiles between the ranks of a tile column)")
                       : std::string(" (a tile column is one rank's)"));
}

/// The largest of every rank's `values` (not computed: -1 everywhere; NaN counts as +inf, a failed check).
void worst_over_ranks(std::vector<double>& values) {
    for (double& v : values)
        if (std::isnan(v)) v = std::numeric_limits<double>::infinity();
#ifndef STARFACT_SMPI  // (a simulated run checks nothing)
    MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
}

template <typename T>
int run(const Settings& s, Runtime& rt, Mapping mapping, Grid grid) {
    const bool root = rt.mpi_rank() == 0;
    const int64_t n = s.n > 0 ? s.n : (mapping == Mapping::CpuOnly ? 1000 : 8192);
    const int64_t m = s.m > 0 ? s.m : n;
    const int64_t k = std::min(m, n), ldb = std::max(m, n);  // Q is m x k; B holds max(m, n) rows, as LAPACK's
    const bool wide = m < n;
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    const int64_t nrhs = s.op == QrOp::Gels ? s.nrhs : 0;
    Request request;
    request.op = s.op == QrOp::Gels ? Operation::Gels : Operation::Geqrf;
    request.element = support::element_of(detail::lapack_letter<T>());  // Fp32 or Fp64
    request.m = m;
    request.n = n;
    request.nrhs = nrhs;
    request.ib = s.ib;
    request.options.mapping = mapping;
    request.tiling = Tiling{s.nb > 0 ? s.nb : 0, residency};  // no --nb: the plan's
    request.distributed = grid.ranks() > 1;
    const Plan planned = plan(request, Machine::of(rt));
    const int64_t nb = planned.nb;
    // Without --grid, a matrix of one tile column (tall and skinny: the Cholesky QR's) goes over every rank (K x 1):
    // the square grid would leave it on the ranks of one grid column (four H200, 2^20 x 256: 4 x 1 0.0070 s, two
    // ranks 0.0101 s).
    if (s.grid.p == 0 && n <= nb && m > nb) grid = Grid{grid.ranks(), 1};
    const double flops = op_flops(s, m, n);
    const std::string grid_text = std::to_string(grid.p) + "x" + std::to_string(grid.q);
    const support::Table table(s.csv, {"impl", "op", "m", "n", "nb", "ib", "tree", "prec", "mapping", "sched",
                                       "residency", "grid", "run", "seconds", "GFLOP/s", "orth", "resid", "ls_resid",
                                       "info"});
    if (root) {
        table.note("starpu_qr: " + rt.describe());
        table.note("plan: " + planned.to_string() +
                   (request.distributed ? " (its tree is one process's: the tree column says what ran)" : ""));
        table.note("vendor: none in a run over MPI ranks (one process: starpu_qr without --grid and mpirun)");
    }
    // Every rank the same matrices, each importing its own tiles.
    std::vector<T> A, B;
    random_problem(s, m, n, ldb, nrhs, A, B);
    const TileLayout layout{grid, false};
    TileMatrix<T> tiles(rt, m, n, nb, residency, layout);
    std::unique_ptr<TileMatrix<T>> b, q;
    if (nrhs > 0) b = std::make_unique<TileMatrix<T>>(rt, ldb, nrhs, nb, residency, layout);
    if (s.op == QrOp::Orgqr || s.check) q = std::make_unique<TileMatrix<T>>(rt, m, k, nb, residency, layout);
    // A wide gels leaves the factors of A^T in A (docs/qr.md), which orgqr does not take: its check is the solution's.
    const bool qr_checks = !(wide && s.op == QrOp::Gels);
    const int64_t rows = qr_checks ? m : n, cols = qr_checks ? n : m;  // what the factors are shaped for
    const int64_t mt = (rows + nb - 1) / nb;
    Options opts;
    opts.mapping = mapping;
    opts.variant = Variant::parse(s.priorities ? "right" : "noprio");
    if (root) table.header();
    bool failed = false;
    int info = 0;
    std::string summary;
    double best = 0;
    std::vector<std::string> notes;
    for (const QrTree& tree : s.trees) {
        QRFactors<T> f(rt, rows, cols, nb, tree, s.ib, grid);  // collective
        std::vector<double> checks{-1, -1, -1};                 // orth, resid, ls_resid
        RunStats stats;
        std::string column;
        const std::vector<double> seconds = support::timed_runs(
            root ? "starpu_qr" : nullptr, s.warmup, s.repeat,
            [&](const support::Run&) {
                if (support::kRunComputes) {
                    tiles.import(A.data(), m);
                    if (b) b->import(B.data(), ldb);
                } else {
                    support::make_tiles_valid(tiles);
                    if (b) support::make_tiles_valid(*b);
                }
                if (s.op == QrOp::Orgqr) geqrf(tiles, f, opts);
                stats.tasks = 0;
                rt.barrier();  // every rank starts the clock together
            },
            [&](const support::Run&) {
                switch (s.op) {  // info: the same on every rank
                    case QrOp::Geqrf: geqrf(tiles, f, opts, stats); break;
                    case QrOp::Gels: info = gels(tiles, f, *b, opts); break;
                    case QrOp::Orgqr: orgqr(tiles, f, *q, opts); break;
                }
                rt.barrier();  // the slowest rank's time
            },
            [&](const support::Run& r, double sec) {
                column = tree_text(tree, f, mt);
                if (r.last && s.check && info == 0 && support::kRunComputes) {
                    if (s.op != QrOp::Orgqr && qr_checks) orgqr(tiles, f, *q, opts);
                    std::vector<T> F, Q, X;
                    if (qr_checks) {  // collective
                        F.resize(A.size());
                        Q.resize(static_cast<size_t>(m * k));
                        tiles.export_to(F.data(), m);
                        q->export_to(Q.data(), m);
                    }
                    if (b) {
                        X.resize(B.size());
                        b->export_to(X.data(), ldb);
                    }
                    {
                        Runtime::Paused quiet(rt);
                        if (qr_checks) {
                            checks[0] = orthogonality_residual(m, k, Q.data(), m);
                            checks[1] = qr_residual(m, n, A.data(), m, Q.data(), m, F.data(), m);
                        }
                        if (b) checks[2] = gels_residual(m, n, nrhs, A.data(), m, X.data(), ldb, B.data(), ldb);
                    }
                    worst_over_ranks(checks);  // every rank decides alike
                }
                if (root)
                    table.row({"starfact", support::to_string(s.op), std::to_string(m), std::to_string(n),
                               std::to_string(nb), std::to_string(f.ib()), column, std::string(1, s.prec),
                               to_string(mapping), rt.scheduler(), to_string(residency), grid_text,
                               std::to_string(r.timed_index), fmt("%.4f", sec), fmt("%.1f", flops / sec * 1e-9),
                               residual_text(r.last ? checks[0] : -1), residual_text(r.last ? checks[1] : -1),
                               residual_text(r.last ? checks[2] : -1), std::to_string(info)});
                return info == 0;
            });
        if (info != 0) {
            if (root) table.note("matrix is rank deficient: info = " + std::to_string(info));
            return 2;
        }
        notes.push_back(tree_note(column, f, grid));
        for (double c : checks) failed = failed || c >= 60;  // (NaN: +inf)
        int64_t tasks = stats.tasks;
#ifdef STARFACT_SMPI
        const char* tasks_text = " tasks of rank 0";  // no collective from this actor
#else
        const char* tasks_text = " tasks";
        MPI_Allreduce(MPI_IN_PLACE, &tasks, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
#endif
        const double ours = support::median(seconds);
        if (best == 0 || ours < best) {
            best = ours;
            summary = "summary: starfact median " + fmt("%.4f", ours) + " s, " + fmt("%.1f", flops / ours * 1e-9) +
                      " GFLOP/s (" + support::to_string(s.op) + ", tree " + column + ")" +
                      (tasks > 0 ? ", " + std::to_string(tasks) + tasks_text : std::string()) + ", " +
                      std::to_string(rt.mpi_size()) + " MPI ranks, grid " + grid_text;
        }
    }
    if (root) {
        for (const std::string& note : notes) table.note(note);
        table.note(summary);
    }
    if (failed) {
        if (root) table.note("check FAILED (>= 60)");
        return 3;
    }
    return 0;
}

/// Why the distributed run refuses these settings on `size` ranks ("" when it takes them): the same on every rank,
/// which parsed the same flags.
std::string refusal(const Settings& s, const Grid& grid, int size) {
    if (grid.ranks() != size)
        return "--grid " + std::to_string(grid.p) + "x" + std::to_string(grid.q) + " has " +
               std::to_string(grid.ranks()) + " processes but " + std::to_string(size) + " MPI ranks run";
    if (!s.trace_dir.empty()) return "--trace is not supported on several MPI ranks";
    for (const QrTree& tree : s.trees)
        if (grid.ranks() > 1 && tree.kind == QrTree::Kind::Cholqr && tree.fallback)
            return std::string(s.compare ? "--trees " : "--tree ") + tree.name() +
                   " runs on one process: a matrix distributed over MPI ranks takes the flat, binary, domains=A, "
                   "cholqr, panel or auto tree";
    return "";
}

}  // namespace
#endif

int run_distributed(const Settings& s, int* argc, char*** argv) {
#ifdef STARFACT_HAVE_MPI
    const examples::MpiLaunch mpi(argc, argv);
    const int rank = mpi.rank, size = mpi.size;
    int rc = 0;
    // Every rank parsed the same flags (a launcher's usual case): a set-up it refuses, it refuses on every rank.
    const Grid grid = s.grid.p > 0 ? s.grid : Grid::square(size);
    const std::string refused = refusal(s, grid, size);
    if (!refused.empty()) {
        if (rank == 0) std::fprintf(stderr, "starpu_qr: %s\n", refused.c_str());
        mpi.finalize();
        return 1;
    }
    if (!s.perfmodel_dir.empty()) setenv("STARPU_PERF_MODEL_DIR", s.perfmodel_dir.c_str(), 1);
    try {
        const Mapping mapping = support::default_mapping(s);
        RuntimeConfig cfg = support::runtime_config(s, s.sched, mapping == Mapping::CpuOnly, mapping == Mapping::GpuOnly);
        cfg.mpi = true;
        Runtime rt(cfg);
        rt.require_mapping(mapping, "starpu_qr");
        int no_gpu = s.device_resident && rt.cuda_devices() == 0 ? 1 : 0;
#ifndef STARFACT_SMPI  // (simulated ranks have the same GPUs)
        MPI_Allreduce(MPI_IN_PLACE, &no_gpu, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#endif
        if (no_gpu) {
            if (rank == 0) std::fprintf(stderr, "starpu_qr: --device-resident needs a GPU on every MPI rank\n");
            rc = 1;
        } else {
            rc = s.prec == 's' ? run<float>(s, rt, mapping, grid) : run<double>(s, rt, mapping, grid);
        }
    } catch (const std::exception& e) {
        // Only this rank may have seen it: end every rank rather than leave them waiting.
        std::fprintf(stderr, "starpu_qr: rank %d: %s\n", rank, e.what());
        mpi.abort_all();
    }
    mpi.finalize();
    return rc;
#else
    (void)s, (void)argc, (void)argv;
    std::fprintf(stderr, "starpu_qr: --grid needs MPI, and this starpu_qr was built without it\n");
    return 1;
#endif
}

}  // namespace starfact::qr_driver

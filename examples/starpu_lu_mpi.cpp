// starpu_lu over MPI ranks (mpirun -np N starpu_lu ..., or --grid PxQ): getrf on a matrix distributed 2D
// block-cyclically (docs/mpi.md, the distributed LU), one table printed by rank 0, the residuals of the factors and of
// a solve with them computed on every rank from the gathered results (so every rank exits alike). Also simulated
// over several nodes in the SMPI build (smpirun, tools/simulate.sh --nodes: docs/simulation.md).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "examples/mpi_launch.hpp"
#include "examples/starpu_lu.hpp"
#include "starfact/starfact.hpp"
#include "support/driver_common.hpp"

namespace starfact::lu_driver {

#ifdef STARFACT_HAVE_MPI
namespace {

using support::fmt;
using support::residual_text;

template <typename T>
int run(const Settings& s, Runtime& rt, Mapping mapping, const Grid& grid) {
    const bool root = rt.mpi_rank() == 0;
    const int64_t n = s.n > 0 ? s.n : 2000, nrhs = s.nrhs;
    Request request;
    request.op = Operation::Getrf;
    request.element = sizeof(T) == sizeof(float) ? Precision::Fp32 : Precision::Fp64;
    request.m = request.n = n;
    request.options.mapping = mapping;
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    request.tiling = Tiling{s.nb > 0 ? s.nb : 0, residency};
    const Plan planned = plan(request, Machine::of(rt));
    const int64_t nb = planned.nb;
    const std::string grid_text = std::to_string(grid.p) + "x" + std::to_string(grid.q);
    const support::Table table(s.csv, {"impl", "n", "nb", "prec", "mapping", "sched", "grid", "run", "seconds",
                                       "GFLOP/s", "residual", "info"});
    if (root) table.note("starpu_lu: " + rt.describe());
    if (root) table.note("plan: " + planned.to_string());
    // Every rank the same matrix, each importing its own tiles; a simulated run (support::kRunComputes false) has no
    // host matrix: each run only makes every rank's tiles valid where they live (random_symmetric on tiles).
    std::vector<T> A;
    if (support::kRunComputes) {
        A.resize(static_cast<size_t>(n) * n);
        random_matrix<T>(n, n, A.data(), n, s.seed);
    }
    const TileLayout layout{grid, false};
    TileMatrix<T> tiles(rt, n, nb, residency, layout);
    Pivots piv(tiles);
    Options opts;
    opts.mapping = mapping;
    opts.variant = Variant::parse(s.priorities ? "right" : "noprio");
    if (root) table.header();
    int info = 0;
    double residual = -1;
    RunStats stats;
    const std::vector<double> seconds = support::timed_runs(
        root ? "starpu_lu" : nullptr, s.warmup, s.repeat,
        [&](const support::Run&) {
            if (support::kRunComputes)
                tiles.import(A.data(), n);
            else
                random_symmetric(tiles, s.seed, 0.0);
            stats.tasks = 0;
            rt.barrier();  // every rank starts the clock together
        },
        [&](const support::Run&) {
            info = getrf(tiles, piv, opts, stats);  // the same info on every rank
            rt.barrier();                           // the slowest rank's time
        },
        [&](const support::Run& r, double sec) {
            if (r.last && s.check && info == 0) {
                std::vector<T> LU(A.size());
                tiles.export_to(LU.data(), n);  // collective
                const std::vector<int64_t> ipiv = piv.ipiv();
                Runtime::Paused quiet(rt);
                residual = getrf_residual<T>(n, A.data(), n, LU.data(), n, ipiv.data());
            }
            if (root)
                table.row({"starfact", std::to_string(n), std::to_string(nb), std::string(1, s.prec), to_string(mapping),
                           rt.scheduler(), grid_text, std::to_string(r.timed_index), fmt("%.4f", sec),
                           fmt("%.1f", getrf_flops(n) / sec * 1e-9), residual_text(r.last ? residual : -1),
                           std::to_string(info)});
            return info == 0;
        });
    if (info != 0) {
        if (root) table.note("matrix is singular: info = " + std::to_string(info));
        return 2;
    }
    double solve_residual = -1;
    if (s.check) {
        std::vector<T> B(static_cast<size_t>(n) * nrhs), X(B.size());
        random_matrix<T>(n, nrhs, B.data(), n, s.seed + 1);
        TileMatrix<T> b(rt, n, nrhs, nb, residency, layout);
        b.import(B.data(), n);
        getrs(tiles, piv, b, opts);
        b.export_to(X.data(), n);
        Runtime::Paused quiet(rt);
        solve_residual = gesv_residual<T>(n, nrhs, A.data(), n, X.data(), n, B.data(), n);
        if (root)
            table.note("solve: nrhs = " + std::to_string(nrhs) + ", residual ||A X - B|| / (||A|| ||X|| n eps) = " +
                       residual_text(solve_residual));
    }
    int64_t tasks = stats.tasks;
#ifdef STARFACT_SMPI
    const char* tasks_text = " tasks of rank 0, ";  // no collective from this actor
#else
    const char* tasks_text = " tasks, ";
    MPI_Allreduce(MPI_IN_PLACE, &tasks, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
#endif
    const double ours = support::median(seconds);
    if (root)
        table.note("summary: starfact median " + fmt("%.4f", ours) + " s, " +
                   fmt("%.1f", getrf_flops(n) / ours * 1e-9) + " GFLOP/s, " + std::to_string(tasks) + tasks_text +
                   std::to_string(rt.mpi_size()) + " MPI ranks, grid " + grid_text);
    if (residual >= 60 || solve_residual >= 60) {
        if (root) table.note("residual check FAILED (>= 60)");
        return 3;
    }
    return 0;
}

}  // namespace
#endif

/// The default grid of `ranks` ranks: P x Q with Q >= 4 P, as square as that allows (P the largest divisor of ranks
/// with 4 P^2 <= ranks): 1 x ranks up to 15 ranks, 2 x 8 for 16, 4 x 16 for 64. Wide grids keep more tile columns
/// on one rank (their panels and interchanges move nothing between ranks), square ones spread the broadcasts; the
/// coarse model of nodes of four H200 (docs/simulation_scale.md, the LU with chains) puts the balance there:
/// 1x4 101% (2x2 96.7%) on 4 nodes, 1x8 98.7% (2x4 100.4%) on 8, 2x8 101.8% (1x16 96.4%, 4x4 90.1%) on 16, 4x16
/// 89.5% (8x8 83.8%, 2x32 65.6%, 1x64 43%) on 64; measured, 2 x H200 at n = 32768: 1x2 0.444 s, 2x1 0.467 s.
Grid lu_grid(int ranks) {
    int p = 1;
    for (int d = 1; 4 * d * d <= ranks; ++d)
        if (ranks % d == 0) p = d;
    return Grid{p, ranks / p};
}

int run_distributed(const Settings& s, int* argc, char*** argv) {
#ifdef STARFACT_HAVE_MPI
    const examples::MpiLaunch mpi(argc, argv);
    const int rank = mpi.rank, size = mpi.size;
    int rc = 0;
    // Every rank parsed the same flags (a launcher's usual case): a set-up it refuses, it refuses on every rank.
    const Grid grid = s.grid.p > 0 ? s.grid : lu_grid(size);
    std::string refused;
    if (grid.ranks() != size)
        refused = "--grid " + std::to_string(grid.p) + "x" + std::to_string(grid.q) + " has " +
                  std::to_string(grid.ranks()) + " processes but " + std::to_string(size) + " MPI ranks run";
    else if (s.solve)
        refused = "--factor-prec is not supported on several MPI ranks (the mixed-precision gesv runs in one process)";
    else if (!s.trace_dir.empty())
        refused = "--trace is not supported on several MPI ranks";
    if (!refused.empty()) {
        if (rank == 0) std::fprintf(stderr, "starpu_lu: %s\n", refused.c_str());
        mpi.finalize();
        return 1;
    }
    try {
        const Mapping mapping = support::default_mapping(s);
        RuntimeConfig cfg = support::runtime_config(s, s.sched, mapping == Mapping::CpuOnly, mapping == Mapping::GpuOnly);
        cfg.mpi = true;
        Runtime rt(cfg);
        rt.require_mapping(mapping, "starpu_lu");
        rc = s.prec == 's' ? run<float>(s, rt, mapping, grid) : run<double>(s, rt, mapping, grid);
    } catch (const std::exception& e) {
        // Only this rank may have seen it: end every rank rather than leave them waiting.
        std::fprintf(stderr, "starpu_lu: rank %d: %s\n", rank, e.what());
        mpi.abort_all();
    }
    mpi.finalize();
    return rc;
#else
    (void)s, (void)argc, (void)argv;
    std::fprintf(stderr, "starpu_lu: --grid needs MPI, and this starpu_lu was built without it\n");
    return 1;
#endif
}

}  // namespace starfact::lu_driver

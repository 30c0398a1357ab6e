// starpu_chol on a process grid: potrf, or posv (--op posv), on a matrix spread over the ranks (1 x 1: this
// process's own matrix); the table and the residual on rank 0, after gathering the factor or the solution; no
// vendor baseline.
#include <memory>
#include <string>
#include <vector>

#include "examples/starpu_chol/mpi_session.hpp"
#include "examples/starpu_chol/run_common.hpp"

namespace starfact::chol_driver {
namespace {

template <typename T>
int run(const Settings& s, Runtime& rt, Mapping mapping, const Grid& grid) {
    const int64_t n = matrix_order(s, rt);
    const int64_t nb = tile_size(s, mapping, n, rt);
    const Residency residency = s.device_resident ? Residency::Device : Residency::Host;
    const bool solve = s.op == "posv", root = rt.mpi_rank() == 0;
    const int64_t nrhs = solve ? s.nrhs : 0;
    const std::string grid_text = std::to_string(grid.p) + "x" + std::to_string(grid.q);
    const Table table(s.csv, {"impl", "n", "nb", "prec", "variant", "mapping", "sched", "residency", "grid", "run",
                              "seconds", "GFLOP/s", "residual", "info"});
    if (root) table.note("starpu_chol" + std::string(solve ? " --op posv" : "") + ": " + rt.describe());
    if (root) table.note("plan: " + driver_plan(s, mapping, n, rt, solve ? "posv" : "potrf").to_string());
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
    if (!root) return 0;  // rank 0 prints and checks the residual
    const double ours = median(m.seconds);
    return summary_status(table,
                          "summary: starfact" + std::string(solve ? " posv" : "") + " median " + fmt("%.4f", ours) +
                              " s, " + fmt("%.1f", flops / ours * 1e-9) + " GFLOP/s, " + std::to_string(m.tasks) +
                              " tasks on " + std::to_string(rt.mpi_size()) + " MPI rank" +
                              (rt.mpi_size() > 1 ? "s" : "") + ", grid " + grid_text +
                              (s.vendor ? " (no vendor baseline for this run)" : ""),
                          m.residual);
}

}  // namespace

int run_grid(const Settings& s, Runtime& rt, Mapping mapping, const Grid& grid) {
    return s.prec == 's' ? run<float>(s, rt, mapping, grid) : run<double>(s, rt, mapping, grid);
}

}  // namespace starfact::chol_driver

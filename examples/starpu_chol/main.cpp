// starpu_chol: the starfact experiment driver for tile Cholesky. See --help and docs/starpu_chol.md. The flags are
// parsed in settings.cpp, each run mode runs in its run_<mode>.cpp; here the choice of mode, the distributed set-up
// and the trace of a single run.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// StarPU's SimGrid build renames main (starpu_simgrid_wrap.h) so that SimGrid starts first and takes its own
// --cfg/--log flags out of argv: the file that defines main includes <starpu.h>.
#include <starpu.h>

#include "examples/starpu_chol/mpi_session.hpp"
#include "examples/starpu_chol/run_common.hpp"
#include "support/trace.hpp"

namespace starfact::chol_driver {
namespace {

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
                                                        {!s.trace_dir.empty(), "--trace"},
                                                        {support::complex_prec(s.prec), "--prec c|z"}};
    for (const auto& u : unsupported)
        if (u.first)
            throw std::invalid_argument(std::string(u.second) + " is not supported on several MPI ranks (run it with one)");
    if (refines_double(s.factor))
        throw std::invalid_argument("--factor-prec " + std::string(to_string(s.factor)) +
                                    ": the mixed-precision solve runs in one process, not over several MPI ranks (run "
                                    "it with one; the distributed solve factors in double: --factor-prec fp64 or none)");
    return grid;
}

/// A run over MPI ranks (several, or --grid): checks every rank makes alike (the flags), then the GPUs, which differ
/// per rank; all ranks stop together.
int run_distributed(const Settings& s, const MpiSession& mpi) {
    Grid grid;
    std::string bad_setup;
    try {
        grid = distributed_setup(s, mpi);
    } catch (const std::exception& e) {
        bad_setup = e.what();
    }
    if (!mpi.all_or_first_says(bad_setup)) return 1;
    const Mapping mapping = support::default_mapping(s);
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
        RuntimeConfig cfg = support::runtime_config(s, s.sched, mapping == Mapping::CpuOnly, mapping == Mapping::GpuOnly);
        cfg.mpi = true;
        Runtime rt(cfg);
        // Caught while the Runtime lives: its destructor would abort the job before the handler below runs.
        try {
            rt.require_mapping(mapping, "starpu_chol");
            if (s.device_resident && rt.cuda_devices() == 0)
                throw InvalidArgument("starpu_chol", "--device-resident", "needs a GPU, and none is usable");
            rc = run_grid(s, rt, mapping, grid);
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

/// A run in one process: --compare, --sweep, or one configuration (potrf, potri, posv) with its trace.
int run_local(const Settings& given) {
    const Settings s = local_defaults(given);
    int rc = 0;
    std::vector<std::string> workers;  // lane names for the Gantt chart
    try {
        if (s.compare) return run_compare(s);
        if (s.sweep) return run_sweep(s);
        {
            const Mapping mapping = support::default_mapping(s);
            Runtime rt(support::runtime_config(s, s.sched, mapping == Mapping::CpuOnly, mapping == Mapping::GpuOnly));
            rt.require_mapping(mapping, "starpu_chol");
            if (s.device_resident && rt.cuda_devices() == 0)
                throw InvalidArgument("starpu_chol", "--device-resident", "needs a GPU, and none is usable");
            if (s.plan_only) {
                std::cout << driver_plan(s, mapping, matrix_order(s, rt), rt, s.op) << "\n";
                return 0;
            }
            if (s.op == "potri") rc = run_potri(s, rt, mapping);
            else if (s.op == "posv" && s.factor != Precision::Native)
                rc = support::complex_prec(s.prec) ? run_mixed_complex(s, rt, mapping) : run_mixed(s, rt, mapping);
            else if (s.op == "posv") rc = run_grid(s, rt, mapping, Grid{});
            else rc = run_single(s, rt, mapping);
            workers = support::worker_names();
        }  // StarPU shuts down here and writes the FxT file
        if (!s.trace_dir.empty() && rc == 0)
            rc = support::finish_trace(s.trace_dir, workers, "starpu_chol " + s.variant.name() + " (last timed run)",
                                       "starpu_chol", s.csv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "starpu_chol: %s\n", e.what());
        return 1;
    }
    return rc;
}

}  // namespace
}  // namespace starfact::chol_driver

int main(int argc, char** argv) {
    using namespace starfact::chol_driver;
    bool grid_flag = false;  // --grid asks for MPI even without a launcher
    for (int i = 1; i < argc; ++i) grid_flag = grid_flag || std::string(argv[i]).rfind("--grid", 0) == 0;
    MpiSession mpi(&argc, &argv, grid_flag);
    Settings s;
    std::string bad_flags;
    try {
        s = parse(argc, argv);
        if (!s.perfmodel_dir.empty()) setenv("STARPU_PERF_MODEL_DIR", s.perfmodel_dir.c_str(), 1);
        if (!s.trace_dir.empty()) starfact::support::prepare_trace(s.trace_dir);
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
    return distributed ? run_distributed(s, mpi) : run_local(s);
}

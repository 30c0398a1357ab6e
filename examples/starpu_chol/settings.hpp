// starpu_chol's flags: the drivers' shared ones (support/driver_common.hpp) and the Cholesky driver's own.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "starfact/starfact.hpp"
#include "support/driver_common.hpp"

namespace starfact::chol_driver {

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
    Precision factor = Precision::Native;  // --factor-prec
    double cond = 0;                       // --cond; 0: the random SPD matrix
    double covariance = 0;                 // --covariance: the length scale; 0: not that matrix
    double tile_tolerance = 0;             // --tile-tolerance: Refinement::tile_tolerance
    double shift = -1;                     // --shift: Refinement::shift (units of the factor's unit roundoff)
    bool array = false;                    // --array: the array form of posv on host arrays
    bool always_low = false;               // --always-low: Refinement::always_low
    bool plan_only = false;                // --plan: print the plan and exit
    double refine_budget = -1;             // --refine-budget: Refinement::time_budget (< 0: its default)
    Grid grid{0, 0};  // --grid; 0 x 0: not given
    DevicePlacement placement = DevicePlacement::BlockCyclic2D;  // --placement
    Grid device_grid{0, 0};                                      // --device-grid; 0 x 0: the most square
    bool variant_given = false, sched_given = false;             // --variant, --sched on the command line
};

/// The flags of argv (--help prints the help and exits 0); throws std::invalid_argument for bad flags or values.
Settings parse(int argc, char** argv);

/// The settings of a run in one process with the defaults of a CPU-only factorization (--op potrf, CPU-only mapping,
/// one configuration): the variant lookahead=2 and the scheduler lws unless --variant or --sched was given.
/// On two cores, at the default order 2000, this ties or beats one multithreaded LAPACKE call where right + dmdas
/// fell behind it, and it holds up far better when other processes share the cores (docs/starpu_chol.md).
Settings local_defaults(Settings s);

}  // namespace starfact::chol_driver

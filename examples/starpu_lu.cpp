// starpu_lu: the starfact experiment driver for the tile LU with partial pivoting, and (--factor-prec) for the
// mixed-precision gesv (examples/starpu_lu_gesv.cpp). See --help and docs/starpu_lu.md.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>

// StarPU's SimGrid build renames main (starpu_simgrid_wrap.h) so that SimGrid starts first and takes its own
// --cfg/--log flags out of argv: the file that defines main includes <starpu.h>.
#include <starpu.h>

#include "examples/mpi_launch.hpp"
#include "examples/starpu_lu.hpp"
#include "examples/starpu_lu_factor.hpp"
#include "starfact/starfact.hpp"
#include "support/cli.hpp"
#include "support/driver_common.hpp"

namespace {

using namespace starfact;
using starfact::lu_driver::Settings;
using starfact::support::Cli;

/// --help: the common flags' lines come from support::common_flags_help().
std::string help() {
    return std::string(R"(usage: starpu_lu [flags]

Factors a random general matrix (entries uniform in [-0.5, 0.5]) with starfact's tile LU with partial
pivoting under StarPU, prints one line per timed run, solves A X = B with the factors, then runs the
vendor's getrf on the same matrix in the same process (cusolverDnXgetrf on device-resident data when a GPU
is used, else one LAPACKE getrf call with all OpenBLAS threads) and the ratio vendor_time / starfact_time
(> 1: starfact is faster). With --prec c|z the same for a random complex matrix (see --prec).

problem
)") +
           support::common_flags_help({"--n"}) +
           R"(  --nb NB           tile size (default: starfact::plan's: 256 on CPUs; on GPU mappings one tile up
                    to n = 4096, device-resident 8192, then 2048, device-resident above 24576 4096 on one
                    GPU and 2048 on several)
  --nrhs R          right-hand sides of the solve (default 1)
)" +
           R"(  --prec s|d|c|z    precision: s = float, d = double (default d), c = complex float, z = complex
                    double. c and z factor a random complex matrix (real and imaginary parts uniform in
                    [-0.5, 0.5]) with starfact's complex tile LU (starfact/lu_complex.hpp, the plan's tiles),
                    solve with the factors (getrs) and time the vendor's c/z getrf on the same matrix
                    (cusolverDnXgetrf on CUDA_C_32F/CUDA_C_64F, or one LAPACKE call); GFLOP/s count 4x the
                    real flops. Refused with c and z: --factor-prec, --cond, --always-low, --array,
                    --refine-budget, --noprio, --grid and MPI ranks
)" +
           support::common_flags_help({"--seed"}) +
           R"(mixed-precision solve (docs/mixed_precision.md)
  --factor-prec P   fp64|fp32|tf32|bf16|fp16: solve A X = B with gesv(A, piv, B, opts, report) and
                    Options::factor P (fp32..fp16: a float LU, tensor-core updates for tf32, bf16, fp16,
                    refined to double accuracy; fp64: the double gesv), print its report per run, then
                    time starfact's double gesv, cuSOLVER's dgetrf + dgetrs and cusolverDnIRSXgesv at
                    the same lowest precision on the same matrix and right-hand sides (with a GPU), with
                    the ratios vendor / starfact; tiles: the plan's (mixed_tile_size when it refines)
  --cond K          with --factor-prec: the matrix U diag(s) V^T of 2-norm condition number K (U, V
                    orthogonal from QRs of random matrices, on the GPU when there is one; s geometric
                    from 1 to 1/K) instead of the random matrix
  --always-low      with --factor-prec: factor in P whatever the plan says pays (Refinement::always_low)
  --refine-budget X with --factor-prec: Refinement::time_budget (default 2; 0: no limit)
  --array           with --factor-prec: the LAPACK-array form on host arrays (views, no copy)
mapping and runtime
)" +
           support::common_flags_help({"--gpu-only", "--hybrid", "--cpu-only"}) +
           R"(  --noprio          submit without priorities (Variant noprio)
)" +
           support::common_flags_help({"--sched"}) +
           R"(  --device-resident tiles live in GPU memory (default: pinned host memory)
  --host-resident   pinned host memory after all (cancels --device-resident)
  --ncpus N         CPU workers (default: 0 for --gpu-only, StarPU's choice otherwise; STARPU_NCPU wins)
  --ncuda N         CUDA devices (default: all; STARPU_NCUDA wins)
)" +
           support::common_flags_help({"--streams", "--gpu-mem-limit", "--perfmodel-dir"}) +
           R"(  --calibrate       keep calibrating the performance models in every run (STARPU_CALIBRATE=1; what
                    sim/calibrate.sh records for simulated runs)
runs and output
)" +
           support::common_flags_help({"--warmup", "--repeat"}) +
           R"(  --check           compute ||P A - L U||_1 / (||A||_1 n eps) of the last run and the solve residual
                    ||A X - B||_1 / (||A||_1 ||X||_1 n eps), on the host (default on); exit status 3 if
                    either is >= 60
  --no-check        skip both residuals (and the solve)
  --no-vendor       skip the cuSOLVER / LAPACKE baseline
  --trace DIR       record the last timed run with FxT into DIR, then write DIR/paje.trace, dag.dot,
                    tasks.rec (starpu_fxt_tool) and DIR/gantt.svg (one lane per worker); see docs/traces.md
)" +
           support::common_flags_help({"--csv", "--help"}) +
           R"(distributed runs (docs/mpi.md)
  --grid PxQ        the P x Q process grid of a run over MPI ranks (mpirun -np N starpu_lu ...; default: Q >= 4 P,
                    as square as that allows: 1 x N up to 15 ranks, 2x8 for 16, 4x16 for 64): the matrix is spread
                    2D block-cyclically,
                    rank 0 prints the table; no vendor baseline, --factor-prec or --trace there
)" +
           R"(
exit status: 0 ok, 1 bad arguments or runtime error, 2 matrix singular (info > 0), 3 residual >= 60 (with
--factor-prec: a backward error above 10 times the refinement's tolerance, or 1e-12)
)";
}

Settings parse(int argc, char** argv) {
    Settings s;
    Cli cli(argc, argv);
    while (!cli.done()) {
        const std::string f = cli.next();
        if (f == "--help") {
            std::cout << help();
            std::exit(0);
        } else if (f == "--prec") {
            s.prec = cli.choice({"s", "d", "c", "z"})[0];
        } else if (support::parse_common_flag(cli, f, s)) {
        } else if (f == "--nrhs") s.nrhs = cli.integer(1, 1 << 20);
        else if (f == "--noprio") { cli.no_value(); s.priorities = false; }
        else if (f == "--trace") s.trace_dir = cli.value();
        else if (f == "--calibrate") { cli.no_value(); s.calibrate = true; }
        else if (f == "--factor-prec") {
            const std::string v = cli.value();
            if (v != "fp64" && v != "fp32" && v != "tf32" && v != "bf16" && v != "fp16")
                throw std::invalid_argument("--factor-prec must be one of fp64, fp32, tf32, bf16, fp16 (got '" + v + "')");
            s.factor = parse_precision(v, "--factor-prec");
            s.solve = true;
        } else if (f == "--cond") {
            const std::string v = cli.value();
            char* end = nullptr;
            s.cond = std::strtod(v.c_str(), &end);
            if (end == v.c_str() || *end != '\0' || !(s.cond >= 1) || !std::isfinite(s.cond))
                throw std::invalid_argument("--cond needs a condition number >= 1, e.g. 1e6 (got '" + v + "')");
        } else if (f == "--grid") {
            s.grid = support::parse_grid(cli.value());
        } else if (f == "--always-low") { cli.no_value(); s.always_low = true; }
        else if (f == "--array") { cli.no_value(); s.array = true; }
        else if (f == "--refine-budget") {
            const std::string v = cli.value();
            char* end = nullptr;
            s.refine_budget = std::strtod(v.c_str(), &end);
            if (end == v.c_str() || *end != '\0' || !(s.refine_budget >= 0) || !std::isfinite(s.refine_budget))
                throw std::invalid_argument("--refine-budget needs a factor >= 0 (got '" + v + "')");
        } else cli.unknown();
    }
    if (support::complex_prec(s.prec)) {  // the complex LU: right-looking, in its own arithmetic, one process
        const std::string prec = std::string("--prec ") + s.prec;
        const std::pair<bool, std::string> refused[] = {
            {!support::kRunComputes, prec + " is not supported in a simulation build: complex runs compute"},
            {s.solve, "--factor-prec " + std::string(to_string(s.factor)) + " is not supported with " + prec +
                          ": complex matrices are factored in their own arithmetic only (no mixed-precision gesv); "
                          "the run solves with the factors by itself (getrs): drop it"},
            {s.cond > 0 || s.always_low || s.array || s.refine_budget >= 0,
             std::string(s.cond > 0 ? "--cond" : s.always_low ? "--always-low" : s.array ? "--array" : "--refine-budget") +
                 " is not supported with " + prec + ": it belongs to the real mixed-precision solve"},
            {!s.priorities, "--noprio is not supported with " + prec + ": the complex LU has no variant to choose"},
            {s.grid.p > 0, "--grid is not supported with " + prec + ": complex matrices are factored in one process"}};
        for (const auto& r : refused)
            if (r.first) throw std::invalid_argument(r.second);
    }
    if (!s.solve && (s.cond > 0 || s.always_low || s.array || s.refine_budget >= 0))
        throw std::invalid_argument("--cond, --always-low, --array and --refine-budget belong to the mixed-precision "
                                    "solve: add --factor-prec");
    if (s.solve && s.prec == 's')
        throw std::invalid_argument("--factor-prec solves double matrices: drop --prec s");
    if (s.solve && !support::kRunComputes)
        throw std::invalid_argument("--factor-prec needs a build that computes (not a simulation build)");
    if (s.array && s.device_resident)
        throw std::invalid_argument("--array takes host arrays: drop --device-resident");
    if (s.warmup < 0) s.warmup = 2;
    if (s.gpu_mem_limit_mb > 0 && s.device_resident)
        throw std::invalid_argument("--gpu-mem-limit limits where StarPU caches host-resident tiles: drop --device-resident");
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    Settings s;
    // Several MPI ranks, or --grid: the distributed LU (examples/starpu_lu_mpi.cpp).
    bool grid_flag = false;
    for (int i = 1; i < argc; ++i) grid_flag = grid_flag || std::string(argv[i]) == "--grid";
    if (grid_flag || starfact::examples::mpi_launched()) {
        try {
            s = parse(argc, argv);
            if (support::complex_prec(s.prec))
                throw std::invalid_argument(std::string("--prec ") + s.prec +
                                            " is not supported on several MPI ranks: complex matrices are factored in "
                                            "one process");
        } catch (const std::exception& e) {
            std::fprintf(stderr, "starpu_lu: %s\n", e.what());
            return 1;
        }
        return starfact::lu_driver::run_distributed(s, &argc, &argv);
    }
    return support::driver_main(
        "starpu_lu", argc, argv, s, [&](int c, char** v) { s = parse(c, v); },
        [&](Runtime& rt, Mapping mapping) {
            if (s.solve) return starfact::lu_driver::run_gesv(s, rt, mapping);
            if (support::complex_prec(s.prec)) return starfact::lu_driver::run_complex(s, rt, mapping);
            return s.prec == 's' ? starfact::lu_driver::run_factor<float>(s, rt, mapping)
                                 : starfact::lu_driver::run_factor<double>(s, rt, mapping);
        });
}

// starpu_chol's help text and flag parsing (settings.hpp).
#include "examples/starpu_chol/settings.hpp"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>

#include "starfact/mixed.hpp"
#include "support/cli.hpp"

namespace starfact::chol_driver {
namespace {

/// --help: the common flags' lines come from support::common_flags_help().
std::string help() {
    return std::string(R"(usage: starpu_chol [flags]

Factors a random SPD matrix (entries uniform in [-0.5, 0.5], n added to the diagonal) with starfact's
tile Cholesky under StarPU, prints one line per timed run, then the vendor's potrf on the same matrix
in the same process (cuSOLVER on device-resident data when a GPU is used, else one LAPACKE call with
all OpenBLAS threads) and the ratio vendor_time / starfact_time (> 1: starfact is faster). With
--prec c|z: a random Hermitian positive definite complex matrix, then a solve with the factor (see --prec).

problem
  --op OP           potrf (default): the factorization; posv: potrf then potrs on --nrhs random right-hand
                    sides, residual ||A X - B||_1 / (||A||_1 ||X||_1 n eps), no vendor baseline;
                    potri: the SPD inverse, potrf + trtri + lauum as one
                    task graph (tiles: starfact::plan's unless --nb), its residual
                    ||A inv(A) - I||_1 / (||A||_1 ||inv(A)||_1 n eps), and the vendor's potrf + potri on the
                    same matrix (cuSOLVER on device-resident data with a GPU, else LAPACKE)
  --nrhs K          right-hand sides of --op posv, and of the solve of --prec c|z (default 1)
  --factor-prec P   --op posv in double with the factorization in P: native/fp64 (the plain solve), fp32, tf32,
                    bf16, fp16, tf32x3 (three tf32 products of split operands: about float accuracy), auto (tf32,
                    then tf32x3 when tf32 breaks down or falls short) (the mixed-precision solve: a float factor of
                    the scaled matrix, the trailing updates on tensor cores, refinement to double accuracy, GMRES when it
                    stalls, the double factorization as fall-back; docs/mixed_precision.md). Prints per run the
                    path, the refinement and GMRES iterations and the backward error, and in the same run
                    cuSOLVER's dpotrf + dpotrs and its IRS gesv at the same lowest precision (GPU runs); tiles
                    from starfact::plan unless --nb. With --op potrf --prec s: the float
                    factorization with its trailing updates in tf32, bf16 or fp16 (against cuSOLVER's spotrf)
  --cond K          with --factor-prec: the matrix Q diag(s) Q^T of condition number K (Q orthogonal from the QR
                    of a Gaussian matrix, s geometric from 1 to 1/K) instead of the random SPD one
  --covariance L    with --factor-prec: the covariance matrix exp(-|x_i - x_j| / L) of n random points of the unit
                    square numbered along a Morton curve (entries decay away from the diagonal, as in
                    Gaussian-process codes) instead of the random SPD one
  --tile-tolerance T
                    with --factor-prec tf32/bf16/fp16: per-tile arithmetic (starfact::Refinement::tile_tolerance):
                    only the off-diagonal tiles with ||A_ij||_F NT / ||A||_F < T / u in the factor's arithmetic,
                    the others and the diagonal tiles in float; 6e-8 (2^-24) about a float factor's accuracy
  --shift S         with --factor-prec fp32/tf32/bf16/fp16: the diagonal shift of the low-precision factorization
                    in units of its unit roundoff (starfact::Refinement::shift; default: none unless the
                    factorization breaks down, then growing shifts before the fall-back)
  --refine-budget X with --factor-prec fp32/tf32/bf16/fp16: the time the shifted factorizations and GMRES may
                    take, in units of the first factorization's time, before the fall-back
                    (starfact::Refinement::time_budget; default 2, 0: no limit)
  --always-low      with --factor-prec fp32/tf32/bf16/fp16: factor in that precision at every order (below
                    n = 16384 on GPUs the library's plan runs the double factorization instead, where it is
                    faster, and reports path direct; starfact::Refinement::always_low)
  --plan            print the library's plan of the run (one line: tile size, streams, kernels, arithmetic;
                    starfact::plan) and exit without running; every run notes it before its timings
  --array           with --factor-prec: time the array form, posv(rt, n, nrhs, A, lda, B, ldb, ...) on the
                    host arrays themselves (the library views them as tiles, no copy), as a user with host
                    data calls it; the vendor row then includes the copies to and from the GPU. Without it,
                    posv on TileMatrix tiles (pinned host memory, or GPU memory with --device-resident)
)") +
           support::common_flags_help({"--n"}) +
           R"(  --nb NB           tile size (default: the tuned plan, starfact::plan: on GPU mappings the whole
                    matrix is one tile up to a tuned order, larger tiles above; cpu-only 256;
                    docs/performance.md)
)" +
           R"(  --prec s|d|c|z    precision: s = float, d = double (default d), c = complex float, z = complex
                    double. c and z factor a random Hermitian positive definite matrix (complex entries
                    uniform in [-0.5, 0.5] below the diagonal, their conjugates above, a real diagonal plus n)
                    with starfact's complex tile Cholesky (starfact/cholesky_complex.hpp, right-looking, the
                    plan's tiles), solve A X = B with the factor on --nrhs random right-hand sides (residual
                    ||A X - B||_1 / (||A||_1 ||X||_1 n eps)), and time the vendor's c/z potrf on the same matrix
                    (cusolverDnXpotrf on CUDA_C_32F/CUDA_C_64F, or one LAPACKE call); GFLOP/s count 4x the real
                    flops. --prec z --op posv --factor-prec fp32|tf32: the mixed-precision Hermitian solve
                    (a complex64 factor refined to complex128 accuracy; --shift, --always-low and
                    --refine-budget apply) against starfact's complex128 posv and cuSOLVER's zpotrf.
                    --op potri: the Hermitian inverse (potrf, trtri, lauum as one graph) against cuSOLVER's
                    c/z potrf + potri (or LAPACKE's), its residual ||A X - I||_1 / (||A||_1 ||X||_1 n eps).
                    Refused with c and z otherwise: --op posv, --factor-prec (but native), --cond,
                    --covariance, --tile-tolerance, --shift, --array, --always-low, --refine-budget, --variant
                    (but right), --panel inverse, --diag fused/recursive, --compare, --sweep, --grid, MPI ranks
)" +
           support::common_flags_help({"--seed"}) +
           R"(algorithm, mapping and runtime
  --variant V       right (default; lookahead=2 for a CPU-only --op potrf in one process, but right for
                    --prec c|z, which take right only), lookahead=D, left, left-coarse, noprio (docs/variants.md)
  --panel P         panel solve: trsm (cuBLAS/BLAS trsm per tile, backward stable), inverse (trtri of the
                    diagonal tile, then one gemm per tile: faster with 1024 tiles on the H100 but not
                    backward stable, ill-conditioned tiles can give a spurious info > 0), auto (default:
                    inverse for tensor-core factors (--factor-prec tf32/bf16/fp16) with --gpu-only, else trsm;
                    docs/algorithms.md)
  --diag K          CUDA kernel for diagonal tiles: fused (our potf2), cusolver (cuSOLVER potrf), recursive
                    (our recursive Cholesky: updates and panel solves as large gemms, in the tensor-core
                    arithmetic of --factor-prec for a mixed solve), auto (default: the plan's choice by
                    order and precision, starfact::plan; docs/potf2.md)
)" +
           support::common_flags_help({"--gpu-only", "--hybrid", "--cpu-only"}) +
           R"(  --sched NAME      StarPU scheduler (default dmdas; lws for a CPU-only --op potrf in one process;
                    STARPU_SCHED, if set, wins)
)" +
           R"(  --device-resident tiles live in GPU memory (default: pinned host memory); with several GPUs, spread over
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
)" +
           support::common_flags_help({"--streams", "--gpu-mem-limit", "--perfmodel-dir"}) +
           R"(distributed (mpirun -np N starpu_chol ...; docs/mpi.md)
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
)" +
           support::common_flags_help({"--warmup", "--repeat"}) +
           R"(  --calibrate       calibration only: K warm-up runs (default 5) per configuration with
                    STARPU_CALIBRATE=1, then report where the models are and exit
  --check           compute the scaled residual ||A - L L^T||_1 / (||A||_1 n eps) (default on;
                    on the GPU when one is present; --prec c|z: ||A - L L^H||_1 / (||A||_1 n eps), then the
                    solve and its residual); exit status 3 if it is >= 60
  --no-check        skip the residual (--prec c|z: both, and the solve)
  --no-vendor       skip the cuSOLVER / LAPACKE baseline (with host-resident tiles on a GPU, the vendor
                    path of a host user is timed too: copy to the GPU, cuSOLVER potrf, copy back)
  --trace DIR       record the last timed run with FxT into DIR, then write DIR/paje.trace, dag.dot,
                    tasks.rec (starpu_fxt_tool) and DIR/gantt.svg (one lane per worker)
)" +
           support::common_flags_help({"--csv", "--help"}) +
           R"(
exit status: 0 ok, 1 bad arguments or runtime error, 2 matrix not SPD (info > 0), 3 residual >= 60
)";
}

/// A number > 0 from a flag's value; throws std::invalid_argument naming the flag and what it needs.
double positive_number(const std::string& v, const char* flag, const char* needs) {
    size_t used = 0;
    double x = 0;
    try {
        x = std::stod(v, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != v.size() || !(x > 0) || !std::isfinite(x))
        throw std::invalid_argument(std::string(flag) + " needs " + needs + " (got '" + v + "')");
    return x;
}

/// Throws std::invalid_argument naming the first flag that has no meaning for a complex run (--prec c or z): the
/// complex Cholesky is right-looking, in the matrix's own arithmetic, with trsm panels and LAPACK's or cuSOLVER's
/// potrf on the diagonal tiles, in one process, and the run is the single potrf + solve (run_complex.cpp).
void refuse_for_complex(const Settings& s) {
    const std::string prec = std::string("--prec ") + s.prec;
    const auto refuse = [&](const std::string& flag, const std::string& why) {
        throw std::invalid_argument(flag + " is not supported with " + prec + ": " + why);
    };
    if (!support::kRunComputes)
        refuse(prec, "complex runs need a build that computes (not a simulation build)");
    // the mixed-precision Hermitian solve: --prec z --op posv --factor-prec fp32|tf32 (run_mixed_complex.cpp)
    const bool mixed = s.prec == 'z' && s.op == "posv" && refines_complex_double(s.factor);
    if (s.prec == 'z' && s.op == "posv" && s.factor != Precision::Native && !mixed)
        refuse("--factor-prec " + std::string(to_string(s.factor)),
               "the mixed-precision complex solve factors in fp32 or tf32 (a complex64 factor)");
    if (s.op == "posv" && !mixed)
        refuse("--op posv", "the complex run factors and then solves by itself (potrf, then potrs on --nrhs "
                            "right-hand sides): drop --op (or, with --prec z, give --factor-prec fp32 or tf32: the "
                            "mixed-precision solve)");
    if (s.factor != Precision::Native && !mixed)
        refuse("--factor-prec " + std::string(to_string(s.factor)),
               "complex matrices are factored in their own arithmetic, but for the mixed-precision solve of --prec z "
               "--op posv with fp32 or tf32: drop it");
    const std::pair<bool, const char*> mixed_only[] = {
        {s.cond > 0, "--cond"},           {s.covariance > 0, "--covariance"}, {s.tile_tolerance > 0, "--tile-tolerance"},
        {s.shift >= 0 && !mixed, "--shift"},        {s.array, "--array"},     {s.always_low && !mixed, "--always-low"},
        {s.refine_budget >= 0 && !mixed, "--refine-budget"}};
    for (const auto& m : mixed_only)
        if (m.first) refuse(m.second, "it belongs to the real mixed-precision solve, which complex matrices lack");
    if (s.variant_given && s.variant.kind != Variant::Kind::Right)
        refuse("--variant " + s.variant.name(), "the complex Cholesky is right-looking only (drop it or give right)");
    if (s.panel == PanelSolve::Inverse)
        refuse("--panel inverse", "the complex Cholesky's panels are triangular solves (trsm)");
    if (s.diag != DiagKernel::Auto && s.diag != DiagKernel::Cusolver)
        refuse("--diag " + std::string(to_string(s.diag)),
               "the complex diagonal tiles are LAPACK's and cuSOLVER's potrf (auto or cusolver)");
    if (s.compare) refuse("--compare", "it compares the real Cholesky's variants");
    if (s.sweep) refuse("--sweep", "it sweeps the real precisions (--precs s,d)");
    if (s.grid.p > 0) refuse("--grid", "complex matrices are factored in one process, not over MPI ranks");
}

}  // namespace

Settings parse(int argc, char** argv) {
    Settings s;
    support::Cli cli(argc, argv);
    while (!cli.done()) {
        const std::string f = cli.next();
        if (f == "--help") {
            std::cout << help();
            std::exit(0);
        } else if (f == "--prec") {
            s.prec = cli.choice({"s", "d", "c", "z"})[0];
        } else if (support::parse_common_flag(cli, f, s)) {
            s.sched_given = s.sched_given || f == "--sched";
        } else if (f == "--op") s.op = cli.choice({"potrf", "potri", "posv"});
        else if (f == "--nrhs") s.nrhs = cli.integer(1, 1 << 20);
        else if (f == "--factor-prec") s.factor = parse_precision(cli.value(), "--factor-prec");
        else if (f == "--cond") {
            const std::string v = cli.value();
            size_t used = 0;
            try {
                s.cond = std::stod(v, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != v.size() || !(s.cond >= 1) || !std::isfinite(s.cond))
                throw std::invalid_argument("--cond needs a condition number >= 1, e.g. 1e6 (got '" + v + "')");
        }
        else if (f == "--covariance") s.covariance = positive_number(cli.value(), "--covariance", "a length scale, e.g. 0.02");
        else if (f == "--tile-tolerance")
            s.tile_tolerance = positive_number(cli.value(), "--tile-tolerance", "a tolerance in (0, 1), e.g. 6e-8");
        else if (f == "--shift") {
            const std::string v = cli.value();
            size_t used = 0;
            try {
                s.shift = std::stod(v, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != v.size() || !(s.shift >= 0) || !std::isfinite(s.shift))
                throw std::invalid_argument("--shift needs a multiple of the unit roundoff >= 0, e.g. 64 (got '" + v + "')");
        }
        else if (f == "--array") { cli.no_value(); s.array = true; }
        else if (f == "--plan") { cli.no_value(); s.plan_only = true; }
        else if (f == "--always-low") { cli.no_value(); s.always_low = true; }
        else if (f == "--refine-budget") {
            const std::string v = cli.value();
            size_t used = 0;
            try {
                s.refine_budget = std::stod(v, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != v.size() || !(s.refine_budget >= 0) || !std::isfinite(s.refine_budget))
                throw std::invalid_argument("--refine-budget needs a multiple of the factorization's time >= 0, e.g. 2 "
                                            "(0: no limit; got '" + v + "')");
        }
        else if (f == "--grid") s.grid = support::parse_grid(cli.value());
        else if (f == "--placement") s.placement = parse_device_placement(cli.choice({"2d", "cyclic"}), "--placement");
        else if (f == "--device-grid") s.device_grid = support::parse_grid(cli.value(), "--device-grid");
        else if (f == "--variant") {
            s.variant = Variant::parse(cli.value(), "--variant");
            s.variant_given = true;
        }
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
    if (support::complex_prec(s.prec)) refuse_for_complex(s);
    // Busy shares of the last timed run: --compare's table, and the per-GPU busy % of runs that count transfers
    // anyway (host-resident tiles, several GPUs). A device-resident run on one GPU keeps StarPU's profiling off,
    // so that its timings are those of an application's call.
    s.profiling = s.compare || (support::default_mapping(s) != Mapping::CpuOnly && support::gpus_in_use(s) > 0 &&
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
    if (s.factor != Precision::Native && !(s.op == "posv" || (s.op == "potrf" && s.prec == 's')))
        throw std::invalid_argument("--factor-prec chooses the factorization of a double solve (--op posv) or the "
                                    "arithmetic of a float factorization (--op potrf --prec s)");
    if (s.factor == Precision::Fp64 && s.prec == 's')
        throw std::invalid_argument("--factor-prec fp64 with --prec s: a float matrix has no double factorization");
    if ((s.cond > 0 || s.covariance > 0) && s.factor == Precision::Native)
        throw std::invalid_argument(std::string(s.cond > 0 ? "--cond" : "--covariance") +
                                    " builds the test matrices of the mixed-precision solve: add --factor-prec");
    if (s.cond > 0 && s.covariance > 0)
        throw std::invalid_argument("--cond and --covariance pick two different matrices: give one");
    if (s.tile_tolerance >= 1)
        throw std::invalid_argument("--tile-tolerance needs a tolerance in (0, 1), e.g. 6e-8");
    if (s.tile_tolerance > 0 && (s.op != "posv" || !refines_double(s.factor)))
        throw std::invalid_argument("--tile-tolerance applies to the double solve of --op posv --factor-prec P: add them");
    if ((s.shift >= 0 || s.array || s.always_low || s.refine_budget >= 0) &&
        (s.op != "posv" || s.factor == Precision::Native))
        throw std::invalid_argument(std::string(s.array        ? "--array"
                                                : s.always_low ? "--always-low"
                                                : s.shift >= 0 ? "--shift"
                                                               : "--refine-budget") +
                                    " applies to the double solve of --op posv --factor-prec P: add them");
    if (s.array && s.device_resident)
        throw std::invalid_argument("--array solves from host arrays: drop --device-resident");
    if (s.op == "posv" && refines_double(s.factor) && s.prec != 'd' &&
        !(s.prec == 'z' && refines_complex_double(s.factor)))
        throw std::invalid_argument("--factor-prec " + std::string(to_string(s.factor)) +
                                    " with --op posv refines a double solve: use --prec d (or, for fp32 and tf32, "
                                    "--prec z: the complex one)");
    if (s.ns.empty()) s.ns = {1024, 2048, 4096, 6000, 8192, 12288, 16384, 24576, 32768};
    if (s.variants.empty()) s.variants = {Variant::parse("right"), Variant::parse("lookahead=2"), Variant::parse("left"),
                                          Variant::parse("noprio")};
    if (s.scheds.empty()) s.scheds = {"dmdas", "lws"};
    return s;
}

Settings local_defaults(Settings s) {
    if (s.op == "potrf" && !s.compare && !s.sweep && support::default_mapping(s) == Mapping::CpuOnly) {
        // (the complex Cholesky is right-looking only: it keeps the default variant)
        if (!s.variant_given && !support::complex_prec(s.prec)) s.variant = Variant::parse("lookahead=2");
        if (!s.sched_given) s.sched = "lws";
    }
    return s;
}

}  // namespace starfact::chol_driver

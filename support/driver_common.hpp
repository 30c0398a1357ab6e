// What the experiment drivers (starpu_chol, starpu_lu, starpu_qr) share: the flags that mean the same in all, the
// Runtime configuration they give, the timing loop (warm-up runs, then timed runs summarised by their
// median), the output table, and the vendor comparison line.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "support/cli.hpp"
#include "support/reference.hpp"
#include "support/reference_complex.hpp"
#include "starfact/mapping.hpp"
#include "starfact/options.hpp"
#include "starfact/runtime.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::support {

/// The flags both drivers take (see their --help): problem, mapping, runtime, runs and output.
/// Whether a run computes: false in a simulation build (STARFACT_SIMULATION, docs/simulation.md), where kernels run in
/// SimGrid's virtual time only, so that there is no residual to check and no vendor baseline to run.
#ifdef STARFACT_SIMULATION
inline constexpr bool kRunComputes = false;
#else
inline constexpr bool kRunComputes = true;
#endif

struct DriverFlags {
    int64_t n = -1, nb = -1;
    char prec = 'd';
    uint64_t seed = 1;
    int mapping = -1;  // -1: default from the hardware
    std::string sched = "dmdas";
    bool device_resident = false, check = kRunComputes, vendor = kRunComputes, csv = false;
    int ncpus = -1, ncuda = -1, streams = 4;
    int warmup = -1, repeat = 3;
    std::string perfmodel_dir;
    long long gpu_mem_limit_mb = -1;  ///< --gpu-mem-limit: StarPU's CUDA memory limit (out-of-core runs)
    // Set by driver-specific flags, read by runtime_config():
    std::string trace_dir;   ///< FxT tracing on when not empty
    bool calibrate = false;  ///< STARPU_CALIBRATE
    bool profiling = false;  ///< StarPU's per-worker profiling counters
};

/// If `flag` is one of DriverFlags' (--n, --nb, --prec, --seed, --gpu-only, --hybrid, --cpu-only, --sched,
/// --device-resident, --ncpus, --ncuda, --streams, --gpu-mem-limit, --perfmodel-dir, --warmup, --repeat, --check,
/// --no-check, --no-vendor, --csv), reads its value into `f` and returns true; throws std::invalid_argument for a bad value.
bool parse_common_flag(Cli& cli, const std::string& flag, DriverFlags& f);
/// A grid flag's value "PxQ" -> {P, Q} (positive integers up to 65536); throws std::invalid_argument naming `flag`
/// otherwise.
Grid parse_grid(const std::string& text, const char* flag = "--grid");

/// Whether a --prec letter names a complex precision: c (std::complex<float>) or z (std::complex<double>), which
/// starpu_chol and starpu_lu take besides s and d (their own --prec parsing; parse_common_flag takes s and d).
inline bool complex_prec(char prec) { return prec == 'c' || prec == 'z'; }
/// The plan's element precision of a --prec letter: Fp32, Fp64, C64 or C128.
inline Precision element_of(char prec) {
    return prec == 's' ? Precision::Fp32 : prec == 'c' ? Precision::C64 : prec == 'z' ? Precision::C128 : Precision::Fp64;
}

/// The --help lines of flags that read the same in both drivers (--n, --prec, --seed, --gpu-only, --hybrid,
/// --cpu-only, --sched, --streams, --gpu-mem-limit, --perfmodel-dir, --warmup, --repeat, --csv, --help), in the
/// order of `flags`, each as the drivers print it: two spaces, the flag, its text from column 21, wrapped lines
/// indented to it. Throws std::logic_error for a flag without a shared text.
std::string common_flags_help(std::initializer_list<const char*> flags);

/// The mapping of a run: the flag, else GPU-only when a GPU is visible, CPU-only otherwise.
Mapping default_mapping(const DriverFlags& f);

/// The Runtime of a run: GPU-only runs start no CPU worker unless --ncpus asks (idle workers polling the
/// scheduler cost up to 2.6x at n = 4096 on the H100 machine, docs/performance.md); CPU-only runs no CUDA
/// worker unless --ncuda asks; models under ~/.cache/starfact/perfmodels. Runs that move tiles between
/// memory nodes (counts_transfers) count the bytes moved (StarPU's bus profiling).
RuntimeConfig runtime_config(const DriverFlags& f, const std::string& sched, bool cpu_only_run,
                             bool gpu_only_run = false);

/// The main() of a one-process driver (starpu_lu, starpu_qr): `parse` reads argv into the driver's settings, whose
/// shared part is `flags` (a bad flag: "name: message" on stderr, status 1); then the Runtime of the run's mapping
/// starts, `run` times and checks, and with --trace the trace is written once StarPU has shut down. An exception
/// ends it with "name: message" and status 1. Returns the exit status.
int driver_main(const char* name, int argc, char** argv, const DriverFlags& flags,
                const std::function<void(int, char**)>& parse, const std::function<int(Runtime&, Mapping)>& run);

/// Model-based schedulers rely on calibrated performance models.
bool model_based(const std::string& sched);
/// Whether this machine already has history for every kernel of `kernels` in precision `prec` (the
/// models' symbols are starfact_<prec><kernel>).
bool models_present(const Runtime& rt, char prec, const std::vector<const char*>& kernels);

double median(std::vector<double> v);
std::string fmt(const char* f, double v);
/// "%.3g", or "-" when not computed (< 0).
std::string residual_text(double r);

/// Prints rows as an aligned table or as CSV; notes become '#' lines in CSV.
class Table {
public:
    Table(bool csv, std::vector<std::string> columns) : csv_(csv), cols_(std::move(columns)) {}
    void header() const { row(cols_); }
    void row(const std::vector<std::string>& cells) const;
    void note(const std::string& text) const;

private:
    bool csv_;
    std::vector<std::string> cols_;
};

/// Seconds on the host's steady clock, or in a simulation build on SimGrid's virtual clock (starpu_timing_now()).
double clock_seconds();

/// One run of a loop of timed_runs().
struct Run {
    int index;        ///< 0 .. warmup + repeat - 1
    bool timed;       ///< after the warm-up runs
    bool last;        ///< the last run
    int timed_index;  ///< 1-based among the timed runs (0 for warm-ups)
};

/// `warmup` untimed runs (a line each on stderr, tagged `tag`; none when `tag` is null), then `repeat` timed runs: before(run)
/// (untimed: refill the matrix), then body(run) timed on clock_seconds(), then for a timed run
/// after(run, seconds), which returns false to stop early (a failed factorization). Returns the timed seconds.
template <typename Before, typename Body, typename After>
std::vector<double> timed_runs(const char* tag, int warmup, int repeat, Before before, Body body, After after) {
    std::vector<double> seconds;
    for (int r = 0; r < warmup + repeat; ++r) {
        const Run run{r, r >= warmup, r == warmup + repeat - 1, r >= warmup ? r - warmup + 1 : 0};
        before(run);
        const double t0 = clock_seconds();
        body(run);
        const double sec = clock_seconds() - t0;
        if (!run.timed) {
            if (tag) std::fprintf(stderr, "[%s] warm-up %d/%d: %.3f s\n", tag, r + 1, warmup, sec);
            continue;
        }
        seconds.push_back(sec);
        if (!after(run, sec)) break;
    }
    return seconds;
}

/// The run's matrix copied to the GPU when one is in use (DeviceReferenceOf<T>: DeviceReference for float and
/// double, ComplexDeviceReference for the complex types; the cuSOLVER baselines, the residuals computed on the
/// device and the source of device-resident tiles); nothing without. Each driver derives its Reference from it.
template <typename T>
struct DeviceCopy {
#ifdef STARFACT_HAVE_CUDA
    std::unique_ptr<DeviceReferenceOf<T>> dev;
#endif
    DeviceCopy(bool gpu, int64_t n, const T* A) {
#ifdef STARFACT_HAVE_CUDA
        if (gpu) dev = std::make_unique<DeviceReferenceOf<T>>(n, A);
#else
        (void)gpu, (void)n, (void)A;
#endif
    }
    /// random_symmetric(seed, shift) generated on the GPU, for the vendor baseline of a run whose tiles are
    /// generated too (no host array, no residuals; float and double).
    DeviceCopy(bool gpu, int64_t n, uint64_t seed, double shift) {
#ifdef STARFACT_HAVE_CUDA
        if (gpu) dev = std::make_unique<DeviceReferenceOf<T>>(n, seed, shift);
#else
        (void)gpu, (void)n, (void)seed, (void)shift;
#endif
    }
    /// The CUDA device of the vendor baselines, or -1 without one.
    int device() const {
#ifdef STARFACT_HAVE_CUDA
        if (dev) return dev->device();
#endif
        return -1;
    }
    /// The device copy of the matrix, or nullptr.
    const T* device_copy() const {
#ifdef STARFACT_HAVE_CUDA
        if (dev) return dev->original();
#endif
        return nullptr;
    }
};

/// An n x n host array; throws RuntimeError naming `tool`, n and the bytes asked for when the host cannot
/// hold it (instead of std::bad_alloc).
template <typename T>
std::vector<T> host_matrix(int64_t n, const char* tool);

/// The CUDA devices a run with these flags uses: the visible ones, at most --ncuda, STARPU_NCUDA winning.
int gpus_in_use(const DriverFlags& f);
/// Whether runs with these flags count the bytes StarPU moves (RuntimeConfig::profiling on): runs on a GPU with
/// host-resident tiles, and device-resident runs on more than one GPU (the tiles then move between GPUs).
bool counts_transfers(const DriverFlags& f, bool cpu_only_run);
/// "; moved host->GPU X GB, GPU->host Y GB in N transfers (R GB/s over S s)" for a summary line.
std::string transfer_summary(const Runtime::Transfers& t, double seconds);

/// The vendor's part of a summary line: "; <name> median S s, G GFLOP/s; ratio <name>/starfact = R"
/// (R > 1: starfact is faster); `flops` of one run, `ours` starfact's median seconds.
std::string vendor_summary(const VendorRun& v, double flops, double ours);

}  // namespace starfact::support

// The StarPU instance, RAII. One Runtime may be alive per process at a time; it owns everything
// starfact keeps between calls: codelets, performance models, per-worker cuBLAS/cuSOLVER handles.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "starfact/mapping.hpp"

namespace starfact {

namespace detail {
struct RuntimeState;
struct RuntimeAccess;
}  // namespace detail

/// How to start StarPU. Every field left at its default lets StarPU decide, and StarPU's
/// environment variables (STARPU_NCPU, STARPU_NCUDA, STARPU_SCHED, STARPU_NWORKER_PER_CUDA,
/// STARPU_PERF_MODEL_DIR, STARPU_FXT_TRACE, ...) win over the values set here: that is StarPU's
/// own rule, kept so that StarPU users' habits work. Runtime::describe() prints what is in effect.
struct RuntimeConfig {
    /// CPU workers; -1: StarPU's default (cores not driving a GPU), less one core left to the application's thread
    /// when GPUs work (StarPU's reserve_ncpus; not with STARPU_NCPU or STARPU_RESERVE_NCPU set)
    int ncpus = -1;
    int ncuda = -1;                 ///< CUDA devices; -1: all; 0: none
    int workers_per_gpu = 0;        ///< CUDA workers (streams) per device; 0: StarPU's default (1)
    std::string scheduler;          ///< StarPU policy; empty: "dmdas"
    bool trace = false;             ///< FxT recording (FxT builds of StarPU record by default: we turn it off)
    /// Performance-model directory, used when neither STARPU_PERF_MODEL_DIR nor STARPU_HOME is set;
    /// empty: StarPU's default ($HOME/.starpu/sampling).
    std::string perfmodel_dir;
    bool calibrate = false;         ///< keep calibrating performance models (STARPU_CALIBRATE=1)
    bool profiling = false;         ///< per-worker busy/idle counters and bytes moved (Runtime::transfers)
    /// MiB of each GPU's memory StarPU may use for tiles (STARPU_LIMIT_CUDA_MEM); -1: all of it. Host-resident
    /// tiles beyond the limit are evicted to host memory and fetched again when a task needs them
    /// (out-of-core: docs/out_of_core.md). Workspaces of the CUDA codelets come on top.
    long long cuda_memory_limit_mb = -1;
    /// Run the GPU factorization kernels once on every CUDA worker at start (small matrices, tens of ms in
    /// all): CUDA loads kernel code lazily, on first launch, which otherwise lands in the first timed call.
    bool warm_up = true;
    /// Start StarPU-MPI (docs/mpi.md): every rank of MPI_COMM_WORLD constructs its Runtime, and TileMatrix
    /// grids larger than 1 x 1 spread their tiles over the ranks. MPI is initialized here (thread level
    /// MPI_THREAD_MULTIPLE) unless the application did it before, in which case it must have asked for
    /// MPI_THREAD_MULTIPLE; MPI is finalized by the destructor only if this Runtime initialized it (an
    /// application that creates several MPI Runtimes one after the other initializes MPI itself).
    /// Throws RuntimeError in a build without MPI (built_with_mpi()).
    bool mpi = false;
};

class Runtime {
public:
    explicit Runtime(const RuntimeConfig& config = {});
    ~Runtime();
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;
    Runtime(Runtime&&) = delete;
    Runtime& operator=(Runtime&&) = delete;

    int cpu_workers() const;
    int cuda_workers() const;
    /// Distinct CUDA devices in use.
    int cuda_devices() const;
    /// StarPU memory nodes of the CUDA devices, in device order.
    const std::vector<unsigned>& cuda_memory_nodes() const { return cuda_nodes_; }
    /// Scheduling policy in effect (after environment overrides).
    std::string scheduler() const;
    /// One line: workers, scheduler, tracing, perf-model dir.
    std::string describe() const;
    /// Whether `m` can run here (GPU-only needs a CUDA worker, CPU-only a CPU worker).
    bool supports(Mapping m) const;
    /// Throws InvalidArgument naming `argument` if `m` cannot run here.
    void require_mapping(Mapping m, const char* function) const;

    /// Whether StarPU-MPI runs (RuntimeConfig::mpi).
    bool mpi() const { return mpi_size_ > 0; }
    /// This process's rank in MPI_COMM_WORLD (0 without MPI).
    int mpi_rank() const { return mpi_rank_; }
    /// Number of ranks in MPI_COMM_WORLD (1 without MPI).
    int mpi_size() const { return mpi_size_ > 0 ? mpi_size_ : 1; }
    /// An MPI barrier over every rank (no-op without MPI): collective, every rank must call it.
    void barrier() const;

    /// Blocks until every task submitted by this process has completed (with MPI: this rank's tasks only;
    /// a distributed operation's Sequence::wait() is the collective form).
    void wait_all() const;
    /// Tasks submitted and not yet completed (StarPU's count: a task leaves it a moment after a Sequence
    /// has seen it complete).
    int pending_tasks() const;

    /// Puts the workers to sleep (StarPU's workers poll while idle, which starves host code
    /// such as a multithreaded BLAS baseline or a residual check). No task runs until resume().
    void pause() const;
    void resume() const;
    /// pause() for the lifetime of the guard.
    class Paused {
    public:
        explicit Paused(const Runtime& rt) : rt_(rt) { rt_.pause(); }
        ~Paused() { rt_.resume(); }
        Paused(const Paused&) = delete;
        Paused& operator=(const Paused&) = delete;

    private:
        const Runtime& rt_;
    };

    /// Bytes StarPU moved between memory nodes (host <-> GPU, GPU <-> GPU) since the previous call (or the
    /// start): StarPU's bus counters, which this call resets. All zero unless RuntimeConfig::profiling.
    struct Transfers {
        long long host_to_gpu = 0, gpu_to_host = 0, gpu_to_gpu = 0;
        long long count = 0;  ///< transfers
        long long total() const { return host_to_gpu + gpu_to_host + gpu_to_gpu; }
    };
    Transfers transfers() const;
    /// MiB of GPU memory StarPU may use per device (the limit in effect, STARPU_LIMIT_CUDA_MEM winning over
    /// RuntimeConfig::cuda_memory_limit_mb); -1: no limit.
    long long cuda_memory_limit_mb() const;

    /// FxT recording of the timed region (no-op without FxT or with trace=false).
    void trace_start() const;
    void trace_stop() const;
    bool tracing() const { return config_.trace; }
    /// Directory holding the performance models in effect.
    std::string perfmodel_dir() const;

private:
    friend struct detail::RuntimeAccess;  // codelets, CUDA contexts (runtime/runtime_state.hpp, not installed)
    void start_workers(const RuntimeConfig& config);  // the constructor once StarPU runs
    RuntimeConfig config_;
    std::vector<unsigned> cuda_nodes_;
    int mpi_rank_ = 0, mpi_size_ = 0;  // mpi_size_ 0: no StarPU-MPI
    std::unique_ptr<detail::RuntimeState> state_;
};

/// True when starfact was built with CUDA codelets (or, in a simulation build, with simulated ones: docs/simulation.md).
bool built_with_cuda();
/// True when starfact was built with StarPU-MPI (RuntimeConfig::mpi, distributed TileMatrix grids).
bool built_with_mpi();
/// CUDA devices visible to this process (0 without CUDA support or without a device); needs no Runtime.
int cuda_device_count();
/// Bytes of host memory this process may still allocate; needs no Runtime. The smallest of the kernel's
/// MemAvailable (/proc/meminfo) and the room left under the memory limit of each cgroup of the process (cgroup v2
/// memory.max, v1 memory.limit_in_bytes, less what the cgroup uses), whatever the overcommit setting: Linux may
/// accept an allocation it cannot back, and the OOM killer ends the process once the pages are touched.
/// TileMatrix refuses host tiles beyond it; a program can check its own arrays against it. UINT64_MAX when
/// nothing can be read (not Linux).
uint64_t available_host_memory();
/// Free bytes on CUDA device `device` (cudaMemGetInfo; the calling thread's current device is kept); 0 without
/// CUDA support or without that device. StarPU's own limit (RuntimeConfig::cuda_memory_limit_mb) is not applied.
uint64_t available_device_memory(int device);

}  // namespace starfact

// Runtime: the StarPU instance, per-worker CUDA contexts, the extension slots of the layers above.
#include "starfact/runtime.hpp"

#include <cblas.h>
#include <starpu.h>
#include <starpu_profiling.h>
#ifdef STARPU_USE_FXT
#include <starpu_fxt.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include "runtime/cuda_contexts.hpp"
#include "runtime/extensions.hpp"
#include "runtime/mpi.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/worker_clocks.hpp"
#include "starfact/error.hpp"
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#include <starpu_cublas_v2.h>
#endif

namespace starfact {
namespace {

/// Sets an environment variable for StarPU unless the user already did (the environment wins).
void default_env(const char* name, const std::string& value) {
    if (!std::getenv(name)) setenv(name, value.c_str(), 1);
}

bool known_scheduler(const std::string& name, std::string* known) {
    bool found = false;
    for (starpu_sched_policy** p = starpu_sched_get_predefined_policies(); *p; ++p) {
        *known += std::string(known->empty() ? "" : ", ") + (*p)->policy_name;
        if (name == (*p)->policy_name) found = true;
    }
    return found;
}

/// What a Runtime asked StarPU for and what this process has, for the messages of a start without workers:
/// StarPU's environment variables win over the configuration, so the one in effect is named.
std::string workers_asked_and_found(const RuntimeConfig& config) {
    std::string text = "CPU workers requested: ";
    if (const char* env = std::getenv("STARPU_NCPU")) text += std::string("STARPU_NCPU=") + env;
    else if (config.ncpus == -1) text += "StarPU's default (ncpus -1)";
    else text += std::to_string(config.ncpus) + " (ncpus)";
    text += "; CUDA devices requested: ";
    if (const char* env = std::getenv("STARPU_NCUDA")) text += std::string("STARPU_NCUDA=") + env;
    else text += config.ncuda == -1 ? std::string("all (ncuda -1)") : std::to_string(config.ncuda) + " (ncuda)";
    if (built_with_cuda())
        text += "; CUDA devices visible to this process: " + std::to_string(cuda_device_count());
    else
        text += "; this build of starfact has no CUDA support (configured with STARFACT_WITH_CUDA=OFF or without nvcc)";
    return text;
}

bool same_handler(const struct sigaction& a, const struct sigaction& b) {
    if ((a.sa_flags & SA_SIGINFO) != (b.sa_flags & SA_SIGINFO)) return false;
    return (a.sa_flags & SA_SIGINFO) ? a.sa_sigaction == b.sa_sigaction : a.sa_handler == b.sa_handler;
}

/// Everything ~Runtime does once StarPU runs; also the constructor's way out when it fails after starting StarPU.
void stop_runtime(detail::RuntimeState& st) noexcept {
    starpu_task_wait_for_all();  // this rank's tasks; mpi_stop() waits for the communications of all
    // The matrices and sequences still alive give their StarPU data back while StarPU runs; their later use throws.
    st.registry->orphan_all();
#ifdef STARFACT_HAVE_CUDA
    if (st.cuda_started) {
        st.cuda->destroy();
        starpu_cublas_shutdown();
    }
#endif
    if (st.blas_threads_before > 0) openblas_set_num_threads(st.blas_threads_before);
    // Saves the performance models; the codelets die after this (state_).
    if (st.mpi)
        detail::mpi_stop(st.mpi);
    else
        starpu_shutdown();
    st.signals.restore();
}

}  // namespace

bool built_with_cuda() {
#if defined(STARFACT_HAVE_CUDA) || defined(STARFACT_SIMULATION)
    return true;
#else
    return false;
#endif
}

int cuda_device_count() {
#ifdef STARFACT_HAVE_CUDA
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // no driver or no device: not an error for the caller
        return 0;
    }
    return count;
#elif defined(STARFACT_SIMULATION)
    // The simulated machine's GPUs are known once StarPU has read its platform: until then, STARPU_NCUDA (which
    // tools/simulate.sh sets), else as many as StarPU may drive.
    const char* env = std::getenv("STARPU_NCUDA");
    return env && std::atoi(env) >= 0 ? std::atoi(env) : STARPU_MAXCUDADEVS;
#else
    return 0;
#endif
}

namespace {
/// True when this process sees several CUDA devices of one kind (same name, memory and multiprocessor count): their
/// kernels take the same time, so one performance model serves them all.
bool cuda_devices_alike() {
#ifdef STARFACT_HAVE_CUDA
    const int count = cuda_device_count();
    if (count < 2) return false;
    cudaDeviceProp first{};
    if (cudaGetDeviceProperties(&first, 0) != cudaSuccess) return cudaGetLastError(), false;
    for (int d = 1; d < count; ++d) {
        cudaDeviceProp p{};
        if (cudaGetDeviceProperties(&p, d) != cudaSuccess) return cudaGetLastError(), false;
        if (std::string(p.name) != first.name || p.totalGlobalMem != first.totalGlobalMem ||
            p.multiProcessorCount != first.multiProcessorCount)
            return false;
    }
    return true;
#else
    return false;
#endif
}
}  // namespace

namespace detail {
RuntimeState::RuntimeState() = default;
RuntimeState::~RuntimeState() = default;

void Registry::add(Dependent* d) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!alive_.load(std::memory_order_relaxed))
        throw RuntimeError("starfact: the Runtime is being destroyed (a TileMatrix or Sequence cannot join it)");
    members_.push_back(d);
}

bool Registry::leave(Dependent* d) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Searched from the back: the most recent objects are usually destroyed first.
    const auto it = std::find(members_.rbegin(), members_.rend(), d);
    if (it == members_.rend()) return false;  // orphaned by the Runtime's destructor
    members_.erase(std::next(it).base());
    ++leaving_;
    return true;
}

void Registry::left() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--leaving_ == 0) all_left_.notify_all();
}

void Registry::orphan_all() noexcept {
    std::unique_lock<std::mutex> lock(mutex_);
    alive_.store(false, std::memory_order_release);
    for (Dependent* d : members_) d->orphan();
    members_.clear();
    // A destructor that left before must finish with StarPU before it shuts down.
    all_left_.wait(lock, [&] { return leaving_ == 0; });
}

const int SavedSignals::numbers[SavedSignals::count] = {SIGINT, SIGSEGV, SIGTRAP};

void SavedSignals::save() noexcept {
    for (int k = 0; k < count; ++k) sigaction(numbers[k], nullptr, &before[k]);
    saved = true;
    started = false;
}

void SavedSignals::note_installed() noexcept {
    for (int k = 0; k < count; ++k) sigaction(numbers[k], nullptr, &installed[k]);
    started = true;
}

void SavedSignals::restore() noexcept {
    if (!saved) return;
    for (int k = 0; k < count; ++k) {
        struct sigaction now {};
        sigaction(numbers[k], nullptr, &now);
        if (!started || same_handler(now, installed[k])) sigaction(numbers[k], &before[k], nullptr);
    }
    saved = started = false;
}

CudaContexts* cuda_contexts(const Runtime& rt) { return RuntimeAccess::state(rt).cuda.get(); }
}  // namespace detail

Runtime::Runtime(const RuntimeConfig& config) : config_(config), state_(std::make_unique<detail::RuntimeState>()) {
    require(config.ncpus >= -1, "Runtime", "ncpus", "must be >= -1 (got " + std::to_string(config.ncpus) + ")");
    require(config.ncuda >= -1, "Runtime", "ncuda", "must be >= -1 (got " + std::to_string(config.ncuda) + ")");
    require(config.workers_per_gpu >= 0, "Runtime", "workers_per_gpu",
            "must be >= 0 (got " + std::to_string(config.workers_per_gpu) + ")");
    std::string sched = config.scheduler.empty() ? "dmdas" : config.scheduler;
    // The list is filled by known_scheduler(): call it before building the message (an argument list has no
    // evaluation order).
    std::string known;
    const bool sched_known = known_scheduler(sched, &known);
    require(sched_known, "Runtime", "scheduler",
            "names no StarPU scheduling policy (got '" + sched + "'; known: " + known + ")");
    if (const char* env = std::getenv("STARPU_SCHED")) {
        std::string k2;
        const bool env_known = known_scheduler(env, &k2);
        require(env_known, "Runtime", "STARPU_SCHED",
                "names no StarPU scheduling policy (got '" + std::string(env) + "'; known: " + k2 + ")");
    }

    if (starpu_is_initialized())
        throw RuntimeError("starfact::Runtime: StarPU is already initialized (one Runtime per process at a time)");

    // FxT builds of StarPU 1.3 record by default: off unless asked; when asked, only between
    // trace_start() and trace_stop().
    default_env("STARPU_FXT_TRACE", config.trace ? "1" : "0");
#ifdef STARPU_USE_FXT
    if (config.trace) starpu_fxt_autostart_profiling(0);
#endif
    require(config.cuda_memory_limit_mb == -1 || config.cuda_memory_limit_mb > 0, "Runtime", "cuda_memory_limit_mb",
            "must be > 0 or -1 (no limit) (got " + std::to_string(config.cuda_memory_limit_mb) + ")");
    if (config.cuda_memory_limit_mb > 0) default_env("STARPU_LIMIT_CUDA_MEM", std::to_string(config.cuda_memory_limit_mb));
    if (config.workers_per_gpu > 0) default_env("STARPU_NWORKER_PER_CUDA", std::to_string(config.workers_per_gpu));
    if (!config.perfmodel_dir.empty() && !std::getenv("STARPU_HOME")) default_env("STARPU_PERF_MODEL_DIR", config.perfmodel_dir);
    // Identical GPUs share one performance model (device 0's): a model calibrated on one GPU serves the others at
    // once, where per-device models would make every further GPU calibrate its own first, scheduling badly
    // meanwhile (StarPU forces uncalibrated tasks onto the GPUs that lack measurements).
    if (config.ncuda != 0 && cuda_devices_alike()) default_env("STARPU_PERF_MODEL_HOMOGENEOUS_CUDA", "1");

    starpu_conf conf;
    starpu_conf_init(&conf);
    conf.ncpus = config.ncpus;
#ifdef STARFACT_HAVE_CUDA
    // StarPU's default gives a CPU worker to every core that drives no GPU, and its workers poll for tasks: the
    // application's thread then shares a core with one of them, and so do the CUDA workers' launches (measured on
    // an H200 node of 16 cores: starfact.posv from Python at n = 16384 and 24000 took 1.14-1.18x the C++ driver's
    // time with 15 CPU workers, 1.04x with 14). One core is left to the application when GPUs work.
    if (config.ncpus == -1 && !config.mpi && config.ncuda != 0 && !std::getenv("STARPU_NCPU") &&
        !std::getenv("STARPU_RESERVE_NCPU") && cuda_device_count() > 0)
        conf.reserve_ncpus = 1;
#endif
#if defined(STARFACT_HAVE_CUDA) || defined(STARFACT_SIMULATION)
    conf.ncuda = config.ncuda;
#else
    conf.ncuda = 0;  // no CUDA codelets in this build
#endif
    conf.nopencl = 0;
    conf.sched_policy_name = sched.c_str();
    if (config.calibrate) conf.calibrate = 1;
    // StarPU installs its signal handlers in starpu_init and never puts the previous ones back: stop_runtime() does.
    state_->signals.save();
    int ret = 0;
    try {
        ret = config.mpi ? detail::mpi_start(&conf, &state_->mpi) : starpu_init(&conf);
    } catch (...) {
        state_->signals.restore();
        throw;
    }
    if (ret != 0) {
        state_->signals.restore();
        if (ret == -ENODEV)
            throw RuntimeError("starfact::Runtime: StarPU found no worker to start (" + workers_asked_and_found(config) +
                               "). A GPU-only configuration needs a visible GPU and a CUDA build of starfact; "
                               "without one, ask for CPU workers (ncpus -1 for StarPU's default, or > 0)");
        throw RuntimeError("starfact::Runtime: starpu_init failed (" + std::to_string(ret) + ")");
    }
    state_->signals.note_installed();
    try {
        start_workers(config);
    } catch (...) {
        stop_runtime(*state_);
        throw;
    }
}

void Runtime::start_workers(const RuntimeConfig& config) {
#ifdef STARPU_USE_FXT
    // With Debian's FxT, StarPU 1.3's autostart=0 still leaves recording active (the probes test
    // fut_active, which the initial key mask keeps non-zero): stop explicitly until trace_start().
    if (config.trace) starpu_fxt_stop_profiling();
#endif
    if (state_->mpi) {
        mpi_rank_ = state_->mpi->rank;
        mpi_size_ = state_->mpi->size;
    }
    if (config.profiling) starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
    detail::reset_worker_clocks();  // before any task of ours: StarPU keeps the last instance's times
    state_->blas_threads_before = openblas_get_num_threads();
    openblas_set_num_threads(1);  // CPU codelets are single-threaded inside their worker

    state_->cuda = std::make_unique<detail::CudaContexts>();
#ifdef STARFACT_HAVE_CUDA
    if (cuda_workers() > 0) {
        starpu_cublas_init();
        state_->cuda->create();
        state_->cuda_started = true;
    }
#endif
#if defined(STARFACT_HAVE_CUDA) || defined(STARFACT_SIMULATION)  // simulated GPUs: no CUDA call, their memory nodes
    if (cuda_workers() > 0) {
        std::set<std::pair<int, unsigned>> devs;
        const int nworkers = static_cast<int>(starpu_worker_get_count());
        for (int w = 0; w < nworkers; ++w)
            if (starpu_worker_get_type(w) == STARPU_CUDA_WORKER)
                devs.insert({starpu_worker_get_devid(w), starpu_worker_get_memory_node(w)});
        for (const auto& d : devs) cuda_nodes_.push_back(d.second);
    }
#endif
    if (config.ncuda > 0 && cuda_workers() == 0)  // the caller stops StarPU
        throw RuntimeError("starfact::Runtime: " + std::to_string(config.ncuda) + " CUDA device(s) requested, none " +
                           "usable (" + workers_asked_and_found(config) + ")");
    // The codelets create their tables on first use (extension slots); their GPU warm-up registered itself.
    if (config.warm_up) detail::run_warm_up_hooks(*this);
}

Runtime::~Runtime() { stop_runtime(*state_); }

int Runtime::cpu_workers() const { return starpu_cpu_worker_get_count(); }
int Runtime::cuda_workers() const { return starpu_cuda_worker_get_count(); }
int Runtime::cuda_devices() const { return static_cast<int>(cuda_nodes_.size()); }

std::string Runtime::scheduler() const {
    starpu_sched_policy* p = starpu_sched_ctx_get_sched_policy(0);
    return p && p->policy_name ? p->policy_name : "?";
}

std::string Runtime::describe() const {
    std::ostringstream os;
    os << "StarPU " << STARPU_MAJOR_VERSION << "." << STARPU_MINOR_VERSION << ": " << cpu_workers()
       << " CPU worker(s), " << cuda_workers() << " CUDA worker(s) on " << cuda_devices()
       << " device(s), scheduler " << scheduler() << ", tracing " << (config_.trace ? "on" : "off");
    if (cuda_workers() > 0 && cuda_memory_limit_mb() > 0) os << ", GPU memory limit " << cuda_memory_limit_mb() << " MiB";
    if (mpi()) {
        os << ", MPI rank " << mpi_rank() << " of " << mpi_size();
        const detail::MpiState& m = *state_->mpi;
        if (m.local_size > 1) {
            os << " (node-local rank " << m.local_rank << " of " << m.local_size;
            for (size_t i = 0; i < m.gpus.size(); ++i) os << (i ? "," : ", CUDA device ") << m.gpus[i];
            if (!m.cores.empty()) os << ", " << m.cores;
            os << ")";
        }
    }
    os << ", perf models in " << perfmodel_dir();
    return os.str();
}

bool Runtime::supports(Mapping m) const {
    switch (m) {
        case Mapping::GpuOnly: return cuda_workers() > 0;
        case Mapping::CpuOnly: return cpu_workers() > 0;
        case Mapping::Hybrid: return cpu_workers() + cuda_workers() > 0;
    }
    return false;
}

void Runtime::require_mapping(Mapping m, const char* function) const {
    require(supports(m), function, "mapping",
            std::string("is ") + to_string(m) + " but the runtime has " + std::to_string(cpu_workers()) +
                " CPU and " + std::to_string(cuda_workers()) + " CUDA worker(s)");
}

void Runtime::wait_all() const { starpu_task_wait_for_all(); }
void Runtime::barrier() const { detail::mpi_barrier(*this); }
int Runtime::pending_tasks() const { return starpu_task_nsubmitted(); }
void Runtime::pause() const {
    starpu_task_wait_for_all();
    std::lock_guard<std::mutex> lock(state_->pause_mutex);
    starpu_pause();
}
void Runtime::resume() const {
    std::lock_guard<std::mutex> lock(state_->pause_mutex);
    starpu_resume();
}

std::string Runtime::perfmodel_dir() const {
    if (const char* dir = std::getenv("STARPU_PERF_MODEL_DIR")) return dir;
    if (const char* home = std::getenv("STARPU_HOME")) return std::string(home) + "/.starpu/sampling";
    const char* home = std::getenv("HOME");
    return std::string(home ? home : ".") + "/.starpu/sampling";
}

Runtime::Transfers Runtime::transfers() const {
    Transfers t;
    const int buses = starpu_bus_get_count();
    for (int b = 0; b < buses; ++b) {
        starpu_profiling_bus_info info{};
        if (starpu_bus_get_profiling_info(b, &info) != 0) continue;  // also resets the bus's counters
        const bool from_ram = starpu_node_get_kind(static_cast<unsigned>(starpu_bus_get_src(b))) == STARPU_CPU_RAM;
        const bool to_ram = starpu_node_get_kind(static_cast<unsigned>(starpu_bus_get_dst(b))) == STARPU_CPU_RAM;
        if (from_ram && !to_ram) t.host_to_gpu += info.transferred_bytes;
        else if (!from_ram && to_ram) t.gpu_to_host += info.transferred_bytes;
        else if (!from_ram && !to_ram) t.gpu_to_gpu += info.transferred_bytes;
        t.count += info.transfer_count;
    }
    return t;
}

long long Runtime::cuda_memory_limit_mb() const {
    if (const char* env = std::getenv("STARPU_LIMIT_CUDA_MEM")) return std::atoll(env);
    return config_.cuda_memory_limit_mb;
}

void Runtime::trace_start() const {
#ifdef STARPU_USE_FXT
    if (config_.trace) starpu_fxt_start_profiling();
#endif
}
void Runtime::trace_stop() const {
#ifdef STARPU_USE_FXT
    if (config_.trace) starpu_fxt_stop_profiling();
#endif
}

const char* to_string(Mapping m) {
    switch (m) {
        case Mapping::GpuOnly: return "gpu-only";
        case Mapping::Hybrid: return "hybrid";
        case Mapping::CpuOnly: return "cpu-only";
    }
    return "?";
}

Mapping parse_mapping(const std::string& text, const char* argument) {
    if (text == "gpu-only") return Mapping::GpuOnly;
    if (text == "hybrid") return Mapping::Hybrid;
    if (text == "cpu-only") return Mapping::CpuOnly;
    throw InvalidArgument("parse_mapping", argument,
                          "must be gpu-only, hybrid or cpu-only (got '" + text + "')");
}

const char* to_string(Residency r) { return r == Residency::Host ? "host" : "device"; }

}  // namespace starfact

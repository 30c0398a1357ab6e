// The C ABI's runtime, build and version functions.
#include "capi/runtime.hpp"

#include <cstdlib>
#include <string>

#include "capi/errors.hpp"
#include "capi/job.hpp"
#include "starfact/starfact.hpp"

namespace starfact::capi {

Runtime& runtime_of(starfact_c_runtime* handle, const char* function) {
    require(handle != nullptr && handle->runtime != nullptr, function, "runtime", "is null (not started)");
    return *handle->runtime;
}

namespace {

/// The drivers' performance-model directory ($XDG_CACHE_HOME or ~/.cache, then starfact/perfmodels), so that the
/// models calibrated by starpu_chol serve the C ABI's callers too (and the other way round).
const char* drivers_perfmodel_dir() {
    static const std::string dir = [] {
        const char* cache = std::getenv("XDG_CACHE_HOME");
        const char* home = std::getenv("HOME");
        return std::string(cache ? cache : std::string(home ? home : ".") + "/.cache") + "/starfact/perfmodels";
    }();
    return dir.c_str();
}

}  // namespace
}  // namespace starfact::capi

using starfact::capi::drivers_perfmodel_dir;
using starfact::capi::guarded;
using starfact::capi::runtime_of;
using starfact::capi::thread_string;

extern "C" {

int starfact_c_abi_version(void) { return STARFACT_C_ABI_VERSION; }
const char* starfact_c_version(void) { return STARFACT_VERSION_STRING; }
int starfact_c_built_with_cuda(void) { return starfact::built_with_cuda() ? 1 : 0; }

int starfact_c_cuda_device_count(void) {
    try {
        return starfact::cuda_device_count();
    } catch (...) {
        return 0;
    }
}

int starfact_c_has_batched(int family) {
#ifdef STARFACT_HAVE_BATCHED_CHOL
    if (family == 0) return 1;
#endif
#ifdef STARFACT_HAVE_BATCHED_LU
    if (family == 1) return 1;
#endif
    (void)family;
    return 0;
}

void starfact_c_runtime_config_init(starfact_c_runtime_config* config) {
    if (!config) return;
    const starfact::RuntimeConfig d;
    *config = starfact_c_runtime_config{};
    config->ncpus = d.ncpus;
    config->ncuda = d.ncuda;
    // The drivers' streams: what the plan tunes the tiles for (the same at every order and residency).
    starfact::Request request;
    request.m = request.n = int64_t(1) << 15;
    request.options.mapping = starfact::Mapping::GpuOnly;
    request.tiling.residency = starfact::Residency::Device;
    config->workers_per_gpu = starfact::plan(request, starfact::Machine{1, 1, 1}).streams_per_gpu;
    config->calibrate = d.calibrate ? 1 : 0;
    config->profiling = d.profiling ? 1 : 0;
    config->warm_up = d.warm_up ? 1 : 0;
    config->cuda_memory_limit_mb = d.cuda_memory_limit_mb;
    config->perfmodel_dir = drivers_perfmodel_dir();
}

int starfact_c_runtime_create(const starfact_c_runtime_config* config, starfact_c_runtime** runtime) {
    return guarded([&] {
        starfact::require(runtime != nullptr, "runtime_create", "runtime", "is null (no place for the handle)");
        *runtime = nullptr;
        starfact::RuntimeConfig c;
        if (config) {
            starfact::require(config->ncpus >= -1, "runtime_create", "ncpus", "must be >= 0, or -1 for StarPU's default");
            starfact::require(config->ncuda >= -1, "runtime_create", "ncuda", "must be >= 0, or -1 for all devices");
            starfact::require(config->workers_per_gpu >= 0, "runtime_create", "workers_per_gpu",
                              "must be >= 0, 0 for StarPU's default");
            starfact::require(config->cuda_memory_limit_mb >= -1, "runtime_create", "cuda_memory_limit_mb",
                              "must be >= 0, or -1 for no limit");
            c.ncpus = config->ncpus;
            c.ncuda = config->ncuda;
            c.workers_per_gpu = config->workers_per_gpu;
            c.calibrate = config->calibrate != 0;
            c.profiling = config->profiling != 0;
            c.warm_up = config->warm_up != 0;
            c.cuda_memory_limit_mb = config->cuda_memory_limit_mb;
            if (config->scheduler) c.scheduler = config->scheduler;
            if (config->perfmodel_dir) c.perfmodel_dir = config->perfmodel_dir;
        }
        auto handle = std::make_unique<starfact_c_runtime>();
        const starfact::capi::KeepDevice keep;  // StarPU's start makes its devices current on this thread
        handle->runtime = std::make_unique<starfact::Runtime>(c);
        *runtime = handle.release();
    });
}

int starfact_c_runtime_destroy(starfact_c_runtime* runtime) {
    return guarded([&] {
        if (!runtime) return;
        const starfact::capi::KeepDevice keep;
        runtime->runtime.reset();
        delete runtime;
    });
}

int starfact_c_runtime_info_get(const starfact_c_runtime* runtime, starfact_c_runtime_info* info) {
    return guarded([&] {
        const starfact::Runtime& rt = runtime_of(const_cast<starfact_c_runtime*>(runtime), "runtime_info");
        starfact::require(info != nullptr, "runtime_info", "info", "is null");
        *info = starfact_c_runtime_info{};
        info->cpu_workers = rt.cpu_workers();
        info->cuda_workers = rt.cuda_workers();
        info->cuda_devices = rt.cuda_devices();
    });
}

int starfact_c_runtime_pause(const starfact_c_runtime* runtime) {
    return guarded([&] { runtime_of(const_cast<starfact_c_runtime*>(runtime), "runtime_pause").pause(); });
}

int starfact_c_runtime_resume(const starfact_c_runtime* runtime) {
    return guarded([&] { runtime_of(const_cast<starfact_c_runtime*>(runtime), "runtime_resume").resume(); });
}

int starfact_c_runtime_describe(const starfact_c_runtime* runtime, const char** text) {
    return guarded([&] {
        const starfact::Runtime& rt = runtime_of(const_cast<starfact_c_runtime*>(runtime), "runtime_describe");
        starfact::require(text != nullptr, "runtime_describe", "text", "is null");
        *text = thread_string(rt.describe());
    });
}

int starfact_c_runtime_scheduler(const starfact_c_runtime* runtime, const char** text) {
    return guarded([&] {
        const starfact::Runtime& rt = runtime_of(const_cast<starfact_c_runtime*>(runtime), "runtime_scheduler");
        starfact::require(text != nullptr, "runtime_scheduler", "text", "is null");
        *text = thread_string(rt.scheduler());
    });
}

}  // extern "C"

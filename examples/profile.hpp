// Worker busy/idle accounting from StarPU's profiling counters (used by starpu_chol --compare).
#pragma once
#include <starpu.h>
#include <starpu_profiling.h>

#include <algorithm>
#include <map>

namespace starfact::examples {

struct BusyShare {
    double cpu = 0;       ///< % of the CPU workers' time spent executing tasks
    double gpu = 0;       ///< % of the CUDA workers' time spent executing tasks
    /// % of wall time a GPU ran no task, mean over devices. StarPU's counters give per-worker times,
    /// not the union of overlapping streams, so this is an upper bound: 100 - the busiest stream's share.
    double gpu_idle = 0;
    bool has_cpu = false, has_gpu = false;
};

/// Starts a measured region: resets every worker's counters.
inline void profiling_reset() {
    for (unsigned w = 0; w < starpu_worker_get_count(); ++w)
        starpu_profiling_worker_get_info(static_cast<int>(w), nullptr);
}

inline double seconds(const timespec& t) { return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec); }

/// Shares since the last reset.
inline BusyShare profiling_read() {
    double cpu_exec = 0, cpu_total = 0, gpu_exec = 0, gpu_total = 0;
    std::map<int, double> device;  // devid -> busiest stream's executing share
    for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
        starpu_profiling_worker_info info;
        if (starpu_profiling_worker_get_info(static_cast<int>(w), &info) != 0) continue;
        const double exec = seconds(info.executing_time), total = seconds(info.total_time);
        switch (starpu_worker_get_type(static_cast<int>(w))) {
            case STARPU_CUDA_WORKER: {
                gpu_exec += exec;
                gpu_total += total;
                double& d = device[starpu_worker_get_devid(static_cast<int>(w))];
                if (total > 0) d = std::max(d, exec / total);
                break;
            }
            case STARPU_CPU_WORKER:
                cpu_exec += exec;
                cpu_total += total;
                break;
            default: break;
        }
    }
    BusyShare b;
    b.has_cpu = cpu_total > 0;
    b.has_gpu = !device.empty();
    b.cpu = cpu_total > 0 ? 100.0 * cpu_exec / cpu_total : 0;
    b.gpu = gpu_total > 0 ? 100.0 * gpu_exec / gpu_total : 0;
    double idle = 0;
    for (const auto& d : device) idle += 100.0 * (1.0 - std::min(1.0, d.second));
    b.gpu_idle = device.empty() ? 0 : idle / static_cast<double>(device.size());
    return b;
}

}  // namespace starfact::examples

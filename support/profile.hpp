// Worker busy/idle accounting from StarPU's profiling counters (used by starpu_chol --compare).
#pragma once
#include <starpu.h>
#include <starpu_profiling.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace starfact::support {

struct BusyShare {
    double cpu = 0;       ///< % of the CPU workers' time spent executing tasks
    double gpu = 0;       ///< % of the CUDA workers' time spent executing tasks
    /// % of wall time a GPU ran no task, mean over devices. StarPU's counters give per-worker times,
    /// not the union of overlapping streams, so this is an upper bound: 100 - the busiest stream's share.
    double gpu_idle = 0;
    bool has_cpu = false, has_gpu = false;
    /// Per CUDA device (devid order): % of wall time it ran some task, between two bounds from the per-stream
    /// counters: `low`, the busiest stream's share (the GPU ran at least that), and `high`, the streams' summed
    /// shares capped at 100 (it ran at most that; the sum exceeds 100 when streams overlap).
    struct Device {
        int devid = 0;
        double low = 0, high = 0;
    };
    std::vector<Device> devices;
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
    std::map<int, double> summed;  // devid -> sum of its streams' executing shares
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
                if (total > 0) summed[starpu_worker_get_devid(static_cast<int>(w))] += exec / total;
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
    for (const auto& d : device)
        b.devices.push_back({d.first, 100.0 * std::min(1.0, d.second), 100.0 * std::min(1.0, summed[d.first])});
    return b;
}

/// "GPU busy %: dev0 81.2-97.0 dev1 ..." (per device, the bounds of BusyShare::Device), or "" without a GPU.
inline std::string gpu_busy_text(const BusyShare& b) {
    if (b.devices.empty()) return "";
    std::string t = "GPU busy % (busiest stream - summed streams) per device:";
    char cell[64];
    for (const auto& d : b.devices) {
        std::snprintf(cell, sizeof cell, " dev%d %.1f-%.1f", d.devid, d.low, d.high);
        t += cell;
    }
    return t;
}

}  // namespace starfact::support

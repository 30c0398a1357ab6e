// Internal: multithreaded OpenBLAS for the duration of a host check (algorithms/check.cpp, algorithms/qr_check.cpp);
// the codelets run it single-threaded (the Runtime sets one thread).
#pragma once
#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <thread>

namespace starfact::detail {

/// Checks of order below this run single-threaded BLAS: threads gain them nothing.
constexpr int64_t kThreadedCheckOrder = 512;

/// Multithreaded OpenBLAS for the duration of a check of order n >= kThreadedCheckOrder (codelets run it
/// single-threaded). The thread count is one process-wide OpenBLAS setting, so concurrent checks share one
/// raise: the first saves the count and raises it, the last puts it back (two save/restore pairs interleaved
/// could leave OpenBLAS multithreaded for the codelets). Smaller checks leave the setting alone: they may run
/// from any thread while tasks run.
class AllBlasThreads {
public:
    explicit AllBlasThreads(int64_t n) : raise_(n >= kThreadedCheckOrder) {
        if (!raise_) return;
        Shared& s = shared();
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.users++ == 0) {
            s.before = openblas_get_num_threads();
            openblas_set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
        }
    }
    ~AllBlasThreads() {
        if (!raise_) return;
        Shared& s = shared();
        std::lock_guard<std::mutex> lock(s.mutex);
        if (--s.users == 0) openblas_set_num_threads(s.before);
    }
    AllBlasThreads(const AllBlasThreads&) = delete;
    AllBlasThreads& operator=(const AllBlasThreads&) = delete;

private:
    /// Mirrors OpenBLAS's own process-wide state, hence one per process (an inline function's static: one for
    /// every translation unit).
    struct Shared {
        std::mutex mutex;
        int users = 0, before = 1;
    };
    static Shared& shared() {
        static Shared s;
        return s;
    }
    bool raise_;
};

}  // namespace starfact::detail

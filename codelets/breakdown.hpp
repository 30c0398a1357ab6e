// Internal: the early stop of a low-precision factorization that broke down. The refined solves discard such a
// factor (they shift and factor again, climb the ladder or fall back to the double factorization), so every task of
// the factorization after the breakdown would be wasted work: on a matrix the TF32 factor cannot hold, the breakdown
// comes at a fraction of the order, and the rest of the graph would cost most of a factorization.
//
// A BreakdownWatch is handed to the factorization's tasks (TaskOptions::watch). Its diagonal factorizations report a
// breakdown as soon as they see it: on CPU workers directly, on CUDA workers by a copy of the tile's info to pinned
// host memory and a host function behind it on the task's stream (no synchronisation of the worker). The other tasks
// (gemm, syrk, trsm, the diagonal inverses and the products with them) return at once without computing once the
// watch has stopped. Tasks already queued on a GPU stream run; those that start later do not. A skipped task's
// measured time is an outlier that StarPU's history models discard (STARPU_HISTORY_MAX_ERROR) once calibrated.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace starfact {
class Runtime;
}

namespace starfact::detail {

class BreakdownWatch {
public:
    /// Room for `diagonal_tiles` diagonal factorizations per attempt (the factor's tile rows).
    BreakdownWatch(const Runtime& rt, int64_t diagonal_tiles);
    ~BreakdownWatch();
    BreakdownWatch(const BreakdownWatch&) = delete;
    BreakdownWatch& operator=(const BreakdownWatch&) = delete;

    /// Before a new factorization, once the previous one's tasks are all done.
    void reset();
    /// Whether a diagonal factorization of this attempt broke down.
    bool stopped() const { return column_.load(std::memory_order_acquire) != 0; }
    /// The first column reported (global, 1-based), 0 while none.
    int column() const { return column_.load(std::memory_order_acquire); }
    /// A diagonal factorization broke down at `column` (> 0).
    void report(int column);
    /// A task that returned without computing (counted for SolveReport::skipped_tasks).
    void skipped() { skipped_.fetch_add(1, std::memory_order_relaxed); }
    /// Tasks skipped since construction, over every attempt.
    int64_t skipped_tasks() const { return skipped_.load(std::memory_order_relaxed); }

    /// A slot for the next diagonal factorization's info (its host copy), or -1 when the attempt used them all.
    int take_slot();
#ifdef STARFACT_HAVE_CUDA
    /// After a diagonal factorization on `stream`: copies its device info (`dev_info`) into slot `slot` and, behind it
    /// on the stream, reports a nonzero value. No-op for slot -1.
    void watch_device_info(int slot, const int* dev_info, void* stream);
#endif

private:
    struct Entry {
        BreakdownWatch* watch;
        int* value;  // pinned host memory
    };
    static void check(void* entry);
    std::atomic<int> column_{0};
    std::atomic<int64_t> skipped_{0};
    std::atomic<int> next_{0};
    int* values_ = nullptr;  // pinned when the runtime has CUDA workers
    bool pinned_ = false;
    std::vector<Entry> entries_;
};

/// Whether a task of a watched factorization returns without computing (and counts it); false without a watch.
inline bool skip_after_breakdown(BreakdownWatch* w) {
    if (!w || !w->stopped()) return false;
    w->skipped();
    return true;
}

}  // namespace starfact::detail

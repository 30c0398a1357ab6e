// The early stop of a low-precision factorization that broke down (breakdown.hpp).
#include "codelets/breakdown.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "starfact/runtime.hpp"
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace starfact::detail {

BreakdownWatch::BreakdownWatch(const Runtime& rt, int64_t diagonal_tiles) : entries_(static_cast<size_t>(diagonal_tiles)) {
    const size_t bytes = static_cast<size_t>(std::max<int64_t>(1, diagonal_tiles)) * sizeof(int);
#ifdef STARFACT_HAVE_CUDA
    if (rt.cuda_workers() > 0 && cudaMallocHost(reinterpret_cast<void**>(&values_), bytes) == cudaSuccess) pinned_ = true;
#else
    (void)rt;
#endif
    if (!pinned_) values_ = static_cast<int*>(std::calloc(1, bytes));
    if (!values_) throw std::bad_alloc();
    for (size_t i = 0; i < entries_.size(); ++i) entries_[i] = {this, values_ + i};
}

BreakdownWatch::~BreakdownWatch() {
#ifdef STARFACT_HAVE_CUDA
    if (pinned_) {
        cudaFreeHost(values_);
        return;
    }
#endif
    std::free(values_);
}

void BreakdownWatch::reset() {
    column_.store(0, std::memory_order_release);
    next_.store(0, std::memory_order_relaxed);
    for (size_t i = 0; i < entries_.size(); ++i) values_[i] = 0;
}

void BreakdownWatch::report(int column) {
    if (column <= 0) return;
    int none = 0;
    column_.compare_exchange_strong(none, column, std::memory_order_acq_rel);
}

int BreakdownWatch::take_slot() {
    const int s = next_.fetch_add(1, std::memory_order_relaxed);
    return s < static_cast<int>(entries_.size()) ? s : -1;
}

void BreakdownWatch::check(void* entry) {
    const Entry* e = static_cast<const Entry*>(entry);
    e->watch->report(*e->value);
}

#ifdef STARFACT_HAVE_CUDA
void BreakdownWatch::watch_device_info(int slot, const int* dev_info, void* stream) {
    if (slot < 0 || slot >= static_cast<int>(entries_.size())) return;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    Entry* e = &entries_[static_cast<size_t>(slot)];
    // Without pinned memory the copy would synchronise the stream: skip the watch (the factorization runs to its end).
    if (!pinned_) return;
    if (cudaMemcpyAsync(e->value, dev_info, sizeof(int), cudaMemcpyDeviceToHost, s) != cudaSuccess) return;
    cudaLaunchHostFunc(s, &BreakdownWatch::check, e);
}
#endif

}  // namespace starfact::detail

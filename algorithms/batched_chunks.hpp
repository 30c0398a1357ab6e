// Internal: what the StarPU entry points of both batched families (batched_cholesky.cpp, batched_lu.cpp)
// share: the argument checks of a strided host batch and the chunk tasks with their vector handles.
#pragma once
#include <starpu.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "codelets/codelets.hpp"
#include "starfact/error.hpp"

namespace starfact::detail {

/// Checks of one host call, in argument order.
struct HostChecks {
    const char* f;
    int64_t n;
    static std::string got(int64_t v) { return " (got " + std::to_string(v) + ")"; }
    /// n in [0, max_order].
    HostChecks(const char* function, int64_t order, int64_t max_order) : f(function), n(order) {
        require(n >= 0 && n <= max_order, f, "n", "must be in [0, " + std::to_string(max_order) + "]" + got(n));
    }
    /// ld >= max(1, n) with ld * max(1, cols) < 2^31 (the kernels' 32-bit offsets; cols: n or nrhs), checked
    /// without forming a product that could overflow.
    void ld(const char* name, int64_t v, int64_t cols, const char* cols_name) const {
        const int64_t lo = std::max<int64_t>(1, n);
        require(v >= lo && v <= INT32_MAX / std::max<int64_t>(1, cols), f, name,
                "must be >= max(1, n) = " + std::to_string(lo) + " with " + name + " * " + cols_name + " < 2^31" +
                    got(v));
    }
    void stride(const char* name, int64_t v, int64_t minimum, const char* rule) const {
        require(v >= minimum, f, name, std::string("must be >= ") + rule + " = " + std::to_string(minimum) + got(v));
    }
    /// A strided batch of `batch` members of `member` entries each (member > 0 once ld checked) `stride` entries
    /// apart spans at most 2^63 - 1 bytes: its offsets fit in 64 bits.
    template <typename T>
    void extent(const char* name, int64_t v, int64_t batch, int64_t member) const {
        int64_t bytes = 0;
        require(batch <= 1 || (!__builtin_mul_overflow(batch - 1, v, &bytes) &&
                               !__builtin_add_overflow(bytes, member, &bytes) &&
                               !__builtin_mul_overflow(bytes, static_cast<int64_t>(sizeof(T)), &bytes)),
                f, name, [&] {
                    return "spans more than 2^63 - 1 bytes over " + std::to_string(batch) +
                           " members: no array is that large" + got(v);
                });
    }
    void batch(int64_t v) const { require(v >= 0, f, "batch", "must be >= 0" + got(v)); }
    /// p may be null only when `empty` (nothing to read or write).
    void pointer(const char* name, const void* p, bool empty) const {
        require(p != nullptr || empty, f, name, "is null");
    }
    void chunk(int64_t v) const { require(v >= 0, f, "opts.chunk", "must be >= 0" + got(v)); }
};

/// The chunk tasks of one call and the StarPU vector handles over the caller's host arrays. finish()
/// waits for these tasks only (other threads' task graphs go on; StarPU's count of submitted tasks,
/// Runtime::pending_tasks(), drops a moment later, as after a Sequence) and unregisters the handles, which
/// brings the data home; when a submission threw before finish(), the destructor waits for what was
/// submitted and unregisters.
class BatchChunks {
public:
    BatchChunks() = default;
    BatchChunks(const BatchChunks&) = delete;
    BatchChunks& operator=(const BatchChunks&) = delete;
    ~BatchChunks() {
        for (starpu_task* t : tasks_)
            if (starpu_task_wait(t) != 0) continue;  // best effort before the exception goes on
        release();
    }

    /// Registers count elements of type T at p (StarPU vectors count elements in 32 bits).
    template <typename T>
    starpu_data_handle_t add(T* p, int64_t count) {
        starpu_data_handle_t h = nullptr;
        starpu_vector_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(p), static_cast<uint32_t>(count),
                                    sizeof(T));
        handles_.push_back(h);
        return h;
    }
    /// Options of a chunk task: the mapping, and this object collects the (not detached) task.
    TaskOptions task_options(Mapping mapping) {
        TaskOptions o;
        o.mapping = mapping;
        o.collect = &tasks_;
        return o;
    }

    void finish(const char* f) {
        bool waited = true;
        for (starpu_task* t : tasks_) waited = starpu_task_wait(t) == 0 && waited;  // destroys t
        tasks_.clear();
        release();
        if (!waited) throw RuntimeError(std::string("starfact::") + f + ": starpu_task_wait failed");
    }

private:
    void release() {
        for (starpu_data_handle_t h : handles_) starpu_data_unregister(h);
        handles_.clear();
    }
    std::vector<starpu_task*> tasks_;
    std::vector<starpu_data_handle_t> handles_;
};

}  // namespace starfact::detail

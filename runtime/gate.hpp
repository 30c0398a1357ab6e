// Internal: a gate in the implicit dependency chains of some data. Submitted like a task that writes every handle
// it holds, it runs nowhere and moves no data (STARPU_NOWHERE): it only completes when release() is called, so the
// tasks submitted after it on those handles wait for the release, while tasks outside the implicit dependencies
// (TaskOptions::unordered_data) still reach the data. The submit form of the mixed-precision solve holds A and B with
// one while its host-driven refinement runs (algorithms/posv_mixed_async.cpp).
#pragma once
#include <starpu.h>

#include <vector>

#include "starfact/runtime.hpp"

namespace starfact::detail {

struct SequenceState;

class Gate {
public:
    /// Submits the gate on `handles` (each once) into `sequence` (its wait() covers the gate, hence everything the
    /// holder does before release()). Throws RuntimeError if StarPU refuses it.
    Gate(const Runtime& rt, SequenceState& sequence, const std::vector<starpu_data_handle_t>& handles);
    /// Releases the gate if release() was not called.
    ~Gate();
    Gate(const Gate&) = delete;
    Gate& operator=(const Gate&) = delete;
    /// Lets the gate complete: the tasks that wait for it may start. Idempotent.
    void release();

private:
    starpu_task* task_ = nullptr;
};

}  // namespace starfact::detail

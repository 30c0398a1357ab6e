// Internal: what a Sequence counts (its pending tasks, the info variables of its operations).
#pragma once
#include <starpu.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/runtime_state.hpp"
#include "starfact/sequence.hpp"
#ifdef STARFACT_SIMULATION
#include "runtime/simulated_sync.hpp"
#endif

namespace starfact::detail {

struct SequenceState {
#ifdef STARFACT_SIMULATION  // waits that let SimGrid's other actors run (runtime/simulated_sync.hpp)
    mutable SimulatedMutex mutex;
    SimulatedCondition all_done;
#else
    mutable std::mutex mutex;
    std::condition_variable all_done;
#endif
    int64_t pending = 0, submitted = 0;
    std::deque<int> infos;                              // one per operation (stable addresses for StarPU)
    std::vector<starpu_data_handle_t> info_handles;     // registered on `infos`, unregistered by wait()
    /// Distributed operations: this rank's info variable of each (stable addresses), and which operation it
    /// belongs to; wait() reduces them over the ranks into `infos`.
    std::deque<int> rank_infos;
    std::vector<std::pair<size_t, int*>> to_reduce;
    const Runtime* runtime = nullptr;                   // for the reduction's collective
    /// Collective steps of distributed operations that wait() runs on every rank, in the order added, once the
    /// infos are reduced (the distributed QR's breakdown record: the same reason on every rank).
    std::vector<std::function<void()>> after_reduction;
    size_t gathered = 0;                                // operations whose info is back in `infos`
    /// The first error of an operation whose host-side part runs outside the caller's thread (the mixed-precision
    /// solve's driver): the next wait() throws it, once its tasks completed (as it was thrown: an InvalidArgument
    /// stays one).
    std::exception_ptr error;
    /// What submitted tasks point into (their names, state their codelets share), freed by the wait() after
    /// their tasks.
    std::vector<std::shared_ptr<void>> kept;

    /// Keeps an object (a block of task names, a graph's shared state) alive until the next wait() has seen
    /// the tasks submitted before it complete.
    void keep(std::shared_ptr<void> object) {
        std::lock_guard lock(mutex);
        kept.push_back(std::move(object));
    }

    /// A new operation: a zeroed info variable registered with StarPU; returns its index.
    int add_operation(starpu_data_handle_t* handle);
    /// A new operation on a distributed matrix: one info variable per rank of rt (per_rank[r], owned by
    /// rank r, registered with StarPU-MPI); the tasks a rank runs write its own. wait() gathers the first
    /// failing column over the ranks, so that info(op) is the same on every rank. Returns its index.
    int add_distributed_operation(const Runtime& rt, std::vector<starpu_data_handle_t>* per_rank);
    /// A collective step for the next wait() to run after reducing the infos (every rank adds the same ones).
    void add_after_reduction(std::function<void()> step) {
        std::lock_guard lock(mutex);
        after_reduction.push_back(std::move(step));
    }
    /// Records `e` for the next wait() to throw (the first one is kept).
    void fail(std::exception_ptr e) {
        std::lock_guard lock(mutex);
        if (!error) error = std::move(e);
    }
    /// Sets the task's completion callback to this sequence and counts it; call right before submitting.
    void attach(starpu_task* task);
    /// Undoes attach() for a task StarPU refused.
    void detach_refused();
    /// The Runtime's destructor, after its last task: unregisters the info variables while StarPU still runs.
    void orphan() noexcept;
};

/// Throws RuntimeError from `function`: the Runtime of the sequence was destroyed.
[[noreturn]] void sequence_orphaned(const char* function);

struct SequenceAccess {
    /// The state the algorithms submit into; throws RuntimeError once the Runtime was destroyed.
    static SequenceState& state(Sequence& s) {
        if (!s.membership_->alive()) sequence_orphaned("Sequence");
        return *s.state_;
    }
};

}  // namespace starfact::detail

// Internal helpers shared by the DAG builders: task names and iteration numbers for traces, priority scaling,
// the options every task of an operation starts from.
#pragma once
#include <starpu.h>

#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "codelets/codelets.hpp"
#include "runtime/runtime_state.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/cholesky.hpp"
#include "algorithms/plan_tables.hpp"  // task_mapping

namespace starfact::detail {

/// Owns the task names ("gemm(3,1,0)") until the graph has completed: StarPU keeps pointers to them, and a
/// submit form returns before its tasks run, so the names pass to the Sequence when this object dies and
/// are freed by the Sequence's next wait().
class TaskNames {
public:
    explicit TaskNames(SequenceState& seq) : seq_(seq), names_(std::make_shared<std::deque<std::string>>()) {}
    ~TaskNames() { seq_.keep(std::move(names_)); }
    TaskNames(const TaskNames&) = delete;
    TaskNames& operator=(const TaskNames&) = delete;

    template <typename... Ix>
    const char* operator()(const char* kernel, Ix... ix) {
        std::string s = kernel;
        s += '(';
        const long long v[] = {static_cast<long long>(ix)...};
        for (size_t i = 0; i < sizeof...(Ix); ++i) s += (i ? "," : "") + std::to_string(v[i]);
        s += ')';
        names_->push_back(std::move(s));
        return names_->back().c_str();
    }

private:
    SequenceState& seq_;
    std::shared_ptr<std::deque<std::string>> names_;
};

/// Marks the tasks a builder submits in its scope with step k (StarPU's iteration number, which FxT traces show
/// on each task), while the Runtime traces; otherwise does nothing. StarPU keeps one iteration stack per
/// scheduling context, shared by every thread and updated without a lock, and reads its top when a task is
/// submitted: pushes and pops from concurrent submissions corrupt it (its pop asserts) and would label a task
/// with another thread's step. So the marked region, push to pop with the step's submissions, holds the
/// Runtime's iteration mutex; concurrent submissions take turns step by step, and only while tracing.
class TraceIteration {
public:
    TraceIteration(const Runtime& rt, int64_t k) {
        if (!rt.tracing()) return;
        lock_ = std::unique_lock<std::mutex>(RuntimeAccess::state(rt).iteration_mutex);
        starpu_iteration_push(static_cast<unsigned long>(k));
    }
    /// Also when a submission in the step threw: the stack stays balanced and the mutex is released.
    ~TraceIteration() {
        if (lock_.owns_lock()) starpu_iteration_pop();
    }
    TraceIteration(const TraceIteration&) = delete;
    TraceIteration& operator=(const TraceIteration&) = delete;

private:
    std::unique_lock<std::mutex> lock_;
};

/// Maps raw priorities in [0, raw_max] into the scheduler's range when that range is narrower
/// (the prio/eager-prio policies use a handful of levels; dmda* accept any int).
class PriorityScale {
public:
    PriorityScale(bool enabled, int raw_max)
        : enabled_(enabled), raw_max_(raw_max > 0 ? raw_max : 1), lo_(starpu_sched_get_min_priority()),
          hi_(starpu_sched_get_max_priority()) {}
    int operator()(int raw) const {
        if (!enabled_) return 0;
        if (static_cast<long long>(hi_) - lo_ >= raw_max_ && lo_ <= 0) return raw;
        return lo_ + static_cast<int>(static_cast<long long>(raw) * (static_cast<long long>(hi_) - lo_) / raw_max_);
    }

private:
    bool enabled_;
    int raw_max_, lo_, hi_;
};

/// The options every task of an operation on tiles of nb starts from: where it may run (the plan's hybrid
/// rule, task_mapping), the task counter of `stats` (may be null) and the Sequence `seq` that counts it.
inline TaskOptions operation_task_options(const Runtime& rt, const Options& opts, int64_t nb, RunStats* stats,
                                          SequenceState* seq) {
    TaskOptions o;
    o.mapping = task_mapping(opts.mapping, nb, rt.cuda_workers() > 0);
    o.counter = stats ? &stats->tasks : nullptr;
    o.sequence = seq;
    o.compute = compute_of(opts.factor);
    return o;
}
/// The same for an operation whose call was planned (plan.hpp): its tasks run where the plan maps them
/// (Plan::task_mapping, the hybrid rule on the plan's tiles).
inline TaskOptions operation_task_options(const Runtime& rt, const Options& opts, const Plan& plan, RunStats* stats,
                                          SequenceState* seq) {
    TaskOptions o = operation_task_options(rt, opts, plan.nb, stats, seq);
    o.mapping = plan.task_mapping;
    return o;
}

}  // namespace starfact::detail

// Internal helpers shared by the DAG builders: task names for traces, priority scaling.
#pragma once
#include <starpu.h>

#include <cstdio>
#include <deque>
#include <string>

namespace starfact::detail {

/// Owns the task names ("gemm(3,1,0)") until the graph has completed; StarPU keeps pointers.
class TaskNames {
public:
    template <typename... Ix>
    const char* operator()(const char* kernel, Ix... ix) {
        std::string s = kernel;
        s += '(';
        const long long v[] = {static_cast<long long>(ix)...};
        for (size_t i = 0; i < sizeof...(Ix); ++i) s += (i ? "," : "") + std::to_string(v[i]);
        s += ')';
        names_.push_back(std::move(s));
        return names_.back().c_str();
    }

private:
    std::deque<std::string> names_;
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

}  // namespace starfact::detail

// Sequence: completion counting through task callbacks, so that wait() covers its own tasks only.
#include "runtime/sequence_state.hpp"

#include <string>

#include "runtime/mpi.hpp"
#include "starfact/error.hpp"

namespace starfact {
namespace detail {
namespace {
void task_done(void* arg) {
    auto* s = static_cast<SequenceState*>(arg);
    std::lock_guard lock(s->mutex);
    if (--s->pending == 0) s->all_done.notify_all();
}
}  // namespace

int SequenceState::add_operation(starpu_data_handle_t* handle) {
    std::lock_guard lock(mutex);
    infos.push_back(0);
    starpu_variable_data_register(handle, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(&infos.back()), sizeof(int));
    info_handles.push_back(*handle);
    return static_cast<int>(infos.size()) - 1;
}

int SequenceState::add_distributed_operation(const Runtime& rt, std::vector<starpu_data_handle_t>* per_rank) {
    std::lock_guard lock(mutex);
    const int ranks = rt.mpi_size(), me = rt.mpi_rank();
    const int64_t tag = reserve_tags(rt, ranks);
    infos.push_back(0);
    rank_infos.push_back(0);
    runtime = &rt;
    to_reduce.emplace_back(infos.size() - 1, &rank_infos.back());
    per_rank->assign(static_cast<size_t>(ranks), nullptr);
    for (int r = 0; r < ranks; ++r) {
        starpu_data_handle_t& h = (*per_rank)[static_cast<size_t>(r)];
        if (r == me)
            starpu_variable_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(&rank_infos.back()),
                                          sizeof(int));
        else
            starpu_variable_data_register(&h, -1, 0, sizeof(int));  // never used here: no storage
        mpi_register(h, tag + r, r);
        info_handles.push_back(h);
    }
    return static_cast<int>(infos.size()) - 1;
}

void SequenceState::attach(starpu_task* task) {
    task->callback_func = task_done;
    task->callback_arg = this;
    std::lock_guard lock(mutex);
    ++pending;
    ++submitted;
}

void SequenceState::detach_refused() {
    std::lock_guard lock(mutex);
    --submitted;
    if (--pending == 0) all_done.notify_all();
}

void SequenceState::orphan() noexcept {
    std::vector<starpu_data_handle_t> handles;
    {
        std::lock_guard lock(mutex);
        handles.swap(info_handles);
        kept.clear();       // their tasks completed: the Runtime waited for every task
        to_reduce.clear();  // a reduction over the ranks is a collective, out of reach now
        after_reduction.clear();
        runtime = nullptr;
    }
    for (starpu_data_handle_t h : handles) starpu_data_unregister(h);
}

void sequence_orphaned(const char* function) {
    throw RuntimeError(std::string("starfact::") + function +
                       ": the Runtime this Sequence belongs to was destroyed (a Sequence must be destroyed before "
                       "its Runtime; the Runtime completed its tasks, and it cannot be used any more)");
}
}  // namespace detail

Sequence::Sequence(Runtime& runtime)
    : rt_(&runtime),
      state_(std::make_unique<detail::SequenceState>()),
      membership_(std::make_unique<detail::Membership>(runtime, this, [](void* self) noexcept {
          static_cast<Sequence*>(self)->state_->orphan();
      })) {}

Sequence::~Sequence() {
    // Orphaned (the Runtime was destroyed first): its destructor completed the tasks, and StarPU is gone.
    if (!membership_->leave()) return;
    try {
        wait_tasks();
    } catch (...) {
    }
    membership_->left();
}

Runtime& Sequence::runtime() const {
    if (!membership_->alive()) detail::sequence_orphaned("Sequence::runtime");
    return *rt_;
}

int Sequence::wait() {
    if (!membership_->alive()) detail::sequence_orphaned("Sequence::wait");
    return wait_tasks();
}

int Sequence::wait_tasks() {
    detail::SequenceState& s = *state_;
    std::vector<std::shared_ptr<void>> kept;  // for tasks submitted before this wait()
    {
        std::unique_lock lock(s.mutex);
        kept.swap(s.kept);
        s.all_done.wait(lock, [&] { return s.pending == 0; });
    }
    // Unregistering brings each info back into its int (from a GPU when a CUDA codelet wrote it last).
    std::vector<starpu_data_handle_t> handles;
    size_t upto = 0;  // operations registered so far: their handles are in `handles` or already gathered
    std::vector<std::pair<size_t, int*>> reduce;  // distributed operations among those
    std::vector<std::function<void()>> after;     // their collective steps
    const Runtime* rt = nullptr;
    {
        std::lock_guard lock(s.mutex);
        handles.swap(s.info_handles);
        upto = s.infos.size();
        reduce.swap(s.to_reduce);
        after.swap(s.after_reduction);
        rt = s.runtime;
    }
    for (starpu_data_handle_t h : handles) starpu_data_unregister(h);
    // Distributed operations: every rank has its own tasks' info; the first failing column over all ranks
    // becomes the operation's info on every rank (collective: every rank calls wait()).
    if (!reduce.empty()) {
        std::vector<int> values;
        for (const auto& r : reduce) values.push_back(*r.second);
        detail::allreduce_first_nonzero(*rt, values);
        std::lock_guard lock(s.mutex);
        for (size_t i = 0; i < reduce.size(); ++i) s.infos[reduce[i].first] = values[i];
    }
    // (unwinding: nothing collective, as for the infos; the other ranks may never get here)
    if (std::uncaught_exceptions() == 0)
        for (const std::function<void()>& step : after) step();
    std::lock_guard lock(s.mutex);
    s.gathered = upto;
    if (s.error) {
        std::exception_ptr e;
        std::swap(e, s.error);
        std::rethrow_exception(e);
    }
    for (size_t i = 0; i < upto; ++i)
        if (s.infos[i] != 0) return s.infos[i];
    return 0;
}

bool Sequence::done() const {
    std::lock_guard lock(state_->mutex);
    return state_->pending == 0;
}

int64_t Sequence::pending() const {
    std::lock_guard lock(state_->mutex);
    return state_->pending;
}

int64_t Sequence::submitted() const {
    std::lock_guard lock(state_->mutex);
    return state_->submitted;
}

int Sequence::info() const {
    std::lock_guard lock(state_->mutex);
    for (size_t i = 0; i < state_->gathered; ++i)
        if (state_->infos[i] != 0) return state_->infos[i];
    return 0;
}

int Sequence::info(int op) const {
    std::lock_guard lock(state_->mutex);
    require(op >= 0 && static_cast<size_t>(op) < state_->infos.size(), "Sequence::info", "op",
            "is not an operation of this sequence (got " + std::to_string(op) + ", it has " +
                std::to_string(state_->infos.size()) + ")");
    if (static_cast<size_t>(op) >= state_->gathered && !membership_->alive())
        detail::sequence_orphaned("Sequence::info");
    if (static_cast<size_t>(op) >= state_->gathered)
        throw RuntimeError("starfact::Sequence::info: operation " + std::to_string(op) +
                           " has not been waited for (call wait() first)");
    return state_->infos[static_cast<size_t>(op)];
}

int Sequence::operations() const {
    std::lock_guard lock(state_->mutex);
    return static_cast<int>(state_->infos.size());
}

void Sequence::submit(starpu_task* task) {
    if (!membership_->alive()) detail::sequence_orphaned("Sequence::submit");
    require(task != nullptr, "Sequence::submit", "task", "is null");
    require(task->callback_func == nullptr, "Sequence::submit", "task",
            "has a callback; the sequence needs that slot to count completions");
    state_->attach(task);
    const int ret = starpu_task_submit(task);
    if (ret != 0) {
        state_->detach_refused();
        task->destroy = 0;  // (StarPU destroys only the tasks it ran; this one is ours to free)
        starpu_task_destroy(task);
        throw RuntimeError("starfact::Sequence::submit: starpu_task_submit failed (" + std::to_string(ret) +
                           (ret == -ENODEV ? ": no worker can run this codelet)" : ")"));
    }
}

}  // namespace starfact

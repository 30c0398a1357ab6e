#include "runtime/gate.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/extensions.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/error.hpp"

namespace starfact::detail {
namespace {

/// The gate's codelet, one per Runtime: no implementation, no data to fetch.
struct GateCodelet {
    starpu_codelet cl;
    GateCodelet() {
        starpu_codelet_init(&cl);
        cl.where = STARPU_NOWHERE;
        cl.nbuffers = STARPU_VARIABLE_NBUFFERS;
        cl.name = "gate";
    }
};

}  // namespace

Gate::Gate(const Runtime& rt, SequenceState& sequence, const std::vector<starpu_data_handle_t>& handles) {
    starpu_task* t = starpu_task_create();
    t->cl = &extension<GateCodelet>(rt).cl;
    const int n = static_cast<int>(handles.size());
    t->nbuffers = n;
    // StarPU frees dyn_handles and dyn_modes with free() when the task is destroyed.
    t->dyn_handles = static_cast<starpu_data_handle_t*>(std::malloc(sizeof(starpu_data_handle_t) * (n > 0 ? n : 1)));
    t->dyn_modes = static_cast<starpu_data_access_mode*>(std::malloc(sizeof(starpu_data_access_mode) * (n > 0 ? n : 1)));
    for (int i = 0; i < n; ++i) {
        t->dyn_handles[i] = handles[static_cast<size_t>(i)];
        t->dyn_modes[i] = STARPU_RW;
    }
    t->name = "gate";
    // The gate's end waits for one release (StarPU's end dependencies): set before submission, so that it cannot
    // complete before.
    starpu_task_end_dep_add(t, 1);
    sequence.attach(t);
    const int ret = starpu_task_submit(t);
    if (ret != 0) {
        sequence.detach_refused();
        t->destroy = 0;  // (StarPU destroys only the tasks it ran; this one is ours to free)
        starpu_task_destroy(t);
        throw RuntimeError("starfact: starpu_task_submit(gate) failed: " + std::to_string(ret));
    }
    task_ = t;
}

Gate::~Gate() { release(); }

void Gate::release() {
    if (!task_) return;
    starpu_task* t = task_;
    task_ = nullptr;
    starpu_task_end_dep_release(t);  // the task may complete (and be destroyed) from here on
}

}  // namespace starfact::detail

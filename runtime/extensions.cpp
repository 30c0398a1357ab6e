// The Runtime's extension slots and the warm-up hooks of the layers above it (runtime/extensions.hpp).
#include "runtime/extensions.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

/// The registered warm-up hooks. Process-wide by necessity: the runtime cannot name the codelets (they are
/// above it), and a Runtime runs the hooks in its constructor, before anything of the codelets was used, so
/// the codelets must register them before any Runtime exists, from static initializers. The list is only
/// appended to (one entry per hook, in practice during static initialization) and read at a Runtime's start;
/// the mutex covers a registration from a library loaded later, never a task insertion.
struct WarmUpHooks {
    std::mutex mutex;
    std::vector<WarmUpHook> hooks;
};
WarmUpHooks& warm_up_hooks() {
    static WarmUpHooks h;  // constructed on first use: safe from other static initializers
    return h;
}

}  // namespace

std::size_t new_extension_index() {
    // Process-wide and monotonic: it numbers slot types, not objects (each type takes one index, once).
    static std::atomic<std::size_t> next{0};
    const std::size_t index = next.fetch_add(1, std::memory_order_relaxed);
    if (index >= ExtensionStore::kCapacity)
        throw std::logic_error("starfact: more extension slot types than ExtensionStore::kCapacity (" +
                               std::to_string(ExtensionStore::kCapacity) + ")");
    return index;
}

ExtensionStore::~ExtensionStore() {
    std::vector<Slot*> created;
    for (Slot& s : slots_)
        if (s.object) created.push_back(&s);
    std::sort(created.begin(), created.end(), [](const Slot* a, const Slot* b) { return a->order > b->order; });
    for (Slot* s : created) s->destroy(s->object);
}

ExtensionStore& extensions(const Runtime& rt) { return RuntimeAccess::state(rt).extensions; }

bool register_warm_up(WarmUpHook hook) {
    WarmUpHooks& h = warm_up_hooks();
    std::lock_guard<std::mutex> lock(h.mutex);
    h.hooks.push_back(hook);
    return true;
}

void run_warm_up_hooks(const Runtime& rt) {
    std::vector<WarmUpHook> hooks;
    {
        WarmUpHooks& h = warm_up_hooks();
        std::lock_guard<std::mutex> lock(h.mutex);
        hooks = h.hooks;
    }
    for (WarmUpHook hook : hooks) hook(rt);
}

}  // namespace starfact::detail

// Internal: what the layers above the runtime (the codelets) keep per Runtime, without the runtime knowing
// them: typed extension slots owned by the Runtime, and the warm-up hooks it runs at start.
//
// A slot holds one object of a type X that a layer above defines (e.g. the codelet table Codelets<float>).
// extension<X>(rt) creates it on first use, once per Runtime (std::call_once), and returns it; afterwards the
// call is an index into a fixed array and the acquire load of call_once's fast path: no lock, no string, no
// allocation per task insertion. The objects live until the Runtime's state is destroyed, after
// starpu_shutdown (StarPU saves the codelets' performance models at shutdown), in reverse creation order.
#pragma once
#include <array>
#include <atomic>
#include <cstddef>
#include <mutex>

namespace starfact {
class Runtime;
}

namespace starfact::detail {

/// The index of a new slot type. Slot indices are process-wide (the same for every Runtime), handed out by
/// an atomic counter the first time each type is used; throws std::logic_error past ExtensionStore's capacity.
std::size_t new_extension_index();

/// The slot index of type X, fixed at its first use.
template <typename X>
std::size_t extension_index() {
    static const std::size_t index = new_extension_index();
    return index;
}

/// The slots of one Runtime (a member of RuntimeState).
class ExtensionStore {
public:
    /// More than the library's slot types (over 128 with the complex instances: the codelet tables, one slot per
    /// precision of each codelet defined on its own, and the codelets of the feature modules);
    /// new_extension_index() refuses to go past it.
    static constexpr std::size_t kCapacity = 512;

    ExtensionStore() = default;
    ExtensionStore(const ExtensionStore&) = delete;
    ExtensionStore& operator=(const ExtensionStore&) = delete;
    ~ExtensionStore();

    /// The X of this store, created by X() on first use (concurrent first uses: one creates, the others wait).
    template <typename X>
    X& get() {
        Slot& s = slots_[extension_index<X>()];
        std::call_once(s.once, [this, &s] {
            s.object = new X();
            s.destroy = [](void* p) { delete static_cast<X*>(p); };
            s.order = created_.fetch_add(1, std::memory_order_relaxed);
        });
        return *static_cast<X*>(s.object);
    }

private:
    struct Slot {
        std::once_flag once;
        void* object = nullptr;
        void (*destroy)(void*) = nullptr;
        std::size_t order = 0;  // creation rank, for destruction in reverse
    };
    std::array<Slot, kCapacity> slots_;
    std::atomic<std::size_t> created_{0};
};

/// The X of Runtime rt (runtime/runtime.cpp: its RuntimeState's store).
template <typename X>
X& extension(const Runtime& rt);

ExtensionStore& extensions(const Runtime& rt);

template <typename X>
X& extension(const Runtime& rt) {
    return extensions(rt).template get<X>();
}

/// A function the Runtime calls once it started, when RuntimeConfig::warm_up is set (e.g. the codelets'
/// GPU warm-up, codelets/potrf.cpp).
using WarmUpHook = void (*)(const Runtime&);

/// Appends a warm-up hook; meant for a static initializer of the layer that defines it (a namespace-scope
/// `const bool registered = register_warm_up(f);`). Returns true.
bool register_warm_up(WarmUpHook hook);

/// Runs the registered hooks in registration order (Runtime's start).
void run_warm_up_hooks(const Runtime& rt);

}  // namespace starfact::detail

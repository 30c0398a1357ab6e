// Internal: what a Runtime owns besides its public state (the per-worker CUDA contexts, the extension
// slots where the codelets keep their tables: runtime/extensions.hpp) and the accessors that algorithms/
// and codelets/ use. The runtime knows no codelet.
// Not installed: the public header only forward-declares RuntimeState.
#pragma once
#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/extensions.hpp"
#include "starfact/runtime.hpp"

namespace starfact::detail {

struct CudaContexts;
struct MpiState;

/// An object that holds StarPU data of a Runtime (a TileMatrix's tiles, a Sequence's info variables) and may be
/// destroyed after it. The Runtime's destructor, once its tasks are done and before starpu_shutdown, calls
/// orphan() on each one still alive: it gives its StarPU data back (unregisters, frees) while StarPU still runs.
/// From then on the object throws RuntimeError on use (Registry::alive() is false) and its destructor does nothing.
class Dependent {
public:
    virtual void orphan() noexcept = 0;

protected:
    ~Dependent() = default;
};

/// The Dependents of one Runtime. The Runtime creates it and each Dependent holds a shared reference to it, so
/// that one outliving the Runtime can still ask whether it is alive, without global state.
class Registry {
public:
    /// Adds d (a constructor, before it registers anything with StarPU).
    void add(Dependent* d);
    /// Takes d out before its destructor releases its StarPU data; false if the Runtime already orphaned it (nothing
    /// left to release). After true, the Runtime's destructor waits for left() before it shuts StarPU down.
    bool leave(Dependent* d);
    void left();
    bool alive() const { return alive_.load(std::memory_order_acquire); }
    /// The Runtime's destructor: marks the Runtime dead, orphans every Dependent still registered and waits for
    /// the destructors that left before.
    void orphan_all() noexcept;

private:
    std::mutex mutex_;
    std::condition_variable all_left_;
    std::atomic<bool> alive_{true};
    std::vector<Dependent*> members_;
    int leaving_ = 0;
};

/// The handlers of the signals StarPU catches (SIGINT, SIGSEGV, SIGTRAP): saved before starpu_init and put back
/// after starpu_shutdown, since StarPU 1.3 never restores them and a later starpu_init would save its own handler
/// as "previous" (a crash then re-raises into it forever).
struct SavedSignals {
    static constexpr int count = 3;
    static const int numbers[count];
    struct sigaction before[count] = {};   // in place before starpu_init
    struct sigaction installed[count] = {};  // in place right after it (StarPU's, unless disabled)
    bool saved = false, started = false;
    void save() noexcept;
    /// After a successful start: what StarPU installed.
    void note_installed() noexcept;
    /// After starpu_shutdown (or a failed start): restores `before` for each signal whose handler is still the
    /// one StarPU installed; a handler the application set meanwhile is left alone.
    void restore() noexcept;
};

struct RuntimeState {
    std::shared_ptr<Registry> registry = std::make_shared<Registry>();
    SavedSignals signals;
    int blas_threads_before = 0;  // OpenBLAS thread count restored at shutdown
    bool cuda_started = false;    // cuBLAS and the CUDA contexts, torn down at shutdown
    /// The codelet tables and other per-Runtime objects of the layers above (runtime/extensions.hpp).
    ExtensionStore extensions;
    std::unique_ptr<CudaContexts> cuda;
    std::unique_ptr<MpiState> mpi;  // RuntimeConfig::mpi (runtime/mpi.hpp)
    /// Held by a DAG builder for one step marked with StarPU's trace iteration number, while tracing only
    /// (TraceIteration, algorithms/dag.hpp): StarPU keeps that number unsynchronized, one per context.
    std::mutex iteration_mutex;
    /// Serializes starpu_pause and starpu_resume (Runtime::pause, resume): StarPU 1.3 counts pauses with an
    /// unlocked increment, so concurrent calls lose updates and leave the workers asleep or unpausable.
    std::mutex pause_mutex;
    RuntimeState();
    ~RuntimeState();
};

/// The only way into a Runtime's internals (a friend of Runtime).
struct RuntimeAccess {
    static RuntimeState& state(const Runtime& rt) { return *rt.state_; }
};

/// The registry of the TileMatrix and Sequence objects of `rt`.
inline const std::shared_ptr<Registry>& registry(const Runtime& rt) { return RuntimeAccess::state(rt).registry; }

/// How a public class (TileMatrix, Sequence), whose installed header cannot name Dependent, joins the registry of
/// its Runtime: it owns a Membership, which joins on construction and forwards orphan() to `on_orphan(self)`.
class Membership final : public Dependent {
public:
    Membership(const Runtime& rt, void* self, void (*on_orphan)(void*) noexcept)
        : registry_(registry(rt)), self_(self), on_orphan_(on_orphan) {
        registry_->add(this);
    }
    Membership(const Membership&) = delete;
    Membership& operator=(const Membership&) = delete;
    ~Membership() = default;
    /// False once the Runtime's destructor started orphaning its dependents.
    bool alive() const { return registry_->alive(); }
    /// Registry::leave() and left(): the owner's destructor, around releasing its StarPU data.
    bool leave() { return registry_->leave(this); }
    void left() { registry_->left(); }
    void orphan() noexcept override { on_orphan_(self_); }

private:
    std::shared_ptr<Registry> registry_;
    void* self_;
    void (*on_orphan_)(void*) noexcept;
};

/// The per-CUDA-worker contexts (handles, workspaces); empty without CUDA workers.
CudaContexts* cuda_contexts(const Runtime& rt);

}  // namespace starfact::detail

// Internal: what a Runtime owns besides its public state (the codelet tables, the per-worker CUDA
// contexts, codelets of feature modules) and the accessors that algorithms/ and codelets/ use.
// Not installed: the public header only forward-declares RuntimeState.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "starfact/runtime.hpp"

namespace starfact::detail {

template <typename T> struct Codelets;
struct CudaContexts;
struct Kernel;
struct MpiState;

struct RuntimeState {
    int blas_threads_before = 0;  // OpenBLAS thread count restored at shutdown
    std::unique_ptr<Codelets<float>> codelets_s;
    std::unique_ptr<Codelets<double>> codelets_d;
    std::unique_ptr<CudaContexts> cuda;
    std::unique_ptr<MpiState> mpi;  // RuntimeConfig::mpi (runtime/mpi.hpp)
    std::mutex kernels_mutex;
    std::map<std::string, std::unique_ptr<Kernel>> kernels;
    RuntimeState();
    ~RuntimeState();
};

/// The only way into a Runtime's internals (a friend of Runtime).
struct RuntimeAccess {
    static RuntimeState& state(const Runtime& rt) { return *rt.state_; }
};

/// The codelet table of precision T.
template <typename T> const Codelets<T>& codelets(const Runtime& rt);
/// The per-CUDA-worker contexts (handles, workspaces); empty without CUDA workers.
CudaContexts* cuda_contexts(const Runtime& rt);
/// A codelet owned by `rt`, created by define(kernel) on first use and kept until shutdown; `key` names
/// it (e.g. "batched_potrf_chunk<double>"). For feature modules.
Kernel& kernel(const Runtime& rt, const std::string& key, void (*define)(Kernel&));

}  // namespace starfact::detail

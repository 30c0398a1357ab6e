// Internal: what the complex factorizations' drivers share: the tasks of one call submitted into a Sequence on the
// workers the mapping allows (cholesky_complex.cpp, getrf_complex.cpp: their async:: forms, and the blocking ones
// on a Sequence of their own), or collected and waited for before the call returns (the QR, complex_qr_dag.hpp).
#pragma once
#include <starpu.h>

#include <string>
#include <vector>

#include "codelets/codelets.hpp"
#include "runtime/sequence_state.hpp"
#include "starfact/error.hpp"
#include "starfact/options.hpp"
#include "starfact/sequence.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

/// The tasks of one call, collected and waited for, on the workers opts.mapping allows (refusing, naming 'mapping', a
/// mapping the Runtime has no worker for).
struct ComplexTasks {
    TaskOptions o;
    std::vector<starpu_task*> tasks;
    ComplexTasks(const Runtime& rt, const char* function, const Options& opts) {
        rt.require_mapping(opts.mapping, function);
        o.mapping = opts.mapping;
        o.collect = &tasks;
    }
    void wait(const char* function) {
        for (starpu_task* t : tasks)
            if (starpu_task_wait(t) != 0)
                throw RuntimeError(std::string("starfact::") + function + ": starpu_task_wait failed");
        tasks.clear();
    }
};

/// The options of the tasks of one complex operation submitted into `seq` (A's Runtime's; InvalidArgument naming
/// 'seq' otherwise) on the workers opts.mapping allows (InvalidArgument naming 'mapping' when the Runtime has none).
inline TaskOptions sequence_task_options(const Runtime& rt, Sequence& seq, const Options& opts, const char* function) {
    require(&seq.runtime() == &rt, function, "seq", "belongs to another Runtime than the matrices");
    rt.require_mapping(opts.mapping, function);
    TaskOptions o;
    o.mapping = opts.mapping;
    o.sequence = &SequenceAccess::state(seq);
    return o;
}

/// Throws InvalidArgument naming `argument` when A is distributed over MPI ranks.
template <typename T>
void require_local(const char* function, const char* argument, const TileMatrix<T>& A) {
    require(!A.distributed(), function, argument,
            "is distributed over MPI ranks: the complex factorizations run on one process");
}

/// One int on the host, registered with StarPU for the tasks that report a failure into it (LAPACK's info).
class InfoVariable {
public:
    InfoVariable() {
        starpu_variable_data_register(&handle_, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(&info_), sizeof(int));
    }
    ~InfoVariable() {
        if (handle_) starpu_data_unregister(handle_);
    }
    InfoVariable(const InfoVariable&) = delete;
    InfoVariable& operator=(const InfoVariable&) = delete;
    starpu_data_handle_t handle() const { return handle_; }
    /// The value, once the tasks writing it have run (unregisters: call it once, last).
    int value() {
        starpu_data_unregister(handle_);  // brings info home
        handle_ = nullptr;
        return info_;
    }

private:
    int info_ = 0;
    starpu_data_handle_t handle_ = nullptr;
};

}  // namespace starfact::detail

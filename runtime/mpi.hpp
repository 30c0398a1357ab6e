// Internal: the MPI side of a Runtime started with RuntimeConfig::mpi (runtime/mpi.cpp), and what the
// distributed TileMatrix, the Sequence and the task submission use from it. <mpi.h> stays inside mpi.cpp:
// these declarations compile in every build; without MPI the functions that need it throw RuntimeError.
#pragma once
#include <starpu.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace starfact {
class Runtime;
}

namespace starfact::detail {

/// A started StarPU-MPI: this rank, the rank count, the tag counter, and the Runtime's own communicator
/// (a duplicate of MPI_COMM_WORLD for starfact's collectives, so they never meet StarPU-MPI's messages).
struct MpiState {
    int rank = 0, size = 1;
    bool finalize = false;               // MPI_Init_thread was called by the Runtime
    std::atomic<int64_t> next_tag{0};    // StarPU-MPI tags handed out so far
    void* comm = nullptr;                // MPI_Comm*, owned (mpi.cpp)
    ~MpiState();
};

/// Initializes MPI (unless the application did), then StarPU and StarPU-MPI with `conf`. Returns
/// starpu_init's status (0, -ENODEV, ...) and on success fills *out. Throws RuntimeError without MPI support
/// or when the application's MPI thread level is below MPI_THREAD_MULTIPLE.
int mpi_start(starpu_conf* conf, std::unique_ptr<MpiState>* out);
/// Waits for the communications of every rank, shuts StarPU-MPI and StarPU down, finalizes MPI if started here.
void mpi_stop(std::unique_ptr<MpiState>& state);
/// The MPI state of rt, or nullptr when it runs without MPI.
MpiState* mpi_state(const Runtime& rt);
void mpi_barrier(const Runtime& rt);

/// `count` consecutive StarPU-MPI tags, the same on every rank as long as every rank asks in the same order.
int64_t reserve_tags(const Runtime& rt, int64_t count);
/// Registers h with StarPU-MPI (tag, owning rank) and marks it as distributed (is_distributed()).
void mpi_register(starpu_data_handle_t h, int64_t tag, int owner);
/// Forgets what StarPU-MPI's cache knows of h (copies received, sends made): for data changed outside tasks.
void mpi_cache_flush(starpu_data_handle_t h);
/// Whether h was registered by mpi_register(): its tasks go through owner-computes insertion.
bool is_distributed(starpu_data_handle_t h);

/// Owner-computes insertion of `task` (built by an insert helper, not submitted): the rank that owns the
/// data the task writes runs it, the others post the sends and receives the task needs. On that rank,
/// submit_local(local) submits the task (cl_arg and flops moved over); the template `task` is destroyed.
void mpi_insert(starpu_task* task, int priority, const std::function<void(starpu_task*)>& submit_local);

/// Element-wise over the ranks: the smallest nonzero value, or 0 where every rank has 0 (LAPACK infos:
/// the first failing column wins). Collective.
void allreduce_first_nonzero(const Runtime& rt, std::vector<int>& values);
/// Every rank's `mine` (bytes), concatenated in rank order into *all; *offsets[r] is where rank r's part
/// starts (size()+1 entries). Collective.
void allgather_bytes(const Runtime& rt, const std::vector<char>& mine, std::vector<char>* all,
                     std::vector<size_t>* offsets);

}  // namespace starfact::detail

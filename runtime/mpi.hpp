// Internal: the MPI side of a Runtime started with RuntimeConfig::mpi (runtime/mpi.cpp), and what the
// distributed TileMatrix, the Sequence and the task submission use from it. <mpi.h> stays inside mpi.cpp:
// these declarations compile in every build; without MPI the functions that need it throw RuntimeError.
#pragma once
#include <starpu.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "starfact/tile_matrix.hpp"

namespace starfact {
class Runtime;
}

namespace starfact::detail {

/// A started StarPU-MPI: this rank, the rank count, the tag counter, and the Runtime's own communicator
/// (a duplicate of MPI_COMM_WORLD for starfact's collectives, so they never meet StarPU-MPI's messages).
struct MpiState {
    int rank = 0, size = 1;
    bool finalize = false;               // MPI_Init_thread was called by the Runtime
    int local_rank = 0, local_size = 1;  // among the ranks of this node (MPI_COMM_TYPE_SHARED)
    std::vector<int> node_of;            // every rank's node: the lowest world rank on it (share_node)
    std::string cores;                   // this rank's CPU share, as widen_cores left it (share_node)
    std::vector<int> gpus;               // CUDA devices this rank chose for its node share (share_node); empty: StarPU's
    std::atomic<int64_t> next_tag{0};    // StarPU-MPI tags handed out so far
    void* comm = nullptr;                // MPI_Comm*, owned (mpi.cpp)
    ~MpiState();
};

/// Cores [first, first + count) of a node of `online` cores for node-local rank `local_rank` of `local_size`.
struct CoreShare {
    int first = 0, count = 0;
};
/// The share of the node's cores a rank's StarPU threads should run on when the launcher bound the process to
/// `have` cores: the online cores split evenly among the node's ranks, in rank order; count 0 (keep the launcher's
/// mask) when `have` is at least that share. mpi_start widens a narrower mask (Open MPI's mpirun binds each rank
/// to one core when it starts at most two) to it.
CoreShare node_core_share(int have, int online, int local_rank, int local_size);
/// The node share of this rank (MPI builds; runtime/mpi_node.cpp): its node-local rank and size, its GPUs (a
/// rank's share of the node's devices, set as conf's explicit CUDA workers unless the environment chose them) and
/// its cores (widened to its share of the node when the launcher bound it narrower; conf->ncpus from that share).
void share_node(starpu_conf* conf, MpiState& s);
/// Initializes MPI (unless the application did), then StarPU and StarPU-MPI with `conf`. Ranks that share a node
/// share its GPUs: unless the environment names the devices (STARPU_WORKERS_CUDAID, STARPU_NCUDA, or
/// CUDA_VISIBLE_DEVICES set per rank), node-local rank r of L takes the visible devices r, r + L, r + 2L, ... (one
/// each when L is the device count; ranks beyond the device count share them round-robin), RuntimeConfig::ncuda
/// capping the count; CPU workers default to this rank's share of the cores, and StarPU binds no worker to a core
/// (every rank would bind its workers and its MPI thread to the same first cores); a process mask narrower than
/// that share (mpirun's default bind-to-core) is widened to it. Returns
/// starpu_init's status (0, -ENODEV, ...) and on success fills *out. Throws RuntimeError without MPI support
/// or when the application's MPI thread level is below MPI_THREAD_MULTIPLE.
int mpi_start(starpu_conf* conf, std::unique_ptr<MpiState>* out);
/// Waits for the communications of every rank, shuts StarPU-MPI and StarPU down, finalizes MPI if started here.
/// With several ranks it first checks that every rank is stopping (agree()); when they are not, or when an
/// exception unwinds this rank, it prints the rank and the reason on stderr and aborts the job (MPI_Abort)
/// instead of waiting in StarPU-MPI's shutdown barrier for ranks that will never get there.
void mpi_stop(std::unique_ptr<MpiState>& state);
/// The MPI state of rt, or nullptr when it runs without MPI.
MpiState* mpi_state(const Runtime& rt);
/// Runtime::barrier(): agree() over every rank, whose MPI_Allreduce no rank leaves before every rank entered it.
void mpi_barrier(const Runtime& rt);

/// `count` consecutive StarPU-MPI tags, the same on every rank as long as every rank asks in the same order.
int64_t reserve_tags(const Runtime& rt, int64_t count);
/// Registers h with StarPU-MPI (tag, owning rank) and marks it as distributed (is_distributed()).
void mpi_register(starpu_data_handle_t h, int64_t tag, int owner);
/// Sends `from` (on rank from_rank, which owns it or received it) to rank to_rank into `to` (which that rank owns),
/// with the message tag `tag` (to's own StarPU-MPI tag), at the send priority `priority`: StarPU-MPI's detached
/// point-to-point requests, ordered after the tasks and requests on the two handles submitted before. Every rank
/// may call it; only the two ranks post anything. A rank forwards data it received without a task.
void mpi_forward(const Runtime& rt, starpu_data_handle_t from, int from_rank, starpu_data_handle_t to, int to_rank,
                 int64_t tag, int priority);
/// The node of rank r (the lowest rank sharing its memory, MPI_COMM_TYPE_SHARED); r itself without MPI or when
/// each_rank_a_node_for_tests() is set.
int mpi_node_of(const Runtime& rt, int r);
/// Tests only: when set, mpi_node_of() takes every rank for a node of its own (what a run of one rank per node
/// does), so that one machine's ranks take the paths of several nodes. Set it around a test's calls.
std::atomic<bool>& each_rank_a_node_for_tests();
/// How many mpi_forward() messages this process has posted receives for, since it started (tests, diagnostics).
std::atomic<int64_t>& mpi_forwards_received();
/// Forgets what StarPU-MPI's cache knows of h (copies received, sends made): for data changed outside tasks.
void mpi_cache_flush(starpu_data_handle_t h);
/// Whether h was registered by mpi_register(): its tasks go through owner-computes insertion.
bool is_distributed(starpu_data_handle_t h);

/// Owner-computes insertion of `task` (built by an insert helper, not submitted): the rank that owns the
/// data the task writes runs it, the others post the sends and receives the task needs. On that rank,
/// submit_local(local) submits the task (cl_arg and flops moved over); the template `task` is destroyed.
/// `on_rank` >= 0: that rank runs the task instead (StarPU-MPI's STARPU_EXECUTE_ON_NODE): it receives every buffer
/// the task reads that it does not own, and sends every buffer the task writes back to its owner once the task ran
/// (the distributed LU's panel, docs/mpi.md).
void mpi_insert(starpu_task* task, int priority, int on_rank, const std::function<void(starpu_task*)>& submit_local);

/// One value that every rank must pass alike to a distributed call: a number, a flag, a grid, or a text (a
/// variant's name), compared through a hash and printed as it is.
struct Agreed {
    Agreed(const char* name, int64_t value) : name(name), value(value), text(std::to_string(value)) {}
    template <typename B, std::enable_if_t<std::is_same_v<B, bool>, int> = 0>
    Agreed(const char* name, B flag) : name(name), value(flag ? 1 : 0), text(flag ? "true" : "false") {}
    Agreed(const char* name, const Grid& grid);
    Agreed(const char* name, std::string text);
    const char* name;
    int64_t value;
    std::string text;
};

/// Checks that every rank makes the same distributed call (`function`) with the same `values`, and has created as
/// many distributed matrices and operations before it (the tag counter), before the call communicates: one
/// MPI_Allreduce of a fixed-size record (at most 12 values) on the Runtime's own communicator. Every collective of
/// starfact on that communicator starts with this check, so ranks in two different ones also meet and learn it.
/// On a mismatch, throws RuntimeError on every rank: "starfact::<function>: ranks disagree on n: rank 0 has 1000,
/// rank 1 has 1200" (the first value that differs; the operation when the ranks are in different calls). Aborts
/// the job (MPI_Abort, with a message on stderr) when called while an exception unwinds this rank: the other
/// ranks may never get there. Nothing without MPI or with one rank.
void agree(const Runtime& rt, const char* function, std::initializer_list<Agreed> values);
/// The StarPU-MPI tag of h, -1 for data not registered with StarPU-MPI.
int64_t mpi_tag(starpu_data_handle_t h);
/// Which distributed matrix A is, the same on every rank: the tag of its first tile (-1 when it has none).
template <typename T>
int64_t first_tag(const TileMatrix<T>& A) {
    return A.mt() > 0 && A.nt() > 0 ? mpi_tag(A.tile(0, 0)) : -1;
}

/// Sequence::wait's reduction of its distributed operations' infos, element-wise over the ranks: the smallest
/// nonzero value, or 0 where every rank has 0 (LAPACK infos: the first failing column wins). Collective (after
/// agree() on the number of values). While an exception unwinds this rank (a Sequence destroyed by it), the
/// values stay this rank's own and nothing is communicated: the other ranks may never get there.
void allreduce_first_nonzero(const Runtime& rt, std::vector<int>& values);
/// The element-wise largest of every rank's `values` (the same length on every rank, checked by agree() under
/// `function` with the length), in place on every rank. Collective.
void allreduce_max(const Runtime& rt, const char* function, std::vector<int64_t>& values);
/// Every rank's `mine` (bytes), concatenated in rank order into *all; *offsets[r] is where rank r's part
/// starts (size()+1 entries). Collective (TileMatrix::export_to, after agree()).
void allgather_bytes(const Runtime& rt, const std::vector<char>& mine, std::vector<char>* all,
                     std::vector<size_t>* offsets);

}  // namespace starfact::detail

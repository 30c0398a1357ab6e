// The MPI side of a Runtime (runtime/mpi.hpp): start and stop, tags, owner-computes insertion, collectives.
#include "runtime/mpi.hpp"

#include <climits>
#include <cstdlib>
#include <string>

#include "runtime/runtime_state.hpp"
#include "starfact/error.hpp"
#include "starfact/runtime.hpp"
#ifdef STARFACT_HAVE_MPI
#include <mpi.h>
#include <starpu_mpi.h>
#endif

namespace starfact {

bool built_with_mpi() {
#ifdef STARFACT_HAVE_MPI
    return true;
#else
    return false;
#endif
}

namespace detail {
namespace {

/// What a distributed handle's user data points to (the project sets no other user data on tiles).
char distributed_marker;

[[noreturn]] void no_mpi(const char* what) {
    throw RuntimeError(std::string("starfact: ") + what + " needs MPI, and this build of starfact has none");
}

#ifdef STARFACT_HAVE_MPI
MPI_Comm comm_of(const Runtime& rt) {
    MpiState* s = mpi_state(rt);
    if (!s) throw RuntimeError("starfact: a collective operation needs a Runtime started with RuntimeConfig::mpi");
    return *static_cast<MPI_Comm*>(s->comm);
}

void check_mpi(int ret, const char* what) {
    if (ret != MPI_SUCCESS) throw RuntimeError(std::string("starfact: ") + what + " failed (" + std::to_string(ret) + ")");
}
#endif

}  // namespace

MpiState::~MpiState() {
#ifdef STARFACT_HAVE_MPI
    delete static_cast<MPI_Comm*>(comm);
#endif
}

MpiState* mpi_state(const Runtime& rt) { return RuntimeAccess::state(rt).mpi.get(); }

int mpi_start(starpu_conf* conf, std::unique_ptr<MpiState>* out) {
#ifdef STARFACT_HAVE_MPI
    auto s = std::make_unique<MpiState>();
    int initialized = 0, provided = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
        check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
        s->finalize = true;
    } else {
        MPI_Query_thread(&provided);
    }
    // starfact's own collectives (wait(), export_to()) run on the application thread while StarPU-MPI's
    // progression thread communicates: that takes MPI_THREAD_MULTIPLE.
    if (provided < MPI_THREAD_MULTIPLE) {
        if (s->finalize) MPI_Finalize();
        throw RuntimeError("starfact::Runtime: MPI provides thread level " + std::to_string(provided) +
                           ", StarPU-MPI with starfact needs MPI_THREAD_MULTIPLE (initialize MPI with MPI_Init_thread)");
    }
    // StarPU-MPI keeps a core for its progression thread when ncpus is left to StarPU, and counts STARPU_NCPU
    // after that reservation (STARPU_NCPU=1 would leave no worker): an explicit STARPU_NCPU is the worker count.
    if (conf->ncpus == -1)
        if (const char* env = std::getenv("STARPU_NCPU")) conf->ncpus = std::atoi(env);
    const int ret = starpu_mpi_init_conf(nullptr, nullptr, 0, MPI_COMM_WORLD, conf);
    if (ret != 0) {
        if (s->finalize) MPI_Finalize();
        return ret;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->size);
    auto* comm = new MPI_Comm;
    MPI_Comm_dup(MPI_COMM_WORLD, comm);
    s->comm = comm;
    *out = std::move(s);
    return 0;
#else
    (void)conf;
    (void)out;
    no_mpi("RuntimeConfig::mpi");
#endif
}

void mpi_stop(std::unique_ptr<MpiState>& state) {
#ifdef STARFACT_HAVE_MPI
    starpu_mpi_shutdown();  // waits for every rank's communications, then shuts StarPU down
    MPI_Comm_free(static_cast<MPI_Comm*>(state->comm));
    const bool finalize = state->finalize;
    state.reset();
    if (finalize) MPI_Finalize();
#else
    state.reset();
#endif
}

void mpi_barrier(const Runtime& rt) {
#ifdef STARFACT_HAVE_MPI
    if (mpi_state(rt)) check_mpi(MPI_Barrier(comm_of(rt)), "MPI_Barrier");
#else
    (void)rt;
#endif
}

int64_t reserve_tags(const Runtime& rt, int64_t count) {
    MpiState* s = mpi_state(rt);
    if (!s) throw RuntimeError("starfact: distributed data needs a Runtime started with RuntimeConfig::mpi");
    return s->next_tag.fetch_add(count);
}

void mpi_register(starpu_data_handle_t h, int64_t tag, int owner) {
#ifdef STARFACT_HAVE_MPI
    starpu_mpi_data_register(h, tag, owner);
    starpu_data_set_user_data(h, &distributed_marker);
#else
    (void)h;
    (void)tag;
    (void)owner;
    no_mpi("a distributed matrix");
#endif
}

void mpi_cache_flush(starpu_data_handle_t h) {
#ifdef STARFACT_HAVE_MPI
    starpu_mpi_cache_flush(MPI_COMM_WORLD, h);
#else
    (void)h;
#endif
}

bool is_distributed(starpu_data_handle_t h) { return h && starpu_data_get_user_data(h) == &distributed_marker; }

void mpi_insert(starpu_task* task, int priority, const std::function<void(starpu_task*)>& submit_local) {
#ifdef STARFACT_HAVE_MPI
    const int n = STARPU_TASK_GET_NBUFFERS(task);
    std::vector<starpu_data_descr> data(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        data[i].handle = STARPU_TASK_GET_HANDLE(task, i);
        data[i].mode = STARPU_TASK_GET_MODE(task, i);
        if (!is_distributed(data[i].handle)) {
            task->destroy = 0;  // never submitted: StarPU's own destroy-after-run flag must be off
            starpu_task_destroy(task);
            throw RuntimeError(std::string("starfact: the ") + (task->cl->name ? task->cl->name : "?") +
                               " task mixes distributed tiles with data that is not distributed: this operation "
                               "does not support distributed matrices");
        }
    }
    starpu_codelet* cl = task->cl;
    // Both calls must see the same arguments: the executing rank, and the transfers, follow from the data.
    starpu_task* local = starpu_mpi_task_build(MPI_COMM_WORLD, cl, STARPU_DATA_MODE_ARRAY, data.data(), n,
                                               STARPU_PRIORITY, priority, 0);
    if (local) {
        local->cl_arg = task->cl_arg;
        local->cl_arg_size = task->cl_arg_size;
        local->cl_arg_free = task->cl_arg_free;
        local->flops = task->flops;
        local->callback_arg_free = 0;  // the callback argument is a Sequence's state, not ours to free
        task->cl_arg = nullptr;
        task->cl_arg_free = 0;
    }
    task->destroy = 0;  // never submitted: StarPU's own destroy-after-run flag must be off
    starpu_task_destroy(task);  // the template: frees its cl_arg unless moved, and its dynamic buffers
    auto post_build = [&] {
        starpu_mpi_task_post_build(MPI_COMM_WORLD, cl, STARPU_DATA_MODE_ARRAY, data.data(), n, STARPU_PRIORITY,
                                   priority, 0);
    };
    try {
        if (local) submit_local(local);  // on failure it destroys `local` and throws
    } catch (...) {
        post_build();
        throw;
    }
    post_build();
#else
    (void)priority;
    (void)submit_local;
    task->destroy = 0;
    starpu_task_destroy(task);
    no_mpi("a distributed matrix");
#endif
}

void allreduce_first_nonzero(const Runtime& rt, std::vector<int>& values) {
#ifdef STARFACT_HAVE_MPI
    if (values.empty()) return;
    for (int& v : values) v = v == 0 ? INT_MAX : v;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT, MPI_MIN, comm_of(rt)),
              "MPI_Allreduce");
    for (int& v : values) v = v == INT_MAX ? 0 : v;
#else
    (void)rt;
    (void)values;
#endif
}

void allgather_bytes(const Runtime& rt, const std::vector<char>& mine, std::vector<char>* all,
                     std::vector<size_t>* offsets) {
#ifdef STARFACT_HAVE_MPI
    const MPI_Comm comm = comm_of(rt);
    const int size = mpi_state(rt)->size;
    if (mine.size() > static_cast<size_t>(INT_MAX))
        throw RuntimeError("starfact: gathering " + std::to_string(mine.size()) +
                           " bytes from one rank exceeds MPI's int count (2^31 - 1)");
    const int count = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<size_t>(size)), displs(static_cast<size_t>(size));
    check_mpi(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm), "MPI_Allgather");
    offsets->assign(static_cast<size_t>(size) + 1, 0);
    for (int r = 0; r < size; ++r) (*offsets)[r + 1] = (*offsets)[r] + static_cast<size_t>(counts[r]);
    if (offsets->back() > static_cast<size_t>(INT_MAX))
        throw RuntimeError("starfact: gathering " + std::to_string(offsets->back()) +
                           " bytes exceeds MPI's int displacements (2^31 - 1)");
    for (int r = 0; r < size; ++r) displs[r] = static_cast<int>((*offsets)[r]);
    all->resize(offsets->back());
    check_mpi(MPI_Allgatherv(mine.data(), count, MPI_BYTE, all->data(), counts.data(), displs.data(), MPI_BYTE, comm),
              "MPI_Allgatherv");
#else
    (void)rt;
    (void)mine;
    (void)all;
    (void)offsets;
    no_mpi("gathering a distributed matrix");
#endif
}

}  // namespace detail
}  // namespace starfact

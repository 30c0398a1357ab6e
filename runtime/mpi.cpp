// The MPI side of a Runtime (runtime/mpi.hpp): start and stop, tags, owner-computes insertion, the ranks'
// agreement on their calls, collectives.
#include "runtime/mpi.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

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

/// The message of the last starfact exception created on this thread (note_error).
thread_local std::string last_error;

[[noreturn]] void no_mpi(const char* what) {
    throw RuntimeError(std::string("starfact: ") + what + " needs MPI, and this build of starfact has none");
}

/// A 62-bit FNV-1a hash: texts take part in the agreement's integers (62 bits: ~x never overflows below).
int64_t text_hash(const std::string& text) {
    uint64_t h = 14695981039346656037ull;
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    return static_cast<int64_t>(h >> 2);
}

/// "0-2, 5, 7-8".
std::string rank_list(const std::vector<int>& ranks) {
    std::string out;
    for (size_t i = 0; i < ranks.size();) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
        out += (out.empty() ? "" : ", ") + std::to_string(ranks[i]) + (j > i ? "-" + std::to_string(ranks[j]) : "");
        i = j + 1;
    }
    return out;
}

/// Every rank's text, grouped by value in the order of their first rank: "rank 0 has 1000, ranks 1-3 have 1200"
/// (`one`, `many`: the verbs). At most 8 values are named.
std::string per_rank(const std::vector<std::string>& texts, const char* one, const char* many) {
    std::vector<std::string> values;
    std::vector<std::vector<int>> ranks;
    for (size_t r = 0; r < texts.size(); ++r) {
        size_t k = 0;
        while (k < values.size() && values[k] != texts[r]) ++k;
        if (k == values.size()) {
            values.push_back(texts[r]);
            ranks.emplace_back();
        }
        ranks[k].push_back(static_cast<int>(r));
    }
    std::string out;
    const size_t shown = std::min<size_t>(values.size(), 8);
    for (size_t k = 0; k < shown; ++k)
        out += (k ? ", " : "") + std::string(ranks[k].size() == 1 ? "rank " : "ranks ") + rank_list(ranks[k]) + " " +
               (ranks[k].size() == 1 ? one : many) + " " + values[k];
    if (shown < values.size()) out += ", and " + std::to_string(values.size() - shown) + " other values on other ranks";
    return out;
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

/// Ends every rank of the job: this one cannot take part in what the others wait for. Prints the rank, the reason
/// and the error behind it: the exception being handled (a Runtime whose constructor failed), or with `unwinding` the
/// last starfact error of this thread (an exception is out of reach while it unwinds, and the application's handler
/// that would print it runs after the Runtime's destructor).
[[noreturn]] void abort_job(const MpiState& s, const std::string& reason, bool unwinding) {
    std::string text = "starfact: MPI rank " + std::to_string(s.rank) + " of " + std::to_string(s.size) + ": " + reason;
    if (const std::exception_ptr handled = std::current_exception()) {
        try {
            std::rethrow_exception(handled);
        } catch (const std::exception& e) {
            text += std::string(" (after: ") + e.what() + ")";
        } catch (...) {
        }
    } else if (unwinding) {
        text += last_error.empty() ? " (no starfact exception was raised on this thread)"
                                   : " (the last starfact error on this rank: " + last_error + ")";
    }
    text += "; aborting every rank (MPI_Abort) rather than leaving them waiting for this one\n";
    std::fputs(text.c_str(), stderr);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();  // MPI_Abort does not return
}

constexpr int kAgreedMax = 12;           // values of one agree() call
constexpr int kSlots = 3 + kAgreedMax;  // the call (hash), the tag counter, the value count, the values
constexpr int kTextMax = 96;            // characters of a rank's text in a report (a value, or the call's name)

/// The agreement on `s`'s communicator: empty when every rank makes the same call with the same values and the
/// same tag counter, else what differs (the same text on every rank). Collective: one MPI_Allreduce, and one
/// MPI_Allgather of fixed-size texts after a mismatch; fixed sizes, so that ranks in different calls match safely.
std::string disagreement(const MpiState& s, const char* function, std::initializer_list<Agreed> values) {
    if (values.size() > static_cast<size_t>(kAgreedMax))
        throw RuntimeError(std::string("starfact::") + function + ": agreement on more than " +
                           std::to_string(kAgreedMax) + " values");
    const MPI_Comm comm = *static_cast<MPI_Comm*>(s.comm);
    int64_t mine[kSlots] = {text_hash(function), s.next_tag.load(), static_cast<int64_t>(values.size())};
    int slot = 3;
    for (const Agreed& v : values) mine[slot++] = v.value;
    // The smallest of x and of ~x (= -x - 1, which reverses the order without overflow): min and max in one call.
    int64_t reduced[2 * kSlots];
    for (int k = 0; k < kSlots; ++k) {
        reduced[k] = mine[k];
        reduced[kSlots + k] = ~mine[k];
    }
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, reduced, 2 * kSlots, MPI_INT64_T, MPI_MIN, comm), "MPI_Allreduce");
    const auto differs = [&](int k) { return reduced[k] != ~reduced[kSlots + k]; };
    // What to report, from the reduced record: the same choice on every rank. The call first (the values of
    // different calls mean different things), then the values in order, then the history (the tag counter).
    int what = -1;
    if (differs(0) || differs(2)) {
        what = 0;
    } else {
        for (int k = 3; k < 3 + static_cast<int>(values.size()) && what < 0; ++k)
            if (differs(k)) what = k;
        if (what < 0 && differs(1)) what = 1;
    }
    if (what < 0) return {};
    const std::string text = what == 0 ? function : what == 1 ? std::to_string(mine[1]) : values.begin()[what - 3].text;
    std::vector<char> all(static_cast<size_t>(kTextMax) * s.size), own(kTextMax, '\0');
    std::memcpy(own.data(), text.data(), std::min<size_t>(text.size(), kTextMax - 1));
    check_mpi(MPI_Allgather(own.data(), kTextMax, MPI_CHAR, all.data(), kTextMax, MPI_CHAR, comm), "MPI_Allgather");
    std::vector<std::string> texts;
    for (int r = 0; r < s.size; ++r) texts.emplace_back(all.data() + static_cast<size_t>(r) * kTextMax);
    if (what == 0)
        return "ranks disagree on the operation: " + per_rank(texts, "is in", "are in") +
               " (every rank must make the same distributed calls in the same order; docs/mpi.md)";
    if (what == 1)
        return "ranks disagree on the distributed matrices and operations created so far (StarPU-MPI tags taken: " +
               per_rank(texts, "has", "have") + "; every rank must create them in the same order; docs/mpi.md)";
    return std::string("ranks disagree on ") + values.begin()[what - 3].name + ": " + per_rank(texts, "has", "have");
}
#endif

}  // namespace

void note_error(const char* message) noexcept {
    try {
        last_error = message;
    } catch (...) {
    }
}

Agreed::Agreed(const char* name, const Grid& grid)
    : name(name), value(static_cast<int64_t>(grid.p) * (int64_t(1) << 32) + grid.q),
      text(std::to_string(grid.p) + "x" + std::to_string(grid.q)) {}

Agreed::Agreed(const char* name, std::string text) : name(name), value(text_hash(text)), text(std::move(text)) {}

MpiState::~MpiState() {
#ifdef STARFACT_HAVE_MPI
    delete static_cast<MPI_Comm*>(comm);
#endif
}

MpiState* mpi_state(const Runtime& rt) { return RuntimeAccess::state(rt).mpi.get(); }

#if defined(STARFACT_HAVE_MPI) && defined(STARFACT_SIMULATION)
namespace {
// Under smpirun every simulated rank lives in one process, the simulator: the host copies of the tiles that the ranks
// receive would all be real allocations of it (4 ranks at n = 65536 outgrew 24 GiB). Nothing is computed, so host
// buffers of a tile's size or more share their pages (SimGrid's shared malloc: no memory, and SMPI copies no payload
// between shared buffers); smaller ones, StarPU-MPI's own messages among them, stay private. StarPU's simulated cost
// of pinning a host buffer (datawizard/malloc.c: 650 us per MiB unless STARPU_SIMGRID_CUDA_MALLOC_COST=0), which a
// hook bypasses, is kept as StarPU charges it.
constexpr size_t shared_from = size_t{4} << 20;

int simulated_host_malloc(unsigned, void** a, size_t size, int flags) {
    if ((flags & STARPU_MALLOC_PINNED) && starpu_get_env_number_default("STARPU_SIMGRID_CUDA_MALLOC_COST", 1))
        starpu_sleep(static_cast<float>(static_cast<double>(size) * 0.000650 / 1048576.0));
    *a = size >= shared_from ? smpi_shared_malloc(size, __FILE__, __LINE__) : malloc(size);
    return *a ? 0 : -ENOMEM;
}

int simulated_host_free(unsigned, void* a, size_t, int) {
    smpi_shared_free(a);  // SMPI's free: a shared buffer's mapping, or the private buffer
    return 0;
}
}  // namespace
#endif

int mpi_start(starpu_conf* conf, std::unique_ptr<MpiState>* out) {
#if defined(STARFACT_HAVE_MPI) && defined(STARFACT_SIMULATION)
    // Under smpirun (docs/simulation.md) StarPU's main has started MPI on the rank's SimGrid actor and runs this
    // program on another one, which reaches MPI through StarPU-MPI only: no MPI call here, one rank per node.
    auto s = std::make_unique<MpiState>();
    starpu_malloc_set_hooks(simulated_host_malloc, simulated_host_free);
    const int ret = starpu_mpi_init_conf(nullptr, nullptr, 0, MPI_COMM_WORLD, conf);
    if (ret != 0) return ret;
    starpu_mpi_comm_rank(MPI_COMM_WORLD, &s->rank);
    starpu_mpi_comm_size(MPI_COMM_WORLD, &s->size);
    s->comm = new MPI_Comm(MPI_COMM_WORLD);
    *out = std::move(s);
    return 0;
#elif defined(STARFACT_HAVE_MPI)
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
    share_node(conf, *s);
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
#if defined(STARFACT_HAVE_MPI) && defined(STARFACT_SIMULATION)
    starpu_mpi_shutdown();  // StarPU's main finalizes MPI
    state.reset();
#elif defined(STARFACT_HAVE_MPI)
    // starpu_mpi_shutdown waits in a barrier for every rank: only when every rank is stopping.
    if (state->size > 1) {
        if (std::uncaught_exceptions() > 0) abort_job(*state, "the Runtime is destroyed by an exception", true);
        std::string report;
        try {
            report = disagreement(*state, "~Runtime", {});
        } catch (const std::exception& e) {
            report = e.what();
        }
        if (!report.empty()) abort_job(*state, "starfact::~Runtime: " + report, false);
    }
    starpu_mpi_shutdown();  // waits for every rank's communications, then shuts StarPU down
    MPI_Comm_free(static_cast<MPI_Comm*>(state->comm));
    const bool finalize = state->finalize;
    state.reset();
    if (finalize) MPI_Finalize();
#else
    state.reset();
#endif
}

void mpi_barrier(const Runtime& rt) { agree(rt, "Runtime::barrier", {}); }

void agree(const Runtime& rt, const char* function, std::initializer_list<Agreed> values) {
#if defined(STARFACT_HAVE_MPI) && defined(STARFACT_SIMULATION)
    // Simulated ranks run alike (tools/simulate.sh): only the synchronization, through StarPU-MPI.
    (void)function, (void)values;
    const MpiState* s = mpi_state(rt);
    if (s && s->size > 1) starpu_mpi_barrier(MPI_COMM_WORLD);
#elif defined(STARFACT_HAVE_MPI)
    const MpiState* s = mpi_state(rt);
    if (!s || s->size == 1) return;
    if (std::uncaught_exceptions() > 0)
        abort_job(*s, std::string("starfact::") + function + " is called while an exception unwinds", true);
    const std::string report = disagreement(*s, function, values);
    if (!report.empty()) throw RuntimeError(std::string("starfact::") + function + ": " + report);
#else
    (void)rt;
    (void)function;
    (void)values;
#endif
}

int64_t mpi_tag(starpu_data_handle_t h) {
#ifdef STARFACT_HAVE_MPI
    if (is_distributed(h)) return static_cast<int64_t>(starpu_mpi_data_get_tag(h));
#else
    (void)h;
#endif
    return -1;
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

void mpi_forward(const Runtime& rt, starpu_data_handle_t from, int from_rank, starpu_data_handle_t to, int to_rank,
                 int64_t tag, int priority) {
#ifdef STARFACT_HAVE_MPI
    const int me = rt.mpi_rank();
    if (me == from_rank &&
        starpu_mpi_isend_detached_prio(from, to_rank, tag, priority, MPI_COMM_WORLD, nullptr, nullptr) != 0)
        throw RuntimeError("starfact: starpu_mpi_isend_detached_prio failed");
    if (me == to_rank) {
        if (starpu_mpi_irecv_detached(to, from_rank, tag, MPI_COMM_WORLD, nullptr, nullptr) != 0)
            throw RuntimeError("starfact: starpu_mpi_irecv_detached failed");
        ++mpi_forwards_received();
    }
#else
    (void)rt;
    (void)from;
    (void)from_rank;
    (void)to;
    (void)to_rank;
    (void)tag;
    (void)priority;
    no_mpi("a distributed matrix");
#endif
}

int mpi_node_of(const Runtime& rt, int r) {
    const MpiState* s = mpi_state(rt);
    if (!s || each_rank_a_node_for_tests().load() || r < 0 || static_cast<size_t>(r) >= s->node_of.size()) return r;
    return s->node_of[static_cast<size_t>(r)];
}

std::atomic<bool>& each_rank_a_node_for_tests() {
    static std::atomic<bool> set{false};
    return set;
}

std::atomic<int64_t>& mpi_forwards_received() {
    static std::atomic<int64_t> count{0};
    return count;
}

void mpi_cache_flush(starpu_data_handle_t h) {
#ifdef STARFACT_HAVE_MPI
    starpu_mpi_cache_flush(MPI_COMM_WORLD, h);
#else
    (void)h;
#endif
}

bool is_distributed(starpu_data_handle_t h) { return h && starpu_data_get_user_data(h) == &distributed_marker; }

void mpi_insert(starpu_task* task, int priority, int on_rank, const std::function<void(starpu_task*)>& submit_local) {
#ifdef STARFACT_HAVE_MPI
    const int n = STARPU_TASK_GET_NBUFFERS(task);
    std::vector<starpu_data_descr> data(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        data[i].handle = STARPU_TASK_GET_HANDLE(task, i);
        data[i].mode = STARPU_TASK_GET_MODE(task, i);
        if (!is_distributed(data[i].handle)) {
            const std::string name = task->cl->name ? task->cl->name : "?";  // read before the task is destroyed
            task->destroy = 0;  // never submitted: StarPU's own destroy-after-run flag must be off
            starpu_task_destroy(task);
            throw RuntimeError("starfact: the " + name +
                               " task mixes distributed tiles with data that is not distributed: this operation "
                               "does not support distributed matrices");
        }
    }
    starpu_codelet* cl = task->cl;
    // Both calls must see the same arguments: the executing rank, and the transfers, follow from the data (the
    // owner of what the task writes), or from on_rank.
    starpu_task* local =
        on_rank >= 0 ? starpu_mpi_task_build(MPI_COMM_WORLD, cl, STARPU_DATA_MODE_ARRAY, data.data(), n, STARPU_PRIORITY,
                                             priority, STARPU_EXECUTE_ON_NODE, on_rank, 0)
                     : starpu_mpi_task_build(MPI_COMM_WORLD, cl, STARPU_DATA_MODE_ARRAY, data.data(), n, STARPU_PRIORITY,
                                             priority, 0);
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
        if (on_rank >= 0)
            starpu_mpi_task_post_build(MPI_COMM_WORLD, cl, STARPU_DATA_MODE_ARRAY, data.data(), n, STARPU_PRIORITY,
                                       priority, STARPU_EXECUTE_ON_NODE, on_rank, 0);
        else
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
    (void)on_rank;
    (void)submit_local;
    task->destroy = 0;
    starpu_task_destroy(task);
    no_mpi("a distributed matrix");
#endif
}

void allreduce_first_nonzero(const Runtime& rt, std::vector<int>& values) {
#if defined(STARFACT_HAVE_MPI) && defined(STARFACT_SIMULATION)
    (void)rt, (void)values;  // a simulated run computes nothing: every info stays 0
#elif defined(STARFACT_HAVE_MPI)
    // Unwinding (a Sequence destroyed by an exception): nobody reads these infos, and the other ranks may never
    // get here. The Runtime's destructor ends the job, or, where every rank unwinds alike, every rank skips this.
    if (values.empty() || std::uncaught_exceptions() > 0) return;
    agree(rt, "Sequence::wait", {{"distributed operations", static_cast<int64_t>(values.size())}});
    for (int& v : values) v = v == 0 ? INT_MAX : v;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT, MPI_MIN, comm_of(rt)),
              "MPI_Allreduce");
    for (int& v : values) v = v == INT_MAX ? 0 : v;
#else
    (void)rt;
    (void)values;
#endif
}

void allreduce_max(const Runtime& rt, const char* function, std::vector<int64_t>& values) {
#if defined(STARFACT_HAVE_MPI) && !defined(STARFACT_SIMULATION)
    const MpiState* s = mpi_state(rt);
    if (!s || s->size == 1) return;
    agree(rt, function, {{"values", static_cast<int64_t>(values.size())}});
    if (values.size() > static_cast<size_t>(INT_MAX))
        throw RuntimeError(std::string("starfact::") + function + ": more than INT_MAX values to reduce");
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_MAX,
                            comm_of(rt)),
              "MPI_Allreduce");
#else
    (void)rt;
    (void)function;
    (void)values;
#endif
}

void allgather_bytes(const Runtime& rt, const std::vector<char>& mine, std::vector<char>* all,
                     std::vector<size_t>* offsets) {
#ifdef STARFACT_HAVE_MPI
    const MPI_Comm comm = comm_of(rt);
    const int size = mpi_state(rt)->size;
    agree(rt, "TileMatrix::export_to", {});
    // The sizes first, in 64 bits: every rank sees them all and refuses alike what MPI's int counts cannot take.
    const int64_t count = static_cast<int64_t>(mine.size());
    std::vector<int64_t> counts(static_cast<size_t>(size));
    check_mpi(MPI_Allgather(&count, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm), "MPI_Allgather");
    offsets->assign(static_cast<size_t>(size) + 1, 0);
    for (int r = 0; r < size; ++r) (*offsets)[r + 1] = (*offsets)[r] + static_cast<size_t>(counts[r]);
    all->resize(offsets->back());
    // MPI counts and displacements are ints: rounds of at most INT_MAX / size bytes per rank, each received into a
    // buffer of at most INT_MAX bytes and copied to its place.
    const int64_t chunk = std::max<int64_t>(1, INT_MAX / size);
    std::vector<int64_t> done(static_cast<size_t>(size), 0);
    std::vector<int> counts32(static_cast<size_t>(size)), displs(static_cast<size_t>(size));
    std::vector<char> round;
    for (;;) {
        int64_t total = 0;
        for (int r = 0; r < size; ++r) {
            counts32[r] = static_cast<int>(std::min(chunk, counts[r] - done[r]));
            displs[r] = static_cast<int>(total);
            total += counts32[r];
        }
        if (total == 0) break;  // the same on every rank: every rank knows every count
        round.resize(static_cast<size_t>(total));
        const int me = mpi_state(rt)->rank;
        check_mpi(MPI_Allgatherv(mine.data() + done[me], counts32[me], MPI_BYTE, round.data(), counts32.data(),
                                 displs.data(), MPI_BYTE, comm),
                  "MPI_Allgatherv");
        for (int r = 0; r < size; ++r) {
            std::memcpy(all->data() + (*offsets)[r] + done[r], round.data() + displs[r], counts32[r]);
            done[r] += counts32[r];
        }
    }
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

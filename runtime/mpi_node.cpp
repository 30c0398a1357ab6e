// The node share of an MPI rank (runtime/mpi.hpp): which of the node's GPUs and cores a rank of a multi-rank node
// takes, so that ranks on one node neither share a GPU nor crowd onto the core the launcher bound them to.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "runtime/mpi.hpp"
#include "starfact/error.hpp"
#include "starfact/runtime.hpp"

#ifdef STARFACT_HAVE_MPI
#include <mpi.h>
#include <sched.h>
#include <sys/sysinfo.h>
#endif

namespace starfact::detail {

#ifdef STARFACT_HAVE_MPI
namespace {

/// Unbound workers inherit the mask the launcher gave the process, and Open MPI's mpirun binds each rank to one
/// core when it starts two ranks or fewer (bind-to-core): every CUDA worker, the StarPU-MPI progression thread and
/// the application thread of the rank would then share that core, and the transfers stall for as long as the
/// progression thread waits for it (hundreds of milliseconds, measured: a 2-rank run 40x slower than one
/// process). A mask smaller than this rank's share of the node (the online cores split evenly among its ranks) is
/// widened to that share; a launcher's wider binding (bind-to-socket, --bind-to none, a PE count) is kept.
void widen_cores(MpiState& s) {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return;
    const int have = CPU_COUNT(&mask);
    const CoreShare share = node_core_share(have, std::min(get_nprocs(), CPU_SETSIZE), s.local_rank, s.local_size);
    if (share.count == 0) {
        s.cores = std::to_string(have) + " core(s)";
        return;
    }
    cpu_set_t wide;
    CPU_ZERO(&wide);
    for (int c = share.first; c < share.first + share.count; ++c) CPU_SET(c, &wide);
    if (sched_setaffinity(0, sizeof(wide), &wide) != 0) {
        s.cores = std::to_string(have) + " core(s) (the launcher's binding; widening it failed)";
        return;
    }
    s.cores = "cores " + std::to_string(share.first) + "-" + std::to_string(share.first + share.count - 1) +
              " (the launcher bound it to " + std::to_string(have) + ")";
}

}  // namespace

void share_node(starpu_conf* conf, MpiState& s) {
    MPI_Comm node;
    const int ret = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (ret != MPI_SUCCESS)
        throw RuntimeError("starfact: MPI_Comm_split_type failed (" + std::to_string(ret) + ")");
    MPI_Comm_rank(node, &s.local_rank);
    MPI_Comm_size(node, &s.local_size);
    int me = 0, size = 1, lowest = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&me, &lowest, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    s.node_of.assign(static_cast<size_t>(size), 0);
    MPI_Allgather(&lowest, 1, MPI_INT, s.node_of.data(), 1, MPI_INT, MPI_COMM_WORLD);
    // Also for a rank alone on its node: StarPU 1.3 binds its workers itself, but 1.4 keeps them within the
    // process's mask (STARPU_WORKERS_GETBIND), which mpirun may have narrowed to one core.
    widen_cores(s);
    if (s.local_size <= 1) return;
    if (!std::getenv("STARPU_WORKERS_NOBIND")) setenv("STARPU_WORKERS_NOBIND", "1", 1);
    const int ndev = conf->ncuda == 0 ? 0 : cuda_device_count();
    const bool chosen = std::getenv("STARPU_WORKERS_CUDAID") || std::getenv("STARPU_NCUDA");
    if (ndev > 0 && !chosen) {
        for (int d = s.local_rank % ndev; d < ndev && static_cast<int>(s.gpus.size()) < STARPU_NMAXWORKERS;
             d += s.local_size)
            s.gpus.push_back(d);
        if (conf->ncuda > 0 && conf->ncuda < static_cast<int>(s.gpus.size())) s.gpus.resize(conf->ncuda);
        conf->use_explicit_workers_cuda_gpuid = 1;
        for (size_t i = 0; i < s.gpus.size(); ++i) conf->workers_cuda_gpuid[i] = static_cast<unsigned>(s.gpus[i]);
        conf->ncuda = static_cast<int>(s.gpus.size());
    }
    if (conf->ncpus == -1 && !std::getenv("STARPU_NCPU")) {
        // This rank's cores, less one per GPU it drives and one for StarPU-MPI's progression thread.
        const int cores = static_cast<int>(std::thread::hardware_concurrency()) / s.local_size;
        conf->ncpus = std::max(1, cores - static_cast<int>(s.gpus.size()) - 1);
    }
}
#endif

CoreShare node_core_share(int have, int online, int local_rank, int local_size) {
    if (online < 1 || local_size < 1) return {};
    const int share = std::max(1, online / local_size);
    if (have >= share) return {};
    return {(local_rank * share) % online, std::min(share, online - (local_rank * share) % online)};
}

}  // namespace starfact::detail

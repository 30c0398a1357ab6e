// What the MPI test binaries (test_mpi, test_mpi_lu, test_mpi_qr) share: seeds and values every rank agrees on, grid
// names, the options of their runs (CPU workers), and their main's body, which holds one Runtime over the ranks and
// fails every rank when one rank fails (tests/main_mpi.cpp: the main of test_mpi_lu and test_mpi_qr).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tests/catch_session.hpp"
#include "tests/seeds.hpp"
#include "tests/support.hpp"

namespace starfact::test::mpi {

/// The next seed, the same on every rank (rank 0's: the ranks draw the same ones, as they run the same tests).
inline uint64_t shared_seed() {
    uint64_t seed = fresh_seed();
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    return seed;
}

/// Every rank's value of x, in rank order.
inline std::vector<int> gather_all(int x) {
    std::vector<int> all(static_cast<size_t>(runtime().mpi_size()));
    MPI_Allgather(&x, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
    return all;
}

inline std::string grid_name(const Grid& g) { return std::to_string(g.p) + "x" + std::to_string(g.q); }

/// The options of the distributed calls: CPU workers only (the Runtime has no CUDA worker).
inline Options cpu_only() { return on(Mapping::CpuOnly); }

/// Between MPI_Init_thread and MPI_Finalize: a Runtime over every rank (CPU workers only) in `holder`, the Catch
/// session, then the worst status of every rank, so that a failure on one rank fails them all.
inline int run_tests(int argc, char** argv, std::unique_ptr<Runtime>& holder) {
    RuntimeConfig cfg;
    cfg.ncuda = 0;
    cfg.mpi = true;
    holder = std::make_unique<Runtime>(cfg);
    if (holder->mpi_rank() == 0) {
        print_seed_banner();
        std::printf("%s\n", holder->describe().c_str());
    }
    int rc = run_catch_session(argc, argv);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    holder.reset();
    return rc;
}

}  // namespace starfact::test::mpi

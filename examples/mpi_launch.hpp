// MPI's start and end for the distributed runs of starpu_lu and starpu_qr (examples/starpu_lu_mpi.cpp,
// examples/starpu_qr_mpi.cpp; starpu_chol has its own session, examples/starpu_chol/mpi_session.hpp).
#pragma once
#include <cstdlib>

#include "starfact/config.hpp"
#if defined(STARFACT_HAVE_MPI) && defined(STARFACT_SIMULATION)
#include <starpu_mpi.h>
// The SMPI build (docs/simulation.md, "Several nodes"): under smpirun StarPU's main has started MPI and runs this
// program on a SimGrid actor that is not the rank's, so MPI only through StarPU-MPI, which knows the rank; simulated
// ranks run alike and compute nothing (no collective of the program's own, no checks).
#define STARFACT_SMPI 1
#elif defined(STARFACT_HAVE_MPI)
#include <mpi.h>
#endif

namespace starfact::examples {

/// Whether a launcher (mpirun, ...) started several ranks of this process (one rank under mpirun runs as without
/// it); under smpirun, whether StarPU-MPI has several.
inline bool mpi_launched() {
#ifdef STARFACT_SMPI
    return starpu_mpi_world_size() > 1;
#elif defined(STARFACT_HAVE_MPI)
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS"})
        if (const char* value = std::getenv(v)) return std::atoi(value) > 1;
#endif
    return false;
}

#ifdef STARFACT_HAVE_MPI
/// MPI started (MPI_Init_thread, MPI_THREAD_MULTIPLE) and this rank's place; under smpirun StarPU's main has started
/// it. finalize() at the end; abort_all() ends every rank (a failure one rank may have seen alone).
struct MpiLaunch {
    int rank = 0, size = 1;
    MpiLaunch(int* argc, char*** argv) {
#ifdef STARFACT_SMPI
        (void)argc, (void)argv;
        rank = starpu_mpi_world_rank();
        size = starpu_mpi_world_size();
#else
        int provided = 0;
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
    }
    void finalize() const {
#ifndef STARFACT_SMPI
        MPI_Finalize();
#endif
    }
    [[noreturn]] void abort_all() const {
#ifndef STARFACT_SMPI
        MPI_Abort(MPI_COMM_WORLD, 1);
#endif
        std::exit(1);  // (SimGrid ends the simulation)
    }
};
#endif

}  // namespace starfact::examples

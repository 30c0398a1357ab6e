// MPI for starpu_chol's distributed runs (mpi_session.hpp).
#include "examples/starpu_chol/mpi_session.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "starfact/config.hpp"
#ifdef STARFACT_HAVE_MPI
#include <mpi.h>
#endif
#if defined(STARFACT_HAVE_MPI) && defined(STARFACT_SIMULATION)
#include <starpu_mpi.h>
// Under smpirun (docs/simulation.md) StarPU's main has started MPI and runs this program on a SimGrid actor that is
// not the rank's: MPI only through StarPU-MPI, which knows the rank already; simulated ranks run alike (no checks).
#define STARFACT_SMPI 1
#endif

namespace starfact::chol_driver {

MpiSession::MpiSession(int* argc, char*** argv, bool wanted) {
#ifdef STARFACT_SMPI
    (void)argc, (void)argv, (void)wanted;
    active_ = true;
    rank_ = starpu_mpi_world_rank();
    size_ = starpu_mpi_world_size();
#elif defined(STARFACT_HAVE_MPI)
    const char* launched[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"};
    for (const char* v : launched) wanted = wanted || std::getenv(v) != nullptr;
    if (!wanted) return;
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    active_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
#else
    (void)argc, (void)argv, (void)wanted;
#endif
}

MpiSession::~MpiSession() {
#if defined(STARFACT_HAVE_MPI) && !defined(STARFACT_SMPI)
    if (active_) MPI_Finalize();
#endif
}

bool MpiSession::all(bool ok, std::string* failed) const {
    std::vector<int> oks(static_cast<size_t>(size_), ok ? 1 : 0);
#ifdef STARFACT_HAVE_MPI
    int mine = ok ? 1 : 0;
#ifdef STARFACT_SMPI
    std::fill(oks.begin(), oks.end(), mine);
#else
    if (active_) MPI_Allgather(&mine, 1, MPI_INT, oks.data(), 1, MPI_INT, MPI_COMM_WORLD);
#endif
#endif
    for (int r = 0; r < size_; ++r)
        if (!oks[r]) *failed += (failed->empty() ? "" : ",") + std::to_string(r);
    return failed->empty();
}

bool MpiSession::all_or_first_says(const std::string& error) const {
    std::string failed;
    if (all(error.empty(), &failed)) return true;
    const int first = std::stoi(failed.substr(0, failed.find(',')));
    const bool everywhere = std::count(failed.begin(), failed.end(), ',') + 1 == size_;
    if (first == rank_) {
        const std::string who = everywhere ? "" : "rank " + std::to_string(rank_) + ": ";
        std::fprintf(stderr, "starpu_chol: %s%s\n", who.c_str(), error.c_str());
    }
    return false;
}

void MpiSession::abort() const {
#if defined(STARFACT_HAVE_MPI) && !defined(STARFACT_SMPI)
    MPI_Abort(MPI_COMM_WORLD, 1);
#endif
    std::exit(1);
}

int64_t sum_over_ranks(const Runtime& rt, int64_t v) {
#ifdef STARFACT_SMPI
    (void)rt;  // no collective from this actor: this rank's count
#elif defined(STARFACT_HAVE_MPI)
    if (rt.mpi()) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
#else
    (void)rt;
#endif
    return v;
}

}  // namespace starfact::chol_driver

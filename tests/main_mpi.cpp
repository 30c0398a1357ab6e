// Test main for the MPI test binaries without a mode of their own (test_mpi_lu, test_mpi_qr): MPI_Init_thread, one
// Runtime over every rank (CPU workers only) for the whole binary, the Catch session with every rank's worst status
// (tests/mpi_support.hpp: run_tests), MPI_Finalize.
#include <mpi.h>

#include <memory>

#include "tests/mpi_support.hpp"
#include "tests/support.hpp"

namespace {
std::unique_ptr<starfact::Runtime> g_runtime;  // test-binary scope only
}

starfact::Runtime& starfact::test::runtime() { return *g_runtime; }

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    const int rc = starfact::test::mpi::run_tests(argc, argv, g_runtime);
    MPI_Finalize();
    return rc;
}

// starpu_qr's settings and run modes (examples/starpu_qr.cpp: the flags, main and the run in one process;
// examples/starpu_qr_mpi.cpp: the run over MPI ranks). See docs/qr.md.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "starfact/starfact.hpp"
#include "support/driver_common.hpp"
#include "support/reference_qr.hpp"

namespace starfact::qr_driver {

/// The shared flags (support/driver_common.hpp) and the QR driver's own.
struct Settings : support::DriverFlags {
    int64_t m = -1, nrhs = 1, ib = 0;
    support::QrOp op = support::QrOp::Geqrf;
    QrTree tree;
    bool compare = false, priorities = true;
    std::vector<QrTree> trees;
    Grid grid{0, 0};  ///< --grid PxQ (0 x 0: none given; under mpirun the most square one)
};

/// The flops of one run of s.op on an m x n matrix.
inline double op_flops(const Settings& s, int64_t m, int64_t n) {
    switch (s.op) {
        case support::QrOp::Geqrf: return geqrf_flops(m, n);
        case support::QrOp::Gels: return gels_flops(m, n, s.nrhs);
        case support::QrOp::Orgqr: return orgqr_flops(m, n);
    }
    return geqrf_flops(m, n);
}

/// The driver's random m x n matrix A and, with nrhs > 0, the ldb x nrhs B (seeds s.seed and s.seed + 1), as host
/// arrays; both empty in a simulated run (docs/simulation.md), which computes nothing: each run only makes the tiles
/// valid where they live.
template <typename T>
void random_problem(const Settings& s, int64_t m, int64_t n, int64_t ldb, int64_t nrhs, std::vector<T>& A,
                    std::vector<T>& B) {
    if (!support::kRunComputes) return;
    A.resize(static_cast<size_t>(m * n));
    B.resize(static_cast<size_t>(ldb * nrhs));
    random_matrix<T>(m, n, A.data(), m, s.seed);
    if (nrhs > 0) random_matrix<T>(m, nrhs, B.data(), ldb, s.seed + 1);
}

/// The run over MPI ranks (several ranks, or --grid): MPI_Init_thread, a Runtime with StarPU-MPI, s.op on an m x n
/// matrix distributed 2D block-cyclically over s.grid (default: the most square grid of the ranks) with the trees
/// that run distributed, the checks on the gathered results on every rank, one table from rank 0; no vendor
/// baseline. Returns the exit status, the same on every rank.
int run_distributed(const Settings& s, int* argc, char*** argv);

}  // namespace starfact::qr_driver

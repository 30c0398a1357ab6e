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

/// --grid's value: "PxQ" with positive integers P and Q (at most 65536); throws std::invalid_argument naming --grid.
inline Grid parse_grid(const std::string& v) {
    const auto x = v.find('x');
    auto integer = [](const std::string& t, long* out) {  // t: the whole of a decimal integer
        char* end = nullptr;
        *out = std::strtol(t.c_str(), &end, 10);
        return !t.empty() && *end == '\0';
    };
    long p = 0, q = 0;
    const bool ok = x != std::string::npos && integer(v.substr(0, x), &p) && integer(v.substr(x + 1), &q);
    if (!ok || p < 1 || q < 1 || p > 65536 || q > 65536)
        throw std::invalid_argument("--grid needs PxQ with positive integers P and Q, e.g. 2x2 (got '" + v + "')");
    return Grid{static_cast<int>(p), static_cast<int>(q)};
}

/// Whether a launcher (mpirun, ...) started several ranks of this process (examples/starpu_qr_mpi.cpp).
bool mpi_launched();
/// The run over MPI ranks (several ranks, or --grid): MPI_Init_thread, a Runtime with StarPU-MPI, s.op on an m x n
/// matrix distributed 2D block-cyclically over s.grid (default: the most square grid of the ranks) with the trees
/// that run distributed, the checks on the gathered results on every rank, one table from rank 0; no vendor
/// baseline. Returns the exit status, the same on every rank.
int run_distributed(const Settings& s, int* argc, char*** argv);

}  // namespace starfact::qr_driver

// starpu_lu's settings and run modes (examples/starpu_lu.cpp: the flags and main; examples/starpu_lu_factor.hpp: the
// factorization run of every precision; examples/starpu_lu_gesv.cpp: the mixed-precision solve of --factor-prec). See
// docs/starpu_lu.md.
#pragma once
#include <cstdint>

#include "starfact/starfact.hpp"
#include "support/driver_common.hpp"

namespace starfact::lu_driver {

/// The shared flags (support/driver_common.hpp) and the LU driver's own.
struct Settings : support::DriverFlags {
    int64_t nrhs = 1;
    bool priorities = true;
    bool solve = false;                  ///< --factor-prec given: the refined gesv mode
    Precision factor = Precision::Fp64;  ///< --factor-prec
    double cond = 0;                     ///< --cond K (0: the random matrix)
    bool always_low = false;             ///< --always-low: Refinement::always_low
    bool array = false;                  ///< --array: the LAPACK-array form on host arrays
    double refine_budget = -1;           ///< --refine-budget X: Refinement::time_budget (< 0: its default)
    Grid grid{0, 0};                     ///< --grid PxQ (0 x 0: none given; under mpirun lu_grid(ranks))
};

/// starpu_lu --factor-prec P: gesv(A, piv, B, opts, report, refine) with opts.factor = P on the random matrix (or,
/// with --cond K, U diag(s) V^T of condition K), per run the report; then starfact's double gesv on the same data
/// and, on a GPU, cuSOLVER's dgetrf + dgetrs and its IRS gesv at the same lowest precision, with the ratios.
int run_gesv(const Settings& s, Runtime& rt, Mapping mapping);

/// starpu_lu --prec c|z: the complex LU (starfact/lu_complex.hpp) of a random complex matrix with its residual, a
/// solve with the factors (getrs) and its residual, then the vendor's c/z getrf on the same matrix: run_factor
/// (examples/starpu_lu_factor.hpp, the run of every precision) on std::complex<float> or std::complex<double>
/// (examples/starpu_lu_complex.cpp).
int run_complex(const Settings& s, Runtime& rt, Mapping mapping);

/// The run over MPI ranks (several ranks, or --grid): MPI_Init_thread, a Runtime with StarPU-MPI, getrf on a matrix
/// distributed over s.grid (default: Q >= 4 P, as square as that allows), the residuals, one table from rank 0.
int run_distributed(const Settings& s, int* argc, char*** argv);

}  // namespace starfact::lu_driver

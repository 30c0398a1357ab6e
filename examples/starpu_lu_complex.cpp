// starpu_lu --prec c|z: the complex tile LU with partial pivoting (starfact/lu_complex.hpp) of a random complex matrix
// (real and imaginary parts uniform in [-0.5, 0.5]), through the run of every precision (examples/starpu_lu_factor.hpp:
// the real run's table, timing, solve, vendor baseline and exit statuses; cusolverDnXgetrf on a CUDA_C_32F / CUDA_C_64F
// device copy with a GPU, else one LAPACKE c/z getrf call; GFLOP/s count 4x the real flops).
#include <complex>

#include "examples/starpu_lu.hpp"
#include "examples/starpu_lu_factor.hpp"

namespace starfact::lu_driver {

int run_complex(const Settings& s, Runtime& rt, Mapping mapping) {
    return s.prec == 'c' ? run_factor<std::complex<float>>(s, rt, mapping)
                         : run_factor<std::complex<double>>(s, rt, mapping);
}

}  // namespace starfact::lu_driver

// Complex matrices for the drivers' --prec c|z (starpu_chol, starpu_lu; not part of the library API): the random
// Hermitian positive definite and general test matrices on the host, the host residuals of a Hermitian factor, an LU
// and a solve, the GPU baselines (cusolverDnXpotrf and cusolverDnXgetrf on CUDA_C_32F / CUDA_C_64F device copies) and
// the Hermitian factor's residual computed on the device. The LAPACKE baselines of every precision are reference.hpp's;
// support::DeviceCopy (driver_common.hpp) holds the device copy of any precision.
#pragma once
#include <complex>
#include <cstdint>
#include <type_traits>

#include "kernels/scalar.hpp"
#include "starfact/tile_matrix.hpp"
#include "support/reference.hpp"

namespace starfact::support {

/// Fills the n x n column-major A (both triangles) with a Hermitian positive definite matrix: entry (i, j) below the
/// diagonal has real and imaginary parts uniform in [-0.5, 0.5] from (seed, i, j) (kernels/random_entry.hpp), entry
/// (j, i) is its conjugate, and the diagonal is real: uniform in [-0.5, 0.5] plus `shift`. shift = n makes it
/// positive definite and well conditioned (each row's off-diagonal moduli sum to less than (n - 1) / sqrt(2)).
/// Entry (i, j) depends only on (seed, i, j). Multithreaded.
template <typename C>
void random_hermitian(int64_t n, C* A, int64_t lda, uint64_t seed, double shift);

/// Fills the m x n column-major A with entries whose real and imaginary parts are uniform in [-0.5, 0.5] from
/// (seed, i, j). Multithreaded.
template <typename C>
void random_complex(int64_t m, int64_t n, C* A, int64_t lda, uint64_t seed);

/// ||A - L L^H||_1 / (||A||_1 n eps) for A Hermitian (lower triangle read) and L lower (upper part ignored), both
/// n x n with leading dimension n. Multithreaded BLAS: call while no tasks run (Runtime::Paused).
template <typename C>
double hermitian_factor_residual(int64_t n, const C* A, const C* L);

/// ||P A - L U||_1 / (||A||_1 n eps) for the general n x n A and getrf's output LU (L unit lower, U upper) with
/// LAPACK's 1-based ipiv, both with leading dimension n. Multithreaded BLAS: call while no tasks run.
template <typename C>
double lu_factor_residual(int64_t n, const C* A, const C* LU, const int64_t* ipiv);

/// ||A X - B||_1 / (||A||_1 ||X||_1 n eps) for the n x n A (every entry read: a Hermitian A stored whole) and the
/// n x nrhs X and B, leading dimension n. Multithreaded BLAS: call while no tasks run.
template <typename C>
double complex_solve_residual(int64_t n, int64_t nrhs, const C* A, const C* X, const C* B);

#ifdef STARFACT_HAVE_CUDA
/// The complex matrix of a run in the memory of one GPU (`device`): cusolverDnXpotrf and cusolverDnXgetrf on
/// CUDA_C_32F / CUDA_C_64F copies of it, timed with CUDA events, and the Hermitian factor's residual computed there
/// with cuBLAS (cublas<c|z>herk).
template <typename C>
class ComplexDeviceReference {
public:
    /// A copy of the host matrix A (n x n, ld = n, both triangles) on `device`.
    ComplexDeviceReference(int64_t n, const C* A_host, int device = 0);
    ~ComplexDeviceReference();
    ComplexDeviceReference(const ComplexDeviceReference&) = delete;
    ComplexDeviceReference& operator=(const ComplexDeviceReference&) = delete;

    int device() const { return device_; }
    /// The original matrix on the device (column-major, ld = n).
    const C* original() const { return orig_; }
    /// cusolverDnXpotrf (lower) on a fresh device copy per run; `check`: the factor residual of the last run.
    /// `host_path`: what a user with the matrix in pinned host memory does instead: each timed run copies it to the
    /// GPU, factors it and copies it back (no residual).
    VendorRun cusolver_potrf(int warmup, int repeat, bool check, bool host_path = false);
    /// cusolverDn<c|z>potrf + cusolverDn<c|z>potri (lower) on a fresh device copy per run, timed together with CUDA
    /// events; `check`: the inverse residual (starfact::potri_residual) of the last run, on the host against A_host
    /// (the matrix this reference was made from).
    VendorRun cusolver_potri(int warmup, int repeat, bool check, const C* A_host);
    /// cusolverDnXgetrf (partial pivoting) on a fresh device copy per run (no residual).
    VendorRun cusolver_getrf(int warmup, int repeat);
    /// ||A - L L^H||_1 / (||A||_1 n eps) with L exported from the tiles into device memory (DeviceReference's
    /// residual_of for a Hermitian A).
    double residual_of(const TileMatrix<C>& L);

private:
    double hermitian_residual_of_work();  // of the factor held in work_
    int64_t n_;
    int device_ = 0;
    C* orig_ = nullptr;  // A, never modified
    C* work_ = nullptr;  // the factorization
    C* tmp_ = nullptr;   // A - L L^H, allocated on first use
};

/// The device reference of a run's scalar type (support::DeviceCopy holds one): DeviceReference for float and double,
/// ComplexDeviceReference for std::complex<float> and std::complex<double>.
template <typename T>
using DeviceReferenceOf =
    std::conditional_t<detail::is_complex_v<T>, ComplexDeviceReference<T>, DeviceReference<T>>;
#endif

}  // namespace starfact::support

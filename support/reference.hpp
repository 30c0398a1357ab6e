// Vendor baselines and large-n accuracy checks used by starpu_chol and starpu_lu (not part of the library API).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "starfact/tile_matrix.hpp"

namespace starfact::support {

struct VendorRun {
    std::string name;            // "cusolver" or "lapacke"
    std::vector<double> seconds;  // timed runs
    int info = 0;
    double residual = -1;         // < 0: not computed
};

/// LAPACKE potrf (lower; multithreaded OpenBLAS) on a copy of the host matrix, one call per run; with `check`, the
/// factor's residual (support::cholesky_residual, host_checks.hpp) of the last run. T: float, double,
/// std::complex<float> (A Hermitian) or std::complex<double>.
template <typename T>
VendorRun lapacke_potrf(int64_t n, const T* A, int warmup, int repeat, bool check);

/// LAPACKE potrf + potri (multithreaded OpenBLAS) on a copy of the host matrix, one pair of calls per run;
/// `check`: the inverse residual (potri_residual) of the last run. T: float, double, std::complex<float> (A
/// Hermitian) or std::complex<double>.
template <typename T>
VendorRun lapacke_potri(int64_t n, const T* A, int warmup, int repeat, bool check);

/// LAPACKE getrf (multithreaded OpenBLAS) on a copy of the host matrix, one call per run; with `check`, the
/// residual ||P A - L U||_1 / (||A||_1 n eps) of the last run. T: float, double, std::complex<float> or
/// std::complex<double>.
template <typename T>
VendorRun lapacke_getrf(int64_t n, const T* A, int warmup, int repeat, bool check);

#ifdef STARFACT_HAVE_CUDA
/// The matrix of a run in the memory of one GPU (`device`, a CUDA ordinal; every call runs there, whatever the
/// calling thread's current device): cusolverDnXpotrf and the other vendor baselines timed with CUDA events, and
/// residuals computed on the device with cuBLAS (fast for n in the tens of thousands).
template <typename T>
class DeviceReference {
public:
    /// A copy of the host matrix A (n x n, ld = n) on `device`.
    DeviceReference(int64_t n, const T* A_host, int device = 0);
    /// random_symmetric(seed, shift) generated on `device`, without a host array and without a kept original:
    /// each vendor run regenerates it (untimed), and residuals are not available. Takes n^2 entries of device
    /// memory instead of 2 n^2 (3 n^2 while a residual is computed).
    DeviceReference(int64_t n, uint64_t seed, double shift, int device = 0);
    ~DeviceReference();
    DeviceReference(const DeviceReference&) = delete;
    DeviceReference& operator=(const DeviceReference&) = delete;

    /// The CUDA device the baselines run on.
    int device() const { return device_; }
    /// cusolverDnXpotrf on the device copy. `host_path`: what a user with the matrix in (pinned) host
    /// memory does instead: each timed run copies the whole matrix to the GPU, factors it and copies it back.
    VendorRun cusolver_potrf(int warmup, int repeat, bool check, bool host_path = false);
    /// cusolverDn<t>potrf + cusolverDn<t>potri on the device copy (device-resident data), timed together with
    /// CUDA events; `check`: the inverse residual of the last run.
    VendorRun cusolver_potri(int warmup, int repeat, bool check);
    /// ||A X - I||_1 / (||A||_1 ||X||_1 n eps) for the inverse X (lower triangle) held in the tiles.
    double inverse_residual_of(const TileMatrix<T>& X);
    /// cusolverDnXgetrf (partial pivoting) on the device copy, timed with CUDA events (no residual).
    VendorRun cusolver_getrf(int warmup, int repeat);
    /// The original matrix on the device (column-major, ld = n); nullptr for a generated reference.
    const T* original() const { return orig_; }
    /// ||A - L L^T||_1 / (||A||_1 n eps) with L taken from the tiles (exported on the device).
    double residual_of(const TileMatrix<T>& L);
    /// The same for a factor in device memory (column-major, leading dimension ld >= n).
    double residual_of_device(const T* L, int64_t ld);

private:
    double residual_of_work();          // of the factor held in work_
    double inverse_residual_of_work();  // of the inverse held in work_ (lower triangle)
    void restore(void* stream);         // work_ := A (a copy of orig_, or generated again), on `stream`
    T* scratch();                       // n x n device scratch for the residuals, allocated on first use
    int64_t n_;
    int device_ = 0;
    uint64_t seed_ = 0;  // generated reference (orig_ null): random_symmetric(seed_, shift_)
    double shift_ = 0;
    T* orig_ = nullptr;  // A, never modified (null for a generated reference)
    T* work_ = nullptr;  // factorization / L
    T* tmp_ = nullptr;   // A - L L^T
};

/// cuBLAS gemm rate (TFLOP/s, median of `repeat` n x n x n products on the device): the ceiling that
/// factorization rates are compared with.
template <typename T>
double cublas_gemm_tflops(int64_t n, int repeat = 5);
#endif

}  // namespace starfact::support

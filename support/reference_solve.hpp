// Vendor baselines of the double solve (starpu_chol --op posv --factor-prec, starpu_lu --factor-prec): what a user
// would call instead of starfact's mixed-precision posv or gesv, on the same matrix and right-hand sides, with the
// backward error of each answer.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "starfact/cholesky.hpp"

namespace starfact::support {

struct VendorSolve {
    std::string name;
    std::vector<double> seconds;  // timed runs
    int info = 0;
    int iterations = 0;           // refinement iterations of the last run (IRS: < 0 when it fell back)
    double backward_error = -1;   // ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf), largest column; < 0: not computed
};

class Table;

/// A vendor baseline of a driver's solve: its name and the call that times it.
struct VendorBaseline {
    std::string name;
    std::function<VendorSolve()> run;
};
/// Runs each baseline in turn and notes in `table` its median, info, iterations, backward error and the ratio
/// vendor / starfact against `ours` (seconds), appending the median and ratio to `summary`; a baseline that throws
/// (one that does not take the problem, e.g. IRS with several right-hand sides) is noted as not applicable.
void report_vendor_solves(const Table& table, const std::vector<VendorBaseline>& baselines, double ours,
                          std::string& summary);

#ifdef STARFACT_HAVE_CUDA
/// cusolverDnXpotrf + cusolverDnXpotrs in double on a device copy of A (n x n, full symmetric, ld = n) and B
/// (n x nrhs), timed with CUDA events (the copies restored untimed), on CUDA device `device`.
VendorSolve cusolver_dposv(int64_t n, int64_t nrhs, const double* A, const double* B, int warmup, int repeat,
                           int device = 0);
/// What a user with the matrix in host memory does with cuSOLVER: A (full n x n) and B copied from the host arrays to
/// the device, cusolverDnXpotrf + cusolverDnXpotrs, X copied back; the copies are inside the time (wall clock; the
/// device buffers are allocated once, outside it).
VendorSolve cusolver_dposv_host(int64_t n, int64_t nrhs, const double* A, const double* B, int warmup, int repeat,
                                int device = 0);
/// cusolverDnXgetrf + cusolverDnXgetrs in double on a device copy of A (n x n general, ld = n) and B (n x nrhs), timed
/// with CUDA events (the copies restored untimed), on CUDA device `device`.
VendorSolve cusolver_dgesv(int64_t n, int64_t nrhs, const double* A, const double* B, int warmup, int repeat,
                           int device = 0);
/// cusolverDnIRSXgesv (LU with iterative refinement to double) with `lowest` as its lowest precision (Fp32, Tf32,
/// Bf16, Fp16), classical refinement or GMRES (`gmres`), on the same data.
VendorSolve cusolver_irs_gesv(int64_t n, int64_t nrhs, const double* A, const double* B, Precision lowest,
                              bool gmres, int warmup, int repeat, int device = 0);
#endif

/// The n x n SPD test matrix Q diag(s) Q^T of condition number `cond` (ld = n, both triangles): Q orthogonal, from the
/// QR of a matrix of uniform random entries (`seed`), s geometric from 1 down to 1/cond. On the GPU (cuSOLVER
/// geqrf/orgqr, cuBLAS) when `gpu` and the build has CUDA, else LAPACK on the host (O(n^3): small orders).
std::vector<double> conditioned_spd(int64_t n, double cond, uint64_t seed, bool gpu);

/// The n x n nonsymmetric test matrix U diag(s) V^T of 2-norm condition number `cond` (ld = n): U and V orthogonal,
/// from the QRs of two matrices of uniform random entries (`seed`), s geometric from 1 down to 1/cond. On the GPU
/// when `gpu` and the build has CUDA, else LAPACK on the host (O(n^3): small orders).
std::vector<double> conditioned_general(int64_t n, double cond, uint64_t seed, bool gpu);

/// The backward error of X for A X = B on the host (A full n x n, ld = n; X, B n x nrhs, ld = n).
double host_backward_error(int64_t n, int64_t nrhs, const double* A, const double* X, const double* B);

}  // namespace starfact::support

// The log-determinant's tile kernel: the logarithms of a diagonal tile's diagonal entries added to a running sum,
// and the first entry that is not a positive finite number (the CPU loop here, the CUDA launcher in
// kernels/logdet_diagonal.cu). No StarPU here: the codelet (codelets/logdet_tile.cpp) passes the pointers.
#pragma once
#include <cmath>
#include <cstdint>
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace starfact::detail {

/// The running state of a log-determinant over the diagonal tiles of a Cholesky factor L: the sum of log L(i, i)
/// over the entries seen so far (in double, whatever the precision of L), and the global index (1-based) of the
/// first diagonal entry that is not a positive finite number (0: none; the sum then stops growing).
struct DiagonalLogSum {
    double sum;
    int64_t first_bad;
};

/// Adds the n diagonal entries of the column-major tile A (leading dimension ld), global diagonal entries
/// offset + 1 .. offset + n, to *acc; `first`: *acc starts from {0, 0} (it is not read). Sums logarithms, never
/// multiplies entries, so that no product overflows or underflows.
template <typename T>
void add_diagonal_logs(const T* A, int64_t ld, int n, int64_t offset, bool first, DiagonalLogSum* acc) {
    if (first) *acc = DiagonalLogSum{0.0, 0};
    if (acc->first_bad != 0) return;
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
        const double d = static_cast<double>(A[i + static_cast<int64_t>(i) * ld]);
        if (!(d > 0.0) || !std::isfinite(d)) {  // NaN fails d > 0
            acc->first_bad = offset + i + 1;
            return;
        }
        sum += std::log(d);
    }
    acc->sum += sum;
}

#ifdef STARFACT_HAVE_CUDA
namespace gpu {
/// add_diagonal_logs on the device: A and acc in device memory, one thread block on `stream`.
template <typename T>
void launch_add_diagonal_logs(const T* A, int ld, int n, int64_t offset, bool first, DiagonalLogSum* acc,
                              cudaStream_t stream);
}  // namespace gpu
#endif

}  // namespace starfact::detail

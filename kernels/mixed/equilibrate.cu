// CUDA forms of the equilibration kernels (equilibrate.hpp).
#include <cmath>
#include <cstdint>

#include "kernels/mixed/equilibrate.hpp"

namespace starfact::detail::gpu {
namespace {

constexpr int kRows = 256, kCols = 64;

/// Row maxima of |X|: one thread per row over kCols columns (consecutive threads read consecutive rows:
/// coalesced), then r[a] by an atomic max on the bit patterns (non-negative doubles order as their bits do, and a
/// positive NaN's bits exceed infinity's: NaN wins).
__global__ void row_max_kernel(int m, int n, const double* X, int ldx, double* r) {
    const int a = blockIdx.x * kRows + threadIdx.x;
    if (a >= m) return;
    const int first = blockIdx.y * kCols, last = min(n, first + kCols);
    long long top = 0;
    for (int b = first; b < last; ++b) {
        double v = fabs(X[a + static_cast<int64_t>(b) * ldx]);
        if (isnan(v)) v = __longlong_as_double(0x7ff8000000000000LL);  // a positive quiet NaN
        top = max(top, __double_as_longlong(v));
    }
    atomicMax(reinterpret_cast<unsigned long long*>(&r[a]), static_cast<unsigned long long>(top));
}

__global__ void inverse_power_of_two_kernel(int n, double* s) {
    for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < n; b += gridDim.x * blockDim.x) {
        const double v = s[b];
        if (!isfinite(v)) {
            s[b] = nan("");
        } else if (v == 0) {
            s[b] = 1;
        } else {
            int e = 0;
            const double f = frexp(v, &e);
            if (f == 0.5) --e;
            s[b] = ldexp(1.0, -(e < -1021 ? -1021 : e > 1023 ? 1023 : e));
        }
    }
}

}  // namespace

cudaError_t row_max(int m, int n, const double* X, int ldx, double* r, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    const dim3 grid((m + kRows - 1) / kRows, (n + kCols - 1) / kCols);
    row_max_kernel<<<grid, kRows, 0, stream>>>(m, n, X, ldx, r);
    return cudaGetLastError();
}

cudaError_t inverse_power_of_two(int n, double* s, cudaStream_t stream) {
    if (n <= 0) return cudaSuccess;
    const int blocks = (n + 255) / 256;
    inverse_power_of_two_kernel<<<blocks < 1024 ? blocks : 1024, 256, 0, stream>>>(n, s);
    return cudaGetLastError();
}

}  // namespace starfact::detail::gpu

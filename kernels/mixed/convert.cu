// CUDA forms of the mixed-precision solve's element-wise tile kernels (convert.hpp): grid-stride loops over
// column-major tiles; the row sums one thread per row (coalesced down the columns), the column sums one warp
// per column.
#include <cmath>

#include "kernels/mixed/convert.hpp"

namespace starfact::detail::gpu {
namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t count) {
    const int64_t b = (count + kThreads - 1) / kThreads;
    return static_cast<int>(b < 4096 ? (b > 0 ? b : 1) : 4096);
}

__global__ void diag_scale_kernel(int n, const double* A, int lda, double* d) {
    for (int a = blockIdx.x * blockDim.x + threadIdx.x; a < n; a += gridDim.x * blockDim.x) {
        const double v = A[a + static_cast<int64_t>(a) * lda];
        d[a] = (v > 0 && isfinite(v)) ? rsqrt(v) : nan("");
    }
}

__global__ void to_low_kernel(int m, int n, const double* X, int ldx, const double* dr, const double* dc, int cs,
                              float* F, int ldf) {
    const int64_t count = static_cast<int64_t>(m) * n;
    for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < count;
         e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int a = static_cast<int>(e % m), b = static_cast<int>(e / m);
        const double c = cs == 2 ? dc[b] : cs == 1 ? dr[b] : 1.0;
        F[a + static_cast<int64_t>(b) * ldf] = static_cast<float>(dr[a] * X[a + static_cast<int64_t>(b) * ldx] * c);
    }
}

__global__ void add_low_kernel(int m, int n, const float* Z, int ldz, const double* dr, double* X, int ldx) {
    const int64_t count = static_cast<int64_t>(m) * n;
    for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < count;
         e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int a = static_cast<int>(e % m), b = static_cast<int>(e / m);
        X[a + static_cast<int64_t>(b) * ldx] += dr[a] * static_cast<double>(Z[a + static_cast<int64_t>(b) * ldz]);
    }
}

__global__ void row_sums_kernel(int m, int n, const double* A, int lda, bool diagonal, double* s) {
    for (int a = blockIdx.x * blockDim.x + threadIdx.x; a < m; a += gridDim.x * blockDim.x) {
        double sum = 0;
        if (!diagonal) {
            for (int b = 0; b < n; ++b) sum += fabs(A[a + static_cast<int64_t>(b) * lda]);
        } else {
            for (int b = 0; b <= a && b < n; ++b) sum += fabs(A[a + static_cast<int64_t>(b) * lda]);
            for (int b = a + 1; b < m; ++b) sum += fabs(A[b + static_cast<int64_t>(a) * lda]);
        }
        s[a] += sum;
    }
}

__global__ void column_sums_kernel(int m, int n, const double* A, int lda, double* t) {
    const int lane = threadIdx.x % 32, warps = blockDim.x / 32;
    for (int b = blockIdx.x * warps + threadIdx.x / 32; b < n; b += gridDim.x * warps) {
        double sum = 0;
        for (int a = lane; a < m; a += 32) sum += fabs(A[a + static_cast<int64_t>(b) * lda]);
        for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
        if (lane == 0) t[b] += sum;
    }
}

}  // namespace

cudaError_t diag_scale(int n, const double* A, int lda, double* d, cudaStream_t stream) {
    if (n <= 0) return cudaSuccess;
    diag_scale_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, A, lda, d);
    return cudaGetLastError();
}

cudaError_t to_low(int m, int n, const double* X, int ldx, const double* dr, const double* dc, ColumnScale cs,
                   float* F, int ldf, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    to_low_kernel<<<blocks_for(static_cast<int64_t>(m) * n), kThreads, 0, stream>>>(m, n, X, ldx, dr, dc,
                                                                                   static_cast<int>(cs), F, ldf);
    return cudaGetLastError();
}

cudaError_t add_low(int m, int n, const float* Z, int ldz, const double* dr, double* X, int ldx, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    add_low_kernel<<<blocks_for(static_cast<int64_t>(m) * n), kThreads, 0, stream>>>(m, n, Z, ldz, dr, X, ldx);
    return cudaGetLastError();
}

cudaError_t abs_sums(int m, int n, const double* A, int lda, bool diagonal, double* s, double* t,
                     cudaStream_t stream) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    row_sums_kernel<<<blocks_for(m), kThreads, 0, stream>>>(m, n, A, lda, diagonal, s);
    if (t) column_sums_kernel<<<blocks_for(static_cast<int64_t>(n) * 32), kThreads, 0, stream>>>(m, n, A, lda, t);
    return cudaGetLastError();
}

}  // namespace starfact::detail::gpu

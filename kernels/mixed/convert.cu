// CUDA forms of the mixed-precision solve's element-wise tile kernels (convert.hpp): grid-stride loops over
// column-major tiles; the conversion of A with its sums of |A| in one pass (to_low_sums_kernel).
#include <algorithm>
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

constexpr int kSumRows = 32, kSumGroups = 8, kSumCols = 256;

/// F := float(D_rows X D_cols) (+ shift on the diagonal of a diagonal tile) and the sums of |X| in one pass: one
/// warp reads 32 rows of a column (coalesced), reduces them for the column sum (t[b], atomically, over the row
/// blocks), and each thread keeps its row's sum over the block's columns (reduced over the block's warps, then
/// s[a], atomically). Diagonal: X's lower triangle is stored; s gets the row sums of the symmetric tile (the stored
/// row part b <= a and the strict column part a > b).
template <bool Diagonal>
__global__ void to_low_sums_kernel(int m, int n, const double* X, int ldx, const double* dr, const double* dc,
                                   double shift, float* F, int ldf, double* s, double* t) {
    __shared__ double partial[kSumGroups][kSumRows];
    const int a = blockIdx.x * kSumRows + threadIdx.x;
    const int first = blockIdx.y * kSumCols, last = min(n, first + kSumCols);
    const double ra = a < m ? dr[a] : 0.0;
    double row = 0;
    for (int b = first + threadIdx.y; b < last; b += kSumGroups) {
        double v = 0;
        if (a < m) {
            v = X[a + static_cast<int64_t>(b) * ldx];
            F[a + static_cast<int64_t>(b) * ldf] = static_cast<float>(ra * v * dc[b] + (Diagonal && a == b ? shift : 0.0));
        }
        const double av = fabs(v);
        row += Diagonal ? (b <= a ? av : 0.0) : av;
        double col = Diagonal ? (a > b ? av : 0.0) : av;
        for (int o = 16; o > 0; o /= 2) col += __shfl_down_sync(0xffffffffu, col, o);
        if (threadIdx.x == 0) atomicAdd(Diagonal ? &s[b] : &t[b], col);
    }
    partial[threadIdx.y][threadIdx.x] = row;
    __syncthreads();
    if (threadIdx.y == 0 && a < m) {
        double sum = 0;
        for (int g = 0; g < kSumGroups; ++g) sum += partial[g][threadIdx.x];
        atomicAdd(&s[a], sum);
    }
}

/// Column maxima of |dr[a] X[a][b]|: one warp per (32-row block, column), reduced by shuffles, then s[b] by an
/// atomic max on the bit patterns (non-negative doubles order as their bits do, and a NaN's bits exceed infinity's:
/// NaN wins, as cpu::column_max says).
__global__ void column_max_kernel(int m, int n, const double* X, int ldx, const double* dr, double* s) {
    const int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (b >= n) return;
    double top = 0;
    for (int a = blockIdx.x * 32 + threadIdx.x; a < m; a += gridDim.x * 32) {
        double v = fabs(dr[a] * X[a + static_cast<int64_t>(b) * ldx]);
        if (isnan(v)) v = __longlong_as_double(0x7ff8000000000000LL);  // a positive quiet NaN
        top = __longlong_as_double(max(__double_as_longlong(top), __double_as_longlong(v)));
    }
    for (int o = 16; o > 0; o /= 2) {
        const double other = __shfl_down_sync(0xffffffffu, top, o);
        top = __longlong_as_double(max(__double_as_longlong(top), __double_as_longlong(other)));
    }
    if (threadIdx.x == 0)
        atomicMax(reinterpret_cast<unsigned long long*>(&s[b]), static_cast<unsigned long long>(__double_as_longlong(top)));
}

__global__ void power_of_two_kernel(int n, double* s) {
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
            s[b] = ldexp(1.0, e < -1021 ? -1021 : e > 1023 ? 1023 : e);
        }
    }
}

__global__ void to_low_scaled_kernel(int m, int n, const double* X, int ldx, const double* dr, const double* s,
                                     float* F, int ldf) {
    const int64_t count = static_cast<int64_t>(m) * n;
    for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < count;
         e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int a = static_cast<int>(e % m), b = static_cast<int>(e / m);
        F[a + static_cast<int64_t>(b) * ldf] = static_cast<float>(dr[a] * X[a + static_cast<int64_t>(b) * ldx] / s[b]);
    }
}

__global__ void add_low_scaled_kernel(int m, int n, const float* Z, int ldz, const double* dr, const double* s,
                                      double* X, int ldx) {
    const int64_t count = static_cast<int64_t>(m) * n;
    for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < count;
         e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int a = static_cast<int>(e % m), b = static_cast<int>(e / m);
        X[a + static_cast<int64_t>(b) * ldx] += dr[a] * s[b] * static_cast<double>(Z[a + static_cast<int64_t>(b) * ldz]);
    }
}

}  // namespace

cudaError_t diag_scale(int n, const double* A, int lda, double* d, cudaStream_t stream) {
    if (n <= 0) return cudaSuccess;
    diag_scale_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, A, lda, d);
    return cudaGetLastError();
}

cudaError_t to_low_sums(int m, int n, const double* X, int ldx, const double* dr, const double* dc, bool diagonal,
                        double shift, float* F, int ldf, double* s, double* t, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    const dim3 grid((m + kSumRows - 1) / kSumRows, (n + kSumCols - 1) / kSumCols), block(kSumRows, kSumGroups);
    if (diagonal)
        to_low_sums_kernel<true><<<grid, block, 0, stream>>>(m, n, X, ldx, dr, dr, shift, F, ldf, s, s);
    else
        to_low_sums_kernel<false><<<grid, block, 0, stream>>>(m, n, X, ldx, dr, dc, 0.0, F, ldf, s, t);
    return cudaGetLastError();
}

cudaError_t column_max(int m, int n, const double* X, int ldx, const double* dr, double* s, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    constexpr int kCols = 8;  // warps per block, one column each
    const int row_blocks = (m + 32 * 16 - 1) / (32 * 16);  // each warp reads up to 16 x 32 rows
    const dim3 grid(row_blocks, (n + kCols - 1) / kCols), block(32, kCols);
    column_max_kernel<<<grid, block, 0, stream>>>(m, n, X, ldx, dr, s);
    return cudaGetLastError();
}

cudaError_t power_of_two(int n, double* s, cudaStream_t stream) {
    if (n <= 0) return cudaSuccess;
    power_of_two_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, s);
    return cudaGetLastError();
}

cudaError_t to_low_scaled(int m, int n, const double* X, int ldx, const double* dr, const double* s, float* F,
                          int ldf, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    to_low_scaled_kernel<<<blocks_for(static_cast<int64_t>(m) * n), kThreads, 0, stream>>>(m, n, X, ldx, dr, s, F, ldf);
    return cudaGetLastError();
}

cudaError_t add_low_scaled(int m, int n, const float* Z, int ldz, const double* dr, const double* s, double* X,
                           int ldx, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    add_low_scaled_kernel<<<blocks_for(static_cast<int64_t>(m) * n), kThreads, 0, stream>>>(m, n, Z, ldz, dr, s, X,
                                                                                            ldx);
    return cudaGetLastError();
}

namespace {
/// Sum of squares of a tile: one warp per column slice (coalesced reads), each thread's sum reduced by shuffles
/// and added atomically once per warp.
template <bool Diagonal>
__global__ void sum_squares_kernel(int m, int n, const float* F, int ldf, double* out) {
    const int lane = threadIdx.x, warps = gridDim.x * blockDim.y;
    double sum = 0;
    for (int b = blockIdx.x * blockDim.y + threadIdx.y; b < n; b += warps)
        for (int a = (Diagonal ? b : 0) + lane; a < m; a += 32) {
            const double v = F[a + static_cast<int64_t>(b) * ldf];
            sum += (Diagonal && a > b ? 2.0 : 1.0) * v * v;
        }
    for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
    if (lane == 0) atomicAdd(out, sum);
}
}  // namespace

cudaError_t sum_squares(int m, int n, const float* F, int ldf, bool diagonal, double* out, cudaStream_t stream) {
    cudaError_t e = cudaMemsetAsync(out, 0, sizeof(double), stream);
    if (e != cudaSuccess || m <= 0 || n <= 0) return e;
    constexpr int kWarps = 8;
    const dim3 block(32, kWarps), grid((n + kWarps - 1) / kWarps);
    if (diagonal) sum_squares_kernel<true><<<grid, block, 0, stream>>>(m, n, F, ldf, out);
    else sum_squares_kernel<false><<<grid, block, 0, stream>>>(m, n, F, ldf, out);
    return cudaGetLastError();
}

namespace {
/// Y := To(X) element by element: one thread per element of a column slice (coalesced), a grid-stride loop over
/// the columns.
template <typename From, typename To>
__global__ void cast_kernel(int m, int n, const From* X, int ldx, To* Y, int ldy) {
    for (int b = blockIdx.y; b < n; b += gridDim.y)
        for (int a = blockIdx.x * blockDim.x + threadIdx.x; a < m; a += gridDim.x * blockDim.x)
            Y[a + static_cast<int64_t>(b) * ldy] = static_cast<To>(X[a + static_cast<int64_t>(b) * ldx]);
}
template <typename From, typename To>
cudaError_t cast(int m, int n, const From* X, int ldx, To* Y, int ldy, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    const dim3 grid(static_cast<unsigned>(std::min(blocks_for(m), 64)), static_cast<unsigned>(std::min(n, 65535)));
    cast_kernel<From, To><<<grid, kThreads, 0, stream>>>(m, n, X, ldx, Y, ldy);
    return cudaGetLastError();
}
}  // namespace

cudaError_t widen(int m, int n, const float* F, int ldf, double* X, int ldx, cudaStream_t stream) {
    return cast(m, n, F, ldf, X, ldx, stream);
}
cudaError_t narrow(int m, int n, const double* X, int ldx, float* F, int ldf, cudaStream_t stream) {
    return cast(m, n, X, ldx, F, ldf, stream);
}

}  // namespace starfact::detail::gpu

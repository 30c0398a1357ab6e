// CUDA forms of the mixed-precision Hermitian solve's conversion kernels (convert_complex.hpp), on the layout of the
// real ones (convert.cu): complex entries as double2 / float2 (std::complex's layout).
#include <algorithm>
#include <cmath>

#include "kernels/mixed/convert_complex.hpp"

namespace starfact::detail::gpu {
namespace {

constexpr int kThreads = 256;

__global__ void diag_scale_pairs_kernel(int n, const double2* A, int lda, double* d2) {
    for (int a = blockIdx.x * blockDim.x + threadIdx.x; a < n; a += gridDim.x * blockDim.x) {
        const double v = A[a + static_cast<int64_t>(a) * lda].x;
        const double d = (v > 0 && isfinite(v)) ? rsqrt(v) : nan("");
        d2[2 * a] = d;
        d2[2 * a + 1] = d;
    }
}

constexpr int kSumRows = 32, kSumGroups = 8, kSumCols = 256;

/// F := complex<float>(D_rows X D_cols) and the sums of |X| in one pass, as the real to_low_sums_kernel: one warp
/// reads 32 rows of a column (coalesced), reduces them for the column sum (t[b], atomically over the row blocks),
/// each thread keeps its row's sum over the block's columns (reduced over the block's warps, then s[a]). Diagonal:
/// the lower triangle of X is stored; F gets it, a real diagonal (+ shift) and zeros above; s the row sums of the
/// Hermitian tile (the stored row part b <= a and the strict column part a > b).
template <bool Diagonal>
__global__ void to_low_sums_kernel(int m, int n, const double2* X, int ldx, const double* dr2, const double* dc2,
                                   double shift, float2* F, int ldf, double* s, double* t) {
    __shared__ double partial[kSumGroups][kSumRows];
    const int a = blockIdx.x * kSumRows + threadIdx.x;
    const int first = blockIdx.y * kSumCols, last = min(n, first + kSumCols);
    const double ra = a < m ? dr2[2 * a] : 0.0;
    double row = 0;
    for (int b = first + threadIdx.y; b < last; b += kSumGroups) {
        double av = 0;
        if (a < m) {
            const double2 x = X[a + static_cast<int64_t>(b) * ldx];
            const double c = dc2[2 * b];
            float2 f;
            if (Diagonal && a < b) {
                f = make_float2(0.0f, 0.0f);
            } else if (Diagonal && a == b) {
                f = make_float2(static_cast<float>(ra * x.x * c + shift), 0.0f);
                av = fabs(x.x);
            } else {
                f = make_float2(static_cast<float>(ra * x.x * c), static_cast<float>(ra * x.y * c));
                av = hypot(x.x, x.y);
            }
            F[a + static_cast<int64_t>(b) * ldf] = f;
        }
        row += av;
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

}  // namespace

cudaError_t diag_scale_pairs(int n, const std::complex<double>* A, int lda, double* d2, cudaStream_t stream) {
    if (n <= 0) return cudaSuccess;
    const int blocks = static_cast<int>(std::min<int64_t>(4096, (n + kThreads - 1) / kThreads));
    diag_scale_pairs_kernel<<<blocks, kThreads, 0, stream>>>(n, reinterpret_cast<const double2*>(A), lda, d2);
    return cudaGetLastError();
}

cudaError_t to_low_sums_complex(int m, int n, const std::complex<double>* X, int ldx, const double* dr2,
                                const double* dc2, bool diagonal, double shift, std::complex<float>* F, int ldf,
                                double* s, double* t, cudaStream_t stream) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    const dim3 grid((m + kSumRows - 1) / kSumRows, (n + kSumCols - 1) / kSumCols), block(kSumRows, kSumGroups);
    const double2* x = reinterpret_cast<const double2*>(X);
    float2* f = reinterpret_cast<float2*>(F);
    if (diagonal)
        to_low_sums_kernel<true><<<grid, block, 0, stream>>>(m, n, x, ldx, dr2, dr2, shift, f, ldf, s, s);
    else
        to_low_sums_kernel<false><<<grid, block, 0, stream>>>(m, n, x, ldx, dr2, dc2, 0.0, f, ldf, s, t);
    return cudaGetLastError();
}

}  // namespace starfact::detail::gpu

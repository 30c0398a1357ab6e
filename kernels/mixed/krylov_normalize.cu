// krylov_normalize.hpp on CUDA: one block column per right-hand side, its factor computed by every thread from the
// k + 2 inner products (at most a tile's width), the column scaled (or zeroed) in one pass.
#include "kernels/mixed/krylov_normalize.hpp"

namespace starfact::detail::gpu {
namespace {

constexpr int kThreads = 256;

__global__ void krylov_normalize_kernel(int m, double* X, int ldx, const double* h, int ldh, int k,
                                        const double* mask, double sign) {
    const int j = blockIdx.y;
    const double s = krylov_column_factor(h + static_cast<long long>(j) * ldh, k, mask[j], sign);
    double* x = X + static_cast<long long>(j) * ldx;
    for (int r = blockIdx.x * kThreads + threadIdx.x; r < m; r += gridDim.x * kThreads)
        x[r] = s != 0 ? x[r] * s : 0.0;  // a zero factor clears the column (NaN included)
}

}  // namespace

cudaError_t krylov_normalize(int m, int g, double* X, int ldx, const double* h, int ldh, int k, const double* mask,
                             double sign, cudaStream_t stream) {
    if (m <= 0 || g <= 0) return cudaSuccess;
    const int blocks = (m + kThreads - 1) / kThreads;
    krylov_normalize_kernel<<<dim3(blocks < 64 ? blocks : 64, g), kThreads, 0, stream>>>(m, X, ldx, h, ldh, k, mask,
                                                                                        sign);
    return cudaGetLastError();
}

}  // namespace starfact::detail::gpu

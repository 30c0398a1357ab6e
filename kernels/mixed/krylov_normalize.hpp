// The flexible GMRES's normalisation of a new Krylov block on the device (codelets/krylov.cpp), so that both passes
// of its Gram-Schmidt run without the host: for every column j of a block of g columns, from the second pass's
// inner products h (column j: h[0..k] against the earlier vectors, h[k + 1] the vector's squared norm before that
// pass), ||v_j||^2 = h[k + 1] - sum_{l <= k} h[l]^2 and v_j := sign v_j / ||v_j||; zero where mask[j] is 0 or the
// norm is not positive. A CPU form (plain loops) and a CUDA form (asynchronous on `stream`). No StarPU here.
#pragma once

#include <cmath>

#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace starfact::detail {

#ifdef STARFACT_HAVE_CUDA
namespace gpu {
cudaError_t krylov_normalize(int m, int g, double* X, int ldx, const double* h, int ldh, int k, const double* mask,
                             double sign, cudaStream_t stream);
}
#endif

/// The factor that krylov_normalize applies to a column: sign / sqrt(h[k + 1] - sum_{l <= k} h[l]^2), 0 where the
/// mask is 0 or that norm is not positive (the host's Hessenberg column uses the same norm).
#ifdef __CUDACC__
__host__ __device__
#endif
inline double krylov_column_factor(const double* h, int k, double mask, double sign) {
    double correction = 0;
    for (int l = 0; l <= k; ++l) correction += h[l] * h[l];
    const double norm2 = h[k + 1] - correction;
    if (!(mask != 0) || !(norm2 > 0)) return 0.0;
    return sign / std::sqrt(norm2);
}

namespace cpu {
inline void krylov_normalize(int m, int g, double* X, int ldx, const double* h, int ldh, int k, const double* mask,
                             double sign) {
    for (int j = 0; j < g; ++j) {
        const double s = krylov_column_factor(h + static_cast<long>(j) * ldh, k, mask[j], sign);
        double* x = X + static_cast<long>(j) * ldx;
        for (int r = 0; r < m; ++r) x[r] = s != 0 ? x[r] * s : 0.0;
    }
}
}  // namespace cpu

}  // namespace starfact::detail

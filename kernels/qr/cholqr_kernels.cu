// The element-wise CUDA kernels of the Cholesky QR (kernels/qr/cholqr_kernels.hpp).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>

#include "kernels/device_complex.cuh"
#include "kernels/qr/cholqr_kernels.hpp"

namespace starfact::detail::gpu {
namespace {

constexpr int kThreads = 256;

inline unsigned blocks_for(int n) { return static_cast<unsigned>(n < 1 ? 1 : (n < 4096 ? n : 4096)); }

template <typename T>
__global__ void add_diag_kernel(T* A, int ld, int n, T value) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        A[i + static_cast<int64_t>(i) * ld] += value;
}

template <typename T>
__global__ void scale_kernel(T* A, int ld, int m, int n, const T* s, bool rows) {
    for (int j = blockIdx.x; j < n; j += gridDim.x)
        for (int i = threadIdx.x; i < m; i += blockDim.x) A[i + static_cast<int64_t>(j) * ld] *= rows ? s[i] : s[j];
}

template <typename T>
__global__ void trace_kernel(const T* G, int ld, int n, double* out) {
    __shared__ double part[kThreads];
    double sum = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) sum += static_cast<double>(G[i + static_cast<int64_t>(i) * ld]);
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = part[0];
}

/// Column j (block j): its sum of squares of G - I added to out[0], its sum of |G - I| maxed into out[1] (as the
/// bits of a non-negative double, whose order is the integers'; a NaN's bits are above every finite value's).
template <typename T>
__global__ void identity_distance_kernel(const T* G, int ld, int n, double* out) {
    __shared__ double squares[kThreads], sums[kThreads];
    const int j = blockIdx.x;
    double sq = 0, ab = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const double d = static_cast<double>(G[i + static_cast<int64_t>(j) * ld]) - (i == j ? 1.0 : 0.0);
        sq += d * d;
        ab += fabs(d);
    }
    squares[threadIdx.x] = sq;
    sums[threadIdx.x] = ab;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) {
            squares[threadIdx.x] += squares[threadIdx.x + w];
            sums[threadIdx.x] += sums[threadIdx.x + w];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(&out[0], squares[0]);
        atomicMax(reinterpret_cast<unsigned long long*>(&out[1]),
                  static_cast<unsigned long long>(__double_as_longlong(sums[0])));
    }
}

/// W := sum of the partials P_b (In) in Out (Out = In, or the float partials of a TF32 Gram summed in double).
template <typename In, typename Out>
__global__ void sum_kernel(const In* P, int count, int m, int n, Out* W, int ldw, bool accumulate, bool symmetric) {
    const int64_t mn = static_cast<int64_t>(m) * n;
    for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < mn;
         idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int64_t i = idx % m, j = idx / m;
        const int64_t from = symmetric && i < j ? j + i * m : idx;
        Out& w = W[i + j * ldw];
        Out s = accumulate ? w : Out(0);
        for (int b = 0; b < count; ++b) s += static_cast<Out>(P[b * mn + from]);
        w = s;
    }
}

__global__ void to_float_kernel(const double* X, int ldx, int m, int n, float* Y, double lo, double hi, int* flag) {
    const int64_t mn = static_cast<int64_t>(m) * n;
    bool out = false;
    for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < mn;
         idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int64_t i = idx % m, j = idx / m;
        const double x = X[i + j * ldx], a = fabs(x);
        out |= !(a == 0 || (a >= lo && a <= hi));
        Y[idx] = static_cast<float>(x);
    }
    if (out) *flag = 1;
}

template <typename T>
__global__ void modified_lu_kernel(T* A, int ld, int m, int n, T* s) {
    __shared__ T pivot;
    for (int k = 0; k < n; ++k) {
        if (threadIdx.x == 0) {
            T& d = A[k + static_cast<int64_t>(k) * ld];
            const T sk = d >= T(0) ? T(-1) : T(1);
            s[k] = sk;
            d -= sk;
            pivot = d;
        }
        __syncthreads();
        const T inv = T(1) / pivot;
        T* col = A + static_cast<int64_t>(k) * ld;
        for (int i = k + 1 + threadIdx.x; i < m; i += blockDim.x) col[i] *= inv;
        __syncthreads();
        const int r = m - k - 1, c = n - k - 1;
        for (int64_t idx = threadIdx.x; idx < static_cast<int64_t>(r) * c; idx += blockDim.x) {
            const int i = k + 1 + static_cast<int>(idx % r), j = k + 1 + static_cast<int>(idx / r);
            A[i + static_cast<int64_t>(j) * ld] -= col[i] * A[k + static_cast<int64_t>(j) * ld];
        }
        __syncthreads();
    }
}

}  // namespace

template <typename T>
void launch_cholqr_add_diag(T* A, int ld, int n, T value, cudaStream_t stream) {
    if (n > 0) add_diag_kernel<T><<<(n + kThreads - 1) / kThreads, kThreads, 0, stream>>>(A, ld, n, value);
}
template <typename T>
void launch_cholqr_scale(T* A, int ld, int m, int n, const T* s, bool rows, cudaStream_t stream) {
    if (m > 0 && n > 0) scale_kernel<T><<<blocks_for(n), 128, 0, stream>>>(A, ld, m, n, s, rows);
}
template <typename T>
void launch_cholqr_trace(const T* G, int ld, int n, double* out, cudaStream_t stream) {
    trace_kernel<T><<<1, kThreads, 0, stream>>>(G, ld, n, out);
}
template <typename T>
void launch_cholqr_identity_distance(const T* G, int ld, int n, double* out, cudaStream_t stream) {
    cudaMemsetAsync(out, 0, 2 * sizeof(double), stream);
    if (n > 0) identity_distance_kernel<T><<<static_cast<unsigned>(n), kThreads, 0, stream>>>(G, ld, n, out);
}
template <typename T>
void launch_cholqr_sum(const T* P, int count, int m, int n, T* W, int ldw, bool accumulate, bool symmetric,
                       cudaStream_t stream) {
    const int64_t mn = static_cast<int64_t>(m) * n;
    if (mn > 0)
        sum_kernel<<<static_cast<unsigned>(std::min<int64_t>((mn + kThreads - 1) / kThreads, 1024)), kThreads, 0,
                     stream>>>(on_device(P), count, m, n, on_device(W), ldw, accumulate, symmetric);
}
void launch_cholqr_to_float(const double* X, int ldx, int m, int n, float* Y, int range, int* flag,
                            cudaStream_t stream) {
    const int64_t mn = static_cast<int64_t>(m) * n;
    if (mn > 0)
        to_float_kernel<<<static_cast<unsigned>(std::min<int64_t>((mn + kThreads - 1) / kThreads, 8192)), kThreads, 0,
                          stream>>>(X, ldx, m, n, Y, ldexp(1.0, -range), ldexp(1.0, range), flag);
}
void launch_cholqr_sum_widen(const float* P, int count, int n, double* W, int ldw, cudaStream_t stream) {
    const int64_t nn = static_cast<int64_t>(n) * n;
    if (nn > 0)
        sum_kernel<<<static_cast<unsigned>(std::min<int64_t>((nn + kThreads - 1) / kThreads, 1024)), kThreads, 0,
                     stream>>>(P, count, n, n, W, ldw, false, false);
}
template <typename T>
void launch_cholqr_modified_lu_panel(T* A, int ld, int m, int n, T* s, cudaStream_t stream) {
    if (m > 0 && n > 0) modified_lu_kernel<T><<<1, 1024, 0, stream>>>(A, ld, m, n, s);
}

#define STARFACT_CHOLQR_KERNELS(T)                                                                  \
    template void launch_cholqr_add_diag<T>(T*, int, int, T, cudaStream_t);                         \
    template void launch_cholqr_scale<T>(T*, int, int, int, const T*, bool, cudaStream_t);          \
    template void launch_cholqr_trace<T>(const T*, int, int, double*, cudaStream_t);                \
    template void launch_cholqr_identity_distance<T>(const T*, int, int, double*, cudaStream_t);    \
    template void launch_cholqr_sum<T>(const T*, int, int, int, T*, int, bool, bool, cudaStream_t);  \
    template void launch_cholqr_modified_lu_panel<T>(T*, int, int, int, T*, cudaStream_t);
STARFACT_CHOLQR_KERNELS(float)
STARFACT_CHOLQR_KERNELS(double)
#undef STARFACT_CHOLQR_KERNELS
// The sums of partial products that apply a block reflector serve complex tiles too (not `symmetric`: a real Gram).
template void launch_cholqr_sum<std::complex<float>>(const std::complex<float>*, int, int, int, std::complex<float>*,
                                                     int, bool, bool, cudaStream_t);
template void launch_cholqr_sum<std::complex<double>>(const std::complex<double>*, int, int, int,
                                                      std::complex<double>*, int, bool, bool, cudaStream_t);

}  // namespace starfact::detail::gpu

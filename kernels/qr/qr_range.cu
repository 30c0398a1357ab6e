// The CUDA kernels of the QR's range checks and scalings (kernels/qr/qr_range.hpp); complex tiles through
// kernels/device_complex.cuh (finite: both parts; magnitude: the modulus).
#include <complex>
#include <cstdint>

#include "kernels/device_complex.cuh"
#include "kernels/qr/qr_range.hpp"

namespace starfact::detail::gpu {
namespace {

constexpr int kThreads = 256;

inline unsigned blocks_for(int n) { return static_cast<unsigned>(n < 1 ? 1 : (n < 4096 ? n : 4096)); }

template <typename T>
__global__ void first_nonfinite_kernel(const T* A, int ld, int rows, int cols, Part part, int* first) {
    for (int j = blockIdx.x; j < cols; j += gridDim.x) {
        const int top = part == Part::All ? rows : (j + 1 < rows ? j + 1 : rows);
        bool bad = false;
        for (int i = static_cast<int>(threadIdx.x); i < top; i += blockDim.x)
            bad = bad || !finite_of(A[i + static_cast<int64_t>(j) * ld]);
        if (bad) atomicMin(first, j);
    }
}

template <typename T>
__global__ void absmax_kernel(const T* A, int ld, int rows, int cols, double* out) {
    __shared__ double part[kThreads];
    double best = 0;
    for (int j = blockIdx.x; j < cols; j += gridDim.x)
        for (int i = threadIdx.x; i < rows; i += blockDim.x) {
            const double v = magnitude(A[i + static_cast<int64_t>(j) * ld]);
            if (!(v <= best)) best = v;  // NaN wins
        }
    part[threadIdx.x] = best;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w && !(part[threadIdx.x + w] <= part[threadIdx.x])) part[threadIdx.x] = part[threadIdx.x + w];
        __syncthreads();
    }
    // Non-negative doubles (NaN with its sign bit clear above +Inf) order as their bit patterns.
    if (threadIdx.x == 0)
        atomicMax(reinterpret_cast<unsigned long long*>(out), static_cast<unsigned long long>(__double_as_longlong(
                                                                  fabs(part[0]))));
}

template <typename T>
__global__ void rescale_kernel(T* A, int ld, int first, int last, int cols, const double* m, QrScaleRanges ranges,
                               QrRescale which) {
    const int k = qr_rescale_exponent(m, ranges, which);
    if (k == 0) return;
    for (int j = blockIdx.x; j < cols; j += gridDim.x)
        for (int i = first + static_cast<int>(threadIdx.x); i < last; i += blockDim.x) {
            T& x = A[i + static_cast<int64_t>(j) * ld];
            x = times_power_of_two(x, k);
        }
}

}  // namespace

template <typename T>
void launch_qr_first_nonfinite(const T* A, int ld, int rows, int cols, Part part, int* first, cudaStream_t stream) {
    if (rows > 0 && cols > 0)
        first_nonfinite_kernel<<<blocks_for(cols), kThreads, 0, stream>>>(on_device(A), ld, rows, cols, part, first);
}
template <typename T>
void launch_qr_absmax(const T* A, int ld, int rows, int cols, double* out, cudaStream_t stream) {
    if (rows > 0 && cols > 0)
        absmax_kernel<<<blocks_for(cols), kThreads, 0, stream>>>(on_device(A), ld, rows, cols, out);
}
template <typename T>
void launch_qr_rescale(T* A, int ld, int first, int last, int cols, const double* m, const QrScaleRanges& ranges,
                       QrRescale which, cudaStream_t stream) {
    if (first < last && cols > 0)
        rescale_kernel<<<blocks_for(cols), kThreads, 0, stream>>>(on_device(A), ld, first, last, cols, m, ranges,
                                                                  which);
}

#define STARFACT_QR_RANGE(T)                                                                                  \
    template void launch_qr_first_nonfinite<T>(const T*, int, int, int, Part, int*, cudaStream_t);            \
    template void launch_qr_absmax<T>(const T*, int, int, int, double*, cudaStream_t);                        \
    template void launch_qr_rescale<T>(T*, int, int, int, int, const double*, const QrScaleRanges&, QrRescale,  \
                                       cudaStream_t);
STARFACT_QR_RANGE(float)
STARFACT_QR_RANGE(double)
STARFACT_QR_RANGE(std::complex<float>)
STARFACT_QR_RANGE(std::complex<double>)
#undef STARFACT_QR_RANGE

}  // namespace starfact::detail::gpu

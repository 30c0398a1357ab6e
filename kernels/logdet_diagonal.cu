// add_diagonal_logs on the device (kernels/logdet_diagonal.hpp): one block strides over the diagonal, each thread
// summing the logarithms of its entries in double and keeping the smallest index of an entry that is not a positive
// finite number; a tree in shared memory combines the threads, and thread 0 updates the running state.
#include <climits>
#include <cstdint>

#include "kernels/logdet_diagonal.hpp"

namespace starfact::detail::gpu {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void add_diagonal_logs_kernel(const T* A, int ld, int n, int64_t offset, bool first, DiagonalLogSum* acc) {
    __shared__ double sums[kThreads];
    __shared__ int bads[kThreads];
    const int t = threadIdx.x;
    double s = 0.0;
    int bad = INT_MAX;  // local index of the first bad entry this thread saw
    for (int i = t; i < n; i += kThreads) {
        const double d = static_cast<double>(A[i + static_cast<int64_t>(i) * ld]);
        if (!(d > 0.0) || !isfinite(d)) bad = min(bad, i);
        else s += log(d);
    }
    sums[t] = s;
    bads[t] = bad;
    __syncthreads();
    for (int w = kThreads / 2; w > 0; w >>= 1) {
        if (t < w) {
            sums[t] += sums[t + w];
            bads[t] = min(bads[t], bads[t + w]);
        }
        __syncthreads();
    }
    if (t != 0) return;
    DiagonalLogSum a = first ? DiagonalLogSum{0.0, 0} : *acc;
    if (a.first_bad == 0) {
        if (bads[0] != INT_MAX) a.first_bad = offset + bads[0] + 1;
        else a.sum += sums[0];
    }
    *acc = a;
}

}  // namespace

template <typename T>
void launch_add_diagonal_logs(const T* A, int ld, int n, int64_t offset, bool first, DiagonalLogSum* acc,
                              cudaStream_t stream) {
    add_diagonal_logs_kernel<T><<<1, kThreads, 0, stream>>>(A, ld, n, offset, first, acc);
}

template void launch_add_diagonal_logs<float>(const float*, int, int, int64_t, bool, DiagonalLogSum*, cudaStream_t);
template void launch_add_diagonal_logs<double>(const double*, int, int, int64_t, bool, DiagonalLogSum*, cudaStream_t);

}  // namespace starfact::detail::gpu

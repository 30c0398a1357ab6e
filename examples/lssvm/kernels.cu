// CUDA part of the kernel-matrix codelets: the element-wise step after the gemm of the feature blocks.
#include <cuda_runtime.h>
#include <starpu.h>

#include "codelets.hpp"

namespace lssvm {
namespace {

template <typename T>
__global__ void finish_kernel(T* G, int m, int n, int ld, const T* na, const T* nb, int rbf, T gamma, T shift,
                              int diag, int lower_only) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m || j >= n || (lower_only && i < j)) return;
    T& g = G[i + static_cast<int64_t>(j) * ld];
    T v = g;
    if (rbf) {
        const T d2 = na[i] + nb[j] - T(2) * v;
        v = exp(-gamma * (d2 > T(0) ? d2 : T(0)));
    }
    if (diag && i == j) v += shift;
    g = v;
}

}  // namespace

template <typename T>
void finish_kernel_cuda(T* G, int m, int n, int ld, const T* na, const T* nb, const KernelArgs& a, bool diag,
                        cudaStream_t stream, bool lower_only) {
    if (m == 0 || n == 0) return;
    const dim3 block(64, 4);
    const dim3 grid((m + block.x - 1) / block.x, (n + block.y - 1) / block.y);
    finish_kernel<T><<<grid, block, 0, stream>>>(G, m, n, ld, na, nb, a.type == KernelType::Rbf ? 1 : 0,
                                                 static_cast<T>(a.gamma), static_cast<T>(a.shift), diag ? 1 : 0,
                                                 lower_only ? 1 : 0);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) STARPU_CUDA_REPORT_ERROR(e);
}

template void finish_kernel_cuda<float>(float*, int, int, int, const float*, const float*, const KernelArgs&, bool,
                                        cudaStream_t, bool);
template void finish_kernel_cuda<double>(double*, int, int, int, const double*, const double*, const KernelArgs&,
                                         bool, cudaStream_t, bool);

}  // namespace lssvm

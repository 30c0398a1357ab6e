// random_symmetric's entries (kernels/random_entry.hpp) written by a GPU kernel: a block strides over the
// rows of a column, the grid over the columns.
#include <algorithm>

#include "kernels/random_entry.hpp"
#include "kernels/random_symmetric.hpp"

namespace starfact::detail::gpu {
namespace {

template <typename T>
__global__ void random_symmetric_kernel(T* p, int64_t ld, int64_t rows, int64_t cols, int64_t i0, int64_t j0,
                                        uint64_t seed, double shift) {
    for (int64_t c = blockIdx.y; c < cols; c += gridDim.y)
        for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; r < rows;
             r += static_cast<int64_t>(gridDim.x) * blockDim.x)
            p[r + c * ld] = static_cast<T>(symmetric_entry(seed, i0 + r, j0 + c, shift));
}

}  // namespace

template <typename T>
cudaError_t launch_random_symmetric(T* p, int64_t ld, int64_t rows, int64_t cols, int64_t i0, int64_t j0,
                                    uint64_t seed, double shift, cudaStream_t stream) {
    if (rows <= 0 || cols <= 0) return cudaSuccess;
    const dim3 grid(static_cast<unsigned>(std::min<int64_t>(64, (rows + 255) / 256)),
                    static_cast<unsigned>(std::min<int64_t>(65535, cols)));
    random_symmetric_kernel<T><<<grid, 256, 0, stream>>>(p, ld, rows, cols, i0, j0, seed, shift);
    return cudaGetLastError();
}

template cudaError_t launch_random_symmetric<float>(float*, int64_t, int64_t, int64_t, int64_t, int64_t, uint64_t,
                                                    double, cudaStream_t);
template cudaError_t launch_random_symmetric<double>(double*, int64_t, int64_t, int64_t, int64_t, int64_t, uint64_t,
                                                     double, cudaStream_t);

}  // namespace starfact::detail::gpu

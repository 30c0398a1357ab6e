// The CUDA kernels of the QR's range checks (kernels/qr/qr_range.hpp).
#include <cstdint>

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
            bad = bad || !isfinite(static_cast<double>(A[i + static_cast<int64_t>(j) * ld]));
        if (bad) atomicMin(first, j);
    }
}

}  // namespace

template <typename T>
void launch_qr_first_nonfinite(const T* A, int ld, int rows, int cols, Part part, int* first, cudaStream_t stream) {
    if (rows > 0 && cols > 0) first_nonfinite_kernel<T><<<blocks_for(cols), kThreads, 0, stream>>>(A, ld, rows, cols,
                                                                                                    part, first);
}
#define STARFACT_QR_RANGE(T)                                                                                  \
    template void launch_qr_first_nonfinite<T>(const T*, int, int, int, Part, int*, cudaStream_t);
STARFACT_QR_RANGE(float)
STARFACT_QR_RANGE(double)
#undef STARFACT_QR_RANGE

}  // namespace starfact::detail::gpu

// The rows a tournament-pivoting step keeps (codelets/getrf_tournament.cpp): out(r, :) := S(rows[r], :), copied by
// element size, so that one kernel serves the four element types.
#include <cstdint>

#include "kernels/lu/lu_kernels.hpp"

namespace starfact::detail::gpu {
namespace {

/// One thread per element of out, 32 rows by 8 columns per block: consecutive threads read consecutive selected
/// rows of one column (the rows are scattered in S; a column of out is written contiguously).
template <typename W>
__global__ void gather_rows_kernel(const W* S, int64_t lds, const int* rows, int count, int cols, W* out,
                                   int64_t ldo) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    const int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= count || c >= cols) return;
    out[r + c * ldo] = S[rows[r] + c * lds];
}

template <typename W>
void launch(const void* S, int64_t lds, const int* rows, int count, int cols, void* out, int64_t ldo,
            cudaStream_t stream) {
    const dim3 block(32, 8);
    const dim3 grid((count + 31) / 32, (cols + 7) / 8);
    gather_rows_kernel<W><<<grid, block, 0, stream>>>(static_cast<const W*>(S), lds, rows, count, cols,
                                                      static_cast<W*>(out), ldo);
}

}  // namespace

void launch_gather_rows(const void* S, int64_t lds, const int* rows, int count, int cols, void* out, int64_t ldo,
                        int element_bytes, cudaStream_t stream) {
    if (count <= 0 || cols <= 0) return;
    switch (element_bytes) {
        case 4: launch<float>(S, lds, rows, count, cols, out, ldo, stream); break;
        case 8: launch<double>(S, lds, rows, count, cols, out, ldo, stream); break;
        default: launch<double2>(S, lds, rows, count, cols, out, ldo, stream); break;  // complex<double>
    }
}

}  // namespace starfact::detail::gpu

// Rows copied by index lists, by element size so that one kernel serves the four element types: the rows a
// tournament-pivoting step keeps (codelets/getrf_tournament.cpp), out(r, :) := S(rows[r], :), and the rows a
// distributed LU's row exchange moves (codelets/laswp_rows.cpp), out(to[r], :) := S(rows[r], :).
#include <cstdint>

#include "kernels/lu/lu_kernels.hpp"

namespace starfact::detail::gpu {
namespace {

/// One thread per element of out, 32 rows by 8 columns per block: consecutive threads read consecutive selected
/// rows of one column (the rows are scattered in S; a column of out is written contiguously).
/// `to` null: row r of out.
template <typename W>
__global__ void gather_rows_kernel(const W* S, int64_t lds, const int* rows, int count, int cols, W* out,
                                   int64_t ldo, const int* to) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    const int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= count || c >= cols) return;
    out[(to ? to[r] : r) + c * ldo] = S[rows[r] + c * lds];
}

template <typename W>
void launch(const void* S, int64_t lds, const int* rows, int count, int cols, void* out, int64_t ldo, const int* to,
            cudaStream_t stream) {
    const dim3 block(32, 8);
    const dim3 grid((count + 31) / 32, (cols + 7) / 8);
    gather_rows_kernel<W><<<grid, block, 0, stream>>>(static_cast<const W*>(S), lds, rows, count, cols,
                                                      static_cast<W*>(out), ldo, to);
}

void launch_by_size(const void* S, int64_t lds, const int* rows, int count, int cols, void* out, int64_t ldo,
                    const int* to, int element_bytes, cudaStream_t stream) {
    if (count <= 0 || cols <= 0) return;
    switch (element_bytes) {
        case 4: launch<float>(S, lds, rows, count, cols, out, ldo, to, stream); break;
        case 8: launch<double>(S, lds, rows, count, cols, out, ldo, to, stream); break;
        default: launch<double2>(S, lds, rows, count, cols, out, ldo, to, stream); break;  // complex<double>
    }
}

}  // namespace

void launch_gather_rows(const void* S, int64_t lds, const int* rows, int count, int cols, void* out, int64_t ldo,
                        int element_bytes, cudaStream_t stream) {
    launch_by_size(S, lds, rows, count, cols, out, ldo, nullptr, element_bytes, stream);
}

void launch_copy_rows(const void* S, int64_t lds, const int* rows, const int* to, int count, int cols, void* out,
                      int64_t ldo, int element_bytes, cudaStream_t stream) {
    launch_by_size(S, lds, rows, count, cols, out, ldo, to, element_bytes, stream);
}

}  // namespace starfact::detail::gpu

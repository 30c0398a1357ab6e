// Row interchanges of one tile-LU step on one tile column: one thread per column applies the swaps in
// order across the tile pointers (the pointers travel by value in the kernel's argument; the step's pivots
// are staged in shared memory when they fit, since every thread reads all of them).
#include "codelets/lu_codelets.hpp"

namespace starfact::detail::gpu {
namespace {

constexpr int kThreads = 128;
constexpr int kSharedPivots = 8192;  // 32 KiB of shared memory

template <typename T, bool SHARED>
__global__ void laswp_kernel(const ColumnTiles<T> tiles, const int* piv, int kb, int64_t offset) {
    extern __shared__ int staged[];
    const int* p = piv;
    if (SHARED) {
        for (int i = threadIdx.x; i < kb; i += blockDim.x) staged[i] = piv[i];
        __syncthreads();
        p = staged;
    }
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= tiles.cols) return;
    T* top = tiles.tile[0] + static_cast<int64_t>(j) * tiles.ld;  // ld of tile 0 (also when it is the last)
    for (int i = 0; i < kb; ++i) {
        const int64_t r = p[i] - 1 - offset;
        if (r == i) continue;
        const int t = static_cast<int>(r / tiles.nb);
        const int ld = t == tiles.count - 1 ? tiles.ld_last : tiles.ld;
        T* other = tiles.tile[t] + (r - static_cast<int64_t>(t) * tiles.nb) + static_cast<int64_t>(j) * ld;
        const T v = top[i];
        top[i] = *other;
        *other = v;
    }
}

}  // namespace

template <typename T>
void launch_laswp(const ColumnTiles<T>& tiles, const int* piv, int kb, int64_t offset, cudaStream_t stream) {
    if (tiles.cols == 0 || kb == 0) return;
    const int blocks = (tiles.cols + kThreads - 1) / kThreads;
    if (kb <= kSharedPivots)
        laswp_kernel<T, true><<<blocks, kThreads, kb * sizeof(int), stream>>>(tiles, piv, kb, offset);
    else
        laswp_kernel<T, false><<<blocks, kThreads, 0, stream>>>(tiles, piv, kb, offset);
}

template void launch_laswp<float>(const ColumnTiles<float>&, const int*, int, int64_t, cudaStream_t);
template void launch_laswp<double>(const ColumnTiles<double>&, const int*, int, int64_t, cudaStream_t);

}  // namespace starfact::detail::gpu

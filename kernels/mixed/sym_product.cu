// sym_product.hpp: one thread block per strip of kStrip columns of a tile, all its rows. Each thread walks rows
// r = r0 + t, r0 + t + kThreads, ...: it forms the row's sum over the strip, A[r][j0..j0+kStrip) x_k (x_k's strip in
// shared memory), added atomically to y_i[r], and accumulates A[r][j] x_i[r] per column; the block then reduces the
// column sums (warp shuffles, then shared memory) and adds them atomically to y_k. Loads of A are coalesced along
// the rows (a warp reads 32 consecutive entries of a column).
#include "kernels/mixed/sym_product.hpp"

#include <algorithm>

namespace starfact::detail::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kStrip = 32;
constexpr int kWarps = kThreads / 32;
constexpr int kTilesPerLaunch = 96;  // the parameter block stays well within the 32 KB kernel parameter limit

struct Launch {
    SymTile tile[kTilesPerLaunch];
};

__global__ void __launch_bounds__(kThreads) sym_product_kernel(const __grid_constant__ Launch p) {
    const SymTile& t = p.tile[blockIdx.y];
    const int j0 = blockIdx.x * kStrip;
    if (j0 >= t.k) return;
    const int w = min(kStrip, t.k - j0);
    __shared__ double xs[kStrip];
    __shared__ double partial[kWarps][kStrip];
    if (threadIdx.x < kStrip) xs[threadIdx.x] = threadIdx.x < w ? t.xk[j0 + threadIdx.x] : 0.0;
    __syncthreads();
    double col[kStrip];
#pragma unroll
    for (int j = 0; j < kStrip; ++j) col[j] = 0;
    const double* a = t.a + static_cast<long long>(j0) * t.lda;
    // a diagonal tile: rows from j0 (row r meets columns j <= r of the lower triangle)
    const int r0 = t.diagonal ? j0 : 0;
    for (int r = r0 + threadIdx.x; r < t.m; r += kThreads) {
        const double xr = t.xi[r];
        double s = 0;
        if (w == kStrip && !(t.diagonal && r < j0 + kStrip)) {
#pragma unroll
            for (int j = 0; j < kStrip; ++j) {
                const double v = a[r + static_cast<long long>(j) * t.lda];
                s += v * xs[j];
                col[j] += v * xr;
            }
        } else {
#pragma unroll
            for (int j = 0; j < kStrip; ++j) {
                if (j >= w || (t.diagonal && j0 + j > r)) continue;
                const double v = a[r + static_cast<long long>(j) * t.lda];
                s += v * xs[j];
                if (!t.diagonal || j0 + j < r) col[j] += v * xr;  // the diagonal entry counts once
            }
        }
        atomicAdd(t.yi + r, -s);
    }
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int j = 0; j < kStrip; ++j) {
        double v = col[j];
        for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
        if (lane == 0) partial[warp][j] = v;
    }
    __syncthreads();
    if (threadIdx.x < w) {
        double v = 0;
        for (int q = 0; q < kWarps; ++q) v += partial[q][threadIdx.x];
        atomicAdd(t.yk + j0 + threadIdx.x, -v);
    }
}

}  // namespace

cudaError_t sym_product(const std::vector<SymTile>& tiles, cudaStream_t stream) {
    for (size_t first = 0; first < tiles.size(); first += kTilesPerLaunch) {
        const size_t count = std::min<size_t>(kTilesPerLaunch, tiles.size() - first);
        Launch p{};
        int strips = 1;
        for (size_t q = 0; q < count; ++q) {
            p.tile[q] = tiles[first + q];
            strips = std::max(strips, (p.tile[q].k + kStrip - 1) / kStrip);
        }
        sym_product_kernel<<<dim3(strips, static_cast<unsigned>(count)), kThreads, 0, stream>>>(p);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

}  // namespace starfact::detail::gpu

// sym_product.hpp: a thread block covers kGroup columns (kGroup / kStrip strips) and kChunk rows of one tile.
// Each thread owns kRowsPerThread rows (r = r0 + t + q kThreads) and keeps their partial row sums in registers
// across the strips, so that y_i receives one atomic addition per row and block; per strip it accumulates
// A[r][j] x_i[r] per column, which the block reduces (warp shuffles, then shared memory) into one atomic addition
// per column. Loads of A are coalesced along the rows (a warp reads 32 consecutive entries of a column), and each
// thread has a strip's kStrip loads per row in flight.
#include "kernels/mixed/sym_product.hpp"

#include <algorithm>

namespace starfact::detail::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kStrip = 32;
constexpr int kGroup = 256;  // columns per block
constexpr int kRowsPerThread = 16;
constexpr int kChunk = kThreads * kRowsPerThread;  // rows per block
constexpr int kWarps = kThreads / 32;
constexpr int kTilesPerLaunch = 96;  // the parameter block stays well within the 32 KB kernel parameter limit

struct Launch {
    SymTile tile[kTilesPerLaunch];
};

__global__ void __launch_bounds__(kThreads) sym_product_kernel(const __grid_constant__ Launch p) {
    const SymTile& t = p.tile[blockIdx.y];
    const int c0 = blockIdx.x * kGroup, r0 = blockIdx.z * kChunk;
    if (c0 >= t.k || r0 >= t.m) return;
    if (t.diagonal && r0 + kChunk <= c0) return;  // above the diagonal
    __shared__ double xs[kStrip];
    __shared__ double partial[kWarps][kStrip];
    double racc[kRowsPerThread], xr[kRowsPerThread];
#pragma unroll
    for (int q = 0; q < kRowsPerThread; ++q) {
        const int r = r0 + threadIdx.x + q * kThreads;
        racc[q] = 0;
        xr[q] = r < t.m ? t.xi[r] : 0.0;
    }
    const int c1 = min(t.k, c0 + kGroup);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int j0 = c0; j0 < c1; j0 += kStrip) {
        const int w = min(kStrip, c1 - j0);
        __syncthreads();  // the previous strip's readers of xs are done
        if (threadIdx.x < kStrip) xs[threadIdx.x] = threadIdx.x < w ? t.xk[j0 + threadIdx.x] : 0.0;
        __syncthreads();
        double col[kStrip];
#pragma unroll
        for (int j = 0; j < kStrip; ++j) col[j] = 0;
        const double* a = t.a + static_cast<long long>(j0) * t.lda;
#pragma unroll
        for (int q = 0; q < kRowsPerThread; ++q) {
            const int r = r0 + threadIdx.x + q * kThreads;
            if (r >= t.m || (t.diagonal && r < j0)) continue;
            if (w == kStrip && !(t.diagonal && r < j0 + kStrip)) {
                double s = 0;
#pragma unroll
                for (int j = 0; j < kStrip; ++j) {
                    const double v = a[r + static_cast<long long>(j) * t.lda];
                    s += v * xs[j];
                    col[j] += v * xr[q];
                }
                racc[q] += s;
            } else {
                double s = 0;
#pragma unroll
                for (int j = 0; j < kStrip; ++j) {
                    if (j >= w || (t.diagonal && j0 + j > r)) continue;
                    const double v = a[r + static_cast<long long>(j) * t.lda];
                    s += v * xs[j];
                    if (!(t.diagonal && j0 + j == r)) col[j] += v * xr[q];  // the diagonal counts once
                }
                racc[q] += s;
            }
        }
        {
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
            __syncthreads();  // partial is reused by the next strip
        }
    }
#pragma unroll
    for (int q = 0; q < kRowsPerThread; ++q) {
        const int r = r0 + threadIdx.x + q * kThreads;
        if (r < t.m && !(t.diagonal && r < c0)) atomicAdd(t.yi + r, -racc[q]);
    }
}

}  // namespace

cudaError_t symmetric_product(const std::vector<SymTile>& tiles, cudaStream_t stream) {
    for (size_t first = 0; first < tiles.size(); first += kTilesPerLaunch) {
        const size_t count = std::min<size_t>(kTilesPerLaunch, tiles.size() - first);
        Launch p{};
        int groups = 1, chunks = 1;
        for (size_t q = 0; q < count; ++q) {
            p.tile[q] = tiles[first + q];
            groups = std::max(groups, (p.tile[q].k + kGroup - 1) / kGroup);
            chunks = std::max(chunks, (p.tile[q].m + kChunk - 1) / kChunk);
        }
        const dim3 grid(static_cast<unsigned>(groups), static_cast<unsigned>(count), static_cast<unsigned>(chunks));
        sym_product_kernel<<<grid, kThreads, 0, stream>>>(p);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

}  // namespace starfact::detail::gpu

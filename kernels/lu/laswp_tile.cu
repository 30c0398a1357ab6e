// The row interchanges of one tile-LU step applied tile by tile (codelets/laswp_tile.cpp: a tile column spread over
// several ranks), on CUDA workers.
//
// Compose: one block turns the step's kb pivots into the composed permutation that the phases read
// (codelets/lu_codelets.hpp: top, then the rows below the top tile that change with the rows they receive). It plans
// as laswp.cu's planned form does: the pivots sorted by (row, index) in shared memory (a bitonic sort), then for
// every interchange i the last t < i with p[t] = p[i] (same) and for every row j < kb the last t < j with p[t] = j
// (prev); g(j) = g(prev(j)), or j, is the original row at position j just before interchange j. Row i of the top
// tile ends with g(same(i)), or p[i] when no earlier interchange sent something there; a row r >= kb with the
// g(t) of the last t with p[t] = r. Those rows come out of the sorted keys in ascending order (a block-wide prefix
// sum gives each its place), so the vector is the host's (compose_interchanges) entry for entry.
//
// Gather, spread, top: row copies by the index lists of the composed permutation, columns in parallel. The top
// task moves its tile in place: each block reads a column's moved values into registers, synchronises, and writes
// them. The kernels only move values: complex tiles move as pairs of their real type (row_bits.cuh).
#include <complex>
#include <cstdint>

#include "kernels/lu/laswp_tile_kernels.hpp"
#include "kernels/lu/pivot_plan.cuh"
#include "kernels/lu/row_bits.cuh"

namespace starfact::detail::gpu {
namespace {

constexpr int kMaxComposed = 4096;     // pivots per step (codelets/lu_codelets.hpp: kLaswpTileCudaMaxRows)
constexpr int kComposeThreads = 1024;
constexpr int kTopThreads = 1024;
constexpr int kTopPerThread = kMaxComposed / kTopThreads;  // values of a column a thread holds
constexpr int kMoveThreads = 128;      // gather, spread: rows per block
constexpr int kMaxColumnBlocks = 1024;  // gather, spread: blocks along the columns

/// Shared memory of the compose kernel for kb pivots: the keys padded to a power of two, then row, same, prev, g.
struct ComposeLayout {
    int padded;  // power of two >= kb
    __host__ __device__ explicit ComposeLayout(int kb) : padded(1) {
        while (padded < kb) padded *= 2;
    }
    __host__ __device__ size_t bytes(int kb) const {
        return static_cast<size_t>(padded) * 8 + static_cast<size_t>(kb) * 4 * 4;
    }
};

__global__ void __launch_bounds__(kComposeThreads) compose_planned(const int* piv, int kb, int64_t offset, int* out) {
    extern __shared__ unsigned long long smem[];
    __shared__ int partial[kComposeThreads];
    const ComposeLayout layout(kb);
    unsigned long long* key = smem;                          // (row << 32) | index, sorted
    int* row = reinterpret_cast<int*>(key + layout.padded);  // p[i], 0-based, relative to the column's first row
    int* same = row + kb;                                    // last t < i with p[t] = p[i], or -1
    int* prev = same + kb;                                   // last t < j with p[t] = j, or -1
    int* g = prev + kb;                                      // the original row at j just before interchange j
    int* top = out + 1;
    int* dst = top + kb;
    int* src = dst + kb;
    const int tid = threadIdx.x, threads = blockDim.x;

    sort_pivot_keys(piv, kb, offset, layout.padded, key, row);
    link_pivots(key, kb, same, nullptr, prev);
    // The rows below the top tile that change: the last key of each row >= kb, in sorted order. Each thread takes a
    // contiguous range of keys; a prefix sum over the threads' counts places its rows.
    const int per = (kb + threads - 1) / threads;
    const int first = min(kb, tid * per), end = min(kb, first + per);
    const auto below = [&](int s) {
        const unsigned long long r = key[s] >> 32;
        return r >= static_cast<unsigned long long>(kb) && (s + 1 == kb || (key[s + 1] >> 32) != r);
    };
    int count = 0;
    for (int s = first; s < end; ++s) count += below(s);
    partial[tid] = count;
    __syncthreads();
    for (int d = 1; d < threads; d *= 2) {
        const int v = tid >= d ? partial[tid - d] : 0;
        __syncthreads();
        partial[tid] += v;
        __syncthreads();
    }
    const int base = partial[tid] - count, total = partial[threads - 1];
    for (int s = first, q = base; s < end; ++s)
        if (below(s)) {
            dst[q] = static_cast<int>(key[s] >> 32);
            src[q++] = static_cast<int>(key[s] & 0xffffffffu);  // the interchange; its g() below
        }
    for (int j = tid; j < kb; j += threads) {
        int c = j;
        while (prev[c] >= 0) c = prev[c];
        g[j] = c;
    }
    __syncthreads();
    for (int i = tid; i < kb; i += threads) top[i] = same[i] >= 0 ? g[same[i]] : row[i];
    for (int q = base; q < base + count; ++q) src[q] = g[src[q]];  // written by this thread above
    for (int q = total + tid; q < kb; q += threads) {
        dst[q] = -1;
        src[q] = -1;
    }
    if (tid == 0) out[0] = total;
}

template <typename B>
__global__ void gather_rows(B* e, int64_t lde, const B* tile, int64_t ld, int rows, int cols, const int* composed,
                            int kb, int64_t first) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kb) return;
    const int64_t s = composed[1 + i] - first;
    if (s < 0 || s >= rows) return;
    for (int j = blockIdx.y; j < cols; j += gridDim.y) e[i + j * lde] = tile[s + j * ld];
}

template <typename B>
__global__ void spread_rows(B* tile, int64_t ld, int rows, int cols, const B* top, int64_t ld_top, const int* composed,
                            int kb, int64_t first) {
    const int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= composed[0]) return;
    const int64_t x = composed[1 + kb + q] - first;
    if (x < 0 || x >= rows) return;
    const int s = composed[1 + 2 * kb + q];
    for (int j = blockIdx.y; j < cols; j += gridDim.y) tile[x + j * ld] = top[s + j * ld_top];
}

template <typename B>
__global__ void __launch_bounds__(kTopThreads) top_rows(B* a, int64_t ld, int rows, int cols, const int* composed,
                                                        int kb, int64_t nb, int p, const ExchangeBuffers<B> ex) {
    const int* top = composed + 1;
    for (int j = blockIdx.x; j < cols; j += gridDim.x) {
        B v[kTopPerThread];
        int from[kTopPerThread];
#pragma unroll
        for (int u = 0; u < kTopPerThread; ++u) {
            const int i = threadIdx.x + u * blockDim.x;
            from[u] = i < kb ? top[i] : i;
            if (from[u] == i) continue;
            if (from[u] < rows) {
                v[u] = a[from[u] + j * ld];
            } else {
                const int b = static_cast<int>((from[u] / nb - 1) % p);
                v[u] = ex.e[b][i + static_cast<int64_t>(j) * ex.ld[b]];
            }
        }
        __syncthreads();  // every original value read before the column is written
#pragma unroll
        for (int u = 0; u < kTopPerThread; ++u) {
            const int i = threadIdx.x + u * blockDim.x;
            if (from[u] != i) a[i + j * ld] = v[u];
        }
    }
}

int device_sm_count() {
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    return sms > 0 ? sms : 1;
}

int warps_for(int n) { return (n + 31) / 32 * 32; }

dim3 move_grid(int n, int cols) {
    return dim3(static_cast<unsigned>((n + kMoveThreads - 1) / kMoveThreads),
                static_cast<unsigned>(cols < kMaxColumnBlocks ? cols : kMaxColumnBlocks));
}

}  // namespace

void launch_compose_interchanges(const int* piv, int kb, int64_t offset, int* composed, cudaStream_t stream) {
    if (kb <= 0) return;
    const size_t bytes = ComposeLayout(kb).bytes(kb);
    // per device (the attribute belongs to the current device's context); a cheap driver call
    cudaFuncSetAttribute(compose_planned, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
    const int threads = kb < kComposeThreads ? warps_for(kb) : kComposeThreads;
    compose_planned<<<1, threads, bytes, stream>>>(piv, kb, offset, composed);
}

template <typename T>
void launch_laswp_gather(T* e, int64_t lde, const T* tile, int64_t ld, int rows, int cols, const int* composed, int kb,
                         int64_t first, cudaStream_t stream) {
    if (kb <= 0 || cols <= 0 || rows <= 0) return;
    using B = typename Bits<T>::type;
    gather_rows<B><<<move_grid(kb, cols), kMoveThreads, 0, stream>>>(
        reinterpret_cast<B*>(e), lde, reinterpret_cast<const B*>(tile), ld, rows, cols, composed, kb, first);
}

template <typename T>
void launch_laswp_spread(T* tile, int64_t ld, int rows, int cols, const T* top, int64_t ld_top, const int* composed,
                         int kb, int64_t first, cudaStream_t stream) {
    if (kb <= 0 || cols <= 0 || rows <= 0) return;
    using B = typename Bits<T>::type;
    spread_rows<B><<<move_grid(kb, cols), kMoveThreads, 0, stream>>>(
        reinterpret_cast<B*>(tile), ld, rows, cols, reinterpret_cast<const B*>(top), ld_top, composed, kb, first);
}

template <typename T>
void launch_laswp_top(T* a, int64_t ld, int rows, int cols, const int* composed, int kb, int64_t nb, int p,
                      const ExchangeBuffers<T>& ex, cudaStream_t stream) {
    if (kb <= 0 || cols <= 0) return;
    using B = typename Bits<T>::type;
    ExchangeBuffers<B> moved;
    moved.count = ex.count;
    for (int b = 0; b < ex.count; ++b) {
        moved.e[b] = reinterpret_cast<const B*>(ex.e[b]);
        moved.ld[b] = ex.ld[b];
    }
    const int need = (kb + kTopPerThread - 1) / kTopPerThread;
    const int threads = need < kTopThreads ? warps_for(need) : kTopThreads;
    const int sms = device_sm_count();
    const int blocks = cols < 2 * sms ? cols : 2 * sms;
    top_rows<B><<<blocks, threads, 0, stream>>>(reinterpret_cast<B*>(a), ld, rows, cols, composed, kb, nb, p, moved);
}

#define STARFACT_LASWP_TILE_INSTANCES(T)                                                                              \
    template void launch_laswp_gather<T>(T*, int64_t, const T*, int64_t, int, int, const int*, int, int64_t,          \
                                         cudaStream_t);                                                               \
    template void launch_laswp_spread<T>(T*, int64_t, int, int, const T*, int64_t, const int*, int, int64_t,          \
                                         cudaStream_t);                                                               \
    template void launch_laswp_top<T>(T*, int64_t, int, int, const int*, int, int64_t, int, const ExchangeBuffers<T>&, \
                                      cudaStream_t);
STARFACT_LASWP_TILE_INSTANCES(float)
STARFACT_LASWP_TILE_INSTANCES(double)
STARFACT_LASWP_TILE_INSTANCES(std::complex<float>)
STARFACT_LASWP_TILE_INSTANCES(std::complex<double>)
#undef STARFACT_LASWP_TILE_INSTANCES

}  // namespace starfact::detail::gpu

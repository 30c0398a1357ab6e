// Row interchanges of one tile-LU step on one tile column.
//
// LAPACK's laswp applies kb interchanges in order: row i with row p[i] >= i, i = 0 .. kb-1. Applied one
// after the other by one thread per column, each interchange waits for a global-memory round trip, so a
// step of 2048 pivots costs milliseconds whatever the width. Here the interchanges are first composed into
// one permutation of the rows they touch, and the rows are then moved in parallel:
//
//   Position q before interchange t holds the row it received last, or its own. Let prev(j) be the last
//   t < j with p[t] = j (the last interchange that sent something to row j before j's own turn) and
//   g(j) = g(prev(j)) when prev(j) exists, else j: g(j) is the original row at position j just before
//   interchange j. Rows i < kb are final after interchange i and receive what sits at p[i] then: g(s) when
//   s is the last t < i with p[t] = p[i], else p[i] itself. A row r >= kb ends with g(t) for the last t
//   with p[t] = r. The searches run on the pivots sorted by (row, index) in shared memory.
//
// Each block plans in shared memory (a bitonic sort of at most kMaxPlanned pivots), then moves the rows of
// its columns: every thread reads its pairs' source values into registers, the block synchronises, and
// the values are written to their destinations. A step with more pivots than kMaxPlanned falls back to the
// sequential form, one thread per column. The kernels only move values: complex tiles move as pairs of their real
// type (Bits, row_bits.cuh), so one instantiation per element size serves every precision.
#include <complex>
#include <cstdint>

#include "kernels/lu/lu_kernels.hpp"
#include "kernels/lu/pivot_plan.cuh"
#include "kernels/lu/row_bits.cuh"

namespace starfact::detail::gpu {
namespace {

constexpr int kThreads = 128;          // sequential form
constexpr int kSharedPivots = 8192;    // sequential form: pivots staged in shared memory (32 KiB)
constexpr int kMaxPlanned = 4096;      // planned form: pivots per step
constexpr int kPlanThreads = 1024;
constexpr int kPerThread = 2 * kMaxPlanned / kPlanThreads;  // moved values a thread holds per column

template <typename T>
__device__ __forceinline__ T* row_ptr(const ColumnTiles<T>& tiles, int64_t r, int j) {
    const int t = static_cast<int>(r / tiles.nb);
    const int ld = t == tiles.count - 1 ? tiles.ld_last : tiles.ld;
    return tiles.tile[t] + (r - static_cast<int64_t>(t) * tiles.nb) + static_cast<int64_t>(j) * ld;
}

template <typename T, bool SHARED>
__global__ void laswp_sequential(const ColumnTiles<T> tiles, const int* piv, int kb, int64_t offset) {
    extern __shared__ int staged[];
    const int* p = piv;
    if (SHARED) {
        for (int i = threadIdx.x; i < kb; i += blockDim.x) staged[i] = piv[i];
        __syncthreads();
        p = staged;
    }
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= tiles.cols) return;
    for (int i = 0; i < kb; ++i) {
        const int64_t r = p[i] - 1 - offset;
        if (r == i) continue;
        T* top = row_ptr(tiles, i, j);
        T* other = row_ptr(tiles, r, j);
        const T v = *top;
        *top = *other;
        *other = v;
    }
}

/// Shared memory of the planned form for kb pivots, sorted keys padded to a power of two.
struct PlanLayout {
    int padded;  // power of two >= kb
    __host__ __device__ explicit PlanLayout(int kb) : padded(1) {
        while (padded < kb) padded *= 2;
    }
    // keys (8 B each), then the pivot rows, the last same-row index, the last-target flags, prev() and
    // the pairs (dst, src)
    __host__ __device__ size_t bytes(int kb) const {
        return static_cast<size_t>(padded) * 8 + static_cast<size_t>(kb) * 4 * 4 + static_cast<size_t>(2 * kb) * 8;
    }
};

template <typename T>
__global__ void __launch_bounds__(kPlanThreads) laswp_planned(const ColumnTiles<T> tiles, const int* piv, int kb,
                                                              int64_t offset) {
    extern __shared__ unsigned long long smem[];
    const PlanLayout layout(kb);
    unsigned long long* key = smem;                        // (row << 32) | index, sorted
    int* row = reinterpret_cast<int*>(key + layout.padded);  // p[i], 0-based, relative to the column's first row
    int* same = row + kb;                                  // last t < i with p[t] = p[i], or -1
    int* last = same + kb;                                 // 1: no t > i has p[t] = p[i]
    int* prev = last + kb;                                 // last t < j with p[t] = j, or -1
    int* dst = prev + kb;                                  // pairs: dst[q] receives src[q]
    int* src = dst + 2 * kb;
    int* g = reinterpret_cast<int*>(key);                  // reuses the keys once they are read
    __shared__ int npairs;
    const int tid = threadIdx.x;

    if (tid == 0) npairs = 0;
    sort_pivot_keys(piv, kb, offset, layout.padded, key, row);
    link_pivots(key, kb, same, last, prev);
    __syncthreads();
    for (int j = tid; j < kb; j += blockDim.x) {
        int c = j;
        while (prev[c] >= 0) c = prev[c];
        g[j] = c;
    }
    __syncthreads();
    for (int i = tid; i < kb; i += blockDim.x) {
        const int s = same[i];
        const int from = s >= 0 ? g[s] : row[i];
        if (from != i) {
            const int q = atomicAdd(&npairs, 1);
            dst[q] = i;
            src[q] = from;
        }
        // Row p[i] below the first kb keeps what the last interchange sent to it.
        const int r = row[i];
        if (r >= kb && last[i]) {
            {
                const int q = atomicAdd(&npairs, 1);
                dst[q] = r;
                src[q] = g[i];
            }
        }
    }
    __syncthreads();
    const int n = npairs;
    for (int j = blockIdx.x; j < tiles.cols; j += gridDim.x) {
        T v[kPerThread];
#pragma unroll
        for (int u = 0; u < kPerThread; ++u) {
            const int q = tid + u * kPlanThreads;
            if (q < n) v[u] = *row_ptr(tiles, src[q], j);
        }
        __syncthreads();
#pragma unroll
        for (int u = 0; u < kPerThread; ++u) {
            const int q = tid + u * kPlanThreads;
            if (q < n) *row_ptr(tiles, dst[q], j) = v[u];
        }
        __syncthreads();
    }
}

int device_sm_count() {
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    return sms > 0 ? sms : 1;
}

template <typename T>
void launch_moves(const ColumnTiles<T>& tiles, const int* piv, int kb, int64_t offset, cudaStream_t stream) {
    if (kb <= kMaxPlanned) {
        const size_t bytes = PlanLayout(kb).bytes(kb);
        // per device (the attribute belongs to the current device's context); a cheap driver call
        cudaFuncSetAttribute(laswp_planned<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
        const int sms = device_sm_count();
        const int blocks = tiles.cols < sms ? tiles.cols : sms;
        laswp_planned<T><<<blocks, kPlanThreads, bytes, stream>>>(tiles, piv, kb, offset);
        return;
    }
    const int blocks = (tiles.cols + kThreads - 1) / kThreads;
    if (kb <= kSharedPivots)
        laswp_sequential<T, true><<<blocks, kThreads, kb * sizeof(int), stream>>>(tiles, piv, kb, offset);
    else
        laswp_sequential<T, false><<<blocks, kThreads, 0, stream>>>(tiles, piv, kb, offset);
}

}  // namespace

template <typename T>
void launch_laswp(const ColumnTiles<T>& tiles, const int* piv, int kb, int64_t offset, cudaStream_t stream) {
    if (tiles.cols == 0 || kb == 0) return;
    using B = typename Bits<T>::type;
    ColumnTiles<B> moved;
    moved.count = tiles.count;
    moved.nb = tiles.nb;
    moved.ld = tiles.ld;
    moved.ld_last = tiles.ld_last;
    moved.cols = tiles.cols;
    for (int t = 0; t < tiles.count; ++t) moved.tile[t] = reinterpret_cast<B*>(tiles.tile[t]);
    launch_moves<B>(moved, piv, kb, offset, stream);
}

template void launch_laswp<float>(const ColumnTiles<float>&, const int*, int, int64_t, cudaStream_t);
template void launch_laswp<double>(const ColumnTiles<double>&, const int*, int, int64_t, cudaStream_t);
template void launch_laswp<std::complex<float>>(const ColumnTiles<std::complex<float>>&, const int*, int, int64_t,
                                                cudaStream_t);
template void launch_laswp<std::complex<double>>(const ColumnTiles<std::complex<double>>&, const int*, int, int64_t,
                                                 cudaStream_t);

}  // namespace starfact::detail::gpu

// The plan of one step's row interchanges in shared memory, shared by the one-process row interchanges (laswp.cu) and
// the composed permutation of the tile-by-tile ones (laswp_tile.cu): the kb pivots sorted by (row, index), and for
// each interchange the earlier ones that sent to the same row or to its own row (laswp.cu's header says how the
// composed permutation follows from them). Every loop strides over the block's threads.
#pragma once
#include <cstdint>

namespace starfact::detail::gpu {

/// key[i] := (row << 32) | i with row[i] := piv[i] - 1 - offset (0-based in the tile column), for i < kb, and ~0 up to
/// `padded` (a power of two >= kb); then the keys sorted ascending by a bitonic sort. Ends with the block synchronised.
__device__ inline void sort_pivot_keys(const int* piv, int kb, int64_t offset, int padded, unsigned long long* key,
                                       int* row) {
    const int tid = threadIdx.x, threads = blockDim.x;
    for (int i = tid; i < padded; i += threads) {
        if (i < kb) {
            const int r = static_cast<int>(piv[i] - 1 - offset);
            row[i] = r;
            key[i] = (static_cast<unsigned long long>(r) << 32) | static_cast<unsigned>(i);
        } else {
            key[i] = ~0ull;
        }
    }
    __syncthreads();
    for (int size = 2; size <= padded; size *= 2) {
        for (int stride = size / 2; stride > 0; stride /= 2) {
            for (int i = tid; i < padded; i += threads) {
                const int partner = i ^ stride;
                if (partner > i) {
                    const bool up = (i & size) == 0;
                    const unsigned long long a = key[i], b = key[partner];
                    if ((a > b) == up) {
                        key[i] = b;
                        key[partner] = a;
                    }
                }
            }
            __syncthreads();
        }
    }
}

/// From the sorted keys: same[i] = the last t < i with p[t] = p[i], or -1; last[i] (when `last` is not null) = 1 when
/// no t > i has p[t] = p[i]; prev[j] = the last t < j with p[t] = j, or -1 (binary search), for j < kb. No
/// synchronisation at the end.
__device__ inline void link_pivots(const unsigned long long* key, int kb, int* same, int* last, int* prev) {
    const int tid = threadIdx.x, threads = blockDim.x;
    for (int s = tid; s < kb; s += threads) {
        const unsigned long long k = key[s];
        const int i = static_cast<int>(k & 0xffffffffu);
        same[i] = s > 0 && (key[s - 1] >> 32) == (k >> 32) ? static_cast<int>(key[s - 1] & 0xffffffffu) : -1;
        if (last) last[i] = s + 1 == kb || (key[s + 1] >> 32) != (k >> 32);
    }
    for (int j = tid; j < kb; j += threads) {
        const unsigned long long probe = (static_cast<unsigned long long>(j) << 32) | static_cast<unsigned>(j);
        int lo = 0, hi = kb;  // first key >= probe
        while (lo < hi) {
            const int mid = (lo + hi) / 2;
            if (key[mid] < probe) lo = mid + 1;
            else hi = mid;
        }
        prev[j] = lo > 0 && (key[lo - 1] >> 32) == static_cast<unsigned long long>(j)
                      ? static_cast<int>(key[lo - 1] & 0xffffffffu)
                      : -1;
    }
}

}  // namespace starfact::detail::gpu

// Device helpers shared by the batched LU kernels: the per-segment prologue of the getrf and
// inverse kernels (one segment of S lanes per matrix, S = the power of two >= n; lane i loads
// row i), the pivot searches (butterfly of xor shuffles, or warp reductions on the bits of |a|),
// the shared-memory layout of the broadcast pivot rows, and the tile staging copies.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/batched_lu/launch.hpp"

namespace starfact::batched::gpu {

__device__ __forceinline__ float abs_of(float x) { return fabsf(x); }
__device__ __forceinline__ double abs_of(double x) { return fabs(x); }

/// Smallest normal number: LAPACK scales by the reciprocal of a pivot at least this large, else divides.
template <typename T> __device__ __forceinline__ T safe_min();
template <> __device__ __forceinline__ float safe_min<float>() { return 1.17549435e-38f; }
template <> __device__ __forceinline__ double safe_min<double>() { return 2.2250738585072014e-308; }

/// Speculative reciprocal of a pivot candidate: 1/x (IEEE, correctly rounded) when |x| lies where
/// the division takes its fast path, 1 otherwise, so that no lane branches into the slow path
/// (zeros of idle lanes, denormals) before the pivot search; the pivot lane recomputes 1/x when
/// !rcp_fast(x) (rcp_exact). The empty asm statements hide the operands from the optimizer, which
/// would otherwise fold both back into one plain 1/x, or sink the division behind the search
/// (into the pivot lane's branch), where it would sit on the step's critical path.
template <typename T>
__device__ __forceinline__ bool rcp_fast(T x) {
    const T a = abs_of(x);
    if constexpr (sizeof(T) == 4) return a >= 0x1p-125f && a <= 0x1p+125f;
    else return a >= 0x1p-1021 && a <= 0x1p+1021;
}
template <typename T>
__device__ __forceinline__ void opaque(T& x) {
    if constexpr (sizeof(T) == 4) asm volatile("" : "+f"(x));
    else asm volatile("" : "+d"(x));
}
template <typename T>
__device__ __forceinline__ T rcp_speculative(T x) {
    T d = rcp_fast(x) ? x : T(1);
    opaque(d);
    T r = T(1) / d;
    opaque(r);
    return r;
}
/// 1/x from the speculative value: exact for every x (the slow path only outside rcp_fast's range).
template <typename T>
__device__ __forceinline__ T rcp_exact(T x, T speculative) {
    if (rcp_fast(x)) return speculative;
    opaque(x);
    return T(1) / x;
}

/// Pivot-search strategies (template argument SEARCH of the getrf / inverse kernels).
enum : int {
    kSearchButterfly = 0,  // log2(S) rounds of xor shuffles carrying (|a|, key)
    kSearchReduce = 1,     // __reduce_max_sync / __reduce_min_sync on the bits of |a| (segments of 16 or 32 lanes)
};
/// The strategy actually used: warp reductions need segments of at least 16 lanes (two or one per warp).
template <int S, int SEARCH>
STARFACT_BLU_CONSTEXPR int search_for() { return S >= 16 ? SEARCH : kSearchButterfly; }

/// Elements per broadcast pivot row in shared memory: the n entries, the pivot's reciprocal at
/// index n, padded to 16 bytes so that both buffers of the double buffer allow vector accesses.
template <typename T, int N>
STARFACT_BLU_CONSTEXPR int pivot_row_stride() {
    constexpr int v = 16 / static_cast<int>(sizeof(T));
    return (N + 1 + v - 1) / v * v;
}

/// Shared memory of one block of the getrf / inverse kernels: per matrix an N x N staging tile
/// (STAGE only) and the double buffer of the broadcast pivot row.
template <typename T, int N, int NFTB, bool STAGE>
STARFACT_BLU_CONSTEXPR size_t lu_smem_bytes() {
    return static_cast<size_t>(NFTB) * ((STAGE ? N * N : 0) + 2 * pivot_row_stride<T, N>()) * sizeof(T);
}

/// One matrix of the block, seen from one lane: which matrix, which row, where its shared memory is.
template <typename T>
struct Segment {
    int lane;      // lane in the segment = the row this lane owns
    int wlane;     // lane in the warp
    int64_t b;     // matrix index in the batch
    bool valid;    // b < batch
    bool active;   // valid and the lane owns a row (lane < n)
    T* tile;       // N x N staging tile (STAGE only)
    T* prow;       // two pivot-row buffers of pivot_row_stride elements
};

/// Copies an N x N column-major tile (leading dimension ld) into shared memory (leading
/// dimension N), the S lanes of the segment reading consecutive elements of each column.
template <typename T, int N, int S>
__device__ __forceinline__ void stage_in(T* sm, const T* A, int ld, int lane) {
#pragma unroll 4
    for (int idx = lane; idx < N * N; idx += S) {
        const int c = idx / N, r = idx - c * N;
        sm[idx] = A[r + static_cast<int64_t>(c) * ld];
    }
}
template <typename T, int N, int S>
__device__ __forceinline__ void stage_out(const T* sm, T* A, int ld, int lane) {
#pragma unroll 4
    for (int idx = lane; idx < N * N; idx += S) {
        const int c = idx / N, r = idx - c * N;
        A[r + static_cast<int64_t>(c) * ld] = sm[idx];
    }
}

/// Prologue of the getrf and inverse kernels: locates this lane's segment (matrix) in the block
/// and its shared memory, and loads row `lane` of the matrix into r (zeros for idle lanes),
/// directly or through the staging tile (STAGE).
template <typename T, int N, int NFTB, bool STAGE>
__device__ __forceinline__ Segment<T> open_segment(LuBatch<T> A, int64_t batch, unsigned char* smem, T (&r)[N]) {
    constexpr int S = seg_lanes(N);
    Segment<T> s;
    const int seg = threadIdx.x / S;
    s.lane = threadIdx.x % S;
    s.wlane = threadIdx.x % 32;
    s.b = static_cast<int64_t>(blockIdx.x) * NFTB + seg;
    s.valid = s.b < batch;
    s.active = s.valid && s.lane < N;
    s.tile = reinterpret_cast<T*>(smem) + seg * ((STAGE ? N * N : 0) + 2 * pivot_row_stride<T, N>());
    s.prow = s.tile + (STAGE ? N * N : 0);
    const T* Ab = s.valid ? A(s.b) : nullptr;
    if (STAGE) {
        if (s.valid) stage_in<T, N, S>(s.tile, Ab, A.ld, s.lane);
        __syncwarp();
#pragma unroll
        for (int j = 0; j < N; ++j) r[j] = s.active ? s.tile[s.lane + j * N] : T(0);
    } else {
#pragma unroll
        for (int j = 0; j < N; ++j) r[j] = s.active ? Ab[s.lane + static_cast<int64_t>(j) * A.ld] : T(0);
    }
    return s;
}

/// Maximum (MAX) or minimum of `key` over this lane's segment (S = 32: the warp; S = 16: its half), by
/// the warp-wide reduction instructions; the other half offers the reduction's identity. Every lane of
/// the warp must call it.
template <int S, bool MAX>
__device__ __forceinline__ unsigned segment_reduce(unsigned key, int wlane) {
    static_assert(S == 16 || S == 32, "warp reductions serve segments of 16 or 32 lanes");
    auto reduce = [](unsigned v) { return MAX ? __reduce_max_sync(0xffffffffu, v) : __reduce_min_sync(0xffffffffu, v); };
    if constexpr (S == 32) {
        return reduce(key);
    } else {
        constexpr unsigned identity = MAX ? 0u : 0xffffffffu;
        const bool upper = wlane >= 16;
        const unsigned lo = reduce(upper ? identity : key);
        const unsigned hi = reduce(upper ? key : identity);
        return upper ? hi : lo;
    }
}
template <int S>
__device__ __forceinline__ unsigned segment_max(unsigned key, int wlane) {
    return segment_reduce<S, true>(key, wlane);
}
template <int S>
__device__ __forceinline__ unsigned segment_min(unsigned key, int wlane) {
    return segment_reduce<S, false>(key, wlane);
}

/// Pivot search over the S lanes of a segment. Candidate lanes (rows not yet pivots) offer
/// x = their entry of the pivot column and their logical row position `pos` (< 32). Returns, in
/// every lane of the segment, key = (pos << 5) | wlane of the candidate with the largest |x|,
/// ties to the smallest position: LAPACK's i?amax rule (first maximum) in LAPACK's row order.
///  - butterfly: log2(S) xor-shuffle rounds carrying (|x|, key);
///  - reduce: |x| >= 0 orders like its bit pattern as an unsigned integer, so one
///    __reduce_max_sync finds the maximum (float; double: the high words, then the low words
///    among the lanes tied on the high word, only when some segment has such a tie), and one
///    __reduce_min_sync the smallest key among the lanes holding it.
template <int S, int SEARCH, typename T>
__device__ __forceinline__ unsigned pivot_search(T x, bool cand, int pos, int wlane) {
    const unsigned mine = (static_cast<unsigned>(pos) << 5) | static_cast<unsigned>(wlane);
    if constexpr (search_for<S, SEARCH>() == kSearchButterfly) {
        T v = cand ? abs_of(x) : T(-1);
        unsigned key = cand ? mine : 0xffffffffu;
#pragma unroll
        for (int off = S / 2; off > 0; off /= 2) {
            const T ov = __shfl_xor_sync(0xffffffffu, v, off);
            const unsigned ok = __shfl_xor_sync(0xffffffffu, key, off);
            if (ov > v || (ov == v && ok < key)) {
                v = ov;
                key = ok;
            }
        }
        return key;
    } else {
        // Every lane must reach every reduction: no reduction sits behind a short-circuit.
        __syncwarp();
        bool top;  // candidate holding its segment's maximum of |x|
        if constexpr (sizeof(T) == 4) {
            const unsigned bits = cand ? __float_as_uint(abs_of(x)) : 0u;
            const unsigned m = segment_max<S>(bits, wlane);
            top = cand && bits == m;
        } else {
            const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(abs_of(x)));
            const unsigned hi = cand ? static_cast<unsigned>(bits >> 32) : 0u;
            const unsigned mhi = segment_max<S>(hi, wlane);
            top = cand && hi == mhi;
            // Several candidates of one segment share the high word (rare): compare the low words.
            // The ballot is the same in every lane, so the whole warp takes the branch or none.
            const unsigned tied = __ballot_sync(0xffffffffu, top);
            const unsigned t0 = S == 32 ? tied : (tied & 0xffffu), t1 = S == 32 ? 0u : (tied >> 16);
            if ((t0 & (t0 - 1u)) != 0u || (t1 & (t1 - 1u)) != 0u) {
                const unsigned lo = top ? static_cast<unsigned>(bits) : 0u;
                const unsigned mlo = segment_max<S>(lo, wlane);
                top = top && lo == mlo;
            }
        }
        return segment_min<S>(top ? mine : 0xffffffffu, wlane);
    }
}

}  // namespace starfact::batched::gpu

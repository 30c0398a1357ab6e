// Batched small Cholesky, *vector-row* resident kernel (orders up to 128; written for float n >= 65,
// where the resident kernel of potrf_resident.cuh spent as many instructions on its redundant panel
// factorizations as on the trailing update; the tuning table's choice at most orders 49..128 of both
// precisions: tuning.hpp, docs/batched_cholesky.md).
//
// Frame: one matrix per thread block of NT threads, its lower triangle padded with the identity to
// wp = 8 ceil(n / 8) in the panel-packed column-major shared-memory layout of potrf_resident.cuh with a
// 16-byte pad per column (vec::ldp, vec::off: every column of every panel starts on 16 bytes), loaded once with
// bulk copies, factored by 8-column panels (right-looking), written back once.
//
// Per panel p (k0 = 8p, rows = wp - k0, M = np - 1 - p trailing block columns):
//   (T) every thread, two consecutive rows at a time: the rows below the diagonal block by forward
//       substitution with the factored diagonal block, y_c = (a_c - sum_{k<c} y_k L_ck) / L_cc, 1 / L_cc read from a
//       small shared array (backward stable per row, unlike a product with inv(L_pp));     barrier
//   (U) warp 0: the next diagonal block, S(p + 1, p + 1) -= L(p + 1, p) L(p + 1, p)^T (two elements per
//       lane), then its 8 x 8 Cholesky (every lane the same instructions, full-range refined rsqrt as
//       in potrf_frag.cuh: no division, no sqrt), L stored by columns, 1 / L_cc into the array;
//       warps 1..NW-1: the rest of the trailing update, S(i, j) -= sum_c L(i, c) L(j, c), in items of
//       16 bytes (RI = 16 / sizeof(T)) of consecutive rows (4 float rows, 2 double rows) by 8 columns of
//       one block column:
//       per panel column one 16-byte read of the item's rows and two (float) or four (double) broadcast
//       16-byte reads of the 8 column values; the item's accumulators are read and written once, 16
//       bytes per column;                                                                 barrier
// So the diagonal block is factored once per panel (not once per thread, as in potrf_resident.cuh's
// phase (A)), the serial chain of the next panel overlaps the update of the rest (look-ahead of one
// block), and every shared-memory access of the update is a 16-byte vector.
// Load and store: one column per thread, each column one bulk asynchronous copy (cp.async.bulk, sm_90)
// between A and its 16-byte-aligned slot; when A's columns do not start on 16 bytes (odd lda in float,
// say), the column lands shifted by its phase and the thread shifts it in place (cp.async pieces instead
// of bulk copies cost 4,500 (16-byte pieces) to 7,700 (elements) instructions per matrix at
// n = 96, against ~17,000 for the factorization). A's upper triangle is never written.
// info: the first (1-based) column whose pivot is not a positive finite number (warp 0 computes every
// pivot; thread 0 reports); the math goes on with NaNs. Only the lower n x n triangle is written.
// The shared-memory layout, the 16-byte accesses, the bulk copies, the load and the store: potrf_vec_memory.cuh.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/batched_chol/potrf_frag.cuh"
#include "kernels/batched_chol/potrf_resident.cuh"
#include "kernels/batched_chol/potrf_vec_memory.cuh"

namespace starfact::batched::gpu {

namespace vec {

/// Shared-memory elements for order n: the panel-packed triangle, 16 elements for 1 / L_cc and 16 bytes (or
/// more) for the load's mbarrier.
template <typename T>
__host__ __device__ constexpr int smem_elems(int n) { return tri_elems<T>(n) + 16 + 16 / 4; }

/// Factors the 8 x 8 diagonal block at P (column-major, leading dimension ld, lower part read) on every
/// lane of the calling warp (same inputs, same instructions, same bits): right-looking, L_cc = p_c r_c,
/// L_ic = a_ic r_c with r_c = frag::pivot_rsqrt(p_c) ~ 1 / sqrt(p_c). Lane c stores column c of L (its
/// upper part as zeros), lane 0 the r_c into dinv[0..7]. Returns the first bad pivot column (1-based) or 0.
/// The caller orders the warp's earlier writes of the block before the call (__syncwarp).
template <typename T>
__device__ __forceinline__ int factor_diag(T* P, int ld, T* dinv, int lane) {
    T a[8][8];  // a[i][j], j <= i used
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        T col[8];
        ld8(P + j * ld, col);
#pragma unroll
        for (int i = j; i < 8; ++i) a[i][j] = col[i];
    }
    __syncwarp();  // every lane has read the block before lanes 0..7 overwrite it
    unsigned bad = 0;  // bit c: pivot c is not a positive finite number
    T r[8];
#pragma unroll
    for (int c = 0; c < 8; ++c) {
        const T piv = a[c][c];
        bad |= good_pivot(piv) ? 0u : 1u << c;
        r[c] = frag::pivot_rsqrt(piv);
        a[c][c] = piv * r[c];
#pragma unroll
        for (int i = c + 1; i < 8; ++i) a[i][c] *= r[c];
#pragma unroll
        for (int i = c + 1; i < 8; ++i)
#pragma unroll
            for (int j = c + 1; j <= i; ++j) a[i][j] = fma(-a[i][c], a[j][c], a[i][j]);
        if (lane == c) {  // column c is final
            T col[8];
#pragma unroll
            for (int i = 0; i < 8; ++i) col[i] = i >= c ? a[i][c] : T(0);
            st8(P + c * ld, col);
        }
    }
    if (lane == 0) st8(dinv, r);
    return __ffs(bad);  // the first bad column, 1-based, or 0
}

/// (T) of panel P (leading dimension ld, rows rows): rows 8.. by forward substitution against the
/// factored diagonal block (rows 0..7) and dinv, two consecutive rows per thread (rows 8 + 2 t, 9 + 2 t,
/// then + 2 NT; rows - 8 is a multiple of 8), so that the diagonal block's columns are read once per two
/// rows.
template <typename T, int NT>
__device__ __forceinline__ void solve_panel(T* P, int ld, int rows, const T* dinv, int t) {
    for (int r = 8 + 2 * t; r < rows; r += 2 * NT) {
        T y0[8], y1[8];
#pragma unroll
        for (int c = 0; c < 8; ++c) ld2(P + r + c * ld, y0[c], y1[c]);
        T d[8];
        ld8(dinv, d);
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            T l[8];  // column c of L(p, p): rows c + 1.. used
            if (c < 7) ld8(P + c * ld, l);
            y0[c] *= d[c];
            y1[c] *= d[c];
#pragma unroll
            for (int i = c + 1; i < 8; ++i) {
                y0[i] = fma(-y0[c], l[i], y0[i]);
                y1[i] = fma(-y1[c], l[i], y1[i]);
            }
        }
#pragma unroll
        for (int c = 0; c < 8; ++c) st2(P + r + c * ld, y0[c], y1[c]);
    }
}

/// (U), warp 0's first part: the next diagonal block, D = S(p + 1, p + 1) (rows 0..7 of panel p + 1)
/// -= L L^T with L = rows 8..15 of panel p; lane l: column l / 4, rows 2 (l % 4) and 2 (l % 4) + 1
/// (the upper part too: harmless, never read).
template <typename T>
__device__ __forceinline__ void update_next_diag(const T* P, int ld, T* D, int ldd, int lane) {
    const int j = lane >> 2, i = 2 * (lane & 3);
    T c0 = D[i + j * ldd], c1 = D[i + 1 + j * ldd];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        const T b = P[8 + j + k * ld];
        c0 = fma(-P[8 + i + k * ld], b, c0);
        c1 = fma(-P[9 + i + k * ld], b, c1);
    }
    D[i + j * ldd] = c0;
    D[i + 1 + j * ldd] = c1;
}

/// (U), warps 1..NW-1: S(i, j) -= sum_c L(i, c) L(j, c) for the items of block columns q = p + 1 ..
/// np - 1 (rows 8q .. wp - 1, in RI-row items: block column q has 8 (np - q) / RI of them, in row order),
/// the first 8 / RI items (the diagonal block of column p + 1, warp 0's) excepted; item e + U s for
/// update thread e (U of them). Column block q's 8 values per panel column are one broadcast.
template <typename T, int U, int RI>
__device__ __forceinline__ void update_rest(T* S, int wp, int p, int e0) {
    constexpr int E = V16<T>::E, V = RI / E;  // V 16-byte vectors per item column
    static_assert(RI % E == 0 && 8 % RI == 0, "RI: rows per item, a multiple of 16 bytes dividing 8");
    const int np = wp / 8, k0 = 8 * p, ld = ldp<T>(wp, p);
    const T* P = S + off<T>(wp, p);
    // Block column a = q - p - 1 (a = 0 .. M - 1, M = np - 1 - p) holds h (M - a) items (h = 8 / RI), so
    // items a h (2M + 1 - a) / 2 .. of the panel are its; item e's column is the largest a with
    // start(a) <= e, from the quadratic's root (exact in float: every value is an integer below 2^11)
    // and one correction step each way, instead of a walk over the columns.
    constexpr int h = 8 / RI;
    const int M = np - 1 - p, m2 = 2 * M + 1;
    auto start = [&](int a) { return h * a * (m2 - a) / 2; };
    for (int e = h + e0; e < h * M * (M + 1) / 2; e += U) {
        int a = static_cast<int>(0.5f * (static_cast<float>(m2) -
                                         sqrtf(static_cast<float>(m2 * m2 - 8 * e / h))));
        a = start(a + 1) <= e ? a + 1 : a;
        a = start(a) > e ? a - 1 : a;
        const int q = p + 1 + a, g = e - start(a), ldq = ldp<T>(wp, q);
        T* C = S + off<T>(wp, q) + RI * g;                // rows 8q + RI g .., columns of panel q
        const T* A = P + (8 * q - k0) + RI * g;        // the same rows of panel p
        const T* B = P + (8 * q - k0);                 // rows 8q .. 8q + 7 of panel p
        T acc[8][V][E];
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
            for (int v = 0; v < V; ++v) ld16(C + j * ldq + E * v, acc[j][v]);
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            T a[V][E], b[8];
#pragma unroll
            for (int v = 0; v < V; ++v) ld16(A + k * ld + E * v, a[v]);
            ld8(B + k * ld, b);
#pragma unroll
            for (int j = 0; j < 8; ++j)
#pragma unroll
                for (int v = 0; v < V; ++v)
#pragma unroll
                    for (int s = 0; s < E; ++s) acc[j][v][s] = fma(-a[v][s], b[j], acc[j][v][s]);
        }
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
            for (int v = 0; v < V; ++v) st16(C + j * ldq + E * v, acc[j][v]);
    }
}

}  // namespace vec

/// potrf_batched, vector-row resident kernel (the design at the top of this file), orders n <= 128: one
/// matrix per block of NT threads (grid-stride over the batch), dynamic shared memory vec::smem_elems(n)
/// elements; MINB blocks per SM asked of ptxas.
template <typename T, int NT, int MINB, int RI = 16 / sizeof(T)>
__global__ void __launch_bounds__(NT, MINB)
    potrf_vec_kernel(BatchRef<T> A, int n, int lda, int* info, int64_t batch) {
    using namespace resident;
    static_assert(NT % 32 == 0 && NT >= 64 && NT <= 512, "NT: whole warps, 64..512");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* S = reinterpret_cast<T*>(smem_raw);
    const int t = static_cast<int>(threadIdx.x), w = t >> 5, lane = t & 31;
    const int wp = pad8(n), np = wp / 8;
    T* dinv = S + vec::tri_elems<T>(n);
    const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(dinv + 16));  // the load's mbarrier
    if (t == 0) vec::mbar_init(bar, NT);
    __syncthreads();
    unsigned parity = 0;
    if (blockIdx.x < batch) vec::load_issue<T, NT>(A.get(blockIdx.x), n, lda, wp, S, t, bar);
    for (int64_t i = blockIdx.x; i < batch; i += gridDim.x, parity ^= 1) {
        T* Ai = A.get(i);
        vec::load_finish<T, NT>(Ai, n, lda, wp, S, t, bar, parity);
        __syncthreads();
        int info_i = 0;
        if (w == 0) info_i = vec::factor_diag<T>(S, vec::ldp<T>(wp, 0), dinv, lane);
        __syncthreads();
        for (int p = 0; p + 1 < np; ++p) {
            const int ld = vec::ldp<T>(wp, p);
            T* P = S + vec::off<T>(wp, p);
            vec::solve_panel<T, NT>(P, ld, wp - 8 * p, dinv, t);
            __syncthreads();  // panel p final; dinv free
            if (w == 0) {
                T* D = S + vec::off<T>(wp, p + 1);
                const int ldd = vec::ldp<T>(wp, p + 1);
                vec::update_next_diag<T>(P, ld, D, ldd, lane);
                __syncwarp();  // the block, written by every lane, is read by every lane
                const int fail = vec::factor_diag<T>(D, ldd, dinv, lane);
                if (info_i == 0 && fail) info_i = 8 * (p + 1) + fail;
            } else {
                vec::update_rest<T, NT - 32, RI>(S, wp, p, t - 32);
            }
            // the last writes of S before the bulk stores read it and the next bulk loads overwrite it
            if (p + 2 == np) vec::fence_async_shared();
            __syncthreads();
        }
        if (np == 1) {  // a single panel: factored above
            vec::fence_async_shared();
            __syncthreads();
        }
        // Each thread stores its own columns, waits until its bulk stores have read their slots and
        // issues the next matrix's copies into them (no other thread touches them until the barrier
        // after the next load_finish), so the next load's latency overlaps this store and its barrier.
        vec::store_matrix<T, NT>(Ai, n, lda, wp, S, t);
        if (i + gridDim.x < batch) {
            vec::fence_async_shared();  // this thread's reads of its slots before the bulk loads write them
            vec::load_issue<T, NT>(A.get(i + gridDim.x), n, lda, wp, S, t, bar);
        }
        if (t == 0 && info) info[i] = info_i;
    }
    vec::bulk_wait();  // the last bulk stores are complete
}

}  // namespace starfact::batched::gpu

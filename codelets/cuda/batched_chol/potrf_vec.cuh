// Batched small Cholesky, *vector-row* resident kernel (orders up to 128; seventh session, written for
// float n >= 65, where the resident kernel of potrf_resident.cuh spent as many instructions on its
// redundant panel factorizations as on the trailing update; the table's choice for float n >= 57 and for
// double n >= 73 when the columns are 16-byte aligned: docs/batched_cholesky.md).
//
// Frame: one matrix per thread block of NT threads, its lower triangle padded with the identity to
// wp = 8 ceil(n / 8) in the panel-packed column-major shared-memory layout of potrf_resident.cuh
// (resident::ldp, resident::off: every column of every panel starts on 16 bytes), loaded once with
// cp.async, factored by 8-column panels (right-looking), written back once.
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
// Load and store: panel by panel with every thread, 16-byte zero-filling cp.async pieces when A's columns
// start on 16 bytes (aligned16), element copies otherwise; A's upper triangle is never read.
// info: the first (1-based) column whose pivot is not a positive finite number (warp 0 computes every
// pivot; thread 0 reports); the math goes on with NaNs. Only the lower n x n triangle is written.
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "codelets/cuda/batched_chol/potrf_frag.cuh"
#include "codelets/cuda/batched_chol/potrf_resident.cuh"

namespace starfact::batched::gpu {

namespace vec {

/// 16 bytes of T.
template <typename T> struct V16;
template <> struct V16<float> {
    using V = float4;
    static constexpr int E = 4;
    __device__ static void get(V v, float (&x)[4]) { x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w; }
    __device__ static V make(const float (&x)[4]) { return make_float4(x[0], x[1], x[2], x[3]); }
};
template <> struct V16<double> {
    using V = double2;
    static constexpr int E = 2;
    __device__ static void get(V v, double (&x)[2]) { x[0] = v.x, x[1] = v.y; }
    __device__ static V make(const double (&x)[2]) { return make_double2(x[0], x[1]); }
};
/// Reads E = 16 / sizeof(T) consecutive elements at p (16-byte aligned).
template <typename T>
__device__ __forceinline__ void ld16(const T* p, T (&x)[V16<T>::E]) {
    const typename V16<T>::V v = *reinterpret_cast<const typename V16<T>::V*>(p);  // one 16-byte load
    V16<T>::get(v, x);
}
template <typename T>
__device__ __forceinline__ void st16(T* p, const T (&x)[V16<T>::E]) {
    // One 16-byte store to shared memory. Written out: in the update loop nvcc 13.0 split the plain vector
    // assignment into four 4-byte stores (4-way bank conflicts: consecutive threads 16 bytes apart).
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
    if constexpr (sizeof(T) == 4)
        asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(a), "f"(x[0]), "f"(x[1]), "f"(x[2]), "f"(x[3])
                     : "memory");
    else
        asm volatile("st.shared.v2.f64 [%0], {%1, %2};" ::"r"(a), "d"(x[0]), "d"(x[1]) : "memory");
}
/// Reads the 8 consecutive elements at p (16-byte aligned) into x.
template <typename T>
__device__ __forceinline__ void ld8(const T* p, T (&x)[8]) {
    constexpr int E = V16<T>::E;
#pragma unroll
    for (int h = 0; h < 8; h += E) {
        T v[E];
        ld16(p + h, v);
#pragma unroll
        for (int e = 0; e < E; ++e) x[h + e] = v[e];
    }
}

/// Two consecutive elements (8 bytes in float, 16 in double; aligned) from / to shared memory.
template <typename T>
__device__ __forceinline__ void ld2(const T* p, T& x0, T& x1) {
    if constexpr (sizeof(T) == 4) {
        const float2 v = *reinterpret_cast<const float2*>(p);
        x0 = v.x, x1 = v.y;
    } else {
        const double2 v = *reinterpret_cast<const double2*>(p);
        x0 = v.x, x1 = v.y;
    }
}
template <typename T>
__device__ __forceinline__ void st2(T* p, T x0, T x1) {
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
    if constexpr (sizeof(T) == 4) asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(a), "f"(x0), "f"(x1) : "memory");
    else asm volatile("st.shared.v2.f64 [%0], {%1, %2};" ::"r"(a), "d"(x0), "d"(x1) : "memory");
}
/// 16 bytes to global memory (aligned).
template <typename T>
__device__ __forceinline__ void st16_global(T* p, const T (&x)[V16<T>::E]) {
    if constexpr (sizeof(T) == 4)
        asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(x[0]), "f"(x[1]), "f"(x[2]), "f"(x[3])
                     : "memory");
    else asm volatile("st.global.v2.f64 [%0], {%1, %2};" ::"l"(p), "d"(x[0]), "d"(x[1]) : "memory");
}

/// Asynchronous copy of B = sizeof(T) or 16 bytes into shared memory (byte address dst), of which the first
/// `bytes` come from src and the rest is zero-filled.
template <int B>
__device__ __forceinline__ void cp_async(unsigned dst, const void* src, int bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(B), "r"(bytes) : "memory");
}

/// Whether matrix A with leading dimension lda can move in 16-byte pieces: every column starts on 16
/// bytes (then row i of every column sits at the same offset modulo 16 in A and in the panel layout).
template <typename T>
__device__ __forceinline__ bool aligned16(const T* A, int lda) {
    return lda % V16<T>::E == 0 && (reinterpret_cast<uintptr_t>(A) & 15) == 0;
}

/// floor(e / d) for 0 <= e < 2^12, 1 <= d <= 2^10, by one multiplication with inv ~ 1 / d (float, the
/// hardware reciprocal: relative error ~2^-23): the exact quotient (e + 1/2) / d is at least 1 / (2 d)
/// away from an integer, far above the rounding error (< 2^12 2^-22 / d).
__device__ __forceinline__ int div_small(int e, float inv) {
    return static_cast<int>((static_cast<float>(e) + 0.5f) * inv);
}

/// Loads A (order n) into the panel-packed layout padded with the identity to order wp, panel by panel,
/// every thread of the block taking part (no per-column setup): the 8 x 8 diagonal block's lower part
/// element by element (threads 0..63: column t / 8, row t % 8), then the rows below it (8 columns, R - 8
/// rows each) in pieces of PE rows, enumerated linearly over the panel (piece e: column e / P, piece e % P
/// of the column, P pieces per column). PE = 16 / sizeof(T) (16-byte copies) when A is aligned16, else 1
/// (one cp.async per element: n = 95 with lda = 95 costs ~20 % more than n = 96; staging four elements
/// through registers into one 16-byte shared store was measured slower still: docs).
/// Copies are zero-filling cp.async: rows at or beyond n, and every row of a padding column j >= n, get
/// zeros (source size clamped to the rows < n). A's upper triangle is never read; the upper part of the
/// diagonal blocks stays unset (never read). Then the padding's unit diagonal, written by the thread that
/// zero-filled it after its copies landed. Waits for the copies (the caller's barrier publishes them).
template <typename T, int NT, int PE>
__device__ __forceinline__ void load_panels(const T* A, int n, int lda, int wp, unsigned s0, int t) {
    const int np = wp / 8;
    int offp = 0, ld = wp + 4;  // panel p's offset and leading dimension (resident::off, ldp)
    const T* Ap = A;            // A(k0, k0)
    for (int p = 0; p < np; ++p) {
        const int k0 = 8 * p, P = (wp - k0 - 8) / PE;
        if (t < 64) {
            const int c = t >> 3, i = t & 7;
            if (i >= c) {
                const bool in = k0 + i < n;  // row k0 + i >= column k0 + c
                cp_async<sizeof(T)>(s0 + sizeof(T) * (offp + c * ld + i),
                                    in ? static_cast<const void*>(Ap + static_cast<int64_t>(c) * lda + i) : A,
                                    in ? static_cast<int>(sizeof(T)) : 0);
            }
        }
        const float inv = __fdividef(1.0f, static_cast<float>(P > 0 ? P : 1));
        for (int e = t; e < 8 * P; e += NT) {
            const int c = div_small(e, inv), r = 8 + PE * (e - c * P);  // column k0 + c, rows k0 + r ..
            const int rows = k0 + c < n ? min(max(n - k0 - r, 0), PE) : 0;
            cp_async<PE * sizeof(T)>(s0 + sizeof(T) * (offp + c * ld + r),
                                     rows > 0 ? static_cast<const void*>(Ap + static_cast<int64_t>(c) * lda + r) : A,
                                     rows * static_cast<int>(sizeof(T)));
        }
        offp += 8 * ld;
        ld -= 8;
        Ap += 8 * static_cast<int64_t>(lda) + 8;
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    for (int j = n; j < wp; ++j)  // the padding's unit diagonal: element (j, j) was zero-filled by thread 9 (j % 8)
        if (t == 9 * (j & 7)) {
            T* S = reinterpret_cast<T*>(__cvta_shared_to_generic(s0));
            S[resident::off(wp, j >> 3) + (j & 7) * resident::ldp(wp, j >> 3) + (j & 7)] = T(1);
        }
}
template <typename T, int NT>
__device__ __forceinline__ void load_matrix(const T* A, int n, int lda, int wp, T* S, int t) {
    const unsigned s0 = static_cast<unsigned>(__cvta_generic_to_shared(S));
    if (aligned16(A, lda)) load_panels<T, NT, V16<T>::E>(A, n, lda, wp, s0, t);  // block-uniform
    else load_panels<T, NT, 1>(A, n, lda, wp, s0, t);
}

/// Stores the lower n x n triangle of S back into A, panel by panel as load_panels: the diagonal block's
/// lower part element by element, the rows below in pieces of PE rows (16-byte stores when A is aligned16;
/// a piece that reaches row n stores its rows < n one by one).
template <typename T, int NT, int PE>
__device__ __forceinline__ void store_panels(T* A, int n, int lda, int wp, const T* S, int t) {
    const int np = (n + 7) / 8;  // panels holding columns < n
    int offp = 0, ld = wp + 4;
    T* Ap = A;
    for (int p = 0; p < np; ++p) {
        const int k0 = 8 * p, P = (wp - k0 - 8) / PE;
        if (t < 64) {
            const int c = t >> 3, i = t & 7;
            if (i >= c && k0 + i < n) Ap[static_cast<int64_t>(c) * lda + i] = S[offp + c * ld + i];
        }
        const float inv = __fdividef(1.0f, static_cast<float>(P > 0 ? P : 1));
        for (int e = t; e < 8 * P; e += NT) {
            const int c = div_small(e, inv), r = 8 + PE * (e - c * P);
            if (k0 + r >= n) continue;  // rows r.. are padding (then so are they for every later e of this column)
            T* dst = Ap + static_cast<int64_t>(c) * lda + r;
            const T* src = S + offp + c * ld + r;
            if constexpr (PE == 1) {
                *dst = *src;
            } else {
                T v[PE];
                ld16(src, v);
                if (k0 + r + PE <= n) {
                    st16_global(dst, v);
                } else {
#pragma unroll
                    for (int k = 0; k < PE; ++k)
                        if (k0 + r + k < n) dst[k] = v[k];
                }
            }
        }
        offp += 8 * ld;
        ld -= 8;
        Ap += 8 * static_cast<int64_t>(lda) + 8;
    }
}
template <typename T, int NT>
__device__ __forceinline__ void store_matrix(T* A, int n, int lda, int wp, const T* S, int t) {
    if (aligned16(A, lda)) store_panels<T, NT, V16<T>::E>(A, n, lda, wp, S, t);
    else store_panels<T, NT, 1>(A, n, lda, wp, S, t);
}

/// Writes x to the 8 consecutive elements at p (16-byte aligned).
template <typename T>
__device__ __forceinline__ void st8(T* p, const T (&x)[8]) {
    constexpr int E = V16<T>::E;
#pragma unroll
    for (int h = 0; h < 8; h += E) {
        T v[E];
#pragma unroll
        for (int e = 0; e < E; ++e) v[e] = x[h + e];
        st16(p + h, v);
    }
}

/// Shared-memory elements for order n: the panel-packed triangle and 16 elements for 1 / L_cc.
__host__ __device__ constexpr int smem_elems(int n) { return resident::smem_elems(n) + 16; }

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
    using namespace resident;
    const int np = wp / 8, k0 = 8 * p, ld = ldp(wp, p);
    const T* P = S + off(wp, p);
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
        const int q = p + 1 + a, g = e - start(a), ldq = ldp(wp, q);
        T* C = S + off(wp, q) + RI * g;                // rows 8q + RI g .., columns of panel q
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
    T* dinv = S + resident::smem_elems(n);
    for (int64_t i = blockIdx.x; i < batch; i += gridDim.x) {
        T* Ai = A.get(i);
        vec::load_matrix<T, NT>(Ai, n, lda, wp, S, t);
        __syncthreads();
        int info_i = 0;
        if (w == 0) info_i = vec::factor_diag<T>(S, ldp(wp, 0), dinv, lane);
        __syncthreads();
        for (int p = 0; p + 1 < np; ++p) {
            const int ld = ldp(wp, p);
            T* P = S + off(wp, p);
            vec::solve_panel<T, NT>(P, ld, wp - 8 * p, dinv, t);
            __syncthreads();  // panel p final; dinv free
            if (w == 0) {
                T* D = S + off(wp, p + 1);
                const int ldd = ldp(wp, p + 1);
                vec::update_next_diag<T>(P, ld, D, ldd, lane);
                __syncwarp();  // the block, written by every lane, is read by every lane
                const int fail = vec::factor_diag<T>(D, ldd, dinv, lane);
                if (info_i == 0 && fail) info_i = 8 * (p + 1) + fail;
            } else {
                vec::update_rest<T, NT - 32, RI>(S, wp, p, t - 32);
            }
            __syncthreads();
        }
        vec::store_matrix<T, NT>(Ai, n, lda, wp, S, t);
        if (t == 0 && info) info[i] = info_i;
        __syncthreads();  // S is reused by the next matrix
    }
}

}  // namespace starfact::batched::gpu

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
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/batched_chol/potrf_frag.cuh"
#include "kernels/batched_chol/potrf_resident.cuh"

namespace starfact::batched::gpu {

namespace vec {

/// 16 bytes of T.
template <typename T> struct V16;
template <> struct V16<float> {
    using V = float4;
    static constexpr int E = 4;
    __device__ static void get(V v, float (&x)[4]) { x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w; }
};
template <> struct V16<double> {
    using V = double2;
    static constexpr int E = 2;
    __device__ static void get(V v, double (&x)[2]) { x[0] = v.x, x[1] = v.y; }
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

/// The kernel's shared-memory layout: the padded lower triangle by 8-column panels, column-major per panel,
/// panel p (k0 = 8p) holding rows k0 .. wp - 1 of its 8 columns with leading dimension ldp = wp - 8p + pad
/// (resident::ldp's layout, but the pad is 16 bytes in both precisions, kPad elements). Every column starts
/// on 16 bytes, and column starts are an odd number of 16-byte units apart (ldp * sizeof(T) = 16 mod 32
/// bytes), so 16-byte accesses of 8 threads at the same row of 8 consecutive columns (the shifts of the
/// load and the store) fall on 8 different bank groups. (resident::ldp's pad of 4 double elements, 32 bytes,
/// gives 2-way conflicts there and, at n = 105..112, 1.9 KB more per matrix than fits four blocks per SM.)
template <typename T>
constexpr int kPad = 16 / static_cast<int>(sizeof(T));
/// Leading dimension of panel p for padded order wp (elements).
template <typename T>
__host__ __device__ constexpr int ldp(int wp, int p) { return wp - 8 * p + kPad<T>; }
/// Offset of panel p (elements): the 8 columns of each earlier panel.
template <typename T>
__host__ __device__ constexpr int off(int wp, int p) { return 8 * p * (wp + kPad<T>) - 32 * p * (p - 1); }
/// Elements of the triangle for order n.
template <typename T>
__host__ __device__ constexpr int tri_elems(int n) { return off<T>(resident::pad8(n), resident::pad8(n) / 8); }
static_assert(off<float>(128, 16) == resident::smem_elems(128), "float keeps resident::ldp's layout");

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
// Bulk asynchronous copies (sm_90 cp.async.bulk, the copy engine behind TMA, without a tensor map):
// contiguous runs of 16-byte multiples between global and shared memory, 16-byte aligned at both ends.
// Loads complete on an mbarrier (transaction bytes), stores in bulk groups.
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
/// Adds `bytes` to the transactions the current phase of the mbarrier waits for.
__device__ __forceinline__ void mbar_expect(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
    asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(bar) : "memory");
}
/// Waits until the phase of the given parity has completed.
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
    asm volatile(
        "{\n\t.reg .pred done;\n"
        "WAIT_%=:\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
        "@!done bra WAIT_%=;\n\t}" ::"r"(bar),
        "r"(parity)
        : "memory");
}
/// `bytes` (a multiple of 16) from global src to shared dst (both 16-byte aligned), completing on bar.
__device__ __forceinline__ void bulk_load(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}
/// `bytes` (a multiple of 16) from shared src to global dst (both 16-byte aligned), in this thread's
/// current bulk group.
__device__ __forceinline__ void bulk_store(void* dst, unsigned src, unsigned bytes) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
/// Waits until this thread's bulk stores have read their shared-memory sources.
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
/// Waits until this thread's bulk stores are complete.
__device__ __forceinline__ void bulk_wait() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
/// Orders this thread's generic-proxy shared-memory accesses with later async-proxy (bulk copy) ones.
__device__ __forceinline__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

/// One element (4 or 8 bytes) from global src to shared dst by cp.async; cp_async_wait_all waits for this
/// thread's copies.
template <typename T>
__device__ __forceinline__ void cp_async_elem(unsigned dst, const T* src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(src), "n"(sizeof(T)) : "memory");
}
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

/// Elements of T below p's 16-byte boundary: p's offset modulo 16, in elements (0 .. E - 1).
template <typename T>
__device__ __forceinline__ int phase16(const T* p) {
    return static_cast<int>((reinterpret_cast<uintptr_t>(p) & 15) / sizeof(T));
}

/// The E elements at w[g .. g + E - 1] of the 2E elements (lo, hi) for a runtime 0 < g < E (selects).
template <typename T>
__device__ __forceinline__ void window(const T (&lo)[V16<T>::E], const T (&hi)[V16<T>::E], int g, T (&out)[V16<T>::E]) {
    if constexpr (V16<T>::E == 2) {  // g = 1
        out[0] = lo[1], out[1] = hi[0];
    } else {  // by (g & 2), then (g & 1)
        T w[8], h[6];
#pragma unroll
        for (int k = 0; k < 4; ++k) w[k] = lo[k], w[4 + k] = hi[k];
#pragma unroll
        for (int k = 0; k < 6; ++k) h[k] = (g & 2) ? w[k + 2] : w[k];
#pragma unroll
        for (int k = 0; k < 4; ++k) out[k] = (g & 1) ? h[k + 1] : h[k];
    }
}

/// In place, c[i] = c[i + f] for i = 0 .. L - 1 (0 < f < E; c 16-byte aligned), front to back by the
/// calling thread, two output vectors per step: the step's two input vectors are read (both in flight),
/// then its two outputs written; the three vector registers rotate their roles over three unrolled steps,
/// so no register is copied (a loop that rotated its buffer by copies and zero-filled it before predicated
/// reads took 27 instructions per two vectors at double n = 121 under Nsight Compute, a tenth of the
/// kernel's instructions with odd lda). Input vectors are read only
/// while they hold data (below L + f).
template <typename T>
__device__ __forceinline__ void shift_down(T* c, int f, int L) {
    constexpr int E = V16<T>::E;
    const int end = L + f;
    T x0[E], x1[E], x2[E];
    ld16(c, x0);
    // outputs at v and v + E from a (the vector at v, read), b (v + E) and d (v + 2E)
    auto step = [&](const T (&a)[E], T (&b)[E], T (&d)[E], int v) {
        if (v + E < end) ld16(c + v + E, b);
        if (v + 2 * E < end) ld16(c + v + 2 * E, d);
        T out[E];
        window(a, b, f, out);
        st16(c + v, out);
        if (v + E < L) {
            window(b, d, f, out);
            st16(c + v + E, out);
        }
    };
    for (int v = 0; v < L; v += 6 * E) {
        step(x0, x1, x2, v);
        if (v + 2 * E >= L) break;
        step(x2, x0, x1, v + 2 * E);
        if (v + 4 * E >= L) break;
        step(x1, x2, x0, v + 4 * E);
    }
}

/// In place, c[i + f] = c[i] for the output vectors at lo, lo + E, .., hi - E (lo, hi multiples of E,
/// lo >= E; 0 < f < E), back to front by the calling thread, two output vectors per step as shift_down.
template <typename T>
__device__ __forceinline__ void shift_up(T* c, int f, int lo, int hi) {
    constexpr int E = V16<T>::E;
    T x0[E], x1[E], x2[E];
    ld16(c + hi - E, x0);
    // outputs at v and v - E (out[e] = c[v + e - f]) from a (the vector at v, read), b (v - E), d (v - 2E)
    auto step = [&](const T (&a)[E], T (&b)[E], T (&d)[E], int v) {
        ld16(c + v - E, b);  // v >= lo >= E
        if (v - 2 * E >= lo - E) ld16(c + v - 2 * E, d);
        T out[E];
        window(b, a, E - f, out);
        st16(c + v, out);
        if (v - E >= lo) {
            window(d, b, E - f, out);
            st16(c + v - E, out);
        }
    };
    for (int v = hi - E; v >= lo; v -= 6 * E) {
        step(x0, x1, x2, v);
        if (v - 2 * E < lo) break;
        step(x2, x0, x1, v - 2 * E);
        if (v - 4 * E < lo) break;
        step(x1, x2, x0, v - 4 * E);
    }
}

/// Loads A (order n) into the panel-packed layout padded with the identity to order wp, one column per
/// thread (columns t, t + NT, ..), each column one bulk copy: column j of panel p (k0 = 8p) holds rows
/// k0 .. wp - 1 of A's column j in a slot that starts on 16 bytes (off, ldp). The copy starts
/// at the 16-byte boundary at or below row k0 (f = phase16 elements earlier: rows above k0 of the same
/// column, or for j = 0 the bytes before A in the same 16-byte-aligned piece of its allocation) and ends
/// at the boundary at or after the end of row n - 1 (the few bytes after row n - 1 are the
/// next column's top rows or A's padding rows, inside the matrix: for j < n - 1 and lda * sizeof(T) >= 16
/// the 16-byte piece of A(n - 1, j) ends at or before A(n - 1, j + 1); they land in the slot's rows >= L,
/// overwritten below, or in its 16-byte pad, never read). It lands at the slot's start, so row r sits at
/// slot index r - k0 + f. In the last column (j = n - 1) the copy ends at the last boundary at or below
/// row n and the rows after it come by element cp.async (one thread per column: those element copies touch
/// a line per lane, which is why the other columns over-read instead); the thread then waits on the
/// mbarrier (all bulk copies of the matrix landed) and for its element copies, shifts its column down by
/// f (shift_down: none when A's columns start on 16 bytes) and writes the padding: zeros below row n,
/// the identity in padding columns. Rows above j in the diagonal block hold A's upper triangle or stale
/// values (never read). bar: the block's mbarrier (NT arrivals), parity: this matrix's phase. Split in
/// two: load_issue (the copies and the arrival) and load_finish (the waits and the fixes); a thread only
/// touches its own columns' slots, so the kernel issues the next matrix's loads right after the thread's
/// own stores of this one have read their slots. The caller's barrier publishes. (A warp per column for
/// the shifts was tried, but measured only on a device instance where every version's unaligned path ran
/// 1.5..2x slower than elsewhere: docs/batched_cholesky.md, "Tried and rejected".)
template <typename T, int NT>
__device__ __forceinline__ void load_issue(const T* A, int n, int lda, int wp, T* S, int t, unsigned bar) {
    constexpr int E = V16<T>::E;
    for (int j = t; j < wp && j < n; j += NT) {
        const int p = j >> 3, k0 = 8 * p;
        const T* src = A + static_cast<int64_t>(j) * lda + k0;  // A(k0, j)
        const int f = phase16(src), L = n - k0;                 // rows k0 .. n - 1 at slot indices f ..
        // slot indices 0 .. m - 1 by the bulk copy: up to the 16-byte boundary at or after row n - 1, except
        // in the last column (and for lda below 16 bytes), whose 16-byte piece may end past the matrix
        const int m = (j + 1 < n && lda * static_cast<int>(sizeof(T)) >= 16) ? (L + f + E - 1) / E * E : (L + f) / E * E;
        T* col = S + off<T>(wp, p) + (j - k0) * ldp<T>(wp, p);
        if (m > 0) {
            mbar_expect(bar, m * sizeof(T));
            bulk_load(static_cast<unsigned>(__cvta_generic_to_shared(col)), src - f, m * sizeof(T), bar);
        }
        for (int i = max(m, f); i < L + f; ++i)  // the rows after the last boundary, asynchronously too
            cp_async_elem(static_cast<unsigned>(__cvta_generic_to_shared(col + i)), src + i - f);
    }
    mbar_arrive(bar);
}
template <typename T, int NT>
__device__ __forceinline__ void load_finish(const T* A, int n, int lda, int wp, T* S, int t, unsigned bar,
                                            unsigned parity) {
    cp_async_wait_all();
    mbar_wait(bar, parity);
    for (int j = t; j < wp; j += NT) {
        const int p = j >> 3, k0 = 8 * p, R = wp - k0;
        T* col = S + off<T>(wp, p) + (j - k0) * ldp<T>(wp, p);
        if (j < n) {
            const int f = phase16(A + static_cast<int64_t>(j) * lda + k0), L = n - k0;
            if (f) shift_down(col, f, L);
            for (int i = L; i < R; ++i) col[i] = T(0);
        } else {
            for (int i = j - k0; i < R; ++i) col[i] = i == j - k0 ? T(1) : T(0);
        }
    }
}

/// The part of column j that a bulk store can write (rows as indices from k0 = 8 (j / 8); L = n - k0 rows,
/// the diagonal at j0 = j - k0): rows a .. b - 1, from the first 16-byte boundary of A at or after row j0
/// to the last at or before row L; f = A's phase at row k0 (the shift of the column's slot).
template <typename T>
struct StoreRun {
    int f, a, b;
    __device__ __forceinline__ StoreRun(const T* dst, int j0, int L) {
        constexpr int E = V16<T>::E;
        f = phase16(dst);
        a = j0 + (E - (j0 + f) % E) % E;
        b = a < L ? a + (L - a) / E * E : a;
    }
};

/// Stores the lower n x n triangle of S back into A, one column per thread as the load: rows j .. n - 1
/// of column j, the run between the first and the last 16-byte boundary of A by one bulk store (after
/// the column is shifted up to A's phase, shift_up, when A's columns do not start on 16 bytes), the rows
/// before and after it by plain stores (A's upper triangle is never written); one proxy fence per thread
/// before its bulk stores. Waits until the bulk stores have read S (S is reloaded next); the caller
/// fenced and published S (fence_async_shared, barrier).
template <typename T, int NT>
__device__ __forceinline__ void store_matrix(T* A, int n, int lda, int wp, T* S, int t) {
    for (int j = t; j < n; j += NT) {  // plain stores and shifts
        const int p = j >> 3, k0 = 8 * p, L = n - k0, j0 = j - k0;
        T* dst = A + static_cast<int64_t>(j) * lda + k0;  // A(k0, j)
        T* col = S + off<T>(wp, p) + j0 * ldp<T>(wp, p);
        const StoreRun<T> r(dst, j0, L);
        for (int i = j0; i < min(r.a, L); ++i) dst[i] = col[i];
        for (int i = max(r.b, r.a); i < L; ++i) dst[i] = col[i];
        if (r.b > r.a && r.f) shift_up(col, r.f, r.a + r.f, r.b + r.f);
    }
    if (t >= n) return;
    fence_async_shared();  // this thread's shifts before its bulk stores read them
    for (int j = t; j < n; j += NT) {  // bulk stores (the run recomputed: two integers per column)
        const int p = j >> 3, k0 = 8 * p, j0 = j - k0;
        T* dst = A + static_cast<int64_t>(j) * lda + k0;
        const T* col = S + off<T>(wp, p) + j0 * ldp<T>(wp, p);
        const StoreRun<T> r(dst, j0, n - k0);
        if (r.b > r.a)
            bulk_store(dst + r.a, static_cast<unsigned>(__cvta_generic_to_shared(col + r.a + r.f)),
                       (r.b - r.a) * sizeof(T));
    }
    bulk_commit();
    bulk_wait_read();
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

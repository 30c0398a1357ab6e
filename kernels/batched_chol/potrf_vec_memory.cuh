// The vector-row kernel's shared memory and data movement (potrf_vec.cuh has the design): 16-byte shared-memory
// accesses, the panel-packed layout with 16-byte column starts (ldp, off), bulk asynchronous copies completing on an
// mbarrier, the in-place shifts of columns that do not start on 16 bytes, and the load and the store of a matrix.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

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

}  // namespace vec

}  // namespace starfact::batched::gpu

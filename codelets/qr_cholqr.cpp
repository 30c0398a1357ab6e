// The Cholesky QR's codelets (codelets/cholqr_codelets.hpp, algorithms/cholqr.cpp):
//   cholqr_gram:        0 = X (R), 1 = W (W)                 W := X^T X
//   cholqr_solve_gram:  0 = V (R), 1 = X (RW), 2 = W (W)     X := X V (V = L^-T), W := X^T X   (and _3: third pass)
//   cholqr_solve:       0 = V (R), 1 = X (RW)                X := X V (V = M^-1)
//   cholqr_add:         0 = Wp (RW), 1.. = Wi (R)            Wp += sum of Wi (count: the task's)  (and _3)
//   cholqr_potrf:       0 = G (R), 1 = L (W), 2 = V (W), 3 = info (RW)   G (+ s I) = L L^T, V := L^-T   (and _3)
//   cholqr_householder: 0 = A0 (R), 1..3 = L1, L2, L3 (R), 4 = T (W), 5 = V (W: M^-1), 6 = RY (W), 7 = X (W, scratch)
//   cholqr_store:       0 = RY (R), 1 = A0 (RW)
//   cholqr_ytc:         0 = Y (R), 1 = C (R), 2 = W (W)
//   cholqr_tmul:        0 = T (R), 1 = W (RW)
//   cholqr_update:      0 = Y (R), 1 = W (R), 2 = C (RW) [, 3 = Z (W, scratch: the first tile's)]
// The third pass's tasks have codelets of their own (_3: their own performance models), since they return at once
// when the second pass decided that two passes suffice (CholqrPasses).
// CPU: CBLAS and LAPACKE (kernels/qr/cholqr_cpu.hpp). CUDA: cuBLAS gemm (the Gram matrices, as a strided batched
// gemm over row chunks of the tile and their sum, so that the work spreads over the GPU; the solves over the tiles
// as gemms by block columns through the worker's scratch), trsm, trmm, geam; cuSOLVER
// potrf; the element-wise kernels and the one-block modified LU of kernels/qr/cholqr_kernels.cu. The
// Cholesky and the reconstruction read one or two numbers back to the host (the trace for the shift, the
// factorization's info): they wait for their stream, once or twice per factorization.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "codelets/cholqr_codelets.hpp"
#include "codelets/qr_codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/qr/cholqr_cpu.hpp"
#include "kernels/qr/cholqr_kernels.hpp"
#include "kernels/qr/qr_cuda_blas.hpp"
#include "kernels/qr/qr_kernels.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct CholqrArgs {
    int64_t m = 0;        // cholqr_potrf: the factored matrix's rows (the shift)
    bool shift = false;   // cholqr_potrf: shift the first pass's Gram matrix
    bool check = false;   // cholqr_potrf: the last pass's Gram matrix must be near the identity
    bool right = false;   // ytc, tmul, update: side Right
    bool trans = false;   // tmul: op(T) = T^T
    bool unit = false;    // ytc, update: the first tile (Y1 unit lower in its first n rows)
    bool decide = false;  // cholqr_potrf of the second pass: sets passes->count
    int inputs = 0;       // cholqr_add: the Wi summed into Wp
    // solve_gram_3, add_3, potrf_3: return at once when passes->count is 2; householder: the last factor
    CholqrPasses* passes = nullptr;
    CudaContexts* cuda = nullptr;
};

/// The task is the third pass's of a factorization that stopped after two.
inline bool skipped(const CholqrArgs* a) {
    return a->passes && a->passes->count.load(std::memory_order_acquire) == 2;
}
/// The factorization stopped after two passes (the householder task: L2 is the last factor).
inline bool two_passes(const CholqrArgs* a) { return skipped(a); }
/// The householder task: the passes run, into the blocking form's RunStats.
inline void count_passes(const CholqrArgs* a, bool two) {
    if (a->passes && a->passes->stats) a->passes->stats->qr_passes = two ? 2 : 3;
}

using Tile = QrTile;
inline Tile tile(void* buffer) { return qr_tile(buffer); }
inline int* info_of(void* buffer) { return reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffer)); }
inline int64_t at(int i, int j, int ld) { return i + static_cast<int64_t>(j) * ld; }

/// The shift of the first pass (Fukaya, Kannan, Nakatsukasa, Zhang, Yamamoto, SIAM J. Sci. Comput. 42(1), 2020):
/// 11 (m n + n (n + 1)) u ||A||^2, with ||A||_F^2 = trace(A^T A) >= ||A||_2^2 for ||A||^2.
template <typename T>
double base_shift(int64_t m, int n, double trace) {
    const double u = std::numeric_limits<T>::epsilon() / 2;
    const double N = n;
    return 11.0 * (static_cast<double>(m) * N + N * (N + 1)) * u * trace;
}
/// The next shift after a failed Cholesky: at least the base shift (or, for a zero or non-finite trace, 1).
inline double next_shift(double s, double base) {
    if (!(base > 0) || !std::isfinite(base)) base = 1;
    return std::max(s * 100, base);
}
constexpr int kShiftRetries = 12;
constexpr double kIdentityDistance = 0.9;  // ||G - I||_F beyond which the last pass cannot orthogonalise
/// ||G2 - I||_F up to which the second pass's input counts as orthonormal, so that the second pass's output is
/// (the third pass's input would have been): kappa(Q1)^2 <= (1 + 0.1) / (1 - 0.1), and Cholesky QR's loss of
/// orthogonality, O(u kappa^2) (Yamamoto, Nakatsukasa, Yanagisawa, Fukaya, "Roundoff error analysis of the
/// CholeskyQR2 algorithm", ETNA 44, 2015), within 1.22 times the third pass's.
constexpr double kSkipDistance = 0.1;

template <typename T>
void copy(int m, int n, const T* src, int lds, T* dst, int ldd) {
    for (int j = 0; j < n; ++j) std::copy(src + at(0, j, lds), src + at(0, j, lds) + m, dst + at(0, j, ldd));
}

// ---- CPU -------------------------------------------------------------------------------------------

template <typename T>
void gram_into(const Tile& X, const Tile& W) {
    const int n = X.cols;
    T* w = ptr<T>(W);
    cpu::syrk(Uplo::Lower, Op::Trans, n, X.rows, T(1), ptr<T>(X), X.ld, T(0), w, W.ld);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < j; ++i) w[at(i, j, W.ld)] = w[at(j, i, W.ld)];
}

template <typename T>
void gram_cpu(void* buffers[], void*) {
    gram_into<T>(tile(buffers[0]), tile(buffers[1]));
}

template <typename T>
void solve_gram_cpu(void* buffers[], void* cl_arg) {
    if (skipped(static_cast<const CholqrArgs*>(cl_arg))) return;
    const Tile V = tile(buffers[0]), X = tile(buffers[1]), W = tile(buffers[2]);
    cpu::trmm(Side::Right, Uplo::Upper, Op::NoTrans, Diag::NonUnit, X.rows, X.cols, T(1), ptr<T>(V), V.ld, ptr<T>(X),
              X.ld);
    gram_into<T>(X, W);
}

template <typename T>
void solve_cpu(void* buffers[], void*) {
    const Tile V = tile(buffers[0]), X = tile(buffers[1]);
    cpu::trmm(Side::Right, Uplo::Upper, Op::NoTrans, Diag::NonUnit, X.rows, X.cols, T(1), ptr<T>(V), V.ld, ptr<T>(X),
              X.ld);
}

/// V := the inverse of the triangle of L (lower, `trans`: its transpose, upper) or of U (upper): solves against the
/// identity (backward stable column by column).
template <typename T>
void inverse_cpu(int n, Uplo uplo, Op op, const T* A, int lda, T* V, int ldv) {
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) V[at(i, j, ldv)] = i == j ? T(1) : T(0);
    cpu::trsm(Side::Left, uplo, op, Diag::NonUnit, n, n, T(1), A, lda, V, ldv);
}

template <typename T>
void add_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    if (skipped(a)) return;
    const Tile Wp = tile(buffers[0]);
    T* b = ptr<T>(Wp);
    for (int k = 1; k <= a->inputs; ++k) {
        const Tile Wi = tile(buffers[k]);
        const T* w = ptr<T>(Wi);
        for (int j = 0; j < Wp.cols; ++j)
            for (int i = 0; i < Wp.rows; ++i) b[at(i, j, Wp.ld)] += w[at(i, j, Wi.ld)];
    }
}

/// L := lower(G) + s I, then its Cholesky; 0 or the failing column (1-based; a non-finite diagonal fails too).
template <typename T>
int cholesky_cpu(const Tile& G, const Tile& L, double s) {
    const int n = G.cols;
    T* l = ptr<T>(L);
    const T* g = ptr<T>(G);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) l[at(i, j, L.ld)] = i >= j ? g[at(i, j, G.ld)] : T(0);
    for (int j = 0; j < n; ++j) l[at(j, j, L.ld)] += static_cast<T>(s);
    int info = cpu::potrf(n, l, L.ld);
    for (int j = 0; j < (info > 0 ? info - 1 : n); ++j) {
        const T d = l[at(j, j, L.ld)];
        if (!(d > T(0)) || !std::isfinite(d)) return j + 1;
    }
    return info > 0 ? info : 0;
}

template <typename T>
void potrf_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    if (a->check && skipped(a)) return;
    const Tile G = tile(buffers[0]), L = tile(buffers[1]), V = tile(buffers[2]);
    int* info = info_of(buffers[3]);
    const int n = G.cols;
    const T* g = ptr<T>(G);
    double trace = 0, distance = 0;
    for (int j = 0; j < n; ++j) trace += static_cast<double>(g[at(j, j, G.ld)]);
    if (a->check || a->decide)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                const double d = static_cast<double>(g[at(i, j, G.ld)]) - (i == j ? 1.0 : 0.0);
                distance += d * d;
            }
    const double base = base_shift<T>(a->m, n, trace);
    double s = a->shift ? base : 0;
    int failed = cholesky_cpu<T>(G, L, s);
    int breakdown = failed;
    if (a->check && !(std::sqrt(distance) <= kIdentityDistance) && breakdown == 0) breakdown = 1;
    for (int r = 0; failed > 0 && r < kShiftRetries; ++r) failed = cholesky_cpu<T>(G, L, s = next_shift(s, base));
    if (failed > 0) {
        T* l = ptr<T>(L);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) l[at(i, j, L.ld)] = i == j ? T(1) : T(0);
    }
    inverse_cpu(n, Uplo::Lower, Op::Trans, ptr<T>(L), L.ld, ptr<T>(V), V.ld);
    if (breakdown > 0 && *info == 0) *info = breakdown;
    if (a->decide && breakdown == 0 && std::sqrt(distance) <= kSkipDistance)
        a->passes->count.store(2, std::memory_order_release);
}

template <typename T>
void householder_cpu(void* buffers[], void* cl_arg) {
    const bool two = two_passes(static_cast<const CholqrArgs*>(cl_arg));
    const Tile A0 = tile(buffers[0]), L1 = tile(buffers[1]), L2 = tile(buffers[2]),
               L3 = tile(buffers[two ? 2 : 3]),  // the last pass's factor
               Tt = tile(buffers[4]), V = tile(buffers[5]), RY = tile(buffers[6]), X = tile(buffers[7]);
    const int n = A0.cols;
    T* ry = ptr<T>(RY);
    T* x = ptr<T>(X);
    T* s = x + at(0, n, X.ld);
    T* v = ptr<T>(V);
    T* t = ptr<T>(Tt);
    // The orthogonal factor's top block, and its modified LU.
    copy(n, n, ptr<T>(A0), A0.ld, ry, RY.ld);
    cpu::trsm(Side::Right, Uplo::Lower, Op::Trans, Diag::NonUnit, n, n, T(1), ptr<T>(L3), L3.ld, ry, RY.ld);
    cpu::modified_lu(n, ry, RY.ld, s);
    // R = S (L1 L2 L3)^T: X := L1 L2 L3 (lower), then RY's upper triangle := S X^T.
    copy(n, n, ptr<T>(L1), L1.ld, x, X.ld);
    cpu::trmm(Side::Right, Uplo::Lower, Op::NoTrans, Diag::NonUnit, n, n, T(1), ptr<T>(L2), L2.ld, x, X.ld);
    if (!two) cpu::trmm(Side::Right, Uplo::Lower, Op::NoTrans, Diag::NonUnit, n, n, T(1), ptr<T>(L3), L3.ld, x, X.ld);
    // V := M^-1 = (U L3^T)^-1 = L3^-T U^-1 and T := -(U S) Y1^-T, both upper (zeros below).
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) t[at(i, j, Tt.ld)] = i <= j ? ry[at(i, j, RY.ld)] * s[j] : T(0);
    inverse_cpu(n, Uplo::Upper, Op::NoTrans, ry, RY.ld, v, V.ld);
    cpu::trsm(Side::Left, Uplo::Lower, Op::Trans, Diag::NonUnit, n, n, T(1), ptr<T>(L3), L3.ld, v, V.ld);
    cpu::trsm(Side::Right, Uplo::Lower, Op::Trans, Diag::Unit, n, n, T(-1), ry, RY.ld, t, Tt.ld);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i <= j; ++i) ry[at(i, j, RY.ld)] = s[i] * x[at(j, i, X.ld)];
    count_passes(static_cast<const CholqrArgs*>(cl_arg), two);
}

template <typename T>
void store_cpu(void* buffers[], void*) {
    const Tile RY = tile(buffers[0]), A0 = tile(buffers[1]);
    copy(RY.rows, RY.cols, ptr<T>(RY), RY.ld, ptr<T>(A0), A0.ld);
}

template <typename T>
void ytc_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const Tile Y = tile(buffers[0]), C = tile(buffers[1]), W = tile(buffers[2]);
    const int n = Y.cols, r = Y.rows, k = a->unit ? n : 0;  // rows of Y1 handled by trmm
    const T* y = ptr<T>(Y);
    const T* c = ptr<T>(C);
    T* w = ptr<T>(W);
    if (!a->right) {  // W (n x C.cols) := Y^T C
        const int cols = C.cols;
        T beta = T(0);
        if (a->unit) {
            copy(n, cols, c, C.ld, w, W.ld);
            cpu::trmm(Side::Left, Uplo::Lower, Op::Trans, Diag::Unit, n, cols, T(1), y, Y.ld, w, W.ld);
            beta = T(1);
        }
        if (r > k)
            cpu::gemm(Op::Trans, Op::NoTrans, n, cols, r - k, T(1), y + k, Y.ld, c + k, C.ld, beta, w, W.ld);
        else if (beta == T(0))
            for (int j = 0; j < cols; ++j) std::fill(w + at(0, j, W.ld), w + at(0, j, W.ld) + n, T(0));
    } else {  // W (C.rows x n) := C Y
        const int rows = C.rows;
        T beta = T(0);
        if (a->unit) {
            copy(rows, n, c, C.ld, w, W.ld);
            cpu::trmm(Side::Right, Uplo::Lower, Op::NoTrans, Diag::Unit, rows, n, T(1), y, Y.ld, w, W.ld);
            beta = T(1);
        }
        if (r > k)
            cpu::gemm(Op::NoTrans, Op::NoTrans, rows, n, r - k, T(1), c + at(0, k, C.ld), C.ld, y + k, Y.ld, beta, w,
                      W.ld);
        else if (beta == T(0))
            for (int j = 0; j < n; ++j) std::fill(w + at(0, j, W.ld), w + at(0, j, W.ld) + rows, T(0));
    }
}

template <typename T>
void tmul_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const Tile Tt = tile(buffers[0]), W = tile(buffers[1]);
    cpu::trmm(a->right ? Side::Right : Side::Left, Uplo::Upper, a->trans ? Op::Trans : Op::NoTrans, Diag::NonUnit,
              W.rows, W.cols, T(1), ptr<T>(Tt), Tt.ld, ptr<T>(W), W.ld);
}

template <typename T>
void update_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const Tile Y = tile(buffers[0]), W = tile(buffers[1]), C = tile(buffers[2]);
    const int n = Y.cols, r = Y.rows, k = a->unit ? n : 0;
    const T* y = ptr<T>(Y);
    const T* w = ptr<T>(W);
    T* c = ptr<T>(C);
    if (!a->right) {  // C (r x cols) -= Y W
        const int cols = C.cols;
        if (a->unit) {
            T* z = qr_cpu_work<T>(static_cast<size_t>(n) * cols);
            copy(n, cols, w, W.ld, z, n);
            cpu::trmm(Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, n, cols, T(1), y, Y.ld, z, n);
            for (int j = 0; j < cols; ++j)
                for (int i = 0; i < n; ++i) c[at(i, j, C.ld)] -= z[at(i, j, n)];
        }
        if (r > k) cpu::gemm(Op::NoTrans, Op::NoTrans, r - k, cols, n, T(-1), y + k, Y.ld, w, W.ld, T(1), c + k, C.ld);
    } else {  // C (rows x r) -= W Y^T
        const int rows = C.rows;
        if (a->unit) {
            T* z = qr_cpu_work<T>(static_cast<size_t>(rows) * n);
            copy(rows, n, w, W.ld, z, rows);
            cpu::trmm(Side::Right, Uplo::Lower, Op::Trans, Diag::Unit, rows, n, T(1), y, Y.ld, z, rows);
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < rows; ++i) c[at(i, j, C.ld)] -= z[at(i, j, rows)];
        }
        if (r > k)
            cpu::gemm(Op::NoTrans, Op::Trans, rows, r - k, n, T(-1), w, W.ld, y + k, Y.ld, T(1), c + at(0, k, C.ld),
                      C.ld);
    }
}

// ---- CUDA ------------------------------------------------------------------------------------------

#ifdef STARFACT_HAVE_CUDA
inline void ok(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_ABORT_MSG("starfact: cuBLAS %s failed (status %d)", what, static_cast<int>(s));
}
inline void ok(cudaError_t e, const char* what) {
    if (e != cudaSuccess) STARPU_ABORT_MSG("starfact: %s failed: %s", what, cudaGetErrorString(e));
}

template <typename T>
void copy_async(int m, int n, const T* src, int lds, T* dst, int ldd, cudaStream_t stream) {
    if (m > 0 && n > 0)
        ok(cudaMemcpy2DAsync(dst, sizeof(T) * ldd, src, sizeof(T) * lds, sizeof(T) * m, n, cudaMemcpyDeviceToDevice,
                             stream),
           "cudaMemcpy2DAsync");
}

/// W (p x q) := beta W + A^T B for tall A (depth x p) and B (depth x q) (`right`: W := beta W + B A for the wide B,
/// q x depth, and A, depth x p; W q x p), as partial products of chunks of the depth (one strided batched gemm into
/// the worker's workspace) and their sum: a single gemm with a small result and a depth of thousands keeps a few of
/// the GPU's multiprocessors busy. About 64 result blocks of 128 x 128 in all, chunks of at least 512.
constexpr int kChunkBlocks = 64;
constexpr int kChunkMinDepth = 512;
template <typename T>
constexpr size_t partials_bytes() {
    return static_cast<size_t>(kChunkBlocks) * 128 * 128 * sizeof(T);
}

template <typename T>
void deep_product(const gpu::WorkerStream& ws, CudaWorkerContext& c, bool right, int depth, int p, int q, const T* A,
                  int lda, const T* B, int ldb, T beta, T* W, int ldw) {
    const int wr = right ? q : p, wc = right ? p : q;  // W's shape
    const int blocks = ((wr + 127) / 128) * ((wc + 127) / 128);
    int chunks = std::min(std::max(1, kChunkBlocks / blocks), std::max(1, depth / kChunkMinDepth));
    if (static_cast<size_t>(chunks) * wr * wc * sizeof(T) > c.work_bytes) chunks = 1;
    auto direct = [&](int d, const T* a, const T* b, T bt) {
        if (right)
            ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::NoTrans, q, p, d, T(1), b, ldb, a, lda, bt, W, ldw), "gemm");
        else
            ok(gpu::gemm(ws.cublas, Op::Trans, Op::NoTrans, p, q, d, T(1), a, lda, b, ldb, bt, W, ldw), "gemm");
    };
    if (chunks == 1) return direct(depth, A, B, beta);
    const int len = depth / chunks, rest = depth - chunks * len;
    const long long area = static_cast<long long>(wr) * wc, step_b = right ? static_cast<long long>(len) * ldb : len;
    auto* P = static_cast<T*>(c.work);
    if (right)
        ok(gpu::gemm_strided_batched(ws.cublas, Op::NoTrans, Op::NoTrans, q, p, len, T(1), B, ldb, step_b, A, lda, len,
                                     T(0), P, wr, area, chunks),
           "gemm (strided batched)");
    else
        ok(gpu::gemm_strided_batched(ws.cublas, Op::Trans, Op::NoTrans, p, q, len, T(1), A, lda, len, B, ldb, step_b,
                                     T(0), P, wr, area, chunks),
           "gemm (strided batched)");
    gpu::launch_cholqr_sum(P, chunks, wr, wc, W, ldw, beta != T(0), false, ws.stream);
    if (rest > 0)
        direct(rest, A + static_cast<long long>(chunks) * len, B + static_cast<long long>(chunks) * step_b, T(1));
}

/// The Gram matrix W := X^T X of a tall tile: deep_product's chunks, of its lower block triangle only (blocks of 128
/// columns: block column j from its diagonal block down, one strided batched gemm each), summed and mirrored.
template <typename T>
void gram_cuda_into(const gpu::WorkerStream& ws, CudaWorkerContext& c, const Tile& X, const Tile& W) {
    const int n = X.cols, depth = X.rows, bc = (n + 127) / 128, lower = bc * (bc + 1) / 2;
    const size_t nn = static_cast<size_t>(n) * n;
    int chunks = std::min(std::max(1, kChunkBlocks / lower), std::max(1, depth / kChunkMinDepth));
    if ((chunks + 1) * nn * sizeof(T) > c.work_bytes) chunks = 1;
    const T* x = ptr<T>(X);
    if (chunks == 1) {
        ok(gpu::gemm(ws.cublas, Op::Trans, Op::NoTrans, n, n, depth, T(1), x, X.ld, x, X.ld, T(0), ptr<T>(W), W.ld),
           "gemm");
        return;
    }
    const int len = depth / chunks, rest = depth - chunks * len;
    auto* P = static_cast<T*>(c.work);  // chunks partials, then the rest's
    for (int j = 0; j < n; j += 128) {
        const int w = std::min(128, n - j), h = n - j;
        const T* Xj = x + at(0, j, X.ld);
        ok(gpu::gemm_strided_batched(ws.cublas, Op::Trans, Op::NoTrans, h, w, len, T(1), Xj, X.ld, len, Xj, X.ld, len,
                                     T(0), P + at(j, j, n), n, static_cast<long long>(nn), chunks),
           "gemm (strided batched)");
        if (rest > 0)
            ok(gpu::gemm(ws.cublas, Op::Trans, Op::NoTrans, h, w, rest, T(1), Xj + chunks * len, X.ld,
                         Xj + chunks * len, X.ld, T(0), P + chunks * nn + at(j, j, n), n),
               "gemm");
    }
    gpu::launch_cholqr_sum(P, chunks + (rest > 0 ? 1 : 0), n, n, ptr<T>(W), W.ld, false, true, ws.stream);
}

template <typename T>
void gram_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    gram_cuda_into<T>(ws, a->cuda->local(), tile(buffers[0]), tile(buffers[1]));
}

/// X := X V for the upper triangular V (exact zeros below its diagonal: the inverses' solves against the identity
/// leave them), in place, as gemms: block columns J of kSolveBlock from the last, X(:, J) := X(:, 0:end(J))
/// V(0:end(J), J) into the worker's scratch, then copied back (cuBLAS's trmm on these tall tiles ran at about a fifth
/// of its gemm's rate, docs/qr.md). 1.5 m n^2 flops at n = 2 blocks, 1.25 at 4, against trmm's m n^2; blocks of
/// 256 (fewer, wider gemms, more flops) measured slower on the H200 (2^20 x 256: 0.0192 s against 0.0176).
constexpr int kSolveBlock = 128;
template <typename T>
size_t solve_scratch_bytes(int rows) {
    return static_cast<size_t>(rows) * kSolveBlock * sizeof(T);
}

template <typename T>
void solve_cuda_into(const gpu::WorkerStream& ws, CudaWorkerContext& c, const Tile& V, const Tile& X) {
    const int rows = X.rows, n = X.cols;
    T* x = ptr<T>(X);
    if (solve_scratch_bytes<T>(rows) > c.scratch_bytes) {  // not reserved for tiles this tall
        ok(gpu::trmm(ws.cublas, Side::Right, Uplo::Upper, Op::NoTrans, Diag::NonUnit, rows, n, T(1), ptr<T>(V), V.ld,
                     x, X.ld, x, X.ld),
           "trmm");
        return;
    }
    auto* scratch = static_cast<T*>(c.scratch);
    for (int j = ((n - 1) / kSolveBlock) * kSolveBlock; j >= 0; j -= kSolveBlock) {
        const int w = std::min(kSolveBlock, n - j);
        ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::NoTrans, rows, w, j + w, T(1), x, X.ld, ptr<T>(V) + at(0, j, V.ld),
                     V.ld, T(0), scratch, rows),
           "gemm");
        copy_async(rows, w, scratch, rows, x + at(0, j, X.ld), X.ld, ws.stream);
    }
}

template <typename T>
void solve_gram_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    if (skipped(a)) return;
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile V = tile(buffers[0]), X = tile(buffers[1]), W = tile(buffers[2]);
    solve_cuda_into<T>(ws, a->cuda->local(), V, X);
    gram_cuda_into<T>(ws, a->cuda->local(), X, W);
}

template <typename T>
void solve_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    solve_cuda_into<T>(ws, a->cuda->local(), tile(buffers[0]), tile(buffers[1]));
}

template <typename T>
void add_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    if (skipped(a)) return;
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile Wp = tile(buffers[0]);
    for (int k = 1; k <= a->inputs; ++k) {
        const Tile Wi = tile(buffers[k]);
        ok(gpu::geam(ws.cublas, Wp.rows, Wp.cols, T(1), ptr<T>(Wp), Wp.ld, T(1), ptr<T>(Wi), Wi.ld, ptr<T>(Wp), Wp.ld),
           "geam");
    }
}

/// inverse_cpu on the device.
template <typename T>
void inverse_cuda(const gpu::WorkerStream& ws, int n, Uplo uplo, Op op, const T* A, int lda, T* V, int ldv) {
    gpu::launch_qr_laset(V, ldv, n, n, 0, ws.stream);
    ok(gpu::trsm(ws.cublas, Side::Left, uplo, op, Diag::NonUnit, n, n, T(1), A, lda, V, ldv), "trsm");
}

/// The worker's workspace for cholqr_potrf: one double (a measure read back), then cuSOLVER's potrf workspace.
constexpr size_t kScalarBytes = 256;

/// One number of the device back on the host (waits for the stream).
template <typename V>
V read_back(const V* device, cudaStream_t stream) {
    V v{};
    ok(cudaMemcpyAsync(&v, device, sizeof(V), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return v;
}

template <typename T>
double measure_cuda(const gpu::WorkerStream& ws, CudaWorkerContext& c, const T* G, int ld, int n, bool identity) {
    auto* out = static_cast<double*>(c.work);
    gpu::launch_cholqr_measure(G, ld, n, identity, out, ws.stream);
    return read_back(out, ws.stream);
}

/// cholesky_cpu on the device: 0 or the failing column.
template <typename T>
int cholesky_cuda(const gpu::WorkerStream& ws, CudaWorkerContext& c, const Tile& G, const Tile& L, double s) {
    const int n = G.cols;
    T* l = ptr<T>(L);
    copy_async(n, n, ptr<T>(G), G.ld, l, L.ld, ws.stream);
    gpu::launch_zero_upper(l, n, L.ld, ws.stream);
    if (s != 0) gpu::launch_cholqr_add_diag(l, L.ld, n, static_cast<T>(s), ws.stream);
    int lwork = 0;
    if (gpu::potrf_buffer_size(c.solver, n, l, L.ld, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>potrf_bufferSize failed");
    if (static_cast<size_t>(lwork) * sizeof(T) + kScalarBytes > c.work_bytes)
        STARPU_ABORT_MSG("cholqr workspace too small: reserve_cholqr_workspace was not called");
    auto* work = reinterpret_cast<T*>(static_cast<char*>(c.work) + kScalarBytes);
    if (gpu::potrf(c.solver, n, l, L.ld, work, lwork, c.dev_info) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>potrf failed");
    const int info = read_back(c.dev_info, ws.stream);
    if (info > 0) return info;
    const double trace = measure_cuda<T>(ws, c, l, L.ld, n, false);  // a NaN or infinite diagonal fails too
    return std::isfinite(trace) ? 0 : 1;
}

template <typename T>
void potrf_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    if (a->check && skipped(a)) return;
    CudaWorkerContext& c = a->cuda->local();
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile G = tile(buffers[0]), L = tile(buffers[1]), V = tile(buffers[2]);
    int* info = info_of(buffers[3]);
    const int n = G.cols;
    double base = 0, s = 0;
    if (a->shift) s = base = base_shift<T>(a->m, n, measure_cuda<T>(ws, c, ptr<T>(G), G.ld, n, false));
    int breakdown = 0;
    const double distance =
        a->check || a->decide ? std::sqrt(measure_cuda<T>(ws, c, ptr<T>(G), G.ld, n, true)) : 0.0;
    if (a->check && !(distance <= kIdentityDistance)) breakdown = 1;
    int failed = cholesky_cuda<T>(ws, c, G, L, s);
    if (failed > 0 && breakdown == 0) breakdown = failed;
    if (failed > 0 && !a->shift) base = base_shift<T>(a->m, n, measure_cuda<T>(ws, c, ptr<T>(G), G.ld, n, false));
    for (int r = 0; failed > 0 && r < kShiftRetries; ++r) failed = cholesky_cuda<T>(ws, c, G, L, s = next_shift(s, base));
    if (failed > 0) gpu::launch_qr_laset(ptr<T>(L), L.ld, n, n, 0, ws.stream);
    inverse_cuda(ws, n, Uplo::Lower, Op::Trans, ptr<T>(L), L.ld, ptr<T>(V), V.ld);
    if (breakdown > 0) {
        ok(cudaMemcpyAsync(c.dev_info, &breakdown, sizeof(int), cudaMemcpyHostToDevice, ws.stream), "cudaMemcpyAsync");
        gpu::launch_merge_info(c.dev_info, info, 0, ws.stream);
        ok(cudaStreamSynchronize(ws.stream), "cudaStreamSynchronize");  // `breakdown` is on this stack frame
    }
    if (a->decide && breakdown == 0 && distance <= kSkipDistance) a->passes->count.store(2, std::memory_order_release);
}

/// The modified LU of the n x n A, blocked: panels of kLuPanel columns by the one-block kernel, then the row block
/// U12 := L11^-1 A12 (trsm) and the trailing update A22 -= L21 U12 (gemm). The signs depend only on the panel's
/// current diagonal, which the earlier updates have reached: the same factorization as the unblocked one.
constexpr int kLuPanel = 32;
template <typename T>
void modified_lu_cuda(const gpu::WorkerStream& ws, int n, T* A, int ld, T* s) {
    for (int k = 0; k < n; k += kLuPanel) {
        const int b = std::min(kLuPanel, n - k), rest = n - k - b;
        T* Akk = A + at(k, k, ld);
        gpu::launch_cholqr_modified_lu_panel(Akk, ld, n - k, b, s + k, ws.stream);
        if (rest == 0) break;
        T* A12 = A + at(k, k + b, ld);
        ok(gpu::trsm(ws.cublas, Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, b, rest, T(1), Akk, ld, A12, ld),
           "trsm");
        ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::NoTrans, rest, rest, b, T(-1), A + at(k + b, k, ld), ld, A12, ld, T(1),
                     A + at(k + b, k + b, ld), ld),
           "gemm");
    }
}

template <typename T>
void householder_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    const bool two = two_passes(a);
    const Tile A0 = tile(buffers[0]), L1 = tile(buffers[1]), L2 = tile(buffers[2]),
               L3 = tile(buffers[two ? 2 : 3]),  // the last pass's factor
               Tt = tile(buffers[4]), V = tile(buffers[5]), RY = tile(buffers[6]), X = tile(buffers[7]);
    const int n = A0.cols;
    const cudaStream_t st = ws.stream;
    T* ry = ptr<T>(RY);
    T* x = ptr<T>(X);
    T* s = x + at(0, n, X.ld);
    T* v = ptr<T>(V);
    T* t = ptr<T>(Tt);
    copy_async(n, n, ptr<T>(A0), A0.ld, ry, RY.ld, st);
    ok(gpu::trsm(ws.cublas, Side::Right, Uplo::Lower, Op::Trans, Diag::NonUnit, n, n, T(1), ptr<T>(L3), L3.ld, ry,
                 RY.ld),
       "trsm");
    modified_lu_cuda(ws, n, ry, RY.ld, s);
    // R = S (L1 L2 L3)^T: X := L1 L2 L3, V := X^T (scratch here), rows scaled by S, into RY's upper triangle.
    copy_async(n, n, ptr<T>(L1), L1.ld, x, X.ld, st);
    ok(gpu::trmm(ws.cublas, Side::Right, Uplo::Lower, Op::NoTrans, Diag::NonUnit, n, n, T(1), ptr<T>(L2), L2.ld, x,
                 X.ld, x, X.ld),
       "trmm");
    if (!two)
        ok(gpu::trmm(ws.cublas, Side::Right, Uplo::Lower, Op::NoTrans, Diag::NonUnit, n, n, T(1), ptr<T>(L3), L3.ld,
                     x, X.ld, x, X.ld),
           "trmm");
    ok(gpu::geam_transpose(ws.cublas, n, n, x, X.ld, v, V.ld), "geam");
    gpu::launch_cholqr_scale(v, V.ld, n, n, s, true, st);
    // T := -(U S) Y1^-T (upper), before RY's upper triangle (U) is replaced by R.
    gpu::launch_copy_upper(ry, RY.ld, t, Tt.ld, n, n, gpu::Below::Zero, st);
    gpu::launch_cholqr_scale(t, Tt.ld, n, n, s, false, st);
    ok(gpu::trsm(ws.cublas, Side::Right, Uplo::Lower, Op::Trans, Diag::Unit, n, n, T(-1), ry, RY.ld, t, Tt.ld), "trsm");
    // X := U (upper); RY := R above the diagonal, Y1 below; V := M^-1 = L3^-T U^-1.
    gpu::launch_copy_upper(ry, RY.ld, x, X.ld, n, n, gpu::Below::Zero, st);
    gpu::launch_copy_upper(v, V.ld, ry, RY.ld, n, n, gpu::Below::Keep, st);
    inverse_cuda(ws, n, Uplo::Upper, Op::NoTrans, x, X.ld, v, V.ld);
    ok(gpu::trsm(ws.cublas, Side::Left, Uplo::Lower, Op::Trans, Diag::NonUnit, n, n, T(1), ptr<T>(L3), L3.ld, v, V.ld),
       "trsm");
    count_passes(a, two);
}

template <typename T>
void store_cuda(void* buffers[], void* cl_arg) {
    const gpu::WorkerStream ws(static_cast<const CholqrArgs*>(cl_arg)->cuda, false);
    const Tile RY = tile(buffers[0]), A0 = tile(buffers[1]);
    copy_async(RY.rows, RY.cols, ptr<T>(RY), RY.ld, ptr<T>(A0), A0.ld, ws.stream);
}

template <typename T>
void ytc_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile Y = tile(buffers[0]), C = tile(buffers[1]), W = tile(buffers[2]);
    const int n = Y.cols, r = Y.rows, k = a->unit ? n : 0;
    const T* y = ptr<T>(Y);
    const T* c = ptr<T>(C);
    T* w = ptr<T>(W);
    if (!a->right) {
        const int cols = C.cols;
        T beta = T(0);
        if (a->unit) {
            ok(gpu::trmm(ws.cublas, Side::Left, Uplo::Lower, Op::Trans, Diag::Unit, n, cols, T(1), y, Y.ld, c, C.ld, w,
                         W.ld),
               "trmm");
            beta = T(1);
        }
        if (r > k) deep_product<T>(ws, a->cuda->local(), false, r - k, n, cols, y + k, Y.ld, c + k, C.ld, beta, w, W.ld);
    } else {
        const int rows = C.rows;
        T beta = T(0);
        if (a->unit) {
            ok(gpu::trmm(ws.cublas, Side::Right, Uplo::Lower, Op::NoTrans, Diag::Unit, rows, n, T(1), y, Y.ld, c, C.ld,
                         w, W.ld),
               "trmm");
            beta = T(1);
        }
        if (r > k)
            deep_product<T>(ws, a->cuda->local(), true, r - k, n, rows, y + k, Y.ld, c + at(0, k, C.ld), C.ld, beta, w,
                            W.ld);
    }
}

template <typename T>
void tmul_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile Tt = tile(buffers[0]), W = tile(buffers[1]);
    ok(gpu::trmm(ws.cublas, a->right ? Side::Right : Side::Left, Uplo::Upper, a->trans ? Op::Trans : Op::NoTrans,
                 Diag::NonUnit, W.rows, W.cols, T(1), ptr<T>(Tt), Tt.ld, ptr<T>(W), W.ld, ptr<T>(W), W.ld),
       "trmm");
}

template <typename T>
void update_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile Y = tile(buffers[0]), W = tile(buffers[1]), C = tile(buffers[2]);
    const int n = Y.cols, r = Y.rows, k = a->unit ? n : 0;
    const T* y = ptr<T>(Y);
    const T* w = ptr<T>(W);
    T* c = ptr<T>(C);
    if (!a->right) {
        const int cols = C.cols;
        if (a->unit) {
            const Tile Z = tile(buffers[3]);
            ok(gpu::trmm(ws.cublas, Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, n, cols, T(1), y, Y.ld, w, W.ld,
                         ptr<T>(Z), Z.ld),
               "trmm");
            ok(gpu::geam(ws.cublas, n, cols, T(1), c, C.ld, T(-1), ptr<T>(Z), Z.ld, c, C.ld), "geam");
        }
        if (r > k)
            ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::NoTrans, r - k, cols, n, T(-1), y + k, Y.ld, w, W.ld, T(1), c + k,
                         C.ld),
               "gemm");
    } else {
        const int rows = C.rows;
        if (a->unit) {
            const Tile Z = tile(buffers[3]);
            ok(gpu::trmm(ws.cublas, Side::Right, Uplo::Lower, Op::Trans, Diag::Unit, rows, n, T(1), y, Y.ld, w, W.ld,
                         ptr<T>(Z), Z.ld),
               "trmm");
            ok(gpu::geam(ws.cublas, rows, n, T(1), c, C.ld, T(-1), ptr<T>(Z), Z.ld, c, C.ld), "geam");
        }
        if (r > k)
            ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::Trans, rows, r - k, n, T(-1), w, W.ld, y + k, Y.ld, T(1),
                         c + at(0, k, C.ld), C.ld),
               "gemm");
    }
}

template <typename T>
Workspace cholqr_workspace(cusolverDnHandle_t h, int n) {
    int lwork = 0;
    if (gpu::potrf_buffer_size(h, n, static_cast<T*>(nullptr), n, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>potrf_bufferSize failed");
    Workspace w;
    // The Gram's partials: chunks + 1 of n x n, chunks <= kChunkBlocks / (b (b + 1) / 2) for b = ceil(n / 128).
    const size_t b = static_cast<size_t>((n + 127) / 128), nn = static_cast<size_t>(n) * n;
    const size_t gram = (std::max<size_t>(1, kChunkBlocks / (b * (b + 1) / 2)) + 1) * nn * sizeof(T);
    w.device = std::max({kScalarBytes + static_cast<size_t>(lwork + 1) * sizeof(T), partials_bytes<T>(), gram});
    return w;
}

/// The scratch of the solves over tiles of `rows` rows.
template <typename T>
Workspace cholqr_scratch(cusolverDnHandle_t, int rows) {
    Workspace w;
    w.scratch = solve_scratch_bytes<T>(rows);
    return w;
}
#endif

// ---- definitions -----------------------------------------------------------------------------------

#define STARFACT_CHOLQR_DEFINE(NAME, SYMBOL, CPU, CUDA, ...)                                                   \
    template <typename T>                                                                                      \
    void define_##NAME(Kernel& k) {                                                                            \
        define_kernel(k, "cholqr_" #NAME, by_precision<T>("starfact_scholqr_" SYMBOL, "starfact_dcholqr_" SYMBOL), \
                      CPU<T>, STARFACT_CUDA_IMPL(CUDA<T>), {__VA_ARGS__});                                     \
    }
STARFACT_CHOLQR_DEFINE(gram, "gram", gram_cpu, gram_cuda, STARPU_R, STARPU_W)
STARFACT_CHOLQR_DEFINE(solve_gram, "solve_gram", solve_gram_cpu, solve_gram_cuda, STARPU_R, STARPU_RW, STARPU_W)
STARFACT_CHOLQR_DEFINE(solve_gram_3, "solve_gram_3", solve_gram_cpu, solve_gram_cuda, STARPU_R, STARPU_RW, STARPU_W)
STARFACT_CHOLQR_DEFINE(solve, "solve", solve_cpu, solve_cuda, STARPU_R, STARPU_RW)
STARFACT_CHOLQR_DEFINE(potrf, "potrf", potrf_cpu, potrf_cuda, STARPU_R, STARPU_W, STARPU_W, STARPU_RW)
STARFACT_CHOLQR_DEFINE(potrf_3, "potrf_3", potrf_cpu, potrf_cuda, STARPU_R, STARPU_W, STARPU_W, STARPU_RW)
STARFACT_CHOLQR_DEFINE(householder, "householder", householder_cpu, householder_cuda, STARPU_R, STARPU_R, STARPU_R,
                       STARPU_R, STARPU_W, STARPU_W, STARPU_W, STARPU_W)
STARFACT_CHOLQR_DEFINE(store, "store", store_cpu, store_cuda, STARPU_R, STARPU_RW)
STARFACT_CHOLQR_DEFINE(ytc, "ytc", ytc_cpu, ytc_cuda, STARPU_R, STARPU_R, STARPU_W)
STARFACT_CHOLQR_DEFINE(tmul, "tmul", tmul_cpu, tmul_cuda, STARPU_R, STARPU_RW)
STARFACT_CHOLQR_DEFINE(update, "update", update_cpu, update_cuda, STARPU_R, STARPU_R, STARPU_RW)
STARFACT_CHOLQR_DEFINE(update_unit, "update_unit", update_cpu, update_cuda, STARPU_R, STARPU_R, STARPU_RW, STARPU_W)
#undef STARFACT_CHOLQR_DEFINE
// Modes per task (dyn_modes): Wp, then the Wi.
template <typename T>
void define_add(Kernel& k) {
    define_kernel(k, "cholqr_add", by_precision<T>("starfact_scholqr_add", "starfact_dcholqr_add"), add_cpu<T>,
                  STARFACT_CUDA_IMPL(add_cuda<T>), {});
}
template <typename T>
void define_add_3(Kernel& k) {
    define_kernel(k, "cholqr_add_3", by_precision<T>("starfact_scholqr_add_3", "starfact_dcholqr_add_3"), add_cpu<T>,
                  STARFACT_CUDA_IMPL(add_cuda<T>), {});
}

/// The Cholesky QR's codelets of precision T, one extension slot of the Runtime for all of them (the slots are few).
template <typename T>
struct CholqrKernels {
    Kernel gram, solve_gram, solve_gram_3, solve, add, add_3, potrf, potrf_3, householder, store, ytc, tmul, update,
        update_unit;
    CholqrKernels() {
        define_gram<T>(gram);
        define_solve_gram<T>(solve_gram);
        define_solve_gram_3<T>(solve_gram_3);
        define_solve<T>(solve);
        define_add<T>(add);
        define_add_3<T>(add_3);
        define_potrf<T>(potrf);
        define_potrf_3<T>(potrf_3);
        define_householder<T>(householder);
        define_store<T>(store);
        define_ytc<T>(ytc);
        define_tmul<T>(tmul);
        define_update<T>(update);
        define_update_unit<T>(update_unit);
    }
};
template <typename T>
const CholqrKernels<T>& kernels(const Runtime& rt) {
    return extension<CholqrKernels<T>>(rt);
}

/// A task of kernel k on `handles` with the arguments a, counting `flops`.
starpu_task* task_of(const Kernel& k, const CholqrArgs& a, std::initializer_list<starpu_data_handle_t> handles,
                     double flops) {
    starpu_task* t = qr_packed_task(k, a, flops);
    int i = 0;
    for (starpu_data_handle_t h : handles) t->handles[i++] = h;
    return t;
}

CholqrArgs args_of(const Runtime& rt) {
    CholqrArgs a;
    a.cuda = cuda_contexts(rt);
    return a;
}

}  // namespace

template <typename T>
void insert_cholqr_gram(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t W) {
    const double m = tile_rows(X), n = tile_cols(X);
    submit(task_of(kernels<T>(rt).gram, args_of(rt), {X, W}, m * n * n), o, "cholqr_gram");
}

template <typename T>
void insert_cholqr_solve_gram(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t L, starpu_data_handle_t X,
                              starpu_data_handle_t W, const CholqrPasses* third) {
    const double m = tile_rows(X), n = tile_cols(X);
    CholqrArgs a = args_of(rt);
    a.passes = const_cast<CholqrPasses*>(third);
    const auto& k = kernels<T>(rt);
    submit(task_of(third ? k.solve_gram_3 : k.solve_gram, a, {L, X, W}, 2 * m * n * n), o, "cholqr_solve_gram");
}

template <typename T>
void insert_cholqr_solve(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t M, starpu_data_handle_t X) {
    const double m = tile_rows(X), n = tile_cols(X);
    submit(task_of(kernels<T>(rt).solve, args_of(rt), {M, X}, m * n * n), o, "cholqr_solve");
}

template <typename T>
void insert_cholqr_add(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& Wi,
                       starpu_data_handle_t Wp, const CholqrPasses* third) {
    const double m = tile_rows(Wp), n = tile_cols(Wp);
    CholqrArgs a = args_of(rt);
    a.passes = const_cast<CholqrPasses*>(third);
    a.inputs = static_cast<int>(Wi.size());
    const auto& k = kernels<T>(rt);
    starpu_task* t = qr_packed_task(third ? k.add_3 : k.add, a, m * n * a.inputs);
    std::vector<starpu_data_handle_t> handles{Wp};
    handles.insert(handles.end(), Wi.begin(), Wi.end());
    std::vector<starpu_data_access_mode> modes(handles.size(), STARPU_R);
    modes[0] = STARPU_RW;
    set_dynamic_buffers(t, handles.data(), modes.data(), static_cast<int>(handles.size()));
    submit(t, o, "cholqr_add");
}

template <typename T>
void insert_cholqr_potrf(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t G, starpu_data_handle_t L,
                         starpu_data_handle_t V, starpu_data_handle_t info, int64_t m, bool shift, bool check,
                         CholqrPasses* passes, bool decide) {
    CholqrArgs a = args_of(rt);
    a.m = m;
    a.shift = shift;
    a.check = check;
    a.decide = decide && passes;
    a.passes = check || decide ? passes : nullptr;
    const double n = tile_cols(G);
    const auto& k = kernels<T>(rt);
    submit(task_of(check && passes ? k.potrf_3 : k.potrf, a, {G, L, V, info}, 2 * n * n * n / 3), o, "cholqr_potrf");
}

template <typename T>
void insert_cholqr_householder(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A0,
                               starpu_data_handle_t L1, starpu_data_handle_t L2, starpu_data_handle_t L3,
                               starpu_data_handle_t Tf, starpu_data_handle_t M, starpu_data_handle_t RY,
                               starpu_data_handle_t X, const CholqrPasses* passes) {
    const double n = tile_cols(A0);
    CholqrArgs a = args_of(rt);
    a.passes = const_cast<CholqrPasses*>(passes);
    submit(task_of(kernels<T>(rt).householder, a, {A0, L1, L2, L3, Tf, M, RY, X}, 4 * n * n * n), o,
           "cholqr_householder");
}

template <typename T>
void insert_cholqr_store(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t RY, starpu_data_handle_t A0) {
    submit(task_of(kernels<T>(rt).store, args_of(rt), {RY, A0}, 0), o, "cholqr_store");
}

template <typename T>
void insert_cholqr_ytc(const Runtime& rt, const TaskOptions& o, Side side, bool unit, starpu_data_handle_t Y,
                       starpu_data_handle_t C, starpu_data_handle_t W) {
    CholqrArgs a = args_of(rt);
    a.right = side == Side::Right;
    a.unit = unit;
    const double r = tile_rows(Y), n = tile_cols(Y), other = a.right ? tile_rows(C) : tile_cols(C);
    submit(task_of(kernels<T>(rt).ytc, a, {Y, C, W}, 2 * r * n * other), o, "cholqr_ytc");
}

template <typename T>
void insert_cholqr_tmul(const Runtime& rt, const TaskOptions& o, Side side, bool trans, starpu_data_handle_t Tf,
                        starpu_data_handle_t W) {
    CholqrArgs a = args_of(rt);
    a.right = side == Side::Right;
    a.trans = trans;
    const double r = tile_rows(W), c = tile_cols(W);
    submit(task_of(kernels<T>(rt).tmul, a, {Tf, W}, r * c * (a.right ? c : r)), o, "cholqr_tmul");
}

template <typename T>
void insert_cholqr_update(const Runtime& rt, const TaskOptions& o, Side side, starpu_data_handle_t Y,
                          starpu_data_handle_t W, starpu_data_handle_t C, starpu_data_handle_t Z) {
    CholqrArgs a = args_of(rt);
    a.right = side == Side::Right;
    a.unit = Z != nullptr;
    const double r = tile_rows(Y), n = tile_cols(Y), other = a.right ? tile_rows(C) : tile_cols(C);
    if (Z)
        submit(task_of(kernels<T>(rt).update_unit, a, {Y, W, C, Z}, 2 * r * n * other), o, "cholqr_update");
    else
        submit(task_of(kernels<T>(rt).update, a, {Y, W, C}, 2 * r * n * other), o, "cholqr_update");
}

template <typename T>
void reserve_cholqr_workspace(const Runtime& rt, int64_t n, int64_t rows) {
#ifdef STARFACT_HAVE_CUDA
    if (rt.cuda_workers() == 0 || n == 0) return;
    cuda_contexts(rt)->reserve(static_cast<int>(n), cholqr_workspace<T>);
    if (rows > 0) cuda_contexts(rt)->reserve(static_cast<int>(rows), cholqr_scratch<T>);
#else
    (void)rt;
    (void)n;
    (void)rows;
#endif
}

#define STARFACT_CHOLQR(T)                                                                                           \
    template void insert_cholqr_gram<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t); \
    template void insert_cholqr_solve_gram<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,              \
                                              starpu_data_handle_t, starpu_data_handle_t, const CholqrPasses*);      \
    template void insert_cholqr_solve<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t); \
    template void insert_cholqr_add<T>(const Runtime&, const TaskOptions&, const std::vector<starpu_data_handle_t>&,  \
                                       starpu_data_handle_t, const CholqrPasses*);                                   \
    template void insert_cholqr_potrf<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,                   \
                                         starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t, int64_t,  \
                                         bool, bool, CholqrPasses*, bool);                                           \
    template void insert_cholqr_householder<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,             \
                                               starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t,     \
                                               starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t,     \
                                               starpu_data_handle_t, const CholqrPasses*);                           \
    template void insert_cholqr_store<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t); \
    template void insert_cholqr_ytc<T>(const Runtime&, const TaskOptions&, Side, bool, starpu_data_handle_t,         \
                                       starpu_data_handle_t, starpu_data_handle_t);                                  \
    template void insert_cholqr_tmul<T>(const Runtime&, const TaskOptions&, Side, bool, starpu_data_handle_t,        \
                                        starpu_data_handle_t);                                                       \
    template void insert_cholqr_update<T>(const Runtime&, const TaskOptions&, Side, starpu_data_handle_t,            \
                                          starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t);         \
    template void reserve_cholqr_workspace<T>(const Runtime&, int64_t, int64_t);
STARFACT_CHOLQR(float)
STARFACT_CHOLQR(double)
#undef STARFACT_CHOLQR

}  // namespace starfact::detail

// The Cholesky QR's CUDA implementations of applying Q = I - Y T Y^H (codelets/cholqr_impl.hpp; the codelets and
// their buffers: codelets/qr_cholqr.cpp): W := Y^H C by partial products over row chunks of the tall tiles and their
// sum (so that the work spreads over the GPU), W := op(T) W, C -= Y W; from the right the same, transposed (real
// tiles: Y^H = Y^T). The Cholesky QR's own factorization and the panel tree's trailing updates (s, d, c, z) use them.
#ifdef STARFACT_HAVE_CUDA
#include <algorithm>
#include <complex>

#include "codelets/cholqr_cuda_common.hpp"
#include "codelets/cholqr_impl.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/qr/cholqr_kernels.hpp"
#include "kernels/qr/qr_kernels.hpp"

namespace starfact::detail::cholqr {
namespace {

/// W (p x q) := beta W + A^T B for tall A (depth x p) and B (depth x q) (`right`: W := beta W + B A for the wide B,
/// q x depth, and A, depth x p; W q x p), by chunks of the depth (cholqr_cuda_common.hpp) and their sum.
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
            ok(gpu::gemm(ws.cublas, Op::ConjTrans, Op::NoTrans, p, q, d, T(1), a, lda, b, ldb, bt, W, ldw), "gemm");
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
        ok(gpu::gemm_strided_batched(ws.cublas, Op::ConjTrans, Op::NoTrans, p, q, len, T(1), A, lda, len, B, ldb,
                                     step_b, T(0), P, wr, area, chunks),
           "gemm (strided batched)");
    gpu::launch_cholqr_sum(P, chunks, wr, wc, W, ldw, beta != T(0), false, ws.stream);
    if (rest > 0)
        direct(rest, A + static_cast<long long>(chunks) * len, B + static_cast<long long>(chunks) * step_b, T(1));
}

}  // namespace

template <typename T>
void ytc_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile Y = tile<T>(buffers, a, 0), C = tile<T>(buffers, a, 1), W = tile(buffers[2]);
    const int n = Y.cols, r = Y.rows, k = a->unit ? n : 0;
    const T* y = ptr<T>(Y);
    const T* c = ptr<T>(C);
    T* w = ptr<T>(W);
    if (!a->right) {
        const int cols = C.cols;
        T beta = T(0);
        if (a->unit) {
            ok(gpu::trmm(ws.cublas, Side::Left, Uplo::Lower, Op::ConjTrans, Diag::Unit, n, cols, T(1), y, Y.ld, c,
                         C.ld, w, W.ld),
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
    const Tile Tt = tile<T>(buffers, a, 0), W = tile(buffers[1]);
    ok(gpu::trmm(ws.cublas, a->right ? Side::Right : Side::Left, Uplo::Upper, a->trans ? Op::ConjTrans : Op::NoTrans,
                 Diag::NonUnit, W.rows, W.cols, T(1), ptr<T>(Tt), Tt.ld, ptr<T>(W), W.ld, ptr<T>(W), W.ld),
       "trmm");
}

template <typename T>
void update_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile Y = tile<T>(buffers, a, 0), W = tile(buffers[1]), C = tile<T>(buffers, a, 2);
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
            ok(gpu::trmm(ws.cublas, Side::Right, Uplo::Lower, Op::ConjTrans, Diag::Unit, rows, n, T(1), y, Y.ld, w,
                         W.ld, ptr<T>(Z), Z.ld),
               "trmm");
            ok(gpu::geam(ws.cublas, rows, n, T(1), c, C.ld, T(-1), ptr<T>(Z), Z.ld, c, C.ld), "geam");
        }
        if (r > k)
            ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::ConjTrans, rows, r - k, n, T(-1), w, W.ld, y + k, Y.ld, T(1),
                         c + at(0, k, C.ld), C.ld),
               "gemm");
    }
}

// The self kernels (cholqr_impl.hpp).
template <typename T>
void ytc_self_cuda(void* buffers[], void* cl_arg) {
    ytc_as_self(buffers, cl_arg, ytc_cuda<T>);
}
template <typename T>
void update_self_cuda(void* buffers[], void* cl_arg) {
    update_as_self(buffers, cl_arg, update_cuda<T>);
}

#define STARFACT_CHOLQR_APPLY_CUDA(T)                \
    template void ytc_cuda<T>(void*[], void*);       \
    template void tmul_cuda<T>(void*[], void*);      \
    template void update_cuda<T>(void*[], void*);    \
    template void ytc_self_cuda<T>(void*[], void*);  \
    template void update_self_cuda<T>(void*[], void*);
STARFACT_CHOLQR_APPLY_CUDA(float)
STARFACT_CHOLQR_APPLY_CUDA(double)
STARFACT_CHOLQR_APPLY_CUDA(std::complex<float>)
STARFACT_CHOLQR_APPLY_CUDA(std::complex<double>)
#undef STARFACT_CHOLQR_APPLY_CUDA

}  // namespace starfact::detail::cholqr
#endif

// The Cholesky QR's reconstruction of the Householder form on the device (Ballard, Demmel, Grigori, Jacquelin,
// Knight, Nguyen, J. Parallel Distrib. Comput. 85, 2015; codelets/cholqr_impl.hpp; the codelets and their buffers:
// codelets/qr_cholqr.cpp): the rank check on R's diagonal, the modified LU of Q's top block, R, T and M^-1, for the
// householder codelet and for the panel tree's Cholesky QR panels (codelets/cholqr_cuda.cpp).
#ifdef STARFACT_HAVE_CUDA
#include <algorithm>
#include <cmath>
#include <vector>

#include "codelets/cholqr_cuda_common.hpp"
#include "codelets/cholqr_impl.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/qr/cholqr_kernels.hpp"
#include "kernels/qr/qr_kernels.hpp"

namespace starfact::detail::cholqr {

/// The modified LU of the n x n A, blocked on two levels. Outer blocks of kLuBlock columns: the diagonal block's
/// own modified LU (below), then the rows under it L21 := A21 U11^-1 and the row block U12 := L11^-1 A12 (trsm), and
/// the trailing update A22 -= L21 U12 (gemm). The diagonal block: panels of kLuPanel columns by the one-block kernel
/// (on the block's rows only), trsm and gemm for the rest of the block. The signs depend only on each column's current
/// diagonal, which the earlier updates have reached: the same factorization as the unblocked one (no pivoting, so the
/// rows below a diagonal block need nothing but U11). One block of the GPU walked all n rows of every 32-column panel
/// before: at n = 2048 the reconstruction took 18 ms of a 66 ms QR of 131072 x 2048 on the H200.
constexpr int kLuPanel = 32;
constexpr int kLuBlock = 256;
template <typename T>
void modified_lu_block(const gpu::WorkerStream& ws, int n, T* A, int ld, T* s) {
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
void modified_lu_cuda(const gpu::WorkerStream& ws, int n, T* A, int ld, T* s) {
    for (int k = 0; k < n; k += kLuBlock) {
        const int b = std::min(kLuBlock, n - k), rest = n - k - b;
        T* Akk = A + at(k, k, ld);
        modified_lu_block(ws, b, Akk, ld, s + k);
        if (rest == 0) break;
        T* A21 = A + at(k + b, k, ld);
        T* A12 = A + at(k, k + b, ld);
        ok(gpu::trsm(ws.cublas, Side::Right, Uplo::Upper, Op::NoTrans, Diag::NonUnit, rest, b, T(1), Akk, ld, A21, ld),
           "trsm");
        ok(gpu::trsm(ws.cublas, Side::Left, Uplo::Lower, Op::NoTrans, Diag::Unit, b, rest, T(1), Akk, ld, A12, ld),
           "trsm");
        ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::NoTrans, rest, rest, b, T(-1), A21, ld, A12, ld, T(1),
                     A + at(k + b, k + b, ld), ld),
           "gemm");
    }
}

template <typename T>
int reconstruct_cuda(const gpu::WorkerStream& ws, const Tile& A0, const Tile& L1, const Tile& L2, const Tile& L3,
                     bool three, const Tile& Tt, const Tile& V, const Tile& RY, const Tile& X, bool unorthogonal) {
    const bool two = !three;
    const int n = A0.cols;
    const cudaStream_t st = ws.stream;
    int column = 0;
    {  // The rank check on R's diagonal, |L1(j, j) L2(j, j) L3(j, j)|, on the host (one wait for the stream).
        std::vector<T> d1(static_cast<size_t>(n)), d2(d1.size()), d3(d1.size(), T(1));
        ok(cudaMemcpy2DAsync(d1.data(), sizeof(T), ptr<T>(L1), sizeof(T) * (static_cast<size_t>(L1.ld) + 1),
                             sizeof(T), n, cudaMemcpyDeviceToHost, st),
           "cudaMemcpy2DAsync");
        ok(cudaMemcpy2DAsync(d2.data(), sizeof(T), ptr<T>(L2), sizeof(T) * (static_cast<size_t>(L2.ld) + 1),
                             sizeof(T), n, cudaMemcpyDeviceToHost, st),
           "cudaMemcpy2DAsync");
        if (!two) read_diagonal(ws, ptr<T>(L3), L3.ld, n, d3.data());
        ok(cudaStreamSynchronize(st), "cudaStreamSynchronize");
        std::vector<double> d(d1.size());
        for (size_t j = 0; j < d.size(); ++j)
            d[j] = std::abs(static_cast<double>(d1[j]) * static_cast<double>(d2[j]) * static_cast<double>(d3[j]));
        column = rank_breakdown<T>(d.data(), n, unorthogonal);
    }
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
    return column;
}

template <typename T>
void householder_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    const bool two = two_passes(a);
    const int column = reconstruct_cuda<T>(ws, tile<T>(buffers, a, 0), tile(buffers[1]), tile(buffers[2]),
                                           tile(buffers[two ? 2 : 3]),  // the last pass's factor
                                           !two, tile<T>(buffers, a, 4), tile(buffers[5]), tile(buffers[6]),
                                           tile(buffers[7]), a->passes->unorthogonal.load());
    if (column > 0) report_cuda(a, a->cuda->local(), ws, info_of(buffers[8]), QrBreakdown::RankDeficient, column);
    count_passes(a, two);
}

template <typename T>
void store_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile RY = tile(buffers[0]), A0 = tile<T>(buffers, a, 1);
    copy_async(RY.rows, RY.cols, ptr<T>(RY), RY.ld, ptr<T>(A0), A0.ld, ws.stream);
}

#define STARFACT_CHOLQR_HOUSEHOLDER_CUDA(T)                                                                          \
    template int reconstruct_cuda<T>(const gpu::WorkerStream&, const Tile&, const Tile&, const Tile&, const Tile&, \
                                     bool, const Tile&, const Tile&, const Tile&, const Tile&, bool);               \
    template void householder_cuda<T>(void*[], void*);                                                             \
    template void store_cuda<T>(void*[], void*);
STARFACT_CHOLQR_HOUSEHOLDER_CUDA(float)
STARFACT_CHOLQR_HOUSEHOLDER_CUDA(double)
#undef STARFACT_CHOLQR_HOUSEHOLDER_CUDA

}  // namespace starfact::detail::cholqr
#endif

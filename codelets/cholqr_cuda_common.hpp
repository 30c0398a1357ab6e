// Shared by the Cholesky QR's CUDA implementations (codelets/cholqr_cuda.cpp: the factorization;
// codelets/cholqr_apply_cuda.cpp: applying Q): error checks, copies, and the sizes of the Gram's and products'
// partial sums in the worker's workspace.
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <starpu.h>

#include <cstddef>

#include "codelets/cholqr_impl.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/qr/qr_kernels.hpp"

namespace starfact::detail::cholqr {

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

/// Products with a small result and a depth of thousands of rows (the Gram matrices, Y^T C) are summed from partial
/// products over chunks of the depth (one strided batched gemm into the worker's workspace): a single gemm would keep
/// a few of the GPU's multiprocessors busy. About kChunkBlocks result blocks of 128 x 128 in all, chunks of at least
/// kChunkMinDepth rows.
constexpr int kChunkBlocks = 64;
constexpr int kChunkMinDepth = 512;
template <typename T>
constexpr size_t partials_bytes() {
    return static_cast<size_t>(kChunkBlocks) * 128 * 128 * sizeof(T);
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

/// The diagonal of the n x n A (device) into d (host); waits for the stream.
template <typename T>
void read_diagonal(const gpu::WorkerStream& ws, const T* A, int ld, int n, T* d) {
    ok(cudaMemcpy2DAsync(d, sizeof(T), A, sizeof(T) * (static_cast<size_t>(ld) + 1), sizeof(T), n,
                         cudaMemcpyDeviceToHost, ws.stream),
       "cudaMemcpy2DAsync");
    ok(cudaStreamSynchronize(ws.stream), "cudaStreamSynchronize");
}

/// *info := column if it was 0 (device), and the breakdown recorded; waits for the stream.
void report_cuda(const CholqrArgs* a, CudaWorkerContext& c, const gpu::WorkerStream& ws, int* info, QrBreakdown why,
                 int column);

/// The reconstruction (codelets/cholqr_householder_cuda.cpp): from the n x n top block A0 of the last pass's input
/// and the passes' factors L1, L2 and the last, L3 (`three`: L3 is a third one), into the n x n Tt (T), V (M^-1),
/// RY (R above the diagonal, Y1 below) and the n x (n + 1) X (scratch, the signs in its last column). Returns the
/// rank check's column (1-based; 0: none), `unorthogonal` as rank_breakdown takes it.
template <typename T>
int reconstruct_cuda(const gpu::WorkerStream& ws, const Tile& A0, const Tile& L1, const Tile& L2, const Tile& L3,
                     bool three, const Tile& Tt, const Tile& V, const Tile& RY, const Tile& X, bool unorthogonal);

}  // namespace starfact::detail::cholqr
#endif

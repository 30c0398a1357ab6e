// Internal: the element-wise CUDA kernels of the Cholesky QR's GPU codelets (codelets/qr_cholqr.cpp): a diagonal
// shift, row and column scalings, the trace and the distance to the identity of a Gram matrix, sums of partial
// products, and the panel of the modified LU without pivoting of Ballard et al. (kernels/qr/cholqr_cpu.hpp has its host twin). No StarPU: the codelets pass
// the stream.
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>

namespace starfact::detail::gpu {

/// A(i, i) += value for i < n.
template <typename T>
void launch_cholqr_add_diag(T* A, int ld, int n, T value, cudaStream_t stream);
/// A (m x n): A(i, j) *= s(i) (rows) or s(j) (columns).
template <typename T>
void launch_cholqr_scale(T* A, int ld, int m, int n, const T* s, bool rows, cudaStream_t stream);
/// *out := trace(G) of the n x n G, summed in double. One block.
template <typename T>
void launch_cholqr_trace(const T* G, int ld, int n, double* out, cudaStream_t stream);
/// The distance of the n x n G from the identity, in double: out[0] := ||G - I||_F^2, out[1] := ||G - I||_1 (the
/// largest column sum of |G - I|; NaN when G holds one). One block per column.
template <typename T>
void launch_cholqr_identity_distance(const T* G, int ld, int n, double* out, cudaStream_t stream);
/// W (m x n, ldw) := sum over b < count of P_b (+ W when `accumulate`), the m x n matrices P_b = P + b m n (leading
/// dimension m). `symmetric` (m = n): W(i, j) := the sum of P_b(max(i, j), min(i, j)): only the P_b's lower
/// triangles are read, W is written whole.
template <typename T>
void launch_cholqr_sum(const T* P, int count, int m, int n, T* W, int ldw, bool accumulate, bool symmetric,
                       cudaStream_t stream);
/// Y (m x n, leading dimension m) := X (leading dimension ldx) rounded to float: the operand of a TF32 Gram matrix
/// (cuBLAS rounds float inputs to TF32 itself); *flag := 1 where an entry is neither zero nor of magnitude within
/// [2^-range, 2^range] (NaN and Inf included); *flag is not cleared.
void launch_cholqr_to_float(const double* X, int ldx, int m, int n, float* Y, int range, int* flag,
                            cudaStream_t stream);
/// W (n x n, ldw) := the sum over b < count of the n x n float matrices P + b n n, in double.
void launch_cholqr_sum_widen(const float* P, int count, int n, double* W, int ldw, cudaStream_t stream);
/// The modified LU of the m x n panel A (m >= n) in place, the signs into s (n entries): kernels/qr/cholqr_cpu.hpp's
/// modified_lu on the panel's columns (its rows below n are scaled and updated alike). One block: the codelet runs
/// it on panels of a blocked LU.
template <typename T>
void launch_cholqr_modified_lu_panel(T* A, int ld, int m, int n, T* s, cudaStream_t stream);

}  // namespace starfact::detail::gpu
#endif

// Internal: the element-wise CUDA kernels of the tile QR's GPU codelets (codelets/qr_tile.cpp): copies of
// triangles and of unit-lower reflector blocks, the triangular factor T from V^T V and tau (the UT transform),
// the identity pattern, the exactly-zero diagonal of R. No StarPU: the codelets pass the stream.
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>

#include <cstdint>

namespace starfact::detail::gpu {

/// What copy_trapezoid writes besides the upper trapezoid of src (rows i <= j).
enum class Below {
    Keep,  ///< dst's entries below the diagonal are left as they are
    Zero,  ///< set to zero
};
/// dst(i, j) := src(i, j) for i <= j (m x n), dst below the diagonal kept or zeroed.
template <typename T>
void launch_copy_upper(const T* src, int lds, T* dst, int ldd, int m, int n, Below below, cudaStream_t stream);
/// dst (m x k) := the unit lower trapezoid of src: src below the diagonal, ones on it, zeros above.
template <typename T>
void launch_copy_unit_lower(const T* src, int lds, T* dst, int ldd, int m, int k, cudaStream_t stream);
/// The UT transform's triangle from W = V^T V (upper triangle, k x k) and tau: W(i, j) for i < j, 1 / tau(i) on
/// the diagonal; the rows and columns of the reflectors with tau = 0 (H = I) are the identity's. T := I (k x k).
template <typename T>
void launch_qr_ut_triangle(T* W, int ldw, const T* tau, int k, T* Tm, int ldt, cudaStream_t stream);
/// After T := W^-1: T(i, i) := 0 for the reflectors with tau = 0 (their rows and columns of T are zero, as LAPACK's).
template <typename T>
void launch_qr_fix_identity(T* Tm, int ldt, const T* tau, int k, cudaStream_t stream);
/// A (m x n) := the identity pattern shifted by `offset`: A(i, j) = 1 where i + offset == j, else 0.
template <typename T>
void launch_qr_laset(T* A, int ld, int m, int n, int64_t offset, cudaStream_t stream);
/// If *info == 0 and some R(i, i), i < k, is exactly zero: *info = offset + the first such i + 1. One block.
template <typename T>
void launch_qr_diag_info(const T* R, int ld, int k, int* info, int64_t offset, cudaStream_t stream);

}  // namespace starfact::detail::gpu
#endif

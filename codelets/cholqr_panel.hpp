// Internal: the Cholesky QR as the factorization of the panel tree's tall panels (codelets/qr_panel.cpp), on the
// device (codelets/cholqr_cuda.cpp).
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include "runtime/cuda_contexts.hpp"

namespace starfact::detail::cholqr {

/// Panels of at least kPanelAspect rows per column (and kPanelMinWidth columns) take the Cholesky QR: measured on the
/// H200 against cuSOLVER's geqrf on the same shapes (docs/qr.md), 2.05x at 32768 x 2048, 1.79x at 131072 x 2048, 1.39x
/// at 8 rows per column (32768 x 4096), below at 4 (16384 x 4096: 0.85x).
constexpr int kPanelAspect = 8;
constexpr int kPanelMinWidth = 256;

/// The shifted Cholesky QR (two or three passes) of the contiguous M x w panel P (leading dimension M) with its
/// Householder form rebuilt, as geqrt leaves it: R above P's diagonal, the reflectors below it (unit diagonal
/// implicit), T (w x w, upper, zeros below: Q = I - Y T Y^T) into Tm (leading dimension ldt); on ws's stream, in a
/// workspace of its own: `space` (panel_cholqr_bytes of them, reserved by the caller) or, when null, a stream-ordered
/// allocation. false (P and Tm undefined): a breakdown of a pass, the rank check, a last pass that does not
/// orthogonalise, or no memory for the allocation; the caller factors the panel again by Householder.
template <typename T>
bool panel_cholqr_cuda(const gpu::WorkerStream& ws, const CudaWorkerContext& worker, T* P, int M, int w, T* Tm,
                       int ldt, void* space = nullptr);
/// The bytes of panel_cholqr_cuda's workspace for an M x w panel.
template <typename T>
size_t panel_cholqr_bytes(cusolverDnHandle_t solver, int M, int w);

}  // namespace starfact::detail::cholqr
#endif

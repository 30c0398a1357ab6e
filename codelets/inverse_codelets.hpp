// Internal: the codelets of the SPD inverse (potri = potrf, trtri, lauum on tiles). They are owned by the
// Runtime through detail::kernel<define>() (codelets/codelets.hpp), one file each, for the four element types:
//   codelets/trtri_tile.cpp   in-place inverse of a lower-triangular tile, with LAPACK info
//   codelets/lauum_tile.cpp   L := L^T L (L^H L on complex tiles) on a lower-triangular tile
//   codelets/trmm.cpp         triangular matrix product
#pragma once
#include <starpu.h>

#include <cstdint>

#include "codelets/codelets.hpp"
#include "kernels/cuda_blas.hpp"
#include "runtime/cuda_contexts.hpp"

namespace starfact::detail {

/// A := A^-1 for the lower-triangular, non-unit tile A (in place; the strictly upper part is neither read
/// nor written). A zero diagonal entry j (1-based, local) sets the int `info` to offset + j unless it is
/// already nonzero.
template <typename T>
void insert_trtri_tile(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t info,
                       int64_t offset);
/// A := L^T L (L^H L for complex T) for the lower-triangular tile L held in A (lower triangle in and out; upper
/// untouched).
template <typename T>
void insert_lauum_tile(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A);
/// B := alpha op(A) B (Left) or alpha B op(A) (Right), A triangular.
template <typename T>
void insert_trmm(const Runtime& rt, const TaskOptions& o, Side side, Uplo uplo, Op op, Diag diag, T alpha,
                 starpu_data_handle_t A, starpu_data_handle_t B);
/// Makes every CUDA worker's buffers large enough for the trtri_tile and lauum_tile codelets on tiles of
/// order up to nb (cuSOLVER trtri workspace, one scratch tile).
template <typename T>
void reserve_inverse_tile_workspace(const Runtime& rt, int nb);

#ifdef STARFACT_HAVE_CUDA
namespace gpu {
/// An urgent task (gpu::WorkerStream on the worker's second stream) that uses the worker's shared buffers
/// (scratch, dev_info) first waits on `s` for the work queued on the worker's own stream, which may still
/// use them; no-op for a task on the worker's own stream.
inline void after_worker_stream(CudaWorkerContext& c, cudaStream_t s) {
    if (s == c.stream) return;
    cudaEventRecord(c.aux_events[0], c.stream);
    cudaStreamWaitEvent(s, c.aux_events[0], 0);
}
}  // namespace gpu
#endif

}  // namespace starfact::detail

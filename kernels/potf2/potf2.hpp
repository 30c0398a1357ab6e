// Fused potf2: in-place lower Cholesky of one diagonal tile on the GPU, fully asynchronous. Tiles up to
// the cut-off run in one launch of the replicated-diagonal kernel (whole tile in shared memory); larger
// tiles are factored block column by block column (fused panel launches and our syrk), and the largest by
// the two-stream form (fused panels on a high-priority chain stream, cuBLAS updates overlapped on the
// caller's stream), per the tuning table (potf2_tuning.hpp). Design and numbers: docs/potf2.md.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace starfact::detail::gpu {

/// What the two-stream form of large tiles needs besides the caller's stream (potf2_tuning.hpp,
/// Potf2Config::group): a second stream for the panel chain (best created with the highest priority, so
/// that the chain overtakes other work), a cuBLAS handle bound to it (host pointer mode), and two events
/// (cudaEventDisableTiming). Owned by the caller, one set per concurrent caller; all work it issues is
/// joined back into the caller's stream before potf2_tile returns.
struct Potf2Aux {
    cudaStream_t stream = nullptr;
    cublasHandle_t cublas = nullptr;
    cudaEvent_t events[2] = {nullptr, nullptr};
};

/// Bytes of device workspace potf2_tile<T> needs for an n x n tile (0 if none).
template <typename T>
size_t potf2_workspace_bytes(int n);

/// In-place lower Cholesky of the n x n column-major tile A (leading dimension ld >= n) on `stream`,
/// fully asynchronous (no host synchronisation, no allocation). `cublas` is already bound to `stream`
/// (used for the trsm/syrk of the recursive form; its pointer mode is restored on return). On failure
/// at local column j (1-based: the first non-positive or non-finite pivot), if *info == 0 it sets
/// *info = offset + j (info is a device int); columns 1..j-1 then hold L as LAPACK leaves them and the
/// lower triangle of columns j..n is set to the identity, so the tile stays finite (no NaN/Inf written)
/// and later triangular solves with it stay finite. Nothing is written outside the lower triangle of
/// the tile; the strictly upper triangle is not read. Throws starfact::InvalidArgument on bad arguments
/// (n < 0, ld < max(1, n), null A or info, workspace smaller than potf2_workspace_bytes<T>(n)).
/// `aux` (optional): lets tiles that the tuning table gives to the two-stream form use it (without it they
/// take the one-stream blocked form).
template <typename T>
void potf2_tile(cublasHandle_t cublas, cudaStream_t stream, int n, T* A, int ld, int* info, int64_t offset,
                void* workspace, size_t workspace_bytes, const Potf2Aux* aux = nullptr);

}  // namespace starfact::detail::gpu

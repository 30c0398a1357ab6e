// Recursive Cholesky on one GPU: in-place lower factorization of one n x n column-major matrix whose flops are
// almost all large GEMMs. The recursion of Gustavson ("Recursion leads to automatic variable blocking for dense
// linear-algebra algorithms", IBM J. Res. Dev. 41(6), 1997) and of Elmroth, Gustavson, Jonsson and Kagstrom
// (SIAM Review 46(1), 2004):
//
//   [A11 .  ]   potrf(A11) = L11;   A21 := A21 L11^-T   (trsm, itself recursive into gemms);
//   [A21 A22]   A22 -= A21 A21^T    (syrk, recursive: two half syrks and one gemm);   potrf(A22) = L22
//
// down to a leaf order where a one-block factorization runs (our fused potf2 or cuSOLVER's potrf). The updates of
// the upper levels are gemms of order n/2, n/4, ..., which run near the GPU's GEMM rate, where the vendor's blocked
// potrf spends its time in rank-nb updates. Everything is queued on one stream, asynchronously: no host round trip,
// no allocation; the LAPACK info goes to a device int. Float storage may take tensor-core gemms (`compute`, as
// TaskOptions::compute: TF32, BF16, FP16 with float accumulation) for the low-precision factor of the mixed solve.
// Design, tuning and numbers: docs/potf2.md ("Recursive Cholesky").
#pragma once
#ifdef STARFACT_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <cstddef>
#include <cstdint>

namespace starfact::detail::gpu {

/// The one-block factorization at the recursion's leaves.
enum class RpotrfLeaf {
    Fused,     ///< our fused potf2 (kernels/potf2/), one-stream forms; needs the potf2 module in the build
    Cusolver,  ///< cusolverDn<t>potrf, with the devInfo merged into info on the device
};

/// The recursion's tuning parameters (kernels/rpotrf/rpotrf_tuning.hpp has the measured defaults).
struct RpotrfConfig {
    int leaf = 256;                      ///< orders at or below: one leaf call
    RpotrfLeaf leaf_kind = RpotrfLeaf::Fused;
    int trsm_base = 128;                 ///< columns at or below which the panel solve calls cuBLAS trsm
    int syrk_base = 512;                 ///< orders at or below which the update calls cuBLAS syrk
    int compute = 0;                     ///< float only: 0 FP32 gemms; 1 TF32, 2 BF16, 3 FP16 tensor cores
    /// Panel solves as products with the inverted leaf blocks of L (each leaf's triangle inverted once, right after
    /// it is factored, and applied by a gemm into scratch at every level that needs it; trsm_base is then unused),
    /// as MAGMA's trsm does with its diagonal blocks. Forward error grows with the leaf blocks' condition numbers
    /// instead of being backward stable: a tuned choice, checked on ill-conditioned matrices by the GPU tests.
    bool trsm_inverse = false;
};

/// Where a factorization's time goes (a tuning aid: bench_rpotrf --profile). Filled when passed to rpotrf: CUDA
/// events around every leaf, panel solve and update, read by finish() after the stream has run them.
class RpotrfProfile {
public:
    RpotrfProfile() = default;
    ~RpotrfProfile();
    RpotrfProfile(const RpotrfProfile&) = delete;
    RpotrfProfile& operator=(const RpotrfProfile&) = delete;
    enum Part { Leaf, Trsm, Syrk, kParts };
    /// Records the start (begin) or the end (end) of one operation of `part` on `stream`.
    void begin(Part part, cudaStream_t stream);
    void end(cudaStream_t stream);
    /// Waits for the events and adds their times up: seconds[part], calls[part]; clears the events.
    void finish();
    double seconds[kParts] = {0, 0, 0};
    int calls[kParts] = {0, 0, 0};

private:
    struct Span {
        Part part;
        cudaEvent_t start, stop;
    };
    Span* spans_ = nullptr;
    int count_ = 0, capacity_ = 0;
};

/// Whether this build has the fused leaf (RpotrfLeaf::Fused).
bool rpotrf_fused_leaf_available();

/// Bytes of device workspace rpotrf<T> needs for orders up to n under `c` (the leaf's workspace, a devInfo int
/// for cuSOLVER, with trsm_inverse the inverted leaf blocks and a scratch: 2 n x leaf entries).
template <typename T>
size_t rpotrf_workspace_bytes(cusolverDnHandle_t solver, int n, const RpotrfConfig& c);

/// In-place lower Cholesky of the n x n column-major matrix A (ld >= n) on `stream`: `cublas` and `solver` are
/// bound to `stream`. On failure at global column offset + j (1-based, the first non-positive or non-finite
/// pivot) *info (a device int) is set if it was 0; later leaves never overwrite it. Nothing outside the lower
/// triangle is written; the strictly upper triangle is not read. Throws starfact::InvalidArgument on bad
/// arguments (n < 0, ld < max(1, n), null pointers, a configuration out of range, a workspace smaller than
/// rpotrf_workspace_bytes<T>), starfact::Error when cuBLAS or cuSOLVER refuse a call.
template <typename T>
void rpotrf(cublasHandle_t cublas, cusolverDnHandle_t solver, cudaStream_t stream, int n, T* A, int ld, int* info,
            int64_t offset, void* workspace, size_t workspace_bytes, const RpotrfConfig& c,
            RpotrfProfile* profile = nullptr);

/// C -= A A^T on the lower triangle of the n x n matrix C (A n x k): cuBLAS syrk at or below `base`, otherwise
/// two half updates and one gemm (the upper triangle is neither read nor written). `compute` as RpotrfConfig.
template <typename T>
cublasStatus_t syrk_lower_recursive(cublasHandle_t h, int compute, int n, int k, const T* A, int lda, T* C, int ldc,
                                    int base);

}  // namespace starfact::detail::gpu
#endif

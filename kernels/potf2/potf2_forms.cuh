// The forms of the fused potf2 for one tile, on the host: argument checks, one leaf for tiles up to the
// cut-off, and for larger tiles the blocked form (a leaf per block column, our syrk), the recursive form
// (leaf, cuBLAS trsm and syrk, leaf) and the two-stream form (fused panels on a chain stream, cuBLAS
// updates on the caller's), with the failure protocol across kernels (potf2_protocol.cuh). The leaf
// launches come from a policy `Leaf`: the library's potf2.cu instantiates potf2_run with the
// replicated-diagonal kernel (potf2_rdiag.cuh); the tuning tool (tools/tune/potf2/variants.cu) with its
// single-block leaves. Include in one .cu per policy.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "kernels/cuda_blas.hpp"
#include "kernels/potf2/pdl.cuh"
#include "kernels/potf2/potf2.hpp"
#include "kernels/potf2/potf2_panel.cuh"
#include "kernels/potf2/potf2_protocol.cuh"
#include "kernels/potf2/potf2_tuning.hpp"
#include "starfact/error.hpp"

namespace starfact::detail::gpu::potf2_impl {

inline void check_launch(const char* what, cudaError_t launched = cudaSuccess) {
    const cudaError_t e = launched != cudaSuccess ? launched : cudaGetLastError();
    if (e != cudaSuccess) throw RuntimeError(std::string("potf2: ") + what + ": " + cudaGetErrorString(e));
}
inline void check_blas(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw RuntimeError(std::string("potf2: ") + what + " failed (cublasStatus " + std::to_string(s) + ")");
}

/// B := B L^-T (m x n B, n x n lower L), through the scalar layer (kernels/cuda_blas.hpp).
template <typename T>
cublasStatus_t trsm_rlt(cublasHandle_t h, int m, int n, const T* L, int ld, T* B) {
    return gpu::trsm(h, Side::Right, Uplo::Lower, Op::Trans, Diag::NonUnit, m, n, T(1), L, ld, B, ld);
}
/// C -= A A^T (lower, n x n C, inner dimension k).
template <typename T>
cublasStatus_t syrk_ln(cublasHandle_t h, int n, int k, const T* A, int ld, T* C) {
    return gpu::syrk(h, Uplo::Lower, Op::NoTrans, n, k, T(-1), A, ld, T(1), C, ld);
}
/// C -= A B^T (m x n, inner dimension k), all three in the same column-major matrix (leading dimension ld).
template <typename T>
cublasStatus_t gemm_nt(cublasHandle_t h, int m, int n, int k, const T* A, const T* B, int ld, T* C) {
    return gpu::gemm(h, Op::NoTrans, Op::Trans, m, n, k, T(-1), A, ld, B, ld, T(1), C, ld);
}

/// Opts `kernel` in to `bytes` of dynamic shared memory once per device (the bit set caches a device
/// attribute; setting it twice is harmless, so a race only costs a repeated call).
template <typename Kernel>
void opt_in_smem(Kernel kernel, size_t bytes, std::atomic<uint64_t>& opted_in) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) check_launch("cudaGetDevice");
    const uint64_t bit = uint64_t(1) << (device & 63);
    if (opted_in.load(std::memory_order_relaxed) & bit) return;
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)) !=
        cudaSuccess)
        check_launch("cudaFuncSetAttribute");
    opted_in.fetch_or(bit, std::memory_order_relaxed);
}

constexpr int kSyrkKMax = kPotf2LeafMax;

/// Our syrk, as a programmatic dependent of the panel kernel before it (pdl.cuh).
template <typename T>
void launch_syrk(const PanelParams<T>& p, cudaStream_t stream) {
    using Shape = SyrkShape;
    auto kernel = potf2_syrk_kernel<T, kSyrkKMax>;
    const size_t smem = Shape::smem_bytes<T>(p.b);
    if (smem > 48 * 1024) {
        static std::atomic<uint64_t> opted_in{0};
        opt_in_smem(kernel, Shape::smem_bytes<T>(kSyrkKMax), opted_in);
    }
    const int mt = (p.m + Shape::kTS - 1) / Shape::kTS;
    const int grid = mt * (mt + 1) / 2;  // (<= 2080 for tiles up to 2048)
    check_launch("syrk kernel launch",
                 launch_pdl(kernel, dim3(grid), dim3(Shape::kThreads), smem, stream, true, p));
}

/// The multi-kernel forms of one tile with the leaf launches of `Leaf` (see potf2_run).
template <typename T, typename Leaf>
struct MultiKernel {
    cublasHandle_t cublas;
    cudaStream_t stream;
    Potf2Config cfg;
    T* A;  // the tile
    int n_tile;
    int ld;
    int* info;
    int64_t offset;
    int* flag;

    T* at(int i, int j) const { return A + i + static_cast<int64_t>(j) * ld; }

    /// Columns of the first half: whole leaves, about half of them (so leaves are cut-off sized).
    int split(int n) const {
        const int leaves = (n + cfg.cutoff - 1) / cfg.cutoff;
        return cfg.cutoff * ((leaves + 1) / 2);
    }

    void leaf(int off, int n, int mode, int rows_below = 0, bool dependent = false) const {
        LeafParams<T> p{at(off, off), n, ld, info, offset + off, flag, off, mode, A, n_tile, rows_below,
                        rows_below > 0 ? flag + 1 : nullptr};
        Leaf::launch(cfg, p, stream, dependent);
    }

    /// Blocked form: block columns of cfg.cutoff: leaf (with the rdiag kernel: fused with the rows
    /// below; otherwise Leaf::solve_panel solves them), trailing update.
    void factor_blocked() const {
        const int b = cfg.cutoff;
        for (int k0 = 0; k0 < n_tile; k0 += b) {
            const int w = std::min(b, n_tile - k0);
            const int m = n_tile - k0 - w;
            // Programmatic dependent launches (pdl.cuh) only between our own kernels, which all wait
            // on the device before touching memory: the fused launch and our syrk (the trailing update
            // at every width: measured faster than cublas<t>syrk, docs/potf2.md) alternate.
            leaf(k0, w, (k0 == 0 ? kFirst : kCheck) | (m == 0 ? kLast : 0) | (m > 0 ? kAllowNext : 0),
                 cfg.rdiag ? m : 0, cfg.rdiag && k0 > 0);
            if (m == 0) break;
            const PanelParams<T> pp{at(k0, k0), at(k0 + w, k0), at(k0 + w, k0 + w), w, m, ld, flag, k0};
            if (!cfg.rdiag) Leaf::solve_panel(pp, stream);  // rdiag: solved by the fused launch
            launch_syrk<T>(pp, stream);  // A22 -= L21 L21^T
        }
    }

    /// A[c0:n, c0:c1] -= A[c0:n, k0:k1] A[c0:c1, k0:k1]^T on the lower triangle: syrk on the square
    /// [c0, c1), gemm on the rows below it (on the stream `h` is bound to).
    void update_columns(cublasHandle_t h, int c0, int c1, int k0, int k1) const {
        const int w = c1 - c0, k = k1 - k0, below = n_tile - c1;
        check_blas(syrk_ln(h, w, k, at(c0, k0), ld, at(c0, c0)), "cublas<t>syrk");
        if (below > 0) check_blas(gemm_nt(h, below, w, k, at(c1, k0), at(c0, k0), ld, at(c1, c0)), "cublas<t>gemm");
    }

    /// The trailing lower triangle A[c0:n, c0:n] -= A[c0:n, k0:k1] A[c0:n, k0:k1]^T, in column pieces of
    /// `piece` columns (each a syrk on its square and a gemm below it: most of the work in gemms).
    void update_trailing(cublasHandle_t h, int c0, int k0, int k1, int piece) const {
        for (int c = c0; c < n_tile; c += piece) update_columns(h, c, std::min(c + piece, n_tile), k0, k1);
    }

    /// Two-stream form with look-ahead (cfg.group > 0). Panels of cfg.cutoff columns: one fused launch
    /// each factors the diagonal block and solves every row below it. Groups of cfg.group columns: on
    /// the chain stream (aux.stream, high priority) a group's panels, each followed by the update of the
    /// group's remaining columns, then the update of the next group by the whole group (look-ahead);
    /// meanwhile, on `stream`, the update of everything right of the next group by the group (the bulk
    /// of the flops, rank cfg.group, in gemms). Dependencies: the bulk update of group G waits for G's
    /// panels (event P); the look-ahead of group G+1 waits for G's bulk update, which wrote the same
    /// columns (event A). So the chain never waits behind the bulk except for that one hand-over.
    void factor_lookahead(const Potf2Aux& aux) const {
        const int b = cfg.cutoff;
        const int B = std::max(b, (cfg.group + b - 1) / b * b);
        const cudaStream_t chain = aux.stream;
        const cudaEvent_t evA = aux.events[0], evP = aux.events[1];
        check_launch("cudaEventRecord", cudaEventRecord(evA, stream));
        check_launch("cudaStreamWaitEvent", cudaStreamWaitEvent(chain, evA, 0));
        for (int g0 = 0; g0 < n_tile; g0 += B) {
            const int g1 = std::min(g0 + B, n_tile);
            for (int p0 = g0; p0 < g1; p0 += b) {
                const int p1 = std::min(p0 + b, g1);
                LeafParams<T> p{at(p0, p0), p1 - p0, ld, info, offset + p0, flag, p0,
                                (p0 == 0 ? kFirst : kCheck) | (p1 == n_tile ? kLast : 0), A, n_tile,
                                n_tile - p1, n_tile > p1 ? flag + 1 : nullptr};
                Leaf::launch(cfg, p, chain, false);  // rdiag (checked)
                if (p1 < g1) update_columns(aux.cublas, p1, g1, p0, p1);
            }
            if (g1 == n_tile) break;
            const int g2 = std::min(g1 + B, n_tile);
            check_launch("cudaEventRecord", cudaEventRecord(evP, chain));
            check_launch("cudaStreamWaitEvent", cudaStreamWaitEvent(stream, evP, 0));
            check_launch("cudaStreamWaitEvent", cudaStreamWaitEvent(chain, evA, 0));  // previous bulk update
            update_columns(aux.cublas, g1, g2, g0, g1);                                  // look-ahead
            if (g2 < n_tile) {
                const int rest = n_tile - g2;
                const int piece = cfg.bulk_piece > 0 ? cfg.bulk_piece : std::max(B, (rest / 4 + 63) / 64 * 64);
                update_trailing(cublas, g2, g0, g1, piece);
            }
            check_launch("cudaEventRecord", cudaEventRecord(evA, stream));
        }
        check_launch("cudaEventRecord", cudaEventRecord(evP, chain));
        check_launch("cudaStreamWaitEvent", cudaStreamWaitEvent(stream, evP, 0));
    }

    /// Factors the diagonal block [off, off + n) of the tile.
    void factor(int off, int n, bool first, bool last) const {
        if (n <= cfg.cutoff) {
            leaf(off, n, (first ? kFirst : kCheck) | (last ? kLast : 0));
            return;
        }
        const int n1 = split(n), n2 = n - n1;
        factor(off, n1, first, false);
        // A21 := A21 L11^{-T};  A22 := A22 - A21 A21^T (lower).
        check_blas(trsm_rlt(cublas, n2, n1, at(off, off), ld, at(off + n1, off)), "cublas<t>trsm");
        check_blas(syrk_ln(cublas, n2, n1, at(off + n1, off), ld, at(off + n1, off + n1)), "cublas<t>syrk");
        factor(off + n1, n2, false, last);
    }
};

/// potf2_tile_tuned with the leaves of `Leaf`, which provides
///   static void check(const Potf2Config&, const char* fn);    // throws InvalidArgument on a config it lacks
///   template <typename T> static void launch(const Potf2Config&, const LeafParams<T>&, cudaStream_t,
///                                            bool dependent);   // one leaf (dependent: pdl.cuh)
///   template <typename T> static void solve_panel(const PanelParams<T>&, cudaStream_t);  // !rdiag, blocked
template <typename T, typename Leaf>
void potf2_run(const Potf2Config& config, cublasHandle_t cublas, cudaStream_t stream, int n, T* A, int ld,
               int* info, int64_t offset, void* workspace, size_t workspace_bytes, const Potf2Aux* aux) {
    const char* fn = "potf2_tile";
    require(config.group <= 0 || n <= config.cutoff || (config.rdiag && aux && aux->stream && aux->cublas),
            fn, "aux", "must give a second stream and its cuBLAS handle for the two-stream form (config.group > 0)");
    Leaf::check(config, fn);
    require(config.cutoff >= kPotf2MinCutoff && config.cutoff <= kPotf2LeafMax, fn, "config.cutoff",
            "must be in [" + std::to_string(kPotf2MinCutoff) + ", " + std::to_string(kPotf2LeafMax) + "] (got " +
                std::to_string(config.cutoff) + ")");
    require(n >= 0, fn, "n", "must be >= 0 (got " + std::to_string(n) + ")");
    require(ld >= (n > 1 ? n : 1), fn, "ld", "must be >= max(1, n) (got " + std::to_string(ld) + ")");
    if (n == 0) return;
    require(A != nullptr, fn, "A", "must not be null");
    require(info != nullptr, fn, "info", "must not be null");
    const size_t need = potf2_workspace_bytes_for(n, config.cutoff);
    require(workspace_bytes >= need && (need == 0 || workspace != nullptr), fn, "workspace",
            "must hold " + std::to_string(need) + " bytes (got " + std::to_string(workspace_bytes) + ")");

    if (n <= config.cutoff) {  // one leaf: no flag, no cuBLAS
        LeafParams<T> p{A, n, ld, info, offset, nullptr, 0, 0, A, n};
        Leaf::launch(config, p, stream, false);
        return;
    }
    require(cublas != nullptr, fn, "cublas", "must not be null for n > cut-off");
    // Workspace: int 0 = the tile's failure flag, int 1 = the fused rdiag launches' arrival count;
    // both start at 0 (the buffer may hold anything, e.g. another library's scratch).
    check_launch("cudaMemsetAsync", cudaMemsetAsync(workspace, 0, 2 * sizeof(int), stream));
    cublasPointerMode_t mode = CUBLAS_POINTER_MODE_HOST;
    check_blas(cublasGetPointerMode(cublas, &mode), "cublasGetPointerMode");
    if (mode != CUBLAS_POINTER_MODE_HOST) check_blas(cublasSetPointerMode(cublas, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    const MultiKernel<T, Leaf> r{cublas, stream, config, A, n, ld, info, offset, static_cast<int*>(workspace)};
    try {
        if (config.group > 0)
            r.factor_lookahead(*aux);
        else if (config.blocked)
            r.factor_blocked();
        else
            r.factor(0, n, true, true);
    } catch (...) {
        if (mode != CUBLAS_POINTER_MODE_HOST) cublasSetPointerMode(cublas, mode);
        throw;
    }
    if (mode != CUBLAS_POINTER_MODE_HOST) check_blas(cublasSetPointerMode(cublas, mode), "cublasSetPointerMode");
}

}  // namespace starfact::detail::gpu::potf2_impl

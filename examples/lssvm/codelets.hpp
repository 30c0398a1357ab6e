// The application's StarPU codelets (CPU and CUDA): kernel-matrix tiles, kernel-times-matrix products computed
// on the fly, and a tile gemm for the CG products. Owned by a Codelets object that lives as long as the Runtime.
#pragma once
#include <starpu.h>

#include <cstdint>

#include "lssvm.hpp"

namespace lssvm {

/// What a kernel tile computes: k(x_i, z_j), plus `shift` on the diagonal of a diagonal tile (1/C).
struct KernelArgs {
    KernelType type;
    double gamma;
    double shift;
};

template <typename T>
class Codelets {
public:
    Codelets();
    Codelets(const Codelets&) = delete;
    Codelets& operator=(const Codelets&) = delete;

    /// K_IJ := k(X_I, X_J) (+ shift I when diagonal). Off-diagonal: X_I, X_J, |x|^2 of both, K_IJ (W);
    /// diagonal (one row block): X_I, |x|^2, K_II (W).
    starpu_task* gram(const KernelArgs& a, starpu_data_handle_t xi, starpu_data_handle_t xj, starpu_data_handle_t ni,
                      starpu_data_handle_t nj, starpu_data_handle_t k) const;
    starpu_task* gram_diag(const KernelArgs& a, starpu_data_handle_t xi, starpu_data_handle_t ni,
                           starpu_data_handle_t k) const;
    /// S_I += k(A_I, B_J) V_J with the kernel tile in per-worker scratch (never stored): predictions and residuals.
    starpu_task* apply(const KernelArgs& a, starpu_data_handle_t ai, starpu_data_handle_t bj, starpu_data_handle_t nai,
                       starpu_data_handle_t nbj, starpu_data_handle_t vj, starpu_data_handle_t si,
                       starpu_data_handle_t scratch) const;
    /// C := op(A) B + beta C, op(A) = A or A^T.
    starpu_task* gemm(bool trans_a, double beta, starpu_data_handle_t a, starpu_data_handle_t b,
                      starpu_data_handle_t c) const;

private:
    starpu_codelet gram_, apply_, gemm_;
    starpu_perfmodel gram_model_, apply_model_, gemm_model_;
};

/// StarPU's `where` for a mapping.
uint32_t where_of(starfact::Mapping m);

#ifdef LSSVM_HAVE_CUDA
/// G := k from the inner products G (m x n, leading dimension ld) and the squared norms, on `stream`
/// (lower_only: entries above the diagonal untouched).
template <typename T>
void finish_kernel_cuda(T* G, int m, int n, int ld, const T* na, const T* nb, const KernelArgs& a, bool diag,
                        cudaStream_t stream, bool lower_only = false);
#endif

}  // namespace lssvm

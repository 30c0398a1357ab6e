// The refinement's coarse codelets (algorithms/mixed_ops.cpp): one task per block row of the residual and one per
// step of each triangular sweep, each a loop of BLAS calls over the tiles it holds. The tile-by-tile graphs they
// replace spent more time in task overhead than in the memory-bound products (one or a few right-hand sides).
//   residual   R_i := B0_i - sum_{j<=i} A_ij X_j - sum_{j>i} A_ji^T X_j   (A: double, lower tiles stored)
//              buffers: 0 = R_i (W), [B0_i (R)], X_0..X_{mt-1} (R), A_i0..A_ii (R), A_{i+1,i}..A_{mt-1,i} (R)
//   forward    Z_k := L_kk^-1 Z_k;  Z_i -= L_ik Z_k, i > k                        (L: float)
//              buffers: L_kk..L_{mt-1,k} (R), Z_k..Z_{mt-1} (RW)
//   backward   Z_k -= sum_{i>k} L_ik^T Z_i;  Z_k := L_kk^-T Z_k
//              buffers: L_kk..L_{mt-1,k} (R), Z_k (RW), Z_{k+1}..Z_{mt-1} (R)
#include <cstring>
#include <vector>

#include "codelets/codelets.hpp"
#include "codelets/matrix_buffers.hpp"
#include "codelets/mixed_codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct SweepArgs {
    int row;       // residual: i; sweeps: unused
    int tiles;     // residual: mt; sweeps: tiles of the column (mt - k)
    int has_b;     // residual: B0_i given (else R_i := -A X)
    CudaContexts* cuda;
    bool urgent;
};

const SweepArgs* args(void* cl_arg) { return static_cast<const SweepArgs*>(cl_arg); }

/// The residual's buffers, by role.
struct ResidualBuffers {
    MatrixView<double> R, B;
    std::vector<MatrixView<double>> X, A;  // A: row i left of and on the diagonal, then column i below it
    ResidualBuffers(void* b[], const SweepArgs& a) : R(matrix_view<double>(b[0])), B{} {
        int at = 1;
        if (a.has_b) B = matrix_view<double>(b[at++]);
        for (int j = 0; j < a.tiles; ++j) X.push_back(matrix_view<double>(b[at++]));
        for (int j = 0; j < a.tiles; ++j) A.push_back(matrix_view<double>(b[at++]));
    }
};

// CPU: cblas; one column takes the matrix-vector forms.
void residual_cpu(void* b[], void* cl_arg) {
    const SweepArgs& a = *args(cl_arg);
    ResidualBuffers t(b, a);
    const int i = a.row;
    for (int c = 0; c < t.R.n; ++c) {
        double* r = t.R.p + static_cast<int64_t>(c) * t.R.ld;
        if (a.has_b)
            std::memcpy(r, t.B.p + static_cast<int64_t>(c) * t.B.ld, sizeof(double) * t.R.m);
        else
            std::memset(r, 0, sizeof(double) * t.R.m);
    }
    for (int j = 0; j < a.tiles; ++j) {
        const MatrixView<double>& A = t.A[static_cast<size_t>(j)];
        const MatrixView<double>& X = t.X[static_cast<size_t>(j)];
        if (j < i)
            cpu::gemm(Op::NoTrans, Op::NoTrans, t.R.m, t.R.n, X.m, -1.0, A.p, A.ld, X.p, X.ld, 1.0, t.R.p, t.R.ld);
        else if (j == i)
            cpu::symm(Side::Left, Uplo::Lower, t.R.m, t.R.n, -1.0, A.p, A.ld, X.p, X.ld, 1.0, t.R.p, t.R.ld);
        else  // A holds A_ji (below the diagonal in column i)
            cpu::gemm(Op::Trans, Op::NoTrans, t.R.m, t.R.n, X.m, -1.0, A.p, A.ld, X.p, X.ld, 1.0, t.R.p, t.R.ld);
    }
}

void forward_cpu(void* b[], void* cl_arg) {
    const int tiles = args(cl_arg)->tiles;
    const MatrixView<float> L = matrix_view<float>(b[0]), Z = matrix_view<float>(b[tiles]);
    cpu::trsm(Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, Z.m, Z.n, 1.0f, L.p, L.ld, Z.p, Z.ld);
    for (int i = 1; i < tiles; ++i) {
        const MatrixView<float> Li = matrix_view<float>(b[i]), Zi = matrix_view<float>(b[tiles + i]);
        cpu::gemm(Op::NoTrans, Op::NoTrans, Zi.m, Zi.n, Z.m, -1.0f, Li.p, Li.ld, Z.p, Z.ld, 1.0f, Zi.p, Zi.ld);
    }
}

void backward_cpu(void* b[], void* cl_arg) {
    const int tiles = args(cl_arg)->tiles;
    const MatrixView<float> L = matrix_view<float>(b[0]), Z = matrix_view<float>(b[tiles]);
    for (int i = 1; i < tiles; ++i) {
        const MatrixView<float> Li = matrix_view<float>(b[i]), Zi = matrix_view<float>(b[tiles + i]);
        cpu::gemm(Op::Trans, Op::NoTrans, Z.m, Z.n, Zi.m, -1.0f, Li.p, Li.ld, Zi.p, Zi.ld, 1.0f, Z.p, Z.ld);
    }
    cpu::trsm(Side::Left, Uplo::Lower, Op::Trans, Diag::NonUnit, Z.m, Z.n, 1.0f, L.p, L.ld, Z.p, Z.ld);
}

#ifdef STARFACT_HAVE_CUDA
void residual_cuda(void* b[], void* cl_arg) {
    const SweepArgs& a = *args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    ResidualBuffers t(b, a);
    const int i = a.row;
    if (a.has_b)
        check_cuda(cudaMemcpy2DAsync(t.R.p, sizeof(double) * t.R.ld, t.B.p, sizeof(double) * t.B.ld,
                                     sizeof(double) * t.R.m, t.R.n, cudaMemcpyDeviceToDevice, ws.stream),
                   "residual");
    else
        check_cuda(cudaMemset2DAsync(t.R.p, sizeof(double) * t.R.ld, 0, sizeof(double) * t.R.m, t.R.n, ws.stream),
                   "residual");
    for (int j = 0; j < a.tiles; ++j) {
        const MatrixView<double>& A = t.A[static_cast<size_t>(j)];
        const MatrixView<double>& X = t.X[static_cast<size_t>(j)];
        cublasStatus_t s;
        if (j == i) {
            s = t.R.n == 1 ? gpu::symv(ws.cublas, Uplo::Lower, A.m, -1.0, A.p, A.ld, X.p, 1.0, t.R.p)
                           : gpu::symm(ws.cublas, Side::Left, Uplo::Lower, t.R.m, t.R.n, -1.0, A.p, A.ld, X.p, X.ld,
                                       1.0, t.R.p, t.R.ld);
        } else {
            s = update(ws.cublas, j < i ? Op::NoTrans : Op::Trans, A, X, t.R);
        }
        check_cublas(s, "residual");
    }
}

void forward_cuda(void* b[], void* cl_arg) {
    const SweepArgs& a = *args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    const MatrixView<float> L = matrix_view<float>(b[0]);
    MatrixView<float> Z = matrix_view<float>(b[a.tiles]);
    check_cublas(gpu::trsm(ws.cublas, Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, Z.m, Z.n, 1.0f, L.p, L.ld,
                           Z.p, Z.ld),
                 "forward sweep");
    for (int i = 1; i < a.tiles; ++i) {
        MatrixView<float> Zi = matrix_view<float>(b[a.tiles + i]);
        check_cublas(update(ws.cublas, Op::NoTrans, matrix_view<float>(b[i]), Z, Zi), "forward sweep");
    }
}

void backward_cuda(void* b[], void* cl_arg) {
    const SweepArgs& a = *args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    const MatrixView<float> L = matrix_view<float>(b[0]);
    MatrixView<float> Z = matrix_view<float>(b[a.tiles]);
    for (int i = 1; i < a.tiles; ++i)
        check_cublas(update(ws.cublas, Op::Trans, matrix_view<float>(b[i]), matrix_view<float>(b[a.tiles + i]), Z),
                     "backward sweep");
    check_cublas(gpu::trsm(ws.cublas, Side::Left, Uplo::Lower, Op::Trans, Diag::NonUnit, Z.m, Z.n, 1.0f, L.p, L.ld,
                           Z.p, Z.ld),
                 "backward sweep");
}
#endif

void define_residual(Kernel& k) {
    define_kernel(k, "residual", "starfact_dresidual_rows", residual_cpu, STARFACT_CUDA_IMPL(residual_cuda), {});
}
void define_forward(Kernel& k) {
    define_kernel(k, "sweep_fwd", "starfact_ssweep_forward", forward_cpu, STARFACT_CUDA_IMPL(forward_cuda), {});
}
void define_backward(Kernel& k) {
    define_kernel(k, "sweep_bwd", "starfact_ssweep_backward", backward_cpu, STARFACT_CUDA_IMPL(backward_cuda), {});
}

}  // namespace

void insert_residual_rows(const Runtime& rt, const TaskOptions& o, const TileMatrix<double>& A,
                          const TileMatrix<double>* B0, const TileMatrix<double>& X, TileMatrix<double>& R, int64_t i,
                          int64_t jc) {
    const int64_t mt = A.mt();
    std::vector<starpu_data_handle_t> h{R.tile(i, jc)};
    std::vector<starpu_data_access_mode> m{STARPU_W};
    if (B0) {
        h.push_back(B0->tile(i, jc));
        m.push_back(STARPU_R);
    }
    for (int64_t j = 0; j < mt; ++j) h.push_back(X.tile(j, jc));
    for (int64_t j = 0; j <= i; ++j) h.push_back(A.tile(i, j));
    for (int64_t j = i + 1; j < mt; ++j) h.push_back(A.tile(j, i));
    m.resize(h.size(), STARPU_R);
    SweepArgs a{};
    a.row = static_cast<int>(i);
    a.tiles = static_cast<int>(mt);
    a.has_b = B0 != nullptr;
    submit_variable(rt, o, kernel<define_residual>(rt), h, m, a,
           2.0 * static_cast<double>(tile_rows(R.tile(i, jc))) * tile_cols(R.tile(i, jc)) * static_cast<double>(A.n()),
           "residual");
}

void insert_sweep(const Runtime& rt, const TaskOptions& o, const TileMatrix<float>& L, TileMatrix<float>& Z, int64_t k,
                  int64_t jc, bool forward) {
    const int64_t mt = L.mt();
    std::vector<starpu_data_handle_t> h;
    std::vector<starpu_data_access_mode> m;
    for (int64_t i = k; i < mt; ++i) {
        h.push_back(L.tile(i, k));
        m.push_back(STARPU_R);
    }
    for (int64_t i = k; i < mt; ++i) {
        h.push_back(Z.tile(i, jc));
        m.push_back(forward || i == k ? STARPU_RW : STARPU_R);
    }
    SweepArgs a{};
    a.tiles = static_cast<int>(mt - k);
    const double rows = static_cast<double>(L.n() - k * L.nb()), cols = tile_cols(Z.tile(k, jc));
    submit_variable(rt, o, forward ? kernel<define_forward>(rt) : kernel<define_backward>(rt), h, m, a,
           2.0 * rows * tile_rows(Z.tile(k, jc)) * cols, forward ? "sweep_fwd" : "sweep_bwd");
}

}  // namespace starfact::detail

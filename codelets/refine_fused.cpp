// The refinement's whole-matrix codelets (mixed_codelets.hpp), for a solve that runs on one GPU (or on the CPU
// workers): one task applies the low-precision solve to a column block, one task computes a residual block, each a
// loop of BLAS calls on one stream over every tile it holds. An iteration of the refinement then costs a few tasks
// instead of tens, and the residual reads each of A's lower tiles once (the block-row tasks of refine_sweeps.cpp read
// the off-diagonal ones twice, as A_ij and A_ji^T).
//   solve_low  buffers: 0 = S (W, 1 x w), In_0..In_{mt-1} (R, double), d_0..d_{mt-1} (R), Z_0..Z_{mt-1} (RW, float
//              scratch), Out_0..Out_{mt-1} (RW), W_0..W_{mt-1} (R, the inverses of F's diagonal tiles, strictly
//              upper parts zero), then F's lower tiles column by column, F_kk..F_{mt-1,k} (R)
//              Out (+)= D F^-T F^-1 D In, In's columns scaled by powers of two before their conversion to float;
//              the diagonal blocks of the sweeps are products with W_k: a triangular solve with one or a few
//              columns (cuBLAS's trsm, or trsv) runs far below the memory bandwidth, a product at it
//   residual   buffers: R_0..R_{mt-1} (W), [B0_0..B0_{mt-1} (R)], X_0..X_{mt-1} (R), then A's lower tiles column by
//              column (R)
//              R := B0 - A X (A symmetric, its lower tiles stored), or R := -A X without B0; on the GPU with one
//              right-hand side, one kernel reading each tile once (kernels/mixed/sym_product.cu)
#include <algorithm>
#include <cstring>
#include <vector>

#include "codelets/codelets.hpp"
#include "codelets/matrix_buffers.hpp"
#include "codelets/mixed_codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/mixed/convert.hpp"
#include "kernels/mixed/sym_product.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct FusedArgs {
    int tiles;        // mt
    bool accumulate;  // solve_low: Out += (else Out :=)
    bool has_b;       // residual: B0 given
    CudaContexts* cuda;
    bool urgent;
};

const FusedArgs& args(void* cl_arg) { return *static_cast<const FusedArgs*>(cl_arg); }

/// Index of F's (or A's) lower tile (i, k), i >= k, among the buffers from `first` on (column by column).
int lower_index(int first, int mt, int i, int k) { return first + k * mt - k * (k - 1) / 2 + (i - k); }

/// The solve's buffers, by role.
struct SolveBuffers {
    MatrixView<double> S;
    std::vector<MatrixView<double>> in, d, out;
    std::vector<MatrixView<float>> z, w;
    int mt, f0;
    size_t scratch = 0;  // entries of the largest Z_k: the sweeps' out-of-place products
    SolveBuffers(void* b[], int tiles) : S(matrix_view<double>(b[0])), mt(tiles), f0(1 + 5 * tiles) {
        for (int i = 0; i < mt; ++i) {
            in.push_back(matrix_view<double>(b[1 + i]));
            d.push_back(matrix_view<double>(b[1 + mt + i]));
            z.push_back(matrix_view<float>(b[1 + 2 * mt + i]));
            out.push_back(matrix_view<double>(b[1 + 3 * mt + i]));
            MatrixView<float> inv = matrix_view<float>(b[1 + 4 * mt + i]);
            inv.n = inv.m;  // W_i's tile may be wider than F_ii (the last tile row)
            w.push_back(inv);
            scratch = std::max(scratch, static_cast<size_t>(z[i].m) * static_cast<size_t>(z[i].n));
        }
    }
    MatrixView<float> F(void* b[], int i, int k) const { return matrix_view<float>(b[lower_index(f0, mt, i, k)]); }
};

/// The residual's buffers, by role.
struct ResidualBuffers {
    std::vector<MatrixView<double>> r, b0, x;
    int mt, a0;
    ResidualBuffers(void* b[], const FusedArgs& a) : mt(a.tiles) {
        int at = 0;
        for (int i = 0; i < mt; ++i) r.push_back(matrix_view<double>(b[at++]));
        if (a.has_b)
            for (int i = 0; i < mt; ++i) b0.push_back(matrix_view<double>(b[at++]));
        for (int i = 0; i < mt; ++i) x.push_back(matrix_view<double>(b[at++]));
        a0 = at;
    }
    MatrixView<double> A(void* b[], int i, int k) const { return matrix_view<double>(b[lower_index(a0, mt, i, k)]); }
};

void solve_low_cpu(void* b[], void* cl_arg) {
    const FusedArgs& a = args(cl_arg);
    SolveBuffers t(b, a.tiles);
    double* s = t.S.p;  // 1 x w, contiguous (as col_scale's)
    for (int c = 0; c < t.S.n; ++c) s[c] = 0;
    for (int i = 0; i < t.mt; ++i) cpu::column_max(t.in[i].m, t.in[i].n, t.in[i].p, t.in[i].ld, t.d[i].p, s);
    cpu::power_of_two(t.S.n, s);
    for (int i = 0; i < t.mt; ++i)
        cpu::to_low_scaled(t.in[i].m, t.in[i].n, t.in[i].p, t.in[i].ld, t.d[i].p, s, t.z[i].p, t.z[i].ld);
    std::vector<float> tmp(t.scratch);
    // Z_k := W_k Z_k (op(W_k) = W_k^T backwards) through tmp
    auto diagonal = [&](int k, Op op) {
        MatrixView<float>& z = t.z[k];
        for (int c = 0; c < z.n; ++c)
            std::memcpy(tmp.data() + static_cast<size_t>(c) * z.m, z.p + static_cast<int64_t>(c) * z.ld,
                        sizeof(float) * z.m);
        cpu::gemm(op, Op::NoTrans, z.m, z.n, z.m, 1.0f, t.w[k].p, t.w[k].ld, tmp.data(), z.m, 0.0f, z.p, z.ld);
    };
    for (int k = 0; k < t.mt; ++k) {
        diagonal(k, Op::NoTrans);
        for (int i = k + 1; i < t.mt; ++i) {
            const MatrixView<float> Li = t.F(b, i, k);
            cpu::gemm(Op::NoTrans, Op::NoTrans, t.z[i].m, t.z[i].n, t.z[k].m, -1.0f, Li.p, Li.ld, t.z[k].p, t.z[k].ld,
                      1.0f, t.z[i].p, t.z[i].ld);
        }
    }
    for (int k = t.mt - 1; k >= 0; --k) {
        for (int i = k + 1; i < t.mt; ++i) {
            const MatrixView<float> Li = t.F(b, i, k);
            cpu::gemm(Op::Trans, Op::NoTrans, t.z[k].m, t.z[k].n, t.z[i].m, -1.0f, Li.p, Li.ld, t.z[i].p, t.z[i].ld,
                      1.0f, t.z[k].p, t.z[k].ld);
        }
        diagonal(k, Op::Trans);
    }
    for (int i = 0; i < t.mt; ++i) {
        MatrixView<double>& o = t.out[i];
        if (!a.accumulate)
            for (int c = 0; c < o.n; ++c) std::memset(o.p + static_cast<int64_t>(c) * o.ld, 0, sizeof(double) * o.m);
        cpu::add_low_scaled(o.m, o.n, t.z[i].p, t.z[i].ld, t.d[i].p, s, o.p, o.ld);
    }
}

void residual_cpu(void* b[], void* cl_arg) {
    const FusedArgs& a = args(cl_arg);
    ResidualBuffers t(b, a);
    for (int i = 0; i < t.mt; ++i) {
        MatrixView<double>& r = t.r[i];
        for (int c = 0; c < r.n; ++c) {
            double* col = r.p + static_cast<int64_t>(c) * r.ld;
            if (a.has_b) std::memcpy(col, t.b0[i].p + static_cast<int64_t>(c) * t.b0[i].ld, sizeof(double) * r.m);
            else std::memset(col, 0, sizeof(double) * r.m);
        }
    }
    for (int k = 0; k < t.mt; ++k)
        for (int i = k; i < t.mt; ++i) {
            const MatrixView<double> A = t.A(b, i, k);
            if (i == k) {
                cpu::symm(Side::Left, Uplo::Lower, t.r[i].m, t.r[i].n, -1.0, A.p, A.ld, t.x[k].p, t.x[k].ld, 1.0,
                          t.r[i].p, t.r[i].ld);
                continue;
            }
            cpu::gemm(Op::NoTrans, Op::NoTrans, t.r[i].m, t.r[i].n, A.n, -1.0, A.p, A.ld, t.x[k].p, t.x[k].ld, 1.0,
                      t.r[i].p, t.r[i].ld);
            cpu::gemm(Op::Trans, Op::NoTrans, t.r[k].m, t.r[k].n, A.m, -1.0, A.p, A.ld, t.x[i].p, t.x[i].ld, 1.0,
                      t.r[k].p, t.r[k].ld);
        }
}

#ifdef STARFACT_HAVE_CUDA
void solve_low_cuda(void* b[], void* cl_arg) {
    const FusedArgs& a = args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    SolveBuffers t(b, a.tiles);
    double* s = t.S.p;  // 1 x w, contiguous (as col_scale's)
    check_cuda(cudaMemsetAsync(s, 0, sizeof(double) * t.S.n, ws.stream), "solve_low");
    for (int i = 0; i < t.mt; ++i)
        check_cuda(gpu::column_max(t.in[i].m, t.in[i].n, t.in[i].p, t.in[i].ld, t.d[i].p, s, ws.stream), "solve_low");
    check_cuda(gpu::power_of_two(t.S.n, s, ws.stream), "solve_low");
    for (int i = 0; i < t.mt; ++i)
        check_cuda(gpu::to_low_scaled(t.in[i].m, t.in[i].n, t.in[i].p, t.in[i].ld, t.d[i].p, s, t.z[i].p, t.z[i].ld,
                                      ws.stream),
                   "solve_low");
    float* tmp = nullptr;  // from the stream-ordered pool: no device synchronisation
    check_cuda(cudaMallocAsync(&tmp, sizeof(float) * t.scratch, ws.stream), "solve_low");
    // Z_k := W_k Z_k (op(W_k) = W_k^T backwards) through tmp
    auto diagonal = [&](int k, Op op) {
        MatrixView<float>& z = t.z[k];
        check_cuda(cudaMemcpy2DAsync(tmp, sizeof(float) * z.m, z.p, sizeof(float) * z.ld, sizeof(float) * z.m, z.n,
                                     cudaMemcpyDeviceToDevice, ws.stream),
                   "solve_low");
        const MatrixView<float> x{z.m, z.n, z.m, tmp};
        check_cublas(product(ws.cublas, op, t.w[k], x, z), "solve_low");
    };
    for (int k = 0; k < t.mt; ++k) {
        diagonal(k, Op::NoTrans);
        for (int i = k + 1; i < t.mt; ++i) check_cublas(update(ws.cublas, Op::NoTrans, t.F(b, i, k), t.z[k], t.z[i]), "solve_low");
    }
    for (int k = t.mt - 1; k >= 0; --k) {
        for (int i = k + 1; i < t.mt; ++i) check_cublas(update(ws.cublas, Op::Trans, t.F(b, i, k), t.z[i], t.z[k]), "solve_low");
        diagonal(k, Op::Trans);
    }
    check_cuda(cudaFreeAsync(tmp, ws.stream), "solve_low");
    for (int i = 0; i < t.mt; ++i) {
        MatrixView<double>& o = t.out[i];
        if (!a.accumulate)
            check_cuda(cudaMemset2DAsync(o.p, sizeof(double) * o.ld, 0, sizeof(double) * o.m, o.n, ws.stream),
                       "solve_low");
        check_cuda(gpu::add_low_scaled(o.m, o.n, t.z[i].p, t.z[i].ld, t.d[i].p, s, o.p, o.ld, ws.stream), "solve_low");
    }
}

void residual_cuda(void* b[], void* cl_arg) {
    const FusedArgs& a = args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    ResidualBuffers t(b, a);
    for (int i = 0; i < t.mt; ++i) {
        MatrixView<double>& r = t.r[i];
        if (a.has_b)
            check_cuda(cudaMemcpy2DAsync(r.p, sizeof(double) * r.ld, t.b0[i].p, sizeof(double) * t.b0[i].ld,
                                         sizeof(double) * r.m, r.n, cudaMemcpyDeviceToDevice, ws.stream),
                       "residual");
        else
            check_cuda(cudaMemset2DAsync(r.p, sizeof(double) * r.ld, 0, sizeof(double) * r.m, r.n, ws.stream),
                       "residual");
    }
    if (t.r[0].n == 1) {  // one right-hand side: each tile of A read once
        std::vector<gpu::SymTile> tiles;
        for (int k = 0; k < t.mt; ++k)
            for (int i = k; i < t.mt; ++i) {
                const MatrixView<double> A = t.A(b, i, k);
                tiles.push_back({A.p, t.x[i].p, t.x[k].p, t.r[i].p, t.r[k].p, A.ld, A.m, A.n, i == k ? 1 : 0});
            }
        check_cuda(gpu::symmetric_product(tiles, ws.stream), "residual");
        return;
    }
    for (int k = 0; k < t.mt; ++k)
        for (int i = k; i < t.mt; ++i) {
            const MatrixView<double> A = t.A(b, i, k);
            if (i == k) {
                MatrixView<double>& r = t.r[i];
                check_cublas(r.n == 1 ? gpu::symv(ws.cublas, Uplo::Lower, A.m, -1.0, A.p, A.ld, t.x[k].p, 1.0, r.p)
                                      : gpu::symm(ws.cublas, Side::Left, Uplo::Lower, r.m, r.n, -1.0, A.p, A.ld,
                                                  t.x[k].p, t.x[k].ld, 1.0, r.p, r.ld),
                             "residual");
                continue;
            }
            check_cublas(update(ws.cublas, Op::NoTrans, A, t.x[k], t.r[i]), "residual");
            check_cublas(update(ws.cublas, Op::Trans, A, t.x[i], t.r[k]), "residual");
        }
}
#endif

void define_solve_low(Kernel& k) {
    define_kernel(k, "solve_low", "starfact_dsolve_low", solve_low_cpu, STARFACT_CUDA_IMPL(solve_low_cuda), {});
}
void define_residual_all(Kernel& k) {
    define_kernel(k, "residual", "starfact_dresidual_all", residual_cpu, STARFACT_CUDA_IMPL(residual_cuda), {});
}

template <typename T>
void push_lower(const TileMatrix<T>& L, std::vector<starpu_data_handle_t>& h) {
    for (int64_t k = 0; k < L.mt(); ++k)
        for (int64_t i = k; i < L.mt(); ++i) h.push_back(L.tile(i, k));
}

}  // namespace

void insert_solve_low(const Runtime& rt, const TaskOptions& o, const TileMatrix<float>& F,
                      const TileMatrix<float>& W, const TileMatrix<double>& d, const TileMatrix<double>& In,
                      TileMatrix<double>& S, TileMatrix<float>& Z, TileMatrix<double>& Out, int64_t jc,
                      bool accumulate) {
    const int64_t mt = F.mt();
    std::vector<starpu_data_handle_t> h{S.tile(0, jc)};
    std::vector<starpu_data_access_mode> m{STARPU_W};
    for (int64_t i = 0; i < mt; ++i) h.push_back(In.tile(i, jc));
    for (int64_t i = 0; i < mt; ++i) h.push_back(d.tile(i, 0));
    m.resize(h.size(), STARPU_R);
    for (int64_t i = 0; i < mt; ++i) h.push_back(Z.tile(i, jc));
    for (int64_t i = 0; i < mt; ++i) h.push_back(Out.tile(i, jc));
    m.resize(h.size(), STARPU_RW);
    for (int64_t i = 0; i < mt; ++i) h.push_back(W.tile(i, 0));
    push_lower(F, h);
    m.resize(h.size(), STARPU_R);
    FusedArgs a{};
    a.tiles = static_cast<int>(mt);
    a.accumulate = accumulate;
    const double n = static_cast<double>(F.n());
    submit_variable(rt, o, kernel<define_solve_low>(rt), h, m, a, 2.0 * n * n * tile_cols(In.tile(0, jc)), "solve_low");
}

void insert_residual(const Runtime& rt, const TaskOptions& o, const TileMatrix<double>& A, const TileMatrix<double>* B0,
                     const TileMatrix<double>& X, TileMatrix<double>& R, int64_t jc) {
    const int64_t mt = A.mt();
    std::vector<starpu_data_handle_t> h;
    for (int64_t i = 0; i < mt; ++i) h.push_back(R.tile(i, jc));
    std::vector<starpu_data_access_mode> m(h.size(), STARPU_W);
    if (B0)
        for (int64_t i = 0; i < mt; ++i) h.push_back(B0->tile(i, jc));
    for (int64_t i = 0; i < mt; ++i) h.push_back(X.tile(i, jc));
    push_lower(A, h);
    m.resize(h.size(), STARPU_R);
    FusedArgs a{};
    a.tiles = static_cast<int>(mt);
    a.has_b = B0 != nullptr;
    const double n = static_cast<double>(A.n());
    submit_variable(rt, o, kernel<define_residual_all>(rt), h, m, a, 2.0 * n * n * tile_cols(R.tile(0, jc)), "residual");
}

}  // namespace starfact::detail

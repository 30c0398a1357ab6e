// The codelets of the mixed-precision Hermitian solve (complex_refine_codelets.hpp): its scaling and conversion of A,
// and the refinement's two whole-matrix tasks, the solve with the complex<float> factor and the residual with A. As
// the real solve's whole-matrix tasks (refine_fused.cpp), each is one loop of BLAS calls on one stream over every tile
// it holds; on several GPUs too (one GPU runs each task, A's tiles move to it). The right-hand sides' conversions are
// the real kernels (kernels/mixed/convert.hpp) on the complex tiles read as twice their rows, with the doubled d2.
//   diag_scale_pairs  buffers: 0 = A_kk (R, complex<double>), 1 = d2(k) (W)
//   to_low_sums       buffers: 0 = A (R), 1 = d2 rows (R), [2 = d2 columns (R)], F (W, complex<float>), s rows (RW),
//                     [t columns (RW)]
//   solve_low         buffers: 0 = S (W, 1 x w), In_0..In_{mt-1} (R), d2_0..d2_{mt-1} (R), Z_0..Z_{mt-1} (RW, scratch),
//                     Out_0..Out_{mt-1} (RW), then F's lower tiles column by column (R)
//   residual          buffers: R_0..R_{mt-1} (W), [B0_0..B0_{mt-1} (R)], X_0..X_{mt-1} (R), then A's lower tiles
//                     column by column (R)
#include <algorithm>
#include <complex>
#include <cstring>
#include <vector>

#include "codelets/codelets.hpp"
#include "codelets/complex_refine_codelets.hpp"
#include "codelets/matrix_buffers.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/mixed/convert.hpp"
#include "kernels/mixed/convert_complex.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

using Z = std::complex<double>;
using C = std::complex<float>;

struct RefineArgs {
    bool diagonal;    // to_low_sums: a lower-stored diagonal tile
    double shift;     // to_low_sums: added to a diagonal tile's diagonal
    int tiles;        // solve_low, residual: mt
    bool accumulate;  // solve_low: Out += (else Out :=)
    bool has_b;       // residual: B0 given
    CudaContexts* cuda;
    bool urgent;
};
const RefineArgs& args(void* cl_arg) { return *static_cast<const RefineArgs*>(cl_arg); }

/// Index of a lower tile (i, k), i >= k, among the buffers from `first` on (column by column).
int lower_index(int first, int mt, int i, int k) { return first + k * mt - k * (k - 1) / 2 + (i - k); }

/// A complex tile read as doubles (or floats): twice the rows and the leading dimension.
template <typename R, typename T>
MatrixView<R> reals(const MatrixView<T>& v) {
    return {2 * v.m, v.n, 2 * v.ld, reinterpret_cast<R*>(v.p)};
}

struct SolveBuffers {
    MatrixView<double> S;
    std::vector<MatrixView<Z>> in, out;
    std::vector<MatrixView<double>> d;
    std::vector<MatrixView<C>> z;
    int mt, f0;
    SolveBuffers(void* b[], int tiles) : S(matrix_view<double>(b[0])), mt(tiles), f0(1 + 4 * tiles) {
        for (int i = 0; i < mt; ++i) {
            in.push_back(matrix_view<Z>(b[1 + i]));
            d.push_back(matrix_view<double>(b[1 + mt + i]));
            z.push_back(matrix_view<C>(b[1 + 2 * mt + i]));
            out.push_back(matrix_view<Z>(b[1 + 3 * mt + i]));
        }
    }
    MatrixView<C> F(void* b[], int i, int k) const { return matrix_view<C>(b[lower_index(f0, mt, i, k)]); }
};

struct ResidualBuffers {
    std::vector<MatrixView<Z>> r, b0, x;
    int mt, a0;
    ResidualBuffers(void* b[], const RefineArgs& a) : mt(a.tiles) {
        int at = 0;
        for (int i = 0; i < mt; ++i) r.push_back(matrix_view<Z>(b[at++]));
        if (a.has_b)
            for (int i = 0; i < mt; ++i) b0.push_back(matrix_view<Z>(b[at++]));
        for (int i = 0; i < mt; ++i) x.push_back(matrix_view<Z>(b[at++]));
        a0 = at;
    }
    MatrixView<Z> A(void* b[], int i, int k) const { return matrix_view<Z>(b[lower_index(a0, mt, i, k)]); }
};

void diag_scale_pairs_cpu(void* b[], void*) {
    const MatrixView<Z> A = matrix_view<Z>(b[0]);
    cpu::diag_scale_pairs(A.m, A.p, A.ld, matrix_view<double>(b[1]).p);
}

void to_low_sums_cpu(void* b[], void* cl_arg) {
    const RefineArgs& a = args(cl_arg);
    const MatrixView<Z> A = matrix_view<Z>(b[0]);
    const MatrixView<C> F = matrix_view<C>(b[a.diagonal ? 2 : 3]);
    cpu::to_low_sums_complex(A.m, A.n, A.p, A.ld, matrix_view<double>(b[1]).p,
                             a.diagonal ? nullptr : matrix_view<double>(b[2]).p, a.diagonal, a.shift, F.p, F.ld,
                             matrix_view<double>(b[a.diagonal ? 3 : 4]).p,
                             a.diagonal ? nullptr : matrix_view<double>(b[5]).p);
}

void solve_low_cpu(void* b[], void* cl_arg) {
    const RefineArgs& a = args(cl_arg);
    SolveBuffers t(b, a.tiles);
    double* s = t.S.p;  // 1 x w, contiguous
    for (int c = 0; c < t.S.n; ++c) s[c] = 0;
    for (int i = 0; i < t.mt; ++i) {
        const MatrixView<double> in = reals<double>(t.in[i]);
        cpu::column_max(in.m, in.n, in.p, in.ld, t.d[i].p, s);
    }
    cpu::power_of_two(t.S.n, s);
    for (int i = 0; i < t.mt; ++i) {
        const MatrixView<double> in = reals<double>(t.in[i]);
        const MatrixView<float> z = reals<float>(t.z[i]);
        cpu::to_low_scaled(in.m, in.n, in.p, in.ld, t.d[i].p, s, z.p, z.ld);
    }
    for (int k = 0; k < t.mt; ++k) {  // F Y = Z
        const MatrixView<C> Lkk = t.F(b, k, k);
        cpu::trsm(Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, t.z[k].m, t.z[k].n, C(1), Lkk.p, Lkk.ld,
                  t.z[k].p, t.z[k].ld);
        for (int i = k + 1; i < t.mt; ++i) {
            const MatrixView<C> Li = t.F(b, i, k);
            cpu::gemm(Op::NoTrans, Op::NoTrans, t.z[i].m, t.z[i].n, t.z[k].m, C(-1), Li.p, Li.ld, t.z[k].p, t.z[k].ld,
                      C(1), t.z[i].p, t.z[i].ld);
        }
    }
    for (int k = t.mt - 1; k >= 0; --k) {  // F^H X = Y
        for (int i = k + 1; i < t.mt; ++i) {
            const MatrixView<C> Li = t.F(b, i, k);
            cpu::gemm(Op::ConjTrans, Op::NoTrans, t.z[k].m, t.z[k].n, t.z[i].m, C(-1), Li.p, Li.ld, t.z[i].p,
                      t.z[i].ld, C(1), t.z[k].p, t.z[k].ld);
        }
        const MatrixView<C> Lkk = t.F(b, k, k);
        cpu::trsm(Side::Left, Uplo::Lower, Op::ConjTrans, Diag::NonUnit, t.z[k].m, t.z[k].n, C(1), Lkk.p, Lkk.ld,
                  t.z[k].p, t.z[k].ld);
    }
    for (int i = 0; i < t.mt; ++i) {
        const MatrixView<double> o = reals<double>(t.out[i]);
        const MatrixView<float> z = reals<float>(t.z[i]);
        if (!a.accumulate)
            for (int c = 0; c < o.n; ++c) std::memset(o.p + static_cast<int64_t>(c) * o.ld, 0, sizeof(double) * o.m);
        cpu::add_low_scaled(o.m, o.n, z.p, z.ld, t.d[i].p, s, o.p, o.ld);
    }
}

void residual_cpu(void* b[], void* cl_arg) {
    const RefineArgs& a = args(cl_arg);
    ResidualBuffers t(b, a);
    for (int i = 0; i < t.mt; ++i) {
        MatrixView<Z>& r = t.r[i];
        for (int c = 0; c < r.n; ++c) {
            Z* col = r.p + static_cast<int64_t>(c) * r.ld;
            if (a.has_b) std::memcpy(col, t.b0[i].p + static_cast<int64_t>(c) * t.b0[i].ld, sizeof(Z) * r.m);
            else std::fill(col, col + r.m, Z(0));
        }
    }
    for (int k = 0; k < t.mt; ++k)
        for (int i = k; i < t.mt; ++i) {
            const MatrixView<Z> A = t.A(b, i, k);
            if (i == k) {
                cpu::hemm(Side::Left, Uplo::Lower, t.r[i].m, t.r[i].n, Z(-1), A.p, A.ld, t.x[k].p, t.x[k].ld, Z(1),
                          t.r[i].p, t.r[i].ld);
                continue;
            }
            cpu::gemm(Op::NoTrans, Op::NoTrans, t.r[i].m, t.r[i].n, A.n, Z(-1), A.p, A.ld, t.x[k].p, t.x[k].ld, Z(1),
                      t.r[i].p, t.r[i].ld);
            cpu::gemm(Op::ConjTrans, Op::NoTrans, t.r[k].m, t.r[k].n, A.m, Z(-1), A.p, A.ld, t.x[i].p, t.x[i].ld,
                      Z(1), t.r[k].p, t.r[k].ld);
        }
}

#ifdef STARFACT_HAVE_CUDA
void diag_scale_pairs_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg).cuda, args(cl_arg).urgent);
    const MatrixView<Z> A = matrix_view<Z>(b[0]);
    check_cuda(gpu::diag_scale_pairs(A.m, A.p, A.ld, matrix_view<double>(b[1]).p, ws.stream), "diag_scale_pairs");
}

void to_low_sums_cuda(void* b[], void* cl_arg) {
    const RefineArgs& a = args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    const MatrixView<Z> A = matrix_view<Z>(b[0]);
    const MatrixView<C> F = matrix_view<C>(b[a.diagonal ? 2 : 3]);
    check_cuda(gpu::to_low_sums_complex(A.m, A.n, A.p, A.ld, matrix_view<double>(b[1]).p,
                                        a.diagonal ? nullptr : matrix_view<double>(b[2]).p, a.diagonal, a.shift, F.p,
                                        F.ld, matrix_view<double>(b[a.diagonal ? 3 : 4]).p,
                                        a.diagonal ? nullptr : matrix_view<double>(b[5]).p, ws.stream),
               "to_low_sums");
}

void solve_low_cuda(void* b[], void* cl_arg) {
    const RefineArgs& a = args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    SolveBuffers t(b, a.tiles);
    double* s = t.S.p;
    check_cuda(cudaMemsetAsync(s, 0, sizeof(double) * t.S.n, ws.stream), "solve_low");
    for (int i = 0; i < t.mt; ++i) {
        const MatrixView<double> in = reals<double>(t.in[i]);
        check_cuda(gpu::column_max(in.m, in.n, in.p, in.ld, t.d[i].p, s, ws.stream), "solve_low");
    }
    check_cuda(gpu::power_of_two(t.S.n, s, ws.stream), "solve_low");
    for (int i = 0; i < t.mt; ++i) {
        const MatrixView<double> in = reals<double>(t.in[i]);
        const MatrixView<float> z = reals<float>(t.z[i]);
        check_cuda(gpu::to_low_scaled(in.m, in.n, in.p, in.ld, t.d[i].p, s, z.p, z.ld, ws.stream), "solve_low");
    }
    for (int k = 0; k < t.mt; ++k) {
        const MatrixView<C> Lkk = t.F(b, k, k);
        check_cublas(gpu::trsm(ws.cublas, Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, t.z[k].m, t.z[k].n,
                               C(1), Lkk.p, Lkk.ld, t.z[k].p, t.z[k].ld),
                     "solve_low");
        for (int i = k + 1; i < t.mt; ++i)
            check_cublas(update(ws.cublas, Op::NoTrans, t.F(b, i, k), t.z[k], t.z[i]), "solve_low");
    }
    for (int k = t.mt - 1; k >= 0; --k) {
        for (int i = k + 1; i < t.mt; ++i)
            check_cublas(update(ws.cublas, Op::ConjTrans, t.F(b, i, k), t.z[i], t.z[k]), "solve_low");
        const MatrixView<C> Lkk = t.F(b, k, k);
        check_cublas(gpu::trsm(ws.cublas, Side::Left, Uplo::Lower, Op::ConjTrans, Diag::NonUnit, t.z[k].m, t.z[k].n,
                               C(1), Lkk.p, Lkk.ld, t.z[k].p, t.z[k].ld),
                     "solve_low");
    }
    for (int i = 0; i < t.mt; ++i) {
        const MatrixView<double> o = reals<double>(t.out[i]);
        const MatrixView<float> z = reals<float>(t.z[i]);
        if (!a.accumulate)
            check_cuda(cudaMemset2DAsync(o.p, sizeof(double) * o.ld, 0, sizeof(double) * o.m, o.n, ws.stream),
                       "solve_low");
        check_cuda(gpu::add_low_scaled(o.m, o.n, z.p, z.ld, t.d[i].p, s, o.p, o.ld, ws.stream), "solve_low");
    }
}

void residual_cuda(void* b[], void* cl_arg) {
    const RefineArgs& a = args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    ResidualBuffers t(b, a);
    for (int i = 0; i < t.mt; ++i) {
        MatrixView<Z>& r = t.r[i];
        if (a.has_b)
            check_cuda(cudaMemcpy2DAsync(r.p, sizeof(Z) * r.ld, t.b0[i].p, sizeof(Z) * t.b0[i].ld, sizeof(Z) * r.m,
                                         r.n, cudaMemcpyDeviceToDevice, ws.stream),
                       "residual");
        else
            check_cuda(cudaMemset2DAsync(r.p, sizeof(Z) * r.ld, 0, sizeof(Z) * r.m, r.n, ws.stream), "residual");
    }
    for (int k = 0; k < t.mt; ++k)
        for (int i = k; i < t.mt; ++i) {
            const MatrixView<Z> A = t.A(b, i, k);
            if (i == k) {
                MatrixView<Z>& r = t.r[i];
                check_cublas(gpu::hemm(ws.cublas, Side::Left, Uplo::Lower, r.m, r.n, Z(-1), A.p, A.ld, t.x[k].p,
                                       t.x[k].ld, Z(1), r.p, r.ld),
                             "residual");
                continue;
            }
            check_cublas(update(ws.cublas, Op::NoTrans, A, t.x[k], t.r[i]), "residual");
            check_cublas(update(ws.cublas, Op::ConjTrans, A, t.x[i], t.r[k]), "residual");
        }
}
#endif

void define_diag_scale_pairs(Kernel& k) {
    define_kernel(k, "diag_scale", "starfact_zdiag_scale_pairs", diag_scale_pairs_cpu,
                  STARFACT_CUDA_IMPL(diag_scale_pairs_cuda), {STARPU_R, STARPU_W});
}
void define_to_low_sums(Kernel& k) {
    define_kernel(k, "to_low", "starfact_zto_low_sums", to_low_sums_cpu, STARFACT_CUDA_IMPL(to_low_sums_cuda), {});
}
void define_solve_low(Kernel& k) {
    define_kernel(k, "solve_low", "starfact_zsolve_low", solve_low_cpu, STARFACT_CUDA_IMPL(solve_low_cuda), {});
}
void define_residual(Kernel& k) {
    define_kernel(k, "residual", "starfact_zresidual_all", residual_cpu, STARFACT_CUDA_IMPL(residual_cuda), {});
}

template <typename T>
void push_lower(const TileMatrix<T>& L, std::vector<starpu_data_handle_t>& h) {
    for (int64_t k = 0; k < L.mt(); ++k)
        for (int64_t i = k; i < L.mt(); ++i) h.push_back(L.tile(i, k));
}

double elements(starpu_data_handle_t h) { return static_cast<double>(tile_rows(h)) * tile_cols(h); }

}  // namespace

void insert_diag_scale_pairs(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t d2) {
    submit_variable(rt, o, kernel<define_diag_scale_pairs>(rt), {A, d2}, {}, RefineArgs{}, tile_rows(A), "diag_scale");
}

void insert_to_low_sums_complex(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A,
                                starpu_data_handle_t d2_rows, starpu_data_handle_t d2_cols, starpu_data_handle_t F,
                                starpu_data_handle_t s_rows, starpu_data_handle_t t_cols, double shift) {
    RefineArgs a{};
    a.diagonal = d2_cols == nullptr;
    a.shift = shift;
    if (a.diagonal)
        submit_variable(rt, o, kernel<define_to_low_sums>(rt), {A, d2_rows, F, s_rows},
                        {STARPU_R, STARPU_R, STARPU_W, STARPU_RW}, a, 6 * elements(A), "to_low");
    else
        submit_variable(rt, o, kernel<define_to_low_sums>(rt), {A, d2_rows, d2_cols, F, s_rows, t_cols},
                        {STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_RW, STARPU_RW}, a, 8 * elements(A), "to_low");
}

void insert_solve_low_complex(const Runtime& rt, const TaskOptions& o, const TileMatrix<C>& F,
                              const TileMatrix<double>& d2, const TileMatrix<Z>& In, TileMatrix<double>& S,
                              TileMatrix<C>& Zs, TileMatrix<Z>& Out, int64_t jc, bool accumulate) {
    const int64_t mt = F.mt();
    std::vector<starpu_data_handle_t> h{S.tile(0, jc)};
    std::vector<starpu_data_access_mode> m{STARPU_W};
    for (int64_t i = 0; i < mt; ++i) h.push_back(In.tile(i, jc));
    for (int64_t i = 0; i < mt; ++i) h.push_back(d2.tile(i, 0));
    m.resize(h.size(), STARPU_R);
    for (int64_t i = 0; i < mt; ++i) h.push_back(Zs.tile(i, jc));
    for (int64_t i = 0; i < mt; ++i) h.push_back(Out.tile(i, jc));
    m.resize(h.size(), STARPU_RW);
    push_lower(F, h);
    m.resize(h.size(), STARPU_R);
    RefineArgs a{};
    a.tiles = static_cast<int>(mt);
    a.accumulate = accumulate;
    const double n = static_cast<double>(F.n());
    submit_variable(rt, o, kernel<define_solve_low>(rt), h, m, a, 8.0 * n * n * tile_cols(In.tile(0, jc)), "solve_low");
}

void insert_residual_complex(const Runtime& rt, const TaskOptions& o, const TileMatrix<Z>& A, const TileMatrix<Z>* B0,
                             const TileMatrix<Z>& X, TileMatrix<Z>& R, int64_t jc) {
    const int64_t mt = A.mt();
    std::vector<starpu_data_handle_t> h;
    for (int64_t i = 0; i < mt; ++i) h.push_back(R.tile(i, jc));
    std::vector<starpu_data_access_mode> m(h.size(), STARPU_W);
    if (B0)
        for (int64_t i = 0; i < mt; ++i) h.push_back(B0->tile(i, jc));
    for (int64_t i = 0; i < mt; ++i) h.push_back(X.tile(i, jc));
    push_lower(A, h);
    m.resize(h.size(), STARPU_R);
    RefineArgs a{};
    a.tiles = static_cast<int>(mt);
    a.has_b = B0 != nullptr;
    const double n = static_cast<double>(A.n());
    submit_variable(rt, o, kernel<define_residual>(rt), h, m, a, 8.0 * n * n * tile_cols(R.tile(0, jc)), "residual");
}

}  // namespace starfact::detail

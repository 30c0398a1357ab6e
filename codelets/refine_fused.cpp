// The refinement's whole-matrix codelets, for a solve that runs on one GPU (or on the CPU workers): one task applies
// the low-precision solve to a column block, one task computes a residual block, each a loop of BLAS calls on one
// stream over every tile it holds. An iteration of the refinement then costs a few tasks instead of tens, and the
// residual reads each of A's lower tiles once (the block-row tasks of refine_sweeps.cpp read the off-diagonal ones
// twice, as A_ij and A_ji^T). One template over the element type T serves the real solve (T double, its factor float:
// mixed_codelets.hpp) and the Hermitian one (T complex<double>, its factor complex<float>: complex_refine_codelets.hpp);
// each T has its own codelets and performance models (starfact_dsolve_low, starfact_zsolve_low, ...). The right-hand
// sides' conversions are the real kernels (kernels/mixed/convert.hpp); a complex tile is read as twice its rows, with
// the doubled scaling d2 (complex_refine_codelets.hpp).
//   solve_low  buffers: 0 = S (W, 1 x w), In_0..In_{mt-1} (R, T), d_0..d_{mt-1} (R), Z_0..Z_{mt-1} (RW, low-precision
//              scratch), Out_0..Out_{mt-1} (RW), [real T: W_0..W_{mt-1} (R, the inverses of F's diagonal tiles,
//              strictly upper parts zero)], then F's lower tiles column by column, F_kk..F_{mt-1,k} (R)
//              Out (+)= D F^-H F^-1 D In, In's columns scaled by powers of two before their conversion to the low
//              type. For real T the diagonal blocks of the sweeps are products with W_k: a triangular solve with one
//              or a few columns (cuBLAS's trsm, or trsv) runs far below the memory bandwidth, a product at it; for
//              complex T they are triangular solves with F_kk.
//   residual   buffers: R_0..R_{mt-1} (W), [B0_0..B0_{mt-1} (R)], X_0..X_{mt-1} (R), then A's lower tiles column by
//              column (R)
//              R := B0 - A X (A symmetric or Hermitian, its lower tiles stored), or R := -A X without B0; on the GPU
//              with real T and one right-hand side, one kernel reading each tile once (kernels/mixed/sym_product.cu)
#include <algorithm>
#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include "codelets/codelets.hpp"
#include "codelets/complex_refine_codelets.hpp"
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

/// The factor's element type of a solve in T: float for double, complex<float> for complex<double>.
template <typename T>
using Low = single_t<T>;

/// Whether the solve in T takes the inverses of F's diagonal tiles (the real solve) rather than triangular solves.
template <typename T>
constexpr bool kInverses = !is_complex_v<T>;

/// The conjugate transpose of a T operand (the transpose for real T).
template <typename T>
constexpr Op kAdjoint = adjoint_op<is_complex_v<T>>();

/// The performance model symbol of T's instance (saved models are keyed by it): `d` for double, `z` for
/// complex<double>.
template <typename T>
constexpr const char* symbol(const char* d, const char* z) {
    static_assert(is_real_double_v<T> || std::is_same<T, std::complex<double>>::value,
                  "the refinement's whole-matrix codelets are double or complex<double>");
    return is_complex_v<T> ? z : d;
}

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

/// A tile read as real numbers of type R: a complex tile as twice its rows and leading dimension, a real one as it is.
template <typename R, typename T>
MatrixView<R> reals(const MatrixView<T>& v) {
    if constexpr (is_complex_v<T>) {
        static_assert(std::is_same<real_t<T>, R>::value, "a complex tile read as its own real type");
        return {2 * v.m, v.n, 2 * v.ld, reinterpret_cast<R*>(v.p)};
    } else {
        static_assert(std::is_same<T, R>::value, "a real tile read as its own type");
        return v;
    }
}

/// The solve's buffers, by role.
template <typename T>
struct SolveBuffers {
    MatrixView<double> S;
    std::vector<MatrixView<T>> in, out;
    std::vector<MatrixView<double>> d;
    std::vector<MatrixView<Low<T>>> z, w;
    int mt, f0;
    size_t scratch = 0;  // real T: entries of the largest Z_k, the sweeps' out-of-place products
    SolveBuffers(void* b[], int tiles)
        : S(matrix_view<double>(b[0])), mt(tiles), f0(1 + (kInverses<T> ? 5 : 4) * tiles) {
        for (int i = 0; i < mt; ++i) {
            in.push_back(matrix_view<T>(b[1 + i]));
            d.push_back(matrix_view<double>(b[1 + mt + i]));
            z.push_back(matrix_view<Low<T>>(b[1 + 2 * mt + i]));
            out.push_back(matrix_view<T>(b[1 + 3 * mt + i]));
            if constexpr (kInverses<T>) {
                MatrixView<Low<T>> inv = matrix_view<Low<T>>(b[1 + 4 * mt + i]);
                inv.n = inv.m;  // W_i's tile may be wider than F_ii (the last tile row)
                w.push_back(inv);
                scratch = std::max(scratch, static_cast<size_t>(z[i].m) * static_cast<size_t>(z[i].n));
            }
        }
    }
    MatrixView<Low<T>> F(void* b[], int i, int k) const {
        return matrix_view<Low<T>>(b[lower_index(f0, mt, i, k)]);
    }
};

/// The residual's buffers, by role.
template <typename T>
struct ResidualBuffers {
    std::vector<MatrixView<T>> r, b0, x;
    int mt, a0;
    ResidualBuffers(void* b[], const FusedArgs& a) : mt(a.tiles) {
        int at = 0;
        for (int i = 0; i < mt; ++i) r.push_back(matrix_view<T>(b[at++]));
        if (a.has_b)
            for (int i = 0; i < mt; ++i) b0.push_back(matrix_view<T>(b[at++]));
        for (int i = 0; i < mt; ++i) x.push_back(matrix_view<T>(b[at++]));
        a0 = at;
    }
    MatrixView<T> A(void* b[], int i, int k) const { return matrix_view<T>(b[lower_index(a0, mt, i, k)]); }
};

template <typename T>
void solve_low_cpu(void* b[], void* cl_arg) {
    using L = Low<T>;
    const FusedArgs& a = args(cl_arg);
    SolveBuffers<T> t(b, a.tiles);
    double* s = t.S.p;  // 1 x w, contiguous (as col_scale's)
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
    std::vector<L> tmp(t.scratch);
    // Z_k := op(F_kk)^-1 Z_k: real T, the product with op(W_k) through tmp; complex T, trsm
    auto diagonal = [&](int k, Op op) {
        MatrixView<L>& z = t.z[k];
        if constexpr (kInverses<T>) {
            for (int c = 0; c < z.n; ++c)
                std::memcpy(tmp.data() + static_cast<size_t>(c) * z.m, z.p + static_cast<int64_t>(c) * z.ld,
                            sizeof(L) * z.m);
            cpu::gemm(op, Op::NoTrans, z.m, z.n, z.m, L(1), t.w[k].p, t.w[k].ld, tmp.data(), z.m, L(0), z.p, z.ld);
        } else {
            const MatrixView<L> Lkk = t.F(b, k, k);
            cpu::trsm(Side::Left, Uplo::Lower, op, Diag::NonUnit, z.m, z.n, L(1), Lkk.p, Lkk.ld, z.p, z.ld);
        }
    };
    for (int k = 0; k < t.mt; ++k) {  // F Y = Z
        diagonal(k, Op::NoTrans);
        for (int i = k + 1; i < t.mt; ++i) {
            const MatrixView<L> Li = t.F(b, i, k);
            cpu::gemm(Op::NoTrans, Op::NoTrans, t.z[i].m, t.z[i].n, t.z[k].m, L(-1), Li.p, Li.ld, t.z[k].p, t.z[k].ld,
                      L(1), t.z[i].p, t.z[i].ld);
        }
    }
    for (int k = t.mt - 1; k >= 0; --k) {  // F^H X = Y
        for (int i = k + 1; i < t.mt; ++i) {
            const MatrixView<L> Li = t.F(b, i, k);
            cpu::gemm(kAdjoint<T>, Op::NoTrans, t.z[k].m, t.z[k].n, t.z[i].m, L(-1), Li.p, Li.ld, t.z[i].p, t.z[i].ld,
                      L(1), t.z[k].p, t.z[k].ld);
        }
        diagonal(k, kAdjoint<T>);
    }
    for (int i = 0; i < t.mt; ++i) {
        const MatrixView<double> o = reals<double>(t.out[i]);
        const MatrixView<float> z = reals<float>(t.z[i]);
        if (!a.accumulate)
            for (int c = 0; c < o.n; ++c) std::memset(o.p + static_cast<int64_t>(c) * o.ld, 0, sizeof(double) * o.m);
        cpu::add_low_scaled(o.m, o.n, z.p, z.ld, t.d[i].p, s, o.p, o.ld);
    }
}

template <typename T>
void residual_cpu(void* b[], void* cl_arg) {
    const FusedArgs& a = args(cl_arg);
    ResidualBuffers<T> t(b, a);
    for (int i = 0; i < t.mt; ++i) {
        MatrixView<T>& r = t.r[i];
        for (int c = 0; c < r.n; ++c) {
            T* col = r.p + static_cast<int64_t>(c) * r.ld;
            if (a.has_b) std::memcpy(col, t.b0[i].p + static_cast<int64_t>(c) * t.b0[i].ld, sizeof(T) * r.m);
            else std::fill(col, col + r.m, T(0));
        }
    }
    for (int k = 0; k < t.mt; ++k)
        for (int i = k; i < t.mt; ++i) {
            const MatrixView<T> A = t.A(b, i, k);
            if (i == k) {  // symm for real T
                cpu::hemm(Side::Left, Uplo::Lower, t.r[i].m, t.r[i].n, T(-1), A.p, A.ld, t.x[k].p, t.x[k].ld, T(1),
                          t.r[i].p, t.r[i].ld);
                continue;
            }
            cpu::gemm(Op::NoTrans, Op::NoTrans, t.r[i].m, t.r[i].n, A.n, T(-1), A.p, A.ld, t.x[k].p, t.x[k].ld, T(1),
                      t.r[i].p, t.r[i].ld);
            cpu::gemm(kAdjoint<T>, Op::NoTrans, t.r[k].m, t.r[k].n, A.m, T(-1), A.p, A.ld, t.x[i].p, t.x[i].ld, T(1),
                      t.r[k].p, t.r[k].ld);
        }
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void solve_low_cuda(void* b[], void* cl_arg) {
    using L = Low<T>;
    const FusedArgs& a = args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    SolveBuffers<T> t(b, a.tiles);
    double* s = t.S.p;  // 1 x w, contiguous (as col_scale's)
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
    L* tmp = nullptr;  // real T: from the stream-ordered pool, no device synchronisation
    if constexpr (kInverses<T>) check_cuda(cudaMallocAsync(&tmp, sizeof(L) * t.scratch, ws.stream), "solve_low");
    // Z_k := op(F_kk)^-1 Z_k: real T, the product with op(W_k) through tmp; complex T, trsm
    auto diagonal = [&](int k, Op op) {
        MatrixView<L>& z = t.z[k];
        if constexpr (kInverses<T>) {
            check_cuda(cudaMemcpy2DAsync(tmp, sizeof(L) * z.m, z.p, sizeof(L) * z.ld, sizeof(L) * z.m, z.n,
                                         cudaMemcpyDeviceToDevice, ws.stream),
                       "solve_low");
            const MatrixView<L> x{z.m, z.n, z.m, tmp};
            check_cublas(product(ws.cublas, op, t.w[k], x, z), "solve_low");
        } else {
            const MatrixView<L> Lkk = t.F(b, k, k);
            check_cublas(gpu::trsm(ws.cublas, Side::Left, Uplo::Lower, op, Diag::NonUnit, z.m, z.n, L(1), Lkk.p,
                                   Lkk.ld, z.p, z.ld),
                         "solve_low");
        }
    };
    for (int k = 0; k < t.mt; ++k) {
        diagonal(k, Op::NoTrans);
        for (int i = k + 1; i < t.mt; ++i)
            check_cublas(update(ws.cublas, Op::NoTrans, t.F(b, i, k), t.z[k], t.z[i]), "solve_low");
    }
    for (int k = t.mt - 1; k >= 0; --k) {
        for (int i = k + 1; i < t.mt; ++i)
            check_cublas(update(ws.cublas, kAdjoint<T>, t.F(b, i, k), t.z[i], t.z[k]), "solve_low");
        diagonal(k, kAdjoint<T>);
    }
    if constexpr (kInverses<T>) check_cuda(cudaFreeAsync(tmp, ws.stream), "solve_low");
    for (int i = 0; i < t.mt; ++i) {
        const MatrixView<double> o = reals<double>(t.out[i]);
        const MatrixView<float> z = reals<float>(t.z[i]);
        if (!a.accumulate)
            check_cuda(cudaMemset2DAsync(o.p, sizeof(double) * o.ld, 0, sizeof(double) * o.m, o.n, ws.stream),
                       "solve_low");
        check_cuda(gpu::add_low_scaled(o.m, o.n, z.p, z.ld, t.d[i].p, s, o.p, o.ld, ws.stream), "solve_low");
    }
}

template <typename T>
void residual_cuda(void* b[], void* cl_arg) {
    const FusedArgs& a = args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    ResidualBuffers<T> t(b, a);
    for (int i = 0; i < t.mt; ++i) {
        MatrixView<T>& r = t.r[i];
        if (a.has_b)
            check_cuda(cudaMemcpy2DAsync(r.p, sizeof(T) * r.ld, t.b0[i].p, sizeof(T) * t.b0[i].ld, sizeof(T) * r.m,
                                         r.n, cudaMemcpyDeviceToDevice, ws.stream),
                       "residual");
        else
            check_cuda(cudaMemset2DAsync(r.p, sizeof(T) * r.ld, 0, sizeof(T) * r.m, r.n, ws.stream), "residual");
    }
    if constexpr (!is_complex_v<T>) {
        if (t.r[0].n == 1) {  // one right-hand side: each tile of A read once
            std::vector<gpu::SymTile> tiles;
            for (int k = 0; k < t.mt; ++k)
                for (int i = k; i < t.mt; ++i) {
                    const MatrixView<T> A = t.A(b, i, k);
                    tiles.push_back({A.p, t.x[i].p, t.x[k].p, t.r[i].p, t.r[k].p, A.ld, A.m, A.n, i == k ? 1 : 0});
                }
            check_cuda(gpu::symmetric_product(tiles, ws.stream), "residual");
            return;
        }
    }
    for (int k = 0; k < t.mt; ++k)
        for (int i = k; i < t.mt; ++i) {
            const MatrixView<T> A = t.A(b, i, k);
            if (i == k) {  // symm for real T (its one-column case is the kernel above)
                MatrixView<T>& r = t.r[i];
                check_cublas(gpu::hemm(ws.cublas, Side::Left, Uplo::Lower, r.m, r.n, T(-1), A.p, A.ld, t.x[k].p,
                                       t.x[k].ld, T(1), r.p, r.ld),
                             "residual");
                continue;
            }
            check_cublas(update(ws.cublas, Op::NoTrans, A, t.x[k], t.r[i]), "residual");
            check_cublas(update(ws.cublas, kAdjoint<T>, A, t.x[i], t.r[k]), "residual");
        }
}
#endif

template <typename T>
void define_solve_low(Kernel& k) {
    define_kernel(k, "solve_low", symbol<T>("starfact_dsolve_low", "starfact_zsolve_low"), solve_low_cpu<T>,
                  STARFACT_CUDA_IMPL(solve_low_cuda<T>), {});
}
template <typename T>
void define_residual(Kernel& k) {
    define_kernel(k, "residual", symbol<T>("starfact_dresidual_all", "starfact_zresidual_all"), residual_cpu<T>,
                  STARFACT_CUDA_IMPL(residual_cuda<T>), {});
}

template <typename T>
void push_lower(const TileMatrix<T>& L, std::vector<starpu_data_handle_t>& h) {
    for (int64_t k = 0; k < L.mt(); ++k)
        for (int64_t i = k; i < L.mt(); ++i) h.push_back(L.tile(i, k));
}

/// The solve's task on column block jc; W (the inverses of F's diagonal tiles) for real T only.
template <typename T>
void submit_solve_low(const Runtime& rt, const TaskOptions& o, const TileMatrix<Low<T>>& F,
                      const TileMatrix<Low<T>>* W, const TileMatrix<double>& d, const TileMatrix<T>& In,
                      TileMatrix<double>& S, TileMatrix<Low<T>>& Z, TileMatrix<T>& Out, int64_t jc, bool accumulate) {
    const int64_t mt = F.mt();
    std::vector<starpu_data_handle_t> h{S.tile(0, jc)};
    std::vector<starpu_data_access_mode> m{STARPU_W};
    for (int64_t i = 0; i < mt; ++i) h.push_back(In.tile(i, jc));
    for (int64_t i = 0; i < mt; ++i) h.push_back(d.tile(i, 0));
    m.resize(h.size(), STARPU_R);
    for (int64_t i = 0; i < mt; ++i) h.push_back(Z.tile(i, jc));
    for (int64_t i = 0; i < mt; ++i) h.push_back(Out.tile(i, jc));
    m.resize(h.size(), STARPU_RW);
    if constexpr (kInverses<T>)
        for (int64_t i = 0; i < mt; ++i) h.push_back(W->tile(i, 0));
    push_lower(F, h);
    m.resize(h.size(), STARPU_R);
    FusedArgs a{};
    a.tiles = static_cast<int>(mt);
    a.accumulate = accumulate;
    const double n = static_cast<double>(F.n());
    submit_variable(rt, o, kernel<define_solve_low<T>>(rt), h, m, a,
                    2.0 * flop_scale<T>() * n * n * tile_cols(In.tile(0, jc)), "solve_low");
}

template <typename T>
void submit_residual(const Runtime& rt, const TaskOptions& o, const TileMatrix<T>& A, const TileMatrix<T>* B0,
                     const TileMatrix<T>& X, TileMatrix<T>& R, int64_t jc) {
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
    submit_variable(rt, o, kernel<define_residual<T>>(rt), h, m, a,
                    2.0 * flop_scale<T>() * n * n * tile_cols(R.tile(0, jc)), "residual");
}

}  // namespace

void insert_solve_low(const Runtime& rt, const TaskOptions& o, const TileMatrix<float>& F,
                      const TileMatrix<float>& W, const TileMatrix<double>& d, const TileMatrix<double>& In,
                      TileMatrix<double>& S, TileMatrix<float>& Z, TileMatrix<double>& Out, int64_t jc,
                      bool accumulate) {
    submit_solve_low<double>(rt, o, F, &W, d, In, S, Z, Out, jc, accumulate);
}

void insert_residual(const Runtime& rt, const TaskOptions& o, const TileMatrix<double>& A, const TileMatrix<double>* B0,
                     const TileMatrix<double>& X, TileMatrix<double>& R, int64_t jc) {
    submit_residual<double>(rt, o, A, B0, X, R, jc);
}

void insert_solve_low_complex(const Runtime& rt, const TaskOptions& o, const TileMatrix<std::complex<float>>& F,
                              const TileMatrix<double>& d2, const TileMatrix<std::complex<double>>& In,
                              TileMatrix<double>& S, TileMatrix<std::complex<float>>& Z,
                              TileMatrix<std::complex<double>>& Out, int64_t jc, bool accumulate) {
    submit_solve_low<std::complex<double>>(rt, o, F, nullptr, d2, In, S, Z, Out, jc, accumulate);
}

void insert_residual_complex(const Runtime& rt, const TaskOptions& o, const TileMatrix<std::complex<double>>& A,
                             const TileMatrix<std::complex<double>>* B0, const TileMatrix<std::complex<double>>& X,
                             TileMatrix<std::complex<double>>& R, int64_t jc) {
    submit_residual<std::complex<double>>(rt, o, A, B0, X, R, jc);
}

}  // namespace starfact::detail

// The mixed-precision solve's element-wise codelets (algorithms/posv_mixed.cpp), over the kernels of
// kernels/mixed/: each one task per tile (col_scale: per column block), CPU and CUDA.
//   diag_scale  buffers: 0 = A[k][k] (R, double), 1 = d[k] (W, double vector)
//   to_low_sums buffers: 0 = A (R, double), 1 = d rows (R), [2 = d columns (R)], F (W, float), s rows (RW),
//               [t columns (RW)]: F = float(D A D) (+ shift on a diagonal tile's diagonal) and the sums of |A| (for
//               ||A||_inf) in one pass
//   col_scale   buffers: 0 = S (W, 1 x c: the column scales), 1..mt = X[i][jc] (R), then d[0..mt-1] (R): S[b] =
//               the smallest power of two >= max_i |d_i X[i][b]| (NaN when a column holds NaN or Inf)
//   to_low      buffers: 0 = X (R, double), 1 = d rows (R), 2 = S (R), 3 = F (W, float): F = float(D X S^-1)
//   add_low     buffers: 0 = Z (R, float), 1 = d rows (R), 2 = S (R), 3 = X (RW, double): X += D Z S
//   copy        buffers: 0 = X (R), 1 = Y (W): any element type (bytes: the buffers' element size)
//   zero        buffers: 0 = X (W): any element type
//   widen       buffers: 0 = F (R, float), 1 = X (W, double): X = double(F)
//   narrow      buffers: 0 = X (R, double), 1 = F (W, float): F = float(X)
//   sum_squares buffers: 0 = F (R, float), 1 = out (W, 1 x 1 double): the tile's sum of squares (a lower-stored
//               diagonal tile: its symmetric tile's)
#include <cstring>
#include <vector>

#include "codelets/codelets.hpp"
#include "codelets/matrix_buffers.hpp"
#include "codelets/mixed_codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/mixed/convert.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct MixedArgs {
    bool diagonal;  // to_low_sums: a lower-stored diagonal tile (no column scaling or sums buffers)
    double shift;   // to_low_sums: added to a diagonal tile's diagonal after the scaling
    int tiles;      // col_scale: tile rows of the column block
    CudaContexts* cuda;
    bool urgent;
};

struct Tile {
    int m, n, ld;
    void* p;
};
Tile tile_of(void* buffer) {
    return {static_cast<int>(STARPU_MATRIX_GET_NX(buffer)), static_cast<int>(STARPU_MATRIX_GET_NY(buffer)),
            static_cast<int>(STARPU_MATRIX_GET_LD(buffer)), reinterpret_cast<void*>(STARPU_MATRIX_GET_PTR(buffer))};
}
const double* vec(void* buffer) { return reinterpret_cast<const double*>(STARPU_MATRIX_GET_PTR(buffer)); }
double* vec_rw(void* buffer) { return reinterpret_cast<double*>(STARPU_MATRIX_GET_PTR(buffer)); }
const MixedArgs* args(void* cl_arg) { return static_cast<const MixedArgs*>(cl_arg); }

void diag_scale_cpu(void* b[], void*) {
    const Tile A = tile_of(b[0]);
    cpu::diag_scale(A.m, static_cast<const double*>(A.p), A.ld, vec_rw(b[1]));
}
void to_low_cpu(void* b[], void*) {
    const Tile X = tile_of(b[0]), F = tile_of(b[3]);
    cpu::to_low_scaled(X.m, X.n, static_cast<const double*>(X.p), X.ld, vec(b[1]), vec(b[2]), static_cast<float*>(F.p),
                       F.ld);
}
void add_low_cpu(void* b[], void*) {
    const Tile Z = tile_of(b[0]), X = tile_of(b[3]);
    cpu::add_low_scaled(X.m, X.n, static_cast<const float*>(Z.p), Z.ld, vec(b[1]), vec(b[2]), static_cast<double*>(X.p),
                        X.ld);
}
void to_low_sums_cpu(void* b[], void* cl_arg) {
    const MixedArgs* a = args(cl_arg);
    const bool diagonal = a->diagonal;
    const Tile A = tile_of(b[0]);
    const Tile F = tile_of(b[diagonal ? 2 : 3]);
    cpu::to_low_sums(A.m, A.n, static_cast<const double*>(A.p), A.ld, vec(b[1]), diagonal ? nullptr : vec(b[2]),
                     diagonal, a->shift, static_cast<float*>(F.p), F.ld, vec_rw(b[diagonal ? 3 : 4]),
                     diagonal ? nullptr : vec_rw(b[5]));
}
void col_scale_cpu(void* b[], void* cl_arg) {
    const int tiles = args(cl_arg)->tiles;
    const Tile S = tile_of(b[0]);  // 1 x c, contiguous
    double* s = vec_rw(b[0]);
    for (int c = 0; c < S.n; ++c) s[c] = 0;
    for (int i = 0; i < tiles; ++i) {
        const Tile X = tile_of(b[1 + i]);
        cpu::column_max(X.m, X.n, static_cast<const double*>(X.p), X.ld, vec(b[1 + tiles + i]), s);
    }
    cpu::power_of_two(S.n, s);
}
void sum_squares_cpu(void* b[], void* cl_arg) {
    const Tile F = tile_of(b[0]);
    cpu::sum_squares(F.m, F.n, static_cast<const float*>(F.p), F.ld, args(cl_arg)->diagonal, vec_rw(b[1]));
}
/// The bytes of one entry of a matrix buffer (copy and zero move bytes: a complex<double> tile's as a double's).
size_t entry_bytes(void* buffer) { return STARPU_MATRIX_GET_ELEMSIZE(buffer); }

void copy_cpu(void* b[], void*) {
    const Tile X = tile_of(b[0]), Y = tile_of(b[1]);
    const size_t e = entry_bytes(b[0]);
    for (int j = 0; j < X.n; ++j)
        std::memcpy(static_cast<char*>(Y.p) + static_cast<int64_t>(j) * Y.ld * e,
                    static_cast<const char*>(X.p) + static_cast<int64_t>(j) * X.ld * e, e * X.m);
}
void widen_cpu(void* b[], void*) {
    const Tile F = tile_of(b[0]), X = tile_of(b[1]);
    cpu::widen(F.m, F.n, static_cast<const float*>(F.p), F.ld, static_cast<double*>(X.p), X.ld);
}
void narrow_cpu(void* b[], void*) {
    const Tile X = tile_of(b[0]), F = tile_of(b[1]);
    cpu::narrow(X.m, X.n, static_cast<const double*>(X.p), X.ld, static_cast<float*>(F.p), F.ld);
}
void zero_cpu(void* b[], void*) {
    const Tile X = tile_of(b[0]);
    const size_t e = entry_bytes(b[0]);
    for (int j = 0; j < X.n; ++j) std::memset(static_cast<char*>(X.p) + static_cast<int64_t>(j) * X.ld * e, 0, e * X.m);
}

#ifdef STARFACT_HAVE_CUDA
void diag_scale_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile A = tile_of(b[0]);
    check_cuda(gpu::diag_scale(A.m, static_cast<const double*>(A.p), A.ld, vec_rw(b[1]), ws.stream), "diag_scale");
}
void to_low_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile X = tile_of(b[0]), F = tile_of(b[3]);
    check_cuda(gpu::to_low_scaled(X.m, X.n, static_cast<const double*>(X.p), X.ld, vec(b[1]), vec(b[2]),
                                  static_cast<float*>(F.p), F.ld, ws.stream),
               "to_low");
}
void add_low_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile Z = tile_of(b[0]), X = tile_of(b[3]);
    check_cuda(gpu::add_low_scaled(X.m, X.n, static_cast<const float*>(Z.p), Z.ld, vec(b[1]), vec(b[2]),
                                   static_cast<double*>(X.p), X.ld, ws.stream),
               "add_low");
}
void to_low_sums_cuda(void* b[], void* cl_arg) {
    const MixedArgs* a = args(cl_arg);
    gpu::WorkerStream ws(a->cuda, a->urgent);
    const bool diagonal = a->diagonal;
    const Tile A = tile_of(b[0]);
    const Tile F = tile_of(b[diagonal ? 2 : 3]);
    check_cuda(gpu::to_low_sums(A.m, A.n, static_cast<const double*>(A.p), A.ld, vec(b[1]),
                                diagonal ? nullptr : vec(b[2]), diagonal, a->shift, static_cast<float*>(F.p), F.ld,
                                vec_rw(b[diagonal ? 3 : 4]), diagonal ? nullptr : vec_rw(b[5]), ws.stream),
               "to_low_sums");
}
void col_scale_cuda(void* b[], void* cl_arg) {
    const MixedArgs* a = args(cl_arg);
    gpu::WorkerStream ws(a->cuda, a->urgent);
    const Tile S = tile_of(b[0]);
    double* s = vec_rw(b[0]);
    check_cuda(cudaMemsetAsync(s, 0, sizeof(double) * S.n, ws.stream), "col_scale");
    for (int i = 0; i < a->tiles; ++i) {
        const Tile X = tile_of(b[1 + i]);
        check_cuda(gpu::column_max(X.m, X.n, static_cast<const double*>(X.p), X.ld, vec(b[1 + a->tiles + i]), s,
                                   ws.stream),
                   "col_scale");
    }
    check_cuda(gpu::power_of_two(S.n, s, ws.stream), "col_scale");
}
void sum_squares_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile F = tile_of(b[0]);
    check_cuda(gpu::sum_squares(F.m, F.n, static_cast<const float*>(F.p), F.ld, args(cl_arg)->diagonal, vec_rw(b[1]),
                                ws.stream),
               "sum_squares");
}
void copy_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile X = tile_of(b[0]), Y = tile_of(b[1]);
    const size_t e = entry_bytes(b[0]);
    check_cuda(cudaMemcpy2DAsync(Y.p, e * Y.ld, X.p, e * X.ld, e * X.m, X.n, cudaMemcpyDeviceToDevice, ws.stream),
               "copy");
}
void widen_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile F = tile_of(b[0]), X = tile_of(b[1]);
    check_cuda(gpu::widen(F.m, F.n, static_cast<const float*>(F.p), F.ld, static_cast<double*>(X.p), X.ld, ws.stream),
               "widen");
}
void narrow_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile X = tile_of(b[0]), F = tile_of(b[1]);
    check_cuda(gpu::narrow(X.m, X.n, static_cast<const double*>(X.p), X.ld, static_cast<float*>(F.p), F.ld, ws.stream),
               "narrow");
}
void zero_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile X = tile_of(b[0]);
    const size_t e = entry_bytes(b[0]);
    check_cuda(cudaMemset2DAsync(X.p, e * X.ld, 0, e * X.m, X.n, ws.stream), "zero");
}
#endif

void define_diag_scale(Kernel& k) {
    define_kernel(k, "diag_scale", "starfact_ddiag_scale", diag_scale_cpu, STARFACT_CUDA_IMPL(diag_scale_cuda),
                  {STARPU_R, STARPU_W});
}
void define_to_low(Kernel& k) {
    define_kernel(k, "to_low", "starfact_dto_low_scaled", to_low_cpu, STARFACT_CUDA_IMPL(to_low_cuda),
                  {STARPU_R, STARPU_R, STARPU_R, STARPU_W});
}
void define_add_low(Kernel& k) {
    define_kernel(k, "add_low", "starfact_dadd_low_scaled", add_low_cpu, STARFACT_CUDA_IMPL(add_low_cuda),
                  {STARPU_R, STARPU_R, STARPU_R, STARPU_RW});
}
void define_col_scale(Kernel& k) {
    define_kernel(k, "col_scale", "starfact_dcol_scale", col_scale_cpu, STARFACT_CUDA_IMPL(col_scale_cuda), {});
}
void define_to_low_sums(Kernel& k) {
    define_kernel(k, "to_low", "starfact_dto_low_sums", to_low_sums_cpu, STARFACT_CUDA_IMPL(to_low_sums_cuda), {});
}
void define_sum_squares(Kernel& k) {
    define_kernel(k, "sum_squares", "starfact_ssum_squares", sum_squares_cpu, STARFACT_CUDA_IMPL(sum_squares_cuda),
                  {STARPU_R, STARPU_W});
}
void define_copy(Kernel& k) {
    define_kernel(k, "copy", "starfact_dcopy", copy_cpu, STARFACT_CUDA_IMPL(copy_cuda), {STARPU_R, STARPU_W});
}
void define_widen(Kernel& k) {
    define_kernel(k, "widen", "starfact_swiden", widen_cpu, STARFACT_CUDA_IMPL(widen_cuda), {STARPU_R, STARPU_W});
}
void define_narrow(Kernel& k) {
    define_kernel(k, "narrow", "starfact_dnarrow", narrow_cpu, STARFACT_CUDA_IMPL(narrow_cuda), {STARPU_R, STARPU_W});
}
void define_zero(Kernel& k) {
    define_kernel(k, "zero", "starfact_dzero", zero_cpu, STARFACT_CUDA_IMPL(zero_cuda), {STARPU_W});
}

/// One task of codelet k on `handles` (matrix_buffers.hpp).
void insert(const Runtime& rt, const TaskOptions& o, Kernel& k, const std::vector<starpu_data_handle_t>& handles,
            const std::vector<starpu_data_access_mode>& modes, const MixedArgs& a, double flops, const char* what) {
    submit_variable(rt, o, k, handles, modes, a, flops, what);
}

double elements(starpu_data_handle_t h) { return static_cast<double>(tile_rows(h)) * tile_cols(h); }

}  // namespace

void insert_diag_scale(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t d) {
    insert(rt, o, kernel<define_diag_scale>(rt), {A, d}, {}, {}, tile_rows(A), "diag_scale");
}

void insert_column_scales(const Runtime& rt, const TaskOptions& o, const TileMatrix<double>& X,
                          const TileMatrix<double>& d, TileMatrix<double>& S, int64_t jc) {
    std::vector<starpu_data_handle_t> h{S.tile(0, jc)};
    std::vector<starpu_data_access_mode> m{STARPU_W};
    for (int64_t i = 0; i < X.mt(); ++i) h.push_back(X.tile(i, jc));
    for (int64_t i = 0; i < X.mt(); ++i) h.push_back(d.tile(i, 0));
    m.resize(h.size(), STARPU_R);
    MixedArgs a{};
    a.tiles = static_cast<int>(X.mt());
    insert(rt, o, kernel<define_col_scale>(rt), h, m, a, 2.0 * static_cast<double>(X.m()) * X.tile_cols(jc),
                   "col_scale");
}

void insert_to_low(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t d_rows,
                   starpu_data_handle_t S, starpu_data_handle_t F) {
    insert(rt, o, kernel<define_to_low>(rt), {X, d_rows, S, F}, {}, {}, 2 * elements(X), "to_low");
}

void insert_add_low(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t Z, starpu_data_handle_t d_rows,
                    starpu_data_handle_t S, starpu_data_handle_t X) {
    insert(rt, o, kernel<define_add_low>(rt), {Z, d_rows, S, X}, {}, {}, 3 * elements(X), "add_low");
}

void insert_to_low_sums(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t d_rows,
                        starpu_data_handle_t d_cols, starpu_data_handle_t F, starpu_data_handle_t s_rows,
                        starpu_data_handle_t t_cols, double shift) {
    MixedArgs a{};
    a.diagonal = d_cols == nullptr;
    a.shift = shift;
    if (a.diagonal)
        insert(rt, o, kernel<define_to_low_sums>(rt), {A, d_rows, F, s_rows}, {STARPU_R, STARPU_R, STARPU_W, STARPU_RW},
               a, 3 * elements(A), "to_low");
    else
        insert(rt, o, kernel<define_to_low_sums>(rt), {A, d_rows, d_cols, F, s_rows, t_cols},
               {STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_RW, STARPU_RW}, a, 4 * elements(A), "to_low");
}

void insert_sum_squares(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t F, bool diagonal,
                        starpu_data_handle_t out) {
    MixedArgs a{};
    a.diagonal = diagonal;
    insert(rt, o, kernel<define_sum_squares>(rt), {F, out}, {}, a, 2 * elements(F), "sum_squares");
}

void insert_copy(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t Y) {
    insert(rt, o, kernel<define_copy>(rt), {X, Y}, {}, {}, elements(X), "copy");
}

void insert_widen(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t F, starpu_data_handle_t X) {
    insert(rt, o, kernel<define_widen>(rt), {F, X}, {}, {}, elements(F), "widen");
}

void insert_narrow(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t F) {
    insert(rt, o, kernel<define_narrow>(rt), {X, F}, {}, {}, elements(X), "narrow");
}

void insert_zero(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X) {
    insert(rt, o, kernel<define_zero>(rt), {X}, {}, {}, elements(X), "zero");
}

}  // namespace starfact::detail

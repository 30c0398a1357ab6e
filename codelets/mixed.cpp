// The mixed-precision solve's element-wise codelets (algorithms/posv_mixed.cpp), over the kernels of
// kernels/mixed/: each one task per tile, CPU and CUDA.
//   diag_scale  buffers: 0 = A[k][k] (R, double), 1 = d[k] (W, double vector)
//   to_low      buffers: 0 = X (R, double), 1 = d rows (R), [2 = d columns (R)], last = F (W, float)
//   add_low     buffers: 0 = Z (R, float), 1 = d rows (R), 2 = X (RW, double)
//   to_low_sums buffers: 0 = A (R, double), 1 = d rows (R), [2 = d columns (R)], F (W, float), s rows (RW),
//               [t columns (RW)]: to_low of a tile of A and the sums of its |A| (for ||A||_inf) in one pass
//   copy        buffers: 0 = X (R, double), 1 = Y (W, double)
//   zero        buffers: 0 = X (W, double)
#include <cstring>

#include "codelets/codelets.hpp"
#include "codelets/mixed_codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/mixed/convert.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct MixedArgs {
    ColumnScale columns;  // to_low
    bool diagonal;        // to_low_sums: a lower-stored diagonal tile (no column scaling or sums buffers)
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
void to_low_cpu(void* b[], void* cl_arg) {
    const MixedArgs* a = args(cl_arg);
    const Tile X = tile_of(b[0]);
    const int last = a->columns == ColumnScale::Own ? 3 : 2;
    const Tile F = tile_of(b[last]);
    cpu::to_low(X.m, X.n, static_cast<const double*>(X.p), X.ld, vec(b[1]),
                a->columns == ColumnScale::Own ? vec(b[2]) : nullptr, a->columns, static_cast<float*>(F.p), F.ld);
}
void add_low_cpu(void* b[], void*) {
    const Tile Z = tile_of(b[0]), X = tile_of(b[2]);
    cpu::add_low(X.m, X.n, static_cast<const float*>(Z.p), Z.ld, vec(b[1]), static_cast<double*>(X.p), X.ld);
}
void to_low_sums_cpu(void* b[], void* cl_arg) {
    const bool diagonal = args(cl_arg)->diagonal;
    const Tile A = tile_of(b[0]);
    const Tile F = tile_of(b[diagonal ? 2 : 3]);
    cpu::to_low_sums(A.m, A.n, static_cast<const double*>(A.p), A.ld, vec(b[1]), diagonal ? nullptr : vec(b[2]),
                     diagonal, static_cast<float*>(F.p), F.ld, vec_rw(b[diagonal ? 3 : 4]), diagonal ? nullptr : vec_rw(b[5]));
}
void copy_cpu(void* b[], void*) {
    const Tile X = tile_of(b[0]), Y = tile_of(b[1]);
    for (int j = 0; j < X.n; ++j)
        std::memcpy(static_cast<double*>(Y.p) + static_cast<int64_t>(j) * Y.ld,
                    static_cast<const double*>(X.p) + static_cast<int64_t>(j) * X.ld, sizeof(double) * X.m);
}
void zero_cpu(void* b[], void*) {
    const Tile X = tile_of(b[0]);
    for (int j = 0; j < X.n; ++j)
        std::memset(static_cast<double*>(X.p) + static_cast<int64_t>(j) * X.ld, 0, sizeof(double) * X.m);
}

#ifdef STARFACT_HAVE_CUDA
void diag_scale_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile A = tile_of(b[0]);
    check_cuda(gpu::diag_scale(A.m, static_cast<const double*>(A.p), A.ld, vec_rw(b[1]), ws.stream), "diag_scale");
}
void to_low_cuda(void* b[], void* cl_arg) {
    const MixedArgs* a = args(cl_arg);
    gpu::WorkerStream ws(a->cuda, a->urgent);
    const Tile X = tile_of(b[0]);
    const int last = a->columns == ColumnScale::Own ? 3 : 2;
    const Tile F = tile_of(b[last]);
    check_cuda(gpu::to_low(X.m, X.n, static_cast<const double*>(X.p), X.ld, vec(b[1]),
                           a->columns == ColumnScale::Own ? vec(b[2]) : nullptr, a->columns,
                           static_cast<float*>(F.p), F.ld, ws.stream),
               "to_low");
}
void add_low_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile Z = tile_of(b[0]), X = tile_of(b[2]);
    check_cuda(gpu::add_low(X.m, X.n, static_cast<const float*>(Z.p), Z.ld, vec(b[1]), static_cast<double*>(X.p),
                            X.ld, ws.stream),
               "add_low");
}
void to_low_sums_cuda(void* b[], void* cl_arg) {
    const MixedArgs* a = args(cl_arg);
    gpu::WorkerStream ws(a->cuda, a->urgent);
    const bool diagonal = a->diagonal;
    const Tile A = tile_of(b[0]);
    const Tile F = tile_of(b[diagonal ? 2 : 3]);
    check_cuda(gpu::to_low_sums(A.m, A.n, static_cast<const double*>(A.p), A.ld, vec(b[1]),
                                diagonal ? nullptr : vec(b[2]), diagonal, static_cast<float*>(F.p), F.ld,
                                vec_rw(b[diagonal ? 3 : 4]), diagonal ? nullptr : vec_rw(b[5]), ws.stream),
               "to_low_sums");
}
void copy_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile X = tile_of(b[0]), Y = tile_of(b[1]);
    check_cuda(cudaMemcpy2DAsync(Y.p, sizeof(double) * Y.ld, X.p, sizeof(double) * X.ld, sizeof(double) * X.m, X.n,
                                 cudaMemcpyDeviceToDevice, ws.stream),
               "copy");
}
void zero_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile X = tile_of(b[0]);
    check_cuda(cudaMemset2DAsync(X.p, sizeof(double) * X.ld, 0, sizeof(double) * X.m, X.n, ws.stream), "zero");
}
#endif

void define_diag_scale(Kernel& k) {
    define_kernel(k, "diag_scale", "starfact_ddiag_scale", diag_scale_cpu, STARFACT_CUDA_IMPL(diag_scale_cuda),
                  {STARPU_R, STARPU_W});
}
void define_to_low(Kernel& k) {
    define_kernel(k, "to_low", "starfact_dto_low", to_low_cpu, STARFACT_CUDA_IMPL(to_low_cuda), {});
}
void define_add_low(Kernel& k) {
    define_kernel(k, "add_low", "starfact_dadd_low", add_low_cpu, STARFACT_CUDA_IMPL(add_low_cuda),
                  {STARPU_R, STARPU_R, STARPU_RW});
}
void define_to_low_sums(Kernel& k) {
    define_kernel(k, "to_low", "starfact_dto_low_sums", to_low_sums_cpu, STARFACT_CUDA_IMPL(to_low_sums_cuda), {});
}
void define_copy(Kernel& k) {
    define_kernel(k, "copy", "starfact_dcopy", copy_cpu, STARFACT_CUDA_IMPL(copy_cuda), {STARPU_R, STARPU_W});
}
void define_zero(Kernel& k) {
    define_kernel(k, "zero", "starfact_dzero", zero_cpu, STARFACT_CUDA_IMPL(zero_cuda), {STARPU_W});
}

/// Creates, fills and submits one task of codelet k on `handles` with `modes` (per task when k takes a variable
/// count).
void insert(const Runtime& rt, const TaskOptions& o, Kernel& k, std::initializer_list<starpu_data_handle_t> handles,
            std::initializer_list<starpu_data_access_mode> modes, const MixedArgs& a, double flops, const char* what) {
    starpu_task* t = starpu_task_create();
    t->cl = &k.cl;
    const int n = static_cast<int>(handles.size());
    if (k.cl.nbuffers == STARPU_VARIABLE_NBUFFERS) {
        set_dynamic_buffers(t, handles.begin(), modes.begin(), n);
    } else {
        int i = 0;
        for (starpu_data_handle_t h : handles) t->handles[i++] = h;
    }
    MixedArgs full = a;
    full.cuda = cuda_contexts(rt);
    full.urgent = o.urgent;
    t->cl_arg = pack(full);
    t->cl_arg_size = sizeof(MixedArgs);
    t->cl_arg_free = 1;
    t->flops = flops;
    submit(t, o, what);
}

double elements(starpu_data_handle_t h) { return static_cast<double>(tile_rows(h)) * tile_cols(h); }

}  // namespace

void insert_diag_scale(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t d) {
    insert(rt, o, kernel<define_diag_scale>(rt), {A, d}, {}, {}, tile_rows(A), "diag_scale");
}

void insert_to_low(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t d_rows,
                   starpu_data_handle_t d_cols, ColumnScale columns, starpu_data_handle_t F) {
    MixedArgs a{};
    a.columns = columns;
    if (columns == ColumnScale::Own)
        insert(rt, o, kernel<define_to_low>(rt), {X, d_rows, d_cols, F}, {STARPU_R, STARPU_R, STARPU_R, STARPU_W}, a,
               2 * elements(X), "to_low");
    else
        insert(rt, o, kernel<define_to_low>(rt), {X, d_rows, F}, {STARPU_R, STARPU_R, STARPU_W}, a, 2 * elements(X),
               "to_low");
}

void insert_add_low(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t Z, starpu_data_handle_t d_rows,
                    starpu_data_handle_t X) {
    insert(rt, o, kernel<define_add_low>(rt), {Z, d_rows, X}, {}, {}, 2 * elements(X), "add_low");
}

void insert_to_low_sums(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t d_rows,
                        starpu_data_handle_t d_cols, starpu_data_handle_t F, starpu_data_handle_t s_rows,
                        starpu_data_handle_t t_cols) {
    MixedArgs a{};
    a.diagonal = d_cols == nullptr;
    if (a.diagonal)
        insert(rt, o, kernel<define_to_low_sums>(rt), {A, d_rows, F, s_rows}, {STARPU_R, STARPU_R, STARPU_W, STARPU_RW},
               a, 3 * elements(A), "to_low");
    else
        insert(rt, o, kernel<define_to_low_sums>(rt), {A, d_rows, d_cols, F, s_rows, t_cols},
               {STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_RW, STARPU_RW}, a, 4 * elements(A), "to_low");
}

void insert_copy(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t Y) {
    insert(rt, o, kernel<define_copy>(rt), {X, Y}, {}, {}, elements(X), "copy");
}

void insert_zero(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X) {
    insert(rt, o, kernel<define_zero>(rt), {X}, {}, {}, elements(X), "zero");
}

}  // namespace starfact::detail

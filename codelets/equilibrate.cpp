// The equilibration codelets of the mixed-precision gesv (algorithms/gesv_mixed_ops.cpp), over the kernels of
// kernels/mixed/equilibrate.hpp and convert.hpp: one task per tile (inverse_pow2: per vector tile), CPU and CUDA.
//   row_max       buffers: 0 = A (R, double), 1 = r rows (RW, double vector): r = max(r, max_b |A[a][b]|)
//   col_max       buffers: 0 = A (R), 1 = d rows (R), 2 = c columns (RW): c = max(c, max_a |d_a A[a][b]|)
//   inverse_pow2  buffers: 0 = s (RW, double vector): s = 1 / the smallest power of two >= s (NaN for NaN, Inf)
#include "codelets/codelets.hpp"
#include "codelets/equilibrate_codelets.hpp"
#include "codelets/matrix_buffers.hpp"
#include "kernels/mixed/convert.hpp"
#include "kernels/mixed/equilibrate.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct EquilibrateArgs {
    CudaContexts* cuda;
    bool urgent;
};

struct Tile {
    int m, n, ld;
    const double* p;
};
Tile tile_of(void* buffer) {
    return {static_cast<int>(STARPU_MATRIX_GET_NX(buffer)), static_cast<int>(STARPU_MATRIX_GET_NY(buffer)),
            static_cast<int>(STARPU_MATRIX_GET_LD(buffer)), reinterpret_cast<const double*>(STARPU_MATRIX_GET_PTR(buffer))};
}
double* vec(void* buffer) { return reinterpret_cast<double*>(STARPU_MATRIX_GET_PTR(buffer)); }
int length(void* buffer) { return static_cast<int>(STARPU_MATRIX_GET_NX(buffer)); }

void row_max_cpu(void* b[], void*) {
    const Tile A = tile_of(b[0]);
    cpu::row_max(A.m, A.n, A.p, A.ld, vec(b[1]));
}
void col_max_cpu(void* b[], void*) {
    const Tile A = tile_of(b[0]);
    cpu::column_max(A.m, A.n, A.p, A.ld, vec(b[1]), vec(b[2]));
}
void inverse_pow2_cpu(void* b[], void*) { cpu::inverse_power_of_two(length(b[0]), vec(b[0])); }

#ifdef STARFACT_HAVE_CUDA
const EquilibrateArgs* args(void* cl_arg) { return static_cast<const EquilibrateArgs*>(cl_arg); }
void row_max_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile A = tile_of(b[0]);
    check_cuda(gpu::row_max(A.m, A.n, A.p, A.ld, vec(b[1]), ws.stream), "row_max");
}
void col_max_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    const Tile A = tile_of(b[0]);
    check_cuda(gpu::column_max(A.m, A.n, A.p, A.ld, vec(b[1]), vec(b[2]), ws.stream), "col_max");
}
void inverse_pow2_cuda(void* b[], void* cl_arg) {
    gpu::WorkerStream ws(args(cl_arg)->cuda, args(cl_arg)->urgent);
    check_cuda(gpu::inverse_power_of_two(length(b[0]), vec(b[0]), ws.stream), "inverse_pow2");
}
#endif

void define_row_max(Kernel& k) {
    define_kernel(k, "row_max", "starfact_drow_max", row_max_cpu, STARFACT_CUDA_IMPL(row_max_cuda),
                  {STARPU_R, STARPU_RW});
}
void define_col_max(Kernel& k) {
    define_kernel(k, "col_max", "starfact_dcol_max", col_max_cpu, STARFACT_CUDA_IMPL(col_max_cuda),
                  {STARPU_R, STARPU_R, STARPU_RW});
}
void define_inverse_pow2(Kernel& k) {
    define_kernel(k, "inverse_pow2", "starfact_dinverse_pow2", inverse_pow2_cpu, STARFACT_CUDA_IMPL(inverse_pow2_cuda),
                  {STARPU_RW});
}

double elements(starpu_data_handle_t h) { return static_cast<double>(tile_rows(h)) * tile_cols(h); }

}  // namespace

void insert_row_max(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t r) {
    submit_variable(rt, o, kernel<define_row_max>(rt), {A, r}, {}, EquilibrateArgs{}, elements(A), "row_max");
}

void insert_col_max(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t d_rows,
                    starpu_data_handle_t c) {
    submit_variable(rt, o, kernel<define_col_max>(rt), {A, d_rows, c}, {}, EquilibrateArgs{}, 2 * elements(A),
                    "col_max");
}

void insert_inverse_pow2(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t s) {
    submit_variable(rt, o, kernel<define_inverse_pow2>(rt), {s}, {}, EquilibrateArgs{}, elements(s), "inverse_pow2");
}

}  // namespace starfact::detail

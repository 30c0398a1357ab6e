// The codelets of the mixed-precision Hermitian solve (complex_refine_codelets.hpp) that the real solve has no
// counterpart of: the scaling and conversion of A. Its refinement's two whole-matrix tasks, the solve with the
// complex<float> factor and the residual with A, are the real solve's template (refine_fused.cpp) on complex<double>.
//   diag_scale_pairs  buffers: 0 = A_kk (R, complex<double>), 1 = d2(k) (W)
//   to_low_sums       buffers: 0 = A (R), 1 = d2 rows (R), [2 = d2 columns (R)], F (W, complex<float>), s rows (RW),
//                     [t columns (RW)]
#include <complex>

#include "codelets/codelets.hpp"
#include "codelets/complex_refine_codelets.hpp"
#include "codelets/matrix_buffers.hpp"
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
    CudaContexts* cuda;
    bool urgent;
};
const RefineArgs& args(void* cl_arg) { return *static_cast<const RefineArgs*>(cl_arg); }

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
#endif

void define_diag_scale_pairs(Kernel& k) {
    define_kernel(k, "diag_scale", "starfact_zdiag_scale_pairs", diag_scale_pairs_cpu,
                  STARFACT_CUDA_IMPL(diag_scale_pairs_cuda), {STARPU_R, STARPU_W});
}
void define_to_low_sums(Kernel& k) {
    define_kernel(k, "to_low", "starfact_zto_low_sums", to_low_sums_cpu, STARFACT_CUDA_IMPL(to_low_sums_cuda), {});
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

}  // namespace starfact::detail

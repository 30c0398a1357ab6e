// The refinement's Krylov codelets (krylov_codelets.hpp): strided matrix-vector products, one per right-hand side
// (column j of block l sits at column l g + j, so block l's column j is a matrix of stride g ld), batched on CUDA.
//   combine  buffers: 0 = Out (RW), 1 = C (R, blocks x g), [2 = X (R)]
//   dot      buffers: 0 = H (W, blocks x g), 1..tiles = the panel's row tiles (R)
//   scale    buffers: 0 = X (RW), 1 = C (R, 1 x g)
//   normalize buffers: 0 = X (RW), 1 = H (R, (k + 2) x g), 2 = mask (R, 1 x g)
#include <vector>

#include "codelets/codelets.hpp"
#include "codelets/krylov_codelets.hpp"
#include "codelets/matrix_buffers.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/mixed/krylov_normalize.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct KrylovArgs {
    int out_col, x_col, blocks, g, tiles;
    bool in_place;
    double alpha, beta;
    int k;  // normalize: the last earlier block
    int reals;  // real numbers per entry of the panels' tiles (2: complex, read as twice the rows)
    CudaContexts* cuda;
    bool urgent;
};

using View = MatrixView<double>;
/// A tile as doubles: `reals` real numbers per entry (a complex tile of m rows: 2m real rows, twice the leading
/// dimension; its columns are what they were).
View view(void* buffer, int reals = 1) {
    View v = matrix_view<double>(buffer);
    v.m *= reals;
    v.ld *= reals;
    return v;
}
const KrylovArgs& args(void* cl_arg) { return *static_cast<const KrylovArgs*>(cl_arg); }

/// The three tiles of a combine: Out, C and X (Out when in place).
struct Combine {
    View out, c, x;
    Combine(void* b[], const KrylovArgs& a)
        : out(view(b[0], a.reals)), c(view(b[1])), x(a.in_place ? out : view(b[2], a.reals)) {}
};

void combine_cpu(void* b[], void* cl_arg) {
    const KrylovArgs& a = args(cl_arg);
    Combine t(b, a);
    for (int j = 0; j < a.g; ++j)
        cpu::gemv(Op::NoTrans, t.out.m, a.blocks, a.alpha, t.x.p + static_cast<int64_t>(a.x_col + j) * t.x.ld,
                  a.g * t.x.ld, t.c.p + static_cast<int64_t>(j) * t.c.ld, 1, a.beta,
                  t.out.p + static_cast<int64_t>(a.out_col + j) * t.out.ld, 1);
}

void normalize_cpu(void* b[], void* cl_arg) {
    const KrylovArgs& a = args(cl_arg);
    const View x = view(b[0], a.reals), h = view(b[1]), mask = view(b[2]);
    cpu::krylov_normalize(x.m, a.g, x.p + static_cast<int64_t>(a.out_col) * x.ld, x.ld, h.p, h.ld, a.k, mask.p,
                          a.alpha);
}

void dot_cpu(void* b[], void* cl_arg) {
    const KrylovArgs& a = args(cl_arg);
    const View h = view(b[0]);
    for (int i = 0; i < a.tiles; ++i) {
        const View p = view(b[1 + i], a.reals);
        for (int j = 0; j < a.g; ++j)
            cpu::gemv(Op::Trans, p.m, a.blocks, 1.0, p.p + static_cast<int64_t>(j) * p.ld, a.g * p.ld,
                      p.p + static_cast<int64_t>(a.x_col + j) * p.ld, 1, i == 0 ? 0.0 : 1.0,
                      h.p + static_cast<int64_t>(j) * h.ld, 1);
    }
}

void scale_cpu(void* b[], void* cl_arg) {
    const KrylovArgs& a = args(cl_arg);
    const View x = view(b[0]), c = view(b[1]);
    for (int j = 0; j < a.g; ++j)
        cpu::scal(x.m, c.p[static_cast<int64_t>(j) * c.ld], x.p + static_cast<int64_t>(a.out_col + j) * x.ld, 1);
}

#ifdef STARFACT_HAVE_CUDA
void combine_cuda(void* b[], void* cl_arg) {
    const KrylovArgs& a = args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    Combine t(b, a);
    check_cublas(gpu::gemv_strided_batched(ws.cublas, Op::NoTrans, t.out.m, a.blocks, a.alpha,
                                           t.x.p + static_cast<int64_t>(a.x_col) * t.x.ld, a.g * t.x.ld, t.x.ld,
                                           t.c.p, 1, t.c.ld, a.beta,
                                           t.out.p + static_cast<int64_t>(a.out_col) * t.out.ld, 1, t.out.ld, a.g),
                 "krylov combine");
}

void dot_cuda(void* b[], void* cl_arg) {
    const KrylovArgs& a = args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    const View h = view(b[0]);
    for (int i = 0; i < a.tiles; ++i) {
        const View p = view(b[1 + i], a.reals);
        check_cublas(gpu::gemv_strided_batched(ws.cublas, Op::Trans, p.m, a.blocks, 1.0, p.p, a.g * p.ld, p.ld,
                                               p.p + static_cast<int64_t>(a.x_col) * p.ld, 1, p.ld,
                                               i == 0 ? 0.0 : 1.0, h.p, 1, h.ld, a.g),
                     "krylov dot");
    }
}

void normalize_cuda(void* b[], void* cl_arg) {
    const KrylovArgs& a = args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    const View x = view(b[0], a.reals), h = view(b[1]), mask = view(b[2]);
    check_cuda(gpu::krylov_normalize(x.m, a.g, x.p + static_cast<int64_t>(a.out_col) * x.ld, x.ld, h.p, h.ld, a.k,
                                     mask.p, a.alpha, ws.stream),
               "krylov normalize");
}

void scale_cuda(void* b[], void* cl_arg) {
    const KrylovArgs& a = args(cl_arg);
    gpu::WorkerStream ws(a.cuda, a.urgent);
    const View x = view(b[0]), c = view(b[1]);
    double* cols = x.p + static_cast<int64_t>(a.out_col) * x.ld;
    check_cublas(gpu::dgmm(ws.cublas, Side::Right, x.m, a.g, cols, x.ld, c.p, c.ld, cols, x.ld),
                 "krylov scale");
}
#endif

void define_combine(Kernel& k) {
    define_kernel(k, "krylov_combine", "starfact_dkrylov_combine", combine_cpu, STARFACT_CUDA_IMPL(combine_cuda), {});
}
void define_dot(Kernel& k) {
    define_kernel(k, "krylov_dot", "starfact_dkrylov_dot", dot_cpu, STARFACT_CUDA_IMPL(dot_cuda), {});
}
void define_normalize(Kernel& k) {
    define_kernel(k, "krylov_normalize", "starfact_dkrylov_normalize", normalize_cpu,
                  STARFACT_CUDA_IMPL(normalize_cuda), {});
}
void define_scale(Kernel& k) {
    define_kernel(k, "krylov_scale", "starfact_dkrylov_scale", scale_cpu, STARFACT_CUDA_IMPL(scale_cuda), {});
}

}  // namespace

void insert_krylov_combine(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t out, int out_col,
                           starpu_data_handle_t x, int x_col, int blocks, int g, starpu_data_handle_t c, double beta,
                           double alpha, int reals) {
    std::vector<starpu_data_handle_t> h{out, c};
    std::vector<starpu_data_access_mode> m{STARPU_RW, STARPU_R};
    if (x) {
        h.push_back(x);
        m.push_back(STARPU_R);
    }
    KrylovArgs a{};
    a.out_col = out_col;
    a.x_col = x_col;
    a.blocks = blocks;
    a.g = g;
    a.in_place = x == nullptr;
    a.alpha = alpha;
    a.beta = beta;
    a.reals = reals;
    submit_variable(rt, o, kernel<define_combine>(rt), h, m, a, 2.0 * reals * tile_rows(out) * blocks * g,
                    "krylov_combine");
}

void insert_krylov_dot(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t h,
                       const std::vector<starpu_data_handle_t>& panel, int blocks, int g, int y_col, int reals) {
    std::vector<starpu_data_handle_t> hs{h};
    hs.insert(hs.end(), panel.begin(), panel.end());
    std::vector<starpu_data_access_mode> m(hs.size(), STARPU_R);
    m[0] = STARPU_W;
    KrylovArgs a{};
    a.x_col = y_col;
    a.blocks = blocks;
    a.g = g;
    a.tiles = static_cast<int>(panel.size());
    a.reals = reals;
    double rows = 0;
    for (starpu_data_handle_t p : panel) rows += static_cast<double>(reals) * tile_rows(p);
    submit_variable(rt, o, kernel<define_dot>(rt), hs, m, a, 2.0 * rows * blocks * g, "krylov_dot");
}

void insert_krylov_scale(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t x, int col, int g,
                         starpu_data_handle_t c) {
    KrylovArgs a{};
    a.out_col = col;
    a.g = g;
    a.reals = 1;
    submit_variable(rt, o, kernel<define_scale>(rt), {x, c}, {STARPU_RW, STARPU_R}, a, 1.0 * tile_rows(x) * g, "krylov_scale");
}

}  // namespace starfact::detail

namespace starfact::detail {

void insert_krylov_normalize(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t x, int col, int g, int k,
                             starpu_data_handle_t h, starpu_data_handle_t mask, double sign, int reals) {
    KrylovArgs a{};
    a.out_col = col;
    a.g = g;
    a.k = k;
    a.alpha = sign;
    a.reals = reals;
    submit_variable(rt, o, kernel<define_normalize>(rt), {x, h, mask}, {STARPU_RW, STARPU_R, STARPU_R}, a,
                    1.0 * reals * tile_rows(x) * g, "krylov_normalize");
}

}  // namespace starfact::detail

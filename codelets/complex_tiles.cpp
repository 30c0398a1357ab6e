// The complex instances of the tile helpers of codelets/codelets.hpp (insert_potrf, insert_trsm, insert_syrk,
// insert_gemm on std::complex<float> and std::complex<double> tiles), through which the Cholesky and LU graphs
// (algorithms/potrf.cpp, potrs.cpp, getrf.cpp, getrs.cpp) run on complex matrices: potrf, trsm, herk and gemm, each
// with a CPU implementation (the scalar layer's CBLAS/LAPACKE calls, kernels/cpu_blas.hpp) and, in a CUDA build, a
// CUDA one on the worker's stream (cuSOLVER's potrf with the worker's workspace and the info merged on the device;
// cuBLAS's trsm, herk and gemm, kernels/cuda_blas.hpp). The LU's panel and interchanges are the real LU's codelets
// (codelets/getrf_panel.cpp, codelets/laswp.cpp, codelets/laswp_tile.cpp). Performance models
// starfact_<c|z><name>_tile.
//
// The mixed-precision Hermitian solve's complex<float> factor (algorithms/mixed_complex_ops.cpp, through
// insert_complex_potrf/trsm/herk/gemm of complex_codelets.hpp) submits them with TaskOptions::compute 1
// (Precision::Tf32): its own codelets (models starfact_c<name>_tf32_tile) whose CUDA gemm and herk run cublasGemmEx
// on CUDA_C_32F with CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores; the herk as a gemm over the whole diagonal tile,
// whose strictly upper part then holds A A^H's, never read), and whose panel trsm (Right, Lower, ConjTrans) recurses
// into those gemms (kernels/trsm_recursive.hpp). TF32 rather than cublasCgemm3m: 3M saves a quarter of the float
// flops on the FP32 units, while TF32 tensor cores run several times the FP32 rate, and the refinement to
// complex<double> accuracy absorbs TF32's rounding. CPU workers compute in complex<float>. That factorization also
// carries a BreakdownWatch (TaskOptions::watch, codelets/breakdown.hpp): its diagonal tiles report a breakdown as soon
// as they see it, and its tasks return without computing from then on.
#include <cmath>
#include <complex>
#include <initializer_list>

#include "codelets/breakdown.hpp"
#include "codelets/complex_codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/scalar.hpp"
#include "kernels/trsm_recursive.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct Tile {
    void* p;
    int rows, cols, ld;
};
Tile tile_of(void* buffer) {
    return {reinterpret_cast<void*>(STARPU_MATRIX_GET_PTR(buffer)), static_cast<int>(STARPU_MATRIX_GET_NX(buffer)),
            static_cast<int>(STARPU_MATRIX_GET_NY(buffer)), static_cast<int>(STARPU_MATRIX_GET_LD(buffer))};
}
template <typename T>
T* data(const Tile& t) {
    return static_cast<T*>(t.p);
}

template <typename T>
struct ComplexArgs {
    Side side = Side::Left;
    Op a = Op::NoTrans, b = Op::NoTrans;  // trsm: op(L) in a; herk: op(A) in a
    int64_t offset = 0;                   // potrf: the tile's first global column
    Uplo uplo = Uplo::Lower;              // trsm: the triangle of L; herk: C's
    Diag diag = Diag::NonUnit;
    T alpha = T(1), beta = T(1);          // herk: their real parts
    bool urgent = false;                  // CUDA: on the worker's highest-priority stream
    CudaContexts* cuda = nullptr;         // per-worker streams, cuSOLVER handles and workspaces (set by insert)
    int compute = 0;                      // TaskOptions::compute: 1 (TF32 tensor cores) for complex<float> on CUDA
    BreakdownWatch* watch = nullptr;      // TaskOptions::watch: a breakdown reported there; nothing done after one
    int slot = -1;                        // potrf: the watch's slot for this tile's info (CUDA), -1 without
};

template <typename T>
void complex_potrf_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexArgs<T>*>(cl_arg);
    const Tile A = tile_of(buffers[0]);
    int* info = reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffers[1]));
    if (skip_after_breakdown(a->watch)) return;
    T* L = data<T>(A);
    int local = cpu::potrf(A.rows, L, A.ld);
    // A NaN on the diagonal passes LAPACK's test (NaN <= 0 is false): check what was computed, as the real potrf does.
    const int checked = local > 0 ? local : A.rows;
    for (int j = 0; j < checked; ++j) {
        const real_t<T> d = real_of(L[j + static_cast<int64_t>(j) * A.ld]);
        if (!(d > 0) || !std::isfinite(d)) {
            if (local <= 0 || j + 1 < local) local = j + 1;
            break;
        }
    }
    if (local > 0 && *info == 0) *info = static_cast<int>(a->offset + local);
    if (a->watch) a->watch->report(*info);
}

template <typename T>
void complex_trsm_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexArgs<T>*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    const Tile L = tile_of(buffers[0]), B = tile_of(buffers[1]);
    cpu::trsm(a->side, a->uplo, a->a, a->diag, B.rows, B.cols, a->alpha, data<T>(L), L.ld, data<T>(B), B.ld);
}

template <typename T>
void complex_herk_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexArgs<T>*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    const Tile A = tile_of(buffers[0]), C = tile_of(buffers[1]);
    const int k = a->a == Op::NoTrans ? A.cols : A.rows;
    cpu::herk(a->uplo, a->a, C.rows, k, real_of(a->alpha), data<T>(A), A.ld, real_of(a->beta), data<T>(C), C.ld);
}

template <typename T>
void complex_gemm_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexArgs<T>*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    const Tile A = tile_of(buffers[0]), B = tile_of(buffers[1]), C = tile_of(buffers[2]);
    const int k = a->a == Op::NoTrans ? A.cols : A.rows;
    cpu::gemm(a->a, a->b, C.rows, C.cols, k, a->alpha, data<T>(A), A.ld, data<T>(B), B.ld, a->beta, data<T>(C),
              C.ld);
}

#ifdef STARFACT_HAVE_CUDA
/// cuSOLVER's potrf of the tile on the worker's stream (the handle is bound to it), then one block merging devInfo
/// and the diagonal's check (not a positive finite real part: NaN and Inf caught) into *info, first failure kept.
template <typename T>
void complex_potrf_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexArgs<T>*>(cl_arg);
    const Tile A = tile_of(buffers[0]);
    int* info = reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffers[1]));
    if (skip_after_breakdown(a->watch)) return;
    CudaWorkerContext& c = a->cuda->local();
    int lwork = 0;
    if (gpu::potrf_buffer_size(c.solver, A.rows, data<T>(A), A.ld, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<c|z>potrf_bufferSize failed");
    if (static_cast<size_t>(lwork) * sizeof(T) > c.work_bytes)
        STARPU_ABORT_MSG("complex potrf workspace too small: reserve_potrf_workspace was not called");
    if (gpu::potrf(c.solver, A.rows, data<T>(A), A.ld, static_cast<T*>(c.work), lwork, c.dev_info) !=
        CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<c|z>potrf failed");
    gpu::launch_potrf_info<T>(data<T>(A), A.rows, A.ld, c.dev_info, info, a->offset, c.stream);
    if (a->watch) a->watch->watch_device_info(a->slot, info, c.stream);
}

template <typename T>
void complex_trsm_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexArgs<T>*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    const Tile L = tile_of(buffers[0]), B = tile_of(buffers[1]);
    gpu::WorkerStream ws(a->cuda, a->urgent);
    // The mixed solve's Cholesky panel on tensor cores: recursive halving into TF32 gemms
    const bool panel = is_single_v<T> && a->compute != 0 && a->side == Side::Right && a->uplo == Uplo::Lower &&
                       a->a == Op::ConjTrans && a->diag == Diag::NonUnit && a->alpha == T(1) &&
                       B.cols > gpu::kTrsmRecursiveBase;
    const cublasStatus_t s =
        panel ? gpu::trsm_right_lower_trans(ws.cublas, a->compute, B.rows, B.cols, data<T>(L), L.ld, data<T>(B), B.ld)
              : gpu::trsm(ws.cublas, a->side, a->uplo, a->a, a->diag, B.rows, B.cols, a->alpha, data<T>(L), L.ld,
                          data<T>(B), B.ld);
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}

template <typename T>
void complex_herk_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexArgs<T>*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    const Tile A = tile_of(buffers[0]), C = tile_of(buffers[1]);
    const int k = a->a == Op::NoTrans ? A.cols : A.rows;
    gpu::WorkerStream ws(a->cuda, a->urgent);
    if constexpr (is_single_v<T>) {
        if (a->compute != 0 && a->a == Op::NoTrans) {  // a gemm over the whole tile (cuBLAS has no tensor-core herk)
            const cublasStatus_t s = gpu::gemm_fast(ws.cublas, a->compute, Op::NoTrans, Op::ConjTrans, C.rows, C.cols,
                                                    k, T(real_of(a->alpha)), data<T>(A), A.ld, data<T>(A), A.ld,
                                                    T(real_of(a->beta)), data<T>(C), C.ld);
            if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
            return;
        }
    }
    const cublasStatus_t s = gpu::herk(ws.cublas, a->uplo, a->a, C.rows, k, real_of(a->alpha), data<T>(A), A.ld,
                                       real_of(a->beta), data<T>(C), C.ld);
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}

template <typename T>
void complex_gemm_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ComplexArgs<T>*>(cl_arg);
    if (skip_after_breakdown(a->watch)) return;
    const Tile A = tile_of(buffers[0]), B = tile_of(buffers[1]), C = tile_of(buffers[2]);
    const int k = a->a == Op::NoTrans ? A.cols : A.rows;
    gpu::WorkerStream ws(a->cuda, a->urgent);
    if constexpr (is_single_v<T>) {
        if (a->compute != 0) {
            const cublasStatus_t s = gpu::gemm_fast(ws.cublas, a->compute, a->a, a->b, C.rows, C.cols, k, a->alpha,
                                                    data<T>(A), A.ld, data<T>(B), B.ld, a->beta, data<T>(C), C.ld);
            if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
            return;
        }
    }
    const cublasStatus_t s = gpu::gemm(ws.cublas, a->a, a->b, C.rows, C.cols, k, a->alpha, data<T>(A), A.ld,
                                       data<T>(B), B.ld, a->beta, data<T>(C), C.ld);
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}

#endif

// One history-based model per codelet (StarPU keeps its CPU and CUDA timings apart), named after the tile kernel.
template <typename T>
void define_complex_potrf(Kernel& k) {
    define_kernel(k, "potrf", by_letter<T>("", "", "starfact_cpotrf_tile", "starfact_zpotrf_tile"),
                  complex_potrf_cpu<T>, STARFACT_CUDA_IMPL(complex_potrf_cuda<T>), {STARPU_RW, STARPU_RW});
}
template <typename T>
void define_complex_trsm(Kernel& k) {
    define_kernel(k, "trsm", by_letter<T>("", "", "starfact_ctrsm_tile", "starfact_ztrsm_tile"),
                  complex_trsm_cpu<T>, STARFACT_CUDA_IMPL(complex_trsm_cuda<T>), {STARPU_R, STARPU_RW});
}
template <typename T>
void define_complex_herk(Kernel& k) {
    define_kernel(k, "herk", by_letter<T>("", "", "starfact_cherk_tile", "starfact_zherk_tile"),
                  complex_herk_cpu<T>, STARFACT_CUDA_IMPL(complex_herk_cuda<T>), {STARPU_R, STARPU_RW});
}
template <typename T>
void define_complex_gemm(Kernel& k) {
    define_kernel(k, "gemm", by_letter<T>("", "", "starfact_cgemm_tile", "starfact_zgemm_tile"),
                  complex_gemm_cpu<T>, STARFACT_CUDA_IMPL(complex_gemm_cuda<T>), {STARPU_R, STARPU_R, STARPU_RW});
}

// The complex<float> codelets in TF32 (TaskOptions::compute 1): their own models (the tensor cores' timings).
template <typename T>
void define_complex_trsm_tf32(Kernel& k) {
    define_kernel(k, "trsm", "starfact_ctrsm_tf32_tile", complex_trsm_cpu<T>, STARFACT_CUDA_IMPL(complex_trsm_cuda<T>),
                  {STARPU_R, STARPU_RW});
}
template <typename T>
void define_complex_herk_tf32(Kernel& k) {
    define_kernel(k, "herk", "starfact_cherk_tf32_tile", complex_herk_cpu<T>, STARFACT_CUDA_IMPL(complex_herk_cuda<T>),
                  {STARPU_R, STARPU_RW});
}
template <typename T>
void define_complex_gemm_tf32(Kernel& k) {
    define_kernel(k, "gemm", "starfact_cgemm_tf32_tile", complex_gemm_cpu<T>, STARFACT_CUDA_IMPL(complex_gemm_cuda<T>),
                  {STARPU_R, STARPU_R, STARPU_RW});
}

/// Whether a task on T tiles takes the tensor-core codelets: complex<float> with TaskOptions::compute set.
template <typename T>
bool fast_tiles(const TaskOptions& o) {
    return is_single_v<T> && o.compute != 0;
}

/// A task of codelet `k` on `handles`, its arguments copied (with rt's CUDA contexts, o.urgent, o.compute and
/// o.watch), submitted with o.
template <typename T>
void insert(const Runtime& rt, Kernel& k, const TaskOptions& o, std::initializer_list<starpu_data_handle_t> handles,
            ComplexArgs<T> args, double flops, const char* what) {
    starpu_task* t = starpu_task_create();
    t->cl = &k.cl;
    int i = 0;
    for (starpu_data_handle_t h : handles) t->handles[i++] = h;
    args.urgent = o.urgent;
    args.cuda = cuda_contexts(rt);
    args.compute = o.compute;
    args.watch = o.watch;
    t->cl_arg = pack(args);
    t->cl_arg_size = sizeof(ComplexArgs<T>);
    t->cl_arg_free = 1;
    t->flops = flops;
    submit(t, o, what);
}

// Flop counts in real operations: a complex multiply-add is 8 of them, 4 times the real count's 2.
template <typename T>
void complex_potrf(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t info,
                   int64_t offset) {
    const double n = tile_rows(A);
    ComplexArgs<T> args;
    args.offset = offset;
    args.slot = o.watch ? o.watch->take_slot() : -1;
    insert(rt, kernel<define_complex_potrf<T>>(rt), o, {A, info}, args, 4.0 * n * n * n / 3.0, "potrf");
}
template <typename T>
void complex_trsm(const Runtime& rt, const TaskOptions& o, Side side, Uplo uplo, Op op, Diag diag, T alpha,
                  starpu_data_handle_t L, starpu_data_handle_t B) {
    const double m = tile_rows(B), n = tile_cols(B);
    ComplexArgs<T> args;
    args.side = side;
    args.uplo = uplo;
    args.a = op;
    args.diag = diag;
    args.alpha = alpha;
    Kernel& k = fast_tiles<T>(o) ? kernel<define_complex_trsm_tf32<T>>(rt) : kernel<define_complex_trsm<T>>(rt);
    insert(rt, k, o, {L, B}, args, 4.0 * m * n * (side == Side::Left ? m : n), "trsm");
}
template <typename T>
void complex_herk(const Runtime& rt, const TaskOptions& o, Uplo uplo, Op op, T alpha, starpu_data_handle_t A, T beta,
                  starpu_data_handle_t C) {
    const double n = tile_rows(C), k = op == Op::NoTrans ? tile_cols(A) : tile_rows(A);
    ComplexArgs<T> args;
    args.uplo = uplo;
    args.a = op;
    args.alpha = alpha;
    args.beta = beta;
    Kernel& kk = fast_tiles<T>(o) ? kernel<define_complex_herk_tf32<T>>(rt) : kernel<define_complex_herk<T>>(rt);
    insert(rt, kk, o, {A, C}, args, 4.0 * n * n * k, "herk");
}
template <typename T>
void complex_gemm(const Runtime& rt, const TaskOptions& o, Op opa, Op opb, T alpha, starpu_data_handle_t A,
                  starpu_data_handle_t B, T beta, starpu_data_handle_t C) {
    const double m = tile_rows(C), n = tile_cols(C), k = opa == Op::NoTrans ? tile_cols(A) : tile_rows(A);
    ComplexArgs<T> args;
    args.a = opa;
    args.b = opb;
    args.alpha = alpha;
    args.beta = beta;
    Kernel& kk = fast_tiles<T>(o) ? kernel<define_complex_gemm_tf32<T>>(rt) : kernel<define_complex_gemm<T>>(rt);
    insert(rt, kk, o, {A, B, C}, args, 8.0 * m * n * k, "gemm");
}

}  // namespace

#define STARFACT_COMPLEX_TILE_HELPER(C)                                                                               \
    template <>                                                                                                      \
    void insert_potrf<C>(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t info, \
                         int64_t offset, DiagKernel) {                                                               \
        complex_potrf<C>(rt, o, A, info, offset);                                                                    \
    }                                                                                                                \
    template <>                                                                                                      \
    void insert_trsm<C>(const Runtime& rt, const TaskOptions& o, Side side, Uplo uplo, Op op, Diag diag, C alpha,   \
                        starpu_data_handle_t L, starpu_data_handle_t B) {                                            \
        complex_trsm<C>(rt, o, side, uplo, op, diag, alpha, L, B);                                                   \
    }                                                                                                                \
    template <>                                                                                                      \
    void insert_syrk<C>(const Runtime& rt, const TaskOptions& o, Uplo uplo, Op op, C alpha, starpu_data_handle_t A, \
                        C beta, starpu_data_handle_t Ct) {                                                           \
        complex_herk<C>(rt, o, uplo, op, alpha, A, beta, Ct);                                                        \
    }                                                                                                                \
    template <>                                                                                                      \
    void insert_gemm<C>(const Runtime& rt, const TaskOptions& o, Op opa, Op opb, C alpha, starpu_data_handle_t A,    \
                        starpu_data_handle_t B, C beta, starpu_data_handle_t Ct) {                                   \
        complex_gemm<C>(rt, o, opa, opb, alpha, A, B, beta, Ct);                                                     \
    }
STARFACT_COMPLEX_TILE_HELPER(std::complex<float>)
STARFACT_COMPLEX_TILE_HELPER(std::complex<double>)
#undef STARFACT_COMPLEX_TILE_HELPER

// The mixed-precision solve's factor (complex_codelets.hpp): the updates C -= op(A) op(B), C -= A A^H.
template <typename T>
void insert_complex_potrf(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t info,
                          int64_t offset) {
    complex_potrf<T>(rt, o, A, info, offset);
}
template <typename T>
void insert_complex_trsm(const Runtime& rt, const TaskOptions& o, Side side, Uplo uplo, Op op, Diag diag,
                         starpu_data_handle_t L, starpu_data_handle_t B) {
    complex_trsm<T>(rt, o, side, uplo, op, diag, T(1), L, B);
}
template <typename T>
void insert_complex_herk(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t C) {
    complex_herk<T>(rt, o, Uplo::Lower, Op::NoTrans, T(-1), A, T(1), C);
}
template <typename T>
void insert_complex_gemm(const Runtime& rt, const TaskOptions& o, Op a, Op b, starpu_data_handle_t A,
                         starpu_data_handle_t B, starpu_data_handle_t C) {
    complex_gemm<T>(rt, o, a, b, T(-1), A, B, T(1), C);
}
#define STARFACT_COMPLEX_TILE_CODELETS(T)                                                                          \
    template void insert_complex_potrf<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,                 \
                                          starpu_data_handle_t, int64_t);                                            \
    template void insert_complex_trsm<T>(const Runtime&, const TaskOptions&, Side, Uplo, Op, Diag,                  \
                                         starpu_data_handle_t, starpu_data_handle_t);                                \
    template void insert_complex_herk<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,                  \
                                         starpu_data_handle_t);                                                      \
    template void insert_complex_gemm<T>(const Runtime&, const TaskOptions&, Op, Op, starpu_data_handle_t,          \
                                         starpu_data_handle_t, starpu_data_handle_t);
STARFACT_COMPLEX_TILE_CODELETS(std::complex<float>)
STARFACT_COMPLEX_TILE_CODELETS(std::complex<double>)
#undef STARFACT_COMPLEX_TILE_CODELETS

}  // namespace starfact::detail

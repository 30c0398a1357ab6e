// The application's codelets: CPU versions with CBLAS, CUDA versions with cuBLAS on StarPU's per-worker handle and
// stream (starpu_cublas_get_local_handle; the starfact Runtime initialises them) plus kernels.cu.
#include "codelets.hpp"

#include <cblas.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#ifdef LSSVM_HAVE_CUDA
#include <cublas_v2.h>
#include <starpu_cublas_v2.h>
#endif

namespace lssvm {
namespace {

template <typename T>
void gemm_host(bool ta, bool tb, int m, int n, int k, T alpha, const T* A, int lda, const T* B, int ldb, T beta, T* C,
               int ldc) {
    const auto opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
    if constexpr (std::is_same_v<T, float>)
        cblas_sgemm(CblasColMajor, opa, opb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    else
        cblas_dgemm(CblasColMajor, opa, opb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <typename T>
void finish_host(T* G, int m, int n, int ld, const T* na, const T* nb, const KernelArgs& a, bool diag) {
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            T& g = G[i + static_cast<int64_t>(j) * ld];
            T v = g;
            if (a.type == KernelType::Rbf) {
                const T d2 = na[i] + nb[j] - T(2) * v;
                v = std::exp(static_cast<T>(-a.gamma) * (d2 > T(0) ? d2 : T(0)));
            }
            if (diag && i == j) v += static_cast<T>(a.shift);
            g = v;
        }
}

#ifdef LSSVM_HAVE_CUDA
template <typename T>
void gemm_device(bool ta, bool tb, int m, int n, int k, T alpha, const T* A, int lda, const T* B, int ldb, T beta,
                 T* C, int ldc) {
    const cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasHandle_t h = starpu_cublas_get_local_handle();
    cublasStatus_t s;
    if constexpr (std::is_same_v<T, float>)
        s = cublasSgemm(h, opa, opb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
    else
        s = cublasDgemm(h, opa, opb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
    if (s != CUBLAS_STATUS_SUCCESS) STARPU_CUBLAS_REPORT_ERROR(s);
}
#endif

// The buffers of a task as typed views.
template <typename T>
struct Mat {
    T* p;
    int m, n, ld;
};
template <typename T>
Mat<T> mat(void* b) {
    return {reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(b)), static_cast<int>(STARPU_MATRIX_GET_NX(b)),
            static_cast<int>(STARPU_MATRIX_GET_NY(b)), static_cast<int>(STARPU_MATRIX_GET_LD(b))};
}
template <typename T>
const T* vec(void* b) {
    return reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(b));
}

// gram: buffers X_I, X_J, n_I, n_J, K (5) or X_I, n_I, K (3).
template <typename T, bool Cuda>
void gram_impl(void* buffers[], void* arg) {
    const auto* a = static_cast<const KernelArgs*>(arg);
    const bool diag = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()) == 3;
    const Mat<T> xi = mat<T>(buffers[0]), xj = diag ? xi : mat<T>(buffers[1]);
    const T* ni = vec<T>(buffers[diag ? 1 : 2]);
    const T* nj = diag ? ni : vec<T>(buffers[3]);
    const Mat<T> k = mat<T>(buffers[diag ? 2 : 4]);
    if constexpr (Cuda) {
#ifdef LSSVM_HAVE_CUDA
        gemm_device<T>(false, true, k.m, k.n, xi.n, T(1), xi.p, xi.ld, xj.p, xj.ld, T(0), k.p, k.ld);
        finish_kernel_cuda<T>(k.p, k.m, k.n, k.ld, ni, nj, *a, diag, starpu_cuda_get_local_stream());
#endif
    } else {
        gemm_host<T>(false, true, k.m, k.n, xi.n, T(1), xi.p, xi.ld, xj.p, xj.ld, T(0), k.p, k.ld);
        finish_host<T>(k.p, k.m, k.n, k.ld, ni, nj, *a, diag);
    }
}

// apply: buffers A_I, B_J, nA_I, nB_J, V_J, S_I (RW), scratch.
template <typename T, bool Cuda>
void apply_impl(void* buffers[], void* arg) {
    const auto* a = static_cast<const KernelArgs*>(arg);
    const Mat<T> ai = mat<T>(buffers[0]), bj = mat<T>(buffers[1]), v = mat<T>(buffers[4]), s = mat<T>(buffers[5]),
                 g = mat<T>(buffers[6]);
    const T* na = vec<T>(buffers[2]);
    const T* nb = vec<T>(buffers[3]);
    if constexpr (Cuda) {
#ifdef LSSVM_HAVE_CUDA
        gemm_device<T>(false, true, ai.m, bj.m, ai.n, T(1), ai.p, ai.ld, bj.p, bj.ld, T(0), g.p, g.ld);
        finish_kernel_cuda<T>(g.p, ai.m, bj.m, g.ld, na, nb, *a, false, starpu_cuda_get_local_stream());
        gemm_device<T>(false, false, s.m, s.n, bj.m, T(1), g.p, g.ld, v.p, v.ld, T(1), s.p, s.ld);
#endif
    } else {
        gemm_host<T>(false, true, ai.m, bj.m, ai.n, T(1), ai.p, ai.ld, bj.p, bj.ld, T(0), g.p, g.ld);
        finish_host<T>(g.p, ai.m, bj.m, g.ld, na, nb, *a, false);
        gemm_host<T>(false, false, s.m, s.n, bj.m, T(1), g.p, g.ld, v.p, v.ld, T(1), s.p, s.ld);
    }
}

struct GemmArgs {
    bool trans_a;
    double beta;
};
// gemm: buffers A, B, C (RW): C := op(A) B + beta C.
template <typename T, bool Cuda>
void gemm_impl(void* buffers[], void* arg) {
    const auto* a = static_cast<const GemmArgs*>(arg);
    const Mat<T> A = mat<T>(buffers[0]), B = mat<T>(buffers[1]), C = mat<T>(buffers[2]);
    if constexpr (Cuda) {
#ifdef LSSVM_HAVE_CUDA
        gemm_device<T>(a->trans_a, false, C.m, C.n, B.m, T(1), A.p, A.ld, B.p, B.ld, static_cast<T>(a->beta), C.p,
                       C.ld);
#endif
    } else {
        gemm_host<T>(a->trans_a, false, C.m, C.n, B.m, T(1), A.p, A.ld, B.p, B.ld, static_cast<T>(a->beta), C.p, C.ld);
    }
}

void define(starpu_codelet& cl, starpu_perfmodel& model, const char* name, const char* symbol,
            starpu_cpu_func_t cpu, starpu_cuda_func_t cuda, int nbuffers) {
    starpu_codelet_init(&cl);
    std::memset(&model, 0, sizeof model);
    cl.cpu_funcs[0] = cpu;
#ifdef LSSVM_HAVE_CUDA
    cl.cuda_funcs[0] = cuda;
    cl.cuda_flags[0] = STARPU_CUDA_ASYNC;
#else
    (void)cuda;
#endif
    cl.nbuffers = nbuffers;
    cl.name = name;
    model.type = STARPU_HISTORY_BASED;
    model.symbol = symbol;
    cl.model = &model;
}

template <typename A>
void set_args(starpu_task* t, const A& a) {
    void* p = std::malloc(sizeof(A));
    std::memcpy(p, &a, sizeof(A));
    t->cl_arg = p;
    t->cl_arg_size = sizeof(A);
    t->cl_arg_free = 1;
}

template <typename T> constexpr char prec_letter() { return std::is_same_v<T, float> ? 's' : 'd'; }

}  // namespace

template <typename T>
Codelets<T>::Codelets() {
    static const std::string gram = std::string("lssvm_gram_") + prec_letter<T>(),
                             apply = std::string("lssvm_apply_") + prec_letter<T>(),
                             gemm = std::string("lssvm_gemm_") + prec_letter<T>();
    define(gram_, gram_model_, "gram", gram.c_str(), gram_impl<T, false>, gram_impl<T, true>, STARPU_VARIABLE_NBUFFERS);
    define(apply_, apply_model_, "kernel_apply", apply.c_str(), apply_impl<T, false>, apply_impl<T, true>, 7);
    for (int i = 0; i < 5; ++i) apply_.modes[i] = STARPU_R;
    apply_.modes[5] = STARPU_RW;
    apply_.modes[6] = STARPU_SCRATCH;
    define(gemm_, gemm_model_, "gemm_cg", gemm.c_str(), gemm_impl<T, false>, gemm_impl<T, true>, 3);
    gemm_.modes[0] = gemm_.modes[1] = STARPU_R;
    gemm_.modes[2] = STARPU_RW;
}

template <typename T>
starpu_task* Codelets<T>::gram(const KernelArgs& a, starpu_data_handle_t xi, starpu_data_handle_t xj,
                               starpu_data_handle_t ni, starpu_data_handle_t nj, starpu_data_handle_t k) const {
    starpu_task* t = starpu_task_create();
    t->cl = const_cast<starpu_codelet*>(&gram_);
    t->nbuffers = 5;
    starpu_data_handle_t h[5] = {xi, xj, ni, nj, k};
    for (int i = 0; i < 5; ++i) {
        t->handles[i] = h[i];
        t->modes[i] = i == 4 ? STARPU_W : STARPU_R;
    }
    set_args(t, a);
    t->flops = 2.0 * starpu_matrix_get_nx(k) * starpu_matrix_get_ny(k) * starpu_matrix_get_ny(xi);
    return t;
}

template <typename T>
starpu_task* Codelets<T>::gram_diag(const KernelArgs& a, starpu_data_handle_t xi, starpu_data_handle_t ni,
                                    starpu_data_handle_t k) const {
    starpu_task* t = starpu_task_create();
    t->cl = const_cast<starpu_codelet*>(&gram_);
    t->nbuffers = 3;
    t->handles[0] = xi;
    t->handles[1] = ni;
    t->handles[2] = k;
    t->modes[0] = t->modes[1] = STARPU_R;
    t->modes[2] = STARPU_W;
    set_args(t, a);
    t->flops = 2.0 * starpu_matrix_get_nx(k) * starpu_matrix_get_ny(k) * starpu_matrix_get_ny(xi);
    return t;
}

template <typename T>
starpu_task* Codelets<T>::apply(const KernelArgs& a, starpu_data_handle_t ai, starpu_data_handle_t bj,
                                starpu_data_handle_t nai, starpu_data_handle_t nbj, starpu_data_handle_t vj,
                                starpu_data_handle_t si, starpu_data_handle_t scratch) const {
    starpu_task* t = starpu_task_create();
    t->cl = const_cast<starpu_codelet*>(&apply_);
    starpu_data_handle_t h[7] = {ai, bj, nai, nbj, vj, si, scratch};
    for (int i = 0; i < 7; ++i) t->handles[i] = h[i];
    set_args(t, a);
    const double m = starpu_matrix_get_nx(ai), n = starpu_matrix_get_nx(bj), d = starpu_matrix_get_ny(ai),
                 r = starpu_matrix_get_ny(vj);
    t->flops = 2.0 * m * n * (d + r);
    return t;
}

template <typename T>
starpu_task* Codelets<T>::gemm(bool trans_a, double beta, starpu_data_handle_t a, starpu_data_handle_t b,
                               starpu_data_handle_t c) const {
    starpu_task* t = starpu_task_create();
    t->cl = const_cast<starpu_codelet*>(&gemm_);
    t->handles[0] = a;
    t->handles[1] = b;
    t->handles[2] = c;
    set_args(t, GemmArgs{trans_a, beta});
    t->flops = 2.0 * starpu_matrix_get_nx(c) * starpu_matrix_get_ny(c) * starpu_matrix_get_nx(b);
    return t;
}

uint32_t where_of(starfact::Mapping m) {
    switch (m) {
        case starfact::Mapping::GpuOnly: return STARPU_CUDA;
        case starfact::Mapping::CpuOnly: return STARPU_CPU;
        case starfact::Mapping::Hybrid: break;
    }
    return STARPU_CPU | STARPU_CUDA;
}

template class Codelets<float>;
template class Codelets<double>;

}  // namespace lssvm

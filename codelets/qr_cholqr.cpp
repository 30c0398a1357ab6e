// The Cholesky QR's codelets (codelets/cholqr_codelets.hpp, algorithms/cholqr.cpp):
//   cholqr_gram:        0 = X (R), 1 = W (W)                 W := X^T X
//   cholqr_solve_gram:  0 = V (R), 1 = X (RW), 2 = W (W)     X := X V (V = L^-T), W := X^T X   (and _3: third pass)
//   cholqr_solve:       0 = V (R), 1 = X (RW)                X := X V (V = M^-1)
//   cholqr_add:         0 = Wp (RW), 1.. = Wi (R)            Wp += sum of Wi (count: the task's)  (and _3)
//   cholqr_potrf:       0 = G (R), 1 = L (W), 2 = V (W), 3 = info (RW)   G (+ s I) = L L^T, V := L^-T   (and _3)
//   cholqr_householder: 0 = A0 (R), 1..3 = L1, L2, L3 (R), 4 = T (W), 5 = V (W: M^-1), 6 = RY (W), 7 = X (W, scratch),
//                       8 = info (RW): the rank check
//   cholqr_store:       0 = RY (R), 1 = A0 (RW)
//   cholqr_ytc:         0 = Y (R), 1 = C (R), 2 = W (W)
//   cholqr_tmul:        0 = T (R), 1 = W (RW)
//   cholqr_update:      0 = Y (R), 1 = W (R), 2 = C (RW) [, 3 = Z (W, scratch: the first tile's)]
// The third pass's tasks have codelets of their own (_3: their own performance models), since they return at once
// when the second pass decided that two passes suffice (CholqrPasses).
// Their implementations: codelets/cholqr_cpu.cpp (CBLAS, LAPACKE) and codelets/cholqr_cuda.cpp (cuBLAS, cuSOLVER and
// kernels/qr/cholqr_kernels.cu).
#include <complex>
#include <vector>

#include "codelets/cholqr_impl.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

using namespace cholqr;

// ---- definitions -----------------------------------------------------------------------------------

#define STARFACT_CHOLQR_DEFINE(NAME, SYMBOL, CPU, CUDA, ...)                                                   \
    template <typename T>                                                                                      \
    void define_##NAME(Kernel& k) {                                                                            \
        define_kernel(k, "cholqr_" #NAME,                                                                     \
                      by_letter<T>("starfact_scholqr_" SYMBOL, "starfact_dcholqr_" SYMBOL,                     \
                                   "starfact_ccholqr_" SYMBOL, "starfact_zcholqr_" SYMBOL),                    \
                      CPU<T>, STARFACT_CUDA_IMPL(CUDA<T>), {__VA_ARGS__});                                     \
    }
STARFACT_CHOLQR_DEFINE(gram, "gram", gram_cpu, gram_cuda, STARPU_R, STARPU_W)
STARFACT_CHOLQR_DEFINE(solve_gram, "solve_gram", solve_gram_cpu, solve_gram_cuda, STARPU_R, STARPU_RW, STARPU_W)
STARFACT_CHOLQR_DEFINE(solve_gram_3, "solve_gram_3", solve_gram_cpu, solve_gram_cuda, STARPU_R, STARPU_RW, STARPU_W)
STARFACT_CHOLQR_DEFINE(solve, "solve", solve_cpu, solve_cuda, STARPU_R, STARPU_RW)
STARFACT_CHOLQR_DEFINE(potrf, "potrf", potrf_cpu, potrf_cuda, STARPU_R, STARPU_W, STARPU_W, STARPU_RW)
STARFACT_CHOLQR_DEFINE(potrf_3, "potrf_3", potrf_cpu, potrf_cuda, STARPU_R, STARPU_W, STARPU_W, STARPU_RW)
STARFACT_CHOLQR_DEFINE(store, "store", store_cpu, store_cuda, STARPU_R, STARPU_RW)
STARFACT_CHOLQR_DEFINE(ytc, "ytc", ytc_cpu, ytc_cuda, STARPU_R, STARPU_R, STARPU_W)
STARFACT_CHOLQR_DEFINE(tmul, "tmul", tmul_cpu, tmul_cuda, STARPU_R, STARPU_RW)
STARFACT_CHOLQR_DEFINE(update, "update", update_cpu, update_cuda, STARPU_R, STARPU_R, STARPU_RW)
STARFACT_CHOLQR_DEFINE(update_unit, "update_unit", update_cpu, update_cuda, STARPU_R, STARPU_R, STARPU_RW, STARPU_W)
#undef STARFACT_CHOLQR_DEFINE
// Modes per task (dyn_modes): Wp, then the Wi.
template <typename T>
void define_add(Kernel& k) {
    define_kernel(k, "cholqr_add",
                  by_letter<T>("starfact_scholqr_add", "starfact_dcholqr_add", "starfact_ccholqr_add",
                               "starfact_zcholqr_add"),
                  add_cpu<T>, STARFACT_CUDA_IMPL(add_cuda<T>), {});
}
// More buffers than STARPU_NMAXBUFS: modes per task (dyn_modes).
template <typename T>
void define_householder(Kernel& k) {
    define_kernel(k, "cholqr_householder",
                  by_precision<T>("starfact_scholqr_householder", "starfact_dcholqr_householder"), householder_cpu<T>,
                  STARFACT_CUDA_IMPL(householder_cuda<T>), {});
}
template <typename T>
void define_add_3(Kernel& k) {
    define_kernel(k, "cholqr_add_3", by_precision<T>("starfact_scholqr_add_3", "starfact_dcholqr_add_3"), add_cpu<T>,
                  STARFACT_CUDA_IMPL(add_cuda<T>), {});
}

/// The Cholesky QR's codelets of precision T, one extension slot of the Runtime for all of them (the slots are few).
/// Complex T: only those that apply a block reflector (add, ytc, tmul, update), which the panel tree's updates use;
/// the factorization's are real.
template <typename T>
struct CholqrKernels {
    Kernel gram, solve_gram, solve_gram_3, solve, add, add_3, potrf, potrf_3, householder, store, ytc, tmul, update,
        update_unit;
    CholqrKernels() {
        if constexpr (!is_complex_v<T>) {
            define_gram<T>(gram);
            define_solve_gram<T>(solve_gram);
            define_solve_gram_3<T>(solve_gram_3);
            define_solve<T>(solve);
            define_add_3<T>(add_3);
            define_potrf<T>(potrf);
            define_potrf_3<T>(potrf_3);
            define_householder<T>(householder);
            define_store<T>(store);
        }
        define_add<T>(add);
        define_ytc<T>(ytc);
        define_tmul<T>(tmul);
        define_update<T>(update);
        define_update_unit<T>(update_unit);
    }
};
template <typename T>
const CholqrKernels<T>& kernels(const Runtime& rt) {
    return extension<CholqrKernels<T>>(rt);
}

/// A task of kernel k on `handles` with the arguments a, counting `flops`.
starpu_task* task_of(const Kernel& k, const CholqrArgs& a, std::initializer_list<starpu_data_handle_t> handles,
                     double flops) {
    starpu_task* t = qr_packed_task(k, a, flops);
    int i = 0;
    for (starpu_data_handle_t h : handles) t->handles[i++] = h;
    return t;
}

CholqrArgs args_of(const Runtime& rt) {
    CholqrArgs a;
    a.cuda = cuda_contexts(rt);
    return a;
}

}  // namespace

template <typename T>
void insert_cholqr_gram(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t W,
                        bool low) {
    const double m = tile_rows(X), n = tile_cols(X);
    CholqrArgs a = args_of(rt);
    a.low = low;
    submit(task_of(kernels<T>(rt).gram, a, {X, W}, m * n * n), o, "cholqr_gram");
}

template <typename T>
void insert_cholqr_solve_gram(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t L, starpu_data_handle_t X,
                              starpu_data_handle_t W, const CholqrPasses* third) {
    const double m = tile_rows(X), n = tile_cols(X);
    CholqrArgs a = args_of(rt);
    a.passes = const_cast<CholqrPasses*>(third);
    const auto& k = kernels<T>(rt);
    submit(task_of(third ? k.solve_gram_3 : k.solve_gram, a, {L, X, W}, 2 * m * n * n), o, "cholqr_solve_gram");
}

template <typename T>
void insert_cholqr_solve(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t M, starpu_data_handle_t X) {
    const double m = tile_rows(X), n = tile_cols(X);
    submit(task_of(kernels<T>(rt).solve, args_of(rt), {M, X}, m * n * n), o, "cholqr_solve");
}

template <typename T>
void insert_cholqr_add(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& Wi,
                       starpu_data_handle_t Wp, const CholqrPasses* third) {
    const double m = tile_rows(Wp), n = tile_cols(Wp);
    CholqrArgs a = args_of(rt);
    a.passes = const_cast<CholqrPasses*>(third);
    a.inputs = static_cast<int>(Wi.size());
    const auto& k = kernels<T>(rt);
    starpu_task* t = qr_packed_task(third ? k.add_3 : k.add, a, (is_complex_v<T> ? 2.0 : 1.0) * m * n * a.inputs);
    std::vector<starpu_data_handle_t> handles{Wp};
    handles.insert(handles.end(), Wi.begin(), Wi.end());
    std::vector<starpu_data_access_mode> modes(handles.size(), STARPU_R);
    modes[0] = STARPU_RW;
    set_dynamic_buffers(t, handles.data(), modes.data(), static_cast<int>(handles.size()));
    submit(t, o, "cholqr_add");
}

template <typename T>
void insert_cholqr_potrf(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t G, starpu_data_handle_t L,
                         starpu_data_handle_t V, starpu_data_handle_t info, int64_t m, bool shift, bool check,
                         CholqrPasses* passes, bool decide, bool low) {
    CholqrArgs a = args_of(rt);
    a.m = m;
    a.low = low;
    a.shift = shift;
    a.check = check;
    a.decide = decide;
    a.passes = passes;
    const double n = tile_cols(G);
    const auto& k = kernels<T>(rt);
    submit(task_of(check ? k.potrf_3 : k.potrf, a, {G, L, V, info}, 2 * n * n * n / 3), o, "cholqr_potrf");
}

template <typename T>
void insert_cholqr_householder(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A0,
                               starpu_data_handle_t L1, starpu_data_handle_t L2, starpu_data_handle_t L3,
                               starpu_data_handle_t Tf, starpu_data_handle_t M, starpu_data_handle_t RY,
                               starpu_data_handle_t X, starpu_data_handle_t info, CholqrPasses* passes) {
    const double n = tile_cols(A0);
    CholqrArgs a = args_of(rt);
    a.passes = passes;
    starpu_task* t = qr_packed_task(kernels<T>(rt).householder, a, 4 * n * n * n);
    const starpu_data_handle_t handles[] = {A0, L1, L2, L3, Tf, M, RY, X, info};
    const starpu_data_access_mode modes[] = {STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W,
                                             STARPU_W, STARPU_W, STARPU_W, STARPU_RW};
    set_dynamic_buffers(t, handles, modes, 9);
    submit(t, o, "cholqr_householder");
}

template <typename T>
void insert_cholqr_store(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t RY, starpu_data_handle_t A0) {
    submit(task_of(kernels<T>(rt).store, args_of(rt), {RY, A0}, 0), o, "cholqr_store");
}

template <typename T>
void insert_cholqr_ytc(const Runtime& rt, const TaskOptions& o, Side side, bool unit, starpu_data_handle_t Y,
                       starpu_data_handle_t C, starpu_data_handle_t W) {
    CholqrArgs a = args_of(rt);
    a.right = side == Side::Right;
    a.unit = unit;
    const double r = tile_rows(Y), n = tile_cols(Y), other = a.right ? tile_rows(C) : tile_cols(C);
    submit(task_of(kernels<T>(rt).ytc, a, {Y, C, W}, flop_scale<T>() * 2 * r * n * other), o, "cholqr_ytc");
}

template <typename T>
void insert_cholqr_tmul(const Runtime& rt, const TaskOptions& o, Side side, bool trans, starpu_data_handle_t Tf,
                        starpu_data_handle_t W) {
    CholqrArgs a = args_of(rt);
    a.right = side == Side::Right;
    a.trans = trans;
    const double r = tile_rows(W), c = tile_cols(W);
    submit(task_of(kernels<T>(rt).tmul, a, {Tf, W}, flop_scale<T>() * r * c * (a.right ? c : r)), o, "cholqr_tmul");
}

template <typename T>
void insert_cholqr_update(const Runtime& rt, const TaskOptions& o, Side side, starpu_data_handle_t Y,
                          starpu_data_handle_t W, starpu_data_handle_t C, starpu_data_handle_t Z) {
    CholqrArgs a = args_of(rt);
    a.right = side == Side::Right;
    a.unit = Z != nullptr;
    const double r = tile_rows(Y), n = tile_cols(Y), other = a.right ? tile_rows(C) : tile_cols(C);
    if (Z)
        submit(task_of(kernels<T>(rt).update_unit, a, {Y, W, C, Z}, flop_scale<T>() * 2 * r * n * other), o,
               "cholqr_update");
    else
        submit(task_of(kernels<T>(rt).update, a, {Y, W, C}, flop_scale<T>() * 2 * r * n * other), o, "cholqr_update");
}

template <typename T>
void reserve_cholqr_workspace(const Runtime& rt, int64_t n, int64_t rows) {
#ifdef STARFACT_HAVE_CUDA
    if (rt.cuda_workers() == 0 || n == 0) return;
    cuda_contexts(rt)->reserve(static_cast<int>(n), cholqr_workspace<T>);
    if (rows > 0) cuda_contexts(rt)->reserve(static_cast<int>(rows), cholqr_scratch<T>);
#else
    (void)rt;
    (void)n;
    (void)rows;
#endif
}

#define STARFACT_CHOLQR(T)                                                                                           \
    template void insert_cholqr_gram<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t, \
                                        bool);                                                                       \
    template void insert_cholqr_solve_gram<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,              \
                                              starpu_data_handle_t, starpu_data_handle_t, const CholqrPasses*);      \
    template void insert_cholqr_solve<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t); \
    template void insert_cholqr_add<T>(const Runtime&, const TaskOptions&, const std::vector<starpu_data_handle_t>&,  \
                                       starpu_data_handle_t, const CholqrPasses*);                                   \
    template void insert_cholqr_potrf<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,                   \
                                         starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t, int64_t,  \
                                         bool, bool, CholqrPasses*, bool, bool);                                     \
    template void insert_cholqr_householder<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,             \
                                               starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t,     \
                                               starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t,     \
                                               starpu_data_handle_t, starpu_data_handle_t, CholqrPasses*);           \
    template void insert_cholqr_store<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t); \
    template void insert_cholqr_ytc<T>(const Runtime&, const TaskOptions&, Side, bool, starpu_data_handle_t,         \
                                       starpu_data_handle_t, starpu_data_handle_t);                                  \
    template void insert_cholqr_tmul<T>(const Runtime&, const TaskOptions&, Side, bool, starpu_data_handle_t,        \
                                        starpu_data_handle_t);                                                       \
    template void insert_cholqr_update<T>(const Runtime&, const TaskOptions&, Side, starpu_data_handle_t,            \
                                          starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t);         \
    template void reserve_cholqr_workspace<T>(const Runtime&, int64_t, int64_t);
STARFACT_CHOLQR(float)
STARFACT_CHOLQR(double)
#undef STARFACT_CHOLQR
// A block reflector applied to complex tiles (the panel tree's updates).
#define STARFACT_CHOLQR_APPLY(T)                                                                                     \
    template void insert_cholqr_add<T>(const Runtime&, const TaskOptions&, const std::vector<starpu_data_handle_t>&,  \
                                       starpu_data_handle_t, const CholqrPasses*);                                   \
    template void insert_cholqr_ytc<T>(const Runtime&, const TaskOptions&, Side, bool, starpu_data_handle_t,         \
                                       starpu_data_handle_t, starpu_data_handle_t);                                  \
    template void insert_cholqr_tmul<T>(const Runtime&, const TaskOptions&, Side, bool, starpu_data_handle_t,        \
                                        starpu_data_handle_t);                                                       \
    template void insert_cholqr_update<T>(const Runtime&, const TaskOptions&, Side, starpu_data_handle_t,            \
                                          starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t);         \
    template void reserve_cholqr_workspace<T>(const Runtime&, int64_t, int64_t);
STARFACT_CHOLQR_APPLY(std::complex<float>)
STARFACT_CHOLQR_APPLY(std::complex<double>)
#undef STARFACT_CHOLQR_APPLY

}  // namespace starfact::detail

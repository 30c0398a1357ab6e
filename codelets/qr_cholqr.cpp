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
//   cholqr_ytc_self:    0 = the tile of Y and C (R), 1 = W (W)                 (windows: ytc's 0 and 1)
//   cholqr_update_self: 0 = the tile of Y and C (RW), 1 = W (R) [, 2 = Z (W)]  (windows: update's 0 and 2)
// Tasks may work on windows of their tiles (TileWindow: the blocked form's panels), whose sizes their performance
// models tell apart (window_footprint).
// The third pass's tasks have codelets of their own (_3: their own performance models), since they return at once
// when the second pass decided that two passes suffice (CholqrPasses).
// Their implementations: codelets/cholqr_cpu.cpp (CBLAS, LAPACKE) and codelets/cholqr_cuda.cpp (cuBLAS, cuSOLVER and
// kernels/qr/cholqr_kernels.cu).
#include <complex>
#include <cstdlib>
#include <stdexcept>
#include <string>
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
STARFACT_CHOLQR_DEFINE(ytc_self, "ytc_self", ytc_self_cpu, ytc_self_cuda, STARPU_R, STARPU_W)
STARFACT_CHOLQR_DEFINE(update_self, "update_self", update_self_cpu, update_self_cuda, STARPU_RW, STARPU_R)
STARFACT_CHOLQR_DEFINE(update_self_unit, "update_self_unit", update_self_cpu, update_self_cuda, STARPU_RW, STARPU_R,
                       STARPU_W)
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
/// The performance models' footprint: the buffers' (StarPU's, as without windows) combined with the sizes of the
/// windows the task works on, so that a panel's task and a whole tile's are timed apart.
uint32_t window_footprint(starpu_task* task) {
    uint32_t f = starpu_task_data_footprint(task);
    const auto* a = static_cast<const CholqrArgs*>(task->cl_arg);
    if (!a) return f;
    for (const TileWindow& w : a->window)
        if (!w.whole()) {
            f = starpu_hash_crc32c_be(static_cast<uint32_t>(w.row0), f);
            f = starpu_hash_crc32c_be(static_cast<uint32_t>(w.cols), f);
        }
    return f;
}

template <typename T>
struct CholqrKernels {
    Kernel gram, solve_gram, solve_gram_3, solve, add, add_3, potrf, potrf_3, householder, store, ytc, tmul, update,
        update_unit, ytc_self, update_self, update_self_unit;
    CholqrKernels() {
        if constexpr (!is_complex_v<T>) {
            define_ytc_self<T>(ytc_self);
            define_update_self<T>(update_self);
            define_update_self_unit<T>(update_self_unit);
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
        for (Kernel* k : {&gram, &solve_gram, &solve_gram_3, &solve, &householder, &store, &ytc, &tmul, &update,
                          &update_unit, &ytc_self, &update_self, &update_self_unit})
            k->model.footprint = window_footprint;
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

/// The rows and columns of a tile's window.
double window_rows(starpu_data_handle_t h, TileWindow w) { return tile_rows(h) - w.row0; }
double window_cols(starpu_data_handle_t h, TileWindow w) { return w.cols < 0 ? tile_cols(h) - w.col0 : w.cols; }

template <typename T>
void insert_cholqr_gram(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t X, starpu_data_handle_t W,
                        bool low, TileWindow x) {
    const double m = window_rows(X, x), n = window_cols(X, x);
    CholqrArgs a = args_of(rt);
    a.low = low;
    a.window[0] = x;
    submit(task_of(kernels<T>(rt).gram, a, {X, W}, m * n * n), o, "cholqr_gram");
}

template <typename T>
void insert_cholqr_solve_gram(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t L, starpu_data_handle_t X,
                              starpu_data_handle_t W, const CholqrPasses* third, TileWindow x) {
    const double m = window_rows(X, x), n = window_cols(X, x);
    CholqrArgs a = args_of(rt);
    a.passes = const_cast<CholqrPasses*>(third);
    a.window[1] = x;
    const auto& k = kernels<T>(rt);
    submit(task_of(third ? k.solve_gram_3 : k.solve_gram, a, {L, X, W}, 2 * m * n * n), o, "cholqr_solve_gram");
}

template <typename T>
void insert_cholqr_solve(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t M, starpu_data_handle_t X,
                         TileWindow x) {
    const double m = window_rows(X, x), n = window_cols(X, x);
    CholqrArgs a = args_of(rt);
    a.window[1] = x;
    submit(task_of(kernels<T>(rt).solve, a, {M, X}, m * n * n), o, "cholqr_solve");
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
                         CholqrPasses* passes, bool decide, bool low, int first_column) {
    CholqrArgs a = args_of(rt);
    a.m = m;
    a.low = low;
    a.shift = shift;
    a.check = check;
    a.decide = decide;
    a.passes = passes;
    a.first_column = first_column;
    const double n = tile_cols(G);
    const auto& k = kernels<T>(rt);
    submit(task_of(check ? k.potrf_3 : k.potrf, a, {G, L, V, info}, 2 * n * n * n / 3), o, "cholqr_potrf");
}

template <typename T>
void insert_cholqr_householder(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A0,
                               starpu_data_handle_t L1, starpu_data_handle_t L2, starpu_data_handle_t L3,
                               starpu_data_handle_t Tf, starpu_data_handle_t M, starpu_data_handle_t RY,
                               starpu_data_handle_t X, starpu_data_handle_t info, CholqrPasses* passes,
                               TileWindow a0, TileWindow tw, int first_column) {
    const double n = window_cols(A0, a0);
    CholqrArgs a = args_of(rt);
    a.passes = passes;
    a.first_column = first_column;
    a.window[0] = a0;
    a.window[4] = tw;
    starpu_task* t = qr_packed_task(kernels<T>(rt).householder, a, 4 * n * n * n);
    const starpu_data_handle_t handles[] = {A0, L1, L2, L3, Tf, M, RY, X, info};
    const starpu_data_access_mode modes[] = {STARPU_R, STARPU_R, STARPU_R, STARPU_R, tw.col0 > 0 ? STARPU_RW : STARPU_W,
                                             STARPU_W, STARPU_W, STARPU_W, STARPU_RW};
    set_dynamic_buffers(t, handles, modes, 9);
    submit(t, o, "cholqr_householder");
}

template <typename T>
void insert_cholqr_store(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t RY, starpu_data_handle_t A0,
                         TileWindow a0) {
    CholqrArgs a = args_of(rt);
    a.window[1] = a0;
    submit(task_of(kernels<T>(rt).store, a, {RY, A0}, 0), o, "cholqr_store");
}

template <typename T>
void insert_cholqr_ytc(const Runtime& rt, const TaskOptions& o, Side side, bool unit, starpu_data_handle_t Y,
                       starpu_data_handle_t C, starpu_data_handle_t W, TileWindow y, TileWindow c) {
    CholqrArgs a = args_of(rt);
    a.right = side == Side::Right;
    a.unit = unit;
    a.window[0] = y;
    a.window[1] = c;
    const double r = window_rows(Y, y), n = window_cols(Y, y),
                 other = a.right ? window_rows(C, c) : window_cols(C, c);
    const double flops = flop_scale<T>() * 2 * r * n * other;
    if (Y == C) {  // (the blocked form's trailing columns: real only)
        if constexpr (is_complex_v<T>) throw std::logic_error("cholqr_ytc: windows of one complex tile");
        else submit(task_of(kernels<T>(rt).ytc_self, a, {Y, W}, flops), o, "cholqr_ytc");
        return;
    }
    submit(task_of(kernels<T>(rt).ytc, a, {Y, C, W}, flops), o, "cholqr_ytc");
}

template <typename T>
void insert_cholqr_tmul(const Runtime& rt, const TaskOptions& o, Side side, bool trans, starpu_data_handle_t Tf,
                        starpu_data_handle_t W, TileWindow tw) {
    CholqrArgs a = args_of(rt);
    a.right = side == Side::Right;
    a.trans = trans;
    a.window[0] = tw;
    const double r = tile_rows(W), c = tile_cols(W);
    submit(task_of(kernels<T>(rt).tmul, a, {Tf, W}, flop_scale<T>() * r * c * (a.right ? c : r)), o, "cholqr_tmul");
}

template <typename T>
void insert_cholqr_update(const Runtime& rt, const TaskOptions& o, Side side, starpu_data_handle_t Y,
                          starpu_data_handle_t W, starpu_data_handle_t C, starpu_data_handle_t Z, TileWindow y,
                          TileWindow c) {
    CholqrArgs a = args_of(rt);
    a.right = side == Side::Right;
    a.unit = Z != nullptr;
    a.window[0] = y;
    a.window[2] = c;
    const double r = window_rows(Y, y), n = window_cols(Y, y),
                 other = a.right ? window_rows(C, c) : window_cols(C, c);
    const double flops = flop_scale<T>() * 2 * r * n * other;
    const auto& k = kernels<T>(rt);
    if (Y == C) {  // (the blocked form's trailing columns: real only)
        if constexpr (is_complex_v<T>) {
            throw std::logic_error("cholqr_update: windows of one complex tile");
        } else {
            if (Z)
                submit(task_of(k.update_self_unit, a, {Y, W, Z}, flops), o, "cholqr_update");
            else
                submit(task_of(k.update_self, a, {Y, W}, flops), o, "cholqr_update");
        }
        return;
    }
    if (Z)
        submit(task_of(k.update_unit, a, {Y, W, C, Z}, flops), o, "cholqr_update");
    else
        submit(task_of(k.update, a, {Y, W, C}, flops), o, "cholqr_update");
}

QrWiden qr_widen_setting() {
    const char* e = std::getenv("STARFACT_QR_WIDEN");
    if (e && std::string(e) == "off") return QrWiden::Off;
    if (e && std::string(e) == "force") return QrWiden::Force;
    return QrWiden::Default;
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

#define STARFACT_CHOLQR_APPLY(T)                                                                                     \
    template void insert_cholqr_add<T>(const Runtime&, const TaskOptions&, const std::vector<starpu_data_handle_t>&,  \
                                       starpu_data_handle_t, const CholqrPasses*);                                   \
    template void insert_cholqr_ytc<T>(const Runtime&, const TaskOptions&, Side, bool, starpu_data_handle_t,         \
                                       starpu_data_handle_t, starpu_data_handle_t, TileWindow, TileWindow);          \
    template void insert_cholqr_tmul<T>(const Runtime&, const TaskOptions&, Side, bool, starpu_data_handle_t,        \
                                        starpu_data_handle_t, TileWindow);                                           \
    template void insert_cholqr_update<T>(const Runtime&, const TaskOptions&, Side, starpu_data_handle_t,            \
                                          starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t,          \
                                          TileWindow, TileWindow);                                                   \
    template void reserve_cholqr_workspace<T>(const Runtime&, int64_t, int64_t);
#define STARFACT_CHOLQR(T)                                                                                           \
    STARFACT_CHOLQR_APPLY(T)                                                                                         \
    template void insert_cholqr_gram<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t, \
                                        bool, TileWindow);                                                           \
    template void insert_cholqr_solve_gram<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,              \
                                              starpu_data_handle_t, starpu_data_handle_t, const CholqrPasses*,       \
                                              TileWindow);                                                           \
    template void insert_cholqr_solve<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,                   \
                                         starpu_data_handle_t, TileWindow);                                          \
    template void insert_cholqr_potrf<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,                   \
                                         starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t, int64_t,  \
                                         bool, bool, CholqrPasses*, bool, bool, int);                                \
    template void insert_cholqr_householder<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,             \
                                               starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t,     \
                                               starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t,     \
                                               starpu_data_handle_t, starpu_data_handle_t, CholqrPasses*,            \
                                               TileWindow, TileWindow, int);                                         \
    template void insert_cholqr_store<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,                   \
                                         starpu_data_handle_t, TileWindow);
STARFACT_CHOLQR(float)
STARFACT_CHOLQR(double)
// A block reflector applied to complex tiles (the panel tree's updates).
STARFACT_CHOLQR_APPLY(std::complex<float>)
STARFACT_CHOLQR_APPLY(std::complex<double>)
#undef STARFACT_CHOLQR
#undef STARFACT_CHOLQR_APPLY

}  // namespace starfact::detail

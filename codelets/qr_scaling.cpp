// The scaling of gels (algorithms/ormqr.cpp), as LAPACK's gels: M = [max |A|, max |B|] (two doubles), then A, B and
// the solution scaled by powers of two that kernels/qr/qr_scale_rule.hpp derives from M on the worker running the
// task, so that the graph is submitted before any of it runs.
//   qr_absmax:  0 = M (RW; the first task's W, which sets it to 0), 1.. = the tiles of a tile column (R), top to
//               bottom: M[which] := max(M[which], the largest magnitude of their first `rows` rows), NaN when one is
//               NaN
//   qr_rescale: 0 = M (R), 1.. = the tiles of a tile column (RW): rows [first, last) times 2^k, k from M
//   (the tiles of a tile column: every one, or every tile_step-th from tile first_tile on, the ones a rank of a
//   distributed matrix owns)
//   qr_absmax_merge: 0 = M (RW; W with init), 1 = another M (R): the element-wise largest (NaN wins), or a copy; the
//   distributed gels' maxima, each rank's brought to every rank (CPU)
// Complex entries: the magnitude is the modulus (LAPACK's zlange 'M'), both parts scaled.
// CPU: loops; CUDA: kernels/qr/qr_range.cu.
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "codelets/qr_codelets.hpp"
#include "kernels/qr/qr_range.hpp"
#include "kernels/qr/qr_scale_rule.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct ScalingArgs {
    int tiles;                // tiles of the tile column
    int which;                // qr_absmax: 0 (A) or 1 (B)
    bool init;                // qr_absmax: the first task, which sets M to 0 first (M has no value before it)
    int64_t nb;               // the tiles' rows (the last one's may be fewer)
    int64_t first, last;      // global rows read (absmax: [0, last)) or scaled (rescale: [first, last))
    QrScaleRanges ranges;     // qr_rescale
    QrRescale rescale;        // qr_rescale
    CudaContexts* cuda;
    int64_t first_tile = 0, tile_step = 1;  // the tiles' tile rows: first_tile + t * tile_step
};

/// |x| in double (the modulus of a complex x).
template <typename T>
double magnitude_of(const T& x) {
    if constexpr (is_complex_v<T>)
        return std::hypot(static_cast<double>(x.real()), static_cast<double>(x.imag()));
    else
        return std::abs(static_cast<double>(x));
}
/// x 2^k, computed in double (both parts of a complex x).
template <typename T>
T times_power_of_two(const T& x, int k) {
    using R = real_t<T>;
    if constexpr (is_complex_v<T>)
        return T(static_cast<R>(std::ldexp(static_cast<double>(x.real()), k)),
                 static_cast<R>(std::ldexp(static_cast<double>(x.imag()), k)));
    else
        return static_cast<T>(std::ldexp(static_cast<double>(x), k));
}

double* maxima(void* buffer) { return reinterpret_cast<double*>(STARPU_VECTOR_GET_PTR(buffer)); }

/// The rows [from, to) of tile t of the column that lie in the global rows [first, last).
void rows_of(const ScalingArgs* a, int t, int rows, int* from, int* to) {
    const int64_t r0 = (a->first_tile + t * a->tile_step) * a->nb;
    *from = static_cast<int>(std::clamp<int64_t>(a->first - r0, 0, rows));
    *to = static_cast<int>(std::clamp<int64_t>(a->last - r0, 0, rows));
}

template <typename T>
void absmax_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ScalingArgs*>(cl_arg);
    if (a->init) maxima(buffers[0])[0] = maxima(buffers[0])[1] = 0;
    double& best = maxima(buffers[0])[a->which];
    for (int t = 0; t < a->tiles; ++t) {
        const QrTile A = qr_tile(buffers[1 + t]);
        int from = 0, to = 0;
        rows_of(a, t, A.rows, &from, &to);
        for (int j = 0; j < A.cols; ++j)
            for (int i = from; i < to; ++i) {
                const double v = magnitude_of(ptr<T>(A)[i + static_cast<int64_t>(j) * A.ld]);
                if (!(v <= best)) best = v;  // NaN wins
            }
    }
}

template <typename T>
void rescale_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ScalingArgs*>(cl_arg);
    const int k = qr_rescale_exponent(maxima(buffers[0]), a->ranges, a->rescale);
    if (k == 0) return;
    for (int t = 0; t < a->tiles; ++t) {
        const QrTile A = qr_tile(buffers[1 + t]);
        int from = 0, to = 0;
        rows_of(a, t, A.rows, &from, &to);
        for (int j = 0; j < A.cols; ++j)
            for (int i = from; i < to; ++i) {
                T& x = ptr<T>(A)[i + static_cast<int64_t>(j) * A.ld];
                x = times_power_of_two(x, k);
            }
    }
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void absmax_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ScalingArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    if (a->init) check_cuda(cudaMemsetAsync(maxima(buffers[0]), 0, 2 * sizeof(double), ws.stream), "cudaMemsetAsync");
    double* best = maxima(buffers[0]) + a->which;
    for (int t = 0; t < a->tiles; ++t) {
        const QrTile A = qr_tile(buffers[1 + t]);
        int from = 0, to = 0;
        rows_of(a, t, A.rows, &from, &to);
        gpu::launch_qr_absmax(ptr<T>(A) + from, A.ld, to - from, A.cols, best, ws.stream);
    }
}

template <typename T>
void rescale_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const ScalingArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    for (int t = 0; t < a->tiles; ++t) {
        const QrTile A = qr_tile(buffers[1 + t]);
        int from = 0, to = 0;
        rows_of(a, t, A.rows, &from, &to);
        gpu::launch_qr_rescale(ptr<T>(A), A.ld, from, to, A.cols, maxima(buffers[0]), a->ranges, a->rescale,
                               ws.stream);
    }
}
#endif

void absmax_merge_cpu(void* buffers[], void* cl_arg) {
    const bool init = *static_cast<const bool*>(cl_arg);
    double* to = maxima(buffers[0]);
    const double* from = maxima(buffers[1]);
    for (int k = 0; k < 2; ++k)
        if (init || (!std::isnan(to[k]) && !(from[k] <= to[k]))) to[k] = from[k];  // NaN wins
}

void define_absmax_merge(Kernel& k) {
    define_kernel(k, "qr_absmax_merge", "starfact_qr_absmax_merge", absmax_merge_cpu, nullptr, {});
}

template <typename T>
void define_absmax(Kernel& k) {
    define_kernel(k, "qr_absmax", by_letter<T>("starfact_sqr_absmax", "starfact_dqr_absmax", "starfact_cqr_absmax",
                                                  "starfact_zqr_absmax"), absmax_cpu<T>,
                  STARFACT_CUDA_IMPL(absmax_cuda<T>), {});
}
template <typename T>
void define_rescale(Kernel& k) {
    define_kernel(k, "qr_rescale", by_letter<T>("starfact_sqr_rescale", "starfact_dqr_rescale", "starfact_cqr_rescale",
                                                  "starfact_zqr_rescale"), rescale_cpu<T>,
                  STARFACT_CUDA_IMPL(rescale_cuda<T>), {});
}

starpu_task* column_task(const Kernel& k, const ScalingArgs& args, starpu_data_handle_t M, starpu_data_access_mode mode,
                         const std::vector<starpu_data_handle_t>& tiles, starpu_data_access_mode tile_mode) {
    std::vector<starpu_data_handle_t> handles{M};
    handles.insert(handles.end(), tiles.begin(), tiles.end());
    std::vector<starpu_data_access_mode> modes(handles.size(), tile_mode);
    modes[0] = mode;
    starpu_task* t = qr_packed_task(k, args);
    set_dynamic_buffers(t, handles.data(), modes.data(), static_cast<int>(handles.size()));
    return t;
}

}  // namespace

template <typename T>
void insert_qr_absmax(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& tiles,
                      int64_t nb, int64_t rows, int which, bool init, starpu_data_handle_t M, int64_t first_tile,
                      int64_t tile_step) {
    ScalingArgs a{static_cast<int>(tiles.size()), which, init, nb, 0, rows, {}, QrRescale::A, cuda_contexts(rt),
                  first_tile, tile_step};
    submit(column_task(kernel<define_absmax<T>>(rt), a, M, init ? STARPU_W : STARPU_RW, tiles, STARPU_R), o,
           "qr_absmax");
}

template <typename T>
void insert_qr_rescale(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& tiles,
                       int64_t nb, int64_t first, int64_t last, const QrScaleRanges& ranges, QrRescale which,
                       starpu_data_handle_t M, int64_t first_tile, int64_t tile_step) {
    ScalingArgs a{static_cast<int>(tiles.size()), 0, false, nb, first, last, ranges, which, cuda_contexts(rt),
                  first_tile, tile_step};
    submit(column_task(kernel<define_rescale<T>>(rt), a, M, STARPU_R, tiles, STARPU_RW), o, "qr_rescale");
}

void insert_qr_absmax_merge(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t M,
                            starpu_data_handle_t other, bool init) {
    starpu_task* t = qr_packed_task(kernel<define_absmax_merge>(rt), init);
    const starpu_data_handle_t handles[] = {M, other};
    const starpu_data_access_mode modes[] = {init ? STARPU_W : STARPU_RW, STARPU_R};
    set_dynamic_buffers(t, handles, modes, 2);
    TaskOptions cpu = o;
    cpu.mapping = Mapping::CpuOnly;  // two doubles: no CUDA implementation
    submit(t, cpu, "qr_absmax_merge");
}

#define STARFACT_QR_SCALING(T)                                                                                     \
    template void insert_qr_absmax<T>(const Runtime&, const TaskOptions&, const std::vector<starpu_data_handle_t>&, \
                                      int64_t, int64_t, int, bool, starpu_data_handle_t, int64_t, int64_t);       \
    template void insert_qr_rescale<T>(const Runtime&, const TaskOptions&, const std::vector<starpu_data_handle_t>&, \
                                       int64_t, int64_t, int64_t, const QrScaleRanges&, QrRescale,                \
                                       starpu_data_handle_t, int64_t, int64_t);
STARFACT_QR_SCALING(float)
STARFACT_QR_SCALING(double)
STARFACT_QR_SCALING(std::complex<float>)
STARFACT_QR_SCALING(std::complex<double>)
#undef STARFACT_QR_SCALING

}  // namespace starfact::detail

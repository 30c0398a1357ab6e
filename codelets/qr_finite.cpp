// The QR's check of R (algorithms/geqrf.cpp, every tree): one task per tile column of R reads its tiles (the
// diagonal one's upper triangle) and, if one holds NaN or Inf, sets the operation's info to the first such column
// (1-based) and records QrBreakdown::NotFinite. Householder reflections spread a NaN or Inf of A's column k over
// R's column k at least, and never into the columns before it. A complex entry is finite when both its parts are.
//   qr_finite: 0 = info (RW, one int), 1.. = the tiles (R), top to bottom
// CPU: a loop; CUDA: kernels/qr/qr_range.cu's first_nonfinite into the worker's devInfo scratch, read back (the task
// waits for its stream once) so that the reason is known on the host.
#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <vector>

#include "codelets/qr_codelets.hpp"
#include "codelets/qr_status.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/qr/qr_range.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct FiniteArgs {
    int tiles;            // tiles of the tile column
    bool last_diagonal;   // the last tile is on R's diagonal: only its upper triangle is R
    int64_t column0;      // the tile column's first global column
    QrStatus* status;
    CudaContexts* cuda;
};

int* info_of(void* buffer) { return reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffer)); }

template <typename T>
void finite_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const FiniteArgs*>(cl_arg);
    int* info = info_of(buffers[0]);
    if (*info != 0) return;
    const int cols = qr_tile(buffers[1]).cols;
    for (int j = 0; j < cols; ++j)
        for (int t = 0; t < a->tiles; ++t) {
            const QrTile R = qr_tile(buffers[1 + t]);
            const bool upper = a->last_diagonal && t == a->tiles - 1;
            const int rows = upper ? std::min(j + 1, R.rows) : R.rows;
            const T* r = ptr<T>(R) + static_cast<int64_t>(j) * R.ld;
            for (int i = 0; i < rows; ++i)
                if (!std::isfinite(real_of(r[i])) || !std::isfinite(imag_of(r[i]))) {
                    *info = static_cast<int>(a->column0 + j + 1);
                    a->status->record(QrBreakdown::NotFinite, *info);
                    return;
                }
        }
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void finite_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const FiniteArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    CudaWorkerContext& c = a->cuda->local();
    check_cuda(cudaMemsetAsync(c.dev_info, 0x7f, sizeof(int), ws.stream), "cudaMemsetAsync");
    int cols = 0;
    for (int t = 0; t < a->tiles; ++t) {
        const QrTile R = qr_tile(buffers[1 + t]);
        cols = R.cols;
        const bool upper = a->last_diagonal && t == a->tiles - 1;
        gpu::launch_qr_first_nonfinite(ptr<T>(R), R.ld, R.rows, R.cols, upper ? gpu::Part::Upper : gpu::Part::All,
                                       c.dev_info, ws.stream);
    }
    int first = INT_MAX;
    check_cuda(cudaMemcpyAsync(&first, c.dev_info, sizeof(int), cudaMemcpyDeviceToHost, ws.stream), "cudaMemcpyAsync");
    check_cuda(cudaStreamSynchronize(ws.stream), "cudaStreamSynchronize");
    if (first >= cols) return;
    const int column = static_cast<int>(a->column0 + first + 1);
    a->status->record(QrBreakdown::NotFinite, column);
    // *info := column unless set: devInfo holds the local column, merged at the tile column's offset.
    const int local = first + 1;
    check_cuda(cudaMemcpyAsync(c.dev_info, &local, sizeof(int), cudaMemcpyHostToDevice, ws.stream), "cudaMemcpyAsync");
    gpu::launch_merge_info(c.dev_info, info_of(buffers[0]), a->column0, ws.stream);
    check_cuda(cudaStreamSynchronize(ws.stream), "cudaStreamSynchronize");  // `local` is on this stack frame
}
#endif

template <typename T>
void define_finite(Kernel& k) {
    define_kernel(k, "qr_finite",
                  by_letter<T>("starfact_sqr_finite", "starfact_dqr_finite", "starfact_cqr_finite", "starfact_zqr_finite"),
                  finite_cpu<T>, STARFACT_CUDA_IMPL(finite_cuda<T>), {});
}

}  // namespace

template <typename T>
void insert_qr_finite_check(const Runtime& rt, const TaskOptions& o, const std::vector<starpu_data_handle_t>& tiles,
                            bool last_diagonal, int64_t column0, starpu_data_handle_t info, QrStatus* status) {
    const int count = static_cast<int>(tiles.size());
    std::vector<starpu_data_handle_t> handles{info};
    handles.insert(handles.end(), tiles.begin(), tiles.end());
    std::vector<starpu_data_access_mode> modes(handles.size(), STARPU_R);
    modes[0] = STARPU_RW;
    starpu_task* t = qr_packed_task(kernel<define_finite<T>>(rt),
                                    FiniteArgs{count, last_diagonal, column0, status, cuda_contexts(rt)});
    set_dynamic_buffers(t, handles.data(), modes.data(), count + 1);
    submit(t, o, "qr_finite");
}

#define STARFACT_QR_FINITE(T)                                                                                      \
    template void insert_qr_finite_check<T>(const Runtime&, const TaskOptions&,                                    \
                                            const std::vector<starpu_data_handle_t>&, bool, int64_t,               \
                                            starpu_data_handle_t, QrStatus*);
STARFACT_QR_FINITE(float)
STARFACT_QR_FINITE(double)
STARFACT_QR_FINITE(std::complex<float>)
STARFACT_QR_FINITE(std::complex<double>)
#undef STARFACT_QR_FINITE

}  // namespace starfact::detail

// logdet codelet: the log-determinant's step on one diagonal tile of a Cholesky factor.
//   buffers: 0 = acc (a DiagonalLogSum variable: W on the first tile, RW after), 1 = the diagonal tile (R),
//            2 = info (RW, one int; the last tile's task only)
// The tasks of one log-determinant chain through acc, tile by tile; the last one also writes the caller's LogDet
// and the info. CPU: kernels/logdet_diagonal.hpp's loop; CUDA: its one-block kernel on the worker's stream, and
// for the last tile the running sum read back (the task waits for its stream once) so that the result reaches
// the host.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "codelets/logdet_codelets.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/logdet_diagonal.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {
namespace {

struct LogdetTileArgs {
    int64_t offset;      // global index of the tile's first diagonal entry
    bool first;          // acc starts here
    LogDet* result;      // the last tile's task: the caller's result; null otherwise
    CudaContexts* cuda;  // CUDA implementation
    bool urgent;         // TaskOptions::urgent
};

DiagonalLogSum* acc_of(void* buffer) { return reinterpret_cast<DiagonalLogSum*>(STARPU_VARIABLE_GET_PTR(buffer)); }
int diagonal_of(void* tile) {
    return static_cast<int>(std::min(STARPU_MATRIX_GET_NX(tile), STARPU_MATRIX_GET_NY(tile)));
}

/// The caller's result from the complete sum: log det A = 2 sum log L(i, i); NaN when an entry was bad.
void settle(const DiagonalLogSum& acc, LogDet* result) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    *result = acc.first_bad != 0 ? LogDet{nan, nan} : LogDet{1.0, 2.0 * acc.sum};
}

/// The info the last task sets: the first bad diagonal entry (1-based), or 0.
int info_value(const DiagonalLogSum& acc) { return static_cast<int>(acc.first_bad); }

template <typename T>
void logdet_tile_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const LogdetTileArgs*>(cl_arg);
    DiagonalLogSum* acc = acc_of(buffers[0]);
    const T* L = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    add_diagonal_logs(L, STARPU_MATRIX_GET_LD(buffers[1]), diagonal_of(buffers[1]), a->offset, a->first, acc);
    if (!a->result) return;
    settle(*acc, a->result);
    int* info = reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffers[2]));
    if (*info == 0) *info = info_value(*acc);
}

#ifdef STARFACT_HAVE_CUDA
template <typename T>
void logdet_tile_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const LogdetTileArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, a->urgent);
    DiagonalLogSum* acc = acc_of(buffers[0]);
    const T* L = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[1]));
    gpu::launch_add_diagonal_logs(L, static_cast<int>(STARPU_MATRIX_GET_LD(buffers[1])), diagonal_of(buffers[1]),
                                  a->offset, a->first, acc, ws.stream);
    check_cuda(cudaGetLastError(), "logdet kernel launch");
    if (!a->result) return;
    DiagonalLogSum host{};
    check_cuda(cudaMemcpyAsync(&host, acc, sizeof host, cudaMemcpyDeviceToHost, ws.stream), "cudaMemcpyAsync");
    check_cuda(cudaStreamSynchronize(ws.stream), "cudaStreamSynchronize");
    settle(host, a->result);
    const int value = info_value(host);
    if (value == 0) return;  // the info variable is this operation's own, still 0
    int* info = reinterpret_cast<int*>(STARPU_VARIABLE_GET_PTR(buffers[2]));
    check_cuda(cudaMemcpyAsync(info, &value, sizeof value, cudaMemcpyHostToDevice, ws.stream), "cudaMemcpyAsync");
    check_cuda(cudaStreamSynchronize(ws.stream), "cudaStreamSynchronize");  // `value` is on this stack frame
}
#endif

template <typename T>
void define_logdet_tile(Kernel& k) {
    define_kernel(k, "logdet", by_precision<T>("starfact_slogdet_tile", "starfact_dlogdet_tile"),
                  logdet_tile_cpu<T>, STARFACT_CUDA_IMPL(logdet_tile_cuda<T>), {});
}

}  // namespace

template <typename T>
void insert_logdet_tile(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t acc, starpu_data_handle_t L,
                        int64_t offset, bool first, starpu_data_handle_t info, LogDet* result) {
    const bool last = result != nullptr;
    std::vector<starpu_data_handle_t> handles{acc, L};
    std::vector<starpu_data_access_mode> modes{first ? STARPU_W : STARPU_RW, STARPU_R};
    if (last) {
        handles.push_back(info);
        modes.push_back(STARPU_RW);
    }
    starpu_task* t = starpu_task_create();
    t->cl = &kernel<define_logdet_tile<T>>(rt).cl;
    t->cl_arg = pack(LogdetTileArgs{offset, first, result, cuda_contexts(rt), o.urgent});
    t->cl_arg_size = sizeof(LogdetTileArgs);
    t->cl_arg_free = 1;
    t->flops = static_cast<double>(tile_rows(L));
    set_dynamic_buffers(t, handles.data(), modes.data(), static_cast<int>(handles.size()));
    submit(t, o, "logdet");
}

template void insert_logdet_tile<float>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t,
                                        int64_t, bool, starpu_data_handle_t, LogDet*);
template void insert_logdet_tile<double>(const Runtime&, const TaskOptions&, starpu_data_handle_t,
                                         starpu_data_handle_t, int64_t, bool, starpu_data_handle_t, LogDet*);

}  // namespace starfact::detail

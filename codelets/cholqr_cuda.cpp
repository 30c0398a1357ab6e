// The Cholesky QR's CUDA implementations (codelets/cholqr_impl.hpp; the codelets and their buffers:
// codelets/qr_cholqr.cpp): cuBLAS gemm (the Gram matrices, as a strided batched gemm over row chunks of the tile and
// their sum, so that the work spreads over the GPU; the solves over the tiles as gemms by block columns through the
// worker's scratch, or in place by kernels/qr/cholqr_trmm.cu on tall double tiles), trsm, trmm, geam; cuSOLVER
// potrf; the element-wise kernels and the one-block modified LU of kernels/qr/cholqr_kernels.cu. The Cholesky and
// the reconstruction read a few numbers back to the host (the trace for the shift, the factorization's info, the rank
// check): they wait for their stream.
#ifdef STARFACT_HAVE_CUDA
#include <algorithm>
#include <atomic>
#include <complex>
#include <cmath>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "codelets/cholqr_cuda_common.hpp"
#include "codelets/cholqr_impl.hpp"
#include "codelets/cholqr_panel.hpp"
#include "kernels/cuda_blas.hpp"
#include "kernels/qr/cholqr_kernels.hpp"
#include "kernels/qr/cholqr_trmm.hpp"
#include "kernels/qr/qr_kernels.hpp"

namespace starfact::detail::cholqr {

/// The Gram matrix W := X^T X of a tall tile: deep_product's chunks, of its lower block triangle only (blocks of 128
/// columns: block column j from its diagonal block down, one strided batched gemm each), summed and mirrored. A wide
/// tile (kChunkBlocks result blocks or more: no chunks) has its lower triangle made by one cuBLAS syrk from order
/// kGramSyrkOrder, below it by gemms on block columns of kGramWideBlock, then mirrored. Measured on the H200, double,
/// 32768 rows: n = 1000 syrk 0.93 ms, block columns of 256 0.77, of 512 0.88, one whole gemm 1.12; n = 2048 syrk
/// 2.28, blocks of 256 2.62, gemm 4.45; n = 8192 syrk 36.1, gemm 68.2 (cuBLAS's syrk runs at its gemm's rate there).
constexpr int kGramSyrkOrder = 2048;
constexpr int kGramWideBlock = 256;
template <typename T>
void gram_cuda_into(const gpu::WorkerStream& ws, CudaWorkerContext& c, const Tile& X, const Tile& W) {
    const int n = X.cols, depth = X.rows, bc = (n + 127) / 128, lower = bc * (bc + 1) / 2;
    const size_t nn = static_cast<size_t>(n) * n;
    int chunks = std::min(std::max(1, kChunkBlocks / lower), std::max(1, depth / kChunkMinDepth));
    if ((chunks + 1) * nn * sizeof(T) > c.work_bytes) chunks = 1;
    const T* x = ptr<T>(X);
    auto* P = static_cast<T*>(c.work);  // chunks partials, then the rest's
    if (chunks == 1 && 2 * nn * sizeof(T) > c.work_bytes) {  // no room for the lower triangle apart
        ok(gpu::gemm(ws.cublas, Op::Trans, Op::NoTrans, n, n, depth, T(1), x, X.ld, x, X.ld, T(0), ptr<T>(W), W.ld),
           "gemm");
        return;
    }
    if (chunks == 1) {  // enough result blocks for the whole GPU: the lower triangle alone, then mirrored
        if (n >= kGramSyrkOrder)
            ok(gpu::syrk(ws.cublas, Uplo::Lower, Op::Trans, n, depth, T(1), x, X.ld, T(0), P, n), "syrk");
        else
            for (int j = 0; j < n; j += kGramWideBlock) {
                const int w = std::min(kGramWideBlock, n - j);
                ok(gpu::gemm(ws.cublas, Op::Trans, Op::NoTrans, n - j, w, depth, T(1), x + at(0, j, X.ld), X.ld,
                             x + at(0, j, X.ld), X.ld, T(0), P + at(j, j, n), n),
                   "gemm");
            }
        gpu::launch_cholqr_sum(P, 1, n, n, ptr<T>(W), W.ld, false, true, ws.stream);
        return;
    }
    const int len = depth / chunks, rest = depth - chunks * len;
    for (int j = 0; j < n; j += 128) {
        const int w = std::min(128, n - j), h = n - j;
        const T* Xj = x + at(0, j, X.ld);
        ok(gpu::gemm_strided_batched(ws.cublas, Op::Trans, Op::NoTrans, h, w, len, T(1), Xj, X.ld, len, Xj, X.ld, len,
                                     T(0), P + at(j, j, n), n, static_cast<long long>(nn), chunks),
           "gemm (strided batched)");
        if (rest > 0)
            ok(gpu::gemm(ws.cublas, Op::Trans, Op::NoTrans, h, w, rest, T(1), Xj + chunks * len, X.ld,
                         Xj + chunks * len, X.ld, T(0), P + chunks * nn + at(j, j, n), n),
               "gemm");
    }
    gpu::launch_cholqr_sum(P, chunks + (rest > 0 ? 1 : 0), n, n, ptr<T>(W), W.ld, false, true, ws.stream);
}

/// The TF32 Gram matrix of a double tile (CholqrArgs::low): X rounded to float in a stream-ordered buffer, float
/// partial products over row chunks (enough of them for about two 128 x 128 result blocks per SM of an H200) by
/// cuBLAS's TF32 tensor-core gemm with float accumulation, summed in double. Waits for the stream once (the range
/// check). false (W untouched): no memory for the buffer, or an entry out of tf32_range (the caller's double Gram).
bool gram_low_cuda(const gpu::WorkerStream& ws, const Tile& X, const Tile& W) {
    const int n = X.cols, rows = X.rows, blocks = ((n + 127) / 128) * ((n + 127) / 128);
    const int chunks = std::max(1, std::min((264 + blocks - 1) / blocks, rows / 4096));
    const int len = rows / chunks, rest = rows - chunks * len, count = chunks + (rest > 0 ? 1 : 0);
    const size_t nn = static_cast<size_t>(n) * n, copy = (static_cast<size_t>(rows) * n * sizeof(float) + 255) / 256 * 256;
    int device = 0;
    ok(cudaGetDevice(&device), "cudaGetDevice");
    static std::atomic<uint64_t> kept{0};  // the devices whose pool keeps these buffers between tasks
    if (device < 64 && !(kept.load() & (uint64_t(1) << device))) {
        cudaMemPool_t pool;
        uint64_t keep = uint64_t(4) << 30;
        if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess)
            cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
        kept.fetch_or(uint64_t(1) << device);
    }
    char* buffer = nullptr;
    if (cudaMallocAsync(reinterpret_cast<void**>(&buffer), copy + count * nn * sizeof(float) + sizeof(int),
                        ws.stream) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    auto* xf = reinterpret_cast<float*>(buffer);
    auto* P = reinterpret_cast<float*>(buffer + copy);
    auto* flag = reinterpret_cast<int*>(P + count * nn);
    int out = 0;
    ok(cudaMemsetAsync(flag, 0, sizeof(int), ws.stream), "cudaMemsetAsync");
    gpu::launch_cholqr_to_float(ptr<double>(X), X.ld, rows, n, xf, kTf32Exponent, flag, ws.stream);
    ok(cudaMemcpyAsync(&out, flag, sizeof(int), cudaMemcpyDeviceToHost, ws.stream), "cudaMemcpyAsync");
    ok(cudaStreamSynchronize(ws.stream), "cudaStreamSynchronize");
    if (out == 0) {
        const float one = 1, zero = 0;
        if (cublasGemmStridedBatchedEx(ws.cublas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, len, &one, xf, CUDA_R_32F, rows, len,
                                       xf, CUDA_R_32F, rows, len, &zero, P, CUDA_R_32F, n,
                                       static_cast<long long>(nn), chunks, CUBLAS_COMPUTE_32F_FAST_TF32,
                                       CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
            STARPU_ABORT_MSG("starfact: cholqr: cublasGemmStridedBatchedEx (TF32) failed");
        if (rest > 0 &&
            cublasGemmEx(ws.cublas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, rest, &one, xf + static_cast<size_t>(chunks) * len,
                         CUDA_R_32F, rows, xf + static_cast<size_t>(chunks) * len, CUDA_R_32F, rows, &zero,
                         P + chunks * nn, CUDA_R_32F, n, CUBLAS_COMPUTE_32F_FAST_TF32,
                         CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
            STARPU_ABORT_MSG("starfact: cholqr: cublasGemmEx (TF32) failed");
        gpu::launch_cholqr_sum_widen(P, count, n, ptr<double>(W), W.ld, ws.stream);
    }
    ok(cudaFreeAsync(buffer, ws.stream), "cudaFreeAsync");
    return out == 0;
}

template <typename T>
void gram_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    if constexpr (std::is_same<T, double>::value)
        if (a->low && gram_low_cuda(ws, tile<T>(buffers, a, 0), tile(buffers[1]))) return;
    gram_cuda_into<T>(ws, a->cuda->local(), tile<T>(buffers, a, 0), tile(buffers[1]));
}

/// X := X V for the upper triangular V (exact zeros below its diagonal: the inverses' solves against the identity
/// leave them), in place, as gemms: block columns J of kSolveBlock from the last, X(:, J) := X(:, 0:end(J))
/// V(0:end(J), J) into the worker's scratch, then copied back (cuBLAS's trmm on these tall tiles ran at about a fifth
/// of its gemm's rate, docs/qr.md). 1.5 m n^2 flops at n = 2 blocks, 1.25 at 4, against trmm's m n^2; blocks of
/// 256 (fewer, wider gemms, more flops) measured slower on the H200 (2^20 x 256: 0.0192 s against 0.0176).
constexpr int kSolveBlock = 128;
template <typename T>
size_t solve_scratch_bytes(int rows) {
    return static_cast<size_t>(rows) * kSolveBlock * sizeof(T);
}

/// Double columns of up to kTrmmKernelCols columns and at least kTrmmKernelRows rows take the in-place tensor-core
/// kernel instead (kernels/qr/cholqr_trmm.hpp: no scratch, no copies, m n^2 flops): one H200, `bench_cholqr_trmm`,
/// 1.7x the gemms and copies at 65536 x 256 and 2^20 x 256, 1.2x at 262144 x 512, 0.94x at 131072 x 1024; below
/// 32768 rows (256 thread blocks) it leaves multiprocessors idle. STARFACT_QR_TRMM=off keeps the gemms (A/B runs).
constexpr int kTrmmKernelCols = 512, kTrmmKernelRows = 32768;
bool trmm_kernel_for(int rows, int n) {
    static const bool off = [] {
        const char* e = std::getenv("STARFACT_QR_TRMM");
        return e && std::string(e) == "off";
    }();
    return !off && n <= kTrmmKernelCols && rows >= kTrmmKernelRows;
}

template <typename T>
void solve_cuda_into(const gpu::WorkerStream& ws, CudaWorkerContext& c, const Tile& V, const Tile& X) {
    const int rows = X.rows, n = X.cols;
    T* x = ptr<T>(X);
    if constexpr (std::is_same<T, double>::value) {
        if (trmm_kernel_for(rows, n)) {
            gpu::launch_cholqr_trmm_inplace(x, X.ld, rows, n, ptr<T>(V), V.ld, ws.stream);
            return;
        }
    }
    if (solve_scratch_bytes<T>(rows) > c.scratch_bytes) {  // not reserved for tiles this tall
        ok(gpu::trmm(ws.cublas, Side::Right, Uplo::Upper, Op::NoTrans, Diag::NonUnit, rows, n, T(1), ptr<T>(V), V.ld,
                     x, X.ld, x, X.ld),
           "trmm");
        return;
    }
    auto* scratch = static_cast<T*>(c.scratch);
    for (int j = ((n - 1) / kSolveBlock) * kSolveBlock; j >= 0; j -= kSolveBlock) {
        const int w = std::min(kSolveBlock, n - j);
        ok(gpu::gemm(ws.cublas, Op::NoTrans, Op::NoTrans, rows, w, j + w, T(1), x, X.ld, ptr<T>(V) + at(0, j, V.ld),
                     V.ld, T(0), scratch, rows),
           "gemm");
        copy_async(rows, w, scratch, rows, x + at(0, j, X.ld), X.ld, ws.stream);
    }
}

template <typename T>
void solve_gram_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    if (skipped(a)) return;
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile V = tile(buffers[0]), X = tile<T>(buffers, a, 1), W = tile(buffers[2]);
    solve_cuda_into<T>(ws, a->cuda->local(), V, X);
    gram_cuda_into<T>(ws, a->cuda->local(), X, W);
}

template <typename T>
void solve_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, false);
    solve_cuda_into<T>(ws, a->cuda->local(), tile(buffers[0]), tile<T>(buffers, a, 1));
}

template <typename T>
void add_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    if (skipped(a)) return;
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile Wp = tile(buffers[0]);
    for (int k = 1; k <= a->inputs; ++k) {
        const Tile Wi = tile(buffers[k]);
        ok(gpu::geam(ws.cublas, Wp.rows, Wp.cols, T(1), ptr<T>(Wp), Wp.ld, T(1), ptr<T>(Wi), Wi.ld, ptr<T>(Wp), Wp.ld),
           "geam");
    }
}

template <typename T>
double trace_cuda(const gpu::WorkerStream& ws, CudaWorkerContext& c, const T* G, int ld, int n) {
    auto* out = static_cast<double*>(c.work);
    gpu::launch_cholqr_trace(G, ld, n, out, ws.stream);
    return read_back(out, ws.stream);
}

/// identity_distance of the n x n G (cholqr_impl.hpp), measured on the device.
template <typename T>
double identity_distance_cuda(const gpu::WorkerStream& ws, CudaWorkerContext& c, const T* G, int ld, int n) {
    auto* out = static_cast<double*>(c.work);
    gpu::launch_cholqr_identity_distance(G, ld, n, out, ws.stream);
    double host[2];
    ok(cudaMemcpyAsync(host, out, sizeof(host), cudaMemcpyDeviceToHost, ws.stream), "cudaMemcpyAsync");
    ok(cudaStreamSynchronize(ws.stream), "cudaStreamSynchronize");
    return identity_distance(host[0], host[1]);
}

/// The power method's estimate of ||G - I||_2 for the n x n symmetric G (cholqr_impl.hpp: kPowerIterations), on the
/// device: y := G x - x by cuBLAS gemv, its norm read back each step. NaN when a product is not finite.
template <typename T>
double spectral_distance_cuda(const gpu::WorkerStream& ws, CudaWorkerContext& c, const T* G, int ld, int n) {
    if (kScalarBytes + 2 * static_cast<size_t>(n) * sizeof(T) > c.work_bytes)
        STARPU_ABORT_MSG("cholqr workspace too small for the power method");
    T* x = reinterpret_cast<T*>(static_cast<char*>(c.work) + kScalarBytes);
    T* y = x + n;
    const std::vector<T> start = power_start<T>(n);
    ok(cudaMemcpyAsync(x, start.data(), start.size() * sizeof(T), cudaMemcpyHostToDevice, ws.stream), "cudaMemcpyAsync");
    double estimate = 0;
    for (int it = 0; it < kPowerIterations; ++it) {
        ok(cudaMemcpyAsync(y, x, static_cast<size_t>(n) * sizeof(T), cudaMemcpyDeviceToDevice, ws.stream),
           "cudaMemcpyAsync");
        ok(gpu::gemv(ws.cublas, Op::NoTrans, n, n, T(1), G, ld, x, T(-1), y), "gemv");
        T norm = 0;
        ok(gpu::nrm2(ws.cublas, n, y, &norm), "nrm2");  // waits for the stream (host pointer mode)
        if (!std::isfinite(static_cast<double>(norm))) return std::numeric_limits<double>::quiet_NaN();
        const double previous = estimate;
        estimate = static_cast<double>(norm);
        if (norm == T(0)) break;
        ok(gpu::scal(ws.cublas, n, T(1) / norm, y), "scal");
        std::swap(x, y);
        if (it > 2 && std::abs(estimate - previous) <= kPowerTolerance * estimate) break;
    }
    return estimate;
}

/// cholesky_cpu on the device: 0 or the failing column.
template <typename T>
int cholesky_cuda(const gpu::WorkerStream& ws, CudaWorkerContext& c, const Tile& G, const Tile& L, double s) {
    const int n = G.cols;
    T* l = ptr<T>(L);
    copy_async(n, n, ptr<T>(G), G.ld, l, L.ld, ws.stream);
    gpu::launch_zero_upper(l, n, L.ld, ws.stream);
    if (s != 0) gpu::launch_cholqr_add_diag(l, L.ld, n, static_cast<T>(s), ws.stream);
    int lwork = 0;
    if (gpu::potrf_buffer_size(c.solver, n, l, L.ld, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>potrf_bufferSize failed");
    if (static_cast<size_t>(lwork) * sizeof(T) + kScalarBytes > c.work_bytes)
        STARPU_ABORT_MSG("cholqr workspace too small: reserve_cholqr_workspace was not called");
    auto* work = reinterpret_cast<T*>(static_cast<char*>(c.work) + kScalarBytes);
    if (gpu::potrf(c.solver, n, l, L.ld, work, lwork, c.dev_info) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>potrf failed");
    const int info = read_back(c.dev_info, ws.stream);
    if (info > 0) return info;
    const double trace = trace_cuda<T>(ws, c, l, L.ld, n);  // a NaN or infinite diagonal fails too
    return std::isfinite(trace) ? 0 : 1;
}

/// *info := column if it was 0 (device), and the breakdown recorded; waits for the stream.
void report_cuda(const CholqrArgs* a, CudaWorkerContext& c, const gpu::WorkerStream& ws, int* info, QrBreakdown why,
                 int column) {
    column += a->first_column;
    ok(cudaMemcpyAsync(c.dev_info, &column, sizeof(int), cudaMemcpyHostToDevice, ws.stream), "cudaMemcpyAsync");
    gpu::launch_merge_info(c.dev_info, info, 0, ws.stream);
    ok(cudaStreamSynchronize(ws.stream), "cudaStreamSynchronize");  // `column` is on this stack frame
    a->passes->status->record(why, column);
}

template <typename T>
void potrf_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const CholqrArgs*>(cl_arg);
    if (a->check && skipped(a)) return;
    CudaWorkerContext& c = a->cuda->local();
    const gpu::WorkerStream ws(a->cuda, false);
    const Tile G = tile(buffers[0]), L = tile(buffers[1]), V = tile(buffers[2]);
    int* info = info_of(buffers[3]);
    const int n = G.cols;
    double base = 0, s = 0;
    int breakdown = 0;
    QrBreakdown why = QrBreakdown::None;
    if (a->shift) {  // the first pass: A^T A itself is checked
        std::vector<T> diagonal(static_cast<size_t>(n));
        read_diagonal(ws, ptr<T>(G), G.ld, n, diagonal.data());
        double trace = 0;
        why = check_gram<T>(diagonal.data(), n, &trace, &breakdown);
        s = base = base_shift<T>(a->m, n, trace);
        if (a->low) {  // TF32's first pass: a shift of kTf32Unit^2 max G(j, j) first (kTf32Unit)
            base = low_base_shift(diagonal.data(), n);
            s = base * kTf32Unit;
        }
    }
    const double distance =
        a->check || a->decide ? identity_distance_cuda<T>(ws, c, ptr<T>(G), G.ld, n) : 0.0;
    if (a->check && !(distance <= kIdentityDistance)) a->passes->unorthogonal.store(true);
    int failed = cholesky_cuda<T>(ws, c, G, L, s);
    if (a->shift && a->low && failed > 0 && breakdown == 0) failed = cholesky_cuda<T>(ws, c, G, L, s = base);
    if (failed > 0 && breakdown == 0) {
        breakdown = failed;
        why = QrBreakdown::RankDeficient;
        if (a->passes && a->passes->low && (a->shift || a->decide)) {  // beyond the TF32 first pass's range: the
            a->passes->low_failed.store(true, std::memory_order_release);  // blocking form starts over in double
            breakdown = 0;
            why = QrBreakdown::None;
        }
    }
    if (failed > 0 && !a->shift) base = base_shift<T>(a->m, n, trace_cuda<T>(ws, c, ptr<T>(G), G.ld, n));
    for (int r = 0; failed > 0 && r < kShiftRetries; ++r) failed = cholesky_cuda<T>(ws, c, G, L, s = next_shift(s, base));
    if (failed > 0) gpu::launch_qr_laset(ptr<T>(L), L.ld, n, n, 0, ws.stream);
    inverse_cuda(ws, n, Uplo::Lower, Op::Trans, ptr<T>(L), L.ld, ptr<T>(V), V.ld);
    if (breakdown > 0) report_cuda(a, c, ws, info, why, breakdown);
    if (a->decide && breakdown == 0 &&
        (distance <= kSkipDistance ||
         (std::isfinite(distance) && spectral_distance_cuda<T>(ws, c, ptr<T>(G), G.ld, n) <= kSkipDistance)))
        a->passes->count.store(2, std::memory_order_release);
}

template <typename T>
size_t panel_cholqr_bytes(cusolverDnHandle_t solver, int M, int w) {
    const size_t ww = static_cast<size_t>(w) * w, work = (cholqr_workspace<T>(solver, w).device + 255) / 256 * 256,
                 scratch = (solve_scratch_bytes<T>(M) + 255) / 256 * 256;
    return work + scratch + (7 * ww + w) * sizeof(T) + 256;
}

/// The panel tree's panel by the Cholesky QR (codelets/cholqr_panel.hpp): the passes of submit_cholqr_dag and the
/// reconstruction on one contiguous M x w matrix, on one stream, in a workspace of its own (the panel may run on the
/// worker's urgent stream beside tasks that use the worker's buffers). No memory for that workspace, every breakdown,
/// the rank check and a last pass that does not orthogonalise make it return false, without a report: the caller
/// factors the panel again by Householder.
template <typename T>
bool panel_cholqr_cuda(const gpu::WorkerStream& ws, const CudaWorkerContext& worker, T* P, int M, int w, T* Tm,
                       int ldt, void* space) {
    const size_t ww = static_cast<size_t>(w) * w, work = (cholqr_workspace<T>(worker.solver, w).device + 255) / 256 * 256,
                 scratch = (solve_scratch_bytes<T>(M) + 255) / 256 * 256;
    char* base = static_cast<char*>(space);
    // without the memory (StarPU keeps most of the device's for its data), the caller's Householder leaf
    if (!base && cudaMallocAsync(reinterpret_cast<void**>(&base), panel_cholqr_bytes<T>(worker.solver, M, w),
                                 ws.stream) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    CudaWorkerContext c = worker;
    c.work = base;
    c.work_bytes = work;
    c.scratch = base + work;
    c.scratch_bytes = scratch;
    T* small = reinterpret_cast<T*>(base + work + scratch);
    c.dev_info = reinterpret_cast<int*>(small + 7 * ww + w);
    auto square = [&](int i) { return Tile{small + i * ww, w, w, w}; };
    const Tile X{P, M, w, M}, G = square(0), L1 = square(1), L2 = square(2), L3 = square(3), V = square(4),
               RY = square(5), Xs{small + 6 * ww, w, w + 1, w};
    auto factor = [&] {
        gram_cuda_into<T>(ws, c, X, G);
        std::vector<T> diagonal(static_cast<size_t>(w));
        read_diagonal(ws, ptr<T>(G), G.ld, w, diagonal.data());
        double trace = 0;
        int column = 0;
        if (check_gram<T>(diagonal.data(), w, &trace, &column) != QrBreakdown::None) return false;
        if (cholesky_cuda<T>(ws, c, G, L1, base_shift<T>(M, w, trace)) > 0) return false;
        inverse_cuda(ws, w, Uplo::Lower, Op::Trans, ptr<T>(L1), L1.ld, ptr<T>(V), V.ld);
        solve_cuda_into<T>(ws, c, V, X);
        gram_cuda_into<T>(ws, c, X, G);
        const double distance = identity_distance_cuda<T>(ws, c, ptr<T>(G), G.ld, w);
        if (!std::isfinite(distance) || cholesky_cuda<T>(ws, c, G, L2, 0) > 0) return false;
        const bool two = distance <= kSkipDistance || spectral_distance_cuda<T>(ws, c, ptr<T>(G), G.ld, w) <= kSkipDistance;
        inverse_cuda(ws, w, Uplo::Lower, Op::Trans, ptr<T>(L2), L2.ld, ptr<T>(V), V.ld);
        if (!two) {
            solve_cuda_into<T>(ws, c, V, X);
            gram_cuda_into<T>(ws, c, X, G);
            if (!(identity_distance_cuda<T>(ws, c, ptr<T>(G), G.ld, w) <= kIdentityDistance)) return false;
            if (cholesky_cuda<T>(ws, c, G, L3, 0) > 0) return false;
        }
        const Tile top{P, w, w, M}, Tt{Tm, w, w, ldt};
        if (reconstruct_cuda<T>(ws, top, L1, L2, two ? L2 : L3, !two, Tt, V, RY, Xs, false) > 0) return false;
        solve_cuda_into<T>(ws, c, V, X);  // Y := Q M^-1
        copy_async(w, w, ptr<T>(RY), RY.ld, P, M, ws.stream);
        return true;
    };
    const bool done = factor();
    if (!space) ok(cudaFreeAsync(base, ws.stream), "cudaFreeAsync(panel)");
    return done;
}
template <typename T>
Workspace cholqr_workspace(cusolverDnHandle_t h, int n) {
    int lwork = 0;
    if (gpu::potrf_buffer_size(h, n, static_cast<T*>(nullptr), n, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>potrf_bufferSize failed");
    Workspace w;
    // The Gram's partials: chunks + 1 of n x n, chunks <= kChunkBlocks / (b (b + 1) / 2) for b = ceil(n / 128).
    const size_t b = static_cast<size_t>((n + 127) / 128), nn = static_cast<size_t>(n) * n;
    const size_t gram = (std::max<size_t>(1, kChunkBlocks / (b * (b + 1) / 2)) + 1) * nn * sizeof(T);
    w.device = std::max({kScalarBytes + static_cast<size_t>(lwork + 1) * sizeof(T), partials_bytes<T>(), gram});
    return w;
}

/// The scratch of the solves over tiles of `rows` rows.
template <typename T>
Workspace cholqr_scratch(cusolverDnHandle_t, int rows) {
    Workspace w;
    w.scratch = solve_scratch_bytes<T>(rows);
    return w;
}

#define STARFACT_CHOLQR_CUDA(T)                                    \
    template void gram_cuda<T>(void*[], void*);                    \
    template void solve_gram_cuda<T>(void*[], void*);              \
    template void solve_cuda<T>(void*[], void*);                   \
    template void add_cuda<T>(void*[], void*);                     \
    template void potrf_cuda<T>(void*[], void*);                   \
    template bool panel_cholqr_cuda<T>(const gpu::WorkerStream&, const CudaWorkerContext&, T*, int, int, T*, int, \
                                       void*);                                                                  \
    template size_t panel_cholqr_bytes<T>(cusolverDnHandle_t, int, int);                                          \
    template Workspace cholqr_workspace<T>(cusolverDnHandle_t, int); \
    template Workspace cholqr_scratch<T>(cusolverDnHandle_t, int);
STARFACT_CHOLQR_CUDA(float)
STARFACT_CHOLQR_CUDA(double)
#undef STARFACT_CHOLQR_CUDA
// The panel tree's updates (block reflectors applied by ytc, tmul, update and their sums) serve complex tiles too.
template void add_cuda<std::complex<float>>(void*[], void*);
template void add_cuda<std::complex<double>>(void*[], void*);
template Workspace cholqr_workspace<std::complex<float>>(cusolverDnHandle_t, int);
template Workspace cholqr_workspace<std::complex<double>>(cusolverDnHandle_t, int);
template Workspace cholqr_scratch<std::complex<float>>(cusolverDnHandle_t, int);
template Workspace cholqr_scratch<std::complex<double>>(cusolverDnHandle_t, int);

}  // namespace starfact::detail::cholqr
#endif

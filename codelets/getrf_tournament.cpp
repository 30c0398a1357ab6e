// The panel of a tile-LU step by tournament pivoting (CALU: Grigori, Demmel, Xiang, "CALU: a communication optimal
// LU factorization algorithm", SIAM J. Matrix Anal. Appl. 32(4), 2011): each leaf of the tile column picks the kb rows
// that partial pivoting would take as pivots among its own rows, pairs of candidate sets are reduced the same way up
// a tree, and the winners become the step's pivots (algorithms/lu_tournament.hpp submits the tree).
//   getrf_select:  buffers 0 = candidate rows (W, kb x kb), 1 = their global rows (W, vector of kb ints, 0-based, -1
//                  past the count), 2 .. = the leaf's tiles (R): tiles first, first + stride, ... of the column
//   getrf_merge:   0, 1 = candidates a (RW: the winners of a and b replace them), 2, 3 = candidates b (R)
//   getrf_winners: 0 = the winners' global rows (R), 1 = the step's pivots (W: LAPACK's sequential interchanges,
//                  global and 1-based, the first at global row `offset`)
// A candidate set holds the candidates' original values (not their factored ones): the tree's next level factors them
// afresh. CPU: LAPACK's getrf on a stacked copy. CUDA: the stack in the worker's scratch, cuSOLVER's getrf on a second
// copy of it, its pivots read back, the picked rows gathered from the first (kernels/lu/gather_rows.cu).
#include <algorithm>
#include <complex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "codelets/lu_codelets.hpp"
#include "kernels/cpu_blas.hpp"
#include "kernels/cuda_blas.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {

std::vector<int> tournament_pivots(const int* winners, int kb, int64_t offset) {
    std::unordered_map<int64_t, int64_t> at, where;  // position -> original row there; original row -> position
    auto row_at = [&](int64_t p) { const auto i = at.find(p); return i == at.end() ? p : i->second; };
    auto position = [&](int64_t r) { const auto i = where.find(r); return i == where.end() ? r : i->second; };
    std::vector<int> piv(static_cast<size_t>(kb));
    for (int i = 0; i < kb; ++i) {
        const int64_t r = winners[i], p = position(r), top = offset + i, displaced = row_at(top);
        piv[static_cast<size_t>(i)] = static_cast<int>(p + 1);
        at[top] = r;
        where[r] = top;
        at[p] = displaced;
        where[displaced] = p;
    }
    return piv;
}

namespace {

struct TournamentArgs {
    int64_t nb;          // rows of every tile but the last
    int64_t first;       // select: the leaf's first tile (its index in the tile column's matrix)
    int64_t stride;      // select: tiles between the leaf's tiles
    int count;           // select: the leaf's tiles
    int64_t offset;      // winners: global row of the step's first row
    bool urgent;         // CUDA: the worker's highest-priority stream
    CudaContexts* cuda;  // per-worker handles and workspaces (CUDA implementation)
};

/// The rows of the h x w stack (0-based) that partial pivoting takes as its first min(h, w) pivots, in order, from
/// LAPACK-style pivots of the stack (1-based, sequential).
std::vector<int> picked_rows(const int* ipiv, int h, int w) {
    const int picks = std::min(h, w);
    std::vector<int> perm(static_cast<size_t>(h));
    for (int i = 0; i < h; ++i) perm[static_cast<size_t>(i)] = i;
    for (int i = 0; i < picks; ++i) std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(ipiv[i] - 1)]);
    perm.resize(static_cast<size_t>(picks));
    return perm;
}

/// Valid entries of a candidate set's global rows (they come first).
int valid(const int* rows, int kb) {
    int v = 0;
    while (v < kb && rows[v] >= 0) ++v;
    return v;
}

/// A candidate set's rows (kb) and columns (w) from its buffers (0: the rows, 1: their global rows).
std::pair<int, int> set_shape(void* buffers[]) {
    return {static_cast<int>(STARPU_VECTOR_GET_NX(buffers[1])), static_cast<int>(STARPU_MATRIX_GET_NY(buffers[0]))};
}

/// The global rows of a leaf's stacked tiles.
std::vector<int> leaf_rows(void* buffers[], const TournamentArgs* a) {
    std::vector<int> rows;
    for (int i = 0; i < a->count; ++i) {
        const int m = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[2 + i]));
        const int64_t first = (a->first + i * a->stride) * a->nb;
        for (int r = 0; r < m; ++r) rows.push_back(static_cast<int>(first + r));
    }
    return rows;
}

/// Writes the picked rows of the h x w stack S (ld h) and their global rows into a candidate set (-1 past them).
template <typename T>
void write_candidates(const T* S, int h, int w, const std::vector<int>& picked, const std::vector<int>& global,
                      T* out, int64_t ldo, int* out_rows, int kb) {
    for (int c = 0; c < w; ++c)
        for (size_t r = 0; r < picked.size(); ++r)
            out[static_cast<int64_t>(r) + c * ldo] = S[picked[r] + static_cast<int64_t>(c) * h];
    for (int r = 0; r < kb; ++r)
        out_rows[r] = r < static_cast<int>(picked.size()) ? global[static_cast<size_t>(picked[static_cast<size_t>(r)])]
                                                           : -1;
}

/// Partial pivoting's picks among the rows of the h x w stack S (LAPACK's getrf on a copy).
template <typename T>
std::vector<int> pick_cpu(const std::vector<T>& S, int h, int w) {
    std::vector<T> F(S);
    std::vector<lapack_int> ipiv(static_cast<size_t>(std::min(h, w)));
    cpu::getrf(h, w, F.data(), h, ipiv.data());  // a zero pivot still picks a row: the step's getrf reports it
    std::vector<int> ip(ipiv.begin(), ipiv.end());
    return picked_rows(ip.data(), h, w);
}

template <typename T>
void select_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TournamentArgs*>(cl_arg);
    const auto [kb, w] = set_shape(buffers);
    const std::vector<int> global = leaf_rows(buffers, a);
    const int h = static_cast<int>(global.size());
    std::vector<T> S(static_cast<size_t>(h) * w);
    int r0 = 0;
    for (int i = 0; i < a->count; ++i) {
        const T* tile = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[2 + i]));
        const int m = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[2 + i]));
        const int64_t ld = STARPU_MATRIX_GET_LD(buffers[2 + i]);
        for (int c = 0; c < w; ++c)
            std::copy(tile + c * ld, tile + c * ld + m, S.data() + r0 + static_cast<int64_t>(c) * h);
        r0 += m;
    }
    write_candidates(S.data(), h, w, pick_cpu(S, h, w), global, reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0])),
                     STARPU_MATRIX_GET_LD(buffers[0]), reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[1])), kb);
}

template <typename T>
void merge_cpu(void* buffers[], void*) {
    const auto [kb, w] = set_shape(buffers);
    int* rows_a = reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[1]));
    const int* rows_b = reinterpret_cast<const int*>(STARPU_VECTOR_GET_PTR(buffers[3]));
    const int va = valid(rows_a, kb), vb = valid(rows_b, kb), h = va + vb;
    std::vector<T> S(static_cast<size_t>(h) * w);
    std::vector<int> global(rows_a, rows_a + va);
    global.insert(global.end(), rows_b, rows_b + vb);
    T* A = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    const T* B = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[2]));
    const int64_t lda = STARPU_MATRIX_GET_LD(buffers[0]), ldb = STARPU_MATRIX_GET_LD(buffers[2]);
    for (int c = 0; c < w; ++c) {
        std::copy(A + c * lda, A + c * lda + va, S.data() + static_cast<int64_t>(c) * h);
        std::copy(B + c * ldb, B + c * ldb + vb, S.data() + static_cast<int64_t>(c) * h + va);
    }
    write_candidates(S.data(), h, w, pick_cpu(S, h, w), global, A, lda, rows_a, kb);
}

void winners_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TournamentArgs*>(cl_arg);
    const int kb = static_cast<int>(STARPU_VECTOR_GET_NX(buffers[1]));
    const std::vector<int> piv =
        tournament_pivots(reinterpret_cast<const int*>(STARPU_VECTOR_GET_PTR(buffers[0])), kb, a->offset);
    std::copy(piv.begin(), piv.end(), reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[1])));
}

#ifdef STARFACT_HAVE_CUDA
constexpr size_t kAlign = 256;
size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

void ok(cudaError_t e, const char* what) {
    if (e != cudaSuccess) STARPU_ABORT_MSG("getrf tournament: %s failed: %s", what, cudaGetErrorString(e));
}

/// The worker's scratch as the tournament uses it for a stack of h x w: the stack S, its copy F (factored) and the
/// picked rows' indices.
template <typename T>
struct Stack {
    T* S;
    T* F;
    int* picked;
};
template <typename T>
size_t stack_bytes(int64_t h, int64_t w) {
    return 2 * aligned(static_cast<size_t>(h * w) * sizeof(T)) + aligned(static_cast<size_t>(h) * sizeof(int));
}
template <typename T>
Stack<T> stack_in(const CudaWorkerContext& c, int h, int w) {
    if (stack_bytes<T>(h, w) > c.scratch_bytes)
        STARPU_ABORT_MSG("getrf tournament scratch too small: reserve_getrf_tournament_workspace was not called");
    char* p = static_cast<char*>(c.scratch);
    const size_t part = aligned(static_cast<size_t>(h) * w * sizeof(T));
    return {reinterpret_cast<T*>(p), reinterpret_cast<T*>(p + part), reinterpret_cast<int*>(p + 2 * part)};
}

/// Factors F := S (h x w, ld h) with cuSOLVER's getrf on stream s and returns the rows partial pivoting picked (read
/// back: waits for the stream).
template <typename T>
std::vector<int> pick_cuda(CudaWorkerContext& c, cudaStream_t s, const Stack<T>& st, int h, int w) {
    struct SolverStream {  // cuSOLVER's handle is bound to the worker's stream: moved to s for this task only
        cusolverDnHandle_t h;
        cudaStream_t home;
        ~SolverStream() { cusolverDnSetStream(h, home); }
    } bind{c.solver, c.stream};
    if (cusolverDnSetStream(c.solver, s) != CUSOLVER_STATUS_SUCCESS) STARPU_ABORT_MSG("cusolverDnSetStream failed");
    ok(cudaMemcpyAsync(st.F, st.S, static_cast<size_t>(h) * w * sizeof(T), cudaMemcpyDeviceToDevice, s), "copy");
    int lwork = 0;
    if (gpu::getrf_buffer_size(c.solver, h, w, st.F, h, &lwork) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>getrf_bufferSize failed");
    const size_t work_bytes = aligned(static_cast<size_t>(lwork) * sizeof(T));
    if (work_bytes + static_cast<size_t>(h) * sizeof(int) > c.work_bytes)
        STARPU_ABORT_MSG("getrf tournament workspace too small: reserve_getrf_tournament_workspace was not called");
    int* dev_ipiv = reinterpret_cast<int*>(static_cast<char*>(c.work) + work_bytes);
    if (gpu::getrf(c.solver, h, w, st.F, h, static_cast<T*>(c.work), dev_ipiv, c.dev_info) != CUSOLVER_STATUS_SUCCESS)
        STARPU_ABORT_MSG("cusolverDn<t>getrf failed");
    std::vector<int> ipiv(static_cast<size_t>(std::min(h, w)));
    ok(cudaMemcpyAsync(ipiv.data(), dev_ipiv, ipiv.size() * sizeof(int), cudaMemcpyDeviceToHost, s), "pivots");
    ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return picked_rows(ipiv.data(), h, w);
}

/// The candidate set from the picks: rows of S gathered on the device, global rows written from the host; waits for
/// the stream (the host vectors are this frame's).
template <typename T>
void write_candidates_cuda(cudaStream_t s, const Stack<T>& st, int h, int w, const std::vector<int>& picked,
                           const std::vector<int>& global, T* out, int64_t ldo, int* out_rows, int kb) {
    std::vector<int> rows(static_cast<size_t>(kb), -1);
    for (size_t r = 0; r < picked.size(); ++r) rows[r] = global[static_cast<size_t>(picked[r])];
    ok(cudaMemcpyAsync(st.picked, picked.data(), picked.size() * sizeof(int), cudaMemcpyHostToDevice, s), "picks");
    gpu::launch_gather_rows(st.S, h, st.picked, static_cast<int>(picked.size()), w, out, ldo, sizeof(T), s);
    ok(cudaMemcpyAsync(out_rows, rows.data(), rows.size() * sizeof(int), cudaMemcpyHostToDevice, s), "rows");
    ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

template <typename T>
void select_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TournamentArgs*>(cl_arg);
    CudaWorkerContext& c = a->cuda->local();
    const gpu::WorkerStream ws(a->cuda, a->urgent);
    const auto [kb, w] = set_shape(buffers);
    const std::vector<int> global = leaf_rows(buffers, a);
    const int h = static_cast<int>(global.size());
    const Stack<T> st = stack_in<T>(c, h, w);
    int r0 = 0;
    for (int i = 0; i < a->count; ++i) {
        const int m = static_cast<int>(STARPU_MATRIX_GET_NX(buffers[2 + i]));
        const T* tile = reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[2 + i]));
        ok(cudaMemcpy2DAsync(st.S + r0, sizeof(T) * h, tile, sizeof(T) * STARPU_MATRIX_GET_LD(buffers[2 + i]),
                             sizeof(T) * m, w, cudaMemcpyDeviceToDevice, ws.stream),
           "stack");
        r0 += m;
    }
    write_candidates_cuda(ws.stream, st, h, w, pick_cuda(c, ws.stream, st, h, w), global,
                          reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0])), STARPU_MATRIX_GET_LD(buffers[0]),
                          reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[1])), kb);
}

template <typename T>
void merge_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TournamentArgs*>(cl_arg);
    CudaWorkerContext& c = a->cuda->local();
    const gpu::WorkerStream ws(a->cuda, a->urgent);
    const auto [kb, w] = set_shape(buffers);
    std::vector<int> rows_a(static_cast<size_t>(kb)), rows_b(rows_a.size());
    ok(cudaMemcpyAsync(rows_a.data(), reinterpret_cast<const int*>(STARPU_VECTOR_GET_PTR(buffers[1])),
                       rows_a.size() * sizeof(int), cudaMemcpyDeviceToHost, ws.stream), "rows");
    ok(cudaMemcpyAsync(rows_b.data(), reinterpret_cast<const int*>(STARPU_VECTOR_GET_PTR(buffers[3])),
                       rows_b.size() * sizeof(int), cudaMemcpyDeviceToHost, ws.stream), "rows");
    ok(cudaStreamSynchronize(ws.stream), "cudaStreamSynchronize");
    const int va = valid(rows_a.data(), kb), vb = valid(rows_b.data(), kb), h = va + vb;
    std::vector<int> global(rows_a.begin(), rows_a.begin() + va);
    global.insert(global.end(), rows_b.begin(), rows_b.begin() + vb);
    const Stack<T> st = stack_in<T>(c, h, w);
    T* A = reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[0]));
    const int64_t lda = STARPU_MATRIX_GET_LD(buffers[0]);
    if (va > 0)
        ok(cudaMemcpy2DAsync(st.S, sizeof(T) * h, A, sizeof(T) * lda, sizeof(T) * va, w, cudaMemcpyDeviceToDevice,
                             ws.stream), "stack");
    if (vb > 0)
        ok(cudaMemcpy2DAsync(st.S + va, sizeof(T) * h, reinterpret_cast<const T*>(STARPU_MATRIX_GET_PTR(buffers[2])),
                             sizeof(T) * STARPU_MATRIX_GET_LD(buffers[2]), sizeof(T) * vb, w,
                             cudaMemcpyDeviceToDevice, ws.stream), "stack");
    write_candidates_cuda(ws.stream, st, h, w, pick_cuda(c, ws.stream, st, h, w), global, A, lda,
                          reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[1])), kb);
}

void winners_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const TournamentArgs*>(cl_arg);
    const gpu::WorkerStream ws(a->cuda, a->urgent);
    const int kb = static_cast<int>(STARPU_VECTOR_GET_NX(buffers[1]));
    std::vector<int> winners(static_cast<size_t>(kb));
    ok(cudaMemcpyAsync(winners.data(), reinterpret_cast<const int*>(STARPU_VECTOR_GET_PTR(buffers[0])),
                       winners.size() * sizeof(int), cudaMemcpyDeviceToHost, ws.stream), "winners");
    ok(cudaStreamSynchronize(ws.stream), "cudaStreamSynchronize");
    const std::vector<int> piv = tournament_pivots(winners.data(), kb, a->offset);
    ok(cudaMemcpyAsync(reinterpret_cast<int*>(STARPU_VECTOR_GET_PTR(buffers[1])), piv.data(), piv.size() * sizeof(int),
                       cudaMemcpyHostToDevice, ws.stream), "pivots");
    ok(cudaStreamSynchronize(ws.stream), "cudaStreamSynchronize");
}

template <typename T>
Workspace tournament_scratch_need(cusolverDnHandle_t, int units) {
    Workspace w;
    w.scratch = static_cast<size_t>(units) * 1024 * 1024;
    return w;
}
#endif

template <typename T>
void define_select(Kernel& k) {
    define_kernel(k, "getrf_select",
                  by_letter<T>("starfact_sgetrf_select", "starfact_dgetrf_select", "starfact_cgetrf_select",
                               "starfact_zgetrf_select"),
                  select_cpu<T>, STARFACT_CUDA_IMPL(select_cuda<T>), {});  // modes per task (dyn_modes)
}
template <typename T>
void define_merge(Kernel& k) {
    define_kernel(k, "getrf_merge",
                  by_letter<T>("starfact_sgetrf_merge", "starfact_dgetrf_merge", "starfact_cgetrf_merge",
                               "starfact_zgetrf_merge"),
                  merge_cpu<T>, STARFACT_CUDA_IMPL(merge_cuda<T>), {STARPU_RW, STARPU_RW, STARPU_R, STARPU_R});
}
void define_winners(Kernel& k) {
    define_kernel(k, "getrf_winners", "starfact_getrf_winners", winners_cpu, STARFACT_CUDA_IMPL(winners_cuda),
                  {STARPU_R, STARPU_W});
}

starpu_task* task_of(Kernel& k, const TournamentArgs& args) {
    starpu_task* t = starpu_task_create();
    t->cl = &k.cl;
    t->cl_arg = pack(args);
    t->cl_arg_size = sizeof(TournamentArgs);
    t->cl_arg_free = 1;
    return t;
}

}  // namespace

template <typename T>
void insert_getrf_select(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t values,
                         starpu_data_handle_t rows, const std::vector<starpu_data_handle_t>& tiles, int64_t nb,
                         int64_t first, int64_t stride) {
    const int count = static_cast<int>(tiles.size()), nbuffers = count + 2;
    starpu_task* t = task_of(kernel<define_select<T>>(rt),
                             TournamentArgs{nb, first, stride, count, 0, o.urgent, cuda_contexts(rt)});
    std::vector<starpu_data_handle_t> handles{values, rows};
    std::vector<starpu_data_access_mode> modes{STARPU_W, STARPU_W};
    double h = 0;
    for (starpu_data_handle_t tile : tiles) {
        handles.push_back(tile);
        modes.push_back(STARPU_R);
        h += tile_rows(tile);
    }
    set_dynamic_buffers(t, handles.data(), modes.data(), nbuffers);
    const double w = tile_cols(values), lo = std::min(h, w), hi = std::max(h, w);
    t->flops = flop_scale<T>() * (hi * lo * lo - lo * lo * lo / 3.0);  // an h x w getrf
    submit(t, o, "getrf_select");
}

template <typename T>
void insert_getrf_merge(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t values_a,
                        starpu_data_handle_t rows_a, starpu_data_handle_t values_b, starpu_data_handle_t rows_b) {
    starpu_task* t = task_of(kernel<define_merge<T>>(rt), TournamentArgs{0, 0, 0, 0, 0, o.urgent, cuda_contexts(rt)});
    t->handles[0] = values_a;
    t->handles[1] = rows_a;
    t->handles[2] = values_b;
    t->handles[3] = rows_b;
    const double w = tile_cols(values_a);
    t->flops = flop_scale<T>() * (2 * w * w * w - w * w * w / 3.0);
    submit(t, o, "getrf_merge");
}

void insert_getrf_winners(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t rows,
                          starpu_data_handle_t piv, int64_t offset) {
    starpu_task* t =
        task_of(kernel<define_winners>(rt), TournamentArgs{0, 0, 0, 0, offset, o.urgent, cuda_contexts(rt)});
    t->handles[0] = rows;
    t->handles[1] = piv;
    t->flops = 0;
    submit(t, o, "getrf_winners");
}

template <typename T>
void reserve_getrf_tournament_workspace(const Runtime& rt, int64_t rows, int64_t cols) {
#ifdef STARFACT_HAVE_CUDA
    if (rt.cuda_workers() == 0 || rows == 0) return;
    reserve_getrf_panel_workspace<T>(rt, rows, 0);  // cuSOLVER's getrf workspace and pivots for `rows` rows
    const size_t bytes = stack_bytes<T>(rows, cols);
    cuda_contexts(rt)->reserve(static_cast<int>((bytes + (1 << 20) - 1) >> 20), tournament_scratch_need<T>);
#else
    (void)rt;
    (void)rows;
    (void)cols;
#endif
}

#define STARFACT_TOURNAMENT(T)                                                                                      \
    template void insert_getrf_select<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,                  \
                                         starpu_data_handle_t, const std::vector<starpu_data_handle_t>&, int64_t,   \
                                         int64_t, int64_t);                                                         \
    template void insert_getrf_merge<T>(const Runtime&, const TaskOptions&, starpu_data_handle_t,                   \
                                        starpu_data_handle_t, starpu_data_handle_t, starpu_data_handle_t);          \
    template void reserve_getrf_tournament_workspace<T>(const Runtime&, int64_t, int64_t);
STARFACT_TOURNAMENT(float)
STARFACT_TOURNAMENT(double)
STARFACT_TOURNAMENT(std::complex<float>)
STARFACT_TOURNAMENT(std::complex<double>)
#undef STARFACT_TOURNAMENT

}  // namespace starfact::detail

// laswp_tile codelet: the row interchanges of one tile-LU step applied tile by tile, each task on the rank owning
// the tile it writes: the interchanges of a matrix distributed over MPI ranks, whose tile columns span several ranks
// (the one-process laswp, codelets/laswp.cpp, takes a whole tile column in one task).
//
// The interchanges of step k (row k nb + i with global row piv[i] - 1, i = 0 .. kb-1, in order) compose into one
// permutation of the tile column's rows k nb .. m-1. Its top rows (the top tile, k) receive rows from anywhere in the
// column; a row below the top tile is either left alone or receives one of the top tile's original rows (a row below
// moves up only into the top tile, and what moves down is always a top row). So one column of the step is three
// phases of tasks, none of which needs a whole tile column in one place:
//   gather  (tile t > k, on its owner):  E := the rows of tile t that end in the top tile, at their final position
//             buffers: 0 = E (W for the first tile of E in this step, then RW), 1 = A[t][j] (R), 2 = C (R)
//   spread  (tile t > k, on its owner):  the top tile's original rows that end in tile t
//             buffers: 0 = A[t][j] (RW), 1 = A[k][j] (R), 2 = C (R)
//   top     (tile k, on its owner):      the top tile's final rows, from itself and from the E buffers
//             buffers: 0 = A[k][j] (RW), 1 = C (R), 2 .. = E of the tiles k+1, k+2, ... by (t - k - 1) mod p
// E is a tile-sized buffer per rank of the grid column (one per grid row g: the tiles t = g mod p of the column), so
// a step moves at most p - 1 such buffers up and the top tile to at most p - 1 ranks, per tile column. C is the
// step's composed permutation (codelets/lu_codelets.hpp), written once per step by the compose task
// (codelets/laswp_compose.cpp), so the phases are row copies by index lists. CPU: loops; CUDA (tiles of up to
// kLaswpTileCudaMaxRows rows): one kernel per task, columns in parallel (kernels/lu/laswp_tile.cu), complex values
// moved as pairs of their real type. Each phase has a codelet, and a performance model, of its own.
#include <algorithm>
#include <complex>
#include <string>
#include <unordered_map>
#include <vector>

#include "codelets/lu_codelets.hpp"
#include "kernels/lu/laswp_tile_kernels.hpp"
#include "runtime/cuda_contexts.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {

RowPermutation compose_interchanges(const int* piv, int kb, int64_t offset) {
    // Positions are rows of the tile column (0: its first row, global row offset); content[x]: the original row
    // that position x holds, absent while it holds its own.
    std::unordered_map<int64_t, int64_t> content;
    const auto at = [&](int64_t x) {
        const auto it = content.find(x);
        return it == content.end() ? x : it->second;
    };
    for (int i = 0; i < kb; ++i) {
        const int64_t r = piv[i] - 1 - offset;
        if (r == i) continue;
        const int64_t a = at(i), b = at(r);
        content[i] = b;
        content[r] = a;
    }
    RowPermutation p;
    p.top.resize(static_cast<size_t>(kb));
    for (int i = 0; i < kb; ++i) p.top[static_cast<size_t>(i)] = at(i);
    for (const auto& [x, source] : content)
        if (x >= kb && source != x) p.below.emplace_back(x, source);
    std::sort(p.below.begin(), p.below.end());
    return p;
}

bool laswp_tile_on_cuda(int64_t nb) {
#if defined(STARFACT_HAVE_CUDA) || defined(STARFACT_SIMULATION)
    return nb <= kLaswpTileCudaMaxRows;
#else
    (void)nb;
    return false;
#endif
}

std::string laswp_tile_cpu_reason() {
#if defined(STARFACT_HAVE_CUDA) || defined(STARFACT_SIMULATION)
    return "(their CUDA implementation takes tiles of at most " + std::to_string(kLaswpTileCudaMaxRows) + " rows)";
#else
    return "(this build has no CUDA implementation of them)";
#endif
}

namespace {

struct LaswpTileArgs {
    int64_t offset;      // global row of the top tile's first row
    int nb;              // rows of a tile (every tile of the column but the last)
    int tile;            // gather, spread: t - k, the tile's place below the top tile (>= 1)
    int p;               // top: grid rows (the E buffers are those of tiles k+1 .. k+p, by (t - k - 1) mod p)
    int buffers;         // the task's buffers (top: 2 + its E buffers)
    CudaContexts* cuda;  // per-worker streams (CUDA implementation)
    bool urgent;
};

template <typename T>
struct TileRef {
    T* a;
    int64_t ld;
    int rows;
    int cols;
    explicit TileRef(void* buffer)
        : a(reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffer))), ld(STARPU_MATRIX_GET_LD(buffer)),
          rows(static_cast<int>(STARPU_MATRIX_GET_NX(buffer))), cols(static_cast<int>(STARPU_MATRIX_GET_NY(buffer))) {}
    /// Row `to` of this tile := row `from` of `src` (cols columns).
    void copy_row(int to, const TileRef& src, int from) const {
        for (int c = 0; c < cols; ++c) a[to + c * ld] = src.a[from + c * src.ld];
    }
};

/// The composed permutation a task reads (buffer `b`): kb and its three lists.
struct Composed {
    const int* data;
    int kb;
    explicit Composed(void* buffer)
        : data(reinterpret_cast<const int*>(STARPU_VECTOR_GET_PTR(buffer))),
          kb(static_cast<int>((STARPU_VECTOR_GET_NX(buffer) - 1) / 3)) {}
    int below() const { return data[0]; }
    int top(int i) const { return data[1 + i]; }
    int dst(int q) const { return data[1 + kb + q]; }
    int src(int q) const { return data[1 + 2 * kb + q]; }
};

constexpr int composed_buffer(LaswpTilePhase phase) { return phase == LaswpTilePhase::Top ? 1 : 2; }

template <typename T, LaswpTilePhase Phase>
void laswp_tile_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const LaswpTileArgs*>(cl_arg);
    const Composed perm(buffers[composed_buffer(Phase)]);
    const int kb = perm.kb;
    const int64_t nb = a->nb;
    if constexpr (Phase == LaswpTilePhase::Gather) {
        const TileRef<T> e(buffers[0]), tile(buffers[1]);
        const int64_t first = a->tile * nb;  // the tile's first row in the column
        for (int i = 0; i < kb; ++i) {
            const int64_t s = perm.top(i);
            if (s >= first && s < first + tile.rows) e.copy_row(i, tile, static_cast<int>(s - first));
        }
    } else if constexpr (Phase == LaswpTilePhase::Spread) {
        const TileRef<T> tile(buffers[0]), top(buffers[1]);
        const int64_t first = a->tile * nb;
        for (int q = 0; q < perm.below(); ++q) {
            const int64_t x = perm.dst(q);
            if (x >= first && x < first + tile.rows) tile.copy_row(static_cast<int>(x - first), top, perm.src(q));
        }
    } else {
        const TileRef<T> top(buffers[0]);
        std::vector<T> original(static_cast<size_t>(top.rows) * top.cols);
        for (int c = 0; c < top.cols; ++c)
            std::copy(top.a + c * top.ld, top.a + c * top.ld + top.rows, original.data() + static_cast<size_t>(c) * top.rows);
        for (int i = 0; i < kb; ++i) {
            const int64_t s = perm.top(i);
            if (s == i) continue;
            if (s < top.rows) {
                for (int c = 0; c < top.cols; ++c)
                    top.a[i + c * top.ld] = original[static_cast<size_t>(s) + static_cast<size_t>(c) * top.rows];
            } else {
                const int64_t below = s / nb;  // >= 1
                top.copy_row(i, TileRef<T>(buffers[2 + (below - 1) % a->p]), i);
            }
        }
    }
}

#ifdef STARFACT_HAVE_CUDA
template <typename T, LaswpTilePhase Phase>
void laswp_tile_cuda(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const LaswpTileArgs*>(cl_arg);
    const Composed perm(buffers[composed_buffer(Phase)]);
    gpu::WorkerStream ws(a->cuda, a->urgent);
    const int64_t nb = a->nb;
    if constexpr (Phase == LaswpTilePhase::Gather) {
        const TileRef<T> e(buffers[0]), tile(buffers[1]);
        gpu::launch_laswp_gather<T>(e.a, e.ld, tile.a, tile.ld, tile.rows, tile.cols, perm.data, perm.kb, a->tile * nb,
                                    ws.stream);
    } else if constexpr (Phase == LaswpTilePhase::Spread) {
        const TileRef<T> tile(buffers[0]), top(buffers[1]);
        gpu::launch_laswp_spread<T>(tile.a, tile.ld, tile.rows, tile.cols, top.a, top.ld, perm.data, perm.kb,
                                    a->tile * nb, ws.stream);
    } else {
        const TileRef<T> top(buffers[0]);
        gpu::ExchangeBuffers<T> ex;
        ex.count = a->buffers - 2;
        for (int b = 0; b < ex.count; ++b) {
            const TileRef<T> e(buffers[2 + b]);
            ex.e[b] = e.a;
            ex.ld[b] = static_cast<int>(e.ld);
        }
        gpu::launch_laswp_top<T>(top.a, top.ld, top.rows, top.cols, perm.data, perm.kb, nb, a->p, ex, ws.stream);
    }
}
#endif

template <typename T, LaswpTilePhase Phase>
void define_laswp_tile(Kernel& k) {
    const char* name = nullptr;
    const char* symbol = nullptr;
    if constexpr (Phase == LaswpTilePhase::Gather) {
        name = "laswp_gather";
        symbol = by_letter<T>("starfact_slaswp_gather", "starfact_dlaswp_gather", "starfact_claswp_gather",
                              "starfact_zlaswp_gather");
    } else if constexpr (Phase == LaswpTilePhase::Spread) {
        name = "laswp_spread";
        symbol = by_letter<T>("starfact_slaswp_spread", "starfact_dlaswp_spread", "starfact_claswp_spread",
                              "starfact_zlaswp_spread");
    } else {
        name = "laswp_top";
        symbol = by_letter<T>("starfact_slaswp_top", "starfact_dlaswp_top", "starfact_claswp_top",
                              "starfact_zlaswp_top");
    }
    define_kernel(k, name, symbol, laswp_tile_cpu<T, Phase>, STARFACT_CUDA_IMPL((laswp_tile_cuda<T, Phase>)),
                  {});  // modes per task (dyn_modes)
}

template <typename T>
Kernel& laswp_tile_kernel(const Runtime& rt, LaswpTilePhase phase) {
    switch (phase) {
        case LaswpTilePhase::Gather: return kernel<define_laswp_tile<T, LaswpTilePhase::Gather>>(rt);
        case LaswpTilePhase::Spread: return kernel<define_laswp_tile<T, LaswpTilePhase::Spread>>(rt);
        case LaswpTilePhase::Top: break;
    }
    return kernel<define_laswp_tile<T, LaswpTilePhase::Top>>(rt);
}

}  // namespace

template <typename T>
void insert_laswp_tile(const Runtime& rt, const TaskOptions& o, LaswpTilePhase phase,
                       const std::vector<std::pair<starpu_data_handle_t, starpu_data_access_mode>>& buffers,
                       int64_t offset, int64_t nb, int64_t tile, int p) {
    Kernel& k = laswp_tile_kernel<T>(rt, phase);
    const int n = static_cast<int>(buffers.size());
    starpu_task* t = starpu_task_create();
    t->cl = &k.cl;
    t->nbuffers = n;
    // StarPU frees dyn_handles and dyn_modes with free() when the task is destroyed.
    t->dyn_handles = static_cast<starpu_data_handle_t*>(std::malloc(n * sizeof(starpu_data_handle_t)));
    t->dyn_modes = static_cast<starpu_data_access_mode*>(std::malloc(n * sizeof(starpu_data_access_mode)));
    for (int i = 0; i < n; ++i) {
        t->dyn_handles[i] = buffers[static_cast<size_t>(i)].first;
        t->dyn_modes[i] = buffers[static_cast<size_t>(i)].second;
    }
    t->cl_arg = pack(LaswpTileArgs{offset, static_cast<int>(nb), static_cast<int>(tile), p, n, cuda_contexts(rt), o.urgent});
    t->cl_arg_size = sizeof(LaswpTileArgs);
    t->cl_arg_free = 1;
    t->flops = 0;
    TaskOptions where = o;
    // No CUDA implementation for such tiles, or for more exchange buffers than a kernel argument holds (a top task
    // reads at most mt - 1, which a GPU mapping keeps within kLaswpMaxTiles).
    if (!laswp_tile_on_cuda(nb) || n - 2 > kLaswpMaxTiles) where.mapping = Mapping::CpuOnly;
    submit(t, where, "laswp_tile");
}

template void insert_laswp_tile<float>(const Runtime&, const TaskOptions&, LaswpTilePhase,
                                       const std::vector<std::pair<starpu_data_handle_t, starpu_data_access_mode>>&,
                                       int64_t, int64_t, int64_t, int);
template void insert_laswp_tile<double>(const Runtime&, const TaskOptions&, LaswpTilePhase,
                                        const std::vector<std::pair<starpu_data_handle_t, starpu_data_access_mode>>&,
                                        int64_t, int64_t, int64_t, int);
template void insert_laswp_tile<std::complex<float>>(
    const Runtime&, const TaskOptions&, LaswpTilePhase,
    const std::vector<std::pair<starpu_data_handle_t, starpu_data_access_mode>>&, int64_t, int64_t, int64_t, int);
template void insert_laswp_tile<std::complex<double>>(
    const Runtime&, const TaskOptions&, LaswpTilePhase,
    const std::vector<std::pair<starpu_data_handle_t, starpu_data_access_mode>>&, int64_t, int64_t, int64_t, int);

}  // namespace starfact::detail

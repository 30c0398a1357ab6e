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
//             buffers: 0 = E (W for the first tile of E in this step, then RW), 1 = A[t][j] (R), 2 = piv (R)
//   spread  (tile t > k, on its owner):  the top tile's original rows that end in tile t
//             buffers: 0 = A[t][j] (RW), 1 = A[k][j] (R), 2 = piv (R)
//   top     (tile k, on its owner):      the top tile's final rows, from itself and from the E buffers
//             buffers: 0 = A[k][j] (RW), 1 = piv (R), 2 .. = E of the tiles k+1, k+2, ... by (t - k - 1) mod p
// E is a tile-sized buffer per rank of the grid column (one per grid row g: the tiles t = g mod p of the column), so
// a step moves at most p - 1 such buffers up and the top tile to at most p - 1 ranks, per tile column.
// CPU only: the tasks move rows; on a GPU mapping StarPU brings the tiles to the CPU workers.
#include <algorithm>
#include <complex>
#include <unordered_map>
#include <vector>

#include "codelets/lu_codelets.hpp"
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

namespace {

struct LaswpTileArgs {
    LaswpTilePhase phase;
    int64_t offset;  // global row of the top tile's first row
    int nb;          // rows of a tile (every tile of the column but the last)
    int tile;        // gather, spread: t - k, the tile's place below the top tile (>= 1)
    int p;           // top: grid rows (the E buffers are those of tiles k+1 .. k+p, by (t - k - 1) mod p)
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

template <typename T>
void laswp_tile_cpu(void* buffers[], void* cl_arg) {
    const auto* a = static_cast<const LaswpTileArgs*>(cl_arg);
    const int piv_buffer = a->phase == LaswpTilePhase::Top ? 1 : 2;
    const int* piv = reinterpret_cast<const int*>(STARPU_VECTOR_GET_PTR(buffers[piv_buffer]));
    const int kb = static_cast<int>(STARPU_VECTOR_GET_NX(buffers[piv_buffer]));
    const RowPermutation perm = compose_interchanges(piv, kb, a->offset);
    const int64_t nb = a->nb;
    switch (a->phase) {
        case LaswpTilePhase::Gather: {
            const TileRef<T> e(buffers[0]), tile(buffers[1]);
            const int64_t first = a->tile * nb;  // the tile's first row in the column
            for (int i = 0; i < kb; ++i) {
                const int64_t s = perm.top[static_cast<size_t>(i)];
                if (s >= first && s < first + tile.rows) e.copy_row(i, tile, static_cast<int>(s - first));
            }
            break;
        }
        case LaswpTilePhase::Spread: {
            const TileRef<T> tile(buffers[0]), top(buffers[1]);
            const int64_t first = a->tile * nb;
            for (const auto& [x, s] : perm.below)
                if (x >= first && x < first + tile.rows) tile.copy_row(static_cast<int>(x - first), top, static_cast<int>(s));
            break;
        }
        case LaswpTilePhase::Top: {
            const TileRef<T> top(buffers[0]);
            std::vector<T> original(static_cast<size_t>(top.rows) * top.cols);
            for (int c = 0; c < top.cols; ++c)
                std::copy(top.a + c * top.ld, top.a + c * top.ld + top.rows, original.data() + static_cast<size_t>(c) * top.rows);
            for (int i = 0; i < kb; ++i) {
                const int64_t s = perm.top[static_cast<size_t>(i)];
                if (s == i) continue;
                if (s < top.rows) {
                    for (int c = 0; c < top.cols; ++c)
                        top.a[i + c * top.ld] = original[static_cast<size_t>(s) + static_cast<size_t>(c) * top.rows];
                } else {
                    const int64_t below = s / nb;  // >= 1
                    top.copy_row(i, TileRef<T>(buffers[2 + (below - 1) % a->p]), i);
                }
            }
            break;
        }
    }
}

template <typename T>
void define_laswp_tile(Kernel& k) {
    define_kernel(k, "laswp_tile", by_letter<T>("starfact_slaswp_tile", "starfact_dlaswp_tile", "starfact_claswp_tile",
                                                  "starfact_zlaswp_tile"), laswp_tile_cpu<T>,
                  nullptr, {});  // modes per task (dyn_modes)
}

}  // namespace

template <typename T>
void insert_laswp_tile(const Runtime& rt, const TaskOptions& o, LaswpTilePhase phase,
                       const std::vector<std::pair<starpu_data_handle_t, starpu_data_access_mode>>& buffers,
                       int64_t offset, int64_t nb, int64_t tile, int p) {
    Kernel& k = kernel<define_laswp_tile<T>>(rt);
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
    t->cl_arg = pack(LaswpTileArgs{phase, offset, static_cast<int>(nb), static_cast<int>(tile), p});
    t->cl_arg_size = sizeof(LaswpTileArgs);
    t->cl_arg_free = 1;
    t->flops = 0;
    TaskOptions cpu = o;
    cpu.mapping = Mapping::CpuOnly;  // no CUDA implementation
    submit(t, cpu, "laswp_tile");
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

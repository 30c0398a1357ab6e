// random_symmetric on tiles (generate.hpp): host-resident tiles on a pool of host threads, device-resident ones by
// a kernel on their GPU.
#include <starpu.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kernels/random_entry.hpp"
#include "runtime/mpi.hpp"
#include "starfact/error.hpp"
#include "starfact/generate.hpp"
#ifdef STARFACT_HAVE_CUDA
#include "kernels/random_symmetric.hpp"
#endif

namespace starfact {
namespace {

using TileList = std::vector<std::pair<int64_t, int64_t>>;

/// The pointer and leading dimension of tile handle h on memory node `node` (acquired there).
template <typename T>
std::pair<T*, int64_t> tile_on_node(starpu_data_handle_t h, unsigned node) {
    auto* m = static_cast<starpu_matrix_interface*>(starpu_data_get_interface_on_node(h, node));
    return {reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(m)), static_cast<int64_t>(STARPU_MATRIX_GET_LD(m))};
}

/// Host-resident tiles, each acquired in main memory for writing by one of the pool's threads.
template <typename T>
void fill_host(TileMatrix<T>& A, const TileList& tiles, uint64_t seed, double shift) {
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto worker = [&] {
        for (size_t w; (w = next.fetch_add(1)) < tiles.size();) {
            const auto [ti, tj] = tiles[w];
            starpu_data_handle_t h = A.tile(ti, tj);
            if (starpu_data_acquire_on_node(h, STARPU_MAIN_RAM, STARPU_W) != 0) {
                failed = true;
                return;
            }
            const auto [p, ld] = tile_on_node<T>(h, STARPU_MAIN_RAM);
            const int64_t i0 = ti * A.nb(), j0 = tj * A.nb();
            for (int64_t c = 0; c < A.tile_cols(tj); ++c)
                for (int64_t r = 0; r < A.tile_rows(ti); ++r)
                    p[r + c * ld] = static_cast<T>(detail::symmetric_entry(seed, i0 + r, j0 + c, shift));
            starpu_data_release_on_node(h, STARPU_MAIN_RAM);
        }
    };
    const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, std::max<size_t>(tiles.size(), 1));
    std::vector<std::thread> pool;
    for (size_t t = 0; t < std::min<size_t>(threads, 64); ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
    if (failed) throw RuntimeError("starfact::random_symmetric: starpu_data_acquire_on_node(main memory) failed");
}

#ifdef STARFACT_HAVE_CUDA
/// Device-resident tiles: each acquired on its home GPU for writing, generated there on the device's default
/// stream; released once every device used has finished.
template <typename T>
void fill_device(TileMatrix<T>& A, const TileList& tiles, uint64_t seed, double shift) {
    int before = 0;
    cudaGetDevice(&before);
    std::vector<int> used;
    std::vector<std::pair<starpu_data_handle_t, int>> held;
    std::string error;
    for (const auto& [ti, tj] : tiles) {
        const int home = A.home_node(ti, tj);
        starpu_data_handle_t h = A.tile(ti, tj);
        if (starpu_data_acquire_on_node(h, home, STARPU_W) != 0) {
            error = "starpu_data_acquire_on_node(GPU) failed";
            break;
        }
        held.push_back({h, home});
        const int dev = starpu_memory_node_get_devid(static_cast<unsigned>(home));
        if (std::find(used.begin(), used.end(), dev) == used.end()) used.push_back(dev);
        cudaSetDevice(dev);
        const auto [p, ld] = tile_on_node<T>(h, static_cast<unsigned>(home));
        const cudaError_t e = detail::gpu::launch_random_symmetric<T>(p, ld, A.tile_rows(ti), A.tile_cols(tj),
                                                                      ti * A.nb(), tj * A.nb(), seed, shift, nullptr);
        if (e != cudaSuccess) {
            error = std::string("kernel launch: ") + cudaGetErrorString(e);
            break;
        }
    }
    for (int dev : used) {
        cudaSetDevice(dev);
        const cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess && error.empty()) error = std::string("cudaDeviceSynchronize: ") + cudaGetErrorString(e);
    }
    for (const auto& [h, node] : held) starpu_data_release_on_node(h, node);
    cudaSetDevice(before);
    if (!error.empty()) throw RuntimeError("starfact::random_symmetric: " + error);
}
#endif

}  // namespace

template <typename T>
void random_symmetric(TileMatrix<T>& A, uint64_t seed, double shift) {
    require(A.m() == A.n(), "random_symmetric", "A",
            "must be square (got " + std::to_string(A.m()) + " x " + std::to_string(A.n()) + ")");
    TileList tiles;  // the tiles this process stores
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) {
            // New content outside tasks: the copies other ranks received before are stale (as in import()).
            if (A.distributed() && A.stored(i, j)) detail::mpi_cache_flush(A.tile(i, j));
            if (A.home_node(i, j) >= 0) tiles.push_back({i, j});
        }
#ifdef STARFACT_SIMULATION
    // A simulated run computes nothing (docs/simulation.md): each tile is only made valid where it lives, from this
    // thread (SimGrid runs StarPU's threads as its actors: no pool).
    (void)seed, (void)shift;
    for (const auto& [ti, tj] : tiles) {
        const int home = A.home_node(ti, tj);
        if (starpu_data_acquire_on_node(A.tile(ti, tj), home, STARPU_W) != 0)
            throw RuntimeError("starfact::random_symmetric: starpu_data_acquire_on_node failed");
        starpu_data_release_on_node(A.tile(ti, tj), home);
    }
    return;
#endif
#ifdef STARFACT_HAVE_CUDA
    if (A.residency() == Residency::Device) return fill_device(A, tiles, seed, shift);
#endif
    fill_host(A, tiles, seed, shift);
}

template void random_symmetric<float>(TileMatrix<float>&, uint64_t, double);
template void random_symmetric<double>(TileMatrix<double>&, uint64_t, double);

}  // namespace starfact

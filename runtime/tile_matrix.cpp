// TileMatrix: tile allocation (pinned host or CUDA device), StarPU (and StarPU-MPI) registration, LAPACK
// import/export.
#include "starfact/tile_matrix.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/mpi.hpp"
#include "starfact/error.hpp"
#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>

#include "runtime/cuda_contexts.hpp"
#endif

namespace starfact {
namespace {

bool is_device_pointer(const void* p, bool runtime_has_cuda) {
#ifdef STARFACT_HAVE_CUDA
    if (!runtime_has_cuda) return false;
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
#else
    (void)p;
    (void)runtime_has_cuda;
    return false;
#endif
}

/// Copies a rows x cols column-major block; either side may be device memory (CUDA builds).
template <typename T>
void copy_block(T* dst, int64_t ldd, bool dst_dev, const T* src, int64_t lds, bool src_dev, int64_t rows,
                int64_t cols) {
    if (rows == 0 || cols == 0) return;
#ifdef STARFACT_HAVE_CUDA
    if (dst_dev || src_dev) {
        detail::check_cuda(cudaMemcpy2D(dst, ldd * sizeof(T), src, lds * sizeof(T), rows * sizeof(T), cols,
                                        cudaMemcpyDefault),
                           "starfact::TileMatrix: cudaMemcpy2D");
        return;
    }
#else
    (void)dst_dev;
    (void)src_dev;
#endif
    for (int64_t j = 0; j < cols; ++j) std::memcpy(dst + j * ldd, src + j * lds, rows * sizeof(T));
}

}  // namespace

Grid Grid::square(int ranks) {
    require(ranks >= 1, "Grid::square", "ranks", "must be >= 1 (got " + std::to_string(ranks) + ")");
    Grid g;
    for (int p = 1; p * p <= ranks; ++p)
        if (ranks % p == 0) g = {p, ranks / p};
    return g;
}

const char* to_string(DevicePlacement placement) {
    return placement == DevicePlacement::Cyclic ? "cyclic" : "2d";
}

DevicePlacement parse_device_placement(const std::string& text, const char* argument) {
    if (text == "2d") return DevicePlacement::BlockCyclic2D;
    if (text == "cyclic") return DevicePlacement::Cyclic;
    throw InvalidArgument("parse_device_placement", argument, "must be 2d or cyclic (got '" + text + "')");
}

Grid resolve_device_grid(DevicePlacement placement, const Grid& requested, int ndev, const char* function,
                         const char* argument) {
    require(ndev >= 1, function, argument, "needs at least one CUDA device (got " + std::to_string(ndev) + ")");
    const bool given = requested.p != 0 || requested.q != 0;
    const std::string text = std::to_string(requested.p) + " x " + std::to_string(requested.q);
    if (placement == DevicePlacement::Cyclic) {
        require(!given, function, argument, "device grid " + text + " given with the cyclic placement, which has none");
        return Grid{1, ndev};
    }
    if (!given) return Grid::square(ndev);
    require(requested.p >= 1 && requested.q >= 1, function, argument,
            "device grid must be at least 1 x 1 (got " + text + ")");
    require(requested.ranks() == ndev, function, argument,
            "device grid " + text + " has " + std::to_string(requested.ranks()) + " device(s) but the runtime has " +
                std::to_string(ndev) + " CUDA device(s) (Pd * Qd must be the device count)");
    return requested;
}

template <typename T>
int64_t TileMatrix<T>::checked_order(int64_t n) {
    require(n >= 0, "TileMatrix", "n", "must be >= 0 (got " + std::to_string(n) + ")");
    return n;
}

template <typename T>
void TileMatrix<T>::missing_tile(int64_t i, int64_t j) const {
    throw InvalidArgument("TileMatrix::tile", "j",
                          "names tile (" + std::to_string(i) + ", " + std::to_string(j) +
                              "), above the diagonal of a lower_only matrix: it is not stored");
}

template <typename T>
bool TileMatrix<T>::local(int64_t i, int64_t j) const {
    return stored(i, j) && (!distributed() || owner(i, j) == runtime_->mpi_rank());
}

template <typename T>
TileMatrix<T>::TileMatrix(Runtime& runtime, int64_t m, int64_t n, int64_t nb, Residency residency,
                          const TileLayout& layout)
    : runtime_(&runtime), m_(m), n_(n), nb_(nb), residency_(residency), layout_(layout) {
    require(m >= 0, "TileMatrix", "m", "must be >= 0 (got " + std::to_string(m) + ")");
    require(n >= 0, "TileMatrix", "n", "must be >= 0 (got " + std::to_string(n) + ")");
    require(nb > 0, "TileMatrix", "nb", "must be > 0 (got " + std::to_string(nb) + ")");
    require(nb <= (1 << 20), "TileMatrix", "nb", "must be <= 2^20 (got " + std::to_string(nb) + ")");
    require(residency == Residency::Host || runtime.cuda_devices() > 0, "TileMatrix", "residency",
            "is device but the runtime has no CUDA device");
    const Grid& g = layout.grid;
    const std::string grid_text = std::to_string(g.p) + " x " + std::to_string(g.q);
    require(g.p >= 1 && g.q >= 1, "TileMatrix", "layout", "grid must be at least 1 x 1 (got " + grid_text + ")");
    require(g.ranks() == 1 || runtime.mpi(), "TileMatrix", "layout",
            "grid " + grid_text + " needs a Runtime started with RuntimeConfig::mpi" +
                (built_with_mpi() ? "" : " (and this build of starfact has no MPI)"));
    require(g.ranks() == 1 || g.ranks() == runtime.mpi_size(), "TileMatrix", "layout",
            "grid " + grid_text + " has " + std::to_string(g.ranks()) + " process(es) but the Runtime has " +
                std::to_string(runtime.mpi_size()) + " MPI rank(s)");
    require(!layout.lower_only || m == n, "TileMatrix", "layout",
            "lower_only needs a square matrix (got " + std::to_string(m) + " x " + std::to_string(n) + ")");
    const int ndev = residency == Residency::Device ? runtime.cuda_devices() : 1;
    device_grid_ = residency == Residency::Device
                       ? resolve_device_grid(layout.placement, layout.device_grid, ndev, "TileMatrix", "layout")
                       : Grid{};
    mt_ = (m + nb - 1) / nb;
    nt_ = (n + nb - 1) / nb;
    handles_.assign(mt_ * nt_, nullptr);
    storage_.assign(mt_ * nt_, nullptr);
    home_.assign(mt_ * nt_, STARPU_MAIN_RAM);
    // Distributed: tags tag0 + i + j * mt, the same on every rank (every rank builds its matrices in the same order).
    const int64_t tag0 = distributed() ? detail::reserve_tags(runtime, mt_ * nt_) : 0;
    const auto& gpus = runtime.cuda_memory_nodes();
    for (int64_t j = 0; j < nt_; ++j) {
        for (int64_t i = 0; i < mt_; ++i) {
            if (!stored(i, j)) continue;
            const int64_t idx = i + j * mt_, rows = tile_rows(i), cols = tile_cols(j);
            if (!local(i, j)) {
                // Another rank's tile: no storage here; StarPU allocates a copy when one is received.
                starpu_matrix_data_register(&handles_[idx], -1, 0, static_cast<uint32_t>(rows),
                                            static_cast<uint32_t>(rows), static_cast<uint32_t>(cols), sizeof(T));
                detail::mpi_register(handles_[idx], tag0 + idx, owner(i, j));
                continue;
            }
            const size_t bytes = static_cast<size_t>(rows * cols) * sizeof(T);
            void* p = nullptr;
            if (residency == Residency::Host) {
                if (starpu_malloc_flags(&p, bytes, STARPU_MALLOC_PINNED) != 0) p = nullptr;
            } else {
                // Local coordinates: a distributed rank's own tiles are every grid.p-th row and grid.q-th column.
                home_[idx] = gpus[static_cast<size_t>(
                    device_of(i / g.p, j / g.q, layout.placement, device_grid_, static_cast<int>(gpus.size())))];
                p = reinterpret_cast<void*>(starpu_malloc_on_node(home_[idx], bytes));
            }
            if (!p) {
                release();
                throw RuntimeError("starfact::TileMatrix: out of " +
                                   std::string(residency == Residency::Host ? "host" : "device") + " memory: " +
                                   std::to_string(bytes) + " bytes asked for tile (" + std::to_string(i) + "," +
                                   std::to_string(j) + ") of a " + std::to_string(m) + " x " + std::to_string(n) +
                                   " matrix of " + std::to_string(sizeof(T)) + "-byte entries (nb " +
                                   std::to_string(nb) + ", " + std::to_string(stored_bytes()) +
                                   " bytes for the tiles this process stores)");
            }
            storage_[idx] = p;
            starpu_matrix_data_register(&handles_[idx], static_cast<int>(home_[idx]), reinterpret_cast<uintptr_t>(p),
                                        static_cast<uint32_t>(rows), static_cast<uint32_t>(rows),
                                        static_cast<uint32_t>(cols), sizeof(T));
            if (distributed()) detail::mpi_register(handles_[idx], tag0 + idx, owner(i, j));
        }
    }
}

template <typename T>
size_t TileMatrix<T>::stored_bytes() const {
    size_t total = 0;
    for (int64_t j = 0; j < nt_; ++j)
        for (int64_t i = 0; i < mt_; ++i)
            if (local(i, j)) total += static_cast<size_t>(tile_rows(i) * tile_cols(j)) * sizeof(T);
    return total;
}

template <typename T>
TileMatrix<T>::~TileMatrix() {
    release();
}

template <typename T>
void TileMatrix<T>::release() noexcept {
    for (size_t idx = 0; idx < handles_.size(); ++idx) {
        if (handles_[idx]) starpu_data_unregister(handles_[idx]);
        handles_[idx] = nullptr;
        if (!storage_[idx]) continue;
        const int64_t i = idx % mt_, j = idx / mt_;
        const size_t bytes = static_cast<size_t>(tile_rows(i) * tile_cols(j)) * sizeof(T);
        if (residency_ == Residency::Host)
            starpu_free_flags(storage_[idx], bytes, STARPU_MALLOC_PINNED);
        else
            starpu_free_on_node(home_[idx], reinterpret_cast<uintptr_t>(storage_[idx]), bytes);
        storage_[idx] = nullptr;
    }
}

template <typename T>
void TileMatrix<T>::import(const T* A, int64_t lda) {
    require(lda >= std::max<int64_t>(1, m_), "TileMatrix::import", "lda",
            "must be >= max(1, m) = " + std::to_string(std::max<int64_t>(1, m_)) + " (got " + std::to_string(lda) + ")");
    require(A != nullptr || m_ * n_ == 0, "TileMatrix::import", "A", "is null");
    const bool src_dev = m_ * n_ > 0 && is_device_pointer(A, runtime_->cuda_devices() > 0);
    for (int64_t j = 0; j < nt_; ++j) {
        for (int64_t i = 0; i < mt_; ++i) {
            const int64_t idx = i + j * mt_;
            // New content outside tasks: copies of the tile other ranks received, and the owner's record of
            // them, are stale (every rank imports, so every rank flushes).
            if (distributed() && stored(i, j)) detail::mpi_cache_flush(handles_[idx]);
            if (!local(i, j)) continue;
            starpu_data_acquire_on_node(handles_[idx], static_cast<int>(home_[idx]), STARPU_W);
            copy_block(static_cast<T*>(storage_[idx]), tile_rows(i), home_[idx] != STARPU_MAIN_RAM,
                       A + i * nb_ + j * nb_ * lda, lda, src_dev, tile_rows(i), tile_cols(j));
            starpu_data_release_on_node(handles_[idx], static_cast<int>(home_[idx]));
        }
    }
}

template <typename T>
void TileMatrix<T>::export_to(T* A, int64_t lda) const {
    require(lda >= std::max<int64_t>(1, m_), "TileMatrix::export_to", "lda",
            "must be >= max(1, m) = " + std::to_string(std::max<int64_t>(1, m_)) + " (got " + std::to_string(lda) + ")");
    require(A != nullptr || m_ * n_ == 0, "TileMatrix::export_to", "A", "is null");
    const bool dst_dev = m_ * n_ > 0 && is_device_pointer(A, runtime_->cuda_devices() > 0);
    // Distributed: this rank's tiles go into one buffer (tile order), every rank receives all buffers.
    std::vector<char> mine;
    for (int64_t j = 0; j < nt_; ++j) {
        for (int64_t i = 0; i < mt_; ++i) {
            if (!local(i, j)) continue;
            const int64_t idx = i + j * mt_;
            T* dst = A + i * nb_ + j * nb_ * lda;
            int64_t ldd = lda;
            bool to_dev = dst_dev;
            if (distributed()) {
                mine.resize(mine.size() + static_cast<size_t>(tile_rows(i) * tile_cols(j)) * sizeof(T));
                dst = reinterpret_cast<T*>(mine.data() + mine.size()) - tile_rows(i) * tile_cols(j);
                ldd = tile_rows(i);
                to_dev = false;
            }
            starpu_data_acquire_on_node(handles_[idx], static_cast<int>(home_[idx]), STARPU_R);
            copy_block(dst, ldd, to_dev, static_cast<const T*>(storage_[idx]), tile_rows(i),
                       home_[idx] != STARPU_MAIN_RAM, tile_rows(i), tile_cols(j));
            starpu_data_release_on_node(handles_[idx], static_cast<int>(home_[idx]));
        }
    }
    if (!distributed()) return;
    std::vector<char> all;
    std::vector<size_t> offsets;
    detail::allgather_bytes(*runtime_, mine, &all, &offsets);
    std::vector<size_t> at(offsets.begin(), offsets.end() - 1);  // next unread byte of each rank's part
    for (int64_t j = 0; j < nt_; ++j) {
        for (int64_t i = 0; i < mt_; ++i) {
            if (!stored(i, j)) continue;
            const size_t r = static_cast<size_t>(owner(i, j));
            const T* src = reinterpret_cast<const T*>(all.data() + at[r]);
            copy_block(A + i * nb_ + j * nb_ * lda, lda, dst_dev, src, tile_rows(i), false, tile_rows(i), tile_cols(j));
            at[r] += static_cast<size_t>(tile_rows(i) * tile_cols(j)) * sizeof(T);
        }
    }
}

template class TileMatrix<float>;
template class TileMatrix<double>;

}  // namespace starfact

// TileMatrix's import and export: copies between the tiles and a caller's column-major array (host or CUDA device
// memory), acquired where the tiles live; a distributed matrix gathers every rank's tiles.
#include <algorithm>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/mpi.hpp"
#include "runtime/tile_limits.hpp"
#include "starfact/error.hpp"
#include "starfact/tile_matrix.hpp"
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
        if (std::max(ldd, lds) <= detail::kMaxCopyPitch / static_cast<int64_t>(sizeof(T))) {
            detail::check_cuda(cudaMemcpy2D(dst, ldd * sizeof(T), src, lds * sizeof(T), rows * sizeof(T), cols,
                                            cudaMemcpyDefault),
                               "starfact::TileMatrix: cudaMemcpy2D");
        } else {  // a pitch beyond what cudaMemcpy2D takes: column by column
            for (int64_t j = 0; j < cols; ++j)
                detail::check_cuda(cudaMemcpy(dst + j * ldd, src + j * lds, rows * sizeof(T), cudaMemcpyDefault),
                                   "starfact::TileMatrix: cudaMemcpy");
        }
        // A device-to-device cudaMemcpy2D does not wait for the copy: it runs on the calling thread's current device's
        // legacy stream, which orders nothing on another GPU. Wait for it before StarPU hands the tile to tasks
        // (import) or the caller reads the buffer (export): a tile on a second GPU imported from a device array was
        // read by the first tasks before its copy had landed.
        detail::check_cuda(cudaStreamSynchronize(cudaStreamLegacy), "starfact::TileMatrix: cudaStreamSynchronize");
        return;
    }
#else
    (void)dst_dev;
    (void)src_dev;
#endif
    for (int64_t j = 0; j < cols; ++j) std::memcpy(dst + j * ldd, src + j * lds, rows * sizeof(T));
}

}  // namespace

template <typename T>
void TileMatrix<T>::import(const T* A, int64_t lda) {
    require_alive("TileMatrix::import");
    require(lda >= std::max<int64_t>(1, m_), "TileMatrix::import", "lda",
            "must be >= max(1, m) = " + std::to_string(std::max<int64_t>(1, m_)) + " (got " + std::to_string(lda) + ")");
    detail::require_array_extent("TileMatrix::import", "lda", m_, n_, lda, sizeof(T));
    require(A != nullptr || m_ * n_ == 0, "TileMatrix::import", "A", "is null");
    const bool src_dev = m_ * n_ > 0 && is_device_pointer(A, runtime_->cuda_devices() > 0);
    for (int64_t j = 0; j < nt_; ++j) {
        for (int64_t i = 0; i < mt_; ++i) {
            const int64_t idx = i + j * mt_;
            // New content outside tasks: copies of the tile other ranks received, and the owner's record of
            // them, are stale (every rank imports, so every rank flushes).
            if (distributed() && stored(i, j)) detail::mpi_cache_flush(handles_[idx]);
            if (!local(i, j)) continue;
            const unsigned node = kind_ == Kind::Workspace ? STARPU_MAIN_RAM : home_[idx];
            starpu_data_acquire_on_node(handles_[idx], static_cast<int>(node), STARPU_W);
            const auto [p, ld] = tile_on(idx, node);
            copy_block(p, ld, node != STARPU_MAIN_RAM, A + i * nb_ + j * nb_ * lda, lda, src_dev, tile_rows(i),
                       tile_cols(j));
            starpu_data_release_on_node(handles_[idx], static_cast<int>(node));
        }
    }
}

template <typename T>
void TileMatrix<T>::export_to(T* A, int64_t lda) const {
    require_alive("TileMatrix::export_to");
    require(lda >= std::max<int64_t>(1, m_), "TileMatrix::export_to", "lda",
            "must be >= max(1, m) = " + std::to_string(std::max<int64_t>(1, m_)) + " (got " + std::to_string(lda) + ")");
    detail::require_array_extent("TileMatrix::export_to", "lda", m_, n_, lda, sizeof(T));
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
            const unsigned node = kind_ == Kind::Workspace ? STARPU_MAIN_RAM : home_[idx];
            starpu_data_acquire_on_node(handles_[idx], static_cast<int>(node), STARPU_R);
            const auto [p, ld] = tile_on(idx, node);
            copy_block(dst, ldd, to_dev, static_cast<const T*>(p), ld, node != STARPU_MAIN_RAM, tile_rows(i),
                       tile_cols(j));
            starpu_data_release_on_node(handles_[idx], static_cast<int>(node));
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

template void TileMatrix<float>::import(const float*, int64_t);
template void TileMatrix<double>::import(const double*, int64_t);
template void TileMatrix<float>::export_to(float*, int64_t) const;
template void TileMatrix<double>::export_to(double*, int64_t) const;
template void TileMatrix<std::complex<float>>::import(const std::complex<float>*, int64_t);
template void TileMatrix<std::complex<double>>::import(const std::complex<double>*, int64_t);
template void TileMatrix<std::complex<float>>::export_to(std::complex<float>*, int64_t) const;
template void TileMatrix<std::complex<double>>::export_to(std::complex<double>*, int64_t) const;

}  // namespace starfact

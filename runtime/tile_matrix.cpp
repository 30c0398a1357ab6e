// TileMatrix: tile allocation (pinned host or CUDA device), StarPU registration, LAPACK import/export.
#include "starfact/tile_matrix.hpp"

#include <algorithm>
#include <cstring>
#include <string>

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

template <typename T>
int64_t TileMatrix<T>::checked_order(int64_t n) {
    require(n >= 0, "TileMatrix", "n", "must be >= 0 (got " + std::to_string(n) + ")");
    return n;
}

template <typename T>
TileMatrix<T>::TileMatrix(Runtime& runtime, int64_t m, int64_t n, int64_t nb, Residency residency)
    : runtime_(&runtime), m_(m), n_(n), nb_(nb), residency_(residency) {
    require(m >= 0, "TileMatrix", "m", "must be >= 0 (got " + std::to_string(m) + ")");
    require(n >= 0, "TileMatrix", "n", "must be >= 0 (got " + std::to_string(n) + ")");
    require(nb > 0, "TileMatrix", "nb", "must be > 0 (got " + std::to_string(nb) + ")");
    require(nb <= (1 << 20), "TileMatrix", "nb", "must be <= 2^20 (got " + std::to_string(nb) + ")");
    require(residency == Residency::Host || runtime.cuda_devices() > 0, "TileMatrix", "residency",
            "is device but the runtime has no CUDA device");
    mt_ = (m + nb - 1) / nb;
    nt_ = (n + nb - 1) / nb;
    handles_.assign(mt_ * nt_, nullptr);
    storage_.assign(mt_ * nt_, nullptr);
    home_.assign(mt_ * nt_, STARPU_MAIN_RAM);
    const auto& gpus = runtime.cuda_memory_nodes();
    for (int64_t j = 0; j < nt_; ++j) {
        for (int64_t i = 0; i < mt_; ++i) {
            const int64_t idx = i + j * mt_, rows = tile_rows(i), cols = tile_cols(j);
            const size_t bytes = static_cast<size_t>(rows * cols) * sizeof(T);
            void* p = nullptr;
            if (residency == Residency::Host) {
                if (starpu_malloc_flags(&p, bytes, STARPU_MALLOC_PINNED) != 0) p = nullptr;
            } else {
                home_[idx] = gpus[(i + j) % gpus.size()];
                p = reinterpret_cast<void*>(starpu_malloc_on_node(home_[idx], bytes));
            }
            if (!p) {
                release();
                throw RuntimeError("starfact::TileMatrix: out of " +
                                   std::string(residency == Residency::Host ? "host" : "device") +
                                   " memory allocating tile (" + std::to_string(i) + "," + std::to_string(j) + ")");
            }
            storage_[idx] = p;
            starpu_matrix_data_register(&handles_[idx], static_cast<int>(home_[idx]), reinterpret_cast<uintptr_t>(p),
                                        static_cast<uint32_t>(rows), static_cast<uint32_t>(rows),
                                        static_cast<uint32_t>(cols), sizeof(T));
        }
    }
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
    for (int64_t j = 0; j < nt_; ++j) {
        for (int64_t i = 0; i < mt_; ++i) {
            const int64_t idx = i + j * mt_;
            starpu_data_acquire_on_node(handles_[idx], static_cast<int>(home_[idx]), STARPU_R);
            copy_block(A + i * nb_ + j * nb_ * lda, lda, dst_dev, static_cast<const T*>(storage_[idx]), tile_rows(i),
                       home_[idx] != STARPU_MAIN_RAM, tile_rows(i), tile_cols(j));
            starpu_data_release_on_node(handles_[idx], static_cast<int>(home_[idx]));
        }
    }
}

template class TileMatrix<float>;
template class TileMatrix<double>;

}  // namespace starfact

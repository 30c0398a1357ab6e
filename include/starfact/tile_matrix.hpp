// A matrix cut into nb x nb tiles, each a StarPU data handle. The last tile row/column may be
// smaller. Tiles are column-major with leading dimension = their row count.
#pragma once
#include <starpu.h>

#include <cstdint>
#include <vector>

#include "starfact/mapping.hpp"
#include "starfact/runtime.hpp"

namespace starfact {

template <typename T>
class TileMatrix {
public:
    /// m x n matrix in nb x nb tiles. Residency::Device puts tile (i, j) on CUDA device
    /// (i + j) mod ndevices; it needs a Runtime with CUDA workers.
    /// Throws InvalidArgument naming 'm', 'n', 'nb' or 'residency'.
    TileMatrix(Runtime& runtime, int64_t m, int64_t n, int64_t nb, Residency residency = Residency::Host);
    /// Square n x n.
    TileMatrix(Runtime& runtime, int64_t n, int64_t nb, Residency residency = Residency::Host)
        : TileMatrix(runtime, checked_order(n), n, nb, residency) {}
    ~TileMatrix();
    TileMatrix(const TileMatrix&) = delete;
    TileMatrix& operator=(const TileMatrix&) = delete;

    int64_t m() const { return m_; }
    int64_t n() const { return n_; }
    int64_t nb() const { return nb_; }
    int64_t mt() const { return mt_; }  ///< tile rows
    int64_t nt() const { return nt_; }  ///< tile columns
    int64_t tile_rows(int64_t i) const { return i == mt_ - 1 ? m_ - i * nb_ : nb_; }
    int64_t tile_cols(int64_t j) const { return j == nt_ - 1 ? n_ - j * nb_ : nb_; }
    Residency residency() const { return residency_; }
    Runtime& runtime() const { return *runtime_; }
    starpu_data_handle_t tile(int64_t i, int64_t j) const { return handles_[i + j * mt_]; }

    /// Copies the column-major array A (leading dimension lda >= max(1, m)) into the tiles.
    /// A may be host memory or, in a CUDA build, device memory. Waits for pending tasks on the tiles.
    void import(const T* A, int64_t lda);
    /// Copies the tiles into A (host or device memory, lda >= max(1, m)).
    void export_to(T* A, int64_t lda) const;

private:
    static int64_t checked_order(int64_t n);  // throws InvalidArgument naming 'n' if n < 0
    void release() noexcept;  // unregisters and frees every tile (destructor, failed constructor)

    Runtime* runtime_;
    int64_t m_, n_, nb_, mt_, nt_;
    Residency residency_;
    std::vector<starpu_data_handle_t> handles_;
    std::vector<void*> storage_;
    std::vector<unsigned> home_;  // StarPU memory node of each tile's storage
};

extern template class TileMatrix<float>;
extern template class TileMatrix<double>;

}  // namespace starfact

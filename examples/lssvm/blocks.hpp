// Row blocks of a column-major n x d host array registered with StarPU (RAII): the feature blocks X_I of the
// kernel tiles and their squared norms. Each block is a view into the caller's array (leading dimension n).
#pragma once
#include <starpu.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <cstdint>
#include <vector>

namespace lssvm {

template <typename T>
class RowBlocks {
public:
    /// X: column-major n x d (ld n), kept alive by the caller; nb rows per block.
    RowBlocks(const T* X, int64_t n, int64_t d, int64_t nb) : n_(n), nb_(nb), norms_(n) {
        for (int64_t i = 0; i < n; ++i) {
            T s = 0;
            for (int64_t j = 0; j < d; ++j) s += X[i + j * n] * X[i + j * n];
            norms_[i] = s;
        }
        for (int64_t r = 0; r < n; r += nb) {
            const int64_t rows = std::min(nb, n - r);
            starpu_data_handle_t x, v;
            starpu_matrix_data_register(&x, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(X + r),
                                        static_cast<uint32_t>(n), static_cast<uint32_t>(rows),
                                        static_cast<uint32_t>(d), sizeof(T));
            starpu_vector_data_register(&v, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(norms_.data() + r),
                                        static_cast<uint32_t>(rows), sizeof(T));
            x_.push_back(x);
            v_.push_back(v);
        }
    }
    ~RowBlocks() {
        for (auto h : x_) starpu_data_unregister(h);
        for (auto h : v_) starpu_data_unregister(h);
    }
    RowBlocks(const RowBlocks&) = delete;
    RowBlocks& operator=(const RowBlocks&) = delete;

    int64_t blocks() const { return static_cast<int64_t>(x_.size()); }
    int64_t nb() const { return nb_; }
    int64_t n() const { return n_; }
    starpu_data_handle_t x(int64_t i) const { return x_[i]; }
    starpu_data_handle_t norms(int64_t i) const { return v_[i]; }

private:
    int64_t n_, nb_;
    std::vector<T> norms_;
    std::vector<starpu_data_handle_t> x_, v_;
};

/// Host memory from starpu_malloc_flags (pinned when CUDA workers exist, so that transfers run at full speed).
/// Freed with its size (starpu_free_flags): StarPU 1.4 deprecates the size-less starpu_free.
template <typename T>
class HostArray {
public:
    explicit HostArray(size_t n) : n_(n) {
        if (n && starpu_malloc_flags(reinterpret_cast<void**>(&p_), n * sizeof(T), STARPU_MALLOC_PINNED) != 0)
            throw std::runtime_error("cannot allocate " + std::to_string(n * sizeof(T) >> 20) +
                                     " MiB of host memory for the features");
    }
    ~HostArray() {
        if (p_) starpu_free_flags(p_, n_ * sizeof(T), STARPU_MALLOC_PINNED);
    }
    HostArray(const HostArray&) = delete;
    HostArray& operator=(const HostArray&) = delete;
    T* data() { return p_; }
    const T* data() const { return p_; }
    T& operator[](size_t i) { return p_[i]; }
    size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    size_t n_;
};

/// A StarPU scratch tile (per-worker, allocated by StarPU where a task runs).
class ScratchTile {
public:
    ScratchTile(int64_t rows, int64_t cols, size_t elem) {
        starpu_matrix_data_register(&h_, -1, 0, static_cast<uint32_t>(rows), static_cast<uint32_t>(rows),
                                    static_cast<uint32_t>(cols), elem);
    }
    ~ScratchTile() { starpu_data_unregister(h_); }
    ScratchTile(const ScratchTile&) = delete;
    ScratchTile& operator=(const ScratchTile&) = delete;
    starpu_data_handle_t handle() const { return h_; }

private:
    starpu_data_handle_t h_;
};

}  // namespace lssvm

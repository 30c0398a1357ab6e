// GPU tests' matrices in and out of a TileMatrix: from the host array itself, or through a device copy of it,
// the import/export path of a CUDA application (TileMatrix::import and export_to accept device pointers).
#pragma once
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "starfact/tile_matrix.hpp"

namespace starfact::test {

template <typename T>
class ArrayPath {
public:
    /// With `device`, a device copy of A that import() reads and export_to() goes through; freed at the end.
    ArrayPath(const std::vector<T>& A, bool device) : bytes_(A.size() * sizeof(T)) {
        if (!device) return;
        REQUIRE(cudaMalloc(&d_, bytes_) == cudaSuccess);
        REQUIRE(cudaMemcpy(d_, A.data(), bytes_, cudaMemcpyHostToDevice) == cudaSuccess);
    }
    ~ArrayPath() {
        if (d_) cudaFree(d_);
    }
    ArrayPath(const ArrayPath&) = delete;
    ArrayPath& operator=(const ArrayPath&) = delete;

    /// tiles.import of A (n x n, leading dimension n), or of its device copy.
    void import(TileMatrix<T>& tiles, const std::vector<T>& A, int64_t n) const { tiles.import(d_ ? d_ : A.data(), n); }
    /// tiles.export_to into out (n x n); through the device copy, which first takes out's values, so that what
    /// the export leaves untouched reads the same on both paths.
    void export_to(const TileMatrix<T>& tiles, std::vector<T>& out, int64_t n) const {
        if (!d_) {
            tiles.export_to(out.data(), n);
            return;
        }
        REQUIRE(out.size() * sizeof(T) == bytes_);
        REQUIRE(cudaMemcpy(d_, out.data(), bytes_, cudaMemcpyHostToDevice) == cudaSuccess);
        tiles.export_to(d_, n);
        REQUIRE(cudaMemcpy(out.data(), d_, bytes_, cudaMemcpyDeviceToHost) == cudaSuccess);
    }

private:
    size_t bytes_;
    T* d_ = nullptr;
};

namespace prelude {
using test::ArrayPath;
}  // namespace prelude

}  // namespace starfact::test

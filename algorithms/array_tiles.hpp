// Internal: the tiles the array forms of the API (potrf(rt, n, A, lda, ...), posv(rt, ...), ...) work on.
#pragma once
#include <cstdint>

#include "starfact/cholesky.hpp"
#include "starfact/plan.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

/// Where an array form's tiles live: a device array itself (a view in device memory); a host array itself with
/// Tiling::residency Host (the default), a device-resident copy with Device.
inline Residency array_residency(const Runtime& rt, const void* data, const Tiling& tiling, const char* function,
                                 const char* argument) {
    return residency_of(rt, data, function, argument) == Residency::Device ? Residency::Device : tiling.residency;
}

/// The array Cholesky's arguments checked (n, lda, tiling, A; errors from `function`) and its plan from the planning
/// entry (algorithms/potrf_api.cpp), the call's one: what potrf(rt, n, A, lda, ...) and potrf_logdet share.
template <typename T>
Plan cholesky_array_plan(const char* function, Runtime& rt, int64_t n, T* A, int64_t lda, const Options& opts,
                         const Tiling& tiling);

/// The caller's column-major m x n array as tiles: a view of the array (no copy; StarPU moves tiles between the array
/// and the workers, and the array holds the result once this object is destroyed) for a device array, and for a
/// host array with Tiling::residency Host (the default); with Device, a host array gets a device-resident copy,
/// which write_back() copies into the array. An array whose tiles StarPU and the kernels cannot address as a view
/// (TileMatrix::viewable: a leading dimension of 2^31 / nb or more) gets a copy too, where the array lives (host or
/// device tiles), so that arrays of any leading dimension are solved alike.
template <typename T>
class ArrayTiles {
public:
    ArrayTiles(Runtime& rt, int64_t m, int64_t n, int64_t nb, T* data, int64_t ld, const Tiling& tiling,
               bool lower_only)
        : data_(data), ld_(ld), tiles_(make(rt, m, n, nb, data, ld, tiling, lower_only)) {
        if (!tiles_.is_view()) tiles_.import(data, ld);
    }
    TileMatrix<T>& tiles() { return tiles_; }
    /// A copy's contents into the array (a view needs nothing).
    void write_back() {
        if (!tiles_.is_view()) tiles_.export_to(data_, ld_);
    }

private:
    static TileLayout layout(bool lower_only) {
        TileLayout l;
        l.lower_only = lower_only;
        return l;
    }
    // (a prvalue each: TileMatrix is not movable)
    static TileMatrix<T> make(Runtime& rt, int64_t m, int64_t n, int64_t nb, T* data, int64_t ld, const Tiling& tiling,
                              bool lower_only) {
        const bool device_array = m > 0 && n > 0 && residency_of(rt, data) == Residency::Device;
        if (tiling.residency == Residency::Device && !device_array)
            return TileMatrix<T>(rt, m, n, nb, Residency::Device, layout(lower_only));
        if (!TileMatrix<T>::viewable(n, nb, ld))
            return TileMatrix<T>(rt, m, n, nb, device_array ? Residency::Device : Residency::Host, layout(lower_only));
        return TileMatrix<T>(rt, m, n, nb, data, ld, layout(lower_only));
    }

    T* data_;
    int64_t ld_;
    TileMatrix<T> tiles_;
};

}  // namespace starfact::detail

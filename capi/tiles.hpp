// What the C ABI's operations share: arrays copied into tiles and back.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>

#include "capi/arrays.hpp"
#include "capi/job.hpp"
#include "capi/starfact_c.h"
#include "starfact/tile_matrix.hpp"

namespace starfact::capi {

/// A TileMatrix of m's shape in nb x nb tiles (nb at least 1), holding a copy of m.
template <typename T>
std::shared_ptr<TileMatrix<T>> tiles_of(Runtime& rt, const starfact_c_matrix& m, int64_t nb, Residency residency) {
    auto t = std::make_shared<TileMatrix<T>>(rt, m.rows, m.cols, std::max<int64_t>(1, nb), residency);
    t->import(data<T>(m), m.ld);
    return t;
}

/// An optional output argument, copied (it may be absent: data null).
struct Output {
    starfact_c_matrix matrix{};
    bool present = false;
    bool on_device() const { return present && matrix.device != STARFACT_C_HOST; }
};

/// Checks the output `out` of `function` (absent when null or with null data) against the shape and dtype of `in`.
Output output_like(const char* function, const char* argument, const starfact_c_matrix* out,
                   const starfact_c_matrix& in, const char* in_name, const Runtime& rt);

/// Copies the tiles into the output, if present.
template <typename T>
void copy_out(const TileMatrix<T>& tiles, const Output& out) {
    if (out.present) tiles.export_to(data<T>(out.matrix), out.matrix.ld);
}

/// Settles the copies into device outputs (the legacy default stream), so that they are complete for the caller's
/// streams when the wait returns.
void settle(const Output& a, const Output& b = {});

}  // namespace starfact::capi

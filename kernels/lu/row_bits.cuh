// Internal: what the row-moving kernels of the tile LU (laswp.cu, laswp_tile.cu) move for an element of T: T itself,
// or for complex T a pair of its real type aligned as that type (std::complex has no device copy, and a complex tile
// need not be aligned to twice its real type). The kernels only move values, so one instantiation per element size
// serves every precision.
#pragma once
#include <complex>

namespace starfact::detail::gpu {

template <typename R>
struct Pair {
    R re, im;
};
template <typename T>
struct Bits {
    using type = T;
};
template <typename R>
struct Bits<std::complex<R>> {
    using type = Pair<R>;
};

}  // namespace starfact::detail::gpu

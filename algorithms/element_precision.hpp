// Internal: the precision of an element type as the plan's requests name it (Request::element), from the scalar
// layer's traits: Fp32 for float, Fp64 for double, C64 for std::complex<float>, C128 for std::complex<double>.
#pragma once
#include "kernels/scalar.hpp"
#include "starfact/options.hpp"

namespace starfact::detail {

template <typename T>
constexpr Precision element_precision() {
    if constexpr (is_complex_v<T>) return is_single_v<T> ? Precision::C64 : Precision::C128;
    else return is_single_v<T> ? Precision::Fp32 : Precision::Fp64;
}

}  // namespace starfact::detail

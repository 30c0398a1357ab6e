// Internal: the precision of an element type as the plan's requests name it (Request::element), from the scalar
// layer's traits: Fp32 for float and std::complex<float>, Fp64 for double and std::complex<double>.
#pragma once
#include "kernels/scalar.hpp"
#include "starfact/options.hpp"

namespace starfact::detail {

template <typename T>
constexpr Precision element_precision() {
    return is_single_v<T> ? Precision::Fp32 : Precision::Fp64;
}

}  // namespace starfact::detail

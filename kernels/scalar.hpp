// Internal: the scalar layer's traits. Per element type (float, double, std::complex<float>, std::complex<double>):
// its real type, whether it is complex, its LAPACK letter (s, d, c, z), its machine epsilon, and conj/real helpers
// that real types pass through unchanged. The precision decisions of the codelets and algorithms ask these, not
// sizeof: a std::complex<float> has the bytes of a double. The CUDA data types are in kernels/cuda_scalar.hpp.
#pragma once
#include <complex>
#include <limits>
#include <type_traits>

namespace starfact::detail {

/// Defined for the four element types only: another type fails to compile where the layer is asked about it.
template <typename T>
struct ScalarTraits;

template <>
struct ScalarTraits<float> {
    using Real = float;
    static constexpr bool is_complex = false;
    static constexpr char letter = 's';
};
template <>
struct ScalarTraits<double> {
    using Real = double;
    static constexpr bool is_complex = false;
    static constexpr char letter = 'd';
};
template <>
struct ScalarTraits<std::complex<float>> {
    using Real = float;
    static constexpr bool is_complex = true;
    static constexpr char letter = 'c';
};
template <>
struct ScalarTraits<std::complex<double>> {
    using Real = double;
    static constexpr bool is_complex = true;
    static constexpr char letter = 'z';
};

/// The real type of T: float for float and std::complex<float>, double for double and std::complex<double>.
template <typename T>
using real_t = typename ScalarTraits<T>::Real;

template <typename T>
constexpr bool is_complex_v = ScalarTraits<T>::is_complex;

/// Whether T's arithmetic is single precision (s, c) or double (d, z).
template <typename T>
constexpr bool is_single_v = std::is_same<real_t<T>, float>::value;
template <typename T>
constexpr bool is_double_v = std::is_same<real_t<T>, double>::value;

/// Whether T is the real single-precision type: the one whose tasks may run on tensor cores (TaskOptions::compute).
template <typename T>
constexpr bool is_real_single_v = std::is_same<T, float>::value;
/// Whether T is the real double-precision type: the one a mixed-precision solve refines.
template <typename T>
constexpr bool is_real_double_v = std::is_same<T, double>::value;

/// The single-precision type of T's kind: float for the real types, std::complex<float> for the complex ones (the
/// element type of a mixed-precision solve's low-precision factor).
template <typename T>
using single_t = std::conditional_t<ScalarTraits<T>::is_complex, std::complex<float>, float>;

/// T's LAPACK letter: 's', 'd', 'c' or 'z'.
template <typename T>
constexpr char lapack_letter() {
    return ScalarTraits<T>::letter;
}

/// The machine epsilon of T's real type (LAPACK's eps: the distance from 1 to the next number).
template <typename T>
constexpr real_t<T> epsilon() {
    return std::numeric_limits<real_t<T>>::epsilon();
}

/// The conjugate of x; x itself for a real type (std::conj would turn a real into a complex).
template <typename T>
constexpr T conj_of(const T& x) {
    if constexpr (is_complex_v<T>)
        return T(x.real(), -x.imag());
    else
        return x;
}

/// The real part of x; x itself for a real type.
template <typename T>
constexpr real_t<T> real_of(const T& x) {
    if constexpr (is_complex_v<T>)
        return x.real();
    else
        return x;
}

/// The imaginary part of x; 0 for a real type.
template <typename T>
constexpr real_t<T> imag_of(const T& x) {
    if constexpr (is_complex_v<T>)
        return x.imag();
    else
        return real_t<T>(0);
}

/// |x|^2 without a square root (the squared modulus of a complex number).
template <typename T>
constexpr real_t<T> abs2_of(const T& x) {
    return real_of(x) * real_of(x) + imag_of(x) * imag_of(x);
}

/// The name of T's instance among four (a performance model symbol, a codelet name).
template <typename T>
constexpr const char* by_letter(const char* s, const char* d, const char* c, const char* z) {
    constexpr char l = lapack_letter<T>();
    return l == 's' ? s : l == 'd' ? d : l == 'c' ? c : z;
}

}  // namespace starfact::detail

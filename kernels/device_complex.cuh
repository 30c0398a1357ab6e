// Internal, CUDA only: complex elements in kernels. std::complex has no device code, so a kernel over T works on
// device_t<T>: T itself for a real type, Cx<R> (a pair of R laid out as std::complex<R>) for std::complex<R>, with
// the few operations the kernels use (construction from a real, equality, sums, division, finiteness, modulus,
// scaling by a power of two); a launcher's complex instance passes its pointers through on_device.
#pragma once
#include <cuda_runtime.h>

#include <cmath>
#include <complex>

namespace starfact::detail::gpu {

/// A complex number of real type R on the device.
template <typename R>
struct Cx {
    R re, im;
    __device__ Cx() = default;
    __device__ explicit Cx(R r) : re(r), im(0) {}
};
template <typename R>
__device__ inline bool operator==(Cx<R> a, Cx<R> b) {
    return a.re == b.re && a.im == b.im;
}
template <typename R>
__device__ inline Cx<R>& operator+=(Cx<R>& a, Cx<R> b) {
    a.re += b.re;
    a.im += b.im;
    return a;
}
/// a / b = a conj(b) / |b|^2, b scaled by its largest part first (no overflow of |b|^2 near the top of the range).
template <typename R>
__device__ inline Cx<R> operator/(Cx<R> a, Cx<R> b) {
    const R s = fabs(b.re) > fabs(b.im) ? fabs(b.re) : fabs(b.im);
    const R br = b.re / s, bi = b.im / s, d = (br * br + bi * bi) * s;
    Cx<R> q;
    q.re = (a.re * br + a.im * bi) / d;
    q.im = (a.im * br - a.re * bi) / d;
    return q;
}

/// Whether x is finite (both parts of a complex x).
template <typename R>
__device__ inline bool finite_of(R x) {
    return isfinite(static_cast<double>(x));
}
template <typename R>
__device__ inline bool finite_of(Cx<R> x) {
    return isfinite(static_cast<double>(x.re)) && isfinite(static_cast<double>(x.im));
}
/// |x| in double (the modulus of a complex x).
template <typename R>
__device__ inline double magnitude(R x) {
    return fabs(static_cast<double>(x));
}
template <typename R>
__device__ inline double magnitude(Cx<R> x) {
    return hypot(static_cast<double>(x.re), static_cast<double>(x.im));
}
/// x 2^k (both parts of a complex x).
template <typename R>
__device__ inline R times_power_of_two(R x, int k) {
    return static_cast<R>(ldexp(static_cast<double>(x), k));
}
template <typename R>
__device__ inline Cx<R> times_power_of_two(Cx<R> x, int k) {
    Cx<R> y;
    y.re = times_power_of_two(x.re, k);
    y.im = times_power_of_two(x.im, k);
    return y;
}

/// The device type of an element of T: T, or Cx of its real type.
template <typename T>
struct DeviceOf {
    using type = T;
};
template <typename R>
struct DeviceOf<std::complex<R>> {
    using type = Cx<R>;
};
template <typename T>
using device_t = typename DeviceOf<T>::type;
template <typename T>
device_t<T>* on_device(T* p) {
    return reinterpret_cast<device_t<T>*>(p);
}
template <typename T>
const device_t<T>* on_device(const T* p) {
    return reinterpret_cast<const device_t<T>*>(p);
}

}  // namespace starfact::detail::gpu

// The C ABI's array arguments: checks of starfact_c_matrix / starfact_c_batch (each failure an InvalidArgument
// naming the argument as the caller spelled it) and the dispatch on their element type.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

#include "capi/errors.hpp"
#include "capi/starfact_c.h"
#include "starfact/plan.hpp"
#include "starfact/runtime.hpp"

namespace starfact::capi {

/// "float32", "float64", "complex64" or "complex128".
const char* dtype_name(int32_t dtype);
/// The bytes of one entry of `dtype` (4, 8, 8, 16).
size_t dtype_size(int32_t dtype);
/// Whether `dtype` is STARFACT_C_COMPLEX64 or STARFACT_C_COMPLEX128.
inline bool is_complex_dtype(int32_t dtype) {
    return dtype == STARFACT_C_COMPLEX64 || dtype == STARFACT_C_COMPLEX128;
}

/// The element types an operation takes: the real ones only (the default), or the complex ones too (potrf, potrs,
/// posv, potri, getrf, getrs, gesv, and the QR: geqrf, ormqr, orgqr, gels).
enum class Elements { Real, RealOrComplex };
/// What `op` takes (starfact_c_plan's check of a).
Elements elements_of(Operation op);
/// Throws InvalidArgument naming `argument` unless `dtype` is one of `elements` (a complex dtype where only real
/// ones are taken: a message saying which operations take complex matrices; `operation`, the operation it names,
/// when not `function`).
void require_dtype(const char* function, const char* argument, int32_t dtype, Elements elements,
                   const char* operation = nullptr);

/// Checks one matrix argument: present, a dtype of `elements`, rows, cols >= 0, ld >= max(1, rows), data non-null
/// unless empty, and device memory only in a CUDA build on a runtime with CUDA workers (`rt`; null: not checked).
/// `optional`: a null pointer or null data stands for an absent output, and the function returns false for it.
bool check_matrix(const char* function, const char* argument, const starfact_c_matrix* m, const Runtime* rt,
                  bool optional = false, Elements elements = Elements::Real);
/// The same for a batch (stride >= ld * cols, count >= 0), and for what the batched kernels address: ld * cols < 2^31,
/// the whole batch within 2^63 - 1 bytes.
void check_batch(const char* function, const char* argument, const starfact_c_batch* b,
                 Elements elements = Elements::Real);
/// The member stride of a batch's pivots ('piv'): >= n, the `count` members within 2^63 - 1 bytes.
void check_pivot_stride(const char* function, int64_t stride, int64_t n, int64_t count);

/// Checks a square matrix argument (check_matrix, then rows == cols); returns its order.
int64_t check_square(const char* function, const char* argument, const starfact_c_matrix* m, const Runtime& rt,
                     Elements elements = Elements::Real);
/// Checks the right-hand sides b of an order-n solve with the matrix `a_name`: n rows, its dtype.
void check_right_hand_sides(const char* function, const starfact_c_matrix* b, int64_t n, int32_t dtype,
                            const char* a_name, const Runtime& rt, Elements elements = Elements::Real);

/// Throws InvalidArgument naming `argument` unless `m` is rows x cols.
void require_shape(const char* function, const char* argument, const starfact_c_matrix& m, int64_t rows,
                   int64_t cols);
/// Throws InvalidArgument naming `argument` unless `m` has the dtype `dtype` of `reference`.
void require_same_dtype(const char* function, const char* argument, int32_t dtype, int32_t reference_dtype,
                        const char* reference);

/// Calls body(T{}) with T the real element type `dtype` names (float or double; the callers checked it).
template <typename Body>
void dispatch(int32_t dtype, Body&& body) {
    if (dtype == STARFACT_C_FLOAT32) body(float{});
    else body(double{});
}
/// Calls body(T{}) with T any of the four element types `dtype` names (the callers checked it).
template <typename Body>
void dispatch_any(int32_t dtype, Body&& body) {
    switch (dtype) {
        case STARFACT_C_FLOAT32: body(float{}); break;
        case STARFACT_C_COMPLEX64: body(std::complex<float>{}); break;
        case STARFACT_C_COMPLEX128: body(std::complex<double>{}); break;
        default: body(double{}); break;
    }
}
/// Calls body(T{}) with T the complex element type `dtype` names (std::complex<float> or std::complex<double>).
template <typename Body>
void dispatch_complex(int32_t dtype, Body&& body) {
    if (dtype == STARFACT_C_COMPLEX64) body(std::complex<float>{});
    else body(std::complex<double>{});
}

/// Calls body(T{}) with T the element type of `dtype`, real or complex; a complex call runs as the C ABI's `function`
/// (as_c_call with the table `names`: the errors of the complex forms, the plan's included, in the C ABI's names).
template <typename Names, typename Body>
void dispatch_element(const char* function, const Names& names, int32_t dtype, Body&& body) {
    if (is_complex_dtype(dtype)) as_c_call(function, names, [&] { dispatch_complex(dtype, body); });
    else dispatch(dtype, body);
}

/// The data pointer of `m` as T*.
template <typename T>
T* data(const starfact_c_matrix& m) {
    return static_cast<T*>(m.data);
}

}  // namespace starfact::capi

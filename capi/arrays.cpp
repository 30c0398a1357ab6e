// Checks of the C ABI's array arguments.
#include "capi/arrays.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "starfact/error.hpp"

namespace starfact::capi {
namespace {

std::string got(int64_t v) { return " (got " + std::to_string(v) + ")"; }


/// Whether (count - 1) * stride + (cols - 1) * ld + rows entries of `size` bytes stay within 2^63 - 1 bytes (count,
/// rows, cols >= 1; ld, stride >= 0): the most an array can span, and what keeps every offset into it from
/// overflowing.
bool fits(int64_t count, int64_t stride, int64_t rows, int64_t cols, int64_t ld, size_t size) {
    int64_t members = 0, columns = 0, entries = 0, bytes = 0;
    return !__builtin_mul_overflow(count - 1, stride, &members) && !__builtin_mul_overflow(cols - 1, ld, &columns) &&
           !__builtin_add_overflow(members, columns, &entries) && !__builtin_add_overflow(entries, rows, &entries) &&
           !__builtin_mul_overflow(entries, static_cast<int64_t>(size), &bytes);
}

std::string extent_problem(int64_t rows, int64_t cols, int64_t ld, size_t size) {
    return "spans more than 2^63 - 1 bytes: (cols - 1) * ld + rows entries of " + std::to_string(size) +
           " bytes with " + std::to_string(rows) + " rows, " + std::to_string(cols) +
           " columns and a leading dimension of " + std::to_string(ld) + "; no array is that large";
}


void check_device(const char* function, const char* argument, int32_t device, const Runtime* rt) {
    require(device >= STARFACT_C_HOST, function, argument,
            [&] { return "has an invalid device " + std::to_string(device); });
    if (device == STARFACT_C_HOST) return;
    if (!built_with_cuda())
        throw NotBuilt(argument, std::string("starfact::") + function + ": argument '" + argument +
                                     "' is in CUDA device memory, but starfact was built without CUDA");
    const int count = cuda_device_count();
    require(device < count, function, argument, [&] {
        return "is in the memory of CUDA device " + std::to_string(device) + ", but " + std::to_string(count) +
               " device(s) are visible";
    });
    if (rt)
        require(rt->cuda_devices() > 0, function, argument,
                "is in CUDA device memory, but the runtime has no CUDA worker (started with ncuda=0?)");
}

}  // namespace

const char* dtype_name(int32_t dtype) {
    switch (dtype) {
        case STARFACT_C_FLOAT32: return "float32";
        case STARFACT_C_FLOAT64: return "float64";
        case STARFACT_C_COMPLEX64: return "complex64";
        case STARFACT_C_COMPLEX128: return "complex128";
    }
    return "unknown";
}

size_t dtype_size(int32_t dtype) {
    switch (dtype) {
        case STARFACT_C_FLOAT32: return 4;
        case STARFACT_C_COMPLEX64: return 8;
        case STARFACT_C_COMPLEX128: return 16;
    }
    return 8;
}

Elements elements_of(Operation op) {
    switch (op) {
        case Operation::Potrf:
        case Operation::Potrs:
        case Operation::Posv:
        case Operation::Potri:
        case Operation::Getrf:
        case Operation::Getrs:
        case Operation::Gesv:
        case Operation::Geqrf:
        case Operation::Gels: return Elements::RealOrComplex;
        default: return Elements::Real;
    }
}

void require_dtype(const char* function, const char* argument, int32_t dtype, Elements elements,
                   const char* operation) {
    const bool real = dtype == STARFACT_C_FLOAT32 || dtype == STARFACT_C_FLOAT64;
    if (is_complex_dtype(dtype))
        require(elements == Elements::RealOrComplex, function, argument, [&] {
            return std::string("holds ") + dtype_name(dtype) + " elements, but " + (operation ? operation : function) +
                   " takes float32 or float64 only (complex matrices: potrf, potrs, posv, potri, getrf, getrs, gesv, "
                   "geqrf, ormqr, orgqr, gels and the batched ones)";
        });
    else
        require(real, function, argument, [&] {
            return std::string("must hold ") +
                   (elements == Elements::Real ? "float32 or float64" : "float32, float64, complex64 or complex128") +
                   " elements (dtype code " + std::to_string(dtype) + ")";
        });
}

bool check_matrix(const char* function, const char* argument, const starfact_c_matrix* m, const Runtime* rt,
                  bool optional, Elements elements) {
    if (optional && (m == nullptr || m->data == nullptr)) return false;
    require(m != nullptr, function, argument, "is missing (null descriptor)");
    require_dtype(function, argument, m->dtype, elements);
    require(m->rows >= 0, function, argument, [&] { return "must have rows >= 0" + got(m->rows); });
    require(m->cols >= 0, function, argument, [&] { return "must have columns >= 0" + got(m->cols); });
    require(m->ld >= std::max<int64_t>(1, m->rows), function, argument, [&] {
        return "must have a leading dimension >= max(1, rows) = " + std::to_string(std::max<int64_t>(1, m->rows)) +
               got(m->ld);
    });
    const bool empty = m->rows == 0 || m->cols == 0;
    require(empty || fits(1, 0, m->rows, m->cols, m->ld, dtype_size(m->dtype)), function, argument,
            [&] { return extent_problem(m->rows, m->cols, m->ld, dtype_size(m->dtype)); });
    require(m->data != nullptr || empty, function, argument, "has null data");
    check_device(function, argument, m->device, rt);
    return true;
}

void check_batch(const char* function, const char* argument, const starfact_c_batch* b, Elements elements) {
    require(b != nullptr, function, argument, "is missing (null descriptor)");
    require_dtype(function, argument, b->dtype, elements);
    require(b->rows >= 0 && b->cols >= 0, function, argument, "must have rows and columns >= 0");
    require(b->count >= 0, function, argument, [&] { return "must have a member count >= 0" + got(b->count); });
    require(b->ld >= std::max<int64_t>(1, b->rows), function, argument, [&] {
        return "must have a leading dimension >= max(1, rows) = " + std::to_string(std::max<int64_t>(1, b->rows)) +
               got(b->ld);
    });
    // The batched kernels address a member with 32-bit offsets: ld * cols < 2^31 (which keeps the next product in
    // 64 bits).
    require(b->ld <= INT32_MAX / std::max<int64_t>(1, b->cols), function, argument, [&] {
        return "must have a leading dimension with ld * max(1, cols) < 2^31, the batched kernels' 32-bit offsets (" +
               std::to_string(b->cols) + " columns" + got(b->ld) + ")";
    });
    require(b->count <= 1 || b->stride >= b->ld * b->cols, function, argument, [&] {
        return "must have a member stride >= ld * cols = " + std::to_string(b->ld * b->cols) + got(b->stride);
    });
    const bool empty = b->rows == 0 || b->cols == 0 || b->count == 0;
    require(empty || fits(b->count, b->stride, b->rows, b->cols, b->ld, dtype_size(b->dtype)), function, argument,
            [&] {
                return "spans more than 2^63 - 1 bytes: (count - 1) * stride + (cols - 1) * ld + rows entries of " +
                       std::to_string(dtype_size(b->dtype)) + " bytes with a member stride of " +
                       std::to_string(b->stride) + " and " + std::to_string(b->count) +
                       " members; no array is that large";
            });
    require(b->data != nullptr || empty, function, argument, "has null data");
    check_device(function, argument, b->device, nullptr);
}

void check_pivot_stride(const char* function, int64_t stride, int64_t n, int64_t count) {
    require(stride >= n, function, "stride_piv", [&] {
        return "must be >= n = " + std::to_string(n) + ", the order of the members" + got(stride);
    });
    require(count <= 1 || n == 0 || fits(count, stride, n, 1, n, sizeof(int32_t)), function, "stride_piv", [&] {
        return "spans more than 2^63 - 1 bytes with a member stride of " + std::to_string(stride) + " over " +
               std::to_string(count) + " members: no array is that large";
    });
}

int64_t check_square(const char* function, const char* argument, const starfact_c_matrix* m, const Runtime& rt,
                     Elements elements) {
    check_matrix(function, argument, m, &rt, false, elements);
    require(m->rows == m->cols, function, argument, [&] {
        return "must be square (got " + std::to_string(m->rows) + " x " + std::to_string(m->cols) + ")";
    });
    return m->rows;
}

void check_right_hand_sides(const char* function, const starfact_c_matrix* b, int64_t n, int32_t dtype,
                            const char* a_name, const Runtime& rt, Elements elements) {
    check_matrix(function, "b", b, &rt, false, elements);
    require(b->rows == n, function, "b", [&] {
        return "must have " + std::to_string(n) + " rows, as " + a_name + " (got " + std::to_string(b->rows) + ")";
    });
    require_same_dtype(function, "b", b->dtype, dtype, a_name);
}

void require_shape(const char* function, const char* argument, const starfact_c_matrix& m, int64_t rows,
                   int64_t cols) {
    require(m.rows == rows && m.cols == cols, function, argument, [&] {
        return "must be " + std::to_string(rows) + " x " + std::to_string(cols) + " (got " + std::to_string(m.rows) +
               " x " + std::to_string(m.cols) + ")";
    });
}

void require_same_dtype(const char* function, const char* argument, int32_t dtype, int32_t reference_dtype,
                        const char* reference) {
    require(dtype == reference_dtype, function, argument, [&] {
        return std::string("must have the dtype of ") + reference + " (" + dtype_name(reference_dtype) + "; got " +
               dtype_name(dtype) + ")";
    });
}

}  // namespace starfact::capi

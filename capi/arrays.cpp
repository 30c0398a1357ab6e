// Checks of the C ABI's array arguments.
#include "capi/arrays.hpp"

#include <algorithm>

#include "starfact/error.hpp"

namespace starfact::capi {
namespace {

std::string got(int64_t v) { return " (got " + std::to_string(v) + ")"; }

void check_dtype(const char* function, const char* argument, int32_t dtype) {
    require(dtype == STARFACT_C_FLOAT32 || dtype == STARFACT_C_FLOAT64, function, argument,
            [&] { return "must hold float32 or float64 elements (dtype code " + std::to_string(dtype) + ")"; });
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

const char* dtype_name(int32_t dtype) { return dtype == STARFACT_C_FLOAT32 ? "float32" : "float64"; }

bool check_matrix(const char* function, const char* argument, const starfact_c_matrix* m, const Runtime* rt,
                  bool optional) {
    if (optional && (m == nullptr || m->data == nullptr)) return false;
    require(m != nullptr, function, argument, "is missing (null descriptor)");
    check_dtype(function, argument, m->dtype);
    require(m->rows >= 0, function, argument, [&] { return "must have rows >= 0" + got(m->rows); });
    require(m->cols >= 0, function, argument, [&] { return "must have columns >= 0" + got(m->cols); });
    require(m->ld >= std::max<int64_t>(1, m->rows), function, argument, [&] {
        return "must have a leading dimension >= max(1, rows) = " + std::to_string(std::max<int64_t>(1, m->rows)) +
               got(m->ld);
    });
    require(m->data != nullptr || m->rows * m->cols == 0, function, argument, "has null data");
    check_device(function, argument, m->device, rt);
    return true;
}

void check_batch(const char* function, const char* argument, const starfact_c_batch* b) {
    require(b != nullptr, function, argument, "is missing (null descriptor)");
    check_dtype(function, argument, b->dtype);
    require(b->rows >= 0 && b->cols >= 0, function, argument, "must have rows and columns >= 0");
    require(b->count >= 0, function, argument, [&] { return "must have a member count >= 0" + got(b->count); });
    require(b->ld >= std::max<int64_t>(1, b->rows), function, argument, [&] {
        return "must have a leading dimension >= max(1, rows) = " + std::to_string(std::max<int64_t>(1, b->rows)) +
               got(b->ld);
    });
    require(b->count <= 1 || b->stride >= b->ld * b->cols, function, argument, [&] {
        return "must have a member stride >= ld * cols = " + std::to_string(b->ld * b->cols) + got(b->stride);
    });
    require(b->data != nullptr || b->rows * b->cols * b->count == 0, function, argument, "has null data");
    check_device(function, argument, b->device, nullptr);
}

int64_t check_square(const char* function, const char* argument, const starfact_c_matrix* m, const Runtime& rt) {
    check_matrix(function, argument, m, &rt);
    require(m->rows == m->cols, function, argument, [&] {
        return "must be square (got " + std::to_string(m->rows) + " x " + std::to_string(m->cols) + ")";
    });
    return m->rows;
}

void check_right_hand_sides(const char* function, const starfact_c_matrix* b, int64_t n, int32_t dtype,
                            const char* a_name, const Runtime& rt) {
    check_matrix(function, "b", b, &rt);
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

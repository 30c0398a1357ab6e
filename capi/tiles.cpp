// The array arguments of the C ABI's operations: outputs, residency, overlaps, host copies and their counters.
#include "capi/tiles.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#ifdef STARFACT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "starfact/error.hpp"

namespace starfact::capi {
namespace {

std::atomic<int64_t> copies{0};
std::atomic<int64_t> copied_bytes{0};

/// The byte span [first, last) of m's column-major extent; empty for absent or empty matrices.
std::pair<uintptr_t, uintptr_t> span(const starfact_c_matrix& m) {
    if (m.data == nullptr || m.rows * m.cols == 0) return {0, 0};
    const auto size = static_cast<int64_t>(dtype_size(m.dtype));
    const auto first = reinterpret_cast<uintptr_t>(m.data);
    return {first, first + static_cast<uintptr_t>(((m.cols - 1) * m.ld + m.rows) * size)};
}

}  // namespace

Output output_like(const char* function, const char* argument, const starfact_c_matrix* out,
                   const starfact_c_matrix& in, const char* in_name, const Runtime& rt, Elements elements) {
    Output o;
    if (!check_matrix(function, argument, out, &rt, true, elements)) return o;
    require_shape(function, argument, *out, in.rows, in.cols);
    require_same_dtype(function, argument, out->dtype, in.dtype, in_name);
    o.matrix = *out;
    o.present = true;
    return o;
}

Call checked_call(const char* function, const Runtime& rt, const char* a_name, const starfact_c_matrix* a,
                  const starfact_c_matrix* a_out, const starfact_c_matrix* b, const starfact_c_matrix* b_out,
                  const starfact_c_options* options, Elements elements) {
    Call c;
    c.n = check_square(function, a_name, a, rt, elements);
    check_right_hand_sides(function, b, c.n, a->dtype, a_name, rt, elements);
    c.a_out = output_like(function, "a_out", a_out, *a, a_name, rt, elements);
    c.b_out = output_like(function, "b_out", b_out, *b, "b", rt, elements);
    c.p = parse_options(function, options);
    c.where = residency_for(c.p, {a, a_out, b, b_out});
    return c;
}

Call checked_call(const char* function, const Runtime& rt, const starfact_c_matrix* a, const starfact_c_matrix* a_out,
                  const starfact_c_options* options, Elements elements) {
    Call c;
    c.n = check_square(function, "a", a, rt, elements);
    c.a_out = output_like(function, "a_out", a_out, *a, "a", rt, elements);
    c.p = parse_options(function, options);
    c.where = residency_for(c.p, {a, a_out});
    return c;
}

Residency residency_for(const ParsedOptions& p, std::initializer_list<const starfact_c_matrix*> arrays) {
    if (p.tiling.residency == Residency::Device) return Residency::Device;
    if (p.residency_given || p.options.mapping == Mapping::CpuOnly) return p.tiling.residency;
    for (const starfact_c_matrix* m : arrays)
        if (m != nullptr && m->data != nullptr && m->device != STARFACT_C_HOST) return Residency::Device;
    return Residency::Host;
}

bool overlaps(const starfact_c_matrix* x, const starfact_c_matrix* y) {
    if (x == nullptr || y == nullptr || x->device != y->device) return false;
    const auto a = span(*x), b = span(*y);
    return a.first < a.second && b.first < b.second && a.first < b.second && b.first < a.second;
}

void copy_matrix(const starfact_c_matrix& from, const starfact_c_matrix& to) {
    const size_t size = dtype_size(from.dtype);
    const auto* src = static_cast<const char*>(from.data);
    auto* dst = static_cast<char*>(to.data);
    if (from.rows * from.cols == 0) return;
#ifdef STARFACT_HAVE_CUDA
    if (from.device != STARFACT_C_HOST || to.device != STARFACT_C_HOST) {
        // cudaMemcpy2D takes pitches below 2^31 bytes (cudaDeviceProp::memPitch): wider arrays go column by column.
        constexpr int64_t kMaxPitch = (int64_t(1) << 31) - 1;
        const bool wide = std::max(from.ld, to.ld) > kMaxPitch / static_cast<int64_t>(size);
        cudaError_t e = cudaSuccess;
        if (!wide)
            e = cudaMemcpy2D(dst, static_cast<size_t>(to.ld) * size, src, static_cast<size_t>(from.ld) * size,
                             static_cast<size_t>(from.rows) * size, static_cast<size_t>(from.cols), cudaMemcpyDefault);
        for (int64_t j = 0; wide && j < from.cols && e == cudaSuccess; ++j)
            e = cudaMemcpy(dst + static_cast<size_t>(j * to.ld) * size, src + static_cast<size_t>(j * from.ld) * size,
                           static_cast<size_t>(from.rows) * size, cudaMemcpyDefault);
        if (e != cudaSuccess) throw RuntimeError(std::string("starfact: cudaMemcpy: ") + cudaGetErrorString(e));
        settle_device_copies();
        return;
    }
#endif
    if (from.ld == from.rows && to.ld == to.rows) {
        std::memcpy(dst, src, static_cast<size_t>(from.rows * from.cols) * size);
        return;
    }
    for (int64_t j = 0; j < from.cols; ++j)
        std::memcpy(dst + static_cast<size_t>(j * to.ld) * size, src + static_cast<size_t>(j * from.ld) * size,
                    static_cast<size_t>(from.rows) * size);
}

void count_copy(int64_t bytes) {
    if (bytes <= 0) return;
    copies.fetch_add(1, std::memory_order_relaxed);
    copied_bytes.fetch_add(bytes, std::memory_order_relaxed);
}

void settle(const Output& a, const Output& b) {
    if (a.on_device() || b.on_device()) settle_device_copies();
}

}  // namespace starfact::capi

extern "C" void starfact_c_copy_counters(int64_t* count, int64_t* bytes) {
    if (count) *count = starfact::capi::copies.load(std::memory_order_relaxed);
    if (bytes) *bytes = starfact::capi::copied_bytes.load(std::memory_order_relaxed);
}

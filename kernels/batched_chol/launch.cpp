// Host side of the batched Cholesky kernels: the kernel choice (tuning.hpp) and the dispatch of a runtime
// order to the range that instantiates it (ranges.hpp). The public starfact::batched::device API with its
// argument checks is algorithms/batched_cholesky_device.cpp.
#include "kernels/batched_chol/launch.hpp"

#include <cstddef>
#include <utility>

#include "kernels/batched_chol/ranges.hpp"
#include "kernels/batched_chol/tuning.hpp"

namespace starfact::batched::gpu {

namespace {
/// Whether every kernel that table chooses is compiled: the left-looking kernel or a kLibraryVariants entry.
constexpr bool compiled(const Variant* table) {
    for (int n = 1; n <= 128; ++n) {
        bool found = table[n].family == Family::LeftLooking;
        for (const Variant& v : kLibraryVariants) found = found || v == table[n];
        if (!found) return false;
    }
    return true;
}
static_assert(compiled(kPotrfDouble) && compiled(kPotrfDoubleUnaligned) && compiled(kPotrfFloat) &&
                  compiled(kPotrfFloatUnaligned),
              "tuning.hpp: a chosen resident variant is missing from kLibraryVariants");
}  // namespace

Variant potrf_choice(int n, bool is_double, bool aligned) {
    if (n < 1 || n > 128) return Variant{};
    if (is_double) return (aligned ? kPotrfDouble : kPotrfDoubleUnaligned)[n];
    return (aligned ? kPotrfFloat : kPotrfFloatUnaligned)[n];
}

namespace {
/// Largest order whose posv takes the fused kernel (bench_batched_chol's forced posv columns, batch
/// 10,000, H100; docs/batched_cholesky.md, "Kernels").
constexpr int kPosvFusedMaxFloat = 48;
constexpr int kPosvFusedMaxDouble = 40;

template <typename T, Op OP, size_t... I>
bool dispatch_ranges(const Args<T>& a, int padded, std::index_sequence<I...>) {
    auto one = [&](auto i) {
        constexpr Range r = kRanges[decltype(i)::value];
        return r.op == OP && padded >= r.lo && padded <= r.hi && range<T, r.op, r.lo, r.hi>(a);
    };
    return (one(std::integral_constant<size_t, I>{}) || ...);
}
template <typename T, Op OP>
bool dispatch(const Args<T>& a) {
    const int padded = padded_order<T>(a.n);  // posv's and potrs's orders lie in the same range
    return dispatch_ranges<T, OP>(a, padded, std::make_index_sequence<kNumRanges>{});
}
}  // namespace

template <typename T> bool launch_potrf_variant(const Args<T>& a, const Variant& v) {
    if (v.family != Family::LeftLooking) return launch_resident_variant<T>(a, v);
    return a.batch == 0 || dispatch<T, Op::Potrf>(a);
}
template <typename T> bool launch_potrf(const Args<T>& a) {
    return launch_potrf_variant<T>(a, potrf_choice(a.n, sizeof(T) == 8, columns_aligned16(a)));
}
template <typename T> bool launch_potrs(const Args<T>& a) { return a.batch == 0 || dispatch<T, Op::Potrs>(a); }
template <typename T> bool launch_posv_fused(const Args<T>& a) { return a.batch == 0 || dispatch<T, Op::Posv>(a); }
template <typename T> bool launch_posv_two_pass(const Args<T>& a) {
    return a.batch == 0 || (launch_potrf<T>(a) && launch_potrs<T>(a));  // potrs reads a.info: failed members skipped
}
template <typename T> bool launch_posv(const Args<T>& a) {
    return posv_two_pass(a.n, sizeof(T) == 8) ? launch_posv_two_pass<T>(a) : launch_posv_fused<T>(a);
}

bool posv_two_pass(int n, bool is_double) { return n > (is_double ? kPosvFusedMaxDouble : kPosvFusedMaxFloat); }

#define STARFACT_BATCHED_CHOL_LAUNCHERS(T)                                    \
    template bool launch_potrf<T>(const Args<T>&);                            \
    template bool launch_potrf_variant<T>(const Args<T>&, const Variant&);    \
    template bool launch_potrs<T>(const Args<T>&);                            \
    template bool launch_posv<T>(const Args<T>&);                             \
    template bool launch_posv_fused<T>(const Args<T>&);                       \
    template bool launch_posv_two_pass<T>(const Args<T>&);
STARFACT_BATCHED_CHOL_LAUNCHERS(float)
STARFACT_BATCHED_CHOL_LAUNCHERS(double)
#undef STARFACT_BATCHED_CHOL_LAUNCHERS

}  // namespace starfact::batched::gpu

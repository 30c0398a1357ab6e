// The argument checks of the entry points (arguments.hpp).
#include "algorithms/arguments.hpp"

#include <algorithm>

namespace starfact::detail {

void require_nonnegative(const char* function, const char* argument, int64_t value) {
    require(value >= 0, function, argument, [&] { return "must be >= 0 (got " + std::to_string(value) + ")"; });
}

void require_leading_dimension(const char* function, const char* argument, int64_t ld, int64_t rows) {
    const int64_t least = std::max<int64_t>(1, rows);
    require(ld >= least, function, argument, [&] {
        return "must be >= max(1, n) = " + std::to_string(least) + " (got " + std::to_string(ld) + ")";
    });
}

void require_tiling(const char* function, const Tiling& tiling) {
    require(tiling.nb >= 0, function, "nb",
            [&] { return "must be >= 0 (got " + std::to_string(tiling.nb) + "; 0: tuned)"; });
}

void require_array(const char* function, const char* argument, const void* array, bool empty) {
    require(array != nullptr || empty, function, argument, "is null");
}

}  // namespace starfact::detail

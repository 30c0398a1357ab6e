// The argument checks of the entry points (arguments.hpp).
#include "algorithms/arguments.hpp"

#include <algorithm>

#include "runtime/tile_limits.hpp"

namespace starfact::detail {

void require_nonnegative(const char* function, const char* argument, int64_t value) {
    require(value >= 0, function, argument, [&] { return "must be >= 0 (got " + std::to_string(value) + ")"; });
}

void require_leading_dimension(const char* function, const char* argument, int64_t ld, int64_t rows,
                               const char* rows_name, int64_t cols, size_t entry_bytes) {
    const int64_t least = std::max<int64_t>(1, rows);
    require(ld >= least, function, argument, [&] {
        return std::string("must be >= max(1, ") + rows_name + ") = " + std::to_string(least) + " (got " +
               std::to_string(ld) + ")";
    });
    if (rows >= 0 && cols >= 0) require_array_extent(function, argument, rows, cols, ld, entry_bytes);
}

void require_tiling(const char* function, const Tiling& tiling) {
    require(tiling.nb >= 0, function, "nb",
            [&] { return "must be >= 0 (got " + std::to_string(tiling.nb) + "; 0: tuned)"; });
}

void require_array(const char* function, const char* argument, const void* array, bool empty) {
    require(array != nullptr || empty, function, argument, "is null");
}

void require_solve_arrays(const char* function, int64_t n, int64_t nrhs, const void* A, int64_t lda, const void* B,
                          int64_t ldb, size_t entry_bytes, const Tiling& tiling) {
    require_nonnegative(function, "n", n);
    require_nonnegative(function, "nrhs", nrhs);
    require_leading_dimension(function, "lda", lda, n, "n", n, entry_bytes);
    require_leading_dimension(function, "ldb", ldb, n, "n", nrhs, entry_bytes);
    require_tiling(function, tiling);
    // Here, not in TileMatrix::import, whose message would name import's own argument 'A' for either array.
    require_array(function, "A", A, n == 0);
    require_array(function, "B", B, n == 0 || nrhs == 0);
}

}  // namespace starfact::detail

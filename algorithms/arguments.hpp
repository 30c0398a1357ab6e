// Internal: the argument checks of the entry points, one function per kind of check, so that every operation
// words the same failure the same way (an InvalidArgument naming the function and the argument).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/scalar.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/error.hpp"
#include "starfact/lu.hpp"
#include "starfact/mixed.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::detail {

/// An order or a count (n, nrhs): >= 0.
void require_nonnegative(const char* function, const char* argument, int64_t value);
/// The leading dimension `ld` (named `argument`) of a column-major rows x cols array of `entry_bytes`-byte entries:
/// ld >= max(1, rows), the message giving the bound as the API names it ("max(1, " + rows_name + ")", e.g.
/// rows_name "m" or "m, n"), and the array's extent, (cols - 1) * ld + rows entries, at most 2^63 - 1 bytes (else
/// its offsets overflow).
void require_leading_dimension(const char* function, const char* argument, int64_t ld, int64_t rows,
                               const char* rows_name, int64_t cols, size_t entry_bytes);
/// The tiling of a LAPACK-array form: nb >= 0 (0: the plan's).
void require_tiling(const char* function, const Tiling& tiling);
/// An array argument: not null unless it holds nothing (`empty`).
void require_array(const char* function, const char* argument, const void* array, bool empty);
/// The arguments of a solve's array form (n, nrhs, A and lda, B and ldb of `entry_bytes`-byte entries, tiling),
/// each failure naming its argument.
void require_solve_arrays(const char* function, int64_t n, int64_t nrhs, const void* A, int64_t lda, const void* B,
                          int64_t ldb, size_t entry_bytes, const Tiling& tiling);

/// A TileMatrix argument that must be square.
template <typename T>
void require_square(const char* function, const char* argument, const TileMatrix<T>& A) {
    require(A.m() == A.n(), function, argument,
            [&] { return "must be square (got " + std::to_string(A.m()) + " x " + std::to_string(A.n()) + ")"; });
}

/// The right-hand sides B of a solve with A: as many rows as A, and A's tile size.
template <typename T>
void require_right_hand_sides(const char* function, const TileMatrix<T>& A, const TileMatrix<T>& B) {
    require(B.m() == A.n(), function, "B", [&] {
        return "must have as many rows as A (got " + std::to_string(B.m()) + ", A is " + std::to_string(A.m()) +
               " x " + std::to_string(A.n()) + ")";
    });
    require(B.nb() == A.nb(), function, "B", [&] {
        return "must use the tile size of A (got nb=" + std::to_string(B.nb()) + ", A has nb=" +
               std::to_string(A.nb()) + ")";
    });
}

/// The pivots of an LU of A: shaped for A (its order and tile size).
template <typename T>
void require_pivots_shaped_for(const char* function, const Pivots& piv, const TileMatrix<T>& A) {
    require(piv.n() == A.n() && piv.nb() == A.nb(), function, "piv", [&] {
        return "must be shaped for A (got n=" + std::to_string(piv.n()) + " nb=" + std::to_string(piv.nb()) +
               ", A has n=" + std::to_string(A.n()) + " nb=" + std::to_string(A.nb()) + ")";
    });
    require(piv.grid() == A.grid(), function, "piv", [&] {
        return "must be distributed over the grid of A (got " + std::to_string(piv.grid().p) + " x " +
               std::to_string(piv.grid().q) + ", A has " + std::to_string(A.grid().p) + " x " +
               std::to_string(A.grid().q) + ")";
    });
}

/// The factor precisions an operation on T tiles takes: potrf on double only its own (Native, Fp64); potrf on float
/// its own and the tensor-core arithmetics (Tf32, Bf16, Fp16); a solve (`solve`: posv, whose double form refines
/// a lower-precision factor) on double any of them. Complex: Native or Auto (their own precision), and a solve on
/// complex<double> Fp32 or Tf32 (a complex<float> factor, refined).
template <typename T>
void require_factor_precision(const char* function, Precision p, bool solve) {
    if constexpr (is_complex_v<T>) {
        // complex: the matrix's own precision, or for a complex<double> solve a complex<float> factor (Fp32, Tf32)
        if (p == Precision::Native || p == Precision::Auto) return;
        if constexpr (is_double_v<T>) {
            if (solve && refines_complex_double(p)) return;
            throw InvalidArgument(function, "factor",
                                  std::string("is ") + to_string(p) + ", but a complex<double> " +
                                      (solve ? "solve factors natively or in complex<float> (fp32, or tf32 on tensor "
                                               "cores; no other lower factor of complex matrices)"
                                             : "factorization runs in its own precision (posv refines a complex<float> "
                                               "factor)"));
        } else {
            throw InvalidArgument(function, "factor",
                                  std::string("is ") + to_string(p) +
                                      ", but a complex<float> matrix is factored in its own precision (native)");
        }
    }
    const bool is_double = is_double_v<T>;
    if (is_double && !solve && refines_double(p) && p != Precision::Auto)
        throw InvalidArgument(function, "factor",
                              std::string("is ") + to_string(p) + ", but a double factorization runs in double: "
                              "posv refines a lower-precision factor to double accuracy");
    if (!is_double && p == Precision::Fp64)
        throw InvalidArgument(function, "factor", "is fp64, but the matrix is float");
}

}  // namespace starfact::detail

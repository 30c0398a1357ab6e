// The tiles of a simulated run (docs/simulation.md): nothing is computed, so a run's input is only made valid where
// each tile lives.
#pragma once
#include <starpu.h>

#include <cstdint>

#include "starfact/error.hpp"
#include "starfact/tile_matrix.hpp"

namespace starfact::support {

/// Makes every tile of A that this process stores valid on its home node, as writing it there would, without
/// touching its contents: the input of a simulated run, any shape (random_symmetric on tiles does this for square
/// matrices). From the calling thread (SimGrid runs StarPU's threads as its actors: no pool).
template <typename T>
void make_tiles_valid(TileMatrix<T>& A) {
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) {
            const int home = A.home_node(i, j);
            if (!A.stored(i, j) || home < 0) continue;
            if (starpu_data_acquire_on_node(A.tile(i, j), home, STARPU_W) != 0)
                throw RuntimeError("make_tiles_valid: starpu_data_acquire_on_node failed");
            starpu_data_release_on_node(A.tile(i, j), home);
        }
}

}  // namespace starfact::support

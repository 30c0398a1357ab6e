// Test matrices generated in their tiles, where the tiles live (host memory or the GPU holding each tile), without
// an n x n host array: the matrices of runs that only fit as tiles (out of core, several GPUs, several ranks).
#pragma once
#include <cstdint>

#include "starfact/tile_matrix.hpp"

namespace starfact {

/// Fills every tile this process stores of the square matrix A with random_symmetric(seed, shift) (check.hpp):
/// the same matrix, entry for entry, as the host array random_symmetric(n, ..., seed, shift) makes, whatever the
/// tile size, residency, placement or process grid. Host-resident tiles are written on all host threads,
/// device-resident ones by a kernel on the GPU holding each, which leaves no other valid copy. Waits for the tasks
/// pending on the tiles. Distributed matrices: collective, every rank calls it and fills the tiles it owns.
/// Throws InvalidArgument naming 'A' when A is not square.
template <typename T>
void random_symmetric(TileMatrix<T>& A, uint64_t seed, double shift);

}  // namespace starfact

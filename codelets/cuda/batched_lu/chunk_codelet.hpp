// Internal: insert helper of the batched LU chunk codelet (codelets/batched_lu_chunk.cpp): one
// task factors (getrf) or inverts (inverse) `count` contiguous n x n matrices held in StarPU
// vector handles; CPU workers run a LAPACKE loop, CUDA workers the batched kernels.
#pragma once
#include <starpu.h>

#include <cstdint>

#include "codelets/codelets.hpp"

namespace starfact::detail {

enum class BatchedLuOp { Getrf, Inverse };

/// A: count * n * n values (RW); ipiv: count * n ints (W, getrf only, else ignored); info: count ints (W).
template <typename T>
void insert_batched_lu_chunk(const Runtime& rt, const TaskOptions& o, BatchedLuOp op, int n, int64_t count,
                             starpu_data_handle_t A, starpu_data_handle_t ipiv, starpu_data_handle_t info);

}  // namespace starfact::detail

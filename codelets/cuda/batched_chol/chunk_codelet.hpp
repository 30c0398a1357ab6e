// Interface of the batched Cholesky chunk codelets (defined in codelets/batched_posv_chunk.cpp; kept
// here with the kernels it drives): the task arguments and the insert helper used by
// algorithms/batched_cholesky.cpp. Plain C++ (also built without CUDA).
#pragma once
#include <starpu.h>

#include <cstdint>
#include <vector>

#include "starfact/mapping.hpp"
#include "starfact/runtime.hpp"

namespace starfact::detail {

/// One chunk: `count` matrices at A + i * strideA (and right-hand sides at B + i * strideB).
struct BatchedChunkArgs {
    int n, nrhs, lda, ldb;
    int64_t strideA, strideB, count;
};

/// Submits one chunk task: potrf when B is null (buffers A, info), else posv (A, B, info). A and B are
/// vector handles over the chunk's elements, info a vector of `count` ints. The task is not detached:
/// it is appended to `collect` and the caller must starpu_task_wait() it.
template <typename T>
void insert_batched_chunk(const Runtime& rt, Mapping mapping, const BatchedChunkArgs& args, starpu_data_handle_t A,
                          starpu_data_handle_t B, starpu_data_handle_t info, std::vector<starpu_task*>* collect);

}  // namespace starfact::detail

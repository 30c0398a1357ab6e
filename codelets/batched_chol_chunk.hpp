// Internal: the StarPU chunk codelet of the batched Cholesky (batched_chol_chunk.cpp). One task factors (potrf)
// or factors and solves (posv) a chunk of consecutive members of a strided batch held in StarPU vector
// handles; CPU workers run a LAPACKE loop, CUDA workers the batched kernels (complex types: the vendor's batched
// routines, kernels/batched_vendor/). Plain C++ (also built without CUDA); used by algorithms/batched_cholesky.cpp.
#pragma once
#include <starpu.h>

#include <cstdint>

#include "codelets/codelets.hpp"

namespace starfact::detail {

struct CudaContexts;

/// One chunk: `count` matrices at A + i * strideA (and, for posv, right-hand sides at B + i * strideB).
struct CholeskyChunk {
    int n, nrhs, lda, ldb;
    int64_t strideA, strideB, count;
    /// The Runtime's CUDA worker contexts (their cuSOLVER handles: the vendor path of complex chunks); set by
    /// insert_cholesky_chunk.
    CudaContexts* cuda = nullptr;
};

/// Submits one chunk task: potrf when B is null (buffers A (RW), info (W)), else posv (A, B (RW), info).
/// A and B are vector handles over the chunk's elements, info a vector of `count` ints. o.name is set here.
template <typename T>
void insert_cholesky_chunk(const Runtime& rt, const TaskOptions& o, const CholeskyChunk& c, starpu_data_handle_t A,
                           starpu_data_handle_t B, starpu_data_handle_t info);

}  // namespace starfact::detail

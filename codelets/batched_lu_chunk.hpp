// Internal: the StarPU chunk codelet of the batched LU (batched_lu_chunk.cpp). One task factors (getrf) or
// inverts in place (inverse) a chunk of consecutive members of a strided batch held in StarPU vector
// handles; CPU workers run a LAPACKE loop, CUDA workers the batched kernels (complex types: the vendor's batched
// routines, kernels/batched_vendor/). Plain C++ (also built without CUDA); used by algorithms/batched_lu.cpp.
#pragma once
#include <starpu.h>

#include <cstdint>

#include "codelets/codelets.hpp"

namespace starfact::detail {

enum class LuChunkOp { Getrf, Inverse };

/// One chunk: `count` matrices at A + i * strideA (getrf: pivots at ipiv + i * stride_piv).
struct LuChunk {
    LuChunkOp op;
    int n, lda;
    int64_t strideA, stride_piv, count;
};

/// Submits one chunk task: getrf (buffers A (RW), ipiv (W), info (W)) or inverse (A (RW), info (W); ipiv
/// ignored). A and ipiv are vector handles over the chunk's elements, info a vector of `count` ints.
/// o.name is set here.
template <typename T>
void insert_lu_chunk(const Runtime& rt, const TaskOptions& o, const LuChunk& c, starpu_data_handle_t A,
                     starpu_data_handle_t ipiv, starpu_data_handle_t info);

}  // namespace starfact::detail

// Internal: the codelet of the log-determinant (algorithms/logdet.cpp), owned by the Runtime through
// detail::kernel<define>() (codelets/codelets.hpp):
//   codelets/logdet_tile.cpp   the logarithms of a diagonal tile's diagonal added to a running sum
#pragma once
#include <starpu.h>

#include <cstdint>

#include "codelets/codelets.hpp"
#include "starfact/logdet.hpp"

namespace starfact::detail {

/// Adds the logarithms of the diagonal entries of the diagonal tile L (global diagonal entries offset + 1 ..) to
/// the running sum `acc`, a StarPU variable holding a DiagonalLogSum (kernels/logdet_diagonal.hpp): written from
/// scratch when `first`, read and written otherwise. The last task (`info` and `result` given, else null) turns the
/// sum into *result (sign 1, logabsdet 2 * sum) and sets the int `info` to the first diagonal entry that is not a
/// positive finite number (result NaN then).
template <typename T>
void insert_logdet_tile(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t acc, starpu_data_handle_t L,
                        int64_t offset, bool first, starpu_data_handle_t info, LogDet* result);

}  // namespace starfact::detail

// The LAWN 41 flop counts of the batched LU (batched_lu.hpp), below the algorithms that report them: the chunk
// codelets count the flops of their tasks (codelets/batched_lu_chunk.cpp) from here.
#include <cstdint>

#include "starfact/batched_lu.hpp"

namespace starfact::batched {

double getrf_flops(int64_t n) {
    const double d = static_cast<double>(n);
    return 2.0 / 3.0 * d * d * d - d * d / 2.0 + 5.0 / 6.0 * d;
}
double getri_flops(int64_t n) {
    const double d = static_cast<double>(n);
    return 4.0 / 3.0 * d * d * d - d * d + 5.0 / 3.0 * d;
}
double getrs_flops(int64_t n, int64_t nrhs) {
    const double d = static_cast<double>(n);
    return static_cast<double>(nrhs) * (2.0 * d * d - d);
}

}  // namespace starfact::batched

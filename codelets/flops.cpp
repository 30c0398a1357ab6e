// The LAWN 41 flop counts of the Cholesky factorization and solve (cholesky.hpp), below the algorithms that report
// them: the codelets count the flops of their tasks (codelets/batched_chol_chunk.cpp) from here.
#include <cstdint>

#include "starfact/cholesky.hpp"

namespace starfact {

double potrf_flops(int64_t n) {
    const double N = static_cast<double>(n);
    return N * N * N / 3.0 + N * N / 2.0 + N / 6.0;
}

double potrs_flops(int64_t n, int64_t nrhs) {
    return 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(nrhs);
}

}  // namespace starfact

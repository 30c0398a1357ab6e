// Instantiates batched posv (double) for the compiled orders in 33..64 (ranges.hpp), tuned configurations.
#include "codelets/cuda/batched_chol/dispatch.cuh"

STARFACT_BATCHED_RANGE(double, Posv, 33, 64)

// Instantiates batched posv (double) for the compiled orders in 97..128 (ranges.hpp), tuned configurations.
#include "codelets/cuda/batched_chol/dispatch.cuh"

STARFACT_BATCHED_RANGE(double, Posv, 97, 128)

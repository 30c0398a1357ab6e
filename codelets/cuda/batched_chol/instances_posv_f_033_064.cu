// Instantiates batched posv (float) for the compiled orders in 33..64 (ranges.hpp), tuned configurations.
#include "codelets/cuda/batched_chol/dispatch.cuh"

STARFACT_BATCHED_RANGE(float, Posv, 33, 64)

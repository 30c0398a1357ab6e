// Instantiates batched posv (float) for the compiled orders in 1..32 (ranges.hpp), tuned configurations.
#include "codelets/cuda/batched_chol/dispatch.cuh"

STARFACT_BATCHED_RANGE(float, Posv, 1, 32)

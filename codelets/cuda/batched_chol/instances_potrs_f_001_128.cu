// Instantiates batched potrs (float) for the compiled orders in 1..128 (ranges.hpp), tuned configurations.
#include "codelets/cuda/batched_chol/dispatch.cuh"

STARFACT_BATCHED_RANGE(float, Potrs, 1, 128)

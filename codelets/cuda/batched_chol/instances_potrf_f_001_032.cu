// Instantiates batched potrf (float) for the compiled orders in 1..32 (ranges.hpp), tuned configurations.
#include "codelets/cuda/batched_chol/dispatch.cuh"

STARFACT_BATCHED_RANGE(float, Potrf, 1, 32)

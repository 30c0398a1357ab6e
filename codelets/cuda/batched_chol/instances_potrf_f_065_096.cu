// Instantiates batched potrf (float) for the compiled orders in 65..96 (ranges.hpp), tuned configurations.
#include "codelets/cuda/batched_chol/dispatch.cuh"

STARFACT_BATCHED_RANGE(float, Potrf, 65, 96)

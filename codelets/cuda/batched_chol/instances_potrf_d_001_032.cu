// Instantiates batched potrf (double) for the compiled orders in 1..32 (ranges.hpp), tuned configurations.
#include "codelets/cuda/batched_chol/dispatch.cuh"

STARFACT_BATCHED_RANGE(double, Potrf, 1, 32)

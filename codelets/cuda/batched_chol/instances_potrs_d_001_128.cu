// Instantiates batched potrs (double) for the compiled orders in 1..128 (ranges.hpp), tuned configurations.
#include "codelets/cuda/batched_chol/dispatch.cuh"

STARFACT_BATCHED_RANGE(double, Potrs, 1, 128)

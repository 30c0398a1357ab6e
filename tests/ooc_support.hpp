// The out-of-core GPU tests' memory limit (tests/main_ooc_gpu.cpp sets it, tests/test_ooc_gpu.cpp sizes the
// matrices from it).
#pragma once
#include "tests/support.hpp"

namespace starfact::test {
/// MiB of GPU memory StarPU may use for tiles in test_ooc_gpu.
constexpr long long kOocLimitMiB = 256;
}  // namespace starfact::test

// The headers that most of the library's C++ sources include, precompiled once per object library (STARFACT_PCH):
// system, StarPU and BLAS headers only, which no source configures with macros of its own.
#include <starpu.h>
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

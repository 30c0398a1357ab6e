// The runtime handle of the C ABI: one starfact::Runtime.
#pragma once
#include <memory>

#include "capi/starfact_c.h"
#include "starfact/runtime.hpp"

struct starfact_c_runtime {
    std::unique_ptr<starfact::Runtime> runtime;
};

namespace starfact::capi {

/// The Runtime behind `handle`; throws InvalidArgument naming 'runtime' for a null handle.
Runtime& runtime_of(starfact_c_runtime* handle, const char* function);

}  // namespace starfact::capi

// The command-line parser of examples/lssvm (its main.cpp includes "../cli.hpp"): support/cli.hpp under the
// namespace it had here, starfact::examples.
#pragma once
#include "../support/cli.hpp"

namespace starfact {
namespace examples = support;
}  // namespace starfact

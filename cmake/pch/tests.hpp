// The headers that every C++ test source includes, precompiled once per test program (STARFACT_PCH): Catch2, the
// BLAS, the standard library and starfact's public API (tests/support.hpp's).
#include <catch2/catch.hpp>
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "starfact/starfact.hpp"

// Umbrella header for the starfact C++ API.
#pragma once
#include "starfact/batched_cholesky.hpp"
#include "starfact/batched_lu.hpp"
#include "starfact/check.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/error.hpp"
#include "starfact/mapping.hpp"
#include "starfact/runtime.hpp"
#include "starfact/tile_matrix.hpp"

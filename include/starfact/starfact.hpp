// Umbrella header for the starfact C++ API: the core, and the headers of the feature modules this build
// contains (starfact/config.hpp says which).
#pragma once
#include "starfact/config.hpp"

#include "starfact/check.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/cholesky_complex.hpp"
#include "starfact/error.hpp"
#include "starfact/generate.hpp"
#include "starfact/inverse.hpp"
#include "starfact/logdet.hpp"
#include "starfact/lu.hpp"
#include "starfact/lu_complex.hpp"
#include "starfact/mapping.hpp"
#include "starfact/mixed.hpp"
#include "starfact/plan.hpp"
#include "starfact/qr.hpp"
#include "starfact/qr_complex.hpp"
#include "starfact/runtime.hpp"
#include "starfact/sequence.hpp"
#include "starfact/tile_matrix.hpp"

#ifdef STARFACT_HAVE_BATCHED_CHOL
#include "starfact/batched_cholesky.hpp"
#endif
#ifdef STARFACT_HAVE_BATCHED_LU
#include "starfact/batched_lu.hpp"
#endif

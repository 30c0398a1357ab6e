// The resident potrf variants of the tuning space: every one that the sweeps and the bench (one column each,
// in this order: the CSV's resident_variants_us) run. The library compiles only
// those its tuning table chooses (kernels/batched_chol/tuning.hpp, kLibraryVariants); variants.cuh
// instantiates the others, for the programs that link batched_chol_candidates.
// tools/tune_batched_chol.sh table reads this list: append new variants at the end (older bench CSVs keep
// their column order).
#pragma once
#include <cstdint>

#include "kernels/batched_chol/launch.hpp"
#include "kernels/batched_chol/variants.hpp"

namespace starfact::batched::gpu {

/// NT = 96: three warps; fewer blocks per SM (OCC / NT) leave more registers per thread (the vector-row
/// kernel's double 8 x 8 factorization needs ~120).
inline constexpr Variant kCandidateVariants[] = {
    {Family::Resident, 64, 256},            {Family::Resident, 64, 512},
    {Family::Resident, 128, 512},           {Family::Resident, 256, 512},
    {Family::ResidentTwoPanels, 128, 512},  {Family::ResidentWarpA, 64, 512},
    {Family::ResidentWarpA, 128, 512},      {Family::Fragment, 64, 512},
    {Family::Fragment, 128, 384},           {Family::Fragment, 256, 512},
    {Family::FragmentDynamic, 64, 512},     {Family::FragmentDynamic, 128, 384},
    {Family::FragmentDynamic, 256, 512},    {Family::FragmentPipelined, 64, 512},
    {Family::FragmentPipelined, 128, 384},  {Family::FragmentPipelined, 256, 512},
    {Family::Fragment, 96, 384},            {Family::FragmentPipelined, 96, 384},
    {Family::VectorRow, 96, 576},           {Family::VectorRow, 128, 768},
    {Family::VectorRow, 128, 1024},         {Family::VectorRow, 256, 1024},
    {Family::VectorRow, 64, 1024},          {Family::VectorRow, 128, 384},
    {Family::VectorRow, 160, 480},          {Family::VectorRow, 96, 480},
    {Family::VectorRow, 128, 512}};

/// Runs potrf on kernel v, forced: the left-looking kernel, a variant the library compiles, or another
/// candidate (batched_chol_candidates). False when v is none of those or n is outside 1..128.
template <typename T>
bool launch_potrf_candidate(const Args<T>& a, const Variant& v);

}  // namespace starfact::batched::gpu

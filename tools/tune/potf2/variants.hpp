// The tuning tool's potf2 entry point: every configuration of the sweep, the library's (rdiag = true: the
// library's potf2_tile_tuned) and the single-block leaves the library does not compile (rdiag = false:
// tools/tune/potf2/potf2_leaf.cuh inside the library's forms, variants.cu). Used by tune_potf2 and its
// correctness checks (tune_potf2_check).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/potf2/potf2.hpp"
#include "kernels/potf2/potf2_tuning.hpp"

namespace starfact::detail::gpu {

/// The `ib` values of the single-block leaves (one kernel instantiation each and per precision); the
/// library's rdiag kernel takes 8.
constexpr int kPotf2Ibs[] = {8, 16};

/// potf2_tile_tuned with a single-block leaf (config.rdiag = false; ib in kPotf2Ibs); throws
/// InvalidArgument naming config.rdiag for an rdiag configuration (those are the library's).
template <typename T>
void potf2_tile_variant(const Potf2Config& config, cublasHandle_t cublas, cudaStream_t stream, int n, T* A, int ld,
                        int* info, int64_t offset, void* workspace, size_t workspace_bytes,
                        const Potf2Aux* aux = nullptr);

/// Any configuration of the sweep: the library's potf2_tile_tuned for rdiag, potf2_tile_variant otherwise.
template <typename T>
void potf2_tile_any(const Potf2Config& config, cublasHandle_t cublas, cudaStream_t stream, int n, T* A, int ld,
                    int* info, int64_t offset, void* workspace, size_t workspace_bytes, const Potf2Aux* aux = nullptr) {
    if (config.rdiag)
        potf2_tile_tuned<T>(config, cublas, stream, n, A, ld, info, offset, workspace, workspace_bytes, aux);
    else
        potf2_tile_variant<T>(config, cublas, stream, n, A, ld, info, offset, workspace, workspace_bytes, aux);
}

}  // namespace starfact::detail::gpu

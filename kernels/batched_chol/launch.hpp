// Internal host-side entry points of the batched Cholesky kernels (plain C++, no kernel syntax; defined in
// launch.cpp), used by the public device API (algorithms/batched_cholesky_device.cpp), the chunk codelet
// (codelets/batched_chol_chunk.cpp), the bench and the tests.
// Every function returns false when n is outside 1..128 (the caller reports it); batch == 0 is a no-op.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/batched_chol/variants.hpp"

namespace starfact::batched::gpu {

/// Matrices of a batch: pointer array (ptrs != nullptr, device memory) or base + i * stride.
template <typename T>
struct Layout {
    T* base = nullptr;
    T* const* ptrs = nullptr;
    int64_t stride = 0;
};

template <typename T>
struct Args {
    int n = 0;
    int nrhs = 0;
    Layout<T> A;
    int lda = 0;
    Layout<T> B;
    int ldb = 0;
    // device, one int per member. potrf, posv: written (may be null for potrf: then not reported);
    // potrs: read when not null, members whose info is not 0 are skipped (B unchanged: the second
    // pass of the two-pass posv)
    int* info = nullptr;
    int64_t batch = 0;
    cudaStream_t stream = nullptr;
};

/// The kernel that the tuning table (tuning.hpp) chooses for potrf of order n: the left-looking kernel
/// outside 1..128. aligned: whether the batch's columns are known to start on 16 bytes
/// (columns_aligned16); batches that are not take kPotrf*Unaligned, chosen from measurements at unaligned
/// orders (the vector-row kernel shifts such columns in shared memory after its bulk copies).
Variant potrf_choice(int n, bool is_double, bool aligned = true);
/// Whether every column of every matrix of a's batch starts on 16 bytes (the vector-row kernel's bulk
/// copies then need no shift): strided: base, stride and lda; pointer array: lda only (the pointers are on the device; the
/// kernel checks each matrix anyway, this only steers the kernel choice).
template <typename T>
bool columns_aligned16(const Args<T>& a) {
    constexpr int E = 16 / static_cast<int>(sizeof(T));
    if (a.lda % E != 0) return false;
    if (a.A.ptrs) return true;
    return reinterpret_cast<uintptr_t>(a.A.base) % 16 == 0 && a.A.stride % E == 0;
}

template <typename T> bool launch_potrf(const Args<T>& a);  // the tuned choice of kernel
/// potrf forced onto kernel v (tests, bench): the left-looking kernel or one of the resident variants the
/// library compiles (tuning.hpp, kLibraryVariants; tools/tune/batched_chol/ has the others); false if v is
/// not compiled in or n is outside 1..128.
template <typename T> bool launch_potrf_variant(const Args<T>& a, const Variant& v);
/// The library's resident variants (resident_dispatch.cuh, instantiated per precision).
template <typename T> bool launch_resident_variant(const Args<T>& a, const Variant& v);
template <typename T> bool launch_potrs(const Args<T>& a);  // A holds the factors L
/// posv: the fused kernel (one pass: factor, then solve from the block's shared memory) or two passes
/// (launch_potrf, the tuned kernel choice, then potrs skipping the members whose info is not 0), as
/// posv_two_pass picks; both forced for the tests and the bench.
template <typename T> bool launch_posv(const Args<T>& a);
template <typename T> bool launch_posv_fused(const Args<T>& a);
template <typename T> bool launch_posv_two_pass(const Args<T>& a);
/// Whether posv of order n takes the two passes (measured: the fused kernel is built on the
/// left-looking factorization and loses to the resident kernels plus potrs from n ~ 40 on).
bool posv_two_pass(int n, bool is_double);

}  // namespace starfact::batched::gpu

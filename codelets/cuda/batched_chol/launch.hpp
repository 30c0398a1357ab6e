// Internal host-side entry points of the batched Cholesky kernels (plain C++, no kernel syntax), used by
// the public device API (launch.cpp), the StarPU chunk codelet, the bench and the tests.
// Every function returns false when n is outside 1..128 (the caller reports it); batch == 0 is a no-op.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

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

/// The tuned configuration of the kernel that serves order n (tuned_table.hpp); zeros outside 1..128:
/// panel width, threads per matrix, matrices per block, resident threads per SM asked of ptxas.
struct PotrfConfig {
    int nb, nt, mpb, occ;
};
PotrfConfig potrf_config(int n, bool is_double);
/// Kernel choice for potrf of order n (tuned_table.hpp): nt == 0 the left-looking kernel (potrf_config),
/// else the resident kernel (potrf_resident.cuh) with nt threads per block, OCC = occ, inner block
/// ib (8: one panel per step, 16: two) and w1 (1: phase (A) by one warp, potrf_resident.cuh: W1; 2, 3, 4:
/// the fragment-layout kernel, static, dynamic, pipelined (potrf_frag.cuh); 5: the vector-row kernel,
/// potrf_vec.cuh).
struct ResidentConfig {
    int nt, occ;
    int ib = 8;
    int w1 = 0;
};
/// The one-letter tag of a variant's kernel in bench and test output ("" for the resident kernel).
constexpr const char* resident_tag(int w1) {
    return w1 == 5 ? "v" : w1 == 4 ? "p" : w1 == 3 ? "d" : w1 == 2 ? "f" : w1 == 1 ? "w" : "";
}
/// The kind name of a variant in sweep CSVs and in tools/tune_batched_chol.sh.
constexpr const char* resident_kind(int ib, int w1) {
    return ib == 16 ? "resident16" : w1 == 5 ? "residentvec" : w1 == 4 ? "residentpipe" : w1 == 3 ? "residentdyn" : w1 == 2 ? "residentfrag" : w1 ? "residentw1" : "resident";
}
/// aligned: whether the batch's columns are known to start on 16 bytes (columns_aligned16); batches that
/// are not take kResident*Unaligned, chosen from measurements at unaligned orders (the vector-row kernel
/// shifts such columns in shared memory after its bulk copies, which costs 15..25%).
ResidentConfig resident_config(int n, bool is_double, bool aligned = true);
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
/// potrf forced onto one kernel (tests, bench): the left-looking one, or the resident variant (nt, occ, ib, w1)
/// (false if that variant is not compiled in or n is outside 1..128).
template <typename T> bool launch_potrf_left(const Args<T>& a);
template <typename T> bool launch_potrf_resident(const Args<T>& a, const ResidentConfig& v);
// defined in instances_potrf_resident_{f,d}.cu
template <> bool launch_potrf_resident<float>(const Args<float>& a, const ResidentConfig& v);
template <> bool launch_potrf_resident<double>(const Args<double>& a, const ResidentConfig& v);
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

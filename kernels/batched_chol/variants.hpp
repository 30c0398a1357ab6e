// The batched potrf kernels by name: the kernel families and a variant (family, threads per block,
// OCC) as the tuning table (tuning.hpp), the dispatch (resident_dispatch.cuh), the tests, the bench
// and the tuning tools (tools/tune/batched_chol/) name them. Plain C++.
#pragma once
#include <cstdint>

namespace starfact::batched::gpu {

/// The potrf kernel families (docs/batched_cholesky.md, "Kernels"). All but LeftLooking keep one
/// matrix per thread block resident in shared memory ("resident" kernels, runtime order n <= 128).
enum class Family : uint8_t {
    LeftLooking,        // potrf_kernel.cuh: one template instance per compiled order, left-looking panels in registers
    Resident,           // potrf_resident.cuh: blocked right-looking, one 8-column panel per step
    ResidentTwoPanels,  // potrf_resident.cuh with two panels per step (KP = 2)
    ResidentWarpA,      // potrf_resident.cuh with the diagonal block's phase (A) on one warp (W1)
    Fragment,           // potrf_frag.cuh: 8 x 8 blocks in the mma.m8n8k4 fragment layout, static update split
    FragmentDynamic,    // potrf_frag.cuh, update units handed out by a shared counter (DYN)
    FragmentPipelined,  // potrf_frag.cuh, potrf_frag_pipe_kernel: the next panel's chain beside this one's solve
    VectorRow,          // potrf_vec.cuh: 16-byte row items, bulk asynchronous copies
};

/// One potrf kernel: its family and, for the resident families, the threads per block (NT) and OCC,
/// the resident threads per SM asked of ptxas (minimum blocks per SM = OCC / NT). The left-looking
/// kernel's configuration depends on the order (tuning.hpp, kLeftLooking*): nt = occ = 0.
struct Variant {
    Family family = Family::LeftLooking;
    int nt = 0, occ = 0;
};
constexpr bool operator==(const Variant& a, const Variant& b) {
    return a.family == b.family && a.nt == b.nt && a.occ == b.occ;
}
constexpr bool operator!=(const Variant& a, const Variant& b) { return !(a == b); }

/// Configuration of the left-looking kernel for one compiled order: panel width NB, threads per matrix
/// NT, matrices per block MPB, OCC. All zero: the precision skips this compiled order (ranges.hpp).
struct LeftLookingConfig {
    int nb, nt, mpb, occ;
};

/// The family's name in sweep and bench CSVs and in tools/tune_batched_chol.sh.
constexpr const char* family_kind(Family f) {
    switch (f) {
        case Family::LeftLooking: return "left";
        case Family::Resident: return "resident";
        case Family::ResidentTwoPanels: return "resident16";
        case Family::ResidentWarpA: return "residentw1";
        case Family::Fragment: return "residentfrag";
        case Family::FragmentDynamic: return "residentdyn";
        case Family::FragmentPipelined: return "residentpipe";
        case Family::VectorRow: return "residentvec";
    }
    return "?";
}

/// Inner block of a resident variant in bench and test output ("NT/OCC/IB" + tag): 16 for two panels per step.
constexpr int inner_block(Family f) { return f == Family::ResidentTwoPanels ? 16 : 8; }
/// One-letter tag of a resident variant in bench and test output ("" for Resident and ResidentTwoPanels).
constexpr const char* family_tag(Family f) {
    switch (f) {
        case Family::ResidentWarpA: return "w";
        case Family::Fragment: return "f";
        case Family::FragmentDynamic: return "d";
        case Family::FragmentPipelined: return "p";
        case Family::VectorRow: return "v";
        default: return "";
    }
}

}  // namespace starfact::batched::gpu

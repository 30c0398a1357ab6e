// The plan of a call: how one call of an operation runs (tile size, streams, task mapping, diagonal kernel, panel
// solve, arithmetic and refinement, QR tree and inner block, whether it is one task). Every door asks here, once
// per call: the tile forms and the submit forms (plan(TileMatrix, ...)), the LAPACK-array forms (plan(Runtime, ...)),
// the C ABI (starfact_c_plan), Python (starfact.plan) and the drivers (--plan). The tuned tables behind it are
// private (algorithms/plan_tables.hpp); docs/architecture.md draws the path of a call.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>

#include "starfact/mapping.hpp"
#include "starfact/options.hpp"

namespace starfact {

class Runtime;
template <typename T>
class TileMatrix;

/// The operations the plan knows.
enum class Operation { Potrf, Potrs, Posv, Potri, Getrf, Getrs, Gesv, Geqrf, Gels };
/// "potrf", "potrs", "posv", "potri", "getrf", "getrs", "gesv", "geqrf", "gels".
const char* to_string(Operation op);
/// Parses the names above; throws InvalidArgument naming `argument` otherwise.
Operation parse_operation(const std::string& text, const char* argument = "op");

/// The runtime a call is planned for: its workers and CUDA devices (Machine::of a Runtime, or described, to plan
/// for a machine one does not have).
struct Machine {
    int cpu_workers = 1;
    int cuda_workers = 0;
    int cuda_devices = 0;
    static Machine of(const Runtime& rt);
    bool gpu() const { return cuda_workers > 0; }
};

/// One call to plan: the operation, the shape, the options, the tiling request and where the data's tiles live.
struct Request {
    Operation op = Operation::Potrf;
    Precision element = Precision::Fp64;  ///< the matrices' precision: Fp64, Fp32, C64 or C128 (complex: below)
    int64_t m = 0;                        ///< rows of A (the square operations: n)
    int64_t n = 0;                        ///< columns of A
    int64_t nrhs = 0;                     ///< columns of B (the solves)
    Options options;
    /// nb: the requested tile size (0: the plan's); residency: where the tiles live (the doors resolve it from the
    /// arrays: a device array's tiles are device-resident)
    Tiling tiling;
    QrTree tree;              ///< QR: the requested reduction tree (Auto: the plan's)
    int64_t ib = 0;           ///< QR: the requested inner blocking (0: the plan's)
    bool always_low = false;  ///< posv, gesv: Refinement::always_low (factor in options.factor whatever pays)
    bool distributed = false; ///< the tiles are spread over MPI ranks
};

/// How the call runs. Fields that do not apply to the operation keep their defaults (and print as "-").
///
/// Complex matrices (element C64 or C128: cholesky_complex.hpp, lu_complex.hpp) are planned for potrf, potrs, posv,
/// getrf, getrs and gesv only, with the real type's tables: the Cholesky gets the real Cholesky's tile size, streams
/// and hybrid rule, trsm panels and LAPACK's or cuSOLVER's potrf for its diagonal tiles (diag=cusolver; never the
/// fused real kernels); the LU runs on CPU workers (tasks=cpu-only, residency=host: a device array is copied into host
/// tiles and back) in tiles of the real LU's CPU size. Their arithmetic is the element's (arithmetic=c64 or c128),
/// never refined, except the c128 posv with factor fp32 or tf32, the mixed-precision Hermitian solve (mixed.hpp):
/// planned as a double posv in that factor is (refined where the low factor pays, arithmetic=fp32 or tf32, the mixed
/// solve's tiles), else the c128 solve; distributed tiles are planned as the real ones' (the complex factorizations
/// run on the real graphs, over MPI ranks too). The other operations, another factor, always_low elsewhere, a variant
/// other than right, the inverse panel, the fused or recursive diagonal kernels and a gpu-only LU are refused, naming
/// the field (element, factor, always_low, variant, panel, diag, mapping).
struct Plan {
    Operation op = Operation::Potrf;
    Precision element = Precision::Fp64;
    int64_t m = 0, n = 0, nrhs = 0;
    Mapping mapping = Mapping::Hybrid;       ///< the options' mapping
    Mapping task_mapping = Mapping::Hybrid;  ///< what the tasks on nb x nb tiles get (the hybrid rule)
    Residency residency = Residency::Host;
    int64_t nb = 1;                 ///< tile size
    int streams_per_gpu = 0;        ///< CUDA workers per GPU the plan is tuned for (0: no GPU)
    bool one_task = false;          ///< the whole matrix is one tile (one task for the factorization)
    Precision arithmetic = Precision::Fp64;  ///< the factorization's arithmetic
    bool refined = false;           ///< posv, gesv: a factor in `arithmetic` and refinement to double accuracy
    DiagKernel diag = DiagKernel::Auto;   ///< Cholesky: the diagonal tiles' CUDA kernel (printed "-" without a GPU)
    PanelSolve panel = PanelSolve::Auto;  ///< Cholesky: the panel solve
    QrTree tree;                    ///< QR: the reduction tree (Cholqr, Panel, or Flat/Binary/Domains)
    int64_t ib = 0;                 ///< QR: the inner blocking of the CPU kernels

    /// One line: `op=posv element=fp64 m=8192 n=8192 nrhs=1 mapping=gpu-only ... ` (key=value, no spaces inside a
    /// value), what the drivers print, starfact_c_plan writes and Python's starfact.plan parses.
    std::string to_string() const;
    bool operator==(const Plan& o) const { return to_string() == o.to_string(); }
    bool operator!=(const Plan& o) const { return !(*this == o); }
};
std::ostream& operator<<(std::ostream& out, const Plan& plan);

/// The planning entry: how `request` runs on `machine`. Throws InvalidArgument for a negative shape or tile size.
Plan plan(const Request& request, const Machine& machine);

/// The tile forms' door (blocking and submit): A's own tile size, residency and distribution, A's shape (B's columns
/// as nrhs), on A's runtime unless `machine` is given.
template <typename T>
Plan plan(const TileMatrix<T>& A, Request request, const Machine* machine = nullptr);
/// The LAPACK-array forms' door: the data's residency from where `A` lies (a device array: Device) and
/// request.tiling; on rt's workers unless `machine` is given.
Plan plan(const Runtime& rt, Request request, const void* A, const Machine* machine = nullptr);

/// Whether this build has the fused potf2 kernel.
bool have_fused_potf2();
/// Whether this build has the recursive Cholesky kernel (CUDA builds).
bool have_recursive_potrf();

}  // namespace starfact

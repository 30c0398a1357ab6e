// Internal: the codelet table owned by Runtime, and the insert helpers the DAG builders call.
// Each codelet lives in its own file (args, CPU function, CUDA function, definition, insert helper).
#pragma once
#include <starpu.h>

#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "kernels/blas_types.hpp"
#include "kernels/scalar.hpp"
#include "runtime/extensions.hpp"
#include "starfact/cholesky.hpp"
#include "starfact/mapping.hpp"
#include "starfact/runtime.hpp"

namespace starfact::detail {

struct SequenceState;
class BreakdownWatch;

#ifdef STARFACT_SIMULATION
/// The CUDA implementation of every codelet in a simulation build: StarPU's SimGrid mode does not call it (the task's
/// time comes from its performance model); aborts if called.
void simulated_cuda_implementation(void* buffers[], void* cl_arg);
#endif

/// A StarPU codelet with its history-based performance model. Must not move once StarPU saw it.
struct Kernel {
    starpu_codelet cl;
    starpu_perfmodel model;
    Kernel() {
        std::memset(&model, 0, sizeof model);
        starpu_codelet_init(&cl);
    }
    Kernel(const Kernel&) = delete;
    Kernel& operator=(const Kernel&) = delete;
};

/// The CUDA implementation to register, or nullptr in a build without CUDA. A simulation build (STARFACT_SIMULATION,
/// docs/simulation.md) compiles no CUDA but declares a CUDA implementation wherever a CUDA build has one, so that
/// StarPU schedules the task on its simulated GPUs; StarPU's SimGrid mode never calls it.
#ifdef STARFACT_HAVE_CUDA
#define STARFACT_CUDA_IMPL(f) (f)
#elif defined(STARFACT_SIMULATION)
#define STARFACT_CUDA_IMPL(f) (&::starfact::detail::simulated_cuda_implementation)
#else
#define STARFACT_CUDA_IMPL(f) (nullptr)
#endif

/// Fills k: the CPU implementation, the CUDA one (asynchronous, on StarPU's per-worker stream) when
/// given, the buffer modes (none: STARPU_VARIABLE_NBUFFERS, modes set per task), the trace name and
/// its colour (codelets/kernel_colors.hpp), and a history-based performance model named `symbol`.
void define_kernel(Kernel& k, const char* name, const char* symbol, starpu_cpu_func_t cpu, starpu_cuda_func_t cuda,
                   std::initializer_list<starpu_data_access_mode> modes);

template <typename T>
struct Codelets {
    Kernel potrf, potrf_fused, potrf_recursive, trsm, syrk, gemm, tile_update, trtri, trsm_inverse;
    Codelets();
};

/// The codelet table of precision T: an extension slot of rt (runtime/extensions.hpp), created on first use.
template <typename T>
const Codelets<T>& codelets(const Runtime& rt) {
    return extension<Codelets<T>>(rt);
}

/// A codelet defined by `Define` and owned by the Runtime: one extension slot per definition function,
/// created on first use and kept until shutdown (the codelets outside the Codelets table: trmm, the inverse's
/// tile kernels, the LU panel and interchanges, the batched chunks).
template <void (*Define)(Kernel&)>
struct DefinedKernel : Kernel {
    DefinedKernel() { Define(*this); }
};
template <void (*Define)(Kernel&)>
Kernel& kernel(const Runtime& rt) {
    return extension<DefinedKernel<Define>>(rt);
}

/// The codelet of a float task in tensor-core arithmetic `compute` (TaskOptions::compute: 1 TF32, 2 BF16, 3 FP16,
/// 4 three TF32 products of split operands),
/// each defined by Fast<compute> with its own performance model; `plain` for compute 0 and for double tasks.
template <typename T, template <int> class Fast>
const starpu_codelet* by_compute(const Runtime& rt, int compute, const starpu_codelet* plain) {
    if constexpr (is_real_single_v<T>) {
        switch (compute) {
            case 1: return &kernel<Fast<1>::define>(rt).cl;
            case 2: return &kernel<Fast<2>::define>(rt).cl;
            case 3: return &kernel<Fast<3>::define>(rt).cl;
            case 4: return &kernel<Fast<4>::define>(rt).cl;
            default: break;
        }
    }
    return plain;
}

/// Gives a task of a STARPU_VARIABLE_NBUFFERS codelet its n buffers and their modes (StarPU frees dyn_handles and
/// dyn_modes with free() when the task is destroyed).
void set_dynamic_buffers(starpu_task* t, const starpu_data_handle_t* handles, const starpu_data_access_mode* modes,
                         int n);

/// fused: the CUDA implementation is our potf2 (kernels/potf2/) instead of cuSOLVER potrf.
template <typename T> void define_potrf(Kernel& k, DiagKernel kind);
/// Whether this build has the fused potf2 kernel.
bool fused_potf2_available();
/// Whether this build has the recursive Cholesky kernel (kernels/rpotrf/: CUDA builds).
bool recursive_potrf_available();
template <typename T> void define_trsm(Kernel& k);
template <typename T> void define_syrk(Kernel& k);
template <typename T> void define_gemm(Kernel& k);
template <typename T> void define_tile_update(Kernel& k);
template <typename T> void define_trtri(Kernel& k);
template <typename T> void define_trsm_inverse(Kernel& k);

/// Runs the GPU factorization kernels once on every CUDA worker (small matrices, a few ms), so that
/// CUDA's lazy module loading happens when the runtime starts, not inside the first factorization.
void warm_up_gpu_kernels(const Runtime& rt);
/// Makes every CUDA worker's workspace large enough for potrf on tiles of order up to nb with the diagonal
/// kernel `kind` (resolved: Fused, Cusolver or Recursive).
template <typename T> void reserve_potrf_workspace(const Runtime& rt, int nb, DiagKernel kind);
/// The same for the inverse panel path (trtri workspace, one scratch tile).
template <typename T> void reserve_inverse_workspace(const Runtime& rt, int nb);

/// Per-task submission options: mapping, priority, trace name (must outlive the task).
struct TaskOptions {
    Mapping mapping = Mapping::Hybrid;
    int priority = 0;
    const char* name = nullptr;
    /// When set, the task is not detached and is appended here: the caller must starpu_task_wait()
    /// it (used for bounded submission windows).
    std::vector<starpu_task*>* collect = nullptr;
    int64_t* counter = nullptr;  ///< incremented per submitted task when set
    /// On the critical path: its CUDA work goes to the worker's highest-priority stream (WorkerStream in
    /// runtime/cuda_contexts.hpp), so that it is not queued behind other streams' thread blocks.
    bool urgent = false;
    /// The Sequence the task belongs to (its completion is counted there); nullptr: none.
    SequenceState* sequence = nullptr;
    /// Arithmetic of the float gemm and syrk tasks on CUDA workers: 0 float, 1 TF32, 2 BF16 inputs, 3 FP16 inputs
    /// (tensor cores, float accumulation; compute_of(Options::factor)). CPU workers and double tasks ignore it.
    int compute = 0;
    /// When set (sorted): the task's buffers among these handles are outside their implicit dependencies (the
    /// caller orders them), its other buffers in order (starpu_task::handles_sequential_consistency). The
    /// mixed-precision solve's submit form reads and writes A and B this way behind the gate that holds them
    /// (runtime/gate.hpp), while its own tiles stay ordered.
    const std::vector<starpu_data_handle_t>* unordered_data = nullptr;
    /// A low-precision factorization whose breakdown stops it (codelets/breakdown.hpp): its potrf tasks report a
    /// breakdown there, and its potrf, trsm, syrk, gemm and diagonal-inverse tasks return without computing once one
    /// was reported. Null: every task runs.
    BreakdownWatch* watch = nullptr;
    /// A task on distributed data: the MPI rank that runs it, -1 the owner of the data it writes (owner computes).
    /// Another rank receives the task's data it does not own and sends what the task wrote back to the owners
    /// (mpi_insert, runtime/mpi.hpp): the distributed LU's panel, whose tiles several ranks own.
    int rank = -1;
};
/// TaskOptions::compute for a factorization in precision p.
int compute_of(Precision p);

uint32_t where_of(Mapping m);

/// The name of a real precision's instance (a performance model symbol): `single` for float, `dbl` for double. A
/// codelet with complex instances names all four (by_letter, kernels/scalar.hpp).
template <typename T>
constexpr const char* by_precision(const char* single, const char* dbl) {
    static_assert(!is_complex_v<T>, "float or double: a codelet with complex instances names them with by_letter");
    return is_real_single_v<T> ? single : dbl;
}

/// Real operations per operation counted in real arithmetic: a complex multiply-add costs 8 real ones, 4 times the
/// real multiply-add's 2 (LAWN 41's convention for the complex flop counts).
template <typename T>
constexpr double flop_scale() {
    return is_complex_v<T> ? 4.0 : 1.0;
}

/// Copies a trivially copyable argument block into malloc'ed memory StarPU frees after the task.
template <typename Args>
void* pack(const Args& a) {
    static_assert(std::is_trivially_copyable<Args>::value, "codelet args must be trivially copyable");
    void* p = std::malloc(sizeof(Args));
    std::memcpy(p, &a, sizeof(Args));
    return p;
}

/// Applies o (priority, where, name, collect, counter, sequence) and submits; throws RuntimeError if StarPU
/// refuses the task (e.g. no worker can run it). A task on tiles of a distributed TileMatrix goes through
/// StarPU-MPI's owner-computes insertion (runtime/mpi.hpp, mpi_insert): the rank owning the data it writes
/// runs it and only there do the options (collect, counter, sequence) apply; other ranks post the transfers.
void submit(starpu_task* task, const TaskOptions& o, const char* what);

template <typename T>
void insert_potrf(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t A, starpu_data_handle_t info,
                  int64_t offset, DiagKernel kind);
template <typename T>
void insert_trsm(const Runtime& rt, const TaskOptions& o, Side side, Uplo uplo, Op op, Diag diag, T alpha,
                 starpu_data_handle_t A, starpu_data_handle_t B);
template <typename T>
void insert_syrk(const Runtime& rt, const TaskOptions& o, Uplo uplo, Op op, T alpha, starpu_data_handle_t A,
                 T beta, starpu_data_handle_t C);
/// Linv := L^-1 (lower, strictly upper zeroed) into a temporary tile.
template <typename T>
void insert_trtri(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t L, starpu_data_handle_t Linv);
/// B := B Linv^T (the panel solve B L^-T through the explicit inverse).
template <typename T>
void insert_trsm_inverse(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t Linv, starpu_data_handle_t B);
/// C -= sum_j A[j] B[j]^T (B empty: C -= sum_j A[j] A[j]^T, lower) in one task.
template <typename T>
void insert_tile_update(const Runtime& rt, const TaskOptions& o, starpu_data_handle_t C,
                        const std::vector<starpu_data_handle_t>& A, const std::vector<starpu_data_handle_t>& B);
template <typename T>
void insert_gemm(const Runtime& rt, const TaskOptions& o, Op opa, Op opb, T alpha, starpu_data_handle_t A,
                 starpu_data_handle_t B, T beta, starpu_data_handle_t C);

// The complex instances of the tile helpers above (codelets/complex_tiles.cpp), so that one graph serves the four
// element types: their CPU implementations call the scalar layer's c and z routines, their CUDA ones cuSOLVER's potrf
// and cuBLAS. potrf takes LAPACK's and cuSOLVER's potrf whatever `kind` says (the plan's complex rows ask for
// cusolver); syrk is the Hermitian rank-k update (herk: C := alpha op(A) op(A)^H + beta C, alpha and beta real, op
// NoTrans or ConjTrans). TaskOptions::compute and ::watch, which concern float and mixed-precision factorizations,
// do not apply.
#define STARFACT_COMPLEX_TILE_HELPER(C)                                                                               \
    template <>                                                                                                      \
    void insert_potrf<C>(const Runtime&, const TaskOptions&, starpu_data_handle_t, starpu_data_handle_t, int64_t,   \
                         DiagKernel);                                                                                \
    template <>                                                                                                      \
    void insert_trsm<C>(const Runtime&, const TaskOptions&, Side, Uplo, Op, Diag, C, starpu_data_handle_t,          \
                        starpu_data_handle_t);                                                                       \
    template <>                                                                                                      \
    void insert_syrk<C>(const Runtime&, const TaskOptions&, Uplo, Op, C, starpu_data_handle_t, C,                   \
                        starpu_data_handle_t);                                                                       \
    template <>                                                                                                      \
    void insert_gemm<C>(const Runtime&, const TaskOptions&, Op, Op, C, starpu_data_handle_t, starpu_data_handle_t,  \
                        C, starpu_data_handle_t);
STARFACT_COMPLEX_TILE_HELPER(std::complex<float>)
STARFACT_COMPLEX_TILE_HELPER(std::complex<double>)
#undef STARFACT_COMPLEX_TILE_HELPER

/// Tile dimensions from a StarPU matrix interface (column-major: nx rows, ny columns).
inline int tile_rows(starpu_data_handle_t h) { return static_cast<int>(starpu_matrix_get_nx(h)); }
inline int tile_cols(starpu_data_handle_t h) { return static_cast<int>(starpu_matrix_get_ny(h)); }

}  // namespace starfact::detail

// The recursive Cholesky (rpotrf.hpp): the recursion on the host, every operation queued on the caller's stream.
#include <string>
#include <type_traits>

#include "kernels/cuda_blas.hpp"
#include "kernels/rpotrf/rpotrf.hpp"
#include "kernels/trsm_recursive.hpp"
#include "starfact/error.hpp"
#ifdef STARFACT_HAVE_POTF2
#include "kernels/potf2/potf2.hpp"
#endif

namespace starfact::detail::gpu {
namespace {

constexpr const char* kFn = "rpotrf";

void check_blas(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw RuntimeError(std::string("rpotrf: ") + what + " failed (cublasStatus " + std::to_string(s) + ")");
}
void check_solver(cusolverStatus_t s, const char* what) {
    if (s != CUSOLVER_STATUS_SUCCESS)
        throw RuntimeError(std::string("rpotrf: ") + what + " failed (cusolverStatus " + std::to_string(s) + ")");
}

/// The first half of an order: half rounded up to a multiple of 64, so that every block starts aligned.
int split(int n) { return ((n / 2 + 63) / 64) * 64; }

template <typename T>
cublasStatus_t gemm_nt(cublasHandle_t h, int compute, int m, int n, int k, const T* A, int lda, const T* B, int ldb,
                       T* C, int ldc) {
    if constexpr (std::is_same<T, float>::value) {
        if (compute) return gemm_fast(h, compute, Op::NoTrans, Op::Trans, m, n, k, -1.0f, A, lda, B, ldb, 1.0f, C, ldc);
    }
    return gemm(h, Op::NoTrans, Op::Trans, m, n, k, T(-1), A, lda, B, ldb, T(1), C, ldc);
}

/// Workspace layout: [devInfo int, padded to 256 bytes][with trsm_inverse: inverted leaves, scratch][the leaf's
/// own workspace].
constexpr size_t kInfoSlot = 256;

size_t round_up(size_t bytes) { return (bytes + 255) / 256 * 256; }

/// With trsm_inverse: the inverted leaves (leaf x n) and the products' scratch (n x leaf).
template <typename T>
size_t inverse_bytes(int n, const RpotrfConfig& c) {
    return c.trsm_inverse ? 2 * round_up(static_cast<size_t>(c.leaf) * static_cast<size_t>(n > 0 ? n : 1) * sizeof(T))
                          : 0;
}

/// The ln x ln identity at W (leading dimension ldw).
template <typename T>
__global__ void set_identity(T* W, int ln, int ldw) {
    for (int j = blockIdx.x; j < ln; j += gridDim.x)
        for (int i = threadIdx.x; i < ln; i += blockDim.x) W[i + static_cast<int64_t>(j) * ldw] = i == j ? T(1) : T(0);
}

template <typename T>
size_t leaf_bytes(cusolverDnHandle_t solver, const RpotrfConfig& c) {
    if (c.leaf_kind == RpotrfLeaf::Cusolver) {
        int lwork = 0;
        check_solver(potrf_buffer_size(solver, c.leaf, static_cast<T*>(nullptr), c.leaf, &lwork),
                     "cusolverDn<t>potrf_bufferSize");
        return static_cast<size_t>(lwork) * sizeof(T);
    }
#ifdef STARFACT_HAVE_POTF2
    return potf2_workspace_bytes<T>(c.leaf);
#else
    return 0;
#endif
}

template <typename T>
struct Recursion {
    cublasHandle_t cublas;
    cusolverDnHandle_t solver;
    cudaStream_t stream;
    T* A;
    int ld;
    int* info;
    int64_t offset;
    int* dev_info;  // cuSOLVER leaves
    T* inv;         // trsm_inverse: the inverted leaf at global column j starts at inv + j * c.leaf (ld c.leaf)
    T* scratch;     // trsm_inverse: m x leaf products (ld m)
    void* leaf_work;
    size_t leaf_work_bytes;
    const RpotrfConfig& c;
    RpotrfProfile* prof;

    void begin(RpotrfProfile::Part part) const {
        if (prof) prof->begin(part, stream);
    }
    void end() const {
        if (prof) prof->end(stream);
    }

    T* at(int i, int j) const { return A + i + static_cast<int64_t>(j) * ld; }

    void leaf(int off, int n) const {
        begin(RpotrfProfile::Leaf);
        leaf_call(off, n);
        end();
    }
    void leaf_call(int off, int n) const {
        if (c.leaf_kind == RpotrfLeaf::Cusolver) {
            const int lwork = static_cast<int>(leaf_work_bytes / sizeof(T));
            check_solver(potrf(solver, n, at(off, off), ld, static_cast<T*>(leaf_work), lwork, dev_info),
                         "cusolverDn<t>potrf");
            launch_potrf_info<T>(at(off, off), n, ld, dev_info, info, offset + off, stream);
            return;
        }
#ifdef STARFACT_HAVE_POTF2
        potf2_tile<T>(cublas, stream, n, at(off, off), ld, info, offset + off, leaf_work, leaf_work_bytes);
#endif
    }
    T* inverse(int off) const { return inv + static_cast<int64_t>(off) * c.leaf; }
    /// inv(L_kk) of the leaf just factored at off (order n <= leaf): identity, then a triangular solve.
    void invert_leaf(int off, int n) const {
        set_identity<T><<<n < 256 ? n : 256, 128, 0, stream>>>(inverse(off), n, c.leaf);
        check_blas(gpu::trsm(cublas, Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, n, n, T(1), at(off, off), ld,
                             inverse(off), c.leaf),
                   "the leaf inversion");
    }
    /// B := B L^-T for the m x n block B and L = the factor's diagonal block at (off, off) of order n, by the same
    /// splits as factor(): down to the leaves, whose inverses are applied by gemms.
    cublasStatus_t solve_by_inverses(int m, int off, int n, T* B) const {
        if (n <= c.leaf) {
            // B := B inv(L_kk)^T out of place (a gemm: the triangle's zeros cost flops, not time), then copied back.
            cublasStatus_t s;
            if constexpr (std::is_same<T, float>::value) {
                s = c.compute ? gemm_fast(cublas, c.compute, Op::NoTrans, Op::Trans, m, n, n, 1.0f, B, ld, inverse(off),
                                          c.leaf, 0.0f, scratch, m)
                              : gemm(cublas, Op::NoTrans, Op::Trans, m, n, n, 1.0f, B, ld, inverse(off), c.leaf, 0.0f,
                                     scratch, m);
            } else {
                s = gemm(cublas, Op::NoTrans, Op::Trans, m, n, n, T(1), B, ld, inverse(off), c.leaf, T(0), scratch, m);
            }
            if (s != CUBLAS_STATUS_SUCCESS) return s;
            if (cudaMemcpy2DAsync(B, sizeof(T) * ld, scratch, sizeof(T) * m, sizeof(T) * m, n, cudaMemcpyDeviceToDevice,
                                  stream) != cudaSuccess)
                return CUBLAS_STATUS_EXECUTION_FAILED;
            return CUBLAS_STATUS_SUCCESS;
        }
        const int n1 = split(n), n2 = n - n1;
        cublasStatus_t s = solve_by_inverses(m, off, n1, B);
        if (s != CUBLAS_STATUS_SUCCESS) return s;
        T* B2 = B + static_cast<int64_t>(n1) * ld;
        s = gemm_nt<T>(cublas, c.compute, m, n2, n1, B, ld, at(off + n1, off), ld, B2, ld);
        if (s != CUBLAS_STATUS_SUCCESS) return s;
        return solve_by_inverses(m, off + n1, n2, B2);
    }

    void factor(int off, int n) const {
        if (n <= c.leaf) {
            leaf(off, n);
            if (c.trsm_inverse) {
                begin(RpotrfProfile::Trsm);
                invert_leaf(off, n);
                end();
            }
            return;
        }
        const int n1 = split(n), n2 = n - n1;
        factor(off, n1);
        begin(RpotrfProfile::Trsm);
        check_blas(c.trsm_inverse ? solve_by_inverses(n2, off, n1, at(off + n1, off))
                                  : trsm_right_lower_trans(cublas, c.compute, n2, n1, at(off, off), ld,
                                                           at(off + n1, off), ld, c.trsm_base),
                   "the panel solve");
        end();
        begin(RpotrfProfile::Syrk);
        check_blas(syrk_lower_recursive(cublas, c.compute, n2, n1, at(off + n1, off), ld, at(off + n1, off + n1), ld,
                                        c.syrk_base),
                   "the trailing update");
        end();
        factor(off + n1, n2);
    }
};

void check_config(const RpotrfConfig& c) {
    require(c.leaf >= 64 && c.leaf <= 4096, kFn, "config.leaf", "must be in [64, 4096] (got " + std::to_string(c.leaf) + ")");
    require(c.trsm_base >= 64 && c.trsm_base % 64 == 0, kFn, "config.trsm_base",
            "must be a multiple of 64 (got " + std::to_string(c.trsm_base) + ")");
    require(c.syrk_base >= 64, kFn, "config.syrk_base", "must be >= 64 (got " + std::to_string(c.syrk_base) + ")");
    require(c.compute >= 0 && c.compute <= 4, kFn, "config.compute",
            "must be 0 (native), 1 (TF32), 2 (BF16), 3 (FP16) or 4 (3xTF32) (got " + std::to_string(c.compute) + ")");
    require(c.leaf_kind == RpotrfLeaf::Cusolver || rpotrf_fused_leaf_available(), kFn, "config.leaf_kind",
            "is Fused, which this build lacks (no potf2 module)");
}

}  // namespace

RpotrfProfile::~RpotrfProfile() {
    for (int i = 0; i < count_; ++i) {
        cudaEventDestroy(spans_[i].start);
        cudaEventDestroy(spans_[i].stop);
    }
    delete[] spans_;
}

void RpotrfProfile::begin(Part part, cudaStream_t stream) {
    if (count_ == capacity_) {
        const int grown = capacity_ ? 2 * capacity_ : 256;
        Span* s = new Span[grown];
        for (int i = 0; i < count_; ++i) s[i] = spans_[i];
        delete[] spans_;
        spans_ = s;
        capacity_ = grown;
    }
    Span& s = spans_[count_++];
    s.part = part;
    cudaEventCreate(&s.start);
    cudaEventCreate(&s.stop);
    cudaEventRecord(s.start, stream);
}

void RpotrfProfile::end(cudaStream_t stream) { cudaEventRecord(spans_[count_ - 1].stop, stream); }

void RpotrfProfile::finish() {
    for (int i = 0; i < count_; ++i) {
        cudaEventSynchronize(spans_[i].stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, spans_[i].start, spans_[i].stop);
        seconds[spans_[i].part] += ms * 1e-3;
        calls[spans_[i].part] += 1;
        cudaEventDestroy(spans_[i].start);
        cudaEventDestroy(spans_[i].stop);
    }
    count_ = 0;
}

bool rpotrf_fused_leaf_available() {
#ifdef STARFACT_HAVE_POTF2
    return true;
#else
    return false;
#endif
}

template <typename T>
cublasStatus_t syrk_lower_recursive(cublasHandle_t h, int compute, int n, int k, const T* A, int lda, T* C, int ldc,
                                    int base) {
    if (n <= 0 || k <= 0) return CUBLAS_STATUS_SUCCESS;
    if (n <= base) return syrk(h, Uplo::Lower, Op::NoTrans, n, k, T(-1), A, lda, T(1), C, ldc);
    const int n1 = split(n), n2 = n - n1;
    cublasStatus_t s = syrk_lower_recursive(h, compute, n1, k, A, lda, C, ldc, base);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    s = gemm_nt(h, compute, n2, n1, k, A + n1, lda, A, lda, C + n1, ldc);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    return syrk_lower_recursive(h, compute, n2, k, A + n1, lda, C + n1 + static_cast<int64_t>(n1) * ldc, ldc, base);
}

template <typename T>
size_t rpotrf_workspace_bytes(cusolverDnHandle_t solver, int n, const RpotrfConfig& c) {
    check_config(c);
    return kInfoSlot + inverse_bytes<T>(n, c) + leaf_bytes<T>(solver, c);
}

template <typename T>
void rpotrf(cublasHandle_t cublas, cusolverDnHandle_t solver, cudaStream_t stream, int n, T* A, int ld, int* info,
            int64_t offset, void* workspace, size_t workspace_bytes, const RpotrfConfig& c, RpotrfProfile* profile) {
    check_config(c);
    require(n >= 0, kFn, "n", "must be >= 0 (got " + std::to_string(n) + ")");
    require(ld >= (n > 1 ? n : 1), kFn, "ld", "must be >= max(1, n) (got " + std::to_string(ld) + ")");
    if (n == 0) return;
    require(A != nullptr, kFn, "A", "must not be null");
    require(info != nullptr, kFn, "info", "must not be null");
    require(cublas != nullptr, kFn, "cublas", "must not be null");
    require(solver != nullptr || c.leaf_kind != RpotrfLeaf::Cusolver, kFn, "solver",
            "must not be null with cuSOLVER leaves");
    require(c.compute == 0 || std::is_same<T, float>::value, kFn, "config.compute",
            "must be 0 for double (tensor-core gemms take float storage)");
    const size_t need = rpotrf_workspace_bytes<T>(solver, n, c);
    require(workspace != nullptr && workspace_bytes >= need, kFn, "workspace",
            "must hold " + std::to_string(need) + " bytes (got " + std::to_string(workspace_bytes) + ")");
    cublasPointerMode_t mode = CUBLAS_POINTER_MODE_HOST;
    check_blas(cublasGetPointerMode(cublas, &mode), "cublasGetPointerMode");
    if (mode != CUBLAS_POINTER_MODE_HOST) check_blas(cublasSetPointerMode(cublas, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    char* bytes = static_cast<char*>(workspace);
    const size_t inv = inverse_bytes<T>(n, c);
    const Recursion<T> r{cublas, solver, stream, A, ld, info, offset, reinterpret_cast<int*>(bytes),
                         reinterpret_cast<T*>(bytes + kInfoSlot), reinterpret_cast<T*>(bytes + kInfoSlot + inv / 2),
                         bytes + kInfoSlot + inv,
                         workspace_bytes - kInfoSlot - inv, c, profile};
    try {
        r.factor(0, n);
    } catch (...) {
        if (mode != CUBLAS_POINTER_MODE_HOST) cublasSetPointerMode(cublas, mode);
        throw;
    }
    if (mode != CUBLAS_POINTER_MODE_HOST) check_blas(cublasSetPointerMode(cublas, mode), "cublasSetPointerMode");
}

template size_t rpotrf_workspace_bytes<float>(cusolverDnHandle_t, int, const RpotrfConfig&);
template size_t rpotrf_workspace_bytes<double>(cusolverDnHandle_t, int, const RpotrfConfig&);
template void rpotrf<float>(cublasHandle_t, cusolverDnHandle_t, cudaStream_t, int, float*, int, int*, int64_t, void*,
                            size_t, const RpotrfConfig&, RpotrfProfile*);
template void rpotrf<double>(cublasHandle_t, cusolverDnHandle_t, cudaStream_t, int, double*, int, int*, int64_t,
                             void*, size_t, const RpotrfConfig&, RpotrfProfile*);
template cublasStatus_t syrk_lower_recursive<float>(cublasHandle_t, int, int, int, const float*, int, float*, int, int);
template cublasStatus_t syrk_lower_recursive<double>(cublasHandle_t, int, int, int, const double*, int, double*, int,
                                                     int);

}  // namespace starfact::detail::gpu

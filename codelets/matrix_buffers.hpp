// Internal: what the refinement's codelets (refine_sweeps.cpp, refine_fused.cpp, krylov.cpp) share: a typed view of
// a StarPU matrix buffer, the memory-bound update C -= op(A) B and product C := op(A) B on the GPU, and the submission of a task of a
// variable number of buffers with its packed arguments.
#pragma once
#include <starpu.h>

#include <vector>

#include "codelets/codelets.hpp"
#include "kernels/cuda_blas.hpp"
#include "runtime/runtime_state.hpp"

namespace starfact::detail {

/// A column-major matrix buffer of a task: m x n, leading dimension ld.
template <typename T>
struct MatrixView {
    int m, n, ld;
    T* p;
};
template <typename T>
MatrixView<T> matrix_view(void* buffer) {
    return {static_cast<int>(STARPU_MATRIX_GET_NX(buffer)), static_cast<int>(STARPU_MATRIX_GET_NY(buffer)),
            static_cast<int>(STARPU_MATRIX_GET_LD(buffer)), reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffer))};
}

#ifdef STARFACT_HAVE_CUDA
/// C -= op(A) B on the GPU; one column of B takes cuBLAS's gemv (its gemm is not tuned for n = 1).
template <typename T>
cublasStatus_t update(cublasHandle_t h, Op op, const MatrixView<T>& A, const MatrixView<T>& B, MatrixView<T>& C) {
    if (C.n == 1) return gpu::gemv(h, op, A.m, A.n, T(-1), A.p, A.ld, B.p, T(1), C.p);
    return gpu::gemm(h, op, Op::NoTrans, C.m, C.n, B.m, T(-1), A.p, A.ld, B.p, B.ld, T(1), C.p, C.ld);
}

/// C := op(A) B on the GPU (A square), gemv for one column as in update.
template <typename T>
cublasStatus_t product(cublasHandle_t h, Op op, const MatrixView<T>& A, const MatrixView<T>& B, MatrixView<T>& C) {
    if (C.n == 1) return gpu::gemv(h, op, A.m, A.n, T(1), A.p, A.ld, B.p, T(0), C.p);
    return gpu::gemm(h, op, Op::NoTrans, C.m, C.n, B.m, T(1), A.p, A.ld, B.p, B.ld, T(0), C.p, C.ld);
}
#endif

/// Submits one task of k over `handles` (with `modes` when k is a STARPU_VARIABLE_NBUFFERS codelet; a codelet of
/// fixed buffers has its own), its arguments a copy of `a` (whose `cuda` and `urgent` members are set here from rt and
/// o) that StarPU frees with the task.
template <typename Args>
void submit_variable(const Runtime& rt, const TaskOptions& o, Kernel& k, const std::vector<starpu_data_handle_t>& handles,
                     const std::vector<starpu_data_access_mode>& modes, Args a, double flops, const char* what) {
    starpu_task* t = starpu_task_create();
    t->cl = &k.cl;
    if (k.cl.nbuffers == STARPU_VARIABLE_NBUFFERS)
        set_dynamic_buffers(t, handles.data(), modes.data(), static_cast<int>(handles.size()));
    else
        for (size_t i = 0; i < handles.size(); ++i) t->handles[i] = handles[i];
    a.cuda = cuda_contexts(rt);
    a.urgent = o.urgent;
    t->cl_arg = pack(a);
    t->cl_arg_size = sizeof(Args);
    t->cl_arg_free = 1;
    t->flops = flops;
    submit(t, o, what);
}

}  // namespace starfact::detail

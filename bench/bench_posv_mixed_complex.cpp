// bench_posv_mixed_complex: the mixed-precision Hermitian solve (starfact::posv on complex<double> tiles with
// Options::factor tf32 or fp32: a complex<float> factor refined to complex<double> accuracy, mixed.hpp) against the
// complex<double> solves, on one GPU, in the same process, on the same matrix and right-hand sides: cuSOLVER's
// cusolverDnXpotrf + cusolverDnXpotrs (CUDA_C_64F), and starfact's own complex<double> posv (potrf + potrs, the
// plan's tiles). Per order n: the untimed warm-up runs, then the median of --repeat timed runs of each, every run on a
// fresh copy of A and B (the copies untimed); starfact's tiles device-resident. Times are wall-clock seconds of the
// call, synchronized. Each row: n, the three medians, the ratios cusolver / mixed and starfact_z / mixed (above 1: the
// mixed solve is faster), the mixed solve's path and steps (its last run's report), and its answer's backward error
// max_j ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf), computed here in double on the device (cuBLAS),
// which must stay below the refinement's tolerance times 4 (the exit status says). The matrix: Hermitian positive
// definite, well conditioned (random entries in [-1, 1) + i [-1, 1) below the diagonal, their conjugates above, a
// real diagonal 3 sqrt(n) + 1 + [0, 1)).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/common.hpp"
#include "bench/complex_common.hpp"
#include "kernels/cuda_blas.hpp"
#include "starfact/cholesky_complex.hpp"
#include "starfact/mixed.hpp"
#include "starfact/plan.hpp"
#include "starfact/runtime.hpp"
#include "support/cli.hpp"

namespace {

using Z = std::complex<double>;

const char* kHelp =
    "bench_posv_mixed_complex: the mixed-precision complex posv (complex<float> factor, refined to complex<double>)\n"
    "against cuSOLVER's zpotrf + zpotrs and starfact's own complex<double> posv, same matrix, same GPU\n"
    "usage: bench_posv_mixed_complex [flags] N [N ...]    (orders; default 16384 32768)\n"
    "  --factor P       tf32 (default) or fp32\n"
    "  --nrhs K         right-hand sides (default 1)\n"
    "  --nb NB          the mixed solve's tile size (default: the plan's)\n"
    "  --streams N      CUDA workers (streams) per GPU (default 4)\n"
    "  --warmup N       untimed runs of each before the timed ones (default 2)\n"
    "  --repeat N       timed runs of each; the median is printed (default 5)\n"
    "  --seed N         the matrix's seed (default 1)\n"
    "  --help           this text\n";

struct Settings {
    std::vector<int64_t> orders;
    starfact::Precision factor = starfact::Precision::Tf32;
    int64_t nrhs = 1, nb = 0;
    int streams = 4, warmup = 2, repeat = 5;
    uint64_t seed = 1;
};

using starfact::bench::seconds_since;

/// The Hermitian positive definite A (both triangles, bench/complex_common.hpp) and B, entries hashed from the seed.
void inputs(int64_t n, int64_t nrhs, uint64_t seed, std::vector<Z>& A, std::vector<Z>& B) {
    A = starfact::bench::hermitian_matrix<Z>(n, seed);
    B.assign(static_cast<size_t>(n) * static_cast<size_t>(nrhs), Z(0));
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = 0; i < n; ++i)
            B[static_cast<size_t>(i + j * n)] = starfact::bench::hashed_entry<Z>(seed, n + i, j);
}

/// cuSOLVER's zpotrf + zpotrs on copies of dA0, dB0; the median seconds, X left in dX.
double time_cusolver(const Settings& s, int64_t n, const Z* dA0, const Z* dB0, Z* dA, Z* dX) {
    starfact::bench::Solver sv;
    cusolverDnHandle_t h = sv.h;
    cusolverDnParams_t params = sv.params;
    cudaStream_t stream = sv.stream;
    constexpr cudaDataType_t type = starfact::detail::gpu::cuda_type<Z>();  // CUDA_C_64F
    size_t dev_bytes = 0, host_bytes = 0;
    STARFACT_BENCH_STATUS(cusolverDnXpotrf_bufferSize(h, params, CUBLAS_FILL_MODE_LOWER, n, type, dA, n, type,
                                                      &dev_bytes, &host_bytes));
    void* work = nullptr;
    int* info = nullptr;
    STARFACT_BENCH_CUDA(cudaMalloc(&work, std::max<size_t>(dev_bytes, 1)));
    STARFACT_BENCH_CUDA(cudaMalloc(&info, sizeof(int)));
    std::vector<char> hwork(std::max<size_t>(host_bytes, 1));
    std::vector<double> t;
    for (int r = 0; r < s.warmup + s.repeat; ++r) {
        STARFACT_BENCH_CUDA(cudaMemcpyAsync(dA, dA0, sizeof(Z) * static_cast<size_t>(n * n), cudaMemcpyDeviceToDevice,
                                            stream));
        STARFACT_BENCH_CUDA(cudaMemcpyAsync(dX, dB0, sizeof(Z) * static_cast<size_t>(n * s.nrhs),
                                            cudaMemcpyDeviceToDevice, stream));
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(stream));
        const auto t0 = std::chrono::steady_clock::now();
        STARFACT_BENCH_STATUS(cusolverDnXpotrf(h, params, CUBLAS_FILL_MODE_LOWER, n, type, dA, n, type, work, dev_bytes,
                                               hwork.data(), host_bytes, info));
        STARFACT_BENCH_STATUS(cusolverDnXpotrs(h, params, CUBLAS_FILL_MODE_LOWER, n, s.nrhs, type, dA, n, type, dX, n,
                                               info));
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(stream));
        if (r >= s.warmup) t.push_back(seconds_since(t0));
    }
    int h_info = 0;
    STARFACT_BENCH_CUDA(cudaMemcpy(&h_info, info, sizeof(int), cudaMemcpyDeviceToHost));
    if (h_info != 0) std::fprintf(stderr, "bench_posv_mixed_complex: cuSOLVER's zpotrf/zpotrs info = %d\n", h_info);
    cudaFree(work);
    cudaFree(info);
    return starfact::bench::median(t);
}

/// starfact's posv on device-resident tiles of nb imported from dA0, dB0 before each run (untimed): with `opts`
/// (factor native: the complex<double> solve; tf32/fp32: the mixed solve, its last report in `report`). The median
/// seconds; X exported into dX.
double time_starfact(const Settings& s, starfact::Runtime& rt, int64_t n, int64_t nb, const starfact::Options& opts,
                     const Z* dA0, const Z* dB0, Z* dX, starfact::SolveReport& report, int& info) {
    starfact::TileMatrix<Z> A(rt, n, nb, starfact::Residency::Device), B(rt, n, s.nrhs, nb, starfact::Residency::Device);
    std::vector<double> t;
    for (int r = 0; r < s.warmup + s.repeat; ++r) {
        A.import(dA0, n);
        B.import(dB0, n);
        rt.wait_all();
        const auto t0 = std::chrono::steady_clock::now();
        info = starfact::posv(A, B, opts, report);
        if (r >= s.warmup) t.push_back(seconds_since(t0));
        if (info != 0) break;
    }
    B.export_to(dX, n);
    return starfact::bench::median(t);
}

/// The largest column's backward error of X (device arrays; A whole, both triangles), on the device in double.
double backward_error(int64_t n, int64_t nrhs, const Z* dA, const Z* dB, const Z* dX) {
    cublasHandle_t h;
    STARFACT_BENCH_STATUS(cublasCreate(&h));
    Z* dR = nullptr;
    STARFACT_BENCH_CUDA(cudaMalloc(&dR, sizeof(Z) * static_cast<size_t>(n * nrhs)));
    STARFACT_BENCH_CUDA(cudaMemcpy(dR, dB, sizeof(Z) * static_cast<size_t>(n * nrhs), cudaMemcpyDeviceToDevice));
    using starfact::detail::Op;
    STARFACT_BENCH_STATUS(starfact::detail::gpu::gemm<Z>(h, Op::NoTrans, Op::NoTrans, n, nrhs, n, Z(-1), dA, n, dX, n,
                                                         Z(1), dR, n));  // cuBLAS Zgemm
    STARFACT_BENCH_CUDA(cudaDeviceSynchronize());
    // ||A||_inf on the host from the rows of A (Hermitian: the columns' 1-norms), the vectors' maxima on the host
    std::vector<Z> A(static_cast<size_t>(n * n)), R(static_cast<size_t>(n * nrhs)), B(R.size()), X(R.size());
    STARFACT_BENCH_CUDA(cudaMemcpy(A.data(), dA, sizeof(Z) * A.size(), cudaMemcpyDeviceToHost));
    STARFACT_BENCH_CUDA(cudaMemcpy(R.data(), dR, sizeof(Z) * R.size(), cudaMemcpyDeviceToHost));
    STARFACT_BENCH_CUDA(cudaMemcpy(B.data(), dB, sizeof(Z) * B.size(), cudaMemcpyDeviceToHost));
    STARFACT_BENCH_CUDA(cudaMemcpy(X.data(), dX, sizeof(Z) * X.size(), cudaMemcpyDeviceToHost));
    double anorm = 0;
    for (int64_t j = 0; j < n; ++j) {
        double c = 0;
        for (int64_t i = 0; i < n; ++i) c += std::abs(A[static_cast<size_t>(i + j * n)]);
        anorm = std::max(anorm, c);
    }
    double worst = 0;
    for (int64_t j = 0; j < nrhs; ++j) {
        double r = 0, x = 0, b = 0;
        for (int64_t i = 0; i < n; ++i) {
            const size_t k = static_cast<size_t>(i + j * n);
            r = std::max(r, std::abs(R[k]));
            x = std::max(x, std::abs(X[k]));
            b = std::max(b, std::abs(B[k]));
        }
        worst = std::max(worst, r / (anorm * x + b));
    }
    cudaFree(dR);
    cublasDestroy(h);
    return worst;
}

Settings parse(int argc, char** argv) {
    Settings s;
    starfact::support::Cli cli = starfact::bench::orders_and_flags(argc, argv, {"--help"}, s.orders);
    while (!cli.done()) {
        const std::string f = cli.next();
        if (f == "--help") {
            std::printf("%s", kHelp);
            std::exit(0);
        } else if (f == "--factor") {
            s.factor = cli.choice({"tf32", "fp32"}) == "fp32" ? starfact::Precision::Fp32 : starfact::Precision::Tf32;
        } else if (f == "--nrhs") s.nrhs = cli.integer(1, 4096);
        else if (f == "--nb") s.nb = cli.integer(1, 46340);
        else if (f == "--streams") s.streams = static_cast<int>(cli.integer(1, 64));
        else if (f == "--warmup") s.warmup = static_cast<int>(cli.integer(0, 100));
        else if (f == "--repeat") s.repeat = static_cast<int>(cli.integer(1, 100));
        else if (f == "--seed") s.seed = static_cast<uint64_t>(cli.integer(0, INT64_MAX));
        else cli.unknown();
    }
    if (s.orders.empty()) s.orders = {16384, 32768};
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    const Settings s = starfact::bench::parse_or_exit("bench_posv_mixed_complex", parse, argc, argv);
    const std::unique_ptr<starfact::Runtime> runtime =
        starfact::bench::gpu_runtime("bench_posv_mixed_complex", s.streams);
    starfact::Runtime& rt = *runtime;
    std::printf("device-resident tiles, gpu-only, %d stream(s) per GPU, nrhs %lld, warm-up %d, median of %d\n",
                s.streams, static_cast<long long>(s.nrhs), s.warmup, s.repeat);
    std::printf("%7s %6s %6s %11s %11s %11s %9s %10s %8s %6s %6s %10s %10s\n", "n", "nb_z", "nb_mix", "cusolver_s",
                "starfact_z_s", "mixed_s", "cus/mix", "z/mix", "path", "steps", "gmres", "berr", "tolerance");
    bool failed = false;
    for (int64_t n : s.orders) {
        std::vector<Z> A, B;
        inputs(n, s.nrhs, s.seed, A, B);
        Z *dA0 = nullptr, *dB0 = nullptr, *dA = nullptr, *dX = nullptr;
        const size_t abytes = sizeof(Z) * A.size(), bbytes = sizeof(Z) * B.size();
        STARFACT_BENCH_CUDA(cudaMalloc(&dA0, abytes));
        STARFACT_BENCH_CUDA(cudaMalloc(&dB0, bbytes));
        STARFACT_BENCH_CUDA(cudaMalloc(&dX, bbytes));
        STARFACT_BENCH_CUDA(cudaMemcpy(dA0, A.data(), abytes, cudaMemcpyHostToDevice));
        STARFACT_BENCH_CUDA(cudaMemcpy(dB0, B.data(), bbytes, cudaMemcpyHostToDevice));
        STARFACT_BENCH_CUDA(cudaMalloc(&dA, abytes));
        const double t_cus = time_cusolver(s, n, dA0, dB0, dA, dX);
        cudaFree(dA);  // starfact's tiles need the room
        starfact::Request req;
        req.op = starfact::Operation::Posv;
        req.element = starfact::Precision::C128;
        req.m = req.n = n;
        req.nrhs = s.nrhs;
        req.options.mapping = starfact::Mapping::GpuOnly;
        req.tiling.residency = starfact::Residency::Device;
        const starfact::Machine machine = starfact::Machine::of(rt);
        const int64_t nb_z = starfact::plan(req, machine).nb;
        req.options.factor = s.factor;
        req.always_low = true;
        const int64_t nb_mix = s.nb > 0 ? s.nb : starfact::plan(req, machine).nb;
        starfact::Options native, mixed;
        native.mapping = mixed.mapping = starfact::Mapping::GpuOnly;
        mixed.factor = s.factor;
        starfact::SolveReport zr, mr;
        int zinfo = 0, minfo = 0;
        const double t_z = time_starfact(s, rt, n, nb_z, native, dA0, dB0, dX, zr, zinfo);
        const double t_mix = time_starfact(s, rt, n, nb_mix, mixed, dA0, dB0, dX, mr, minfo);
        const double berr = backward_error(n, s.nrhs, dA0, dB0, dX);
        const bool ok = zinfo == 0 && minfo == 0 && mr.path != starfact::SolveReport::Path::Failed &&
                        berr <= 4 * std::max(mr.tolerance, std::sqrt(static_cast<double>(n)) * 0x1p-53);
        failed = failed || !ok;
        std::printf("%7lld %6lld %6lld %11.4f %11.4f %11.4f %9.3f %10.3f %8s %6d %6d %10.2e %10.2e\n",
                    static_cast<long long>(n), static_cast<long long>(nb_z), static_cast<long long>(nb_mix), t_cus, t_z,
                    t_mix, t_cus / t_mix, t_z / t_mix, starfact::to_string(mr.path), mr.iterations, mr.gmres_iterations,
                    berr, mr.tolerance);
        if (!mr.reason.empty()) std::printf("  mixed solve: %s\n", mr.reason.c_str());
        std::printf("  mixed solve of the last run: factorization and first solve %.4f s of %.4f s\n", mr.factor_seconds,
                    mr.seconds);
        std::fflush(stdout);
        cudaFree(dA0);
        cudaFree(dB0);
        cudaFree(dX);
    }
    if (failed) {
        std::fprintf(stderr, "bench_posv_mixed_complex: a solve failed or its backward error exceeded 4x the tolerance\n");
        return 1;
    }
    return 0;
}

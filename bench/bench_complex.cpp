// bench_complex: starfact's complex tile factorizations against cuSOLVER on the same matrix, on one GPU, in the same
// process: the Hermitian Cholesky (starfact/cholesky_complex.hpp, A = L L^H, lower) against cusolverDnXpotrf, the
// LU with partial pivoting (starfact/lu_complex.hpp, P A = L U) against cusolverDnXgetrf, and the Householder QR
// (starfact/qr_complex.hpp, A = Q R) against cusolverDnXgeqrf. Per operation, precision
// (c, z), order n and tile size nb: the untimed warm-up runs, then the median of --repeat timed runs of each, every run
// on a fresh copy of the matrix (the copy untimed); starfact's tiles device-resident by default. Times are wall-clock
// seconds of the call, synchronized (starfact's call waits for its tasks; cuSOLVER's stream is synchronized). GFLOP/s
// count real flops: 4 n^3 / 3 for potrf, 8 n^3 / 3 for getrf, 16 n^3 / 3 for geqrf (a complex multiply-add is 8 of
// them). ratio = cuSOLVER's time / starfact's (above 1: starfact is faster). check: potrf, ||L_starfact -
// L_cusolver||_F / ||L_cusolver||_F; getrf, starfact's factors solving A x = b (cusolverDnXgetrs with its pivots),
// ||b - A x||_2 / (||A||_F ||x||_2 n eps), which must stay below 60 (the pivots of two LUs may differ at near ties, so
// their factors are not compared); geqrf, || |R_starfact| - |R_cusolver| ||_F / ||R_cusolver||_F entry-wise moduli
// (R is unique up to a unimodular factor per row), which must stay below 1e-3 (c) or 1e-8 (z).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

#include "bench/common.hpp"
#include "bench/complex_common.hpp"
#include "kernels/cuda_blas.hpp"
#include "starfact/cholesky_complex.hpp"
#include "starfact/lu_complex.hpp"
#include "starfact/qr_complex.hpp"
#include "starfact/runtime.hpp"
#include "support/cli.hpp"

namespace {

const char* kHelp =
    "bench_complex: starfact's complex potrf, getrf and geqrf against cuSOLVER's Xpotrf, Xgetrf and Xgeqrf, same\n"
    "matrix, same GPU\n"
    "usage: bench_complex [flags] N [N ...]    (orders; default 8192 16384 32768)\n"
    "  --op LIST        potrf, getrf, geqrf, comma separated (default potrf)\n"
    "  --tree T         geqrf's tree: auto (default: the plan's), flat, binary, domains=D or panel\n"
    "  --prec LIST      c, z or both, comma separated (default c,z)\n"
    "  --nb LIST        starfact's tile sizes, comma separated (default 2048; n or more: one tile, one task)\n"
    "  --streams N      CUDA workers (streams) per GPU (default 4, as the real factorizations' plan)\n"
    "  --mapping M      gpu-only (default) or hybrid\n"
    "  --host           host-resident tiles (default device-resident; the import and export stay untimed)\n"
    "  --warmup N       untimed runs of each before the timed ones (default 1)\n"
    "  --repeat N       timed runs of each; the median is printed (default 3)\n"
    "  --seed N         the matrix's seed (default 1)\n"
    "  --check-each     getrf: the solve residual after every run, warm-ups included (one line each)\n"
    "  --help           this text\n"
    "Columns: op prec n nb, cuSOLVER's and starfact's median seconds and GFLOP/s, ratio = cusolver_s / starfact_s\n"
    "(above 1: starfact faster), check (potrf: ||L_starfact - L_cusolver||_F / ||L_cusolver||_F; getrf: the scaled\n"
    "residual of a solve with starfact's factors, < 60; geqrf: || |R_starfact| - |R_cusolver| ||_F / ||R_cusolver||_F,\n"
    "< 1e-3 in c, 1e-8 in z). Last, per operation and precision, the geometric mean of the ratios. Exit 1 when a\n"
    "check fails.\n";

struct Settings {
    std::vector<int64_t> orders;
    std::vector<std::string> ops = {"potrf"};
    std::vector<std::string> precs = {"c", "z"};
    std::vector<int64_t> nbs = {2048};
    int streams = 4;
    starfact::Mapping mapping = starfact::Mapping::GpuOnly;
    starfact::Residency residency = starfact::Residency::Device;
    int warmup = 1, repeat = 3;
    uint64_t seed = 1;
    bool check_each = false;
    std::string tree = "auto";
};

using starfact::bench::seconds_since;
using starfact::bench::Solver;

template <typename C>
constexpr cudaDataType_t data_type() {
    return starfact::detail::gpu::cuda_type<C>();
}

/// potrf's input: Hermitian positive definite, below the diagonal complex entries with real and imaginary parts
/// uniform in [-1, 1) (a hash of seed, i, j), their conjugates above, a real diagonal 3 sqrt(n) + 1 + [0, 1).
/// getrf's: every entry's parts uniform in [-1, 1) (a general matrix; its pivots interchange rows).
template <typename C>
std::vector<C> input_matrix(const std::string& op, int64_t n, uint64_t seed) {
    return op == "potrf" ? starfact::bench::hermitian_matrix<C>(n, seed) : starfact::bench::general_matrix<C>(n, seed);
}

/// cuSOLVER's potrf (lower) or getrf on dA (a fresh copy of dPristine before each run); returns the median seconds
/// and leaves the factors in dA (getrf: the pivots in dIpiv).
template <typename C>
double time_cusolver(const Settings& s, const std::string& op, int64_t n, const C* dPristine, C* dA, int64_t* dIpiv) {
    Solver sv;
    const bool lu = op == "getrf", qr = op == "geqrf";
    size_t dev_bytes = 0, host_bytes = 0;
    C* dTau = nullptr;
    if (qr) STARFACT_BENCH_CUDA(cudaMalloc(&dTau, sizeof(C) * static_cast<size_t>(n)));
    if (lu)
        STARFACT_BENCH_STATUS(cusolverDnXgetrf_bufferSize(sv.h, sv.params, n, n, data_type<C>(), dA, n, data_type<C>(),
                                                          &dev_bytes, &host_bytes));
    else if (qr)
        STARFACT_BENCH_STATUS(cusolverDnXgeqrf_bufferSize(sv.h, sv.params, n, n, data_type<C>(), dA, n, data_type<C>(),
                                                          dTau, data_type<C>(), &dev_bytes, &host_bytes));
    else
        STARFACT_BENCH_STATUS(cusolverDnXpotrf_bufferSize(sv.h, sv.params, CUBLAS_FILL_MODE_LOWER, n, data_type<C>(),
                                                          dA, n, data_type<C>(), &dev_bytes, &host_bytes));
    void* dwork = nullptr;
    int* dinfo = nullptr;
    STARFACT_BENCH_CUDA(cudaMalloc(&dwork, std::max<size_t>(dev_bytes, 1)));
    STARFACT_BENCH_CUDA(cudaMalloc(&dinfo, sizeof(int)));
    std::vector<char> hwork(std::max<size_t>(host_bytes, 1));
    const size_t bytes = static_cast<size_t>(n) * static_cast<size_t>(n) * sizeof(C);
    std::vector<double> t;
    for (int r = 0; r < s.warmup + s.repeat; ++r) {
        STARFACT_BENCH_CUDA(cudaMemcpyAsync(dA, dPristine, bytes, cudaMemcpyDeviceToDevice, sv.stream));
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(sv.stream));
        const auto t0 = std::chrono::steady_clock::now();
        if (lu)
            STARFACT_BENCH_STATUS(cusolverDnXgetrf(sv.h, sv.params, n, n, data_type<C>(), dA, n, dIpiv, data_type<C>(),
                                                   dwork, dev_bytes, hwork.data(), host_bytes, dinfo));
        else if (qr)
            STARFACT_BENCH_STATUS(cusolverDnXgeqrf(sv.h, sv.params, n, n, data_type<C>(), dA, n, data_type<C>(), dTau,
                                                   data_type<C>(), dwork, dev_bytes, hwork.data(), host_bytes, dinfo));
        else
            STARFACT_BENCH_STATUS(cusolverDnXpotrf(sv.h, sv.params, CUBLAS_FILL_MODE_LOWER, n, data_type<C>(), dA, n,
                                                   data_type<C>(), dwork, dev_bytes, hwork.data(), host_bytes, dinfo));
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(sv.stream));
        if (r >= s.warmup) t.push_back(seconds_since(t0));
        int info = 0;
        STARFACT_BENCH_CUDA(cudaMemcpy(&info, dinfo, sizeof(int), cudaMemcpyDeviceToHost));
        if (info != 0) {
            std::fprintf(stderr, "bench_complex: cusolverDnX%s returned info = %d at n = %lld\n", op.c_str(), info,
                         static_cast<long long>(n));
            std::exit(1);
        }
    }
    cudaFree(dwork);
    cudaFree(dinfo);
    cudaFree(dTau);
    return starfact::bench::median(t);
}

template <typename C>
double solve_residual(int64_t n, const C* dA, const C* dLU, const std::vector<int64_t>& ipiv);

/// starfact's potrf or getrf on tiles imported from dPristine before each run; returns the median seconds and exports
/// the last factors into dOut (getrf: its pivots into ipiv, LAPACK's 1-based).
template <typename C>
double time_starfact(const Settings& s, const std::string& op, starfact::Runtime& rt, int64_t n, int64_t nb,
                     const C* dPristine, C* dOut, std::vector<int64_t>& ipiv) {
    starfact::TileMatrix<C> tiles(rt, n, nb, s.residency);
    starfact::Pivots piv(tiles);
    starfact::Options opts;
    opts.mapping = s.mapping;
    std::vector<double> t;
    for (int r = 0; r < s.warmup + s.repeat; ++r) {
        tiles.import(dPristine, n);
        rt.wait_all();
        const auto t0 = std::chrono::steady_clock::now();
        int info = 0;
        if (op == "geqrf") {
            starfact::QRFactors<C> f(tiles, starfact::QrTree::parse(s.tree));
            starfact::geqrf(tiles, f, opts);  // (a breakdown throws)
        } else {
            info = op == "getrf" ? starfact::getrf(tiles, piv, opts) : starfact::potrf(tiles, opts);
        }
        if (r >= s.warmup) t.push_back(seconds_since(t0));
        if (s.check_each && op == "getrf") {
            tiles.export_to(dOut, n);
            std::printf("run %d: solve residual %.3g\n", r, solve_residual<C>(n, dPristine, dOut, piv.ipiv()));
        }
        if (info != 0) {
            std::fprintf(stderr, "bench_complex: starfact's %s returned info = %d at n = %lld, nb = %lld\n",
                         op.c_str(), info, static_cast<long long>(n), static_cast<long long>(nb));
            std::exit(1);
        }
    }
    tiles.export_to(dOut, n);
    if (op == "getrf") ipiv = piv.ipiv();
    return starfact::bench::median(t);
}

/// cuBLAS's complex nrm2, axpy (y += alpha x) and gemv (y = alpha A x + beta y) on n-vectors and n x n matrices
/// (the scalar layer's 64-bit-index templates).
struct Blas {
    cublasHandle_t h;
    Blas() { STARFACT_BENCH_STATUS(cublasCreate(&h)); }
    ~Blas() { cublasDestroy(h); }
    template <typename C>
    double nrm2(int64_t count, const C* x) {
        typename C::value_type r = 0;
        STARFACT_BENCH_STATUS(starfact::detail::gpu::nrm2_64<C>(h, count, x, &r));
        return r;
    }
    template <typename C>
    void axpy(int64_t count, C alpha, const C* x, C* y) {
        STARFACT_BENCH_STATUS(starfact::detail::gpu::axpy_64<C>(h, count, alpha, x, y));
    }
    template <typename C>
    void gemv(int64_t n, C alpha, const C* A, const C* x, C beta, C* y) {
        STARFACT_BENCH_STATUS(starfact::detail::gpu::gemv_64<C>(h, starfact::detail::Op::NoTrans, n, n, alpha, A, n, x,
                                                                beta, y));
    }
};

/// || |R_X| - |R_Y| ||_F / ||R_Y||_F over the upper triangles of the n x n device arrays X and Y, entry-wise moduli.
template <typename C>
double modulus_difference(int64_t n, const C* dX, const C* dY) {
    std::vector<C> X(static_cast<size_t>(n) * static_cast<size_t>(n)), Y(X.size());
    STARFACT_BENCH_CUDA(cudaMemcpy(X.data(), dX, sizeof(C) * X.size(), cudaMemcpyDeviceToHost));
    STARFACT_BENCH_CUDA(cudaMemcpy(Y.data(), dY, sizeof(C) * Y.size(), cudaMemcpyDeviceToHost));
    double diff = 0, ref = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= j; ++i) {
            const size_t k = static_cast<size_t>(i + j * n);
            const double y = std::abs(std::complex<double>(Y[k])), d = std::abs(std::complex<double>(X[k])) - y;
            diff += d * d;
            ref += y * y;
        }
    return ref > 0 ? std::sqrt(diff / ref) : std::sqrt(diff);
}

/// ||X - Y||_F / ||Y||_F for n x n device arrays; X is overwritten.
template <typename C>
double relative_difference(int64_t n, C* dX, const C* dY) {
    Blas b;
    const double ref = b.nrm2(n * n, dY);
    b.axpy(n * n, C(-1), dY, dX);
    const double diff = b.nrm2(n * n, dX);
    return ref > 0 ? diff / ref : diff;
}

/// The scaled residual ||b - A x||_2 / (||A||_F ||x||_2 n eps) of x solving A x = b with the LU factors dLU and
/// LAPACK's 1-based pivots ipiv (cusolverDnXgetrs), b's entries those of A's first column reversed.
template <typename C>
double solve_residual(int64_t n, const C* dA, const C* dLU, const std::vector<int64_t>& ipiv) {
    Solver sv;
    Blas blas;
    int64_t* dIpiv = nullptr;
    C *dB = nullptr, *dX = nullptr;
    int* dinfo = nullptr;
    STARFACT_BENCH_CUDA(cudaMalloc(&dIpiv, sizeof(int64_t) * static_cast<size_t>(n)));
    STARFACT_BENCH_CUDA(cudaMalloc(&dB, sizeof(C) * static_cast<size_t>(n)));
    STARFACT_BENCH_CUDA(cudaMalloc(&dX, sizeof(C) * static_cast<size_t>(n)));
    STARFACT_BENCH_CUDA(cudaMalloc(&dinfo, sizeof(int)));
    STARFACT_BENCH_CUDA(cudaMemcpy(dIpiv, ipiv.data(), sizeof(int64_t) * static_cast<size_t>(n), cudaMemcpyHostToDevice));
    std::vector<C> b(static_cast<size_t>(n));
    STARFACT_BENCH_CUDA(cudaMemcpy(b.data(), dA, sizeof(C) * b.size(), cudaMemcpyDeviceToHost));
    std::reverse(b.begin(), b.end());
    STARFACT_BENCH_CUDA(cudaMemcpy(dB, b.data(), sizeof(C) * b.size(), cudaMemcpyHostToDevice));
    STARFACT_BENCH_CUDA(cudaMemcpy(dX, b.data(), sizeof(C) * b.size(), cudaMemcpyHostToDevice));
    // A copy from pageable memory may return before its DMA lands, and sv.stream does not wait for the legacy stream.
    STARFACT_BENCH_CUDA(cudaDeviceSynchronize());
    STARFACT_BENCH_STATUS(cusolverDnXgetrs(sv.h, sv.params, CUBLAS_OP_N, n, 1, data_type<C>(), dLU, n, dIpiv,
                                           data_type<C>(), dX, n, dinfo));
    STARFACT_BENCH_CUDA(cudaStreamSynchronize(sv.stream));
    blas.gemv(n, C(-1), dA, dX, C(1), dB);  // b - A x
    STARFACT_BENCH_CUDA(cudaDeviceSynchronize());
    const double r = blas.nrm2(n, dB), x = blas.nrm2(n, dX), a = blas.nrm2(n * n, dA);
    cudaFree(dIpiv);
    cudaFree(dB);
    cudaFree(dX);
    cudaFree(dinfo);
    const double eps = std::numeric_limits<typename C::value_type>::epsilon();
    return r / (a * x * static_cast<double>(n) * eps);
}

template <typename C>
void run_precision(const Settings& s, const std::string& op, starfact::Runtime& rt, const char* letter,
                   std::vector<double>& ratios, bool& failed) {
    for (int64_t n : s.orders) {
        const std::vector<C> A = input_matrix<C>(op, n, s.seed);
        const size_t bytes = A.size() * sizeof(C);
        C *dPristine = nullptr, *dFactor = nullptr, *dOut = nullptr;
        int64_t* dIpiv = nullptr;
        STARFACT_BENCH_CUDA(cudaMalloc(&dPristine, bytes));
        STARFACT_BENCH_CUDA(cudaMalloc(&dFactor, bytes));
        STARFACT_BENCH_CUDA(cudaMalloc(&dOut, bytes));
        STARFACT_BENCH_CUDA(cudaMalloc(&dIpiv, sizeof(int64_t) * static_cast<size_t>(n)));
        STARFACT_BENCH_CUDA(cudaMemcpy(dPristine, A.data(), bytes, cudaMemcpyHostToDevice));
        const double t_cusolver = time_cusolver<C>(s, op, n, dPristine, dFactor, dIpiv);
        const double N = static_cast<double>(n);
        const double flops = (op == "geqrf" ? 16.0 : op == "getrf" ? 8.0 : 4.0) * N * N * N / 3.0;
        for (int64_t nb : s.nbs) {
            std::vector<int64_t> ipiv;
            const double t_starfact = time_starfact<C>(s, op, rt, n, nb, dPristine, dOut, ipiv);
            double check;
            if (op == "getrf") {
                check = solve_residual<C>(n, dPristine, dOut, ipiv);
                if (!(check < 60)) {
                    failed = true;
                    std::vector<int64_t> vendor_ipiv(static_cast<size_t>(n));
                    STARFACT_BENCH_CUDA(cudaMemcpy(vendor_ipiv.data(), dIpiv, sizeof(int64_t) * vendor_ipiv.size(),
                                                   cudaMemcpyDeviceToHost));
                    std::fprintf(stderr, "bench_complex: %s %s n = %lld nb = %lld: the solve residual with starfact's "
                                 "factors is %.3g (with cuSOLVER's: %.3g)\n", op.c_str(), letter,
                                 static_cast<long long>(n), static_cast<long long>(nb), check,
                                 solve_residual<C>(n, dPristine, dFactor, vendor_ipiv));
                }
            } else if (op == "geqrf") {
                check = modulus_difference<C>(n, dOut, dFactor);
                const double limit = std::is_same<C, std::complex<float>>::value ? 1e-3 : 1e-8;
                if (!(check < limit)) {
                    failed = true;
                    std::fprintf(stderr, "bench_complex: geqrf %s n = %lld nb = %lld: R's moduli differ from "
                                 "cuSOLVER's by %.3g (limit %.0e)\n", letter, static_cast<long long>(n),
                                 static_cast<long long>(nb), check, limit);
                }
            } else {
                check = relative_difference<C>(n, dOut, dFactor);
            }
            const double ratio = t_cusolver / t_starfact;
            ratios.push_back(ratio);
            std::printf("%-6s %-4s %7lld %6lld %12.4f %12.4f %12.1f %12.1f %8.3f %10.2e\n", op.c_str(), letter,
                        static_cast<long long>(n), static_cast<long long>(nb), t_cusolver, t_starfact,
                        flops / t_cusolver * 1e-9, flops / t_starfact * 1e-9, ratio, check);
            std::fflush(stdout);
        }
        cudaFree(dPristine);
        cudaFree(dFactor);
        cudaFree(dOut);
        cudaFree(dIpiv);
    }
}

Settings parse(int argc, char** argv) {
    Settings s;
    starfact::support::Cli flags_cli =
        starfact::bench::orders_and_flags(argc, argv, {"--help", "--host", "--check-each"}, s.orders);
    while (!flags_cli.done()) {
        const std::string f = flags_cli.next();
        if (f == "--help") {
            std::printf("%s", kHelp);
            std::exit(0);
        } else if (f == "--op") {
            s.ops = starfact::support::split_list(flags_cli.value());
            for (const std::string& o : s.ops)
                if (o != "potrf" && o != "getrf" && o != "geqrf")
                    throw std::invalid_argument("--op takes potrf, getrf, geqrf, comma separated (got '" + o + "')");
        } else if (f == "--tree") {
            s.tree = flags_cli.value();
            starfact::QrTree::parse(s.tree);  // (refuses a bad tree here, naming it)
        } else if (f == "--prec") {
            s.precs = starfact::support::split_list(flags_cli.value());
            for (const std::string& p : s.precs)
                if (p != "c" && p != "z") throw std::invalid_argument("--prec takes c, z or c,z (got '" + p + "')");
        } else if (f == "--nb") s.nbs = starfact::support::int_list(flags_cli.value(), "--nb", 1, 46340);
        else if (f == "--mapping") {
            const std::string m = flags_cli.choice({"gpu-only", "hybrid"});
            s.mapping = m == "hybrid" ? starfact::Mapping::Hybrid : starfact::Mapping::GpuOnly;
        } else if (f == "--host") {
            flags_cli.no_value();
            s.residency = starfact::Residency::Host;
        } else if (f == "--check-each") {
            flags_cli.no_value();
            s.check_each = true;
        } else if (f == "--streams") s.streams = static_cast<int>(flags_cli.integer(1, 64));
        else if (f == "--warmup") s.warmup = static_cast<int>(flags_cli.integer(0, 100));
        else if (f == "--repeat") s.repeat = static_cast<int>(flags_cli.integer(1, 100));
        else if (f == "--seed") s.seed = static_cast<uint64_t>(flags_cli.integer(0, INT64_MAX));
        else flags_cli.unknown();
    }
    if (s.orders.empty()) s.orders = {8192, 16384, 32768};
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    const Settings s = starfact::bench::parse_or_exit("bench_complex", parse, argc, argv);
    const std::unique_ptr<starfact::Runtime> runtime = starfact::bench::gpu_runtime("bench_complex", s.streams);
    starfact::Runtime& rt = *runtime;
    std::printf("mapping %s, %s-resident tiles, %d stream(s) per GPU, warm-up %d, median of %d\n",
                starfact::to_string(s.mapping), s.residency == starfact::Residency::Device ? "device" : "host",
                s.streams, s.warmup, s.repeat);
    std::printf("%-6s %-4s %7s %6s %12s %12s %12s %12s %8s %10s\n", "op", "prec", "n", "nb", "cusolver_s",
                "starfact_s", "cusolver_GF", "starfact_GF", "ratio", "check");
    bool failed = false;
    for (const std::string& op : s.ops)
        for (const std::string& p : s.precs) {
            std::vector<double> ratios;
            if (p == "c") run_precision<std::complex<float>>(s, op, rt, "c", ratios, failed);
            else run_precision<std::complex<double>>(s, op, rt, "z", ratios, failed);
            double log_sum = 0;
            for (double r : ratios) log_sum += std::log(r);
            std::printf("summary %s %s: geometric mean ratio cusolver/starfact = %.3f over %zu runs\n", op.c_str(),
                        p.c_str(), std::exp(log_sum / static_cast<double>(ratios.size())), ratios.size());
        }
    if (failed) {
        std::fprintf(stderr, "bench_complex: a check failed (above)\n");
        return 1;
    }
    return 0;
}

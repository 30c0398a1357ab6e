// bench_complex_potrf: starfact's complex tile Cholesky (starfact/cholesky_complex.hpp, A = L L^H, lower) against
// cuSOLVER's cusolverDnXpotrf on the same Hermitian positive definite matrix, on one GPU, in the same process. Per
// precision (c, z), order n and tile size nb: the untimed warm-up runs, then the median of --repeat timed runs of
// each, every run on a fresh copy of the matrix (the copy untimed); starfact's tiles device-resident by default.
// Times are wall-clock seconds of the call, synchronized (starfact's potrf waits for its tasks; cuSOLVER's stream is
// synchronized). GFLOP/s count 4 n^3 / 3 real flops (a complex multiply-add is 8 of them). ratio = cuSOLVER's time /
// starfact's (above 1: starfact is faster); diff = ||L_starfact - L_cusolver||_F / ||L_cusolver||_F.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <string>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

#include "bench/common.hpp"
#include "starfact/cholesky_complex.hpp"
#include "starfact/runtime.hpp"
#include "support/cli.hpp"

namespace {

const char* kHelp =
    "bench_complex_potrf: starfact's complex potrf against cusolverDnXpotrf, same matrix, same GPU\n"
    "usage: bench_complex_potrf [flags] N [N ...]    (orders; default 8192 16384 32768)\n"
    "  --prec LIST      c, z or both, comma separated (default c,z)\n"
    "  --nb LIST        starfact's tile sizes, comma separated (default 2048; n or more: one task, one cuSOLVER\n"
    "                   potrf)\n"
    "  --streams N      CUDA workers (streams) per GPU (default 4, as the real Cholesky's plan)\n"
    "  --mapping M      gpu-only (default) or hybrid\n"
    "  --host           host-resident tiles (default device-resident; the import and export stay untimed)\n"
    "  --warmup N       untimed runs of each before the timed ones (default 1)\n"
    "  --repeat N       timed runs of each; the median is printed (default 3)\n"
    "  --seed N         the matrix's seed (default 1)\n"
    "  --help           this text\n"
    "Columns: prec n nb, cuSOLVER's and starfact's median seconds and GFLOP/s (4 n^3 / 3 flops), ratio =\n"
    "cusolver_s / starfact_s (above 1: starfact faster), diff = ||L_starfact - L_cusolver||_F / ||L_cusolver||_F.\n"
    "Last, per precision, the geometric mean of the ratios.\n";

struct Settings {
    std::vector<int64_t> orders;
    std::vector<std::string> precs = {"c", "z"};
    std::vector<int64_t> nbs = {2048};
    int streams = 4;
    starfact::Mapping mapping = starfact::Mapping::GpuOnly;
    starfact::Residency residency = starfact::Residency::Device;
    int warmup = 1, repeat = 3;
    uint64_t seed = 1;
};

template <typename C>
constexpr cudaDataType_t data_type() {
    return std::is_same<C, std::complex<float>>::value ? CUDA_C_32F : CUDA_C_64F;
}

uint64_t mix(uint64_t x) {  // splitmix64's finalizer
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
double unit(uint64_t x) { return static_cast<double>(x >> 11) * 0x1.0p-53 * 2.0 - 1.0; }  // [-1, 1)

/// n x n Hermitian positive definite, on the host: below the diagonal complex entries with real and imaginary parts
/// uniform in [-1, 1) (a hash of seed, i, j), their conjugates above, a real diagonal 3 sqrt(n) + 1 + [0, 1).
/// Filled by the machine's threads, a column range each.
template <typename C>
std::vector<C> hpd_matrix(int64_t n, uint64_t seed) {
    using R = typename C::value_type;
    std::vector<C> A(static_cast<size_t>(n) * static_cast<size_t>(n));
    const double shift = 3.0 * std::sqrt(static_cast<double>(n)) + 1.0;
    auto entry = [&](int64_t i, int64_t j) {  // i >= j
        const uint64_t h = mix(seed ^ mix(static_cast<uint64_t>(i) * 0x100000001b3ull + static_cast<uint64_t>(j)));
        if (i == j) return C(static_cast<R>(shift + 0.5 * (unit(h) + 1.0)), R(0));
        return C(static_cast<R>(unit(h)), static_cast<R>(unit(mix(h))));
    };
    const int64_t nthreads = std::max<int64_t>(1, std::min<int64_t>(std::thread::hardware_concurrency(), n));
    std::vector<std::thread> threads;
    for (int64_t t = 0; t < nthreads; ++t)
        threads.emplace_back([&, t] {
            for (int64_t j = t; j < n; j += nthreads)
                for (int64_t i = 0; i < n; ++i)
                    A[static_cast<size_t>(i + j * n)] = i >= j ? entry(i, j) : std::conj(entry(j, i));
        });
    for (std::thread& t : threads) t.join();
    return A;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// cuSOLVER's generic potrf on dA (a fresh copy of dPristine before each run); returns the median seconds and
/// leaves the factor in dA.
template <typename C>
double time_cusolver(const Settings& s, int64_t n, const C* dPristine, C* dA) {
    cusolverDnHandle_t h;
    cusolverDnParams_t params;
    cudaStream_t stream;
    STARFACT_BENCH_STATUS(cusolverDnCreate(&h));
    STARFACT_BENCH_STATUS(cusolverDnCreateParams(&params));
    STARFACT_BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    STARFACT_BENCH_STATUS(cusolverDnSetStream(h, stream));
    size_t dev_bytes = 0, host_bytes = 0;
    STARFACT_BENCH_STATUS(cusolverDnXpotrf_bufferSize(h, params, CUBLAS_FILL_MODE_LOWER, n, data_type<C>(), dA, n,
                                                      data_type<C>(), &dev_bytes, &host_bytes));
    void* dwork = nullptr;
    int* dinfo = nullptr;
    STARFACT_BENCH_CUDA(cudaMalloc(&dwork, std::max<size_t>(dev_bytes, 1)));
    STARFACT_BENCH_CUDA(cudaMalloc(&dinfo, sizeof(int)));
    std::vector<char> hwork(std::max<size_t>(host_bytes, 1));
    const size_t bytes = static_cast<size_t>(n) * static_cast<size_t>(n) * sizeof(C);
    std::vector<double> t;
    for (int r = 0; r < s.warmup + s.repeat; ++r) {
        STARFACT_BENCH_CUDA(cudaMemcpyAsync(dA, dPristine, bytes, cudaMemcpyDeviceToDevice, stream));
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(stream));
        const auto t0 = std::chrono::steady_clock::now();
        STARFACT_BENCH_STATUS(cusolverDnXpotrf(h, params, CUBLAS_FILL_MODE_LOWER, n, data_type<C>(), dA, n,
                                               data_type<C>(), dwork, dev_bytes, hwork.data(), host_bytes, dinfo));
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(stream));
        if (r >= s.warmup) t.push_back(seconds_since(t0));
        int info = 0;
        STARFACT_BENCH_CUDA(cudaMemcpy(&info, dinfo, sizeof(int), cudaMemcpyDeviceToHost));
        if (info != 0) {
            std::fprintf(stderr, "bench_complex_potrf: cusolverDnXpotrf returned info = %d at n = %lld\n", info,
                         static_cast<long long>(n));
            std::exit(1);
        }
    }
    cudaFree(dwork);
    cudaFree(dinfo);
    cusolverDnDestroyParams(params);
    cusolverDnDestroy(h);
    cudaStreamDestroy(stream);
    return starfact::bench::median(t);
}

/// starfact's potrf on tiles imported from dPristine before each run; returns the median seconds and exports the
/// last factor into dOut.
template <typename C>
double time_starfact(const Settings& s, starfact::Runtime& rt, int64_t n, int64_t nb, const C* dPristine, C* dOut) {
    starfact::TileMatrix<C> tiles(rt, n, nb, s.residency);
    starfact::Options opts;
    opts.mapping = s.mapping;
    std::vector<double> t;
    for (int r = 0; r < s.warmup + s.repeat; ++r) {
        tiles.import(dPristine, n);
        rt.wait_all();
        const auto t0 = std::chrono::steady_clock::now();
        const int info = starfact::potrf(tiles, opts);
        if (r >= s.warmup) t.push_back(seconds_since(t0));
        if (info != 0) {
            std::fprintf(stderr, "bench_complex_potrf: starfact's potrf returned info = %d at n = %lld, nb = %lld\n",
                         info, static_cast<long long>(n), static_cast<long long>(nb));
            std::exit(1);
        }
    }
    tiles.export_to(dOut, n);
    return starfact::bench::median(t);
}

/// ||X - Y||_F / ||Y||_F for n x n device arrays; X is overwritten.
template <typename C>
double relative_difference(int64_t n, C* dX, const C* dY) {
    cublasHandle_t h;
    STARFACT_BENCH_STATUS(cublasCreate(&h));
    const int64_t count = n * n;
    double diff = 0, ref = 0;
    if constexpr (std::is_same<C, std::complex<float>>::value) {
        const cuComplex minus_one = make_cuComplex(-1.0f, 0.0f);
        float d = 0, r = 0;
        STARFACT_BENCH_STATUS(cublasScnrm2_64(h, count, reinterpret_cast<const cuComplex*>(dY), 1, &r));
        STARFACT_BENCH_STATUS(cublasCaxpy_64(h, count, &minus_one, reinterpret_cast<const cuComplex*>(dY), 1,
                                             reinterpret_cast<cuComplex*>(dX), 1));
        STARFACT_BENCH_STATUS(cublasScnrm2_64(h, count, reinterpret_cast<const cuComplex*>(dX), 1, &d));
        diff = d;
        ref = r;
    } else {
        const cuDoubleComplex minus_one = make_cuDoubleComplex(-1.0, 0.0);
        STARFACT_BENCH_STATUS(cublasDznrm2_64(h, count, reinterpret_cast<const cuDoubleComplex*>(dY), 1, &ref));
        STARFACT_BENCH_STATUS(cublasZaxpy_64(h, count, &minus_one, reinterpret_cast<const cuDoubleComplex*>(dY), 1,
                                             reinterpret_cast<cuDoubleComplex*>(dX), 1));
        STARFACT_BENCH_STATUS(cublasDznrm2_64(h, count, reinterpret_cast<const cuDoubleComplex*>(dX), 1, &diff));
    }
    cublasDestroy(h);
    return ref > 0 ? diff / ref : diff;
}

template <typename C>
void run_precision(const Settings& s, starfact::Runtime& rt, const char* letter, std::vector<double>& ratios) {
    for (int64_t n : s.orders) {
        const std::vector<C> A = hpd_matrix<C>(n, s.seed);
        const size_t bytes = A.size() * sizeof(C);
        C *dPristine = nullptr, *dFactor = nullptr, *dOut = nullptr;
        STARFACT_BENCH_CUDA(cudaMalloc(&dPristine, bytes));
        STARFACT_BENCH_CUDA(cudaMalloc(&dFactor, bytes));
        STARFACT_BENCH_CUDA(cudaMalloc(&dOut, bytes));
        STARFACT_BENCH_CUDA(cudaMemcpy(dPristine, A.data(), bytes, cudaMemcpyHostToDevice));
        const double t_cusolver = time_cusolver<C>(s, n, dPristine, dFactor);
        const double flops = 4.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / 3.0;
        for (int64_t nb : s.nbs) {
            const double t_starfact = time_starfact<C>(s, rt, n, nb, dPristine, dOut);
            const double diff = relative_difference<C>(n, dOut, dFactor);
            const double ratio = t_cusolver / t_starfact;
            ratios.push_back(ratio);
            std::printf("%-4s %7lld %6lld %12.4f %12.4f %12.1f %12.1f %8.3f %10.2e\n", letter,
                        static_cast<long long>(n), static_cast<long long>(nb), t_cusolver, t_starfact,
                        flops / t_cusolver * 1e-9, flops / t_starfact * 1e-9, ratio, diff);
            std::fflush(stdout);
        }
        cudaFree(dPristine);
        cudaFree(dFactor);
        cudaFree(dOut);
    }
}

/// Whether flag `f` (as written, "--key" or "--key=value") takes the next argument as its value.
bool takes_next(const std::string& f) { return f != "--help" && f != "--host" && f.find('=') == std::string::npos; }

Settings parse(int argc, char** argv) {
    Settings s;
    // The orders are the arguments that are neither flags nor their values; the flags go through Cli.
    const std::vector<std::string> args(argv + 1, argv + argc);
    std::vector<std::string> flags;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i].rfind("--", 0) != 0) {
            for (int64_t n : starfact::support::int_list(args[i], "N", 1, 46340)) s.orders.push_back(n);
            continue;
        }
        flags.push_back(args[i]);
        if (takes_next(args[i]) && i + 1 < args.size()) flags.push_back(args[++i]);
    }
    std::vector<char*> fargv{argv[0]};
    for (std::string& f : flags) fargv.push_back(f.data());
    starfact::support::Cli flags_cli(static_cast<int>(fargv.size()), fargv.data());
    while (!flags_cli.done()) {
        const std::string f = flags_cli.next();
        if (f == "--help") {
            std::printf("%s", kHelp);
            std::exit(0);
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
    Settings s;
    try {
        s = parse(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_complex_potrf: %s\n", e.what());
        return 1;
    }
    starfact::RuntimeConfig config;
    config.workers_per_gpu = s.streams;
    starfact::Runtime rt(config);
    if (rt.cuda_workers() == 0) {
        std::fprintf(stderr, "bench_complex_potrf: no CUDA worker (%s)\n", rt.describe().c_str());
        return 1;
    }
    std::printf("%s\n", rt.describe().c_str());
    std::printf("mapping %s, %s-resident tiles, %d stream(s) per GPU, warm-up %d, median of %d\n",
                starfact::to_string(s.mapping), s.residency == starfact::Residency::Device ? "device" : "host",
                s.streams, s.warmup, s.repeat);
    std::printf("%-4s %7s %6s %12s %12s %12s %12s %8s %10s\n", "prec", "n", "nb", "cusolver_s", "starfact_s",
                "cusolver_GF", "starfact_GF", "ratio", "diff");
    for (const std::string& p : s.precs) {
        std::vector<double> ratios;
        if (p == "c") run_precision<std::complex<float>>(s, rt, "c", ratios);
        else run_precision<std::complex<double>>(s, rt, "z", ratios);
        double log_sum = 0;
        for (double r : ratios) log_sum += std::log(r);
        std::printf("summary %s: geometric mean ratio cusolver/starfact = %.3f over %zu runs\n", p.c_str(),
                    std::exp(log_sum / static_cast<double>(ratios.size())), ratios.size());
    }
    return 0;
}

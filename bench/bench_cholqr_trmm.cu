// bench_cholqr_trmm: the Cholesky QR's solve X := X triu(V) (X m x n, device-resident) three ways on the same data in
// the same run: the in-place tensor-core kernel (kernels/qr/cholqr_trmm.hpp), the cuBLAS form it replaces (block
// columns of 128 from the last, each a dgemm into a scratch copied back, codelets/cholqr_cuda.cpp), and cuBLAS's
// out-of-place dtrmm. Median milliseconds (CUDA events, X restored untimed before each run), TFLOP/s counted as
// m n (n + 1) flops for all three, the ratio of the cuBLAS form to the kernel, and the kernel's largest difference
// from dtrmm relative to dtrmm's largest entry.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/common.hpp"
#include "kernels/qr/cholqr_trmm.hpp"
#include "support/bench_cli.hpp"
#include "support/cli.hpp"

namespace sb = starfact::bench;

namespace {

__global__ void fill(double* A, int64_t ld, int m, int n, uint64_t seed, bool upper) {
    for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < static_cast<int64_t>(m) * n;
         e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int i = static_cast<int>(e % m), j = static_cast<int>(e / m);
        uint64_t x = (static_cast<uint64_t>(e) + 1) * 0x9E3779B97F4A7C15ull ^ seed;
        x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 29;
        double v = static_cast<double>(x >> 11) * 0x1.0p-53 - 0.5;
        if (upper) v = i > j ? 0.0 : (i == j ? 1.0 + v : v / n);
        A[i + j * ld] = v;
    }
}

__global__ void max_diff(const double* A, const double* B, int64_t count, unsigned long long* out) {
    double d = 0, b = 0;
    for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < count;
         e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        d = fmax(d, fabs(A[e] - B[e]));
        b = fmax(b, fabs(B[e]));
    }
    atomicMax(out, __double_as_longlong(d));
    atomicMax(out + 1, __double_as_longlong(b));
}

constexpr int kBlock = 128;

void cublas_form(cublasHandle_t h, double* x, int m, int n, const double* v, double* scratch, cudaStream_t s) {
    const double one = 1, zero = 0;
    for (int j = ((n - 1) / kBlock) * kBlock; j >= 0; j -= kBlock) {
        const int w = std::min(kBlock, n - j);
        STARFACT_BENCH_STATUS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, w, j + w, &one, x, m,
                                          v + static_cast<int64_t>(j) * n, n, &zero, scratch, m));
        STARFACT_BENCH_CUDA(cudaMemcpy2DAsync(x + static_cast<int64_t>(j) * m, sizeof(double) * m, scratch,
                                              sizeof(double) * m, sizeof(double) * m, w, cudaMemcpyDeviceToDevice, s));
    }
}

const char* kHelp =
    "bench_cholqr_trmm: X := X triu(V) in place (the Cholesky QR's solve) three ways on the same device data\n"
    "  --shapes LIST    m x n shapes, MxN comma separated (default 65536x128,65536x256,1048576x256,65536x1024,\n"
    "                   131072x1024,32768x2048,100003x300)\n"
    "  --warmup N       untimed runs first (default 2)\n"
    "  --repeat N       timed runs; medians are printed (default 7)\n"
    "  --help           this text\n"
    "columns: m n kernel_ms cublas_form_ms dtrmm_ms kernel_TF form_TF dtrmm_TF form/kernel rel_diff\n";

struct Options {
    std::vector<std::pair<int, int>> shapes{{65536, 128},  {65536, 256},  {1048576, 256}, {65536, 1024},
                                            {131072, 1024}, {32768, 2048}, {100003, 300}};
    int warmup = 2, repeat = 7;
};

Options parse(int argc, char** argv) {
    Options o;
    starfact::support::Cli cli(argc, argv);
    while (!cli.done()) {
        const std::string f = cli.next();
        if (f == "--help") {
            std::printf("%s", kHelp);
            std::exit(0);
        } else if (f == "--shapes") {
            o.shapes.clear();
            for (const std::string& item : starfact::support::split_list(cli.value())) {
                const auto x = item.find('x');
                if (x == std::string::npos) throw std::invalid_argument("--shapes takes MxN,... (got '" + item + "')");
                const int64_t m = starfact::support::int_list(item.substr(0, x), "--shapes (m)", 1, 1 << 30)[0],
                              n = starfact::support::int_list(item.substr(x + 1), "--shapes (n)", 1, 65536)[0];
                o.shapes.push_back({static_cast<int>(m), static_cast<int>(n)});
            }
        } else if (!starfact::support::timing_flag(cli, f, o.warmup, o.repeat, 1000, 1000)) {
            cli.unknown();
        }
    }
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!starfact::support::parse_command_line("bench_cholqr_trmm", parse, argc, argv, o)) return 2;
    cudaDeviceProp prop{};
    if (!starfact::support::first_cuda_device("bench_cholqr_trmm", prop, stdout, "no CUDA device, nothing to do"))
        return 0;
    std::printf("# bench_cholqr_trmm on %s; warmup %d, median of %d\n", prop.name, o.warmup, o.repeat);
    const int warmup = o.warmup, repeat = o.repeat;
    const auto& shapes = o.shapes;
    cudaStream_t s;
    STARFACT_BENCH_CUDA(cudaStreamCreate(&s));
    cublasHandle_t h;
    STARFACT_BENCH_STATUS(cublasCreate(&h));
    STARFACT_BENCH_STATUS(cublasSetStream(h, s));
    std::printf("m,n,kernel_ms,cublas_form_ms,dtrmm_ms,kernel_TF,form_TF,dtrmm_TF,form/kernel,rel_diff\n");
    for (const auto& shape : shapes) {
        const int m = shape.first, n = shape.second;
        const size_t mn = static_cast<size_t>(m) * n;
        double *x0, *x, *y, *v, *scratch;
        unsigned long long* diff;
        STARFACT_BENCH_CUDA(cudaMalloc(&x0, mn * 8));
        STARFACT_BENCH_CUDA(cudaMalloc(&x, mn * 8));
        STARFACT_BENCH_CUDA(cudaMalloc(&y, mn * 8));
        STARFACT_BENCH_CUDA(cudaMalloc(&v, static_cast<size_t>(n) * n * 8));
        STARFACT_BENCH_CUDA(cudaMalloc(&scratch, static_cast<size_t>(m) * kBlock * 8));
        STARFACT_BENCH_CUDA(cudaMalloc(&diff, 16));
        fill<<<4096, 256, 0, s>>>(x0, m, m, n, 7, false);
        fill<<<1024, 256, 0, s>>>(v, n, n, n, 11, true);
        auto reset = [&](cudaStream_t st) {
            STARFACT_BENCH_CUDA(cudaMemcpyAsync(x, x0, mn * 8, cudaMemcpyDeviceToDevice, st));
        };
        const double one = 1;
        const double t_kernel = sb::time_median(s, warmup, repeat, [&](cudaStream_t st) {
            starfact::detail::gpu::launch_cholqr_trmm_inplace(x, m, m, n, v, n, st);
        }, reset);
        const double t_form = sb::time_median(s, warmup, repeat, [&](cudaStream_t st) {
            cublas_form(h, x, m, n, v, scratch, st);
        }, reset);
        const double t_trmm = sb::time_median(s, warmup, repeat, [&](cudaStream_t) {
            STARFACT_BENCH_STATUS(cublasDtrmm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                              CUBLAS_DIAG_NON_UNIT, m, n, &one, v, n, x0, m, y, m));
        }, [](cudaStream_t) {});
        reset(s);
        starfact::detail::gpu::launch_cholqr_trmm_inplace(x, m, m, n, v, n, s);
        STARFACT_BENCH_CUDA(cudaMemsetAsync(diff, 0, 16, s));
        max_diff<<<1024, 256, 0, s>>>(x, y, static_cast<int64_t>(mn), diff);
        unsigned long long host[2];
        STARFACT_BENCH_CUDA(cudaMemcpyAsync(host, diff, 16, cudaMemcpyDeviceToHost, s));
        STARFACT_BENCH_CUDA(cudaStreamSynchronize(s));
        double d, b;
        std::memcpy(&d, &host[0], 8);
        std::memcpy(&b, &host[1], 8);
        const double flops = static_cast<double>(m) * n * (n + 1);
        std::printf("%d,%d,%.4f,%.4f,%.4f,%.1f,%.1f,%.1f,%.2f,%.1e\n", m, n, t_kernel * 1e3, t_form * 1e3,
                    t_trmm * 1e3, flops / t_kernel * 1e-12, flops / t_form * 1e-12, flops / t_trmm * 1e-12,
                    t_form / t_kernel, d / b);
        std::fflush(stdout);
        cudaFree(x0); cudaFree(x); cudaFree(y); cudaFree(v); cudaFree(scratch); cudaFree(diff);
    }
    cublasDestroy(h);
    cudaStreamDestroy(s);
    return 0;
}

// Test main for GPU kernel tests that need no StarPU runtime: exits with 77 (ctest: skipped) without a CUDA device.
#include <cuda_runtime.h>

#include <cstdio>

#include "tests/catch_session.hpp"
#include "tests/seeds.hpp"

int main(int argc, char** argv) {
    starfact::test::print_seed_banner();
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("GPU kernel tests skipped: no CUDA device visible\n");
        return 77;
    }
    return starfact::test::run_catch_session(argc, argv);
}

// Test main for GPU kernel tests that need no StarPU runtime: exits with 77 (ctest: skipped) without a CUDA device.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cstdio>

#include "tests/seed_listener.hpp"

int main(int argc, char** argv) {
    starfact::test::print_seed_banner();
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("GPU kernel tests skipped: no CUDA device visible\n");
        return 77;
    }
    return Catch::Session().run(argc, argv);
}

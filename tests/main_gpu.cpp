// Test main for GPU tests: exits with 77 (ctest: skipped) when no CUDA worker is available.
#include "tests/gpu_main.hpp"

int main(int argc, char** argv) { return starfact::test::run_gpu_tests(argc, argv, {}, "GPU tests"); }

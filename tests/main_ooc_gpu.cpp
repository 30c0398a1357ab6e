// Test main for the out-of-core GPU tests: one Runtime whose GPUs may hold only kOocLimitMiB of tiles
// (StarPU's CUDA memory limit). Exits with 77 (ctest: skipped) when no CUDA worker is available.
#include "tests/gpu_main.hpp"
#include "tests/ooc_support.hpp"

int main(int argc, char** argv) {
    starfact::RuntimeConfig cfg;
    cfg.cuda_memory_limit_mb = starfact::test::kOocLimitMiB;
    cfg.profiling = true;  // bytes moved (Runtime::transfers)
    cfg.ncpus = 0;
    return starfact::test::run_gpu_tests(argc, argv, cfg, "out-of-core GPU tests");
}

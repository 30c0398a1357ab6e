// Test main for the out-of-core GPU tests: one Runtime whose GPUs may hold only kOocLimitMiB of tiles
// (StarPU's CUDA memory limit). Exits with 77 (ctest: skipped) when no CUDA worker is available.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <memory>

#include "tests/ooc_support.hpp"

namespace {
std::unique_ptr<starfact::Runtime> g_runtime;  // test-binary scope only
}

starfact::Runtime& starfact::test::runtime() { return *g_runtime; }

int main(int argc, char** argv) {
    if (!starfact::built_with_cuda()) {
        std::printf("out-of-core GPU tests skipped: starfact was built without CUDA\n");
        return 77;
    }
    starfact::RuntimeConfig cfg;
    cfg.cuda_memory_limit_mb = starfact::test::kOocLimitMiB;
    cfg.profiling = true;  // bytes moved (Runtime::transfers)
    cfg.ncpus = 0;
    g_runtime = std::make_unique<starfact::Runtime>(cfg);
    if (g_runtime->cuda_workers() == 0) {
        std::printf("out-of-core GPU tests skipped: no CUDA device (%s)\n", g_runtime->describe().c_str());
        g_runtime.reset();
        return 77;
    }
    std::printf("%s\n", g_runtime->describe().c_str());
    const int rc = Catch::Session().run(argc, argv);
    g_runtime.reset();
    return rc;
}

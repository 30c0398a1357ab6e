// The body of a GPU test binary's main: one Runtime for the whole binary (test::runtime()), the Catch2 session,
// and exit status 77 (ctest: skipped) when the build or the machine has no CUDA worker. The first line printed is
// the base of the tests' random seeds (tests/seeds.hpp).
#pragma once
#include <cstdio>
#include <memory>

#include "tests/catch_session.hpp"
#include "tests/seeds.hpp"
#include "tests/support.hpp"

namespace starfact::test {

inline std::unique_ptr<Runtime>& gpu_runtime_slot() {
    static std::unique_ptr<Runtime> runtime;  // test-binary scope only
    return runtime;
}

/// Runs the binary's tests on a Runtime started with `config`; `what` names the suite in the skip messages.
inline int run_gpu_tests(int argc, char** argv, const RuntimeConfig& config, const char* what) {
    print_seed_banner();
    if (!built_with_cuda()) {
        std::printf("%s skipped: starfact was built without CUDA\n", what);
        return 77;
    }
    if (cuda_device_count() == 0) {  // before the Runtime: a configuration without CPU workers could not start
        std::printf("%s skipped: no CUDA device visible\n", what);
        return 77;
    }
    std::unique_ptr<Runtime>& rt = gpu_runtime_slot();
    rt = std::make_unique<Runtime>(config);
    if (rt->cuda_workers() == 0) {
        std::printf("%s skipped: no CUDA device (%s)\n", what, rt->describe().c_str());
        rt.reset();
        return 77;
    }
    std::printf("%s\n", rt->describe().c_str());
    const int rc = run_catch_session(argc, argv);
    rt.reset();
    return rc;
}

}  // namespace starfact::test

starfact::Runtime& starfact::test::runtime() { return *gpu_runtime_slot(); }

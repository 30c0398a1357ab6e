// Checks of the tuning tool's single-block potf2 leaves (tools/tune/potf2/potf2_leaf.cuh inside the library's
// forms; rdiag = false), which the library does not compile: the library's GPU test checks
// (tests/potf2_checks.hpp: residual, untouched storage, LAPACK's info and L for non-SPD tiles) through
// potf2_tile_any. tune_potf2_check on the GPU machine; cases tagged [sanitize] are small, for compute-sanitizer.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "kernels/potf2/potf2_tuning.hpp"
#include "tests/potf2_checks.hpp"
#include "tools/tune/potf2/variants.hpp"

using namespace starfact;
using starfact::detail::gpu::Potf2Config;
using namespace starfact::test::potf2_checks;

namespace {

/// run_potf2 (and so every check) with a configuration goes through the tool's entry point.
const bool kToolEntry = (tuned_entry<float> = &detail::gpu::potf2_tile_any<float>,
                         tuned_entry<double> = &detail::gpu::potf2_tile_any<double>, true);

/// The single-block leaves of the sweep: {ib, cutoff, looped, right_looking, blocked}.
const std::vector<Potf2Config>& variant_configs() {
    static const std::vector<Potf2Config> c = {
        {8, 16, false, false, true},  {16, 32, true, false, true},  {8, 32, false, true, true},
        {16, 64, false, true, true},  {8, 96, true, true, true},    {16, 128, false, true, true},
        {8, 128, false, false, true}, {8, 64, false, true, true},   {8, 32, false, false, true},
        {8, 64, false, false, true},  {8, 128, false, false, false},
        {8, 16, false, false},  {16, 16, true, false},  {8, 32, true, false},   {16, 64, false, false},
        {8, 96, false, false},  {16, 96, true, false},  {8, 128, true, false},  {16, 128, false, false},
        {8, 16, false, true},   {16, 16, true, true},   {8, 32, true, true},    {16, 64, false, true},
        {8, 96, false, true},   {16, 96, true, true},   {8, 128, true, true},   {16, 128, false, true},
        {8, 64, false, true},   {16, 32, false, true},  {8, 128, false, true},  {16, 128, true, true},
    };
    return c;
}

}  // namespace

TEMPLATE_TEST_CASE("potf2 variants: every single-block configuration of the sweep", "[potf2_variants]", float,
                   double) {
    REQUIRE(kToolEntry);
    Gpu g;
    for (const Potf2Config& c : variant_configs())
        for (int n : {1, 33, 100, 255, 384, 700}) check_spd<TestType>(g, n, n + 2, &c);
}

TEMPLATE_TEST_CASE("potf2 variants: small tiles", "[potf2_variants][sanitize]", float, double) {
    REQUIRE(kToolEntry);
    Gpu g;
    for (const Potf2Config& c :
         {Potf2Config{16, 16, false, false}, Potf2Config{8, 64, true, false}, Potf2Config{8, 128, false, false},
          Potf2Config{16, 128, true, false}, Potf2Config{16, 16, false, true}, Potf2Config{8, 64, true, true},
          Potf2Config{8, 128, false, true}, Potf2Config{16, 128, false, true}, Potf2Config{8, 32, false, true, true},
          Potf2Config{16, 64, true, false, true}, Potf2Config{8, 16, false, true, true}})
        for (int n : {1, 2, 17, 33, 64, 100, 129, 200}) check_spd<TestType>(g, n, n + 3, &c);
}

TEMPLATE_TEST_CASE("potf2 variants: non-SPD small tiles", "[potf2_variants][sanitize]", float, double) {
    REQUIRE(kToolEntry);
    Gpu g;
    for (int variant = 0; variant < 8; ++variant) {
        const bool looped = variant & 1, rl = variant & 2, blocked = variant & 4;
        const Potf2Config leaf{8, 128, looped, rl, false}, rec{16, 32, looped, rl, blocked};
        for (int k : {0, 1, 7, 8, 15, 16, 39}) check_not_spd<TestType>(g, 40, k, 0, &leaf);
        for (int k : {0, 20, 33, 64, 150, 199}) {
            check_not_spd<TestType>(g, 200, k, 0, &rec);
            check_not_spd<TestType>(g, 200, k, 3, &rec);
        }
    }
}

TEMPLATE_TEST_CASE("potf2 variants: bad configurations throw InvalidArgument naming them", "[potf2_variants][sanitize]",
                   float, double) {
    Gpu g;
    TestType* A = nullptr;
    int* info = nullptr;
    REQUIRE(cudaMalloc(&A, 100 * sizeof(TestType)) == cudaSuccess);
    REQUIRE(cudaMalloc(&info, sizeof(int)) == cudaSuccess);
    auto arg_of = [&](const Potf2Config& c) -> std::string {
        try {
            detail::gpu::potf2_tile_variant<TestType>(c, g.cublas, g.stream, 10, A, 10, info, 0, nullptr, 0);
        } catch (const InvalidArgument& e) {
            return e.argument();
        }
        return "(no exception)";
    };
    CHECK(arg_of({24, 64}) == "config.ib");
    CHECK(arg_of({16, 256}) == "config.cutoff");
    CHECK(arg_of({8, 64, false, false, false, true}) == "config.rdiag");  // the library's
    REQUIRE(cudaStreamSynchronize(g.stream) == cudaSuccess);
    cudaFree(A);
    cudaFree(info);
}

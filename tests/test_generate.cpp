// random_symmetric on tiles (generate.hpp) gives the host array's matrix entry for entry, for tile sizes that do
// and do not divide the order, full and lower-only layouts.
#include <catch2/catch.hpp>

#include <vector>

#include "tests/support.hpp"

using namespace starfact::test::prelude;

TEMPLATE_TEST_CASE("random_symmetric on tiles equals the host array's matrix", "[generate]", float, double) {
    using T = TestType;
    Runtime& rt = runtime();
    for (const int64_t n : {1, 7, 64, 131}) {
        for (const int64_t nb : {16, 64}) {
            for (const bool lower_only : {false, true}) {
                const uint64_t seed = fresh_seed();
                INFO("n=" << n << " nb=" << nb << " lower_only=" << lower_only << " seed=" << seed);
                std::vector<T> want(static_cast<size_t>(n * n)), got(want.size(), T(-777));
                random_symmetric<T>(n, want.data(), n, seed, static_cast<double>(n));
                TileLayout layout;
                layout.lower_only = lower_only;
                TileMatrix<T> A(rt, n, nb, Residency::Host, layout);
                random_symmetric(A, seed, static_cast<double>(n));
                A.export_to(got.data(), n);
                for (int64_t j = 0; j < n; ++j)
                    for (int64_t i = 0; i < n; ++i)
                        if (A.stored(i / nb, j / nb)) REQUIRE(got[i + j * n] == want[i + j * n]);
            }
        }
    }
    TileMatrix<T> rect(rt, 10, 12, 4);
    CHECK_THROWS_AS(random_symmetric(rect, 1, 1.0), InvalidArgument);
}

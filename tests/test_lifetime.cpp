// Object lifetimes and robustness against misuse: matrices, pivots and sequences that outlive their Runtime, also
// matrices built and destroyed on several threads. The other parts of the binary: the signal handlers StarPU installs
// and Runtimes one after the other (tests/test_lifetime_signals.cpp), matrices too large for memory
// (tests/test_lifetime_memory.cpp), the messages of a Runtime that cannot start (tests/test_lifetime_messages.cpp).
// Every test starts and destroys Runtimes of its own (one at a time), so this binary has no process-wide Runtime.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "starfact/starfact.hpp"
#include "tests/catch_session.hpp"
#include "tests/lifetime_support.hpp"

using namespace starfact;
using namespace starfact::test::lifetime;
using Catch::Matchers::Contains;

namespace {

constexpr const char* kMatrixGone = "the Runtime this TileMatrix belongs to was destroyed";
constexpr const char* kSequenceGone = "the Runtime this Sequence belongs to was destroyed";

std::vector<double> spd(int64_t n, uint64_t seed) {
    std::vector<double> A(static_cast<size_t>(n * n));
    random_symmetric<double>(n, A.data(), n, seed, static_cast<double>(n));
    return A;
}

}  // namespace

TEST_CASE("a TileMatrix used after its Runtime was destroyed throws, also once a new Runtime runs",
          "[lifetime][cpu]") {
    const int64_t n = 96, nb = 32;
    const std::vector<double> A = spd(n, 7);
    auto rt = cpu_runtime();
    auto a = std::make_unique<TileMatrix<double>>(*rt, n, nb);
    auto lower = std::make_unique<TileMatrix<double>>(*rt, n, nb, Residency::Host, TileLayout{Grid{}, true});
    a->import(A.data(), n);
    Options o;
    o.mapping = Mapping::CpuOnly;
    REQUIRE(potrf(*a, o) == 0);
    rt.reset();  // releases the tiles of `a` and `lower` while StarPU still runs

    std::vector<double> out(A.size());
    CHECK_THAT(runtime_error([&] { a->runtime(); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { a->tile(0, 0); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { lower->tile(0, 1); }), Contains(kMatrixGone));  // not InvalidArgument
    CHECK_THAT(runtime_error([&] { a->home_node(0, 0); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { a->stored_bytes(); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { a->import(A.data(), n); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { a->export_to(out.data(), n); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { potrf(*a, o); }), Contains(kMatrixGone));
    // The shape is still known.
    CHECK(a->m() == n);
    CHECK(a->mt() == 3);
    CHECK(a->tile_rows(2) == 32);

    // A new Runtime (possibly at the old one's address) does not make the matrix usable again.
    rt = cpu_runtime();
    CHECK_THAT(runtime_error([&] { a->runtime(); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { potrf(*a, o); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { potri(*a, o); }), Contains(kMatrixGone));
    CHECK_THAT(runtime_error([&] { Pivots piv(*a); }), Contains(kMatrixGone));
    Pivots piv(*rt, n, nb);
    CHECK_THAT(runtime_error([&] { getrf(*a, piv, o); }), Contains(kMatrixGone));
    TileMatrix<double> b(*rt, n, 2, nb);
    CHECK_THAT(runtime_error([&] { potrs(*a, b, o); }), Contains(kMatrixGone));
    Sequence seq(*rt);
    CHECK_THAT(runtime_error([&] { async::potrf(*a, seq, o); }), Contains(kMatrixGone));
    CHECK(seq.wait() == 0);
    a.reset();  // a no-op: the tiles went with the first Runtime
    lower.reset();

    // The new Runtime works.
    TileMatrix<double> c(*rt, n, nb);
    c.import(A.data(), n);
    CHECK(potrf(c, o) == 0);
    CHECK(rt->pending_tasks() == 0);
}

TEST_CASE("Pivots used after their Runtime was destroyed throw, and their destructor is safe", "[lifetime][cpu]") {
    const int64_t n = 70, nb = 16;
    std::vector<double> A(static_cast<size_t>(n * n));
    random_matrix<double>(n, n, A.data(), n, 3);
    auto rt = cpu_runtime();
    auto piv = std::make_unique<Pivots>(*rt, n, nb);
    {
        TileMatrix<double> a(*rt, n, nb);
        a.import(A.data(), n);
        Options o;
        o.mapping = Mapping::CpuOnly;
        REQUIRE(getrf(a, *piv, o) == 0);
    }
    CHECK(piv->ipiv().size() == static_cast<size_t>(n));
    rt.reset();  // unregisters the pivots' handles while StarPU still runs
    CHECK_THAT(runtime_error([&] { piv->runtime(); }), Contains("the Runtime these pivots belong to was destroyed"));
    CHECK_THAT(runtime_error([&] { piv->ipiv(); }), Contains("the Runtime these pivots belong to was destroyed"));
    CHECK(piv->steps() == 5);  // the shape is still known
    rt = cpu_runtime();
    piv.reset();  // a no-op: StarPU never sees the old handles again
    CHECK(rt->pending_tasks() == 0);
}

TEST_CASE("a Sequence pending when its Runtime is destroyed: its tasks complete, wait() throws RuntimeError",
          "[lifetime][cpu]") {
    const int64_t n = 512, nb = 64, nrhs = 3;
    const std::vector<double> A = spd(n, 11);
    std::vector<double> B(static_cast<size_t>(n * nrhs), 1.0);
    auto rt = cpu_runtime();
    auto a = std::make_unique<TileMatrix<double>>(*rt, n, nb);
    auto b = std::make_unique<TileMatrix<double>>(*rt, n, nrhs, nb);
    a->import(A.data(), n);
    b->import(B.data(), n);
    Options o;
    o.mapping = Mapping::CpuOnly;
    auto seq = std::make_unique<Sequence>(*rt);
    const int op = async::potrf(*a, *seq, o);
    async::potrs(*a, *b, *seq, o);
    auto idle = std::make_unique<Sequence>(*rt);  // no operation in it
    rt.reset();  // waits for every task, then orphans the sequences and the matrices

    CHECK(seq->done());
    CHECK(seq->pending() == 0);
    CHECK(seq->submitted() > 0);
    CHECK(seq->operations() == 1);
    CHECK_THAT(runtime_error([&] { seq->wait(); }), Contains(kSequenceGone));
    CHECK_THAT(runtime_error([&] { seq->info(op); }), Contains(kSequenceGone));
    CHECK_THAT(runtime_error([&] { seq->runtime(); }), Contains(kSequenceGone));
    CHECK_THAT(runtime_error([&] { async::potrs(*a, *b, *seq, o); }), Contains("was destroyed"));
    CHECK(seq->info() == 0);  // nothing was waited for
    CHECK_THAT(runtime_error([&] { idle->wait(); }), Contains(kSequenceGone));
    // Destroyed in any order after the Runtime: no StarPU call, no abort.
    a.reset();
    seq.reset();
    b.reset();
    idle.reset();
}

TEST_CASE("a Sequence waited for before its Runtime was destroyed keeps its infos", "[lifetime][cpu]") {
    const int64_t n = 128, nb = 32;
    std::vector<double> A = spd(n, 3);
    A[static_cast<size_t>(40 + 40 * n)] = -1e6;  // leading minor 41 not positive definite
    auto rt = cpu_runtime();
    TileMatrix<double> a(*rt, n, nb);
    a.import(A.data(), n);
    Options o;
    o.mapping = Mapping::CpuOnly;
    Sequence seq(*rt);
    const int op = async::potrf(a, seq, o);
    CHECK(seq.wait() == 41);
    rt.reset();
    CHECK(seq.info() == 41);
    CHECK(seq.info(op) == 41);
    CHECK_THAT(runtime_error([&] { seq.wait(); }), Contains(kSequenceGone));
}

TEST_CASE("matrices built and destroyed on several threads, some outliving their Runtime", "[lifetime][cpu]") {
    auto rt = cpu_runtime();
    const int threads = 4, rounds = 40;
    std::vector<std::unique_ptr<TileMatrix<float>>> kept(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (int r = 0; r < rounds; ++r) TileMatrix<float> scratch(*rt, 40 + t, 16);  // joins, then leaves
            kept[static_cast<size_t>(t)] = std::make_unique<TileMatrix<float>>(*rt, 50, 16);
        });
    for (std::thread& th : pool) th.join();
    CHECK(kept[0]->stored_bytes() == 50 * 50 * sizeof(float));
    rt.reset();
    for (auto& k : kept) CHECK_THAT(runtime_error([&] { k->tile(0, 0); }), Contains(kMatrixGone));
    pool.clear();
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { kept[static_cast<size_t>(t)].reset(); });
    for (std::thread& th : pool) th.join();
}

int main(int argc, char** argv) { return starfact::test::run_catch_session(argc, argv); }

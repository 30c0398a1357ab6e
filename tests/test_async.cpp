// The submit forms (async::) and Sequence: operations chained without waits give the synchronous results,
// concurrent factorizations each report their own info, and a sequence waits for its own tasks only.
#include <catch2/catch.hpp>
#include <starpu.h>

#include <atomic>
#include <limits>
#include <thread>

#include "tests/support.hpp"

using namespace starfact::test::prelude;

namespace {

template <typename T>
std::vector<T> solve_sync(const std::vector<T>& A, const std::vector<T>& B, int64_t n, int64_t nrhs, int64_t nb,
                          std::vector<T>& L, int* info) {
    TileMatrix<T> a(runtime(), n, nb), b(runtime(), n, nrhs, nb);
    a.import(A.data(), n);
    b.import(B.data(), n);
    Options o;
    o.mapping = Mapping::CpuOnly;
    *info = posv(a, b, o);
    std::vector<T> X(B.size());
    b.export_to(X.data(), n);
    a.export_to(L.data(), n);
    return X;
}

}  // namespace

TEMPLATE_TEST_CASE("async potrf then potrs without a wait equals the synchronous posv", "[async][cpu]", float,
                   double) {
    using T = TestType;
    const int64_t n = 301, nrhs = 5, nb = 64;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<T> A = spd_matrix<T>(n, n, seed);
    std::vector<T> B(static_cast<size_t>(n * nrhs));
    random_matrix<T>(n, nrhs, B.data(), n, seed + 1);
    std::vector<T> Ls(A.size()), La(A.size()), Xa(B.size());
    int info_sync = -1;
    const std::vector<T> Xs = solve_sync(A, B, n, nrhs, nb, Ls, &info_sync);
    REQUIRE(info_sync == 0);

    TileMatrix<T> a(runtime(), n, nb), b(runtime(), n, nrhs, nb);
    a.import(A.data(), n);
    b.import(B.data(), n);
    Options o;
    o.mapping = Mapping::CpuOnly;
    Sequence seq(runtime());
    const int op = async::potrf(a, seq, o);
    async::potrs(a, b, seq, o);
    CHECK(seq.submitted() > 0);
    REQUIRE(seq.wait() == 0);
    CHECK(seq.done());
    CHECK(seq.info(op) == 0);
    b.export_to(Xa.data(), n);
    a.export_to(La.data(), n);
    CHECK(solve_residual<T>(n, nrhs, A.data(), n, Xa.data(), n, B.data(), n) < kResidualLimit);
    CHECK(potrf_residual<T>(n, A.data(), n, La.data(), n) < kResidualLimit);
    // The same tasks in the same data order: the results agree to rounding.
    double diff = 0, scale = 0;
    for (size_t i = 0; i < Xs.size(); ++i) {
        diff = std::max(diff, std::abs(double(Xs[i]) - double(Xa[i])));
        scale = std::max(scale, std::abs(double(Xs[i])));
    }
    CHECK(diff <= 1e3 * std::numeric_limits<T>::epsilon() * scale);
}

TEMPLATE_TEST_CASE("two factorizations in one sequence report their own info", "[async][cpu]", float, double) {
    using T = TestType;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const int64_t n1 = 190, n2 = 77, nb = 32, bad = 50;  // n2's leading minor of order 51 is not SPD
    const std::vector<T> A1 = spd_matrix<T>(n1, n1, seed);
    std::vector<T> A2 = spd_matrix<T>(n2, n2, seed + 1);
    A2[bad + bad * n2] = T(-1);
    TileMatrix<T> a1(runtime(), n1, nb), a2(runtime(), n2, nb);
    a1.import(A1.data(), n1);
    a2.import(A2.data(), n2);
    Options o;
    o.mapping = Mapping::CpuOnly;
    Sequence seq(runtime());
    const int op1 = async::potrf(a1, seq, o);
    const int op2 = async::potrf(a2, seq, o);
    CHECK(seq.operations() == 2);
    CHECK_THROWS_AS(seq.info(op1), RuntimeError);  // not waited for yet
    CHECK(seq.wait() == bad + 1);
    CHECK(seq.info() == bad + 1);
    CHECK(seq.info(op1) == 0);
    CHECK(seq.info(op2) == bad + 1);
    CHECK_THROWS_AS(seq.info(2), InvalidArgument);
    std::vector<T> L1(A1.size());
    a1.export_to(L1.data(), n1);
    CHECK(potrf_residual<T>(n1, A1.data(), n1, L1.data(), n1) < kResidualLimit);
}

TEST_CASE("two threads factor two matrices in their own sequences", "[async][cpu]") {
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const int64_t n1 = 400, n2 = 123, nb = 48;
    const std::vector<double> A1 = spd_matrix<double>(n1, n1, seed);
    std::vector<double> A2 = spd_matrix<double>(n2, n2, seed + 1);
    A2[7 + 7 * n2] = -2.0;
    int info1 = -1, info2 = -1;
    std::vector<double> L1(A1.size());
    Options o;
    o.mapping = Mapping::CpuOnly;
    std::thread t1([&] {
        TileMatrix<double> a(runtime(), n1, nb);
        a.import(A1.data(), n1);
        info1 = potrf(a, o);
        a.export_to(L1.data(), n1);
    });
    std::thread t2([&] {
        TileMatrix<double> a(runtime(), n2, nb);
        a.import(A2.data(), n2);
        info2 = potrf(a, o);
    });
    t1.join();
    t2.join();
    CHECK(info1 == 0);
    CHECK(info2 == 8);
    CHECK(potrf_residual<double>(n1, A1.data(), n1, L1.data(), n1) < kResidualLimit);
}

TEST_CASE("a sequence waits for its own tasks, not for the others", "[async][cpu]") {
    // A task outside the sequence stays pending: it reads a variable the test holds acquired for writing.
    int gate_value = 0;
    starpu_data_handle_t gate;
    starpu_variable_data_register(&gate, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(&gate_value), sizeof(int));
    REQUIRE(starpu_data_acquire(gate, STARPU_W) == 0);
    starpu_codelet cl;
    starpu_codelet_init(&cl);
    cl.cpu_funcs[0] = [](void*[], void*) {};
    cl.nbuffers = 1;
    cl.modes[0] = STARPU_R;
    cl.name = "gated";
    starpu_task* gated = starpu_task_create();
    gated->cl = &cl;
    gated->handles[0] = gate;
    REQUIRE(starpu_task_submit(gated) == 0);

    const int64_t n = 150;
    const uint64_t seed = fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> A = spd_matrix<double>(n, n, seed);
    TileMatrix<double> a(runtime(), n, 50);
    a.import(A.data(), n);
    Options o;
    o.mapping = Mapping::CpuOnly;
    Sequence seq(runtime());
    async::potrf(a, seq, o);
    CHECK(seq.wait() == 0);  // returns although the gated task has not run
    CHECK(runtime().pending_tasks() >= 1);
    starpu_data_release(gate);
    runtime().wait_all();
    starpu_data_unregister(gate);

    // A caller's task submitted into a sequence is covered by wait(); one with a callback is refused.
    std::atomic<int> ran{0};
    starpu_codelet count;
    starpu_codelet_init(&count);
    count.cpu_funcs[0] = [](void*[], void* arg) { static_cast<std::atomic<int>*>(arg)->fetch_add(1); };
    count.nbuffers = 0;
    count.name = "count";
    for (int i = 0; i < 4; ++i) {
        starpu_task* t = starpu_task_create();
        t->cl = &count;
        t->cl_arg = &ran;
        seq.submit(t);
    }
    seq.wait();
    CHECK(ran.load() == 4);
    starpu_task with_callback;
    starpu_task_init(&with_callback);
    with_callback.cl = &count;
    with_callback.callback_func = [](void*) {};
    CHECK_THROWS_AS(seq.submit(&with_callback), InvalidArgument);
    starpu_task_clean(&with_callback);
}

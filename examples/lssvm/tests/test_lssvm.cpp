// LS-SVM on starfact tiles (CPU): accuracy against the LAPACKE reference on a Fashion-MNIST subset, CG against
// Cholesky, residuals, and bad input.
#if __has_include(<catch2/catch_test_macros.hpp>)  // Catch2 v3
#include <catch2/catch_message.hpp>
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <cmath>
#include <deque>
#include <filesystem>
#include <memory>
#include <utility>

#include "lssvm.hpp"

using namespace lssvm;

namespace {

const char* kFashion = "/usr/share/datasets/fashion-mnist";

/// The subset tests need the data set (deps/setup.sh installs it).
void need_data() {
    INFO("Fashion-MNIST is missing: apt-get install dataset-fashion-mnist (deps/setup.sh does)");
    REQUIRE(std::filesystem::exists(kFashion));
}

struct Fixture {
    std::unique_ptr<starfact::Runtime> rt;
    std::unique_ptr<Engine> engine;
    Fixture() {
        starfact::RuntimeConfig c;
        c.ncuda = 0;
        rt = std::make_unique<starfact::Runtime>(c);
        engine = std::make_unique<Engine>(*rt);
    }
    ~Fixture() {
        engine.reset();
        rt.reset();
    }
};
Fixture& fx() {
    static Fixture f;
    return f;
}

const Split& subset() {
    static const Split s = load_fashion_mnist(kFashion, 2000, 1000);
    return s;
}

RunOptions cpu(int64_t nb = 256) {
    RunOptions o;
    o.mapping = starfact::Mapping::CpuOnly;
    o.nb = nb;
    return o;
}

/// The LAPACKE reference (double) on the subset for h, computed once for both precisions' test cases.
const Result& reference(const Hyper& h) {
    static std::deque<std::pair<Hyper, Result>> computed;  // a deque: references stay valid
    for (const auto& [key, result] : computed)
        if (key.kernel == h.kernel && key.gamma == h.gamma && key.C == h.C) return result;
    const Split& s = subset();
    computed.emplace_back(h, reference_lapacke(s.train, s.test, h));
    return computed.back().second;
}

template <typename T>
void check_against_reference(const Hyper& h) {
    need_data();
    const Split& s = subset();
    const Result& ref = reference(h);
    REQUIRE(ref.info == 0);
    const Result r = run<T>(*fx().engine, s.train, s.test, h, cpu(300));  // 2000 = 6 * 300 + 200: a partial tile
    REQUIRE(r.info == 0);
    INFO("kernel " << to_string(h.kernel) << " prec " << sizeof(T) << " test accuracy " << r.test_accuracy
                   << " reference " << ref.test_accuracy);
    CHECK(std::abs(r.test_accuracy - ref.test_accuracy) <= 0.01);
    CHECK(std::abs(r.train_accuracy - ref.train_accuracy) <= 0.01);
    CHECK(r.test_accuracy > 0.7);  // a working classifier on 10 classes
    const double res = relative_residual<T>(*fx().engine, s.train, h, r, cpu(300));
    INFO("relative residual " << res);
    CHECK(res < (sizeof(T) == 4 ? 1e-2 : 1e-8));
    // The phases complete in their order (one graph, four sequences).
    CHECK(r.t.assemble <= r.t.factor);
    CHECK(r.t.factor <= r.t.solve);
    CHECK(r.t.solve <= r.t.predict);
}

}  // namespace

TEMPLATE_TEST_CASE("RBF LS-SVM accuracy within 1% of the LAPACKE reference", "[lssvm][fashion]", float, double) {
    Hyper h;
    h.kernel = KernelType::Rbf;
    h.C = 10;
    check_against_reference<TestType>(h);
}

TEMPLATE_TEST_CASE("linear LS-SVM accuracy within 1% of the LAPACKE reference", "[lssvm][fashion]", float, double) {
    Hyper h;
    h.kernel = KernelType::Linear;
    h.C = 0.01;
    check_against_reference<TestType>(h);
}

TEST_CASE("phase by phase gives the graph's predictions", "[lssvm][fashion]") {
    need_data();
    const Split s = load_fashion_mnist(kFashion, 700, 200);
    Hyper h;
    RunOptions a = cpu(128), b = cpu(128);
    b.overlap = false;
    const Result ra = run<double>(*fx().engine, s.train, s.test, h, a), rb = run<double>(*fx().engine, s.train, s.test, h, b);
    REQUIRE(ra.info == 0);
    REQUIRE(rb.info == 0);
    CHECK(ra.test_pred == rb.test_pred);
}

TEST_CASE("CG and Cholesky agree on a well-conditioned system", "[lssvm][fashion]") {
    need_data();
    const Split s = load_fashion_mnist(kFashion, 800, 300);
    Hyper h;
    h.C = 0.5;  // H = K + 2 I: condition number of a few hundred
    RunOptions chol = cpu(200), cg = cpu(200);
    cg.solver = Solver::Cg;
    cg.cg_tol = 1e-10;
    const Result a = run<double>(*fx().engine, s.train, s.test, h, chol);
    const Result b = run<double>(*fx().engine, s.train, s.test, h, cg);
    REQUIRE(a.info == 0);
    CHECK(b.cg_converged);
    CHECK(b.cg_iterations > 1);
    CHECK(b.cg_iterations < 800);
    double diff = 0, norm = 0;
    for (size_t i = 0; i < a.solution.size(); ++i) {
        diff += (a.solution[i] - b.solution[i]) * (a.solution[i] - b.solution[i]);
        norm += a.solution[i] * a.solution[i];
    }
    INFO("relative difference " << std::sqrt(diff / norm) << " after " << b.cg_iterations << " iterations");
    CHECK(std::sqrt(diff / norm) < 1e-7);
    CHECK(a.test_pred == b.test_pred);
    CHECK(relative_residual<double>(*fx().engine, s.train, h, b, cg) < 1e-9);
    // A loose tolerance stops earlier, with a larger residual.
    cg.cg_tol = 1e-2;
    const Result c = run<double>(*fx().engine, s.train, s.test, h, cg);
    CHECK(c.cg_iterations < b.cg_iterations);
    CHECK(relative_residual<double>(*fx().engine, s.train, h, c, cg) > 1e-6);
}

TEST_CASE("a kernel matrix that is not positive definite gives info, not NaN", "[lssvm][fashion]") {
    need_data();
    const Split s = load_fashion_mnist(kFashion, 1000, 50);  // 1000 samples, 784 features: X X^T is singular
    Hyper h;
    h.kernel = KernelType::Linear;
    h.C = 1e12;
    const Result r = run<float>(*fx().engine, s.train, s.test, h, cpu(200));
    CHECK(r.info > 0);
    CHECK(r.info <= 1000);
    CHECK(r.test_pred.empty());
    CHECK(r.bias.empty());
}

TEST_CASE("bad arguments are rejected with the argument's name", "[lssvm]") {
    Dataset tr;
    tr.n = 4;
    tr.d = 2;
    tr.X = {0, 1, 0, 1, 0, 0, 1, 1};
    tr.y = {0, 1, 0, 1};
    tr.label_values = {0, 1};
    Dataset te = tr;
    Hyper h;
    auto name_of = [&](const Hyper& hh, const Dataset& a, const Dataset& b, const RunOptions& o) {
        try {
            run<double>(*fx().engine, a, b, hh, o);
        } catch (const starfact::InvalidArgument& e) {
            return e.argument();
        }
        return std::string("none");
    };
    h.C = 0;
    CHECK(name_of(h, tr, te, cpu(16)) == "C");
    h.C = -1;
    CHECK(name_of(h, tr, te, cpu(16)) == "C");
    h.C = 1;
    Dataset bad = tr;
    bad.y.pop_back();
    CHECK(name_of(h, bad, te, cpu(16)) == "train");
    Dataset wide = te;
    wide.d = 3;
    wide.X.resize(12, 0.0);
    CHECK(name_of(h, tr, wide, cpu(16)) == "test");
    CHECK(name_of(h, tr, te, cpu(8)) == "nb");
    CHECK(name_of(h, tr, te, cpu(16)) == "none");
}

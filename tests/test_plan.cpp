// The plan through every C++ door: the array forms' (plan(Runtime, ...)), the tile and submit forms'
// (plan(TileMatrix, ...)) and the entry itself give one plan for each call of tests/plan_table.hpp; the plan's
// text names its choices; the posv that two doors planned differently (tf32 on device arrays of order 8192) runs the
// double plan's one task. Each call of an operation, through its array form, its tile form or its submit form, is
// planned exactly once (the planning entry counted), and a submit form handed a plan takes it without planning.
#include <catch2/catch.hpp>
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/planned.hpp"  // detail::planning_calls
#include "starfact/plan.hpp"
#include "starfact/tile_matrix.hpp"
#include "tests/plan_table.hpp"
#include "tests/support.hpp"

using namespace starfact;
using starfact::test::runtime;

namespace {

Request request_of(const test::PlanRow& row) {
    Request r;
    r.op = row.op;
    r.element = row.element;
    r.m = row.m;
    r.n = row.n;
    r.nrhs = row.nrhs;
    r.options.mapping = row.mapping;
    r.options.factor = row.factor;
    r.tiling.residency = row.residency;
    return r;
}

/// Address space for an m x n array that is never touched (the doors plan without reading it).
struct Untouched {
    explicit Untouched(size_t bytes) : size(std::max<size_t>(bytes, 4096)) {
        data = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        REQUIRE(data != MAP_FAILED);
    }
    ~Untouched() { munmap(data, size); }
    size_t size;
    void* data;
};

template <typename T>
Plan tile_door(const Request& r, const Plan& array_plan, const Machine& machine) {
    Untouched memory(static_cast<size_t>(r.m) * static_cast<size_t>(r.n) * sizeof(T));
    TileMatrix<T> A(runtime(), r.m, r.n, array_plan.nb, static_cast<T*>(memory.data), std::max<int64_t>(r.m, 1));
    return plan(A, r, &machine);
}

}  // namespace

/// One line of tests/plan_table.txt: the machine, the requested factor, the plan.
std::string table_line(const Machine& machine, const test::PlanRow& row, const Plan& p) {
    return std::to_string(machine.cpu_workers) + "," + std::to_string(machine.cuda_workers) + "," +
           std::to_string(machine.cuda_devices) + " " + to_string(row.factor) + " " + p.to_string();
}

TEST_CASE("every C++ door plans each call of the table alike, as tests/plan_table.txt says", "[cpu][plan]") {
    int rows = 0;
    std::vector<std::string> lines;
    for (const Machine& machine : test::plan_machines())
        for (const test::PlanRow& row : test::plan_table(machine)) {
            const Request r = request_of(row);
            const Plan entry = plan(r, machine);
            lines.push_back(table_line(machine, row, entry));
            // the array forms: the host array itself; Device through Tiling::residency
            const double host_value = 0;
            const Plan via_array = plan(runtime(), r, &host_value, &machine);
            INFO(entry.to_string());
            CHECK(via_array == entry);
            // the tile forms on tiles of the planned size: the same plan (views of host memory: device-resident
            // tiles need a GPU)
            if (row.residency == Residency::Host && row.n <= 8192) {
                const Plan via_tiles = row.element == Precision::Fp32 ? tile_door<float>(r, entry, machine)
                                                                      : tile_door<double>(r, entry, machine);
                CHECK(via_tiles == entry);
            }
            ++rows;
        }
    CHECK(rows > 1000);
    // The table the other doors (python/tests/test_plan.py) check against; STARFACT_WRITE_PLAN_TABLE=1 rewrites it
    // after a deliberate change of the plan.
    const std::string path = std::string(STARFACT_TESTS_DIR) + "/plan_table.txt";
    if (std::getenv("STARFACT_WRITE_PLAN_TABLE")) {
        std::ofstream out(path);
        for (const std::string& l : lines) out << l << "\n";
    }
    std::ifstream in(path);
    REQUIRE(in.good());
    std::vector<std::string> expected;
    // The table is a CUDA build's: a build without the fused potf2 kernel plans cuSOLVER for the diagonal tiles.
    for (std::string l; std::getline(in, l);) {
        for (size_t at; !have_fused_potf2() && (at = l.find("diag=fused")) != std::string::npos;)
            l.replace(at, 10, "diag=cusolver");
        expected.push_back(l);
    }
    REQUIRE(expected.size() == lines.size());
    for (size_t i = 0; i < lines.size(); ++i) {
        INFO("row " << i + 1 << " of " << path);
        CHECK(lines[i] == expected[i]);
    }
}

TEST_CASE("the plan's choices at the edges of the tuned tables", "[cpu][plan]") {
    const Machine gpu{8, 4, 1}, cpu{8, 0, 0};
    Request r;
    r.op = Operation::Posv;
    r.m = r.n = 8192;
    r.nrhs = 1;
    r.options.mapping = Mapping::GpuOnly;
    r.options.factor = Precision::Tf32;
    r.tiling.residency = Residency::Device;
    // tf32 below 16384 on a GPU: the double factorization as one whole-matrix task (the double plan), not tiles
    Plan p = plan(r, gpu);
    CHECK_FALSE(p.refined);
    CHECK(p.one_task);
    CHECK(p.nb == 8192);
    CHECK(p.arithmetic == Precision::Fp64);
    // from 16384 the tensor cores pay: 4096 tiles, refined
    r.m = r.n = 16384;
    p = plan(r, gpu);
    CHECK(p.refined);
    CHECK(p.nb == 4096);
    CHECK(p.arithmetic == Precision::Tf32);
    CHECK(p.panel == PanelSolve::Inverse);
    r.always_low = true;
    r.m = r.n = 8192;
    CHECK(plan(r, gpu).refined);
    CHECK(plan(r, gpu).nb == 2048);
    // CPU: 256 tiles, the tables' CPU rows
    r.always_low = false;
    CHECK(plan(r, cpu).nb == 256);
    CHECK(plan(r, cpu).refined);
    // LU and QR
    r.op = Operation::Getrf;
    r.options.factor = Precision::Native;
    CHECK(plan(r, gpu).nb == 8192);
    r.op = Operation::Geqrf;
    r.m = 1 << 20;
    r.n = 256;
    p = plan(r, gpu);
    CHECK(p.nb == 65536);
    CHECK(p.tree.kind == QrTree::Kind::Cholqr);
    CHECK(plan(r, cpu).tree.kind == QrTree::Kind::Domains);
    // a tiling request stands
    r.tiling.nb = 100;
    CHECK(plan(r, gpu).nb == 100);
    // as geqrf's DAG runs: a wide A's tree judged on A itself (the Cholesky QR takes tall matrices only), not on A^T
    // as gels does; the panel tree only with whole-tile triangular factors, blocking by whole tiles; an inner
    // blocking below the tiles' keeps the trees' tasks on the CPUs
    r.tiling.nb = 0;
    std::swap(r.m, r.n);
    CHECK(plan(r, gpu).tree.kind != QrTree::Kind::Cholqr);
    r.op = Operation::Gels;
    CHECK(plan(r, gpu).tree.kind == QrTree::Kind::Cholqr);
    r.op = Operation::Geqrf;
    r.m = 16384;
    r.n = 8192;
    p = plan(r, gpu);
    CHECK(p.tree.kind == QrTree::Kind::Cholqr);  // the blocked Cholesky QR up to 16384 columns from m = 2 n
    CHECK(p.nb == 8192);
    CHECK(p.ib == 1024);
    r.m = r.n = 8192;
    p = plan(r, gpu);
    CHECK(p.tree.kind == QrTree::Kind::Panel);
    CHECK(p.ib == p.nb);
    CHECK(p.task_mapping == Mapping::GpuOnly);
    r.ib = 32;
    p = plan(r, gpu);
    CHECK(p.tree.kind != QrTree::Kind::Panel);
    CHECK(p.ib == 32);
    CHECK(p.task_mapping == Mapping::CpuOnly);
    r.tree.kind = QrTree::Kind::Panel;
    r.ib = 0;
    r.options.mapping = Mapping::CpuOnly;
    CHECK(plan(r, gpu).ib == plan(r, gpu).nb);
    // a gesv in a lower precision: as posv's rule (the LU's threshold), on the mixed solve's tiles when refined
    // (never one whole-matrix tile on a GPU, whose float getrf would not run on tensor cores), else the LU's
    Request g;
    g.op = Operation::Gesv;
    g.m = g.n = 8192;
    g.nrhs = 1;
    g.options.mapping = Mapping::GpuOnly;
    g.options.factor = Precision::Tf32;
    g.tiling.residency = Residency::Device;
    p = plan(g, gpu);
    CHECK_FALSE(p.refined);
    CHECK(p.arithmetic == Precision::Fp64);
    CHECK(p.nb == 8192);  // the double LU's table: one tile up to 8192 device-resident
    g.m = g.n = 16384;  // below the LU's threshold (32768), unlike posv's
    CHECK_FALSE(plan(g, gpu).refined);
    g.m = g.n = 32768;
    p = plan(g, gpu);
    CHECK(p.refined);
    CHECK(p.arithmetic == Precision::Tf32);
    CHECK(p.nb == 4096);
    g.options.factor = Precision::Fp32;  // fp32 always refines, on 2048 tiles
    g.m = g.n = 8192;
    p = plan(g, gpu);
    CHECK(p.refined);
    CHECK(p.nb == 2048);
    g.options.factor = Precision::Bf16;
    g.always_low = true;
    p = plan(g, gpu);
    CHECK(p.refined);
    CHECK(p.nb == 2048);
    CHECK(plan(g, cpu).nb == 256);  // CPUs: the LU's 256
    g.always_low = false;
    CHECK(plan(g, cpu).refined);
    g.element = Precision::Fp32;  // a float gesv: tensor-core updates, not refined
    p = plan(g, gpu);
    CHECK_FALSE(p.refined);
    CHECK(p.arithmetic == Precision::Bf16);
    g.element = Precision::Fp64;
    g.op = Operation::Getrf;  // getrf itself is the double LU's plan whatever the factor
    CHECK_FALSE(plan(g, gpu).refined);
    // a refined posv in Auto factors on its first rung, Tf32: that factorization's panel solve
    Request a;
    a.op = Operation::Posv;
    a.m = a.n = 16384;
    a.nrhs = 1;
    a.options.mapping = Mapping::GpuOnly;
    a.options.factor = Precision::Auto;
    a.tiling.residency = Residency::Device;
    p = plan(a, gpu);
    CHECK(p.refined);
    CHECK(p.panel == PanelSolve::Inverse);
}

TEST_CASE("the plan's text names every choice, and bad requests name their argument", "[cpu][plan]") {
    Request r;
    r.op = Operation::Potrf;
    r.m = r.n = 1;
    const std::string line = plan(r, Machine{1, 0, 0}).to_string();
    CHECK(line ==
          "op=potrf element=fp64 m=1 n=1 nrhs=0 mapping=hybrid tasks=hybrid residency=host nb=256 streams=0 "
          "one_task=yes arithmetic=fp64 refined=no diag=- panel=trsm tree=- ib=-");
    // what starpu_chol --cpu-only --n 300 --nb 64 prints (tests/CMakeLists.txt, driver.plan)
    Request d;
    d.m = d.n = 300;
    d.options.mapping = Mapping::CpuOnly;
    d.tiling.nb = 64;
    CHECK(plan(d, Machine{2, 0, 0}).to_string() ==
          "op=potrf element=fp64 m=300 n=300 nrhs=0 mapping=cpu-only tasks=cpu-only residency=host nb=64 streams=0 "
          "one_task=no arithmetic=fp64 refined=no diag=- panel=trsm tree=- ib=-");
    r.n = -1;
    CHECK_THROWS_WITH(plan(r, Machine{}), Catch::Contains("n"));
    r.n = 4;
    r.tiling.nb = -2;
    CHECK_THROWS_WITH(plan(r, Machine{}), Catch::Contains("nb"));
    CHECK(parse_operation("gels") == Operation::Gels);
    CHECK_THROWS_WITH(parse_operation("lu", "op"), Catch::Contains("op"));
}

namespace {

/// The planning calls that `call` makes.
template <typename Call>
uint64_t plans_of(Call&& call) {
    const uint64_t before = detail::planning_calls();
    call();
    return detail::planning_calls() - before;
}

}  // namespace

TEST_CASE("each call is planned once, through its array, tile and submit forms", "[cpu][plan]") {
    Runtime& rt = runtime();
    const int64_t n = 200, nrhs = 3, m = 260;
    const uint64_t seed = test::fresh_seed();
    INFO("seed=" << seed);
    const std::vector<double> spd = test::spd_matrix<double>(n, n, seed);
    std::vector<double> rhs(static_cast<size_t>(m * nrhs)), general(static_cast<size_t>(m * n));
    random_matrix<double>(m, nrhs, rhs.data(), m, seed + 1);
    random_matrix<double>(m, n, general.data(), m, seed + 2);
    for (int64_t i = 0; i < n; ++i) general[static_cast<size_t>(i + i * m)] += static_cast<double>(n);  // LU: no
                                                                                                          // small pivot
    std::vector<int64_t> ipiv(static_cast<size_t>(n));
    for (const Tiling tiling : {Tiling{}, Tiling{64}})
        for (const Mapping mapping : {Mapping::CpuOnly, Mapping::Hybrid}) {
            INFO("nb=" << tiling.nb << " mapping=" << to_string(mapping));
            const Options opts = test::on(mapping);
            Options low = opts;  // the mixed-precision posv (CPU workers: refined whatever the order)
            low.factor = Precision::Fp32;
            std::vector<double> A, B;
            auto fresh = [&](const std::vector<double>& a, int64_t rows) {
                A = a;
                B.assign(rhs.begin(), rhs.begin() + rows * nrhs);
            };
            // the array forms
            fresh(spd, n);
            CHECK(plans_of([&] { CHECK(potrf(rt, n, A.data(), n, opts, tiling) == 0); }) == 1);
            fresh(spd, n);
            CHECK(plans_of([&] { CHECK(posv(rt, n, nrhs, A.data(), n, B.data(), n, opts, tiling) == 0); }) == 1);
            fresh(spd, n);
            CHECK(plans_of([&] { CHECK(potri(rt, n, A.data(), n, opts, tiling) == 0); }) == 1);
            fresh(spd, n);
            SolveReport report;
            CHECK(plans_of([&] {
                      CHECK(posv(rt, n, nrhs, A.data(), n, B.data(), n, low, report, Refinement{}, tiling) == 0);
                  }) == 1);
            CHECK(report.path == SolveReport::Path::Refined);
            fresh(spd, n);
            CHECK(plans_of([&] { CHECK(posv(rt, n, nrhs, A.data(), n, B.data(), n, low, tiling) == 0); }) == 1);
            fresh(spd, n);
            LogDet det;
            CHECK(plans_of([&] { CHECK(potrf_logdet(rt, n, A.data(), n, det, opts, tiling) == 0); }) == 1);
            std::vector<double> lu(general.size());
            auto square = [&] {  // the leading n x n block of `general`, leading dimension n
                for (int64_t j = 0; j < n; ++j)
                    std::copy_n(general.begin() + j * m, n, lu.begin() + j * n);
                fresh(lu, n);
            };
            square();
            CHECK(plans_of([&] { CHECK(getrf(rt, n, A.data(), n, ipiv.data(), opts, tiling) == 0); }) == 1);
            square();
            CHECK(plans_of([&] {
                      CHECK(gesv(rt, n, nrhs, A.data(), n, ipiv.data(), B.data(), n, opts, tiling) == 0);
                  }) == 1);
            square();  // the refined gesv: its array forms, with a report and without
            CHECK(plans_of([&] {
                      CHECK(gesv(rt, n, nrhs, A.data(), n, ipiv.data(), B.data(), n, low, report, Refinement{},
                                 tiling) == 0);
                  }) == 1);
            CHECK(report.path == SolveReport::Path::Refined);
            square();
            CHECK(plans_of([&] {
                      CHECK(gesv(rt, n, nrhs, A.data(), n, ipiv.data(), B.data(), n, low, tiling) == 0);
                  }) == 1);
            fresh(general, m);
            CHECK(plans_of([&] { CHECK(gels(rt, m, n, nrhs, A.data(), m, B.data(), m, opts, tiling) == 0); }) == 1);
            // geqrf: the factors' construction plans the tile size (nb = 0), the call its tree once
            fresh(general, m);
            CHECK(plans_of([&] {
                      QRFactors<double> Tf(rt, m, n, tiling.nb);
                      geqrf(rt, m, n, A.data(), m, Tf, opts, tiling);
                  }) == (tiling.nb == 0 ? 2u : 1u));

            // the tile forms, on tiles of 64, and the submit forms: one plan each
            const int64_t nb = 64;
            TileMatrix<double> a(rt, n, nb), b(rt, n, nrhs, nb);
            auto load = [&](const std::vector<double>& from) {
                a.import(from.data(), n);
                b.import(rhs.data(), n);
            };
            load(spd);
            CHECK(plans_of([&] { CHECK(potrf(a, opts) == 0); }) == 1);
            CHECK(plans_of([&] { potrs(a, b, opts); }) == 1);
            load(spd);
            CHECK(plans_of([&] { CHECK(posv(a, b, opts) == 0); }) == 1);
            load(spd);
            CHECK(plans_of([&] { CHECK(posv(a, b, low, report) == 0); }) == 1);
            load(spd);
            CHECK(plans_of([&] { CHECK(potri(a, opts) == 0); }) == 1);
            square();
            load(A);
            Pivots piv(a);
            CHECK(plans_of([&] { CHECK(getrf(a, piv, opts) == 0); }) == 1);
            CHECK(plans_of([&] { getrs(a, piv, b, opts); }) == 1);
            square();
            load(A);
            CHECK(plans_of([&] { CHECK(gesv(a, piv, b, opts) == 0); }) == 1);
            square();
            load(A);
            CHECK(plans_of([&] { CHECK(gesv(a, piv, b, low, report) == 0); }) == 1);
            CHECK(report.path == SolveReport::Path::Refined);
            load(spd);
            CHECK(plans_of([&] {
                      Sequence seq(rt);
                      const int op = async::posv(a, b, seq, low, report);
                      seq.wait();
                      CHECK(seq.info(op) == 0);
                  }) == 1);
            // the QR's tile and submit forms, on a tall matrix of tiles of 64: one plan each
            {
                TileMatrix<double> g(rt, m, n, nb), c(rt, m, nrhs, nb);
                auto qr_load = [&] {
                    g.import(general.data(), m);
                    c.import(rhs.data(), m);
                };
                QRFactors<double> Tf(rt, m, n, nb);
                qr_load();
                CHECK(plans_of([&] { geqrf(g, Tf, opts); }) == 1);
                qr_load();
                CHECK(plans_of([&] { CHECK(gels(g, Tf, c, opts) == 0); }) == 1);
                qr_load();
                CHECK(plans_of([&] {
                          Sequence seq(rt);
                          const int op = async::gels(g, Tf, c, seq, opts);
                          seq.wait();
                          CHECK(seq.info(op) == 0);
                      }) == 1);
                Request qr;
                qr.op = Operation::Geqrf;
                qr.options = opts;
                qr.m = m;
                qr.n = n;
                qr.tiling.nb = nb;
                const Plan qr_plan = plan(qr, Machine::of(rt));
                qr_load();
                CHECK(plans_of([&] {
                          Sequence seq(rt);
                          async::geqrf(g, Tf, seq, opts, qr_plan);
                          seq.wait();
                      }) == 0);
            }
            // a submit form handed the call's plan plans nothing
            load(spd);
            Request request;
            request.options = opts;
            request.op = Operation::Posv;
            request.nrhs = nrhs;
            const Plan planned = plan(a, request);
            CHECK(plans_of([&] {
                      Sequence seq(rt);
                      const int op = async::posv(a, b, seq, opts, planned);
                      seq.wait();
                      CHECK(seq.info(op) == 0);
                  }) == 0);
        }
}

TEST_CASE("a submit form refuses a plan made for another call, naming 'plan'", "[cpu][plan]") {
    Runtime& rt = runtime();
    TileMatrix<double> a(rt, 100, 32), b(rt, 100, 2, 32);
    TileMatrix<float> s(rt, 100, 32);
    Request request;
    request.op = Operation::Potrf;
    const Plan potrf_plan = plan(a, request);
    request.op = Operation::Posv;
    request.nrhs = 2;
    const Plan posv_plan = plan(a, request);
    Sequence seq(rt);
    // the argument the InvalidArgument that f throws names ("" if none)
    auto refusal = [](auto&& f) -> std::string {
        try {
            f();
        } catch (const InvalidArgument& e) {
            return e.argument();
        }
        return "";
    };
    // another operation, another precision, other tiles, another mapping, another count of right-hand sides
    CHECK(refusal([&] { async::potrf(a, seq, Options{}, posv_plan); }) == "plan");
    CHECK(refusal([&] { async::potrf(s, seq, Options{}, potrf_plan); }) == "plan");
    TileMatrix<double> other(rt, 100, 50);
    CHECK(refusal([&] { async::potrf(other, seq, Options{}, potrf_plan); }) == "plan");
    CHECK(refusal([&] { async::potrf(a, seq, test::on(Mapping::CpuOnly), potrf_plan); }) == "plan");
    TileMatrix<double> wider(rt, 100, 3, 32);
    CHECK(refusal([&] { async::posv(a, wider, seq, Options{}, posv_plan); }) == "plan");
    CHECK(refusal([&] { async::potri(a, seq, Options{}, potrf_plan); }) == "plan");
    // the QR's: a plan of another shape or another operation
    QRFactors<double> Tf(rt, 100, 100, 32);
    CHECK(refusal([&] { async::geqrf(a, Tf, seq, Options{}, potrf_plan); }) == "plan");
    Request qr;
    qr.op = Operation::Geqrf;
    qr.m = 100;
    qr.n = 50;
    qr.tiling.nb = 32;
    CHECK(refusal([&] { async::geqrf(a, Tf, seq, Options{}, plan(qr, Machine::of(rt))); }) == "plan");
    // a plan for a machine with GPUs maps the tasks on tiles of 600 to them, which this runtime does not have
    TileMatrix<double> large(rt, 1200, 600);
    request.op = Operation::Potrf;
    request.nrhs = 0;
    const Machine gpu{8, 4, 1};
    if (rt.cuda_workers() == 0)
        CHECK(refusal([&] { async::potrf(large, seq, Options{}, plan(large, request, &gpu)); }) == "plan");
    seq.wait();
}

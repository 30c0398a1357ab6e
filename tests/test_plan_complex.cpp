// The plan of complex calls [cpu][plan][complex]: complex64 and complex128 potrf, potrs, posv, getrf, getrs, gesv get
// one plan through the entry, the array forms' door and the tile forms' door (views of complex host arrays); the
// Cholesky's is the real type's (tile size, streams, task mapping and one task as the real plan's, LAPACK's or
// cuSOLVER's diagonal tiles, trsm panels, the element's arithmetic, never refined), the LU's runs on CPU workers on
// host tiles of the real LU's CPU size; potri takes the real inverse's tiles with the complex Cholesky's kernels; the
// options of the real factorizations only are refused, naming the field.
#include <catch2/catch.hpp>
#include <sys/mman.h>

#include <algorithm>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include "starfact/cholesky_complex.hpp"
#include "starfact/error.hpp"
#include "starfact/lu_complex.hpp"
#include "starfact/plan.hpp"
#include "starfact/tile_matrix.hpp"
#include "tests/complex_matrices.hpp"
#include "tests/hermitian_matrices.hpp"
#include "tests/lu_complex_checks.hpp"
#include "tests/support.hpp"

using namespace starfact;
using starfact::test::runtime;

namespace {

/// Address space for an array that is never touched (the doors plan without reading it).
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
Plan tile_door(const Request& r, int64_t nb, const Machine& machine) {
    Untouched memory(static_cast<size_t>(r.n) * static_cast<size_t>(r.n) * sizeof(T));
    TileMatrix<T> A(runtime(), r.n, r.n, nb, static_cast<T*>(memory.data), std::max<int64_t>(r.n, 1));
    return plan(A, r, &machine);
}

bool is_lu(Operation op) { return op == Operation::Getrf || op == Operation::Getrs || op == Operation::Gesv; }

/// The argument the entry's refusal of `r` names ("" when it plans it).
std::string refusal(const Request& r, const Machine& machine) {
    try {
        plan(r, machine);
    } catch (const InvalidArgument& e) {
        return e.argument();
    }
    return "";
}

}  // namespace

TEST_CASE("complex calls are planned alike by every door, with the real type's tables", "[cpu][plan][complex]") {
    const Operation ops[] = {Operation::Potrf, Operation::Potrs, Operation::Posv,
                             Operation::Getrf, Operation::Getrs, Operation::Gesv};
    int planned = 0;
    for (const Machine& machine : {Machine{8, 4, 1}, Machine{8, 0, 0}})
        for (Operation op : ops)
            for (int64_t n : {int64_t(1), int64_t(100), int64_t(3001), int64_t(8192)})
                for (Mapping mapping : {Mapping::GpuOnly, Mapping::Hybrid, Mapping::CpuOnly})
                    for (Residency residency : {Residency::Host, Residency::Device})
                        for (Precision element : {Precision::C64, Precision::C128}) {
                            if (mapping == Mapping::GpuOnly && !machine.gpu()) continue;
                            Request r;
                            r.op = op;
                            r.element = element;
                            r.m = r.n = n;
                            r.nrhs = op == Operation::Potrf || op == Operation::Getrf ? 0 : 3;
                            r.options.mapping = mapping;
                            r.tiling.residency = residency;
                            INFO(to_string(op) << " " << to_string(element) << " n=" << n << " "
                                               << to_string(mapping) << " " << to_string(residency) << " on "
                                               << machine.cpu_workers << "," << machine.cuda_workers);
                            const Plan entry = plan(r, machine);
                            INFO(entry.to_string());
                            // the real counterpart's tables
                            Request real = r;
                            real.element = element == Precision::C64 ? Precision::Fp32 : Precision::Fp64;
                            const Plan counterpart = plan(real, machine);
                            CHECK(entry.element == element);
                            CHECK(entry.arithmetic == element);
                            CHECK_FALSE(entry.refined);
                            // device-resident on GPUs: one task up to 16384 (c) or 4096 (z), else tiles of 2048;
                            // elsewhere the real tables, the LU's tiles at most 2048 above one task
                            const bool device_gpu =
                                machine.gpu() && mapping != Mapping::CpuOnly && residency == Residency::Device;
                            const int64_t one_task = element == Precision::C64 ? 16384 : 4096;
                            const int64_t expected = device_gpu ? (n <= one_task ? n : 2048)
                                                     : is_lu(op) && counterpart.nb < n
                                                         ? std::min<int64_t>(counterpart.nb, 2048)
                                                         : counterpart.nb;
                            CHECK(entry.nb == expected);
                            CHECK(entry.one_task == (entry.nb >= n));
                            CHECK(entry.mapping == mapping);
                            CHECK(entry.task_mapping == counterpart.task_mapping);
                            CHECK(entry.residency == residency);
                            CHECK(entry.streams_per_gpu == counterpart.streams_per_gpu);
                            if (!is_lu(op)) {
                                CHECK(entry.diag == DiagKernel::Cusolver);
                                CHECK(entry.panel == PanelSolve::Trsm);
                            }
                            const std::string line = entry.to_string();
                            CHECK(line.find(std::string(" element=") + to_string(element) + " ") != std::string::npos);
                            // the array forms' door (a host array; Device through the tiling) and the tile forms'
                            // (views of host memory: device-resident tiles need a GPU)
                            const std::complex<double> host_value = 0;
                            CHECK(plan(runtime(), r, &host_value, &machine) == entry);
                            if (residency == Residency::Host) {
                                Request tiles = r;
                                tiles.tiling.residency = Residency::Host;
                                const Plan via_tiles =
                                    element == Precision::C64
                                        ? tile_door<std::complex<float>>(tiles, entry.nb, machine)
                                        : tile_door<std::complex<double>>(tiles, entry.nb, machine);
                                CHECK(via_tiles == entry);
                            }
                            ++planned;
                        }
    CHECK(planned > 250);
}

TEST_CASE("complex requests the complex factorizations cannot run are refused by name", "[cpu][plan][complex]") {
    const Machine gpu{8, 4, 1};
    CHECK(std::string(to_string(Precision::C64)) == "c64");
    CHECK(std::string(to_string(Precision::C128)) == "c128");
    CHECK_THROWS_AS(parse_precision("c64"), InvalidArgument);  // an element, no factor precision
    for (Precision element : {Precision::C64, Precision::C128}) {
        Request r;
        r.element = element;
        r.m = r.n = 500;
        r.op = Operation::Potri;  // the real inverse's tiles, streams and tasks, the complex Cholesky's kernels
        for (Mapping mapping : {Mapping::GpuOnly, Mapping::Hybrid, Mapping::CpuOnly})
            for (Residency residency : {Residency::Host, Residency::Device})
                for (int64_t n : {int64_t(1), int64_t(500), int64_t(3001), int64_t(20000)}) {
                    Request inverse = r;
                    inverse.m = inverse.n = n;
                    inverse.options.mapping = mapping;
                    inverse.tiling.residency = residency;
                    Request real = inverse;
                    real.element = element == Precision::C64 ? Precision::Fp32 : Precision::Fp64;
                    INFO("potri n=" << n << " " << to_string(mapping) << " " << to_string(residency));
                    REQUIRE(refusal(inverse, gpu).empty());
                    const Plan p = plan(inverse, gpu), q = plan(real, gpu);
                    CHECK(p.element == element);
                    CHECK(p.arithmetic == element);
                    CHECK_FALSE(p.refined);
                    CHECK(p.nb == q.nb);
                    CHECK(p.one_task == q.one_task);
                    CHECK(p.streams_per_gpu == q.streams_per_gpu);
                    CHECK(p.task_mapping == q.task_mapping);
                    CHECK(p.diag == DiagKernel::Cusolver);
                    CHECK(p.panel == PanelSolve::Trsm);
                }
        Request left_inverse = r;
        left_inverse.options.variant = Variant::parse("left");
        CHECK(refusal(left_inverse, gpu) == "variant");
        for (Operation op : {Operation::Geqrf, Operation::Gels}) {  // the real QR's plan, without the Cholesky QR
            Request qr = r;
            qr.op = op;
            qr.m = op == Operation::Gels ? 300000 : 500;
            qr.n = op == Operation::Gels ? 100 : 500;
            CHECK(refusal(qr, gpu).empty());
            CHECK(plan(qr, gpu).tree.kind != QrTree::Kind::Cholqr);
            if (op == Operation::Gels) {  // where the real matrix's plan takes it
                Request real = qr;
                real.element = Precision::Fp64;
                CHECK(plan(real, gpu).tree.kind == QrTree::Kind::Cholqr);
            }
            qr.tree = QrTree::parse("cholqr");
            CHECK(refusal(qr, gpu) == "tree");
            qr.tree = QrTree{};
            qr.options.variant = Variant::parse("noprio");
            CHECK(refusal(qr, gpu).empty());
        }
        r.op = Operation::Posv;
        r.nrhs = 2;
        CHECK(refusal(r, gpu).empty());
        for (Precision f : {Precision::Fp32, Precision::Tf32, Precision::Bf16, Precision::Fp16, Precision::Tf32x3,
                            Precision::Fp64}) {
            Request low = r;
            low.options.factor = f;
            // the c128 posv's mixed-precision solve factors in c64: fp32, or tf32 on tensor cores
            const bool mixed = element == Precision::C128 && (f == Precision::Fp32 || f == Precision::Tf32);
            CHECK(refusal(low, gpu) == (mixed ? "" : "factor"));
            low.op = Operation::Potrf;
            CHECK(refusal(low, gpu) == "factor");
        }
        Request same = r;
        same.options.factor = element;  // its own arithmetic, and Auto, are the native one
        CHECK(refusal(same, gpu).empty());
        same.options.factor = Precision::Auto;
        CHECK(refusal(same, gpu).empty());
        Request low = r;
        low.always_low = true;
        CHECK(refusal(low, gpu) == "always_low");
        Request left = r;
        left.options.variant = Variant::parse("left");
        CHECK(refusal(left, gpu) == "variant");
        Request inverse = r;
        inverse.options.panel = PanelSolve::Inverse;
        CHECK(refusal(inverse, gpu) == "panel");
        Request fused = r;
        fused.options.diag = DiagKernel::Fused;
        CHECK(refusal(fused, gpu) == "diag");
        Request cusolver = r;
        cusolver.options.diag = DiagKernel::Cusolver;
        CHECK(refusal(cusolver, gpu).empty());
        Request spread = r;  // distributed tiles: the real graphs run the complex factorizations over MPI ranks
        spread.distributed = true;
        CHECK(refusal(spread, gpu).empty());
        for (Operation op : {Operation::Potrf, Operation::Potrs, Operation::Getrf, Operation::Getrs,
                             Operation::Gesv}) {
            spread.op = op;
            CHECK(refusal(spread, gpu).empty());
        }
        Request lu = r;
        lu.op = Operation::Gesv;
        lu.options.variant = Variant::parse("noprio");
        CHECK(refusal(lu, gpu) == "variant");
        lu.options.variant = Variant{};
        lu.options.mapping = Mapping::GpuOnly;  // the complex LU runs on CUDA workers
        CHECK(plan(lu, gpu).task_mapping == Mapping::GpuOnly);
        lu.options.mapping = Mapping::Hybrid;
        lu.tiling.nb = 96;  // an explicit tile size stands
        CHECK(plan(lu, gpu).nb == 96);
    }
    // the real element precisions keep their refusal of unknown elements
    Request r;
    r.element = Precision::Tf32;
    CHECK(refusal(r, gpu) == "element");
}

TEST_CASE("the c128 posv in a c64 factor is planned as the double posv in that factor is", "[cpu][plan][complex]") {
    const Machine gpu{8, 4, 1}, cpu{8, 0, 0};
    Request r;
    r.op = Operation::Posv;
    r.element = Precision::C128;
    r.nrhs = 1;
    r.tiling.residency = Residency::Device;
    r.options.factor = Precision::Tf32;
    r.m = r.n = 32768;
    Plan p = plan(r, gpu);
    CHECK(p.refined);
    CHECK(p.arithmetic == Precision::Tf32);
    CHECK(p.nb == 4096);  // mixed_tile_size: the tensor-core factor's tiles
    r.m = r.n = 8192;     // below kTensorCoreSolveMinOrder: the c128 solve, its own tiles
    p = plan(r, gpu);
    CHECK_FALSE(p.refined);
    CHECK(p.arithmetic == Precision::C128);
    r.always_low = true;  // ... unless asked for
    CHECK(plan(r, gpu).refined);
    r.always_low = false;
    r.options.factor = Precision::Fp32;  // fp32 and CPU mappings always refine
    CHECK(plan(r, gpu).refined);
    r.options.factor = Precision::Tf32;
    r.m = r.n = 500;
    r.tiling.residency = Residency::Host;
    p = plan(r, cpu);
    CHECK(p.refined);
    CHECK(p.nb == 256);
}

TEMPLATE_TEST_CASE("complex submit forms follow the plan they are given and refuse one made for another call",
                   "[cpu][plan][complex][async]", std::complex<float>, std::complex<double>) {
    using C = TestType;
    using test::solve_residual;
    const int64_t n = 70, nb = 32, nrhs = 2;
    const uint64_t seed = test::fresh_seed();
    INFO("seed=" << seed << " prec=" << test::complex_letter<C>());
    std::mt19937_64 g(seed);
    const std::vector<C> H = test::hpd_matrix<C>(n, g), A = test::random_block<C>(n, n, g);
    const std::vector<C> B = test::random_block<C>(n, nrhs, g);
    Runtime& rt = runtime();
    const Options cpu = test::on(Mapping::CpuOnly);
    auto planned = [&](const TileMatrix<C>& M, Operation op, int64_t k) {
        Request r;
        r.op = op;
        r.nrhs = k;
        r.options = cpu;
        return plan(M, r);
    };
    // the argument the InvalidArgument that f throws names ("" if none)
    auto refusal = [](auto&& f) -> std::string {
        try {
            f();
        } catch (const InvalidArgument& e) {
            return e.argument();
        }
        return "";
    };
    TileMatrix<C> tH(rt, n, nb), tS(rt, n, nb), tA(rt, n, nb), tG(rt, n, nb), tB(rt, n, nrhs, nb),
        tB2(rt, n, nrhs, nb), tB3(rt, n, nrhs, nb), tB4(rt, n, nrhs, nb);
    tH.import(H.data(), n);
    tS.import(H.data(), n);
    tA.import(A.data(), n);
    tG.import(A.data(), n);
    for (TileMatrix<C>* b : {&tB, &tB2, &tB3, &tB4}) b->import(B.data(), n);
    Pivots pA(tA), pG(tG);
    const Plan potrf_plan = planned(tH, Operation::Potrf, 0), potrs_plan = planned(tH, Operation::Potrs, nrhs),
               posv_plan = planned(tS, Operation::Posv, nrhs), getrf_plan = planned(tA, Operation::Getrf, 0),
               getrs_plan = planned(tA, Operation::Getrs, nrhs), gesv_plan = planned(tG, Operation::Gesv, nrhs);
    Sequence seq(rt);
    // another operation, another count of right-hand sides, another mapping: refused before any task
    CHECK(refusal([&] { async::potrf(tH, seq, cpu, posv_plan); }) == "plan");
    CHECK(refusal([&] { async::potrs(tH, tB, seq, cpu, potrf_plan); }) == "plan");
    CHECK(refusal([&] { async::posv(tS, tB2, seq, test::on(Mapping::Hybrid), posv_plan); }) == "plan");
    CHECK(refusal([&] { async::getrf(tA, pA, seq, cpu, gesv_plan); }) == "plan");
    CHECK(refusal([&] { async::getrs(tA, pA, tB3, seq, cpu, potrs_plan); }) == "plan");
    CHECK(refusal([&] { async::gesv(tG, pG, tB4, seq, cpu, getrs_plan); }) == "plan");
    // each with its own plan: the results of the unplanned forms
    CHECK(async::potrf(tH, seq, cpu, potrf_plan) >= 0);
    async::potrs(tH, tB, seq, cpu, potrs_plan);
    CHECK(async::posv(tS, tB2, seq, cpu, posv_plan) >= 0);
    CHECK(async::getrf(tA, pA, seq, cpu, getrf_plan) >= 0);
    async::getrs(tA, pA, tB3, seq, cpu, getrs_plan);
    CHECK(async::gesv(tG, pG, tB4, seq, cpu, gesv_plan) >= 0);
    REQUIRE(seq.wait() == 0);
    std::vector<C> X(B.size()), F(H.size());
    tB.export_to(X.data(), n);
    CHECK(solve_residual(H, X, B, n, nrhs) < test::kResidualLimit);
    tB2.export_to(X.data(), n);
    CHECK(solve_residual(H, X, B, n, nrhs) < test::kResidualLimit);
    tB3.export_to(X.data(), n);
    CHECK(solve_residual(A, X, B, n, nrhs) < test::kResidualLimit);
    tB4.export_to(X.data(), n);
    CHECK(solve_residual(A, X, B, n, nrhs) < test::kResidualLimit);
    tH.export_to(F.data(), n);
    CHECK(test::hermitian_factor_residual(H, F, n) < test::kResidualLimit);
    tA.export_to(F.data(), n);
    CHECK(test::getrf_residual(A, F, pA.ipiv(), n) < test::kResidualLimit);
}

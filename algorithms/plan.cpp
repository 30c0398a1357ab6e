// The plan's tables (algorithms/plan_tables.hpp, behind the entry of include/starfact/plan.hpp): every tuned choice that does not depend on the data, none needing a
// Runtime. The Cholesky's tile size and CUDA streams per GPU by order, precision, mapping and residency (the
// rows come from `starpu_chol --sweep` on the H100, docs/performance.md says how to regenerate them; between
// two rows the smaller row's choice holds), the inverse's and the LU's tile sizes, the hybrid rule, and what
// the Auto diagonal kernel and panel solve mean.
#include <algorithm>
#include <cstdlib>
#include <type_traits>
#include <string>

#include "algorithms/plan_tables.hpp"
#include "codelets/codelets.hpp"  // fused_potf2_available
#include "kernels/scalar.hpp"
#include "starfact/error.hpp"
#include "starfact/mixed.hpp"
#include "starfact/plan.hpp"

namespace starfact {
namespace {

struct PlanRow {
    int64_t max_n;  ///< the row holds for orders <= max_n
    int64_t nb;     ///< tile size; 0: one tile (the whole matrix is one task)
    int streams;    ///< CUDA workers per GPU
};

// GPU mappings, device-resident tiles: up to max_n the whole matrix is one tile (one task: the diagonal kernel
// resolve_diag_kernel picks for that order), above tiles of nb. Measured on the H100 against one cuSOLVER call
// (docs/performance.md, "The double-precision floor"): in double the one-task path up to n = 20480, where 2048
// tiles take over (1.00..1.04x cuSOLVER from 24576 on; 4096 tiles 0.96..0.98x); in float one fused task up to
// 16384, then 4096 tiles (1.03..1.08x; 2048 tiles 0.98..1.05x).
constexpr PlanRow kDeviceDouble[] = {
    {20480, 0, 4},
    {int64_t(1) << 40, 2048, 4},
};
constexpr PlanRow kDeviceFloat[] = {
    {16384, 0, 4},
    {int64_t(1) << 40, 4096, 4},
};
// GPU mappings, device-resident tiles over several GPUs: a whole-matrix task would leave all but one GPU idle, and
// the finer 2048 tiles beat 4096 at every order measured on 2 GPUs (16384 to 65536, docs/multigpu.md).
constexpr PlanRow kDeviceMulti[] = {
    {12288, 0, 4},
    {int64_t(1) << 40, 2048, 4},
};
// GPU mappings, host-resident tiles: tiles small enough that transfers overlap the factorization.
constexpr PlanRow kHost[] = {
    {4096, 0, 4},
    {int64_t(1) << 40, 2048, 4},
};

detail::TilePlan from(const PlanRow* rows, size_t count, int64_t n) {
    for (size_t i = 0; i < count; ++i)
        if (n <= rows[i].max_n) return {rows[i].nb > 0 ? rows[i].nb : std::max<int64_t>(n, 1), rows[i].streams};
    return {rows[count - 1].nb, rows[count - 1].streams};
}

}  // namespace

bool have_fused_potf2() { return detail::fused_potf2_available(); }
bool have_recursive_potrf() { return detail::recursive_potrf_available(); }

namespace detail {

Mapping task_mapping(Mapping m, int64_t nb, bool gpu) {
    return m == Mapping::Hybrid && nb > kHybridCpuMaxTile && gpu ? Mapping::GpuOnly : m;
}


template <typename T>
TilePlan tile_plan(int64_t n, Mapping mapping, Residency residency, bool gpu, int gpus) {
    if (mapping == Mapping::CpuOnly || !gpu) return {256, 0};
    if (residency == Residency::Device && gpus > 1)
        return from(kDeviceMulti, sizeof kDeviceMulti / sizeof kDeviceMulti[0], n);
    if (residency == Residency::Device)
        return is_double_v<T> ? from(kDeviceDouble, sizeof kDeviceDouble / sizeof kDeviceDouble[0], n)
                             : from(kDeviceFloat, sizeof kDeviceFloat / sizeof kDeviceFloat[0], n);
    return from(kHost, sizeof kHost / sizeof kHost[0], n);
}

template <typename T>
TilePlan potri_tile_plan(int64_t n, Mapping mapping, Residency residency, bool gpu) {
    TilePlan plan = tile_plan<T>(n, mapping, residency, gpu);
    if (mapping == Mapping::CpuOnly || !gpu) return plan;
    // At least 8 tile rows: three phases pipeline through the tiles (H100, n = 16384 double: 2048 tiles gave 1.98x
    // cuSOLVER potrf + potri, 4096 tiles 1.69x, 8192 tiles 1.24x; docs/results.md). Below 512 a tile task no
    // longer fills an H100.
    constexpr int64_t kMinTileRows = 8, kMinTile = 512;
    if ((n + plan.nb - 1) / plan.nb < kMinTileRows)
        plan.nb = std::max<int64_t>(std::min<int64_t>(kMinTile, std::max<int64_t>(n, 1)),
                                    (n + kMinTileRows - 1) / kMinTileRows);
    return plan;
}

template <typename T>
int64_t lu_tile_size(int64_t n, Mapping mapping, Residency residency, bool gpu, int gpus) {
    if (mapping == Mapping::CpuOnly || !gpu) return 256;
    const bool device = residency == Residency::Device;
    if (n <= (device ? 8192 : 4096)) return std::max<int64_t>(n, 1);  // one panel task: cuSOLVER getrf in place
    return device && n > 24576 && gpus <= 1 ? 4096 : 2048;
}

template <typename T>
DiagKernel resolve_diag_kernel(DiagKernel d, Mapping m, int64_t nb) {
    if (d != DiagKernel::Auto) return d;
    if (m == Mapping::CpuOnly || !detail::fused_potf2_available()) return DiagKernel::Cusolver;
    // Tile orders at which one cuSOLVER potrf beat our fused potf2 on the H100 (starpu_chol --sweep --nb NB
    // --diag fused|cusolver, one tile, warm models; docs/performance.md): our panel chain of 128-column launches
    // costs more than cuSOLVER's there. Below 2048 (every DAG tile of the plans) and above these orders, fused.
    const int64_t first = 2049, last = is_double_v<T> ? 24576 : 4096;
    return nb >= first && nb <= last ? DiagKernel::Cusolver : DiagKernel::Fused;
}

PanelSolve resolve_panel_solve(PanelSolve p) {
    // Trsm whatever the mapping and tile size: the inverse path was faster with 1024 tiles on the H100
    // (docs/results.md) but is not backward stable: on Gaussian-kernel matrices with small nuggets, which
    // LAPACK factors with residuals ~1e-3, its error through inv(L[k][k]) made the trailing matrix lose
    // definiteness (a spurious info > 0; docs/algorithms.md). It stays available as an explicit choice.
    return p == PanelSolve::Auto ? PanelSolve::Trsm : p;
}

PanelSolve resolve_panel_solve(PanelSolve p, Precision factor, Mapping mapping, bool distributed) {
    if (p != PanelSolve::Auto) return p;
    // Tensor-core factors: the inverse through tensor-core gemms (codelets/trtri.cpp) and one tensor-core gemm per
    // panel tile beat the recursive solve: TF32 factorization of n = 32768 in 4096 tiles 0.0863 s against 0.0962 s
    // (H100, device-resident, starpu_chol --op potrf --prec s --factor-prec tf32 --panel inverse|trsm); on GPU-only
    // mappings only: a hybrid solve at n = 16384 took 0.0544 s with it against 0.0521 s (CPU workers take inversions
    // and products there, in float arithmetic).
    const bool tensor_cores = on_tensor_cores(factor);
    return tensor_cores && mapping == Mapping::GpuOnly && !distributed ? PanelSolve::Inverse : PanelSolve::Trsm;
}

template TilePlan tile_plan<float>(int64_t, Mapping, Residency, bool, int);
template TilePlan tile_plan<double>(int64_t, Mapping, Residency, bool, int);
template TilePlan potri_tile_plan<float>(int64_t, Mapping, Residency, bool);
template TilePlan potri_tile_plan<double>(int64_t, Mapping, Residency, bool);
template int64_t lu_tile_size<float>(int64_t, Mapping, Residency, bool, int);
template int64_t lu_tile_size<double>(int64_t, Mapping, Residency, bool, int);
template DiagKernel resolve_diag_kernel<float>(DiagKernel, Mapping, int64_t);
template DiagKernel resolve_diag_kernel<double>(DiagKernel, Mapping, int64_t);

int64_t mixed_tile_size(int64_t n, Mapping mapping, bool gpu, Precision factor) {
    if (!gpu || mapping == Mapping::CpuOnly) return std::max<int64_t>(1, std::min<int64_t>(n, 256));
    // Measured on the H100 (device-resident, TF32, the whole solve, docs/mixed_precision.md): with cuBLAS trsm
    // panels 2048 tiles beat 1024 and 512 at n = 16384 (factorization 0.027 s against 0.051 and 0.141) and matched
    // 4096 at 32768; with the panels recursing into tensor-core gemms 4096 tiles win: 0.0351 s against 0.0379
    // (2048) and 0.0657 (1024) at 16384, 0.1287 against 0.1519 at 32768, 0.1985 against 0.2437 at 40000.
    const bool tensor_cores = on_tensor_cores(factor) || factor == Precision::Auto;  // Auto starts on Tf32
    const int64_t nb = tensor_cores && n >= 12288 ? 4096 : 2048;
    return std::max<int64_t>(1, std::min<int64_t>(n, nb));
}

SolvePlan solve_plan(int64_t n, Mapping mapping, Residency residency, bool gpu, int gpus, Precision factor) {
    SolvePlan p;
    const bool lower = refines_double(factor);
    const bool on_gpus = gpu && mapping != Mapping::CpuOnly;
    p.low = lower && (!on_gpus || factor == Precision::Fp32 || n >= kTensorCoreSolveMinOrder);
    p.nb = p.low ? mixed_tile_size(n, mapping, gpu, factor) : tile_plan<double>(n, mapping, residency, gpu, gpus).nb;
    return p;
}

SolvePlan lu_solve_plan(int64_t n, Mapping mapping, Residency residency, bool gpu, int gpus, Precision factor) {
    SolvePlan p;
    const bool lower = refines_double(factor);
    const bool on_gpus = gpu && mapping != Mapping::CpuOnly;
    p.low = lower && (!on_gpus || factor == Precision::Fp32 || n >= kTensorCoreLuSolveMinOrder);
    // Refined: the mixed solve's tiles (4096 from n = 12288 for the tensor-core factors on GPUs, else 2048; 256 on
    // CPUs, the LU's own), never one tile for the whole matrix on GPUs, whose float getrf would not run on tensor cores.
    p.nb = p.low ? mixed_tile_size(n, mapping, gpu, factor) : lu_tile_size<double>(n, mapping, residency, gpu, gpus);
    return p;
}

}  // namespace detail
}  // namespace starfact

// ---- the tile QR (docs/qr.md) ----------------------------------------------------------------------

namespace starfact {

namespace {
/// The tree of a QrTree text without its "+fallback".
QrTree parse_tree_kind(const std::string& text, const char* argument) {
    using Kind = QrTree::Kind;
    QrTree t;
    if (text == "auto") return t;
    if (text == "flat") {
        t.kind = Kind::Flat;
        return t;
    }
    if (text == "binary") {
        t.kind = Kind::Binary;
        return t;
    }
    if (text == "cholqr") {
        t.kind = Kind::Cholqr;
        return t;
    }
    if (text == "panel") {
        t.kind = Kind::Panel;
        return t;
    }
    const std::string prefix = "domains=";
    if (text.compare(0, prefix.size(), prefix) == 0) {
        const std::string v = text.substr(prefix.size());
        int64_t a = 0;
        bool digits = !v.empty() && v.size() <= 9;
        for (char c : v) digits = digits && c >= '0' && c <= '9';
        if (digits) a = std::stoll(v);
        if (!digits || a < 1)
            throw InvalidArgument("QrTree::parse", argument, "domains=A needs a whole A >= 1 (got '" + v + "')");
        t.kind = Kind::Domains;
        t.domain = a;
        return t;
    }
    throw InvalidArgument("QrTree::parse", argument,
                          "must be one of auto, flat, binary, domains=A, cholqr, panel, optionally followed by "
                          "+fallback (got '" + text + "')");
}
}  // namespace

QrTree QrTree::parse(const std::string& text, const char* argument) {
    const std::string suffix = "+fallback";
    const bool fallback =
        text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
    QrTree t = parse_tree_kind(fallback ? text.substr(0, text.size() - suffix.size()) : text, argument);
    t.fallback = fallback;
    return t;
}

std::string QrTree::name() const {
    return kind_name() + (fallback ? "+fallback" : "");
}

std::string QrTree::kind_name() const {
    switch (kind) {
        case Kind::Auto: return "auto";
        case Kind::Flat: return "flat";
        case Kind::Binary: return "binary";
        case Kind::Domains: return "domains=" + std::to_string(domain);
        case Kind::Cholqr: return "cholqr";
        case Kind::Panel: return "panel";
    }
    return "auto";
}

namespace detail {

int64_t qr_domain_rows(const QrTree& tree, int64_t mt, int64_t nt, int workers) {
    const int64_t all = std::max<int64_t>(mt, 1);
    switch (tree.kind) {
        case QrTree::Kind::Flat: return all;
        case QrTree::Kind::Binary: return 1;
        case QrTree::Kind::Domains: return std::max<int64_t>(1, std::min(tree.domain, all));
        case QrTree::Kind::Cholqr: return all;  // one block of reflectors over every tile row
        case QrTree::Kind::Panel: return all;   // one block of reflectors per tile column, over its tile rows
        case QrTree::Kind::Auto: break;
    }
    // A matrix of at most 2 nt tile rows keeps the workers busy with its trailing updates: the flat tree, whose TS
    // kernels are the most efficient. A taller one has panels that a chain would serialise: about two domains per
    // worker, each a flat chain, merged by a binary tree.
    if (mt <= 2 * nt) return all;
    const int64_t domains = std::max<int64_t>(1, 2 * static_cast<int64_t>(std::max(workers, 1)));
    return std::max<int64_t>(1, (mt + domains - 1) / domains);
}

namespace {
/// The Cholesky QR's shapes (qr_uses_cholqr): n <= 512; up to kCholqrWideOrder columns with at least
/// kCholqrWideAspect rows per column; beyond that, up to kCholqrLargeOrder columns, from kCholqrLargeAspect rows per
/// column, and from kCholqrSquareOrder columns any m >= n (the blocked form in panels of 1024: qr_cholqr_panel).
constexpr int64_t kCholqrNarrowOrder = 512;
constexpr int64_t kCholqrWideOrder = 4096;
constexpr int64_t kCholqrWideAspect = 8;
constexpr int64_t kCholqrLargeOrder = 16384;
constexpr int64_t kCholqrLargeAspect = 2;
constexpr int64_t kCholqrSquareOrder = 12000;
// From this many rows per column the blocked Cholesky QR takes panels of 256 columns (qr_cholqr_panel).
constexpr int64_t kCholqrPanelAspect = 64;
bool cholqr_large(int64_t m, int64_t n) {
    return n > kCholqrWideOrder && n <= kCholqrLargeOrder &&
           (m >= kCholqrLargeAspect * n || (n >= kCholqrSquareOrder && m >= n));
}
bool cholqr_shape(int64_t m, int64_t n) {
    return n >= 1 && (n <= kCholqrNarrowOrder || (n <= kCholqrWideOrder && m >= kCholqrWideAspect * n) ||
                      cholqr_large(m, n));
}
}  // namespace

bool qr_uses_cholqr(const QrTree& tree, int64_t m, int64_t n, int64_t nb, Mapping mapping, bool gpu) {
    if (tree.kind == QrTree::Kind::Cholqr) return true;
    if (tree.kind != QrTree::Kind::Auto) return false;
    // Measured on the H200, device-resident, GPU-only, double (docs/qr.md): m = 2^20, n = 128 to 512, and 800000 x 200,
    // in tiles of 32768 rows, the Cholesky QR 2.1 to 2.7 times faster than the binary tree (about cuSOLVER's geqrf);
    // 400000 x 1000 1.9x cuSOLVER, 2^20 x 1000 1.8x, 65536 to 131072 x 2048 1.5x, where the trees ran at 0.2-0.4x.
    // Beyond 4096 columns, from m = 2 n, the blocked form (panels of 1024) against the panel tree (one H200,
    // device-resident, double / float cuSOLVER ratios): 16384 x 8192 1.75 / 1.68 against 1.70 / 1.44; 32768 x 8192
    // 1.83 / 1.75 against 1.65 / 1.35; 131072 x 8192 1.49 / 1.54 against 1.32 / 1.14; 65536 x 16384 1.41 / 1.43
    // against 1.28 / 1.10; 524288 x 8192 1.38 / 1.24 against 0.75 / 0.99 (docs/qr.md, "Measured"). Squarer, the
    // last panels' Cholesky QRs of nearly square blocks take three passes: 8192^2 0.97 / 0.89 against 1.01 / 0.89,
    // 6000 x 5000 0.86 / 0.80 against 0.93 / 0.85; from 12000 columns on it wins there too (float 12000^2 1.08
    // against 0.96, 16384^2 1.36 / 1.36 against 1.33 / 1.13), in one tile of n rows or more.
    return gpu && mapping != Mapping::CpuOnly && cholqr_shape(m, n) && n <= nb &&
           (m >= 2 * nb || cholqr_large(m, n));
}

bool qr_cholqr_panels_only(int64_t m, int64_t n) { return cholqr_large(m, n); }

Plan qr_distributed_plan(Plan p, int64_t m, int64_t n, int64_t nb, int64_t grid_rows) {
    // The Cholesky QR (its Gram sums cross the ranks) and the panel tree (each panel gathered on one rank) run as in
    // one process: on four H200, n = 32768, the panel tree's 2 x 2 ranks took 0.547 s, one process 0.556, the
    // hierarchical tree 1.619 (docs/mpi.md). Not the Cholesky QR's widest shapes, which it takes in panels only:
    // one panel would cost 4 m n^2 flops.
    const bool cholqr = p.tree.kind == QrTree::Kind::Cholqr && !p.tree.fallback;
    if ((cholqr && !qr_cholqr_panels_only(m, n)) || p.tree.kind == QrTree::Kind::Panel) return p;
    if (p.tree.kind == QrTree::Kind::Cholqr) p.ib = nb;  // (chosen with GPUs: the trees' blocking there)
    const int64_t mt = m / nb + (m % nb != 0), P = std::max<int64_t>(grid_rows, 1);
    p.tree = QrTree{QrTree::Kind::Domains, std::max<int64_t>(1, mt / P + (mt % P != 0))};
    return p;
}

bool qr_uses_panel(const QrTree& tree, int64_t m, int64_t n, int64_t nb, Mapping mapping, bool gpu) {
    if (tree.kind == QrTree::Kind::Panel) return true;
    if (tree.kind != QrTree::Kind::Auto || nb < 1) return false;
    // Square to tall (m >= n) beyond the Cholesky QR's shapes: 0.89-1.09x cuSOLVER where the trees ran at 0.3-0.6x
    // (65536 x 4096: panel 0.174 s, binary tree 0.487 s; 131072 x 8192: 0.72 s against 1.99 s).
    return gpu && mapping != Mapping::CpuOnly && n > nb && m >= n && !qr_uses_cholqr(tree, m, n, nb, mapping, gpu);
}

template <typename T>
int64_t qr_tile_size(int64_t m, int64_t n, Mapping mapping, Residency residency, bool gpu, int gpus) {
    (void)residency;
    (void)gpus;
    if (mapping == Mapping::CpuOnly || !gpu) return 192;
    // Measured on the H200, device-resident, double, GPU-only (docs/qr.md): tall and skinny (m = 2^20, n = 128 and
    // 256), tiles of 32768 rows took 0.047 and 0.095 s against 0.058 / 0.120 s (8192) and 0.118 / 0.353 s (2048): one
    // tile column of tall tiles, whose GEQRT is one cuSOLVER geqrf of useful size. Square, 2048 tiles beat 1024 and
    // 512 at n = 8192 (0.131 s against 0.137 and 0.188) and 1024 at 16384 (0.432 s against 0.509).
    // The Cholesky QR (qr_uses_cholqr) on 2^20 rows: tiles of 65536 rows, half the tasks, took 0.0077 s at n = 128
    // and 0.0456 at 512 against 0.0084 and 0.0479 (32768); below 4 tiles of 32768 rows, 32768.
    // A float Cholesky QR on GPUs runs on a double copy of its tile column (algorithms/cholqr.cpp), whose tiles
    // are temporaries: up to 16 of them it ran at double's speed (2^20 x 1000 in 16 tiles 0.126 s), with 24 or 32
    // it took 4-5 times as long (0.47 and 0.68 s): float's tiles are at least m / 16 rows (multiples of 32768).
    const int64_t at_least =
        std::is_same<T, float>::value && m > 16 * 32768 ? (m + 16 * 32768 - 1) / (16 * 32768) * 32768 : 0;
    if (n <= kCholqrNarrowOrder) return std::max<int64_t>({m >= 4 * 32768 ? 65536 : 32768, n, at_least});
    // Wider Cholesky QR shapes: tiles of 32768 rows, or two tile rows of m / 2 when fewer (32768 x 2048: 16384); of
    // 65536 rows up to n = 2048 from 16 such tiles on (2^20 x 2048: 0.408 s against 0.447 with 32768, cuSOLVER 0.532;
    // 2^20 x 1000: 0.122 against 0.124, in one call).
    // Beyond 4096 columns (the blocked form) the same rule: 32768 x 8192 in two tiles of 16384, 16384^2 in one.
    if (cholqr_shape(m, n))
        return std::max<int64_t>({n, n <= 2048 && m >= 16 * 65536 ? 65536 : std::min<int64_t>(32768, m / 2), at_least});
    // The panel tree's tall float panels are Cholesky QRs of three float passes (codelets/qr_panel.cpp), about 6 m n nb
    // flops over the factorization: tall float shapes from n = 8192 on ran faster in tiles of 1024
    // (one H200, device-resident, against 2048: 524288 x 8192 2.44 s against 3.44, cuSOLVER 2.49; 262144 x 16384 4.10
    // against 4.33, cuSOLVER 4.17; 131072 x 8192 0.605 against 0.646; 16384 x 8192 0.116 against 0.139; 65536 x 16384
    // level; square 8192 0.079 against 0.077). Double keeps 2048 (131072 x 8192: 0.70 s in tiles of 1024, 0.50 in 2048).
    // Up to 16384 columns these shapes are the Cholesky QR's (above): the rule holds for the panel tree's beyond.
    if (std::is_same<T, float>::value && n >= 8192 && m >= 2 * n) return 1024;
    return 2048;
}
template int64_t qr_tile_size<float>(int64_t, int64_t, Mapping, Residency, bool, int);
template int64_t qr_tile_size<double>(int64_t, int64_t, Mapping, Residency, bool, int);



int64_t qr_cholqr_panel(int64_t m, int64_t n, int64_t requested, Mapping mapping, bool gpu) {
    const int64_t all = std::max<int64_t>(n, 1);
    if (requested > 0) return std::min(requested, all);
    if (const char* e = std::getenv("STARFACT_QR_CHOLQR_PANEL")) {
        const long long w = std::atoll(e);
        if (w > 0) return std::min<int64_t>(w, all);
    }
    if (mapping == Mapping::CpuOnly || !gpu || n < kCholqrNarrowOrder) return all;
    // Measured on one H200, device-resident, double (docs/qr.md, "The blocked Cholesky QR"), seconds for one panel /
    // panels of 128, 256, 512, 1024 columns: 2^20 x 512 0.0453 / 0.0397, 0.0386; 2^20 x 1000 0.121 / 0.107, 0.097,
    // 0.108; 400000 x 1000 0.0498 / 0.0515, 0.0449, 0.0481; 2^20 x 2048 0.369 / 0.328, 0.301, 0.310, 0.339; 131072 x
    // 2048 0.0521 / 0.064, 0.0545, 0.0545, 0.0508; 32768 x 2048 0.0239 / 0.034, 0.0286, 0.0264, 0.0239; 65536 x 4096
    // 0.112 / 0.108, 0.089, 0.089, 0.083; 262144 x 4096 0.346 / 0.310, 0.264, 0.268, 0.265.
    // (float 2^20 x 4096, in float: 1.12 s in panels of 256, 1.23 in 1024; cuSOLVER 1.53)
    // With the in-place solve kernel (kernels/qr/cholqr_trmm.hpp), whose panels of up to 512 columns take, 256 wins
    // from 64 rows per column: 131072 x 2048 0.0502 s against 0.0511 (512) and 0.0515 (1024); 262144 x 4096 0.245
    // against 0.262 and 0.257; 2^20 x 2048 0.266 against 0.304 and 0.335; 65536 x 4096 and 32768 x 2048 keep 1024
    // (0.0849 against 0.0889; 0.0228 against 0.0272).
    if (m >= kCholqrPanelAspect * n) return 256;
    if (n >= 2048) return 1024;
    return all;
}

int64_t qr_inner_block(int64_t nb, Mapping mapping, bool gpu) {
    if (mapping != Mapping::CpuOnly && gpu) return std::max<int64_t>(nb, 1);
    return std::max<int64_t>(1, std::min<int64_t>(nb, 32));
}

}  // namespace detail
}  // namespace starfact

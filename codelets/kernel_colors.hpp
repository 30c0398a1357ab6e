// One colour per kernel, shared by the codelets (FxT/Paje traces, hence ViTE) and by the Gantt
// SVG writer, so that both pictures read the same way.
#pragma once
#include <string>

namespace starfact::detail {

struct KernelColor {
    const char* kernel;
    unsigned rgb;  // 0xRRGGBB
};

inline constexpr KernelColor kKernelColors[] = {
    {"potrf", 0xd62728}, {"trsm", 0x1f77b4},        {"syrk", 0x2ca02c},          {"herk", 0x2ca02c},
    {"gemm", 0xff7f0e},  {"tile_update", 0x9467bd}, {"trtri", 0x8c564b},
    {"trsm_inv", 0x17becf},
    // The inverse's later phases in their own hues: trtri in browns, lauum in purples and pinks.
    {"trtri_trsm_r", 0xa0522d}, {"trtri_trsm_l", 0xc49c94}, {"trtri_gemm", 0xe6a15c},
    {"lauum", 0x6a3d9a},        {"lauum_syrk", 0xb07cc6},   {"lauum_gemm", 0xe377c2}, {"trmm", 0xf7b6d2},
    // LU.
    {"getrf_panel", 0xd62728},  {"getrf_nopiv", 0xd62728},  {"laswp", 0xbcbd22},      {"trsm_col", 0x1f77b4},
    // The mixed-precision solve's refinement: conversions in greys-blues, residual and sweeps in greens.
    {"to_low", 0x9edae5},       {"add_low", 0x6baed6},      {"residual", 0x31a354},   {"sweep_fwd", 0x74c476},
    {"sweep_bwd", 0xa1d99b},    {"col_scale", 0xc6dbef},    {"krylov_combine", 0x238b45}, {"krylov_dot", 0x005a32},
    {"krylov_scale", 0x41ab5d},
    // The mixed-precision gesv's equilibration (power-of-two row and column scales) in light blues.
    {"row_max", 0xdeebf7},      {"col_max", 0xc6dbef},      {"inverse_pow2", 0x9ecae1},
    // The tile QR: factorizations in reds, their applications in blues and oranges.
    {"geqrt", 0xd62728},        {"tsqrt", 0xe7969c},        {"ttqrt", 0xad494a},      {"unmqr", 0x1f77b4},
    {"tsmqr", 0xff7f0e},        {"ttmqr", 0xfdae6b},        {"qr_trsm", 0x6baed6},
    // The Cholesky QR: Gram matrices in greens, their reduction and the small steps in reds, solves in blues.
    {"cholqr_gram", 0x2ca02c},  {"cholqr_solve_gram", 0x98df8a}, {"cholqr_add", 0xbcbd22},
    {"cholqr_potrf", 0xd62728}, {"cholqr_householder", 0xad494a}, {"cholqr_solve", 0x1f77b4},
    {"cholqr_store", 0x8c564b}, {"cholqr_ytc", 0x31a354},    {"cholqr_tmul", 0xe7969c},
    {"cholqr_update", 0xff7f0e},
    // The log-determinant's pass over the diagonal tiles of a factor.
    {"logdet", 0x17becf},
};

/// Colour of a kernel (the task name up to '('); 0x7f7f7f for unknown ones.
inline unsigned kernel_color(const std::string& kernel) {
    for (const auto& k : kKernelColors)
        if (kernel == k.kernel) return k.rgb;
    return 0x7f7f7f;
}

}  // namespace starfact::detail

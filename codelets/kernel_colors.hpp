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
    {"potrf", 0xd62728}, {"trsm", 0x1f77b4},        {"syrk", 0x2ca02c},
    {"gemm", 0xff7f0e},  {"tile_update", 0x9467bd}, {"trtri", 0x8c564b},
    {"trsm_inv", 0x17becf},
};

/// Colour of a kernel (the task name up to '('); 0x7f7f7f for unknown ones.
inline unsigned kernel_color(const std::string& kernel) {
    for (const auto& k : kKernelColors)
        if (kernel == k.kernel) return k.rgb;
    return 0x7f7f7f;
}

}  // namespace starfact::detail

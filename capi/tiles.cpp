// Output arguments of the C ABI's operations.
#include "capi/tiles.hpp"

namespace starfact::capi {

Output output_like(const char* function, const char* argument, const starfact_c_matrix* out,
                   const starfact_c_matrix& in, const char* in_name, const Runtime& rt) {
    Output o;
    if (!check_matrix(function, argument, out, &rt, true)) return o;
    require_shape(function, argument, *out, in.rows, in.cols);
    require_same_dtype(function, argument, out->dtype, in.dtype, in_name);
    o.matrix = *out;
    o.present = true;
    return o;
}

void settle(const Output& a, const Output& b) {
    if (a.on_device() || b.on_device()) settle_device_copies();
}

}  // namespace starfact::capi

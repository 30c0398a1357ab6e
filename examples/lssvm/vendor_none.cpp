// Builds without CUDA: no vendor pipeline.
#include <stdexcept>

#include "lssvm.hpp"

namespace lssvm {
bool have_vendor_pipeline() { return false; }
template <typename T>
Result vendor_pipeline(const Dataset&, const Dataset&, const Hyper&) {
    throw std::runtime_error("the vendor pipeline needs a CUDA build of starfact");
}
template Result vendor_pipeline<float>(const Dataset&, const Dataset&, const Hyper&);
template Result vendor_pipeline<double>(const Dataset&, const Dataset&, const Hyper&);
}  // namespace lssvm

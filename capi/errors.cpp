// The thread-local error state of the C ABI and its getters.
#include "capi/errors.hpp"

#include <utility>

namespace starfact::capi {
namespace {

struct ErrorState {
    int kind = STARFACT_C_OK;
    std::string message;
    std::string argument;
    std::string returned;  // the last string handed out by thread_string()
};

ErrorState& state() noexcept {
    thread_local ErrorState s;
    return s;
}

}  // namespace

void set_error(int kind, const char* message, const std::string& argument) noexcept {
    ErrorState& s = state();
    s.kind = kind;
    try {
        s.message = message ? message : "";
        s.argument = argument;
    } catch (...) {  // no memory for the message: keep the kind
        s.message.clear();
        s.argument.clear();
    }
}

const char* thread_string(std::string text) noexcept {
    ErrorState& s = state();
    s.returned = std::move(text);
    return s.returned.c_str();
}

}  // namespace starfact::capi

extern "C" {

const char* starfact_c_error_message(void) { return starfact::capi::state().message.c_str(); }
const char* starfact_c_error_argument(void) { return starfact::capi::state().argument.c_str(); }
int starfact_c_error_kind(void) { return starfact::capi::state().kind; }

}  // extern "C"

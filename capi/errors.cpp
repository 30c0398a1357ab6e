// The thread-local error state of the C ABI and its getters; errors of the C++ API in the C ABI's terms.
#include "capi/errors.hpp"

#include <string>
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

InvalidArgument in_c_terms(const char* function, const CName* first, const CName* last, const InvalidArgument& e) {
    const std::string& cxx = e.argument();
    std::string c = cxx;
    bool named = false;
    for (const CName* n = first; n != last && !named; ++n)
        if (cxx == n->cxx) {
            c = n->c;
            named = true;
        }
    for (const char* prefix : {"opts.", "refine."})
        if (!named && cxx.rfind(prefix, 0) == 0) c = cxx.substr(std::char_traits<char>::length(prefix));
    // The message is InvalidArgument's "starfact::<function>: argument '<argument>' <problem>".
    const std::string what = e.what(), marker = "argument '" + cxx + "' ";
    const size_t at = what.find(marker);
    return InvalidArgument(function, c, at == std::string::npos ? what : what.substr(at + marker.size()));
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

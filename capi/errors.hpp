// The C ABI's error state: every entry point runs its body through guarded(), which turns an exception into a
// status and keeps its message and argument name in thread-local storage (starfact_c_error_*()).
#pragma once
#include <initializer_list>
#include <iterator>
#include <new>
#include <stdexcept>
#include <string>

#include "capi/starfact_c.h"
#include "starfact/error.hpp"

namespace starfact::capi {

/// A feature this build lacks (CUDA, a batched module): STARFACT_C_NOT_BUILT, naming the argument that asked for it.
class NotBuilt : public std::runtime_error {
public:
    NotBuilt(const std::string& argument, const std::string& message)
        : std::runtime_error(message), argument_(argument) {}
    const std::string& argument() const noexcept { return argument_; }

private:
    std::string argument_;
};

/// Records a failure of the calling thread's current call.
void set_error(int kind, const char* message, const std::string& argument = {}) noexcept;

/// A string returned to the caller through a const char** (describe, scheduler): kept per thread until the
/// thread's next such call.
const char* thread_string(std::string text) noexcept;

/// An argument name of the C++ API and the name of the C ABI's argument it stands for in one call.
struct CName {
    const char* cxx;
    const char* c;
};

/// `e`, an error of the C++ API met by the C ABI's `function`, as that function's: the argument named as the C ABI
/// spells it (the entries [first, last) of a table; the fields of the C++ options and refinement settings,
/// opts.chunk or refine.tolerance, are the C structs' fields, chunk or tolerance), the message rebuilt around it.
InvalidArgument in_c_terms(const char* function, const CName* first, const CName* last, const InvalidArgument& e);

/// Runs `body`, calls of the C++ API on behalf of the C ABI's `function`; an InvalidArgument it throws is thrown
/// again in the C ABI's terms (in_c_terms with the table `names`), so that no C++ argument name reaches a C caller.
template <typename Names, typename Body>
void as_c_call(const char* function, const Names& names, Body&& body) {
    try {
        body();
    } catch (const InvalidArgument& e) {
        throw in_c_terms(function, std::data(names), std::data(names) + std::size(names), e);
    }
}
template <typename Body>
void as_c_call(const char* function, std::initializer_list<CName> names, Body&& body) {
    try {
        body();
    } catch (const InvalidArgument& e) {
        throw in_c_terms(function, names.begin(), names.end(), e);
    }
}

/// Runs `body` and returns STARFACT_C_OK, or the status of the exception it threw (its message recorded).
template <typename Body>
int guarded(Body&& body) noexcept {
    try {
        body();
        return STARFACT_C_OK;
    } catch (const InvalidArgument& e) {
        set_error(STARFACT_C_INVALID_ARGUMENT, e.what(), e.argument());
        return STARFACT_C_INVALID_ARGUMENT;
    } catch (const NotBuilt& e) {
        set_error(STARFACT_C_NOT_BUILT, e.what(), e.argument());
        return STARFACT_C_NOT_BUILT;
    } catch (const std::bad_alloc&) {
        set_error(STARFACT_C_OUT_OF_MEMORY, "starfact: out of memory (an allocation failed)");
        return STARFACT_C_OUT_OF_MEMORY;
    } catch (const RuntimeError& e) {
        set_error(STARFACT_C_RUNTIME_ERROR, e.what());
        return STARFACT_C_RUNTIME_ERROR;
    } catch (const std::exception& e) {
        set_error(STARFACT_C_INTERNAL_ERROR, e.what());
        return STARFACT_C_INTERNAL_ERROR;
    } catch (...) {
        set_error(STARFACT_C_INTERNAL_ERROR, "starfact: unknown error");
        return STARFACT_C_INTERNAL_ERROR;
    }
}

}  // namespace starfact::capi

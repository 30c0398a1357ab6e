// Exceptions thrown by starfact. Numerical failures (non-SPD, singular) are never exceptions:
// they come back as LAPACK-style `info` values.
#pragma once
#include <stdexcept>
#include <string>
#include <type_traits>

namespace starfact {

namespace detail {
/// Keeps the message of the last starfact exception created on this thread: a Runtime that an exception destroys
/// on one MPI rank prints it before it aborts the job (docs/mpi.md).
void note_error(const char* message) noexcept;
}  // namespace detail

/// A bad argument: the message names the function and the argument, e.g.
/// "starfact::potrf: argument 'nb' must be > 0 (got 0)".
class InvalidArgument : public std::invalid_argument {
public:
    InvalidArgument(const std::string& function, const std::string& argument, const std::string& problem)
        : std::invalid_argument("starfact::" + function + ": argument '" + argument + "' " + problem),
          argument_(argument) {
        detail::note_error(what());
    }
    /// Name of the offending argument.
    const std::string& argument() const noexcept { return argument_; }

private:
    std::string argument_;
};

/// A failure of the runtime (StarPU, CUDA, cuBLAS, cuSOLVER) or of the environment.
class RuntimeError : public std::runtime_error {
public:
    explicit RuntimeError(const std::string& message) : std::runtime_error(message) { detail::note_error(what()); }
    explicit RuntimeError(const char* message) : std::runtime_error(message) { detail::note_error(what()); }
};

/// Throws InvalidArgument(function, argument, problem) unless `ok`.
inline void require(bool ok, const char* function, const char* argument, const std::string& problem) {
    if (!ok) throw InvalidArgument(function, argument, problem);
}
/// The same with the message built only on failure (problem() returns it): for checks on hot paths
/// such as the batched device API, whose calls on tiny batches take a few microseconds in all.
template <typename Problem, typename = std::enable_if_t<std::is_invocable_r_v<std::string, Problem>>>
void require(bool ok, const char* function, const char* argument, Problem&& problem) {
    if (!ok) throw InvalidArgument(function, argument, problem());
}

}  // namespace starfact

"""The exceptions starfact raises.

- Bad arguments: ``TypeError`` (a wrong type or dtype) or ``ValueError`` (a wrong shape, layout or value), the
  message naming the argument; those the C++ library finds are :class:`ArgumentError`, a ``ValueError`` whose
  ``argument`` attribute holds the name. Every message uses the Python names of functions and arguments.
- Numerical failures: :class:`LinAlgError`, a ``numpy.linalg.LinAlgError`` carrying LAPACK's ``info``.
- Failures of StarPU, CUDA or the memory: :class:`StarfactRuntimeError` (a ``RuntimeError``) or ``MemoryError``.
- Parts this build lacks (CUDA, a batched module): :class:`NotBuiltError` (a ``NotImplementedError``).
"""
import numpy


class LinAlgError(numpy.linalg.LinAlgError):
    """A numerical failure, as LAPACK reports it.

    Attributes:
        info: LAPACK's info (k > 0: for a Cholesky factorization, the leading minor of order k is not positive
            definite; for an LU, U[k-1, k-1] is exactly zero). For a batched call, the first failing member's.
        infos: batched calls only, the ``info`` of every member (a NumPy int32 array), else None.
    """

    def __init__(self, message, info, infos=None):
        super().__init__(message)
        self.info = int(info)
        self.infos = infos


class ArgumentError(ValueError):
    """A bad argument found by the C++ library; ``argument`` names it."""

    def __init__(self, message, argument=""):
        super().__init__(message)
        self.argument = argument


class NotBuiltError(NotImplementedError):
    """This build of starfact lacks what the call needs (CUDA for device arrays, a batched module)."""

    def __init__(self, message, argument=""):
        super().__init__(message)
        self.argument = argument


class StarfactRuntimeError(RuntimeError):
    """StarPU, CUDA, cuBLAS or cuSOLVER failed, a matrix did not fit in memory, or a Runtime was misused."""


def argument_type_error(argument, expected, got):
    """A TypeError naming the argument."""
    return TypeError("argument '%s' must be %s (got %s)" % (argument, expected, got))


def argument_value_error(argument, problem):
    """A ValueError naming the argument."""
    return ValueError("argument '%s' %s" % (argument, problem))

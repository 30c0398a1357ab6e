"""Scalar arguments: counts, sizes, tolerances and flags, as Python or NumPy scalars, checked and converted to what
the C ABI's fields hold (a value they cannot hold is refused, never truncated)."""
import numbers
import operator

import numpy

from .errors import argument_type_error, argument_value_error

INT32_MAX = (1 << 31) - 1
INT64_MAX = (1 << 63) - 1


def _is_bool(value):
    return isinstance(value, (bool, numpy.bool_))


def integer(name, value, low=-INT32_MAX - 1, high=INT32_MAX, rule=None, expected="an int"):
    """An int argument: a Python or NumPy integer (anything operator.index takes, bool excepted), as an int in
    [low, high]; TypeError or ValueError naming it otherwise (`rule`: how the lower bound reads in the message,
    `expected`: what the TypeError asks for)."""
    if _is_bool(value):
        raise argument_type_error(name, expected, type(value).__name__)
    try:
        value = operator.index(value)
    except TypeError:
        raise argument_type_error(name, expected, type(value).__name__) from None
    if value < low:
        raise argument_value_error(name, "must be %s (got %d)" % (rule or ">= %d" % low, value))
    if value > high:
        raise argument_value_error(name, "must be <= %d (got %d)" % (high, value))
    return value


def real(name, value):
    """A float argument: a Python or NumPy real number (numbers.Real, bool excepted), as a float; TypeError naming
    it otherwise."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise argument_type_error(name, "a float", type(value).__name__)
    return float(value)


def flag(name, value):
    """A flag argument: a bool, numpy.bool_ or an integer (Python or NumPy), as a bool; TypeError naming it
    otherwise."""
    if not _is_bool(value) and not isinstance(value, numbers.Integral):
        raise argument_type_error(name, "a bool", type(value).__name__)
    return bool(value)

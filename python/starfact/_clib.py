"""The C ABI (capi/starfact_c.h) through ctypes: the library, its structs, and its errors as Python exceptions.

ctypes releases the GIL for the duration of every foreign call, so StarPU works while other Python threads run.
"""
import ctypes
import os
import re
from ctypes import POINTER, Structure, byref, c_char, c_char_p, c_double, c_int, c_int32, c_int64, c_void_p

from . import errors

ABI_VERSION = 6
LIBRARY_NAME = "libstarfact_c.so"

HOST = -1
FLOAT32 = 0
FLOAT64 = 1
COMPLEX64 = 2
COMPLEX128 = 3

OK, INVALID_ARGUMENT, RUNTIME_ERROR, OUT_OF_MEMORY, NOT_BUILT, INTERNAL_ERROR = range(6)


class Matrix(Structure):
    """starfact_c_matrix: a column-major rows x cols matrix, element (i, j) at data[i + j * ld]."""
    _fields_ = [("data", c_void_p), ("rows", c_int64), ("cols", c_int64), ("ld", c_int64),
                ("dtype", c_int32), ("device", c_int32)]


class Batch(Structure):
    """starfact_c_batch: `count` column-major matrices, member k at data + k * stride elements."""
    _fields_ = [("data", c_void_p), ("rows", c_int64), ("cols", c_int64), ("ld", c_int64),
                ("stride", c_int64), ("count", c_int64), ("dtype", c_int32), ("device", c_int32)]


class Options(Structure):
    """starfact_c_options: NULL strings and zeros take the C++ defaults."""
    _fields_ = [("mapping", c_char_p), ("variant", c_char_p), ("panel", c_char_p), ("diag", c_char_p),
                ("factor", c_char_p), ("residency", c_char_p), ("nb", c_int64), ("chunk", c_int64),
                ("tree", c_char_p), ("ib", c_int64)]


class Refinement(Structure):
    """starfact_c_refinement: the stopping rules of the mixed-precision solve."""
    _fields_ = [("max_iterations", c_int32), ("gmres_iterations", c_int32), ("gmres_restart", c_int32),
                ("fallback", c_int32), ("stall_ratio", c_double), ("tolerance", c_double), ("shift", c_double),
                ("shift_retries", c_int32), ("always_low", c_int32), ("time_budget", c_double),
                ("time_floor", c_double), ("tile_tolerance", c_double)]


class SolveReport(Structure):
    """starfact_c_solve_report: what a mixed-precision solve did."""
    _fields_ = [("path", c_char * 16), ("factor", c_char * 16), ("iterations", c_int32),
                ("gmres_iterations", c_int32), ("low_info", c_int32), ("skipped_tasks", c_int32),
                ("backward_error", c_double), ("tolerance", c_double), ("seconds", c_double),
                ("factor_seconds", c_double), ("factorizations", c_int32), ("reserved2", c_int32),
                ("shift", c_double), ("reason", c_char * 256), ("low_tiles", c_int64),
                ("off_diagonal_tiles", c_int64)]


class QRInfo(Structure):
    """starfact_c_qr_info: what a QR's factors are."""
    _fields_ = [("rows", c_int64), ("cols", c_int64), ("nb", c_int64), ("ib", c_int64), ("domain_rows", c_int64),
                ("dtype", c_int32), ("ready", c_int32), ("tree", c_char * 32)]


LEFT, RIGHT = 0, 1
NOTRANS, TRANS, CONJTRANS = 0, 1, 2


class RuntimeConfig(Structure):
    """starfact_c_runtime_config."""
    _fields_ = [("ncpus", c_int32), ("ncuda", c_int32), ("workers_per_gpu", c_int32), ("calibrate", c_int32),
                ("profiling", c_int32), ("warm_up", c_int32), ("cuda_memory_limit_mb", c_int64),
                ("scheduler", c_char_p), ("perfmodel_dir", c_char_p)]


class Machine(Structure):
    """starfact_c_machine: the workers a plan is made for."""
    _fields_ = [("cpu_workers", c_int32), ("cuda_workers", c_int32), ("cuda_devices", c_int32)]


class RuntimeInfo(Structure):
    """starfact_c_runtime_info."""
    _fields_ = [("cpu_workers", c_int32), ("cuda_workers", c_int32), ("cuda_devices", c_int32),
                ("reserved", c_int32)]


def _candidates():
    """Where libstarfact_c.so may be, in order: $STARFACT_C_LIBRARY; next to this file (the build tree); where
    _location.py (written by cmake --install) says; the dynamic loader's search path."""
    env = os.environ.get("STARFACT_C_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [os.path.join(here, LIBRARY_NAME)]
    try:
        from . import _location  # pylint: disable=import-outside-toplevel
        paths.append(os.path.normpath(os.path.join(here, _location.LIBRARY)))
    except ImportError:
        pass
    paths.append(LIBRARY_NAME)
    return paths


def _load():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path + " (no such file)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("starfact: cannot load %s; tried: %s. Build the package (cmake --build), or set "
                      "STARFACT_C_LIBRARY to the library's path." % (LIBRARY_NAME, "; ".join(tried)))


lib = _load()

_P = POINTER
_SIGNATURES = {
    "starfact_c_error_message": (c_char_p, []),
    "starfact_c_error_argument": (c_char_p, []),
    "starfact_c_error_kind": (c_int, []),
    "starfact_c_abi_version": (c_int, []),
    "starfact_c_version": (c_char_p, []),
    "starfact_c_built_with_cuda": (c_int, []),
    "starfact_c_cuda_device_count": (c_int, []),
    "starfact_c_has_batched": (c_int, [c_int]),
    "starfact_c_runtime_config_init": (None, [_P(RuntimeConfig)]),
    "starfact_c_runtime_create": (c_int, [_P(RuntimeConfig), _P(c_void_p)]),
    "starfact_c_runtime_destroy": (c_int, [c_void_p]),
    "starfact_c_runtime_info_get": (c_int, [c_void_p, _P(RuntimeInfo)]),
    "starfact_c_runtime_pause": (c_int, [c_void_p]),
    "starfact_c_runtime_resume": (c_int, [c_void_p]),
    "starfact_c_runtime_describe": (c_int, [c_void_p, _P(c_char_p)]),
    "starfact_c_runtime_scheduler": (c_int, [c_void_p, _P(c_char_p)]),
    "starfact_c_options_init": (None, [_P(Options)]),
    "starfact_c_refinement_init": (None, [_P(Refinement)]),
    "starfact_c_job_wait": (c_int, [c_void_p, _P(c_int32)]),
    "starfact_c_job_done": (c_int, [c_void_p, _P(c_int32)]),
    "starfact_c_job_report": (c_int, [c_void_p, _P(SolveReport)]),
    "starfact_c_job_destroy": (None, [c_void_p]),
    "starfact_c_plan": (c_int, [c_void_p, _P(Machine), c_char_p, _P(Matrix), _P(Matrix), _P(Options),
                                _P(Refinement), c_void_p, ctypes.c_size_t]),
    "starfact_c_potrf_submit": (c_int, [c_void_p, _P(Matrix), _P(Matrix), _P(Options), _P(c_void_p)]),
    "starfact_c_potrs_submit": (c_int, [c_void_p, _P(Matrix), _P(Matrix), _P(Matrix), _P(Options), _P(c_void_p)]),
    "starfact_c_posv_submit": (c_int, [c_void_p, _P(Matrix), _P(Matrix), _P(Matrix), _P(Matrix), _P(Options),
                                       _P(Refinement), _P(c_void_p)]),
    "starfact_c_potri_submit": (c_int, [c_void_p, _P(Matrix), _P(Matrix), _P(Options), _P(c_void_p)]),
    "starfact_c_logdet_submit": (c_int, [c_void_p, _P(Matrix), _P(Options), _P(c_double), _P(c_double),
                                         _P(c_void_p)]),
    "starfact_c_potrf_logdet_submit": (c_int, [c_void_p, _P(Matrix), _P(Matrix), _P(Options), _P(c_double),
                                               _P(c_double), _P(c_void_p)]),
    "starfact_c_getrf_submit": (c_int, [c_void_p, _P(Matrix), _P(Matrix), c_void_p, _P(Options), _P(c_void_p)]),
    "starfact_c_getrs_submit": (c_int, [c_void_p, _P(Matrix), c_void_p, _P(Matrix), _P(Matrix), _P(Options),
                                        _P(c_void_p)]),
    "starfact_c_gesv_submit": (c_int, [c_void_p, _P(Matrix), _P(Matrix), c_void_p, _P(Matrix), _P(Matrix),
                                       _P(Options), _P(c_void_p)]),
    "starfact_c_geqrf_submit": (c_int, [c_void_p, _P(Matrix), _P(Matrix), _P(Options), _P(c_void_p), _P(c_void_p)]),
    "starfact_c_ormqr_submit": (c_int, [c_void_p, c_int32, c_int32, _P(Matrix), c_void_p, _P(Matrix), _P(Matrix),
                                        _P(Options), _P(c_void_p)]),
    "starfact_c_orgqr_submit": (c_int, [c_void_p, _P(Matrix), c_void_p, _P(Matrix), _P(Options), _P(c_void_p)]),
    "starfact_c_gels_submit": (c_int, [c_void_p, _P(Matrix), _P(Matrix), _P(Matrix), _P(Matrix), _P(Options),
                                       _P(c_void_p)]),
    "starfact_c_qr_factors_info": (c_int, [c_void_p, _P(QRInfo)]),
    "starfact_c_qr_factors_breakdown": (c_int, [c_void_p, _P(c_int32), _P(ctypes.c_char_p)]),
    "starfact_c_qr_factors_fallback": (c_int, [c_void_p, _P(c_int32), _P(ctypes.c_char_p)]),
    "starfact_c_qr_factors_destroy": (None, [c_void_p]),
    "starfact_c_batched_posv": (c_int, [c_void_p, _P(Batch), _P(Batch), c_void_p, _P(Options), _P(c_int64)]),
    "starfact_c_batched_gesv": (c_int, [c_void_p, _P(Batch), c_void_p, c_int64, _P(Batch), c_void_p, _P(Options),
                                        _P(c_int64)]),
    "starfact_c_batched_getrs": (c_int, [c_void_p, _P(Batch), c_void_p, c_int64, _P(Batch), _P(Options)]),
    "starfact_c_cuda_stream_synchronize": (c_int, [ctypes.c_size_t, c_int32]),
    "starfact_c_cuda_pointer_device": (c_int, [ctypes.c_size_t, _P(c_int32)]),
    "starfact_c_copy_counters": (None, [_P(ctypes.c_int64), _P(ctypes.c_int64)]),
}
for _name, (_restype, _argtypes) in _SIGNATURES.items():
    _f = getattr(lib, _name)
    _f.restype = _restype
    _f.argtypes = _argtypes

if lib.starfact_c_abi_version() != ABI_VERSION:
    raise ImportError("starfact: %s has C ABI version %d, this package expects %d: rebuild the package"
                      % (LIBRARY_NAME, lib.starfact_c_abi_version(), ABI_VERSION))

VERSION = lib.starfact_c_version().decode()

# The C ABI's argument names (starfact_c.h; some of the C++ API's, which the C ABI does not rename, too) and the
# Python spelling of each: the one table the package's error messages are translated by.
_ARGUMENT_NAMES = {
    "A": "a", "B": "b", "L": "c", "LU": "lu", "lda": "a", "ldb": "b", "T": "factors",
    "a_out": "a", "b_out": "b", "c_out": "c", "l": "c", "qr": "factors", "ipiv": "piv", "stride_piv": "piv",
    "refine.max_iterations": "max_iterations", "refine.gmres_iterations": "gmres_iterations",
    "refine.gmres_restart": "gmres_restart", "refine.stall_ratio": "stall_ratio",
    "refine.tolerance": "tolerance", "refine.shift": "shift", "refine.shift_retries": "shift_retries",
    "refine.time_budget": "time_budget", "refine.time_floor": "time_floor",
    "refine.tile_tolerance": "tile_tolerance",
}
# The C ABI's function names that are not the Python function's.
_FUNCTION_NAMES = {"batched_posv": "posv_batched", "batched_gesv": "gesv_batched", "batched_getrs": "getrs_batched",
                   "logdet": "cho_logdet", "potrf_logdet": "slogdet"}
# A message of the C ABI naming an argument: "starfact::<function>: argument '<argument>' <problem>".
_ARGUMENT_MESSAGE = re.compile(r"starfact::([\w:]+): argument '([^']*)' (.*)", re.S)


def python_argument(name):
    """The Python name of a C or C++ argument name."""
    return _ARGUMENT_NAMES.get(name, name)


def python_message(message, function=None):
    """The C ABI's message naming an argument, in Python's terms: "starfact.<function>: argument '<name>' <problem>"
    with the Python names (`function`: the Python function's, when the caller knows it); other messages as they are."""
    m = _ARGUMENT_MESSAGE.match(message)
    if not m:
        return message
    c_function, argument, problem = m.groups()
    c_function = c_function.rsplit("::", 1)[-1]  # a C++ function's (async::posv): its name
    name = function or _FUNCTION_NAMES.get(c_function, c_function)
    return "starfact.%s: argument '%s' %s" % (name, python_argument(argument), problem)


def raise_error(status, function=None):
    """Raises the exception for the non-zero status of the call that just failed on this thread, its message and
    argument in Python's names (`function`: the Python function that called, if not the C ABI's namesake)."""
    message = (lib.starfact_c_error_message() or b"").decode(errors="replace")
    argument = python_argument((lib.starfact_c_error_argument() or b"").decode(errors="replace"))
    if status in (INVALID_ARGUMENT, NOT_BUILT):
        message = python_message(message, function)
    if status == INVALID_ARGUMENT:
        raise errors.ArgumentError(message, argument)
    if status == NOT_BUILT:
        raise errors.NotBuiltError(message, argument)
    if status == OUT_OF_MEMORY:
        raise MemoryError(message)
    raise errors.StarfactRuntimeError(message)


def check(status, function=None):
    """Raises the error of a failed call (status != 0); `function`: the Python function that called (raise_error)."""
    if status != OK:
        raise_error(status, function)


def text(value):
    """A str option as the C ABI takes it (bytes, or None for the default)."""
    if value is None:
        return None
    return str(value).encode()


__all__ = ["lib", "check", "Matrix", "Batch", "Options", "Refinement", "SolveReport", "QRInfo", "RuntimeConfig",
           "RuntimeInfo", "HOST", "FLOAT32", "FLOAT64", "COMPLEX64", "COMPLEX128", "VERSION", "byref", "text"]


def copy_counters():
    """(copies, bytes): the copies of array contents the C ABI's operations made since the library was loaded
    (into or out of tiles, or from an input into its output; starfact_c_copy_counters). Process-wide."""
    count, nbytes = ctypes.c_int64(), ctypes.c_int64()
    lib.starfact_c_copy_counters(ctypes.byref(count), ctypes.byref(nbytes))
    return count.value, nbytes.value

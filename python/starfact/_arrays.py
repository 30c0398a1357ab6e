"""The arrays starfact takes: NumPy arrays, and any array through DLPack or the CUDA Array Interface.

:func:`view` reads an argument into a :class:`View`: its memory (pointer, shape, strides in elements, dtype,
device), whether it may be written, and the backend of its library (:mod:`starfact._backends`), which allocates
results of the caller's type. Nothing is copied here: a View describes the caller's memory.

Accepted, in this order:

- ``numpy.ndarray`` (host);
- objects with ``__dlpack__`` and ``__dlpack_device__`` (PyTorch, CuPy, JAX, NumPy 2, ...): host memory
  (kDLCPU, kDLCUDAHost) or CUDA memory (kDLCUDA, kDLCUDAManaged); the producer is asked for its data on the
  legacy default stream, which is then synchronized before starfact reads;
- objects with ``__cuda_array_interface__`` (Numba, CuPy, PyTorch): CUDA memory; the interface's stream, when
  given, is synchronized before starfact reads;
- anything else NumPy can turn into an array (lists, ...): read as ``numpy.asarray`` gives it.
"""
import numpy

from . import _backends, _clib, _dlpack
from .errors import NotBuiltError, argument_type_error, argument_value_error

_DTYPES = {numpy.dtype(numpy.float32): _clib.FLOAT32, numpy.dtype(numpy.float64): _clib.FLOAT64,
           numpy.dtype(numpy.complex64): _clib.COMPLEX64, numpy.dtype(numpy.complex128): _clib.COMPLEX128}


class View:
    """One array argument as starfact sees it.

    Attributes: obj (the caller's object), backend, data (address of element 0), shape, strides (elements; may
    be zero or negative), dtype (numpy.dtype), device (-1: host; d >= 0: CUDA device d), writable, stream (a CUDA
    stream to synchronize before reading, or None), keep (objects that keep the memory alive).
    """

    __slots__ = ("obj", "backend", "data", "shape", "strides", "dtype", "device", "writable", "stream", "keep",
                 "name")

    def __init__(self, obj, backend, data, shape, strides, dtype, device, writable, stream, keep, name):
        self.obj = obj
        self.backend = backend
        self.data = data
        self.shape = tuple(int(s) for s in shape)
        self.strides = tuple(int(s) for s in strides)
        self.dtype = dtype
        self.device = device
        self.writable = writable
        self.stream = stream
        self.keep = keep
        self.name = name

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def dtype_code(self):
        return _DTYPES[self.dtype]

    def matrix(self, transpose=False):
        """The C matrix of this 1-D or 2-D array (transpose: of its transpose) when its memory is column-major
        with a leading dimension (unit stride down the columns), else None. A 1-D array is one column."""
        if self.ndim == 1:
            rows, cols = self.shape[0], 1
            srow, scol = self.strides[0], max(1, self.shape[0])
        else:
            rows, cols = self.shape
            srow, scol = self.strides
            if transpose:
                rows, cols, srow, scol = cols, rows, scol, srow
        ld = max(1, rows) if rows * cols == 0 else column_major_ld(rows, cols, srow, scol)
        if ld is None:
            return None
        return _clib.Matrix(self.data, rows, cols, ld, self.dtype_code, self.device)

    def batch(self, transpose=False):
        """The C batch of this 2-D (members are columns) or 3-D array (transpose: of each member's transpose)
        when each member is column-major and members do not overlap, else None."""
        count = self.shape[0]
        if self.ndim == 2:
            rows, cols = self.shape[1], 1
            srow, scol = self.strides[1], max(1, self.shape[1])
        else:
            rows, cols = self.shape[1:]
            srow, scol = self.strides[1:]
            if transpose:
                rows, cols, srow, scol = cols, rows, scol, srow
        if count * rows * cols == 0:
            ld = max(1, rows)
            return _clib.Batch(self.data, rows, cols, ld, ld * cols, count, self.dtype_code, self.device)
        ld = column_major_ld(rows, cols, srow, scol)
        if ld is None:
            return None
        stride = self.strides[0] if count > 1 else ld * cols
        if count > 1 and stride < ld * cols:
            return None
        return _clib.Batch(self.data, rows, cols, ld, stride, count, self.dtype_code, self.device)

    def ready(self):
        """Synchronizes the stream the producer's writes may still be on (device memory) before starfact reads
        or writes this memory."""
        if self.device >= 0 and self.stream is not None:
            _clib.check(_clib.lib.starfact_c_cuda_stream_synchronize(self.stream, self.device))


def column_major_ld(rows, cols, srow, scol):
    """The leading dimension of a rows x cols array with element strides (srow, scol) read as column-major
    (element (i, j) at i + j * ld), or None when it is not."""
    if rows > 1 and srow != 1:
        return None
    if cols <= 1:
        return max(1, rows)
    if scol < max(1, rows):
        return None
    return scol


FLOATS = (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))
COMPLEX = (numpy.dtype(numpy.complex64), numpy.dtype(numpy.complex128))
# What the Cholesky, the LU and the QR take (cholesky.py, lu.py: potrf, potrs, posv, getrf, getrs, gesv; qr.py: qr,
# geqrf, ormqr, orgqr, gels, lstsq); every other function takes FLOATS only.
NUMBERS = FLOATS + COMPLEX


class _Interface:
    """An __array_interface__ over a View's host memory (NumPy reads it without a copy)."""

    def __init__(self, v):
        self.__array_interface__ = {"data": (v.data, not v.writable), "shape": v.shape, "typestr": v.dtype.str,
                                    "strides": tuple(s * v.dtype.itemsize for s in v.strides), "version": 3}
        self.keep = v.keep


def host_array(v):
    """A NumPy array over the host memory a View describes (it keeps the memory alive)."""
    holder = _Interface(v)
    a = numpy.asarray(holder)
    return a


def _dtype_error(dtype, name, dtypes):
    got = "dtype %s" % dtype
    if isinstance(dtype, numpy.dtype) and dtype.kind == "c" and not any(d.kind == "c" for d in dtypes):
        got += ("; complex matrices go to potrf, potrs, posv, potri, getrf, getrs, gesv and the QR (qr, geqrf, ormqr, "
                "orgqr, gels, lstsq) only, this function takes real ones")
    return argument_type_error(name, "an array of " + " or ".join(str(d) for d in dtypes), got)


def _check_dtype(dtype, name, dtypes):
    if dtype not in dtypes:
        raise _dtype_error(dtype, name, dtypes)


def _numpy_view(a, name, backend, dtypes):
    _check_dtype(a.dtype, name, dtypes)
    item = a.dtype.itemsize
    if any(s % item for s in a.strides):
        raise argument_value_error(name, "has strides %s that are not multiples of its element size %d"
                                   % (a.strides, item))
    return View(a, backend, a.ctypes.data, a.shape, [s // item for s in a.strides], a.dtype, _clib.HOST,
                bool(a.flags.writeable), None, [a], name)


_DLPACK_KINDS = {0: "i", 1: "u", 2: "f", 5: "c"}  # kDLInt, kDLUInt, kDLFloat, kDLComplex


def _dlpack_dtype(t, name, dtypes):
    kind = _DLPACK_KINDS.get(t.code)
    bits = (64, 128) if kind == "c" else (8, 16, 32, 64)
    dtype = numpy.dtype("%s%d" % (kind, t.bits // 8)) if kind and t.lanes == 1 and t.bits in bits else None
    if dtype is None:
        raise argument_type_error(name, "an array of " + " or ".join(str(d) for d in dtypes),
                                  "dtype of DLPack code %d, %d bits, %d lanes" % (t.code, t.bits, t.lanes))
    if dtype not in dtypes:
        raise _dtype_error(dtype, name, dtypes)
    return dtype


def _dlpack_view(x, name, backend, writable, dtypes):
    device_type, device_id = x.__dlpack_device__()
    device_type, device_id = int(device_type), int(device_id)
    if device_type not in (_dlpack.CPU, _dlpack.CUDA_HOST, _dlpack.CUDA, _dlpack.CUDA_MANAGED):
        raise argument_type_error(name, "in host or CUDA memory", "DLPack device type %d" % device_type)
    t = _dlpack.consume(_dlpack.export(x, device_type))
    dtype = _dlpack_dtype(t, name, dtypes)
    shape = t.shape
    if t.strides is None:  # compact row-major
        strides, step = [], 1
        for s in reversed(shape):
            strides.insert(0, step)
            step *= max(1, s)
    else:
        strides = t.strides
    on_device = device_type in (_dlpack.CUDA, _dlpack.CUDA_MANAGED)
    device = device_id if on_device else _clib.HOST
    # DLPack's stream contract: the producer ordered its writes before the legacy default stream (stream=1).
    stream = 1 if on_device else None
    writable = writable and not t.read_only
    return View(x, backend, t.data, shape, strides, dtype, device, writable, stream, [x, t.owner], name)


def _cai_view(x, name, backend, writable, dtypes):
    cai = x.__cuda_array_interface__
    if cai.get("mask") is not None:
        raise argument_value_error(name, "is a masked array (__cuda_array_interface__ mask): not supported")
    dtype = numpy.dtype(cai["typestr"])
    _check_dtype(dtype, name, dtypes)
    data, read_only = cai["data"]
    shape = tuple(cai["shape"])
    item = dtype.itemsize
    if cai.get("strides") is None:
        strides, step = [], 1
        for s in reversed(shape):
            strides.insert(0, step)
            step *= max(1, s)
    else:
        if any(s % item for s in cai["strides"]):
            raise argument_value_error(name, "has strides that are not multiples of its element size")
        strides = [s // item for s in cai["strides"]]
    if not _clib.lib.starfact_c_built_with_cuda():
        raise NotBuiltError("argument '%s' is in CUDA device memory (__cuda_array_interface__), but starfact was "
                            "built without CUDA" % name, name)
    device = _clib.HOST
    if data:
        d = _clib.ctypes.c_int32(-1)
        _clib.check(_clib.lib.starfact_c_cuda_pointer_device(data, _clib.byref(d)))
        device = d.value
    if device < 0:
        raise argument_value_error(name, "has a __cuda_array_interface__ whose pointer is not CUDA device memory")
    stream = cai.get("stream")
    if stream == 0:
        raise argument_value_error(name, "has a __cuda_array_interface__ stream of 0, which the interface forbids")
    return View(x, backend, data or 0, shape, strides, dtype, device, writable and not read_only,
                stream, [x], name)


def view(x, name, ndims, dtypes=FLOATS):
    """The View of argument `name`, which must have one of the dimension counts `ndims` and one of the `dtypes`
    (float32, float64; NUMBERS: complex64 and complex128 too); TypeError or ValueError naming the argument
    otherwise."""
    if x is None:
        raise argument_type_error(name, "an array", "None")
    backend = _backends.of(x)
    writable = backend.writable(x)
    x = backend.prepare(x)
    if isinstance(x, numpy.ndarray):
        v = _numpy_view(x, name, backend, dtypes)
    elif hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        v = _dlpack_view(x, name, backend, writable, dtypes)
    elif hasattr(x, "__cuda_array_interface__"):
        v = _cai_view(x, name, backend, writable, dtypes)
    else:
        try:
            a = numpy.asarray(x)
        except Exception as e:  # pylint: disable=broad-except
            raise argument_type_error(name, "an array", type(x).__name__) from e
        if a.dtype == object:
            raise argument_type_error(name, "an array", type(x).__name__)
        v = _numpy_view(a, name, _backends.NUMPY, dtypes)
        v.writable = False  # a conversion: writing it would not reach the caller
    if v.device >= 0 and not _clib.lib.starfact_c_built_with_cuda():
        raise NotBuiltError("argument '%s' is in CUDA device memory, but starfact was built without CUDA" % name,
                            name)
    if v.ndim not in ndims:
        raise argument_value_error(name, "must have %s dimensions (got shape %s)"
                                   % (" or ".join(str(d) for d in ndims), v.shape))
    return v


_backends.set_host_reader(lambda x: host_array(view(x, "array", (1, 2, 3), NUMBERS)))

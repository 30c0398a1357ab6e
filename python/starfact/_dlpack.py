"""Reading DLPack capsules with ctypes (the DLPack C header's structs, versions 0.x and 1.x).

A producer's ``__dlpack__`` returns a PyCapsule named ``dltensor`` (an unversioned ``DLManagedTensor``) or, when
asked with ``max_version``, ``dltensor_versioned`` (a ``DLManagedTensorVersioned``, whose flags say whether the
memory is read-only). The consumer renames the capsule ``used_dltensor`` / ``used_dltensor_versioned`` so that
the producer's capsule destructor leaves the tensor alone, and calls the tensor's deleter itself once done with
the memory: :class:`Managed` does that when it is garbage-collected.
"""
import ctypes
from ctypes import POINTER, Structure, c_int32, c_int64, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p

# DLDeviceType
CPU = 1
CUDA = 2
CUDA_HOST = 3
CUDA_MANAGED = 13
# DLDataTypeCode
FLOAT = 2
FLAG_READ_ONLY = 1


class DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32), ("dtype", DLDataType),
                ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


# The deleter runs with the GIL held (PYFUNCTYPE): producers' deleters may release Python objects.
_Deleter = ctypes.PYFUNCTYPE(None, c_void_p)


class DLManagedTensor(Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", c_void_p)]


class DLPackVersion(Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLManagedTensorVersioned(Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", c_void_p), ("deleter", c_void_p),
                ("flags", c_uint64), ("dl_tensor", DLTensor)]


_api = ctypes.pythonapi
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

# The capsule keeps a pointer to its name: these buffers live as long as the module.
_NAME = ctypes.create_string_buffer(b"dltensor")
_USED = ctypes.create_string_buffer(b"used_dltensor")
_NAME_V = ctypes.create_string_buffer(b"dltensor_versioned")
_USED_V = ctypes.create_string_buffer(b"used_dltensor_versioned")


class Managed:
    """A consumed DLPack tensor: its description, and the deleter call when this object goes."""

    def __init__(self, address, deleter):
        self._address = address
        self._deleter = deleter

    def __del__(self):
        if self._deleter:
            deleter, self._deleter = self._deleter, None
            _Deleter(deleter)(self._address)


class Tensor:
    """What a capsule describes: data pointer (byte_offset applied), shape, strides in elements (None: compact
    row-major), element code and bits, device type and id, read-only flag; `owner` keeps the memory alive."""

    def __init__(self, data, shape, strides, code, bits, lanes, device_type, device_id, read_only, owner):
        self.data = data
        self.shape = shape
        self.strides = strides
        self.code = code
        self.bits = bits
        self.lanes = lanes
        self.device_type = device_type
        self.device_id = device_id
        self.read_only = read_only
        self.owner = owner


def _describe(t, read_only, owner):
    ndim = t.ndim
    shape = tuple(t.shape[i] for i in range(ndim))
    strides = tuple(t.strides[i] for i in range(ndim)) if t.strides else None
    data = (t.data or 0) + t.byte_offset
    return Tensor(data, shape, strides, t.dtype.code, t.dtype.bits, t.dtype.lanes, t.device.device_type,
                  t.device.device_id, read_only, owner)


def consume(capsule):
    """Reads a DLPack capsule, marks it used, and returns its :class:`Tensor` (whose owner calls the deleter)."""
    if _api.PyCapsule_IsValid(capsule, _NAME_V):
        address = _api.PyCapsule_GetPointer(capsule, _NAME_V)
        managed = DLManagedTensorVersioned.from_address(address)
        if managed.version.major != 1:
            raise BufferError("DLPack version %d.%d is not supported (1.x is)"
                              % (managed.version.major, managed.version.minor))
        _api.PyCapsule_SetName(capsule, _USED_V)
        owner = Managed(address, managed.deleter)
        return _describe(managed.dl_tensor, bool(managed.flags & FLAG_READ_ONLY), owner)
    if _api.PyCapsule_IsValid(capsule, _NAME):
        address = _api.PyCapsule_GetPointer(capsule, _NAME)
        managed = DLManagedTensor.from_address(address)
        _api.PyCapsule_SetName(capsule, _USED)
        owner = Managed(address, managed.deleter)
        return _describe(managed.dl_tensor, False, owner)
    raise BufferError("__dlpack__ did not return a DLPack capsule (named dltensor or dltensor_versioned)")


def export(obj, device_type):
    """Calls obj.__dlpack__, asking for a versioned capsule first, and for CUDA memory on the legacy default
    stream (stream=1: the producer orders its pending writes before the work of that stream)."""
    kwargs = {"stream": 1} if device_type in (CUDA, CUDA_MANAGED) else {}
    try:
        return obj.__dlpack__(max_version=(1, 0), **kwargs)
    except TypeError:  # a producer of DLPack 0.x: no max_version
        return obj.__dlpack__(**kwargs)

"""Per array library: how to allocate and copy arrays of the caller's type, on the caller's device.

Every work array starfact allocates is C-ordered (row-major) in the caller's library: a C-ordered array of shape
(..., c, r) is, member by member, the column-major r x c matrix the C ABI reads and writes, and the result the
caller gets is its last two axes swapped (:meth:`Backend.swap`; a view everywhere but in JAX, whose arrays are
row-major values: there the swap is a copy). Libraries are recognized by the module of the array's type and
imported only then.
"""
import sys

import numpy



class Backend:
    """What starfact needs from an array library; this base class is NumPy's."""

    name = "numpy"

    def prepare(self, x):
        """The object to read (a torch tensor that requires grad: its detached tensor)."""
        return x

    def writable(self, x):  # pylint: disable=unused-argument
        """Whether starfact may write into x's memory in place."""
        return True

    def empty(self, like, shape, dtype):
        """An uninitialized C-ordered array of `shape` and `dtype` (numpy dtype) on like's device."""
        return numpy.empty(shape, dtype=dtype)

    def copy(self, x):
        """A C-ordered copy of x (a new array)."""
        return numpy.array(x, order="C", copy=True)

    def swapped_copy(self, x):
        """A C-ordered copy of x with its last two axes swapped (a new array)."""
        return numpy.array(numpy.swapaxes(x, -1, -2), order="C", copy=True)

    def swap(self, x):
        """x with its last two axes swapped (a view where the library has them)."""
        return numpy.swapaxes(x, -1, -2)

    def padded_copy(self, x, swapped, multiple):  # pylint: disable=unused-argument
        """A copy of the matrix x (x^T when swapped): a view of x's (x^T's) shape into a C-ordered buffer whose rows
        are rounded up to a multiple of `multiple` entries, so that the column-major matrix it is read as has
        aligned columns; None where the library has no such views."""
        return None

    def from_numpy(self, like, a):
        """The host array `a` as an array of this library on like's device."""
        return a

    def to_numpy(self, x):
        """x as a host NumPy array."""
        return numpy.asarray(x)

    def finish(self, x):
        """The result handed to the caller (a work array of this library, as it is)."""
        return x

    def symmetric(self, x, lower):
        """The symmetric matrix whose lower (or upper) triangle is x's (a new array); for a complex x the Hermitian
        one (the other triangle conjugated)."""
        mirror = numpy.tril(x, -1).T if lower else numpy.triu(x, 1).T
        if mirror.dtype.kind == "c":
            mirror = mirror.conj()
        return (numpy.tril(x) if lower else numpy.triu(x)) + mirror

    def conj(self, x):
        """The complex conjugate of x, a new array of x's library on x's device (with its memory: no lazy view)."""
        return numpy.conj(x)

    def triu(self, x):
        """The upper triangle of the 2-D x, zeros below (a new array)."""
        return numpy.triu(x)

    def sum_squares(self, x):
        """The sums of the squared moduli of x's columns (of its entries for a 1-D x), real for a complex x."""
        return (x * x.conj()).real.sum(0)


class Torch(Backend):
    name = "torch"

    def __init__(self):
        import torch  # pylint: disable=import-outside-toplevel
        self.torch = torch
        self.dtypes = {numpy.dtype(numpy.float32): torch.float32, numpy.dtype(numpy.float64): torch.float64,
                       numpy.dtype(numpy.complex64): torch.complex64, numpy.dtype(numpy.complex128): torch.complex128,
                       numpy.dtype(numpy.int32): torch.int32, numpy.dtype(numpy.int64): torch.int64}

    def prepare(self, x):
        x = x.detach() if x.requires_grad else x
        # a lazily conjugated complex tensor (x.conj()): its values, which DLPack exports (a new tensor)
        return x.resolve_conj() if getattr(x, "is_conj", lambda: False)() else x

    def writable(self, x):
        return not x.requires_grad and not getattr(x, "is_conj", lambda: False)()

    def empty(self, like, shape, dtype):
        return self.torch.empty(shape, dtype=self.dtypes[numpy.dtype(dtype)], device=like.device)

    def copy(self, x):
        return x.clone(memory_format=self.torch.contiguous_format)

    def swapped_copy(self, x):
        return x.transpose(-1, -2).clone(memory_format=self.torch.contiguous_format)

    def swap(self, x):
        return x.transpose(-1, -2)

    def padded_copy(self, x, swapped, multiple):
        src = x.transpose(-1, -2) if swapped else x
        rows, cols = src.shape
        ld = -(-cols // multiple) * multiple
        buf = self.torch.empty((rows, ld), dtype=src.dtype, device=src.device)[:, :cols]
        buf.copy_(src)
        return buf

    def from_numpy(self, like, a):
        return self.torch.from_numpy(numpy.ascontiguousarray(a)).to(like.device)

    def to_numpy(self, x):
        return x.detach().cpu().numpy()

    def symmetric(self, x, lower):
        t = self.torch
        mirror = (t.tril(x, -1) if lower else t.triu(x, 1)).transpose(-1, -2)
        if x.is_complex():
            mirror = t.conj_physical(mirror)
        return (t.tril(x) if lower else t.triu(x)) + mirror

    def triu(self, x):
        return self.torch.triu(x)

    def conj(self, x):
        return self.torch.conj_physical(x)  # (x.conj() is a lazy view, which DLPack does not export)


class CuPy(Backend):
    name = "cupy"

    def __init__(self):
        import cupy  # pylint: disable=import-outside-toplevel
        self.cupy = cupy

    def empty(self, like, shape, dtype):
        with like.device:
            return self.cupy.empty(shape, dtype=dtype)

    def copy(self, x):
        with x.device:
            return self.cupy.array(x, order="C", copy=True)

    def swapped_copy(self, x):
        with x.device:
            return self.cupy.array(self.cupy.swapaxes(x, -1, -2), order="C", copy=True)

    def swap(self, x):
        return self.cupy.swapaxes(x, -1, -2)

    def padded_copy(self, x, swapped, multiple):
        src = self.cupy.swapaxes(x, -1, -2) if swapped else x
        rows, cols = src.shape
        ld = -(-cols // multiple) * multiple
        with x.device:
            buf = self.cupy.empty((rows, ld), dtype=src.dtype)[:, :cols]
            buf[...] = src
        return buf

    def from_numpy(self, like, a):
        with like.device:
            return self.cupy.asarray(a)

    def to_numpy(self, x):
        return self.cupy.asnumpy(x)

    def symmetric(self, x, lower):
        cp = self.cupy
        with x.device:
            mirror = cp.tril(x, -1).T if lower else cp.triu(x, 1).T
            if mirror.dtype.kind == "c":
                mirror = mirror.conj()
            return (cp.tril(x) if lower else cp.triu(x)) + mirror

    def triu(self, x):
        with x.device:
            return self.cupy.triu(x)

    def sum_squares(self, x):
        with x.device:
            return (x * x.conj()).real.sum(0)

    def conj(self, x):
        with x.device:
            return self.cupy.conj(x)


class Jax(Backend):
    """JAX arrays are immutable values: starfact never writes an array it was given (overwrite_* are ignored),
    and writes only into arrays it has just created and not yet handed out."""

    name = "jax"

    def __init__(self):
        import jax  # pylint: disable=import-outside-toplevel
        import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
        self.jax = jax
        self.jnp = jnp

    def prepare(self, x):
        return x.block_until_ready()

    def writable(self, x):
        return False

    def _device(self, like):
        return next(iter(like.devices()))

    def _on(self, y, device):
        """y on `device` (moved only where JAX put it elsewhere), computed."""
        if self._device(y) != device:
            y = self.jax.device_put(y, device)
        return y.block_until_ready()

    def _fresh(self, x):
        # a copy stays on x's device: no device_put (a dispatch of its own) unless JAX put it elsewhere
        return self._on(self.jnp.array(x, copy=True), self._device(x))

    def empty(self, like, shape, dtype):
        device = self._device(like)
        try:
            y = self.jnp.zeros(shape, dtype=dtype, device=device)
        except TypeError:  # a JAX without jnp.zeros(..., device=)
            y = self.jnp.zeros(shape, dtype=dtype)
        return self._on(y, device)

    def copy(self, x):
        return self._fresh(x)

    def swapped_copy(self, x):
        return self._fresh(self.jnp.swapaxes(x, -1, -2))

    def swap(self, x):
        return self.jnp.swapaxes(x, -1, -2)

    def from_numpy(self, like, a):
        return self.jax.device_put(self.jnp.asarray(a), self._device(like))

    def to_numpy(self, x):
        return numpy.asarray(x)

    def symmetric(self, x, lower):
        jnp = self.jnp
        mirror = jnp.swapaxes(jnp.tril(x, -1) if lower else jnp.triu(x, 1), -1, -2)
        if jnp.iscomplexobj(mirror):
            mirror = jnp.conj(mirror)
        return (jnp.tril(x) if lower else jnp.triu(x)) + mirror

    def triu(self, x):
        return self.jnp.triu(x)

    def conj(self, x):
        return self._on(self.jnp.conj(x), self._device(x))


class Numba(Backend):
    """Numba CUDA device arrays (the CUDA Array Interface): results are allocated with numba.cuda; copies of a
    layout starfact cannot read in place are not made (a ValueError names the argument)."""

    name = "numba"

    def __init__(self):
        from numba import cuda  # pylint: disable=import-outside-toplevel
        self.cuda = cuda

    def empty(self, like, shape, dtype):
        return self.cuda.device_array(shape, dtype=dtype)

    def copy(self, x):
        out = self.cuda.device_array(x.shape, dtype=x.dtype)
        out.copy_to_device(x)
        return out

    def swapped_copy(self, x):
        raise ValueError("numba device arrays: starfact makes no transposed copy; pass the other layout")

    def swap(self, x):
        if len(x.shape) != 2:
            raise ValueError("numba device arrays: starfact swaps the axes of 2-D arrays only")
        return x.T

    def from_numpy(self, like, a):
        return self.cuda.to_device(numpy.ascontiguousarray(a))

    def to_numpy(self, x):
        return x.copy_to_host()

    def symmetric(self, x, lower):
        return self.cuda.to_device(NUMPY.symmetric(x.copy_to_host(), lower))

    def triu(self, x):
        return self.cuda.to_device(numpy.triu(x.copy_to_host()))

    def sum_squares(self, x):
        return self.cuda.to_device(numpy.asarray(NUMPY.sum_squares(x.copy_to_host())))

    def conj(self, x):
        return self.cuda.to_device(numpy.conj(x.copy_to_host()))


class Foreign(Backend):
    """An array library starfact does not know: its arrays are read (DLPack, CUDA Array Interface) and, where
    the caller allows, written in place. Other results are NumPy arrays (host memory only), converted with the
    library's from_dlpack when it has one."""

    name = "foreign"

    def __init__(self, module):
        self.module = module

    def _host(self, x):
        """A NumPy array over x's host memory (read through starfact's own DLPack reader)."""
        if hasattr(x, "__cuda_array_interface__") or _device_type(x) not in (1, 3):
            raise TypeError("starfact allocates no device array of type %s.%s: pass a NumPy, PyTorch, CuPy, JAX or "
                            "Numba array, or one it may write in place (overwrite_*=True) in a layout it reads"
                            % (type(x).__module__, type(x).__name__))
        return _host_reader(x)

    def empty(self, like, shape, dtype):
        if hasattr(like, "__cuda_array_interface__") or _device_type(like) not in (1, 3):
            self._host(like)  # raises
        return numpy.empty(shape, dtype=dtype)

    def copy(self, x):
        return numpy.array(self._host(x), order="C", copy=True)

    def swapped_copy(self, x):
        return numpy.array(numpy.swapaxes(self._host(x), -1, -2), order="C", copy=True)

    def to_numpy(self, x):
        return numpy.array(self._host(x))

    def triu(self, x):
        return self.finish(numpy.triu(self._host(x) if not isinstance(x, numpy.ndarray) else x))

    def sum_squares(self, x):
        h = self._host(x) if not isinstance(x, numpy.ndarray) else x
        return self.finish(numpy.asarray(NUMPY.sum_squares(h)))

    def conj(self, x):
        return self.finish(numpy.conj(self._host(x) if not isinstance(x, numpy.ndarray) else x))

    def finish(self, x):
        from_dlpack = getattr(self.module, "from_dlpack", None)
        if from_dlpack is None or not isinstance(x, numpy.ndarray):
            return x
        try:
            return from_dlpack(x)
        except Exception:  # pylint: disable=broad-except
            return x


def _device_type(x):
    try:
        return int(x.__dlpack_device__()[0])
    except Exception:  # pylint: disable=broad-except
        return 1


NUMPY = Backend()
_known = {}
_host_reader = None


def set_host_reader(reader):
    """How Foreign reads an array's host memory as NumPy: reader(x) (set by _arrays, which reads DLPack; this module
    imports nothing of the package's array layer)."""
    global _host_reader  # pylint: disable=global-statement
    _host_reader = reader


def of(x):
    """The backend of array x (NumPy for NumPy arrays and anything else NumPy converts)."""
    if isinstance(x, numpy.ndarray):
        return NUMPY
    root = type(x).__module__.split(".", 1)[0]
    if root in _known:
        return _known[root]
    if root == "torch":
        b = Torch()
    elif root == "cupy":
        b = CuPy()
    elif root in ("jax", "jaxlib"):
        b = Jax()
    elif root == "numba":
        b = Numba()
    elif hasattr(x, "__dlpack__") or hasattr(x, "__cuda_array_interface__"):
        b = Foreign(sys.modules.get(root))
    else:
        return NUMPY
    _known[root] = b
    return b

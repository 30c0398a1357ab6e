"""Arrays other than NumPy's, on the host: PyTorch CPU tensors and plain DLPack producers (unversioned and
versioned capsules, read-only flag, deleter called once). Results come back as the caller's array type, written
in place where allowed."""
import ctypes
import gc

import numpy
import pytest

import starfact
from support import LIMIT, NB, cholesky_residual, general, inverse_residual, lu_residual, rhs, solve_residual, spd

torch = pytest.importorskip("torch")

TORCH_DTYPES = [(numpy.float32, torch.float32), (numpy.float64, torch.float64)]


@pytest.mark.parametrize("dtype,tdtype", TORCH_DTYPES)
def test_torch_every_operation(rng, dtype, tdtype):
    n = 2 * NB + 5
    a = spd(rng, n, dtype)
    g = general(rng, n, dtype)
    b = rhs(rng, n, 3, dtype)
    ta, tg, tb = torch.from_numpy(a.copy()), torch.from_numpy(g.copy()), torch.from_numpy(b.copy())
    x = starfact.posv(ta, tb, nb=NB)
    assert isinstance(x, torch.Tensor) and x.dtype == tdtype and x.shape == tb.shape
    assert solve_residual(a, x.numpy(), b, dtype) < LIMIT
    c, lower = starfact.potrf(ta, nb=NB)
    assert isinstance(c, torch.Tensor) and cholesky_residual(a, c.numpy(), lower, dtype) < LIMIT
    assert solve_residual(a, starfact.potrs((c, lower), tb, nb=NB).numpy(), b, dtype) < LIMIT
    inv = starfact.potri(ta, nb=NB)
    assert isinstance(inv, torch.Tensor) and inverse_residual(a, inv.numpy(), dtype) < LIMIT
    lu, piv = starfact.getrf(tg, nb=NB)
    assert isinstance(lu, torch.Tensor) and isinstance(piv, torch.Tensor) and piv.dtype == torch.int32
    assert lu_residual(g, lu.numpy(), piv.numpy(), dtype) < LIMIT
    assert solve_residual(g, starfact.getrs((lu, piv), tb, nb=NB).numpy(), b, dtype) < LIMIT
    assert solve_residual(g, starfact.gesv(tg, tb, nb=NB).numpy(), b, dtype) < LIMIT
    assert torch.equal(ta, torch.from_numpy(a)) and torch.equal(tb, torch.from_numpy(b))  # inputs untouched
    x, report = starfact.posv(ta.double(), tb.double(), factor="fp32", nb=NB)
    assert isinstance(x, torch.Tensor) and report.path in ("refined", "gmres")


@pytest.mark.parametrize("dtype,tdtype", TORCH_DTYPES)
def test_torch_in_place(rng, dtype, tdtype):
    """Row-major tensors with lower=False and vectors (or column-major views) for b need no copy: overwrite_*
    writes the caller's tensors."""
    n = NB + 9
    a = spd(rng, n, dtype)
    b = rhs(rng, n, None, dtype)
    ta, tb = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
    pa, pb = ta.data_ptr(), tb.data_ptr()
    x = starfact.posv(ta, tb, overwrite_a=True, overwrite_b=True, nb=NB)
    assert x is tb and x.data_ptr() == pb and ta.data_ptr() == pa
    assert solve_residual(a, x.numpy(), b, dtype) < LIMIT
    assert cholesky_residual(a, ta.numpy(), False, dtype) < LIMIT
    b2 = rhs(rng, n, 4, dtype)
    tb2 = torch.from_numpy(b2.T.copy()).t()  # column-major (n, 4)
    x = starfact.gesv(torch.from_numpy(general(rng, n, dtype)), tb2, overwrite_b=True, nb=NB)
    assert x is tb2


def test_torch_layouts_and_grad(rng):
    n = NB + 4
    a = spd(rng, 2 * n, numpy.float64)
    b = rhs(rng, 2 * n, 2, numpy.float64)
    ta = torch.from_numpy(a)
    strided = ta[::2, ::2]                            # neither axis of unit stride
    sub_a = a[::2, ::2]
    x = starfact.posv(strided, torch.from_numpy(b[::2]), nb=NB)
    assert solve_residual(sub_a, x.numpy(), b[::2], numpy.float64) < LIMIT
    x = starfact.posv(ta.t(), torch.from_numpy(b), lower=True, nb=NB)  # a column-major view
    assert solve_residual(a, x.numpy(), b, numpy.float64) < LIMIT
    tg = ta.clone().requires_grad_(True)
    tb = torch.from_numpy(b.copy()).requires_grad_(True)
    x = starfact.posv(tg, tb, overwrite_a=True, overwrite_b=True, nb=NB)
    assert x is not tb and not x.requires_grad     # read through detach(), never written
    assert torch.equal(tb.detach(), torch.from_numpy(b)) and torch.equal(tg.detach(), ta)
    with pytest.raises(TypeError) as e:
        starfact.posv(ta.long(), torch.from_numpy(b))
    assert "'a'" in str(e.value)


@pytest.mark.skipif(not starfact.build_info()["batched_cholesky"] or not starfact.build_info()["batched_lu"],
                    reason="a build without the batched modules")
def test_torch_batched(rng):
    count, n = 5, 10
    a = numpy.stack([spd(rng, n, numpy.float64) for _ in range(count)])
    b = rng.uniform(-0.5, 0.5, (count, n))
    x = starfact.posv_batched(torch.from_numpy(a), torch.from_numpy(b))
    assert isinstance(x, torch.Tensor)
    for k in range(count):
        assert solve_residual(a[k], x[k].numpy(), b[k], numpy.float64) < LIMIT
    g = numpy.stack([general(rng, n, numpy.float64) for _ in range(count)])
    lu, piv = starfact.getrf_batched(torch.from_numpy(g))
    assert isinstance(piv, torch.Tensor)
    y = starfact.getrs_batched((lu, piv), torch.from_numpy(b))
    for k in range(count):
        assert solve_residual(g[k], y[k].numpy(), b[k], numpy.float64) < LIMIT


class Unversioned:
    """A producer of unversioned capsules only (NumPy 1.x's protocol), wrapping a NumPy array."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_VERSIONED_NAME = ctypes.create_string_buffer(b"dltensor_versioned")


class Versioned:
    """A DLPack 1.0 producer written with ctypes: a DLManagedTensorVersioned over a NumPy array, optionally
    read-only; counts the calls of its deleter."""

    def __init__(self, array, read_only=False):
        from starfact import _dlpack  # pylint: disable=import-outside-toplevel
        self.array = array
        self.read_only = read_only
        self.deleted = 0
        self._d = _dlpack
        self._keep = []

    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, max_version=None, stream=None):
        assert max_version is not None and max_version[0] >= 1 and stream is None
        d = self._d
        a = self.array
        shape = (ctypes.c_int64 * a.ndim)(*a.shape)
        strides = (ctypes.c_int64 * a.ndim)(*[s // a.itemsize for s in a.strides])
        m = d.DLManagedTensorVersioned()
        m.version.major, m.version.minor = 1, 0
        m.flags = d.FLAG_READ_ONLY if self.read_only else 0
        t = m.dl_tensor
        t.data = a.ctypes.data
        t.device.device_type, t.device.device_id = 1, 0
        t.ndim = a.ndim
        t.dtype.code, t.dtype.bits, t.dtype.lanes = 2, 8 * a.itemsize, 1
        t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))

        def deleter(_address):
            self.deleted += 1

        callback = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)(deleter)
        m.deleter = ctypes.cast(callback, ctypes.c_void_p).value
        self._keep += [shape, strides, m, callback]
        return _api.PyCapsule_New(ctypes.addressof(m), _VERSIONED_NAME, None)


@pytest.mark.parametrize("producer", [Unversioned, Versioned])
def test_plain_dlpack_producers(rng, producer):
    n = NB + 2
    a = spd(rng, n, numpy.float64)
    b = rhs(rng, n, None, numpy.float64)
    pa = producer(a.copy())
    x = starfact.posv(pa, producer(b.copy()), nb=NB)
    assert isinstance(x, numpy.ndarray) and solve_residual(a, x, b, numpy.float64) < LIMIT
    pb = producer(b.copy())
    x = starfact.posv(pa, pb, overwrite_b=True, nb=NB)
    assert x is pb and solve_residual(a, pb.array, b, numpy.float64) < LIMIT
    if producer is Versioned:
        gc.collect()
        assert pa.deleted == 2 and pb.deleted == 1  # each consumed capsule deleted once


def test_read_only_flag(rng):
    n = 9
    a = spd(rng, n, numpy.float64)
    b = rhs(rng, n, None, numpy.float64)
    pb = Versioned(b.copy(), read_only=True)
    x = starfact.posv(a, pb, overwrite_b=True)
    assert x is not pb and numpy.array_equal(pb.array, b)
    assert solve_residual(a, x, b, numpy.float64) < LIMIT

"""Batched factorizations and solves of many small matrices, given as 3-D arrays (batch, n, n).

Cholesky up to order 128 (``posv_batched``, ``potrf_batched``), LU with partial pivoting up to order 32
(``gesv_batched``, ``getrf_batched``, ``getrs_batched``), in float32, float64, complex64 and complex128 (complex
Cholesky members are Hermitian positive definite: a[k] = L L^H; on GPUs, complex batches run the vendor's batched
routines, cuSOLVER's and cuBLAS's, starfact's own batched kernels being real). Host arrays are cut into chunks, one StarPU task per chunk,
run by the CPU workers (a LAPACKE loop) and the GPUs (starfact's batched kernels); CUDA device arrays run the batched
kernels directly, on the legacy default stream of their device. The LU's solve of host batches is a LAPACKE loop.

Each member is one matrix of the batch: ``a[k]`` with right-hand sides ``b[k]`` of shape (n,) (b: (batch, n)) or
(n, nrhs) (b: (batch, n, nrhs)). The library works in place on column-major members: a C-ordered batch (NumPy's
default) is read in place by the Cholesky with ``lower=False``; other layouts, and calls that must not overwrite
their inputs, work on one copy. A member that fails raises :class:`starfact.LinAlgError` whose ``infos`` holds
every member's info (``check=False`` returns them instead).
"""
import ctypes

import numpy

from . import _arrays, _clib, _ops, _runtime
from ._ops import Work
from .errors import LinAlgError, NotBuiltError, argument_value_error


def _batch(a, name="a"):
    va = _arrays.view(a, name, (3,), _arrays.NUMBERS)
    if va.shape[1] != va.shape[2]:
        raise argument_value_error(name, "must hold square matrices, shape (batch, n, n) (got %s)" % (va.shape,))
    return va


def _rhs(b, va):
    vb = _arrays.view(b, "b", (2, 3), _arrays.NUMBERS)
    _ops.same_dtype(vb, va)
    if vb.shape[0] != va.shape[0] or vb.shape[1] != va.shape[1]:
        raise argument_value_error("b", "must have shape (%d, %d) or (%d, %d, nrhs), as a (got %s)"
                                   % (va.shape[0], va.shape[1], va.shape[0], va.shape[1], vb.shape))
    return vb


def _run(name, function, runtime, works, *args):
    """Calls the C function `function` for the Python function `name` (its errors name it)."""
    rt, handle = _runtime.enter(runtime)
    try:
        for w in works:
            w.ready()
        _clib.check(function(handle, *args), name)
    finally:
        rt._leave()  # pylint: disable=protected-access


def _check(function, infos, check, result):
    if not check:
        return result, infos
    bad = numpy.nonzero(infos)[0]
    if bad.size:
        k = int(bad[0])
        raise LinAlgError("starfact.%s: %d of %d members failed; the first, member %d, with info=%d"
                          % (function, bad.size, infos.size, k, infos[k]), int(infos[k]), infos)
    return result


def _require(family, name):
    if not _clib.lib.starfact_c_has_batched(family):
        raise NotBuiltError("starfact was built without the %s module" % name)


def posv_batched(a, b, lower=False, overwrite_a=False, overwrite_b=False, *, check=True, mapping=None, chunk=None,
                 runtime=None):
    """Solves a[k] x[k] = b[k] for every member of a batch of symmetric positive definite matrices (order <= 128).

    Args:
        a: (batch, n, n) float32, float64, complex64 or complex128 array (complex: Hermitian members); the `lower`
            triangle of each member is read.
        b: (batch, n) or (batch, n, nrhs) array of a's dtype.
        lower: which triangle of each member is read.
        overwrite_a, overwrite_b: a (with the factors) and b (with x) may be overwritten.
        check: raise for failed members (default); False: return ``(x, infos)``.
        mapping: where the chunk tasks of a host batch run; chunk: members per task (None: the default).

    Returns:
        x (an array of b's type and shape), or (x, infos) when check is False.

    Raises:
        starfact.LinAlgError: a member is not positive definite (``infos``: every member's info; their x is b).
    """
    _require(0, "batched Cholesky")
    lower = _ops.check_bool("lower", lower)
    va = _batch(a)
    vb = _rhs(b, va)
    overwrite_b = _ops.check_bool("overwrite_b", overwrite_b)
    # the upper triangle of complex members is read as the lower one of a[k]^T = conj(a[k]): b goes in, and x comes
    # out, conjugated (as posv does)
    conjugated = not lower and va.dtype.kind == "c"
    if conjugated:  # a new array of b's library: the library's to write
        vb = _arrays.view(vb.backend.conj(vb.obj), "b", (2, 3), _arrays.NUMBERS)
        overwrite_b = True
    wa = Work(va, transpose=not lower, overwrite=_ops.check_bool("overwrite_a", overwrite_a), output=True,
              batch=True)
    wb = Work(vb, transpose=False, overwrite=overwrite_b, output=True, batch=True)
    opts = _ops.options(mapping=mapping, chunk=chunk)
    infos = numpy.zeros(max(1, va.shape[0]), dtype=numpy.int32)
    failed = ctypes.c_int64()
    _run("posv_batched", _clib.lib.starfact_c_batched_posv, runtime, [wa, wb], ctypes.byref(wa.src),
         ctypes.byref(wb.src), infos.ctypes.data, ctypes.byref(opts), ctypes.byref(failed))
    x = vb.backend.conj(wb.result()) if conjugated else wb.result()
    return _check("posv_batched", infos[:va.shape[0]], check, x)


def potrf_batched(a, lower=False, overwrite_a=False, *, check=True, mapping=None, chunk=None, runtime=None):
    """Cholesky factorization of every member of a batch of symmetric positive definite matrices (order <= 128).

    Returns ``(c, lower)`` as :func:`starfact.potrf` does, member by member (or ``((c, lower), infos)`` when check is
    False); the arguments are :func:`posv_batched`'s.
    """
    _require(0, "batched Cholesky")
    lower = _ops.check_bool("lower", lower)
    va = _batch(a)
    wa = Work(va, transpose=not lower, overwrite=_ops.check_bool("overwrite_a", overwrite_a), output=True,
              batch=True)
    opts = _ops.options(mapping=mapping, chunk=chunk)
    infos = numpy.zeros(max(1, va.shape[0]), dtype=numpy.int32)
    failed = ctypes.c_int64()
    _run("potrf_batched", _clib.lib.starfact_c_batched_posv, runtime, [wa], ctypes.byref(wa.src), None,
         infos.ctypes.data, ctypes.byref(opts), ctypes.byref(failed))
    return _check("potrf_batched", infos[:va.shape[0]], check, (wa.result(), lower))


def _pivot_buffer(va):
    """An int32 (batch, n) array of a's library on its device, with its pointer."""
    piv = va.backend.empty(va.obj, (va.shape[0], va.shape[1]), numpy.int32)
    pv = _arrays.view(piv, "piv", (2,), dtypes=(numpy.dtype(numpy.int32),))
    return piv, pv


def _lu(function, a, b, overwrite_a, overwrite_b, check, mapping, chunk, runtime):
    _require(1, "batched LU")
    va = _batch(a)
    vb = _rhs(b, va) if b is not None else None
    wa = Work(va, transpose=False, overwrite=_ops.check_bool("overwrite_a", overwrite_a), output=True, batch=True)
    works = [wa]
    wb = None
    if vb is not None:
        wb = Work(vb, transpose=False, overwrite=_ops.check_bool("overwrite_b", overwrite_b), output=True,
                  batch=True)
        works.append(wb)
    piv, pv = _pivot_buffer(va)
    opts = _ops.options(mapping=mapping, chunk=chunk)
    infos = numpy.zeros(max(1, va.shape[0]), dtype=numpy.int32)
    failed = ctypes.c_int64()
    _run(function, _clib.lib.starfact_c_batched_gesv, runtime, works + [pv], ctypes.byref(wa.src), pv.data,
         max(1, va.shape[1]), ctypes.byref(wb.src) if wb else None, infos.ctypes.data, ctypes.byref(opts),
         ctypes.byref(failed))
    infos = infos[:va.shape[0]]
    if wb is not None:
        return _check(function, infos, check, wb.result())
    return _check(function, infos, check, (wa.result(), piv - 1))


def gesv_batched(a, b, overwrite_a=False, overwrite_b=False, *, check=True, mapping=None, chunk=None, runtime=None):
    """Solves a[k] x[k] = b[k] for every member of a batch of general matrices (order <= 32): LU with partial
    pivoting, then the solve.

    Arguments and result as :func:`posv_batched`'s (without `lower`); a member whose U has an exactly zero
    diagonal entry fails (its x is meaningless).
    """
    return _lu("gesv_batched", a, b, overwrite_a, overwrite_b, check, mapping, chunk, runtime)


def getrf_batched(a, overwrite_a=False, *, check=True, mapping=None, chunk=None, runtime=None):
    """LU factorization with partial pivoting of every member of a batch (order <= 32).

    Returns ``(lu, piv)``, as :func:`starfact.getrf` member by member: piv, (batch, n) int32 of a's array type,
    0-based (or ``((lu, piv), infos)`` when check is False).
    """
    return _lu("getrf_batched", a, None, overwrite_a, False, check, mapping, chunk, runtime)


def getrs_batched(lu_and_piv, b, overwrite_b=False, *, runtime=None):
    """Solves a[k] x[k] = b[k] with the factors of :func:`getrf_batched` (``lu_and_piv``: its (lu, piv))."""
    _require(1, "batched LU")
    if not isinstance(lu_and_piv, tuple) or len(lu_and_piv) != 2:
        raise TypeError("argument 'lu_and_piv' must be the (lu, piv) pair getrf_batched returns (got %s)"
                        % type(lu_and_piv).__name__)
    lu, piv = lu_and_piv
    vl = _batch(lu, "lu")
    vb = _rhs(b, vl)
    count, n = vl.shape[0], vl.shape[1]
    host = numpy.asarray(vl.backend.to_numpy(piv) if not isinstance(piv, numpy.ndarray) else piv)
    if host.shape != (count, n):
        raise argument_value_error("piv", "must have shape (%d, %d) (got %s)" % (count, n, host.shape))
    if host.size and host.dtype.kind not in "iu":
        raise TypeError("argument 'piv' must hold integers (got dtype %s)" % host.dtype)
    if host.size and ((host < numpy.arange(n)) | (host >= n)).any():
        raise argument_value_error("piv", "must hold pivots with piv[k, i] in [i, n-1], as getrf_batched gives them")
    one_based = numpy.ascontiguousarray(host + 1, dtype=numpy.int32)
    if vl.device >= 0:
        one_based = vl.backend.from_numpy(vl.obj, one_based)
    pv = _arrays.view(one_based, "piv", (2,), dtypes=(numpy.dtype(numpy.int32),))
    wl = Work(vl, transpose=False, overwrite=False, output=False, batch=True)
    wb = Work(vb, transpose=False, overwrite=_ops.check_bool("overwrite_b", overwrite_b), output=True, batch=True)
    _run("getrs_batched", _clib.lib.starfact_c_batched_getrs, runtime, [wl, wb, pv], ctypes.byref(wl.src),
         pv.data, max(1, n), ctypes.byref(wb.src), None)
    return wb.result()

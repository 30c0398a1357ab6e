"""LU factorization with partial pivoting and solve of general square matrices, in SciPy's spirit.

``getrf(a)`` returns ``(lu, piv)`` as ``scipy.linalg.lu_factor`` does (piv 0-based: row i was interchanged with row
piv[i]), ``getrs((lu, piv), b)`` solves with it as ``scipy.linalg.lu_solve``, ``gesv(a, b)`` factors and solves in
one task graph (``scipy.linalg.solve``). Each has an ``_async`` form returning a :class:`starfact.Job`.

The library computes on column-major arrays: Fortran-ordered arrays are read and written in place, C-ordered ones
(NumPy's and PyTorch's default) cost one copy of a, as with SciPy's LAPACK wrappers.

float32, float64, complex64 and complex128 matrices; complex ones with LAPACK's pivots (the entry of largest
|re| + |im|, as SciPy's lu_factor chooses them), on CPU and CUDA workers.
"""
import numpy

from . import _arrays, _clib, _ops
from ._ops import Work
from .errors import LinAlgError, argument_value_error


def _singular(function, info):
    return LinAlgError("starfact.%s: U[%d, %d] is exactly zero: the matrix is singular (info=%d)"
                       % (function, info - 1, info - 1, info), info)


def getrf_async(a, overwrite_a=False, *, nb=None, mapping=None, variant=None, residency=None, runtime=None):
    """Submits :func:`getrf`; returns a :class:`starfact.Job` whose ``wait()`` returns ``(lu, piv)``."""
    va = _arrays.view(a, "a", (2,), _arrays.NUMBERS)
    n = _ops.square(va)
    wa = Work(va, transpose=False, overwrite=_ops.check_bool("overwrite_a", overwrite_a), output=True)
    opts = _ops.options(nb=nb, mapping=mapping, variant=variant, residency=residency)
    ipiv = numpy.zeros(max(1, n), dtype=numpy.int64)

    def finish(info, _report):
        if info > 0:
            raise _singular("getrf", info)
        piv = (ipiv[:n] - 1).astype(numpy.int32)
        return wa.result(), va.backend.from_numpy(va.obj, piv)

    return _ops.submit(_clib.lib.starfact_c_getrf_submit, runtime, [wa],
                       (_ops.pointer(wa.src), _ops.pointer(wa.dst), ipiv.ctypes.data, _ops.pointer(opts)), finish,
                       keep=(ipiv,))


def getrf(a, overwrite_a=False, *, nb=None, mapping=None, variant=None, residency=None, runtime=None):
    """LU factorization with partial pivoting, P a = L U (``scipy.linalg.lu_factor``).

    Args:
        a: (n, n) float32, float64, complex64 or complex128 array.
        overwrite_a: a may be overwritten with the factors (in place when it is Fortran-ordered).
        nb: tile size (None: the plan's); mapping: "hybrid", "gpu-only", "cpu-only"; variant: "right" or
            "noprio"; residency: "host" or "device" tiles; runtime: the :class:`starfact.Runtime`.

    Returns:
        (lu, piv): lu (an array of a's type) holds U and, below the diagonal, L's multipliers (unit diagonal
        implied); piv (int32, of a's array type) the 0-based interchanges: row i was interchanged with piv[i].

    Raises:
        starfact.LinAlgError: ``info`` = k when U[k-1, k-1] is exactly zero (the factorization is complete and U
        singular).
    """
    return getrf_async(a, overwrite_a, nb=nb, mapping=mapping, variant=variant, residency=residency,
                       runtime=runtime).wait()


def pivots(piv, n, name="piv"):
    """LAPACK's 1-based int64 pivots of a 0-based (n,) array of any library; ValueError naming it otherwise."""
    from . import _backends  # pylint: disable=import-outside-toplevel
    p = numpy.asarray(_backends.of(piv).to_numpy(piv))
    if p.shape != (n,):
        raise argument_value_error(name, "must have shape (%d,) (got %s)" % (n, p.shape))
    if p.size and p.dtype.kind not in "iu":
        raise TypeError("argument '%s' must hold integers (got dtype %s)" % (name, p.dtype))
    p = p.astype(numpy.int64)
    bad = numpy.nonzero((p < numpy.arange(n)) | (p >= n))[0]
    if bad.size:
        i = int(bad[0])
        raise argument_value_error(name, "must hold pivots with piv[i] in [i, n-1], as getrf gives them (piv[%d] "
                                   "= %d, n = %d)" % (i, p[i], n))
    return numpy.ascontiguousarray(p + 1)


def getrs_async(lu_and_piv, b, overwrite_b=False, *, nb=None, mapping=None, variant=None, residency=None,
                runtime=None):
    """Submits :func:`getrs`; returns a :class:`starfact.Job` whose ``wait()`` returns x."""
    if not isinstance(lu_and_piv, tuple) or len(lu_and_piv) != 2:
        raise TypeError("argument 'lu_and_piv' must be the (lu, piv) pair getrf returns (got %s)"
                        % type(lu_and_piv).__name__)
    lu, piv = lu_and_piv
    vl = _arrays.view(lu, "lu", (2,), _arrays.NUMBERS)
    n = _ops.square(vl)
    ipiv = pivots(piv, n)
    vb = _arrays.view(b, "b", (1, 2), _arrays.NUMBERS)
    _ops.right_hand_sides(vb, n, vl)
    wl = Work(vl, transpose=False, overwrite=False, output=False)
    wb = Work(vb, transpose=False, overwrite=_ops.check_bool("overwrite_b", overwrite_b), output=True)
    opts = _ops.options(nb=nb, mapping=mapping, variant=variant, residency=residency)
    return _ops.submit(_clib.lib.starfact_c_getrs_submit, runtime, [wl, wb],
                       (_ops.pointer(wl.src), ipiv.ctypes.data, _ops.pointer(wb.src), _ops.pointer(wb.dst),
                        _ops.pointer(opts)), lambda info, report: wb.result(), keep=(ipiv,))


def getrs(lu_and_piv, b, overwrite_b=False, *, nb=None, mapping=None, variant=None, residency=None, runtime=None):
    """Solves a x = b with the factors of :func:`getrf` (``scipy.linalg.lu_solve``).

    Args:
        lu_and_piv: the pair ``(lu, piv)`` getrf returned (piv 0-based, any integer array).
        b: (n,) or (n, k) array of lu's dtype.
        overwrite_b: b may be overwritten with x (in place when b is a vector or Fortran-ordered).
        nb, mapping, variant, residency, runtime: as for :func:`getrf`.
    """
    return getrs_async(lu_and_piv, b, overwrite_b, nb=nb, mapping=mapping, variant=variant, residency=residency,
                       runtime=runtime).wait()


def gesv_async(a, b, overwrite_a=False, overwrite_b=False, *, nb=None, mapping=None, variant=None, residency=None,
               runtime=None):
    """Submits :func:`gesv`; returns a :class:`starfact.Job` whose ``wait()`` returns x."""
    va = _arrays.view(a, "a", (2,), _arrays.NUMBERS)
    n = _ops.square(va)
    vb = _arrays.view(b, "b", (1, 2), _arrays.NUMBERS)
    _ops.right_hand_sides(vb, n, va)
    overwrite_a = _ops.check_bool("overwrite_a", overwrite_a)
    wa = Work(va, transpose=False, overwrite=overwrite_a, output=overwrite_a,
              overwritten=True)
    wb = Work(vb, transpose=False, overwrite=_ops.check_bool("overwrite_b", overwrite_b), output=True)
    opts = _ops.options(nb=nb, mapping=mapping, variant=variant, residency=residency)

    def finish(info, _report):
        if info > 0:
            raise _singular("gesv", info)
        return wb.result()

    return _ops.submit(_clib.lib.starfact_c_gesv_submit, runtime, [wa, wb],
                       (_ops.pointer(wa.src), _ops.pointer(wa.dst), None, _ops.pointer(wb.src),
                        _ops.pointer(wb.dst), _ops.pointer(opts)), finish)


def gesv(a, b, overwrite_a=False, overwrite_b=False, *, nb=None, mapping=None, variant=None, residency=None,
         runtime=None):
    """Solves a x = b for a general square a: LU with partial pivoting and solve as one task graph
    (``scipy.linalg.solve``).

    Args:
        a: (n, n) float32, float64, complex64 or complex128 array.
        b: (n,) or (n, k) array of a's dtype.
        overwrite_a, overwrite_b: a (with the factors) and b (with x) may be overwritten, in place when they are
            Fortran-ordered (b: or a vector).
        nb, mapping, variant, residency, runtime: as for :func:`getrf`.

    Returns:
        x, an array of b's type and shape.

    Raises:
        starfact.LinAlgError: ``info`` = k when U[k-1, k-1] is exactly zero.
    """
    return gesv_async(a, b, overwrite_a, overwrite_b, nb=nb, mapping=mapping, variant=variant, residency=residency,
                      runtime=runtime).wait()

"""The log-determinant of symmetric positive definite matrices, from their Cholesky factor.

``slogdet(a)`` is ``numpy.linalg.slogdet`` for a symmetric positive definite `a`: it factors `a` (one task graph:
the Cholesky factorization, then one task per diagonal tile summing the logarithms of the factor's diagonal) and
returns ``(sign, logabsdet)``, Python floats, sign 1.0. ``cho_logdet((c, lower))`` takes the factor :func:`potrf`
returned and gives log det a. Both sum logarithms and never multiply the diagonal, so that they are right where the
determinant itself overflows or underflows (a = 1e200 I of order 10). Each has an ``_async`` form returning a
:class:`starfact.Job`.
"""
import collections
import ctypes

from . import _arrays, _clib, _ops
from ._ops import Work
from .cholesky import _factor_pair, _not_spd
from .errors import LinAlgError

SlogdetResult = collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])
SlogdetResult.__doc__ = """(sign, logabsdet) with det a = sign * exp(logabsdet), as numpy.linalg.slogdet returns them
(its result in NumPy 2); a tuple, so that ``sign, logabsdet = starfact.slogdet(a)`` unpacks it."""


def slogdet_async(a, lower=False, overwrite_a=False, *, nb=None, mapping=None, variant=None, panel=None, diag=None,
                  residency=None, runtime=None):
    """Submits :func:`slogdet`; returns a :class:`starfact.Job` whose ``wait()`` returns ``(sign, logabsdet)``."""
    lower = _ops.check_bool("lower", lower)
    va = _arrays.view(a, "a", (2,))
    _ops.square(va)
    overwrite_a = _ops.check_bool("overwrite_a", overwrite_a)
    wa = Work(va, transpose=not lower, overwrite=overwrite_a, output=overwrite_a,
              overwritten=True)
    opts = _ops.options(nb=nb, mapping=mapping, variant=variant, panel=panel, diag=diag, residency=residency)
    sign, logabsdet = ctypes.c_double(), ctypes.c_double()

    def finish(info, _report):
        if info > 0:
            raise _not_spd("slogdet", info)
        return SlogdetResult(sign.value, logabsdet.value)

    return _ops.submit(_clib.lib.starfact_c_potrf_logdet_submit, runtime, [wa],
                       (_ops.pointer(wa.src), _ops.pointer(wa.dst), _ops.pointer(opts), ctypes.byref(sign),
                        ctypes.byref(logabsdet)), finish, keep=(sign, logabsdet))


def slogdet(a, lower=False, overwrite_a=False, *, nb=None, mapping=None, variant=None, panel=None, diag=None,
            residency=None, runtime=None):
    """Sign and logarithm of the determinant of the symmetric positive definite `a` (``numpy.linalg.slogdet``),
    from its Cholesky factorization: log det a = 2 sum log L[i, i].

    Args:
        a: (n, n) float32 or float64 array (NumPy, or any array through DLPack / the CUDA Array Interface); only its
            `lower` triangle is read.
        lower: which triangle of a is read.
        overwrite_a: a may be overwritten with the factor (in place when its layout allows); by default a is only
            read.
        nb, mapping, variant, panel, diag, residency, runtime: as for :func:`potrf`.

    Returns:
        :class:`SlogdetResult` ``(sign, logabsdet)``, Python floats: sign 1.0 and logabsdet = log det a, summed in
        float64 whatever a's dtype, so that it is right where det a overflows or underflows a's precision.

    Raises:
        starfact.LinAlgError: with ``info`` = k when the leading minor of order k is not positive definite (or holds
        NaN or Inf): slogdet is for symmetric positive definite matrices only.
    """
    return slogdet_async(a, lower, overwrite_a, nb=nb, mapping=mapping, variant=variant, panel=panel, diag=diag,
                         residency=residency, runtime=runtime).wait()


def cho_logdet_async(c_and_lower, *, nb=None, mapping=None, residency=None, runtime=None):
    """Submits :func:`cho_logdet`; returns a :class:`starfact.Job` whose ``wait()`` returns log det a."""
    c, lower = _factor_pair(c_and_lower)
    vc = _arrays.view(c, "c", (2,))
    _ops.square(vc)
    wc = Work(vc, transpose=not lower, overwrite=False, output=False)
    opts = _ops.options(nb=nb, mapping=mapping, residency=residency)
    logabsdet = ctypes.c_double()

    def finish(info, _report):
        if info > 0:
            raise LinAlgError("starfact.cho_logdet: the factor's diagonal entry %d is not a positive finite number "
                              "(info=%d)" % (info, info), info)
        return logabsdet.value

    return _ops.submit(_clib.lib.starfact_c_logdet_submit, runtime, [wc],
                       (_ops.pointer(wc.src), _ops.pointer(opts), None, ctypes.byref(logabsdet)), finish,
                       keep=(logabsdet,))


def cho_logdet(c_and_lower, *, nb=None, mapping=None, residency=None, runtime=None):
    """log det a of the symmetric positive definite a from its Cholesky factor: 2 sum log c[i, i].

    Args:
        c_and_lower: the pair ``(c, lower)`` :func:`potrf` returned (only the diagonal of c is read).
        nb, mapping, residency, runtime: as for :func:`potrf`.

    Returns:
        log det a, a Python float (summed in float64, right where det a overflows or underflows).

    Raises:
        starfact.LinAlgError: with ``info`` = k when c[k-1, k-1] is not a positive finite number (c is no Cholesky
        factor).
    """
    return cho_logdet_async(c_and_lower, nb=nb, mapping=mapping, residency=residency, runtime=runtime).wait()

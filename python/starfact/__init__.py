"""starfact: tile Cholesky, LU and QR factorizations as StarPU task graphs, on CPUs and NVIDIA GPUs, from Python.

The functions take NumPy arrays, and any array library's host or CUDA arrays through DLPack or the CUDA Array
Interface (PyTorch, CuPy, JAX, Numba), without copying them where the layout allows, and return results of the
caller's array type. The GIL is released while StarPU works, and several threads may call at once.

    >>> import numpy as np, starfact
    >>> a = np.array([[4.0, 2.0], [2.0, 3.0]]); b = np.array([1.0, 2.0])
    >>> x = starfact.posv(a, b)                          # a x = b, a symmetric positive definite
    >>> np.allclose(a @ x, b)
    True
    >>> c = starfact.potrf(a); x = starfact.potrs(c, b)  # scipy.linalg.cho_factor / cho_solve
    >>> sign, logdet = starfact.slogdet(a)               # numpy.linalg.slogdet for SPD a, from its Cholesky
    >>> sign, bool(np.isclose(logdet, np.log(8.0)))
    (1.0, True)
    >>> x = starfact.gesv(a, b)                          # LU with partial pivoting
    >>> t = np.random.default_rng(0).standard_normal((6, 3)); y = np.ones(6)
    >>> q, r = starfact.qr(t)                            # tall t: scipy.linalg.qr(t, mode="economic")
    >>> q.shape, r.shape, np.allclose(q @ r, t)
    ((6, 3), (3, 3), True)
    >>> x, residues, rank, s = starfact.lstsq(t, y)      # least squares by QR
    >>> np.allclose(t.T @ (t @ x - y), 0), rank
    (True, 3)
    >>> x, report = starfact.posv(a, b, factor="tf32")   # mixed precision, refined to double accuracy
    >>> np.allclose(a @ x, b), report.path in ("direct", "refined", "gmres", "fallback")
    (True, True)

Device arrays take the same calls; they need a GPU and a build with CUDA, so the doctest of this docstring leaves
them out::

    >>> import torch                                     # doctest: +SKIP
    >>> x = starfact.posv(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda())  # doctest: +SKIP

Complex matrices (complex64, complex128) go to potrf, potrs, posv, potri (Hermitian), getrf, getrs, gesv and the QR
(qr, geqrf, ormqr with Q^H, orgqr, gels, lstsq).

Operations: potrf, potrs, posv, potri (Cholesky, inverse); slogdet, cho_logdet (log-determinant); getrf, getrs, gesv (LU); qr, geqrf (returning
:class:`QRFactors`), ormqr, orgqr, gels, lstsq (QR, least squares); posv_batched, potrf_batched,
gesv_batched, getrf_batched, getrs_batched (3-D arrays of small matrices); each blocking operation on one matrix
has an ``_async`` form returning a :class:`Job`. :class:`Runtime` starts StarPU with chosen workers (a default one
starts on the first call). Numerical failures raise :class:`LinAlgError` (a ``numpy.linalg.LinAlgError``) with
LAPACK's ``info``. :mod:`starfact.svm` holds :class:`starfact.svm.LSSVC`, a least-squares SVM classifier.
Documentation: docs/python.md.
"""
from . import _clib
from ._jobs import Job
from ._runtime import Runtime
from .batched import gesv_batched, getrf_batched, getrs_batched, posv_batched, potrf_batched
from .cholesky import posv, posv_async, potrf, potrf_async, potri, potri_async, potrs, potrs_async
from .errors import ArgumentError, LinAlgError, NotBuiltError, StarfactRuntimeError
from .logdet import SlogdetResult, cho_logdet, cho_logdet_async, slogdet, slogdet_async
from .lu import gesv, gesv_async, getrf, getrf_async, getrs, getrs_async
from .qr import (QRFactors, gels, gels_async, geqrf, geqrf_async, lstsq, lstsq_async, orgqr, orgqr_async, ormqr,
                 ormqr_async, qr, qr_async)
from ._plan import Plan, plan
from .report import SolveReport

__version__ = _clib.VERSION


def built_with_cuda():
    """Whether this build has CUDA codelets (and takes CUDA device arrays)."""
    return bool(_clib.lib.starfact_c_built_with_cuda())


def cuda_device_count():
    """CUDA devices visible to this process (0 without CUDA); starts nothing."""
    return int(_clib.lib.starfact_c_cuda_device_count())


def build_info():
    """What this build holds: version, CUDA, and the batched modules (a dict); starts nothing."""
    return {"version": __version__, "cuda": built_with_cuda(), "cuda_devices": cuda_device_count(),
            "batched_cholesky": bool(_clib.lib.starfact_c_has_batched(0)),
            "batched_lu": bool(_clib.lib.starfact_c_has_batched(1)), "library": _clib.lib._name}


def runtime():
    """The running :class:`Runtime`, started with the default arguments if none runs."""
    from . import _runtime  # pylint: disable=import-outside-toplevel
    return _runtime.current()


__all__ = [
    "Runtime", "Job", "SolveReport", "LinAlgError", "ArgumentError", "NotBuiltError", "StarfactRuntimeError",
    "potrf", "potrs", "posv", "potri", "getrf", "getrs", "gesv",
    "potrf_async", "potrs_async", "posv_async", "potri_async", "getrf_async", "getrs_async", "gesv_async",
    "slogdet", "slogdet_async", "cho_logdet", "cho_logdet_async", "SlogdetResult",
    "QRFactors", "qr", "geqrf", "ormqr", "orgqr", "gels", "lstsq",
    "qr_async", "geqrf_async", "ormqr_async", "orgqr_async", "gels_async", "lstsq_async",
    "posv_batched", "potrf_batched", "gesv_batched", "getrf_batched", "getrs_batched",
    "plan", "Plan",
    "built_with_cuda", "cuda_device_count", "build_info", "runtime", "__version__",
]

"""Tile Householder QR and linear least squares, in SciPy's spirit (docs/qr.md).

``qr(a)`` is ``scipy.linalg.qr(a, mode="economic")``: ``(q, r)`` with q m x k orthonormal and r k x n upper triangular
(trapezoidal), k = min(m, n). ``geqrf(a)`` returns a :class:`QRFactors` holding the factorization, which ``ormqr`` (q c,
q^T c, c q or c q^T) and ``orgqr`` (the thin q) use.

float32, float64, complex64 and complex128 matrices. A complex a has a unitary q (q^H q = I): ``ormqr`` applies q
(trans "N") or q^H (trans "C", as LAPACK's unmqr; "T" is refused naming ``trans``), gels and lstsq solve with R^H
where the real ones solve with R^T, and every tree but "cholqr" factors it (docs/qr.md, "Complex matrices"). ``lstsq(a, b)`` is ``scipy.linalg.lstsq`` for a full-rank a: ``(x,
residues, rank, None)``, the least-squares solution of a tall a and the minimum-norm one of a wide a; ``gels(a, b)``
returns x alone. The operations of one matrix have ``_async`` forms returning a :class:`starfact.Job`.

A factorization that breaks down raises :class:`starfact.LinAlgError` with ``info`` = k, the column (1-based): with
every tree when a holds NaN or Inf (k: its first such column); with the Cholesky QR (tree "cholqr") also when a is
numerically rank deficient, or so large or small that a^T a overflows or underflows (the message says which). gels
and lstsq scale a and b into range first, as LAPACK's gels does. ``fallback=True`` (the tree "cholqr+fallback")
factors a again by a Householder tree when the Cholesky QR breaks down, from a copy of a kept for it, instead of
raising; :attr:`QRFactors.fallback` says why it ran.

The library computes on column-major arrays: a Fortran-ordered a is read and written in place, a C-ordered one
costs one copy (as with SciPy's LAPACK wrappers).
"""
import ctypes
import threading

import numpy

from . import _arrays, _backends, _clib, _ops
from ._ops import Work
from ._runtime import Closable
from .errors import LinAlgError, argument_type_error, argument_value_error

_MODES = ("economic", "full", "r")
_HANDLE = object()  # stands for the factors' C handle in the arguments of QRFactors._submit


def _gels_failure(function, info):
    return LinAlgError("starfact.%s: the QR broke down at column %d of a (info=%d): R[%d, %d] is exactly zero (a is "
                       "rank deficient) or not finite (a holds NaN or Inf), or the Cholesky QR broke down there: a "
                       "numerically rank deficient, or its Gram matrix a^T a overflowing or underflowing "
                       "(fallback=True factors a by a Householder tree then)"
                       % (function, info - 1, info, info - 1, info - 1), info)


def _tree(tree, fallback):
    """The tree option with the Householder fall-back (fallback: a bool) appended as "+fallback"."""
    if not _ops.check_bool("fallback", fallback):
        return tree
    if tree is not None and not isinstance(tree, str):
        raise argument_type_error("tree", "a str or None", type(tree).__name__)
    tree = "auto" if tree is None else tree
    return tree if tree.endswith("+fallback") else tree + "+fallback"


def _breakdown(function, handle, info):
    """The LinAlgError of a geqrf whose factorization broke down at column `info` (1-based), with the library's
    reason (starfact_c_qr_factors_breakdown)."""
    reason = ctypes.c_char_p()
    broken = ctypes.c_int32()
    _clib.check(_clib.lib.starfact_c_qr_factors_breakdown(handle, ctypes.byref(broken), ctypes.byref(reason)))
    why = (reason.value or b"").decode(errors="replace")
    return LinAlgError("starfact.%s: the QR factorization broke down at column %d of a (info=%d): %s"
                       % (function, info - 1, info, why or "the factors are not usable"), info)


class QRFactors(Closable):
    """A tile Householder QR, a = Q R, as :func:`geqrf` returns it: Q is the product of the Householder reflectors
    whose vectors lie below the diagonal of :attr:`qr` and whose triangular factors T the library holds (in the
    memory where its tasks made them: a GPU's under GPU mappings).

    Attributes:
        qr: the factored matrix, an array of a's type and device: R in its upper triangle, the reflectors' vectors
            below (LAPACK's geqrf layout, with the tree's merges' vectors in the upper triangles of merged tiles).
            ormqr and orgqr read it: it must not be modified.
        shape, dtype: those of a.
        nb, ib: the tile size and the CPU kernels' inner blocking (the Cholesky QR: its panels' width, docs/qr.md);
            tree: the reduction tree asked for ("auto",
            "flat", "binary", "domains=A", "cholqr": the Cholesky QR of tall and skinny matrices, "panel": whole-panel
            tasks, docs/qr.md);
            domain_rows: tile rows per domain of the tree that ran.
        fallback: None, or when the Cholesky QR broke down and a was factored again by a Householder tree
            (``fallback=True``), the breakdown that caused it (a sentence).

    The factors belong to the :class:`starfact.Runtime` that made them: closing it frees them (their use then raises
    ValueError). :meth:`close` frees them at once (the jobs still using them keep them until they complete).
    """

    def __init__(self, backend, dtype):
        self.qr = None
        self.dtype = dtype
        self._backend = backend
        self._runtime = None
        self._handle = None
        self._lock = threading.Lock()

    def _attach(self, runtime, handle):
        self._runtime = runtime
        self._handle = handle
        runtime._track_factors(self)  # pylint: disable=protected-access

    def _info(self):
        with self._lock:
            if self._handle is None:
                raise argument_value_error("factors", "were freed (closed, or their runtime was closed)")
            info = _clib.QRInfo()
            _clib.check(_clib.lib.starfact_c_qr_factors_info(self._handle, ctypes.byref(info)))
            return info

    def _submit(self, function, runtime, works, args, finish):
        """Submits function(rt, *args, &job) with this C handle in place of _HANDLE in args (the lock held, so that
        close() cannot free it meanwhile)."""
        with self._lock:
            if self._handle is None:
                raise argument_value_error("factors", "were freed (closed, or their runtime was closed)")
            args = tuple(self._handle if a is _HANDLE else a for a in args)
            return _ops.submit(function, runtime if runtime is not None else self._runtime, works, args, finish,
                               keep=(self,))

    @property
    def shape(self):
        info = self._info()
        return (int(info.rows), int(info.cols))

    @property
    def nb(self):
        return int(self._info().nb)

    @property
    def ib(self):
        return int(self._info().ib)

    @property
    def tree(self):
        return self._info().tree.decode()

    @property
    def fallback(self):
        with self._lock:
            if self._handle is None:
                raise argument_value_error("factors", "were freed (closed, or their runtime was closed)")
            fell_back = ctypes.c_int32()
            reason = ctypes.c_char_p()
            _clib.check(_clib.lib.starfact_c_qr_factors_fallback(self._handle, ctypes.byref(fell_back),
                                                                ctypes.byref(reason)))
        return (reason.value or b"").decode(errors="replace") if fell_back.value else None

    @property
    def domain_rows(self):
        return int(self._info().domain_rows)

    @property
    def closed(self):
        return self._handle is None

    def r(self):
        """R: the upper triangle (trapezoid) of the first k = min(m, n) rows of :attr:`qr`, k x n (a new array of a's
        type)."""
        k = min(self.qr.shape)
        return self._backend.triu(self.qr[:k])

    def close(self):
        """Frees the factors (the jobs still using them keep them until they complete). Idempotent."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            _clib.lib.starfact_c_qr_factors_destroy(handle)

    def __repr__(self):
        if self._handle is None:
            return "<starfact.QRFactors (freed)>"
        info = self._info()
        return "<starfact.QRFactors %d x %d %s, nb=%d, tree=%s>" % (info.rows, info.cols, self.dtype, info.nb,
                                                                   info.tree.decode())


def _factors(factors):
    if not isinstance(factors, QRFactors):
        raise argument_type_error("factors", "the starfact.QRFactors geqrf returns", type(factors).__name__)
    if factors.qr is None:
        raise argument_value_error("factors", "hold no factorization yet (wait for geqrf_async's job)")
    return factors


def geqrf_async(a, overwrite_a=False, *, tree=None, nb=None, ib=None, mapping=None, variant=None, residency=None,
                runtime=None, fallback=False):
    """Submits :func:`geqrf`; returns a :class:`starfact.Job` whose ``wait()`` returns the :class:`QRFactors`."""
    va = _arrays.view(a, "a", (2,), _arrays.NUMBERS)
    wa = Work(va, transpose=False, overwrite=_ops.check_bool("overwrite_a", overwrite_a), output=True)
    opts = _ops.options(nb=nb, mapping=mapping, variant=variant, residency=residency, tree=_tree(tree, fallback),
                        ib=ib)
    factors = QRFactors(va.backend, va.dtype)
    handle = ctypes.c_void_p()

    def finish(info, _report):
        if info > 0:
            with factors._lock:  # pylint: disable=protected-access
                error = _breakdown("geqrf", factors._handle, info)  # pylint: disable=protected-access
            factors.close()
            raise error
        factors.qr = wa.result()
        return factors

    job = _ops.submit(_clib.lib.starfact_c_geqrf_submit, runtime, [wa],
                      (_ops.pointer(wa.src), _ops.pointer(wa.dst), _ops.pointer(opts), ctypes.byref(handle)), finish)
    factors._attach(job._runtime, handle)  # pylint: disable=protected-access
    return job


def geqrf(a, overwrite_a=False, *, tree=None, nb=None, ib=None, mapping=None, variant=None, residency=None,
          runtime=None, fallback=False):
    """Tile Householder QR factorization a = Q R (LAPACK's geqrf, in tiles; m < n: R upper trapezoidal, min(m, n)
    reflectors).

    Args:
        a: (m, n) float32, float64, complex64 or complex128 array (NumPy, or any array through DLPack / the CUDA
            Array Interface).
        overwrite_a: a may be overwritten with the factors (in place when it is Fortran-ordered).
        tree: the reduction tree over the tile rows of each panel: "auto" (default: flat for matrices of at most
            2 nt tile rows, else about two domains per worker), "flat", "binary", "domains=A", "cholqr" (real
            matrices only), "panel" (docs/qr.md).
        fallback: when the Cholesky QR ("cholqr", or "auto" choosing it) breaks down, factor a again by the
            plan's Householder tree from its original contents (kept in a copy: one more array of a's size) instead
            of raising; :attr:`QRFactors.fallback` says why. The job then runs when waited for.
        nb: tile size (None: the plan's, starfact.plan); ib: inner blocking of the CPU kernels (None: the plan's;
            below nb every task of a tree runs on CPU workers; the Cholesky QR's panel width, below n its blocked
            form, docs/qr.md); mapping: "hybrid", "gpu-only", "cpu-only"; variant: "right"
            or "noprio"; residency: "host" or "device" tiles; runtime: the :class:`starfact.Runtime`.

    Returns:
        :class:`QRFactors`: ``.qr`` (an array of a's type) holds R and the reflectors; :func:`ormqr` and
        :func:`orgqr` apply or form Q, ``.r()`` gives R.

    Raises:
        starfact.LinAlgError: ``info`` = k when the factorization broke down at column k (a holds NaN or Inf there;
            the Cholesky QR: a numerically rank deficient, or a^T a overflowing or underflowing); the message says
            why. (A written in place is then meaningless.)
    """
    return geqrf_async(a, overwrite_a, tree=tree, nb=nb, ib=ib, mapping=mapping, variant=variant,
                       residency=residency, runtime=runtime, fallback=fallback).wait()


def _code(name, value, codes):
    if not isinstance(value, str):
        raise argument_type_error(name, "a str", type(value).__name__)
    code = codes.get(value.lower())
    if code is None:
        raise argument_value_error(name, "must be one of %s (got %r)" % (", ".join(repr(k) for k in codes), value))
    return code


def _trans(trans, complex_q):
    """The C trans of ormqr's `trans`: "N" (Q), "T" (Q^T: real Q only) or "C" (Q^H; of a real Q, Q^T)."""
    code = _code("trans", trans, {"n": _clib.NOTRANS, "t": _clib.TRANS, "c": _clib.CONJTRANS})
    if code == _clib.TRANS and complex_q:
        raise argument_value_error("trans", "must be 'N' (Q) or 'C' (Q^H) for a complex Q, as LAPACK's unmqr (got "
                                   "%r: Q^T)" % trans)
    if code == _clib.CONJTRANS and not complex_q:
        return _clib.TRANS
    return code


def ormqr_async(factors, c, trans="N", overwrite_c=False, *, side="L", nb=None, mapping=None, variant=None,
                residency=None, runtime=None):
    """Submits :func:`ormqr`; returns a :class:`starfact.Job` whose ``wait()`` returns the product."""
    f = _factors(factors)
    side = _code("side", side, {"l": _clib.LEFT, "left": _clib.LEFT, "r": _clib.RIGHT, "right": _clib.RIGHT})
    vq = _arrays.view(f.qr, "factors", (2,), _arrays.NUMBERS)
    complex_q = vq.dtype.kind == "c"
    trans = _trans(trans, complex_q)
    m = vq.shape[0]
    vc = _arrays.view(c, "c", (1, 2), _arrays.NUMBERS)
    _ops.same_dtype(vc, vq)
    overwrite_c = _ops.check_bool("overwrite_c", overwrite_c)
    right = side == _clib.RIGHT
    conjugated = False
    if right and vc.ndim == 1:
        # A vector from the right is a row: c op(Q) holds the entries of op(Q)^T c; for a complex Q, op(Q)^T c =
        # conj(op(Q)^H conj(c)): c goes in, and the product comes out, conjugated (a new array of c's library).
        side, right = _clib.LEFT, False
        if complex_q:
            trans, conjugated = _clib.CONJTRANS if trans == _clib.NOTRANS else _clib.NOTRANS, True
        else:
            trans = _clib.TRANS if trans == _clib.NOTRANS else _clib.NOTRANS
    if right and vc.shape[1] != m:
        raise argument_value_error("c", "must have %d columns from the right, as the factored matrix has rows (got "
                                   "shape %s)" % (m, vc.shape))
    if not right and vc.shape[0] != m:
        raise argument_value_error("c", "must have %d rows, as the factored matrix (got shape %s)" % (m, vc.shape))
    if conjugated:  # a new array of c's library: the library's to write
        vc = _arrays.view(vc.backend.conj(vc.obj), "c", (1,), _arrays.NUMBERS)
        overwrite_c = True
    wq = Work(vq, transpose=False, overwrite=False, output=False)
    wc = Work(vc, transpose=False, overwrite=overwrite_c, output=True)
    opts = _ops.options(nb=nb, mapping=mapping, variant=variant, residency=residency)

    def finish(_info, _report):
        return vc.backend.conj(wc.result()) if conjugated else wc.result()

    return f._submit(_clib.lib.starfact_c_ormqr_submit, runtime, [wq, wc],  # pylint: disable=protected-access
                     (side, trans, _ops.pointer(wq.src), _HANDLE, _ops.pointer(wc.src), _ops.pointer(wc.dst),
                      _ops.pointer(opts)), finish)


def ormqr(factors, c, trans="N", overwrite_c=False, *, side="L", nb=None, mapping=None, variant=None, residency=None,
          runtime=None):
    """Multiplies c by the m x m orthogonal Q of a QR (LAPACK's ormqr; complex: the unitary Q, LAPACK's unmqr): Q c
    or Q^T c (side "L"), c Q or c Q^T (side "R"); for a complex Q, Q^H in place of Q^T.

    Args:
        factors: the :class:`QRFactors` of :func:`geqrf` (a is m x n).
        c: side "L": (m,) or (m, k) array of a's dtype; side "R": (k, m), or (m,) (a row: c Q as Q^T c).
        trans: "N" (Q), "T" (Q^T: real Q only; a complex Q raises ValueError naming trans) or "C" (Q^H; of a real
            Q, Q^T).
        overwrite_c: c may be overwritten with the product (in place when c is a vector or Fortran-ordered; a
            complex row vector from the right is conjugated into a new array, which is the product).
        side: "L" (the default; or "left"): Q from the left; "R" ("right"): from the right.
        nb: None, or the factors' tile size; mapping, variant, residency, runtime: as for :func:`geqrf` (runtime
            None: the factors').

    Returns:
        The product, an array of c's type and shape: Q^T c holds in its first n rows the coefficients of c in the
        columns of the thin Q, and below them its component orthogonal to them; c Q's first n columns are c times
        the thin Q.
    """
    return ormqr_async(factors, c, trans, overwrite_c, side=side, nb=nb, mapping=mapping, variant=variant,
                       residency=residency, runtime=runtime).wait()


def orgqr_async(factors, *, nb=None, mapping=None, variant=None, residency=None, runtime=None):
    """Submits :func:`orgqr`; returns a :class:`starfact.Job` whose ``wait()`` returns Q."""
    f = _factors(factors)
    vq = _arrays.view(f.qr, "factors", (2,), _arrays.NUMBERS)
    m, n = vq.shape
    k = min(m, n)
    be = vq.backend
    buf = be.empty(vq.obj, (k, m), vq.dtype)  # C-ordered (k, m): column-major m x k
    bv = _arrays.view(buf, "q", (2,), (vq.dtype,))
    wq = Work(vq, transpose=False, overwrite=False, output=False)
    wq.views.append(bv)
    opts = _ops.options(nb=nb, mapping=mapping, variant=variant, residency=residency)
    out = bv.matrix(True)
    return f._submit(_clib.lib.starfact_c_orgqr_submit, runtime, [wq],  # pylint: disable=protected-access
                     (_ops.pointer(wq.src), _HANDLE, _ops.pointer(out), _ops.pointer(opts)),
                     lambda info, report: be.finish(be.swap(buf)))


def orgqr(factors, *, nb=None, mapping=None, variant=None, residency=None, runtime=None):
    """The thin Q of a QR: the first k = min(m, n) columns of Q, m x k with orthonormal columns (LAPACK's orgqr;
    complex: unmqr's Q, Q^H Q = I).

    Args:
        factors: the :class:`QRFactors` of :func:`geqrf`.
        nb, mapping, variant, residency, runtime: as for :func:`ormqr`.

    Returns:
        Q, a new array of the factored matrix's type and device.
    """
    return orgqr_async(factors, nb=nb, mapping=mapping, variant=variant, residency=residency,
                       runtime=runtime).wait()


def qr_async(a, mode="economic", overwrite_a=False, *, tree=None, nb=None, ib=None, mapping=None, variant=None,
             residency=None, runtime=None, fallback=False):
    """Submits :func:`qr`: the factorization runs at once; ``wait()`` forms Q (its own task graph) and returns what
    :func:`qr` returns, or raises what it raises."""
    if not isinstance(mode, str):
        raise argument_type_error("mode", "a str", type(mode).__name__)
    if mode not in _MODES:
        raise argument_value_error("mode", "must be 'economic', 'full' or 'r' (got %r)%s" % (
            mode, "; geqrf returns the factors" if mode == "raw" else ""))
    common = dict(mapping=mapping, variant=variant, residency=residency, runtime=runtime)
    job = geqrf_async(a, overwrite_a, tree=tree, nb=nb, ib=ib, fallback=fallback, **common)
    factor = job._finish  # pylint: disable=protected-access

    def finish(info, report):
        with factor(info, report) as f:
            be = f._backend  # pylint: disable=protected-access
            if mode == "economic":
                return orgqr(f, **common), f.r()
            r = be.triu(f.qr)
            if mode == "r":
                return (r,)
            m = f.qr.shape[0]
            # The identity C-ordered is its own transpose: its swapped view is column-major, computed in place.
            eye = be.swap(be.from_numpy(f.qr, numpy.eye(m, dtype=f.dtype)))
            return ormqr(f, eye, "N", overwrite_c=True, **common), r

    job._finish = finish  # pylint: disable=protected-access
    return job


def qr(a, mode="economic", overwrite_a=False, *, tree=None, nb=None, ib=None, mapping=None, variant=None,
       residency=None, runtime=None, fallback=False):
    """QR decomposition a = Q R (``scipy.linalg.qr``, without pivoting).

    Args:
        a: (m, n) float32, float64, complex64 or complex128 array.
        mode: "economic" (the default, as ``numpy.linalg.qr``'s "reduced"; SciPy's default is "full"): Q m x k,
            R k x n, k = min(m, n); "full": Q m x m (Q applied to the identity by :func:`ormqr`), R m x n; "r":
            ``(R,)``, R m x n, as SciPy's. ("raw": use :func:`geqrf`.)
        overwrite_a: a may be overwritten with the factors (in place when it is Fortran-ordered).
        tree, nb, ib, mapping, variant, residency, runtime, fallback: as for :func:`geqrf`.

    Returns:
        (q, r), or (r,) for mode "r": new arrays of a's type and device; r upper triangular (complex a: q
        unitary).

    Raises:
        starfact.LinAlgError: as :func:`geqrf`, when the factorization breaks down.
    """
    return qr_async(a, mode, overwrite_a, tree=tree, nb=nb, ib=ib, mapping=mapping, variant=variant,
                    residency=residency, runtime=runtime, fallback=fallback).wait()


def gels_async(a, b, overwrite_a=False, overwrite_b=False, *, tree=None, nb=None, ib=None, mapping=None,
               variant=None, residency=None, runtime=None, fallback=False):
    """Submits :func:`gels`; returns a :class:`starfact.Job` whose ``wait()`` returns x."""
    return _gels_job("gels", a, b, overwrite_a, overwrite_b,
                     dict(tree=_tree(tree, fallback), nb=nb, ib=ib, mapping=mapping, variant=variant,
                          residency=residency),
                     runtime, lambda w, m, n, dtype: w[:n])


def _gels_job(function, a, b, overwrite_a, overwrite_b, keywords, runtime, result):
    va = _arrays.view(a, "a", (2,), _arrays.NUMBERS)
    m, n = va.shape
    vb = _arrays.view(b, "b", (1, 2), _arrays.NUMBERS)
    _ops.right_hand_sides(vb, m, va)
    overwrite_a = _ops.check_bool("overwrite_a", overwrite_a)
    overwrite_b = _ops.check_bool("overwrite_b", overwrite_b)
    if m < n:
        # The minimum-norm solution has n rows: b goes into the first m rows of an array of n (LAPACK's layout),
        # made on b's device through the host.
        host = vb.backend.to_numpy(vb.obj)
        padded = numpy.zeros((n,) + tuple(host.shape[1:]), dtype=host.dtype, order="F")
        padded[:m] = host
        vb = _arrays.view(vb.backend.from_numpy(vb.obj, padded), "b", (1, 2), _arrays.NUMBERS)
        overwrite_b = True  # our own array
    wa = Work(va, transpose=False, overwrite=overwrite_a, output=overwrite_a,
              overwritten=True)
    wb = Work(vb, transpose=False, overwrite=overwrite_b, output=True)
    opts = _ops.options(**keywords)

    def finish(info, _report):
        if info > 0:
            raise _gels_failure(function, info)
        return result(wb.result(), m, n, va.dtype)

    return _ops.submit(_clib.lib.starfact_c_gels_submit, runtime, [wa, wb],
                       (_ops.pointer(wa.src), _ops.pointer(wa.dst), _ops.pointer(wb.src), _ops.pointer(wb.dst),
                        _ops.pointer(opts)), finish)


def gels(a, b, overwrite_a=False, overwrite_b=False, *, tree=None, nb=None, ib=None, mapping=None, variant=None,
         residency=None, runtime=None, fallback=False):
    """LAPACK's gels ('N') for a full-rank a: the least-squares solution of min ||a x - b||_2 for m >= n (QR of a,
    Q^T b and the triangular solve as one task graph), the minimum-norm solution of a x = b for m < n (QR of a^T,
    a^T = Q R, x = Q [R^-T b; 0]). Complex a: Q^H, a^H and R^-H in their places.

    Args:
        a: (m, n) float32, float64, complex64 or complex128 array of full rank.
        b: (m,) or (m, k) array of a's dtype.
        overwrite_a, overwrite_b: a (with its QR factors; m < n: those of a^T, transposed) and b (m >= n: with
            Q^T b, x in its first n rows) may be overwritten, in place when they are Fortran-ordered (b: or a
            vector). (Complex a, m < n: a holds the factors of a^H, conjugate-transposed.) For m < n, x has more rows than b: b is read into a new array of n rows (through the host
            for device arrays), x is that array.
        tree, nb, ib, mapping, variant, residency, runtime, fallback: as for :func:`geqrf` (with fallback, a and b
            are copied for the Householder redo).

    Returns:
        x, (n,) or (n, k), of b's type: m >= n: the first n rows of the array holding Q^T b (b itself when written
        in place).

    Raises:
        starfact.LinAlgError: ``info`` = k when R[k-1, k-1] (m < n: of a^T's R) is exactly zero (a is rank
            deficient) or not finite (a holds NaN or Inf in column k-1), or when the Cholesky QR broke down there
            (a numerically rank deficient, or a^T a overflowing or underflowing; fallback=True solves by a
            Householder tree instead).

    a and b are first scaled by powers of two when their largest entries lie outside [smlnum, bignum] (smlnum: the
    smallest normal number / eps), as LAPACK's gels does, x scaled back: data near the ends of the range solve.
    """
    return gels_async(a, b, overwrite_a, overwrite_b, tree=tree, nb=nb, ib=ib, mapping=mapping, variant=variant,
                      residency=residency, runtime=runtime, fallback=fallback).wait()


def lstsq_async(a, b, overwrite_a=False, overwrite_b=False, *, tree=None, nb=None, ib=None, mapping=None,
                variant=None, residency=None, runtime=None, fallback=False):
    """Submits :func:`lstsq`; returns a :class:`starfact.Job` whose ``wait()`` returns (x, residues, rank, None)."""

    def result(w, m, n, dtype):
        be = _backends.of(w)
        if w.shape[0] > n:
            residues = be.sum_squares(w[n:])
        else:  # of the real type, as the residues (NumPy's and SciPy's lstsq)
            residues = be.from_numpy(w, numpy.empty((0,), dtype=numpy.finfo(dtype).dtype))
        return w[:n], residues, min(m, n), None

    return _gels_job("lstsq", a, b, overwrite_a, overwrite_b,
                     dict(tree=_tree(tree, fallback), nb=nb, ib=ib, mapping=mapping, variant=variant,
                          residency=residency),
                     runtime, result)


def lstsq(a, b, overwrite_a=False, overwrite_b=False, *, tree=None, nb=None, ib=None, mapping=None, variant=None,
          residency=None, runtime=None, fallback=False):
    """Least-squares solution of a x = b for a full-rank a (``scipy.linalg.lstsq``, by QR: :func:`gels`): for a wide
    a (m < n), the minimum-norm solution.

    Args:
        a, b, overwrite_a, overwrite_b, tree, nb, ib, mapping, variant, residency, runtime, fallback: as for
            :func:`gels`.

    Returns:
        (x, residues, rank, s) as SciPy's: x (n,) or (n, k); residues the squared 2-norms of the columns of
        b - a x (of a's real type for a complex a) when m > n ((k,), or a 0-d array for a 1-D b), else an empty (0,) array; rank min(m, n) (a is of
        full rank, or LinAlgError is raised); s None (no singular values: the solution is a QR's, not an SVD's).

    Raises:
        starfact.LinAlgError: as :func:`gels`.
    """
    return lstsq_async(a, b, overwrite_a, overwrite_b, tree=tree, nb=nb, ib=ib, mapping=mapping, variant=variant,
                       residency=residency, runtime=runtime, fallback=fallback).wait()

"""Cholesky factorization, solve and inverse of symmetric positive definite matrices, in SciPy's spirit.

``potrf``/``potrs`` are ``scipy.linalg.cho_factor``/``cho_solve``: ``potrf(a, lower)`` returns ``(c, lower)``, and
``potrs((c, lower), b)`` solves with it. ``posv(a, b)`` factors and solves in one task graph; with ``factor=``
("fp32", "tf32", "bf16", "fp16", "tf32x3") a double solve factors in that lower precision and refines the solution to double
accuracy, returning ``(x, report)``. ``potri(a)`` is the inverse. Each has an ``_async`` form returning a
:class:`starfact.Job`.

Only the triangle `lower` names is read. Arrays are read and written in place when their layout allows: the
library computes on the column-major lower triangle, which is the caller's lower triangle of a Fortran-ordered
array and the caller's upper triangle of a C-ordered one. So ``lower=False`` (the default, SciPy's) with a
C-ordered array, or ``lower=True`` with a Fortran-ordered one, need no copy; the other combinations, and arrays
with neither axis of unit stride, cost one copy (documented in docs/python.md).

potrf, potrs, posv and potri also take complex64 and complex128 Hermitian positive definite matrices, as SciPy's
cho_factor, cho_solve and solve(assume_a="pos") do: a = L L^H (lower) or a = U^H U (upper); the imaginary parts of
the diagonal are taken as zero; potri's inverse is Hermitian. The mixed-precision solve takes complex128 with
factor "fp32" or "tf32" only.
"""
from . import _args, _arrays, _clib, _ops
from ._ops import Work
from .errors import LinAlgError, argument_value_error
from .report import SolveReport

def _conjugated(lower, v):
    """Whether a solve with the factor of the upper triangle of the complex `v` runs on conjugates: the library reads
    that triangle as the lower one of v^T = conj(a) (a Hermitian), whose factor U^T solves conj(a) conj(x) =
    conj(b); so b goes in, and x comes out, conjugated (two passes over b, no copy of a)."""
    return not lower and v.dtype.kind == "c"


def _not_spd(function, info):
    return LinAlgError("starfact.%s: the leading minor of order %d is not positive definite (info=%d)"
                       % (function, info, info), info)


def potrf_async(a, lower=False, overwrite_a=False, *, nb=None, mapping=None, variant=None, panel=None, diag=None,
                factor=None, residency=None, runtime=None):
    """Submits :func:`potrf`; returns a :class:`starfact.Job` whose ``wait()`` returns ``(c, lower)``."""
    lower = _ops.check_bool("lower", lower)
    va = _arrays.view(a, "a", (2,), _arrays.NUMBERS)
    _ops.square(va)
    wa = Work(va, transpose=not lower, overwrite=_ops.check_bool("overwrite_a", overwrite_a), output=True)
    opts = _ops.options(nb=nb, mapping=mapping, variant=variant, panel=panel, diag=diag, factor=factor,
                        residency=residency)

    def finish(info, _report):
        if info > 0:
            raise _not_spd("potrf", info)
        return wa.result(), lower

    return _ops.submit(_clib.lib.starfact_c_potrf_submit, runtime, [wa],
                       (_ops.pointer(wa.src), _ops.pointer(wa.dst), _ops.pointer(opts)), finish)


def potrf(a, lower=False, overwrite_a=False, *, nb=None, mapping=None, variant=None, panel=None, diag=None,
          factor=None, residency=None, runtime=None):
    """Cholesky factorization of the symmetric positive definite `a` (``scipy.linalg.cho_factor``).

    Args:
        a: (n, n) float32, float64, complex64 or complex128 array (NumPy, or any array through DLPack / the CUDA
            Array Interface); only its `lower` triangle is read (complex: Hermitian, the diagonal's imaginary parts
            taken as zero).
        lower: factor as a = L L^T, L in the lower triangle of c (True), or a = U^T U, U in the upper (False)
            (complex: a = L L^H, a = U^H U).
        overwrite_a: a may be overwritten with the factor (done in place when its layout allows).
        nb: tile size (None: the plan's for n); mapping: "hybrid", "gpu-only", "cpu-only"; variant: "right",
            "lookahead=D", "left", "left-coarse", "noprio"; panel: "auto", "trsm", "inverse"; diag: "auto",
            "fused", "cusolver"; factor: for float32 matrices, "tf32", "bf16" or "fp16" tensor-core updates on GPUs;
            residency: "host" or "device" tiles. Complex matrices take the right-looking variant, trsm panels and
            the "cusolver" diagonal kernel (LAPACK's on CPU workers) only, and no factor.
        runtime: the :class:`starfact.Runtime` (None: the running one, started if needed).

    Returns:
        (c, lower): c, an array of a's type, holds the factor in its `lower` triangle; its other triangle holds
        a's entries (as SciPy's, meaningless).

    Raises:
        starfact.LinAlgError: with ``info`` = k when the leading minor of order k is not positive definite.
    """
    return potrf_async(a, lower, overwrite_a, nb=nb, mapping=mapping, variant=variant, panel=panel, diag=diag,
                       factor=factor, residency=residency, runtime=runtime).wait()


def _factor_pair(c_and_lower):
    if not isinstance(c_and_lower, tuple) or len(c_and_lower) != 2:
        raise TypeError("argument 'c_and_lower' must be the (c, lower) pair potrf returns (got %s)"
                        % type(c_and_lower).__name__)
    c, lower = c_and_lower
    return c, _ops.check_bool("lower", lower)


def potrs_async(c_and_lower, b, overwrite_b=False, *, nb=None, mapping=None, variant=None, residency=None,
                runtime=None):
    """Submits :func:`potrs`; returns a :class:`starfact.Job` whose ``wait()`` returns x."""
    c, lower = _factor_pair(c_and_lower)
    vc = _arrays.view(c, "c", (2,), _arrays.NUMBERS)
    n = _ops.square(vc)
    vb = _arrays.view(b, "b", (1, 2), _arrays.NUMBERS)
    _ops.right_hand_sides(vb, n, vc)
    overwrite_b = _ops.check_bool("overwrite_b", overwrite_b)
    conjugated = _conjugated(lower, vc)
    if conjugated:  # a new array of b's library: the library's to write
        vb = _arrays.view(vb.backend.conj(vb.obj), "b", (1, 2), _arrays.NUMBERS)
        overwrite_b = True
    wc = Work(vc, transpose=not lower, overwrite=False, output=False)
    wb = Work(vb, transpose=False, overwrite=overwrite_b, output=True)
    opts = _ops.options(nb=nb, mapping=mapping, variant=variant, residency=residency)

    def finish(_info, _report):
        x = wb.result()
        return vb.backend.conj(x) if conjugated else x

    return _ops.submit(_clib.lib.starfact_c_potrs_submit, runtime, [wc, wb],
                       (_ops.pointer(wc.src), _ops.pointer(wb.src), _ops.pointer(wb.dst), _ops.pointer(opts)),
                       finish)


def potrs(c_and_lower, b, overwrite_b=False, *, nb=None, mapping=None, variant=None, residency=None, runtime=None):
    """Solves a x = b with the factor of :func:`potrf` (``scipy.linalg.cho_solve``).

    Args:
        c_and_lower: the pair ``(c, lower)`` potrf returned.
        b: (n,) or (n, k) array of c's dtype.
        overwrite_b: b may be overwritten with x (done in place when b is a vector or Fortran-ordered; complex
            factors of the upper triangle: never, x is a new array).
        nb, mapping, variant, residency, runtime: as for :func:`potrf`.

    Returns:
        x, an array of b's type and shape.
    """
    return potrs_async(c_and_lower, b, overwrite_b, nb=nb, mapping=mapping, variant=variant, residency=residency,
                       runtime=runtime).wait()


def _refinement(factor, settings):
    given = {k: v for k, v in settings.items() if v is not None}
    if factor is None:
        if given:
            name = next(iter(given))
            raise argument_value_error(name, "applies to the mixed-precision solve only: pass factor= too")
        return None
    r = _clib.Refinement()
    _clib.lib.starfact_c_refinement_init(_clib.byref(r))
    for name, value in given.items():
        if name in ("fallback", "always_low"):
            value = int(_args.flag(name, value))
        elif name in ("stall_ratio", "tolerance", "shift", "time_budget", "time_floor", "tile_tolerance"):
            value = _args.real(name, value)
        else:  # counts, held in 32 bits: their lower bounds are the library's to check, and name
            value = _args.integer(name, value)
        setattr(r, name, value)
    return r


def posv_async(a, b, lower=False, overwrite_a=False, overwrite_b=False, *, factor=None, max_iterations=None,
               gmres_iterations=None, gmres_restart=None, fallback=None, stall_ratio=None, tolerance=None, shift=None,
               shift_retries=None, time_budget=None, always_low=None, tile_tolerance=None, nb=None,
               mapping=None, variant=None, panel=None, diag=None, residency=None, runtime=None):
    """Submits :func:`posv`; returns a :class:`starfact.Job` whose ``wait()`` returns x, or (x, report) when
    `factor` is given."""
    lower = _ops.check_bool("lower", lower)
    va = _arrays.view(a, "a", (2,), _arrays.NUMBERS)
    n = _ops.square(va)
    vb = _arrays.view(b, "b", (1, 2), _arrays.NUMBERS)
    _ops.right_hand_sides(vb, n, va)
    settings = dict(max_iterations=max_iterations, gmres_iterations=gmres_iterations, gmres_restart=gmres_restart,
                    fallback=fallback, stall_ratio=stall_ratio, tolerance=tolerance, shift=shift,
                    shift_retries=shift_retries, time_budget=time_budget, always_low=always_low,
                    tile_tolerance=tile_tolerance)
    if va.dtype.kind == "c" and va.dtype.itemsize < 16:  # complex128 has one: a complex64 factor, fp32 or tf32
        for name, value in dict(factor=factor, **settings).items():
            if value is not None:
                raise argument_value_error(name, "applies to the mixed-precision solve, which complex64 matrices do "
                                           "not have (complex128: factor='fp32' or 'tf32')")
    refine = _refinement(factor, settings)
    overwrite_a = _ops.check_bool("overwrite_a", overwrite_a)
    overwrite_b = _ops.check_bool("overwrite_b", overwrite_b)
    conjugated = _conjugated(lower, va)
    if conjugated:  # a new array of b's library: the library's to write
        vb = _arrays.view(vb.backend.conj(vb.obj), "b", (1, 2), _arrays.NUMBERS)
        overwrite_b = True
    wa = Work(va, transpose=not lower, overwrite=overwrite_a, output=overwrite_a,
              overwritten=True)
    wb = Work(vb, transpose=False, overwrite=overwrite_b, output=True)
    opts = _ops.options(nb=nb, mapping=mapping, variant=variant, panel=panel, diag=diag, factor=factor,
                        residency=residency)

    def finish(info, report):
        if info > 0:
            raise _not_spd("posv", info)
        if report is None:
            return vb.backend.conj(wb.result()) if conjugated else wb.result()
        r = SolveReport.from_c(report)
        if r.path == "failed":
            e = LinAlgError("starfact.posv: the refinement did not reach the tolerance %.3g (backward error %.3g) "
                            "and fallback is off" % (r.tolerance, r.backward_error), 0)
            e.report = r
            raise e
        return (vb.backend.conj(wb.result()) if conjugated else wb.result()), r

    return _ops.submit(_clib.lib.starfact_c_posv_submit, runtime, [wa, wb],
                       (_ops.pointer(wa.src), _ops.pointer(wa.dst), _ops.pointer(wb.src), _ops.pointer(wb.dst),
                        _ops.pointer(opts), _ops.pointer(refine)), finish, has_report=refine is not None)


def posv(a, b, lower=False, overwrite_a=False, overwrite_b=False, *, factor=None, max_iterations=None,
         gmres_iterations=None, gmres_restart=None, fallback=None, stall_ratio=None, tolerance=None, shift=None,
         shift_retries=None, time_budget=None, always_low=None, tile_tolerance=None, nb=None, mapping=None,
         variant=None, panel=None,
         diag=None, residency=None, runtime=None):
    """Solves a x = b for symmetric positive definite a: factorization and solve as one task graph
    (``scipy.linalg.solve(a, b, assume_a="pos")``).

    Args:
        a: (n, n) float32, float64, complex64 or complex128 array (complex: Hermitian); only its `lower` triangle
            is read.
        b: (n,) or (n, k) array of a's dtype.
        lower: which triangle of a is read.
        overwrite_a, overwrite_b: a (with the factor) and b (with x) may be overwritten, in place when their
            layout allows (complex a read by its upper triangle: x is a new array).
        factor: None (default), or the precision of the factorization of the mixed-precision solve: "fp32",
            "tf32", "bf16", "fp16", "tf32x3" (tensor-core updates on GPUs; CPU workers compute in float32), "auto"
            (tf32, then the float64 factorization when it breaks down or falls short), "native" or "fp64". With a factor, posv returns the report too. A float64 solve with a lower factor factors a
            float32 copy of the scaled a and refines x in float64: classical refinement, then GMRES, then
            (fallback, default True) the float64 factorization; max_iterations, gmres_iterations, gmres_restart,
            stall_ratio and tolerance (0: sqrt(n) eps) set its stopping rules; shift (in units of the factor's
            unit roundoff; default: only after a breakdown) and shift_retries the diagonal shift of the
            low-precision factorization, time_budget (in units of the first factorization's time, 0: no limit)
            what the shifted factorizations and GMRES may take before the fallback; always_low factors in the
            low precision even where the plan would run the float64 factorization (below n = 16384 on GPUs);
            tile_tolerance (> 0) takes the factor's arithmetic only for the off-diagonal tiles whose norm is small
            relative to a's, float32 for the others (2**-24: about a float32 factor's accuracy; the report's
            low_tiles counts them) (docs/mixed_precision.md). Counts and tolerances may be Python or NumPy scalars.
            complex128 a takes factor "fp32" or "tf32" (a complex64 factor, tf32 on the tensor cores, refined to
            complex128 accuracy through the same refinement; tile_tolerance 0 only), "native" or None; other factors
            raise ValueError naming factor. complex64 matrices have no mixed-precision solve: factor and these
            settings raise ValueError for them.
        nb, mapping, variant, panel, diag, residency, runtime: as for :func:`potrf`.

    Returns:
        x (an array of b's type and shape); or (x, report), a :class:`starfact.SolveReport`, when `factor` is given.

    Raises:
        starfact.LinAlgError: ``info`` = k when the leading minor of order k is not positive definite; info 0 and
        the ``report`` attribute when the refinement failed with fallback=False.
    """
    return posv_async(a, b, lower, overwrite_a, overwrite_b, factor=factor, max_iterations=max_iterations,
                      gmres_iterations=gmres_iterations, gmres_restart=gmres_restart, fallback=fallback,
                      stall_ratio=stall_ratio, tolerance=tolerance, shift=shift, shift_retries=shift_retries,
                      time_budget=time_budget, always_low=always_low, tile_tolerance=tile_tolerance, nb=nb,
                      mapping=mapping, variant=variant,
                      panel=panel, diag=diag, residency=residency, runtime=runtime).wait()


def potri_async(a, lower=False, overwrite_a=False, symmetrize=True, *, nb=None, mapping=None, variant=None,
                panel=None, diag=None, residency=None, runtime=None):
    """Submits :func:`potri`; returns a :class:`starfact.Job` whose ``wait()`` returns the inverse."""
    lower = _ops.check_bool("lower", lower)
    symmetrize = _ops.check_bool("symmetrize", symmetrize)
    # (complex: the lower triangle of the column-major view of a C-ordered a is that of conj(a), whose inverse's lower
    # triangle is the upper triangle of a's inverse: nothing to conjugate)
    va = _arrays.view(a, "a", (2,), _arrays.NUMBERS)
    _ops.square(va)
    wa = Work(va, transpose=not lower, overwrite=_ops.check_bool("overwrite_a", overwrite_a), output=True)
    opts = _ops.options(nb=nb, mapping=mapping, variant=variant, panel=panel, diag=diag, residency=residency)

    def finish(info, _report):
        if info > 0:
            raise LinAlgError("starfact.potri: the leading minor of order %d is not positive definite, or the "
                              "factor's diagonal entry %d is zero (info=%d)" % (info, info, info), info)
        x = wa.result()
        return va.backend.symmetric(x, lower) if symmetrize else x

    return _ops.submit(_clib.lib.starfact_c_potri_submit, runtime, [wa],
                       (_ops.pointer(wa.src), _ops.pointer(wa.dst), _ops.pointer(opts)), finish)


def potri(a, lower=False, overwrite_a=False, symmetrize=True, *, nb=None, mapping=None, variant=None, panel=None,
          diag=None, residency=None, runtime=None):
    """Inverse of the symmetric positive definite `a`: the Cholesky factorization, the inverse of the factor and
    their product as one task graph (LAPACK's potrf then potri).

    Args:
        a: (n, n) float32, float64, complex64 or complex128 array; only its `lower` triangle is read (complex:
            Hermitian positive definite, the diagonal's imaginary parts taken as zero).
        lower: which triangle of a is read, and of the result written.
        overwrite_a: a may be overwritten (in place when its layout allows).
        symmetrize: return the full symmetric (complex: Hermitian) inverse (a new array, default); False returns
            the array the library wrote, whose `lower` triangle holds the inverse's and whose other triangle holds
            a's entries (LAPACK's potri).
        nb, mapping, variant, panel, diag, residency, runtime: as for :func:`potrf` (complex matrices: the same
            restrictions as there).

    Raises:
        starfact.LinAlgError: ``info`` > 0 when a is not positive definite.
    """
    return potri_async(a, lower, overwrite_a, symmetrize, nb=nb, mapping=mapping, variant=variant, panel=panel,
                       diag=diag, residency=residency, runtime=runtime).wait()

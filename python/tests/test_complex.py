"""Complex matrices through the Cholesky and the LU (potrf, potrs, posv, getrf, getrs, gesv) from Python, in
complex64 and complex128: Hermitian positive definite matrices with complex off-diagonal entries, only the named
triangle read, against NumPy (numpy.linalg.cholesky, numpy.linalg.solve) and, where installed, SciPy
(scipy.linalg.lu_factor), scaled residuals < 60, n = 1, n < nb, n = nb, n not a multiple of nb; LinAlgError with
LAPACK's info; the plan of a complex call; PyTorch tensors; and the functions without complex matrices refusing
them, naming the argument (the complex QR: test_qr_complex.py; potri: test_potri_complex.py)."""
import numpy
import pytest

import starfact
from support import CDTYPES, LIMIT, NB, ORDERS, eps, hermitian, layout


def general(rng, n, dtype, cols=None):
    """A random n x cols matrix (square without cols), real and imaginary parts uniform in [-0.5, 0.5]."""
    shape = (n, n if cols is None else cols) if cols != 0 else (n,)
    return (rng.uniform(-0.5, 0.5, shape) + 1j * rng.uniform(-0.5, 0.5, shape)).astype(dtype)


def norm1(x):
    x = numpy.asarray(x, dtype=numpy.complex128)
    return numpy.linalg.norm(x.reshape(x.shape[0], -1), 1)


def cholesky_residual(a, c, lower, dtype):
    """||A - L L^H||_1 / (||A||_1 n eps) for the factor in the `lower` triangle of c (upper: U^H U)."""
    a = numpy.asarray(a, dtype=numpy.complex128)
    c = numpy.asarray(c, dtype=numpy.complex128)
    l = numpy.tril(c) if lower else numpy.triu(c).conj().T
    return norm1(a - l @ l.conj().T) / (norm1(a) * a.shape[0] * eps(dtype))


def solve_residual(a, x, b, dtype):
    """||A X - B||_1 / (||A||_1 ||X||_1 n eps)."""
    a, x, b = (numpy.asarray(v, dtype=numpy.complex128) for v in (a, x, b))
    return norm1(a @ x - b) / (norm1(a) * norm1(x) * a.shape[0] * eps(dtype))


def lu_residual(a, lu, piv, dtype):
    """||P A - L U||_1 / (||A||_1 n eps) for 0-based piv."""
    a = numpy.asarray(a, dtype=numpy.complex128)
    lu = numpy.asarray(lu, dtype=numpy.complex128)
    n = a.shape[0]
    pa = a.copy()
    for i, p in enumerate(numpy.asarray(piv)):
        pa[[i, p]] = pa[[p, i]]
    l = numpy.tril(lu, -1) + numpy.eye(n)
    return norm1(pa - l @ numpy.triu(lu)) / (norm1(a) * n * eps(dtype))


def only_triangle(a, lower):
    """a with NaN in the triangle that must not be read and an imaginary part on its diagonal, which the
    factorizations take as zero (LAPACK's cpotrf/zpotrf)."""
    n = a.shape[0]
    given = a + 0.25j * numpy.eye(n, dtype=a.dtype)
    other = numpy.triu(numpy.ones((n, n), bool), 1) if lower else numpy.tril(numpy.ones((n, n), bool), -1)
    given[other] = numpy.nan
    return given


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", ORDERS)
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("order", ["C", "F"])
def test_potrf_potrs(rng, dtype, n, lower, order):
    a = hermitian(rng, n, dtype)
    given = layout(only_triangle(a, lower), order)
    before = given.copy()
    c, lw = starfact.potrf(given, lower=lower, nb=NB)
    assert lw is lower and c.dtype == dtype and c.shape == (n, n)
    numpy.testing.assert_array_equal(given, before)  # a only read
    assert cholesky_residual(a, c, lower, dtype) < LIMIT
    # numpy's factor: L with a = L L^H; the upper factor is its conjugate transpose
    expected = numpy.linalg.cholesky(a.astype(numpy.complex128))
    got = numpy.tril(c) if lower else numpy.triu(c).conj().T
    assert numpy.allclose(got, expected, rtol=0, atol=50 * n * eps(dtype))
    for nrhs in (None, 1, 5):
        b = general(rng, n, dtype, 0 if nrhs is None else nrhs)
        b_in = layout(b, order)
        x = starfact.potrs((c, lw), b_in, nb=NB)
        assert x.shape == b.shape and x.dtype == dtype
        numpy.testing.assert_array_equal(b_in, b)  # b only read
        assert solve_residual(a, x, b, dtype) < LIMIT
        assert numpy.allclose(x, numpy.linalg.solve(a.astype(numpy.complex128), b), rtol=0,
                              atol=100 * n * eps(dtype) * numpy.abs(x).max())


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", ORDERS)
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("nrhs", [None, 3])
def test_posv(rng, dtype, n, lower, nrhs):
    a = hermitian(rng, n, dtype)
    b = general(rng, n, dtype, 0 if nrhs is None else nrhs)
    x = starfact.posv(only_triangle(a, lower), b, lower=lower, nb=NB)
    assert x.shape == b.shape and x.dtype == dtype
    assert solve_residual(a, x, b, dtype) < LIMIT
    x_async = starfact.posv_async(a, b, lower=lower).wait()  # the plan's tiles
    assert solve_residual(a, x_async, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", CDTYPES)
def test_cholesky_in_place(rng, dtype):
    n = 2 * NB + 3
    a = hermitian(rng, n, dtype)
    a_in = numpy.asfortranarray(a)
    c, _ = starfact.potrf(a_in, lower=True, overwrite_a=True, nb=NB)
    assert c is a_in and cholesky_residual(a, c, True, dtype) < LIMIT
    b = general(rng, n, dtype)
    b_in = numpy.asfortranarray(b)
    assert starfact.potrs((c, True), b_in, overwrite_b=True, nb=NB) is b_in
    assert solve_residual(a, b_in, b, dtype) < LIMIT
    # the upper triangle of a C-ordered array is the library's lower one: in place too
    a_c = a.copy(order="C")
    u, _ = starfact.potrf(a_c, lower=False, overwrite_a=True, nb=NB)
    assert u is a_c and cholesky_residual(a, u, False, dtype) < LIMIT


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", ORDERS)
@pytest.mark.parametrize("order", ["C", "F"])
def test_getrf_getrs(rng, dtype, n, order):
    a = general(rng, n, dtype)
    b = general(rng, n, dtype, 4)
    a_in = layout(a, order)
    lu, piv = starfact.getrf(a_in, nb=NB)
    numpy.testing.assert_array_equal(a_in, a)
    assert lu.dtype == dtype and piv.dtype == numpy.int32 and piv.shape == (n,)
    assert lu_residual(a, lu, piv, dtype) < LIMIT
    x = starfact.getrs((lu, piv), layout(b, order), nb=NB)
    assert x.dtype == dtype and solve_residual(a, x, b, dtype) < LIMIT
    assert numpy.allclose(x, numpy.linalg.solve(a.astype(numpy.complex128), b), rtol=0,
                          atol=1e3 * n * eps(dtype) * numpy.abs(x).max())


@pytest.mark.parametrize("dtype", CDTYPES)
def test_getrf_as_scipy(rng, dtype):
    linalg = pytest.importorskip("scipy.linalg")
    n = 3 * NB + 7
    a = general(rng, n, dtype)
    lu, piv = starfact.getrf(a, nb=NB)
    lu_s, piv_s = linalg.lu_factor(a)
    if dtype == numpy.complex128:  # LAPACK's pivots (largest |re| + |im|); float32 rounding may break a near tie
        numpy.testing.assert_array_equal(piv, piv_s)
    if numpy.array_equal(piv, piv_s):
        assert numpy.allclose(lu, lu_s, rtol=0, atol=1e3 * n * eps(dtype))
    b = general(rng, n, dtype, 2)
    x = linalg.lu_solve((lu, piv), b)  # SciPy solves with starfact's factors
    assert solve_residual(a, x, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", ORDERS)
@pytest.mark.parametrize("nrhs", [None, 1, 6])
def test_gesv(rng, dtype, n, nrhs):
    a = general(rng, n, dtype)
    b = general(rng, n, dtype, 0 if nrhs is None else nrhs)
    x = starfact.gesv(a, b, nb=NB)
    assert x.shape == b.shape and x.dtype == dtype
    assert solve_residual(a, x, b, dtype) < LIMIT
    x = starfact.gesv_async(numpy.asfortranarray(a), b).wait()
    assert solve_residual(a, x, b, dtype) < LIMIT


def test_python_lists():
    x = starfact.gesv([[2 + 1j, 0], [1j, 1]], [1, 1j])
    assert x.dtype == numpy.complex128
    assert numpy.allclose(numpy.array([[2 + 1j, 0], [1j, 1]]) @ x, [1, 1j])


@pytest.mark.parametrize("dtype", CDTYPES)
def test_linalg_errors(rng, dtype):
    n = 40
    a = hermitian(rng, n, dtype)
    a[20, 20] = -1000  # the leading minor of order 21 is not positive definite
    b = general(rng, n, dtype)
    for lower in (False, True):
        with pytest.raises(starfact.LinAlgError) as e:
            starfact.potrf(a, lower=lower, nb=16)
        assert e.value.info == 21 and isinstance(e.value, numpy.linalg.LinAlgError)
        with pytest.raises(starfact.LinAlgError) as e:
            starfact.posv(a, b, lower=lower, nb=16)
        assert e.value.info == 21
    g = general(rng, n, dtype)
    g[:, 7] = 0  # U[7, 7] is exactly zero
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.getrf(g, nb=16)
    assert e.value.info == 8
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.gesv(g, b, nb=16)
    assert e.value.info == 8


@pytest.mark.parametrize("dtype", CDTYPES)
def test_plan(rng, dtype):
    a = hermitian(rng, 100, dtype)
    b = general(rng, 100, dtype, 2)
    element = "c64" if dtype == numpy.complex64 else "c128"
    p = starfact.plan("posv", a, b, machine=(8, 4, 1))
    assert (p.element, p.arithmetic, p.refined, p.nb, p.diag) == (element, element, False, 100, "cusolver")
    p = starfact.plan("potrf", numpy.zeros((3000, 3000), dtype), machine=(8, 0, 0), nb=64)
    assert (p.element, p.nb, p.tasks, p.diag, p.streams) == (element, 64, "hybrid", None, 0)
    p = starfact.plan("gesv", a, b, machine=(8, 4, 1))
    q = starfact.plan("gesv", a.real.copy(), b.real.copy(), machine=(8, 4, 1))  # the real LU's tiles and tasks
    assert (p.tasks, p.residency, p.nb) == (q.tasks, q.residency, q.nb)
    p = starfact.plan("getrf", numpy.zeros((20000, 20000), dtype), mapping="gpu-only", machine=(8, 4, 1))
    assert (p.tasks, p.nb) == ("gpu-only", 2048)
    p = starfact.plan("potri", a, machine=(8, 4, 1))  # the real inverse's tiles, the complex Cholesky's kernels
    q = starfact.plan("potri", a.real.copy(), machine=(8, 4, 1))
    assert (p.element, p.arithmetic, p.diag, p.nb, p.tasks) == (element, element, "cusolver", q.nb, q.tasks)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_refused_elsewhere(rng, dtype):
    n = 6
    a = hermitian(rng, n, dtype)
    b = general(rng, n, dtype)
    refusals = [
        (lambda: starfact.slogdet(a), "a"), (lambda: starfact.cho_logdet((a, True)), "c"),
    ]
    for call, name in refusals:
        with pytest.raises(TypeError) as e:
            call()
        assert "argument '%s'" % name in str(e.value) and "complex" in str(e.value), str(e.value)
    # the mixed-precision solve (complex128 only, factor fp32 or tf32) and the real factorizations' options
    if dtype == numpy.complex64:
        for keyword in ({"factor": "tf32"}, {"factor": "native"}, {"tolerance": 1e-6}, {"always_low": True}):
            with pytest.raises(ValueError) as e:
                starfact.posv(a, b, **keyword)
            assert "argument '%s'" % next(iter(keyword)) in str(e.value)
    else:
        for factor in ("bf16", "fp16", "tf32x3"):
            with pytest.raises(starfact.ArgumentError) as e:
                starfact.posv(a, b, factor=factor)
            assert e.value.argument == "factor", str(e.value)
        with pytest.raises(starfact.ArgumentError) as e:
            starfact.posv(a, b, factor="tf32", tile_tolerance=1e-3)
        assert e.value.argument == "tile_tolerance", str(e.value)
    for call, name in ((lambda: starfact.potrf(a, factor="tf32"), "factor"),
                       (lambda: starfact.potrf(a, variant="left"), "variant"),
                       (lambda: starfact.potrf(a, diag="fused"), "diag"),
                       (lambda: starfact.potrf(a, panel="inverse"), "panel"),
                       (lambda: starfact.gesv(a, b, variant="noprio"), "variant")):
        with pytest.raises(starfact.ArgumentError) as e:
            call()
        assert e.value.argument == name, str(e.value)
    # a complex matrix with real right-hand sides, and the reverse
    with pytest.raises(TypeError, match="argument 'b'"):
        starfact.gesv(a, b.real.copy())
    with pytest.raises(TypeError, match="argument 'b'"):
        starfact.posv(a.real.copy(), b)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_torch(rng, dtype):
    torch = pytest.importorskip("torch")
    tdtype = torch.complex64 if dtype == numpy.complex64 else torch.complex128
    n = 2 * NB + 5
    a, g, b = hermitian(rng, n, dtype), general(rng, n, dtype), general(rng, n, dtype, 3)
    ta, tg, tb = torch.from_numpy(a.copy()), torch.from_numpy(g.copy()), torch.from_numpy(b.copy())
    for lower in (False, True):
        c, lw = starfact.potrf(ta, lower=lower, nb=NB)
        assert isinstance(c, torch.Tensor) and c.dtype == tdtype
        assert cholesky_residual(a, c.numpy(), lower, dtype) < LIMIT
        x = starfact.potrs((c, lw), tb, nb=NB)
        assert isinstance(x, torch.Tensor) and x.dtype == tdtype and solve_residual(a, x.numpy(), b, dtype) < LIMIT
        x = starfact.posv(ta, tb, lower=lower, nb=NB)
        assert isinstance(x, torch.Tensor) and solve_residual(a, x.numpy(), b, dtype) < LIMIT
    lu, piv = starfact.getrf(tg, nb=NB)
    assert isinstance(lu, torch.Tensor) and lu.dtype == tdtype and isinstance(piv, torch.Tensor)
    assert lu_residual(g, lu.numpy(), piv.numpy(), dtype) < LIMIT
    x = starfact.getrs((lu, piv), tb, nb=NB)
    assert isinstance(x, torch.Tensor) and solve_residual(g, x.numpy(), b, dtype) < LIMIT
    x = starfact.gesv(tg, tb, nb=NB)
    assert isinstance(x, torch.Tensor) and solve_residual(g, x.numpy(), b, dtype) < LIMIT
    assert torch.equal(ta, torch.from_numpy(a)) and torch.equal(tb, torch.from_numpy(b))  # inputs untouched
    # a lazily conjugated tensor (conj bit): its values
    x = starfact.gesv(tg.conj(), tb, nb=NB)
    assert solve_residual(g.conj(), x.numpy(), b, dtype) < LIMIT
    assert torch.equal(tg, torch.from_numpy(g))


@pytest.mark.parametrize("lower", (False, True))
def test_mixed_posv_complex128(rng, lower):
    """The mixed-precision solve of a complex128 Hermitian matrix from a complex64 factor (CPU workers compute it in
    complex64 whatever the factor): complex128 accuracy, the report, a left as it was; n not a multiple of nb.
    always_low: the refined path on every machine (on GPUs the plan factors these small orders directly)."""
    dtype = numpy.complex128
    for n in (1, NB - 3, 2 * NB + 5):
        a, b = hermitian(rng, n, dtype), general(rng, n, dtype, 2)
        for factor in ("fp32", "tf32"):
            a_in = a.copy()
            x, report = starfact.posv(a_in, b, lower=lower, factor=factor, nb=NB, always_low=True)
            assert report.path in ("refined", "gmres"), (n, factor, report)
            assert report.factor == factor
            assert report.backward_error <= report.tolerance
            r = b - a @ x
            berr = numpy.abs(r).max(axis=0) / (numpy.abs(a).sum(axis=1).max() * numpy.abs(x).max(axis=0) +
                                               numpy.abs(b).max(axis=0))
            assert berr.max() <= 2 * report.tolerance, (n, factor, lower, berr)
            assert numpy.array_equal(a_in, a)

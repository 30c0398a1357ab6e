"""Complex matrices through the QR from Python (qr, geqrf, ormqr, orgqr, gels, lstsq and their _async forms), in
complex64 and complex128: ||I - Q^H Q||, ||A - Q R||, ormqr (Q and Q^H, both sides, vectors) against the thin Q
and its round trips, the least-squares normal equations < 60, R against NumPy's (numpy.linalg.qr) up to the
phases of its rows, x and the residues against NumPy's and SciPy's lstsq (the minimum-norm solution of a wide
matrix); tall, square and wide, m = n = 1, n < nb, m not a multiple of nb; the trees; C and Fortran order, in place;
LinAlgError with the column of a NaN; refusals naming the argument; the plan; PyTorch tensors; and CUDA arrays
(PyTorch, CuPy, JAX), which skip without a CUDA build and device."""
import numpy
import pytest

import starfact
from support import CDTYPES, LIMIT, NB, cupy_cuda, eps, jax_gpu, layout, needs_cuda, torch_cuda


# (m, n): 1 x 1, square below nb, n = 1, tall with m not a multiple of nb, square over several tiles, wide
SHAPES = [(1, 1), (NB - 5, NB - 5), (3 * NB + 7, 1), (3 * NB + 7, NB + 3), (2 * NB + 1, 2 * NB + 1),
          (NB - 3, 2 * NB + 5), (1, 7)]
TREES = ["flat", "binary", "domains=2", "auto", "panel"]


def general(rng, m, n, dtype):
    """A random m x n matrix (n None: an m-vector), real and imaginary parts uniform in [-0.5, 0.5]."""
    shape = (m,) if n is None else (m, n)
    return (rng.uniform(-0.5, 0.5, shape) + 1j * rng.uniform(-0.5, 0.5, shape)).astype(dtype)


def c128(x):
    return numpy.asarray(x, dtype=numpy.complex128)


def norm1(x):
    x = c128(x)
    return numpy.linalg.norm(x.reshape(x.shape[0], -1), 1)


def orthogonality(q, dtype):
    """||I - Q^H Q||_1 / (m eps) for an m x k Q."""
    q = c128(q)
    m, k = q.shape
    return norm1(numpy.eye(k) - q.conj().T @ q) / (max(1, m) * eps(dtype))


def qr_residual(a, q, r, dtype):
    """||A - Q R||_1 / (||A||_1 max(m, n) eps)."""
    a = c128(a)
    return norm1(a - c128(q) @ c128(r)) / (norm1(a) * max(a.shape) * eps(dtype))


def lstsq_residual(a, x, b, dtype):
    """The normal equations' residual ||A^H (A X - B)||_1 / (||A||_1 (||A||_1 ||X||_1 + ||B||_1) m eps)."""
    a, x, b = c128(a), c128(x), c128(b)
    na = norm1(a)
    return norm1(a.conj().T @ (a @ x - b)) / (na * (na * norm1(x) + norm1(b)) * max(a.shape) * eps(dtype))


def solve_residual(a, x, b, dtype):
    """||A X - B||_1 / (||A||_1 ||X||_1 n eps)."""
    a, x, b = c128(a), c128(x), c128(b)
    return norm1(a @ x - b) / (norm1(a) * norm1(x) * max(a.shape) * eps(dtype))


def distance(x, y, scale, dtype, m=None):
    """||X - Y||_1 / (scale m eps), m: X's rows unless given."""
    x = c128(x)
    return norm1(x - c128(y)) / (scale * max(1, x.shape[0] if m is None else m) * eps(dtype))


def upper(r):
    r = numpy.asarray(r)
    return numpy.array_equal(r, numpy.triu(r))


def same_r(r, r_ref, dtype):
    """R against another QR's: equal up to a unit-modulus factor per row (the reflectors' phases), so equal in
    modulus."""
    r, r_ref = c128(r), c128(r_ref)
    return numpy.abs(numpy.abs(r) - numpy.abs(r_ref)).max() <= 50 * max(r.shape) * eps(dtype) * numpy.abs(r_ref).max()


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_qr_economic(rng, dtype, shape, order):
    m, n = shape
    k = min(m, n)
    a = general(rng, m, n, dtype)
    a_in = layout(a, order)
    q, r = starfact.qr(a_in, nb=NB)
    numpy.testing.assert_array_equal(a_in, a)  # not overwritten
    assert q.shape == (m, k) and r.shape == (k, n) and q.dtype == dtype and r.dtype == dtype and upper(r)
    assert orthogonality(q, dtype) < LIMIT
    assert qr_residual(a, q, r, dtype) < LIMIT
    assert same_r(r, numpy.linalg.qr(c128(a), mode="r"), dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(2 * NB + 9, NB + 2), (NB + 2, 2 * NB + 9)])
def test_qr_modes(rng, dtype, shape):
    m, n = shape
    a = general(rng, m, n, dtype)
    q, r = starfact.qr(a, mode="full", nb=NB)
    assert q.shape == (m, m) and r.shape == (m, n) and upper(r) and q.dtype == dtype
    assert orthogonality(q, dtype) < LIMIT and qr_residual(a, q, r, dtype) < LIMIT
    (r_only,) = starfact.qr(a, mode="r", nb=NB)
    assert r_only.shape == (m, n) and same_r(r_only, r, dtype)
    linalg = pytest.importorskip("scipy.linalg")
    assert same_r(r_only, linalg.qr(a, mode="r")[0], dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("tree", TREES)
def test_trees(rng, dtype, tree):
    m, n = 7 * NB + 5, 2 * NB + 3
    a = general(rng, m, n, dtype)
    b = general(rng, m, 3, dtype)
    f = starfact.geqrf(a, tree=tree, nb=NB)
    assert f.tree == tree and f.nb == NB and f.shape == (m, n) and f.dtype == dtype and f.fallback is None
    q = starfact.orgqr(f)
    assert q.dtype == dtype and orthogonality(q, dtype) < LIMIT and qr_residual(a, q, f.r(), dtype) < LIMIT
    x = starfact.gels(a, b, tree=tree, nb=NB)
    assert x.dtype == dtype and lstsq_residual(a, x, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(3 * NB + 7, NB + 3), (NB - 3, 2 * NB + 5), (1, 1)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_ormqr(rng, dtype, shape, order):
    m, n = shape
    k = min(m, n)
    a = general(rng, m, n, dtype)
    f = starfact.geqrf(layout(a, order), nb=NB)
    q = c128(starfact.orgqr(f))
    c = general(rng, m, 4, dtype)
    c_in = layout(c, order)
    scale = norm1(c)
    # Q^H c: its first k rows hold the coefficients of c on the thin Q's columns; Q (Q^H c) = c
    qhc = starfact.ormqr(f, c_in, "C")
    numpy.testing.assert_array_equal(c_in, c)
    assert qhc.shape == c.shape and qhc.dtype == dtype
    assert distance(qhc[:k], q.conj().T @ c128(c), scale, dtype) < LIMIT
    assert distance(starfact.ormqr(f, qhc, trans="N"), c, scale, dtype) < LIMIT
    # Q^H A = [R; 0]
    qha = starfact.ormqr(f, a, "c")
    assert distance(qha[:k], f.r(), norm1(a), dtype, m) < LIMIT
    assert m == k or distance(qha[k:], 0 * qha[k:], norm1(a), dtype, m) < LIMIT
    # Q E = the thin Q (E: the first k columns of the identity)
    assert distance(starfact.ormqr(f, numpy.eye(m, k, dtype=dtype)), q, 1.0, dtype) < LIMIT
    # from the right: d Q's first k columns are d times the thin Q; (d Q) Q^H = d
    d = general(rng, 3, m, dtype)
    dq = starfact.ormqr(f, layout(d, order), "N", side="R")
    assert dq.shape == d.shape and distance(dq[:, :k].T, (c128(d) @ q).T, norm1(d.T), dtype, m) < LIMIT
    assert distance(starfact.ormqr(f, dq, "C", side="right").T, d.T, norm1(d.T), dtype) < LIMIT
    # vectors: a column from the left, a row from the right (c Q as the conjugate of Q^H conj(c))
    v = c[:, 0].copy()
    assert distance(starfact.ormqr(f, starfact.ormqr(f, v, "C")), v, norm1(v), dtype) < LIMIT
    w = d[0].copy()
    for trans in ("N", "C"):
        row = starfact.ormqr(f, w, trans, side="R")
        assert row.shape == (m,) and row.dtype == dtype
        numpy.testing.assert_array_equal(w, d[0])  # the caller's row untouched
        expected = starfact.ormqr(f, w[None, :], trans, side="R")[0]
        assert distance(row, expected, norm1(w), dtype) < LIMIT
    # trans "T" (Q^T) is refused for a complex Q, naming trans
    with pytest.raises(ValueError, match="argument 'trans'"):
        starfact.ormqr(f, c, "T")
    with pytest.raises(ValueError, match="argument 'trans'"):
        starfact.ormqr(f, w, "T", side="R")


def _vector_or_matrix(rng, m, nrhs, dtype):
    return general(rng, m, None if nrhs is None else nrhs, dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("nrhs", [None, 3])
def test_lstsq(rng, dtype, shape, nrhs):
    m, n = shape
    a = general(rng, m, n, dtype) + 0.5 * numpy.eye(m, n, dtype=dtype)
    b = _vector_or_matrix(rng, m, nrhs, dtype)
    x, residues, rank, s = starfact.lstsq(a, b, nb=NB)
    assert x.shape == (n,) + b.shape[1:] and x.dtype == dtype and rank == min(m, n) and s is None
    x_np, res_np, _, _ = numpy.linalg.lstsq(c128(a), c128(b), rcond=None)
    tol = 1e3 * max(m, n) * eps(dtype) * max(1.0, numpy.abs(x_np).max())
    assert numpy.abs(c128(x) - x_np).max() <= tol
    if m >= n:
        assert lstsq_residual(a, x, b, dtype) < LIMIT
    else:
        assert solve_residual(a, x, b, dtype) < LIMIT  # consistent: A x = b, x the minimum-norm solution
    real = numpy.finfo(dtype).dtype
    assert residues.dtype == real
    if m > n:
        assert residues.shape == (() if nrhs is None else (nrhs,))
        assert numpy.allclose(residues, res_np, rtol=1e3 * m * eps(dtype), atol=1e3 * m * eps(dtype))
    else:
        assert residues.shape == (0,)
    x2 = starfact.gels(a, b, nb=NB, tree="binary")
    assert numpy.abs(c128(x2) - x_np).max() <= tol


@pytest.mark.parametrize("dtype", CDTYPES)
def test_lstsq_as_scipy(rng, dtype):
    linalg = pytest.importorskip("scipy.linalg")
    for m, n in ((3 * NB + 7, NB + 3), (NB + 3, 3 * NB + 7)):
        a = general(rng, m, n, dtype)
        b = general(rng, m, 2, dtype)
        x, residues, rank, _ = starfact.lstsq(a, b, nb=NB)
        x_s, res_s, rank_s, _ = linalg.lstsq(a, b)
        assert rank == rank_s
        assert numpy.abs(c128(x) - x_s).max() <= 1e3 * max(m, n) * eps(dtype) * numpy.abs(x_s).max()
        if m > n:
            assert numpy.allclose(residues, res_s, rtol=1e3 * m * eps(dtype))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_in_place(rng, dtype):
    m, n = 3 * NB + 7, NB + 3
    a = general(rng, m, n, dtype)
    b = general(rng, m, 2, dtype)
    a_f = numpy.asfortranarray(a)
    f = starfact.geqrf(a_f, overwrite_a=True, nb=NB)
    assert f.qr is a_f and qr_residual(a, starfact.orgqr(f), f.r(), dtype) < LIMIT
    c_f = numpy.asfortranarray(b)
    assert starfact.ormqr(f, c_f, "C", overwrite_c=True) is c_f
    a_f, b_f = numpy.asfortranarray(a), numpy.asfortranarray(b)
    x = starfact.gels(a_f, b_f, overwrite_a=True, overwrite_b=True, nb=NB)
    assert numpy.shares_memory(x, b_f) and lstsq_residual(a, x, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", CDTYPES)
def test_async(rng, dtype):
    m, n = 2 * NB + 3, NB + 1
    a = general(rng, m, n, dtype)
    b = general(rng, m, 2, dtype)
    jobs = [starfact.qr_async(a, nb=NB), starfact.lstsq_async(a, b, nb=NB), starfact.geqrf_async(a, nb=NB),
            starfact.gels_async(a, b, nb=NB)]
    q, r = jobs[0].wait()
    assert qr_residual(a, q, r, dtype) < LIMIT
    assert lstsq_residual(a, jobs[1].wait()[0], b, dtype) < LIMIT
    f = jobs[2].wait()
    assert distance(starfact.ormqr_async(f, b, "C").wait()[:n], c128(starfact.orgqr_async(f).wait()).conj().T @ b,
                    norm1(b), dtype) < LIMIT
    assert lstsq_residual(a, jobs[3].wait(), b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("tree", ["flat", "binary"])
def test_breakdown(rng, dtype, tree):
    m, n = 3 * NB + 7, NB + 3
    for column, value in ((NB + 1, numpy.nan), (4, complex(0.5, numpy.inf))):
        a = general(rng, m, n, dtype)
        a[m // 2, column] = value
        b = general(rng, m, 2, dtype)
        for call in (lambda: starfact.geqrf(a, tree=tree, nb=NB), lambda: starfact.qr(a, tree=tree, nb=NB),
                     lambda: starfact.gels(a, b, tree=tree, nb=NB), lambda: starfact.lstsq(a, b, tree=tree, nb=NB)):
            with pytest.raises(starfact.LinAlgError) as e:
                call()
            assert e.value.info == column + 1, str(e.value)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_refusals(rng, dtype):
    m, n = 20, 6
    a = general(rng, m, n, dtype)
    b = general(rng, m, 2, dtype)
    f = starfact.geqrf(a, nb=8)
    for kind, argument, call in [
            (TypeError, "b", lambda: starfact.gels(a, b.real.copy())),
            (TypeError, "b", lambda: starfact.lstsq(a.real.copy(), b)),
            (TypeError, "c", lambda: starfact.ormqr(f, b.real.copy())),
            (TypeError, "c", lambda: starfact.ormqr(f, b.astype(numpy.complex64 if dtype == numpy.complex128
                                                                  else numpy.complex128))),
            (ValueError, "trans", lambda: starfact.ormqr(f, b, "T")),
            (ValueError, "trans", lambda: starfact.ormqr(f, b, "H"))]:
        with pytest.raises(kind) as e:
            call()
        assert "argument '%s'" % argument in str(e.value), str(e.value)
    # found by the library: ArgumentError naming the argument
    for argument, call in [("tree", lambda: starfact.geqrf(a, tree="cholqr")),
                           ("tree", lambda: starfact.gels(a, b, tree="cholqr")),
                           ("tree", lambda: starfact.qr(a, tree="cholqr", fallback=True)),
                           ("variant", lambda: starfact.geqrf(a, variant="left")),
                           ("nb", lambda: starfact.ormqr(f, b, nb=16))]:
        with pytest.raises(starfact.ArgumentError) as e:
            call()
        assert e.value.argument == argument, str(e.value)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_plan(dtype):
    element = "c64" if dtype == numpy.complex64 else "c128"
    tall = numpy.zeros((100000, 64), dtype)
    p = starfact.plan("geqrf", tall, machine=(8, 4, 1))
    assert p.element == element and p.tree is not None and p.tree != "cholqr"
    p = starfact.plan("gels", tall, numpy.zeros((100000, 2), dtype), machine=(8, 4, 1))
    assert p.element == element and p.tree != "cholqr"
    square = numpy.zeros((3000, 3000), dtype)
    p, q = (starfact.plan("geqrf", x, machine=(8, 4, 1)) for x in (square, square.real.copy()))
    assert (p.nb, p.tasks) == (q.nb, q.tasks)  # the real QR's tiles
    with pytest.raises(starfact.ArgumentError) as e:
        starfact.plan("geqrf", tall, tree="cholqr", machine=(8, 4, 1))
    assert e.value.argument == "tree"


@pytest.mark.parametrize("dtype", CDTYPES)
def test_torch(rng, dtype):
    torch = pytest.importorskip("torch")
    m, n = 2 * NB + 5, NB + 2
    a, b = general(rng, m, n, dtype), general(rng, m, 3, dtype)
    ta, tb = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
    q, r = starfact.qr(ta, nb=NB)
    assert isinstance(q, torch.Tensor) and q.dtype == ta.dtype and isinstance(r, torch.Tensor)
    assert orthogonality(q.numpy(), dtype) < LIMIT and qr_residual(a, q.numpy(), r.numpy(), dtype) < LIMIT
    f = starfact.geqrf(ta, nb=NB)
    qhb = starfact.ormqr(f, tb, "C")
    assert isinstance(qhb, torch.Tensor) and distance(qhb[:n].numpy(), c128(q.numpy()).conj().T @ b, norm1(b),
                                                     dtype) < LIMIT
    row = starfact.ormqr(f, tb[:, 0].clone(), "N", side="R")
    assert isinstance(row, torch.Tensor) and distance(row.numpy(), b[:, 0] @ c128(starfact.ormqr(f, numpy.eye(
        m, dtype=dtype))), norm1(b[:, 0]), dtype) < LIMIT
    x, residues, _, _ = starfact.lstsq(ta, tb, nb=NB)
    assert isinstance(x, torch.Tensor) and lstsq_residual(a, x.numpy(), b, dtype) < LIMIT
    assert residues.dtype == (torch.float32 if dtype == numpy.complex64 else torch.float64)
    assert numpy.allclose(residues.numpy(), numpy.linalg.lstsq(c128(a), c128(b), rcond=None)[1],
                          rtol=1e3 * m * eps(dtype))
    # a lazily conjugated tensor (conj bit): its values
    q, r = starfact.qr(ta.conj(), nb=NB)
    assert qr_residual(a.conj(), q.numpy(), r.numpy(), dtype) < LIMIT
    assert torch.equal(ta, torch.from_numpy(a)) and torch.equal(tb, torch.from_numpy(b))


# CUDA device arrays: results of the caller's library on its device; skipped without a CUDA build and device
# (support.needs_cuda).
def _check_device_results(a, b, q, r, x, f_qhb, dtype, to_numpy):
    n = a.shape[1]
    q, r, x, qhb = (to_numpy(v) for v in (q, r, x, f_qhb))
    assert orthogonality(q, dtype) < LIMIT and qr_residual(a, q, r, dtype) < LIMIT
    assert lstsq_residual(a, x, b, dtype) < LIMIT
    assert distance(qhb[:n], c128(q).conj().T @ b, norm1(b), dtype) < LIMIT


@needs_cuda
@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("options", [{}, {"mapping": "gpu-only"}, {"residency": "host"}])
def test_torch_cuda(rng, dtype, options):
    torch = torch_cuda()
    m, n = 5 * NB + 7, 2 * NB + 3
    a, b = general(rng, m, n, dtype), general(rng, m, 2, dtype)
    ta, tb = (torch.from_numpy(v.copy()).cuda() for v in (a, b))
    q, r = starfact.qr(ta, nb=NB, **options)
    assert q.is_cuda and q.dtype == ta.dtype and r.is_cuda
    x = starfact.gels(ta, tb, nb=NB, **options)
    assert x.is_cuda and x.dtype == ta.dtype
    f = starfact.geqrf(ta, nb=NB, **options)
    qhb = starfact.ormqr(f, tb, "C", **options)
    _check_device_results(a, b, q, r, x, qhb, dtype, lambda v: v.cpu().numpy())
    x, _, _, _ = starfact.lstsq(ta[:n - 4], tb[:n - 4], **options)  # wide, the plan's tiles
    assert x.is_cuda and solve_residual(a[:n - 4], x.cpu().numpy(), b[:n - 4], dtype) < LIMIT
    bad = a.copy()
    bad[7, NB + 2] = numpy.nan
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.geqrf(torch.from_numpy(bad).cuda(), nb=NB, **options)
    assert e.value.info == NB + 3
    assert torch.equal(ta.cpu(), torch.from_numpy(a)) and torch.equal(tb.cpu(), torch.from_numpy(b))


@needs_cuda
@pytest.mark.parametrize("dtype", CDTYPES)
def test_cupy_cuda(rng, dtype):
    cupy = cupy_cuda()
    m, n = 3 * NB + 7, NB + 3
    a, b = general(rng, m, n, dtype), general(rng, m, 2, dtype)
    ca, cb = cupy.asarray(a), cupy.asarray(b)
    q, r = starfact.qr(ca, nb=NB)
    x = starfact.gels(ca, cb, nb=NB)
    f = starfact.geqrf(ca, nb=NB)
    qhb = starfact.ormqr(f, cb, "C")
    assert all(isinstance(v, cupy.ndarray) and v.dtype == dtype for v in (q, r, x, qhb))
    _check_device_results(a, b, q, r, x, qhb, dtype, cupy.asnumpy)
    _, residues, _, _ = starfact.lstsq(ca, cb, nb=NB)
    assert isinstance(residues, cupy.ndarray) and residues.dtype == numpy.finfo(dtype).dtype


@needs_cuda
@pytest.mark.parametrize("dtype", CDTYPES)
def test_jax_cuda(rng, dtype):
    jax, gpu = jax_gpu()
    m, n = 3 * NB + 7, NB + 3
    a, b = general(rng, m, n, dtype), general(rng, m, 2, dtype)
    ja, jb = (jax.device_put(v, gpu) for v in (a, b))
    q, r = starfact.qr(ja, nb=NB)
    x = starfact.gels(ja, jb, nb=NB)
    f = starfact.geqrf(ja, nb=NB)
    qhb = starfact.ormqr(f, jb, "C")
    assert all(v.dtype == dtype for v in (q, r, x, qhb))
    _check_device_results(a, b, q, r, x, qhb, dtype, numpy.asarray)
    numpy.testing.assert_array_equal(numpy.asarray(ja), a)

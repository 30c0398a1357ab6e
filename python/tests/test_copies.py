"""What the operations copy on NumPy arrays, counted by the C ABI (starfact_c_copy_counters) and by tracemalloc
(NumPy reports its allocations there): arrays whose layout allows it are viewed where they lie, in place, with no
copy and no allocation; the rest costs the copies docs/python.md lists. Every solution's residual is checked."""
import tracemalloc

import numpy
import pytest

import starfact
from starfact import _clib
from support import DTYPES, LIMIT, NB, cholesky_residual, general, lu_residual, rhs, solve_residual, spd

N = 3 * NB + 7


class Counted:
    """The C ABI's copies (count, bytes) and NumPy's peak allocation in bytes over the `with` block."""

    def __enter__(self):
        self._start = _clib.copy_counters()
        tracemalloc.start()
        return self

    def __exit__(self, *exc):
        _, self.peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        count, nbytes = _clib.copy_counters()
        self.copies, self.bytes = count - self._start[0], nbytes - self._start[1]


def _warm(dtype):
    """One small call first, so that the default runtime's start is not inside the counted block."""
    starfact.posv(spd(numpy.random.default_rng(0), 4, dtype), numpy.ones(4, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order,lower", [("C", False), ("F", True)])
@pytest.mark.parametrize("nrhs", [None, 3])
def test_posv_in_place_copies_nothing(rng, dtype, order, lower, nrhs):
    a = spd(rng, N, dtype)
    b = rhs(rng, N, nrhs, dtype)
    a_in, b_in = numpy.array(a, order=order), numpy.array(b, order="F")
    pa, pb = a_in.ctypes.data, b_in.ctypes.data
    _warm(dtype)
    with Counted() as c:
        x = starfact.posv(a_in, b_in, lower=lower, overwrite_a=True, overwrite_b=True, nb=NB)
    assert x is b_in and x.ctypes.data == pb and a_in.ctypes.data == pa
    assert (c.copies, c.bytes) == (0, 0), "posv copied %d arrays (%d bytes)" % (c.copies, c.bytes)
    assert c.peak < a.nbytes // 4, "NumPy allocated %d bytes" % c.peak
    assert solve_residual(a, x, b, dtype) < LIMIT
    assert cholesky_residual(a, a_in, lower, dtype) < LIMIT  # the factor, in a's memory


@pytest.mark.parametrize("dtype", DTYPES)
def test_posv_default_copies_once_per_array(rng, dtype):
    """overwrite_a=False: a is read in place and copied once into the factor's tiles (the library's, lower triangle);
    b is copied once into x, where the solve runs. Nothing else."""
    a, b = spd(rng, N, dtype), rhs(rng, N, 2, dtype)
    a_in, b_in = a.copy(), numpy.array(b, order="F")
    _warm(dtype)
    with Counted() as c:
        x = starfact.posv(a_in, b_in, nb=NB)
    assert c.copies == 2 and c.bytes == a.nbytes + b.nbytes, (c.copies, c.bytes)
    assert numpy.array_equal(a_in, a) and numpy.array_equal(b_in, b)
    assert solve_residual(a, x, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_potrf_potrs_in_place_copy_nothing(rng, dtype):
    a, b = spd(rng, N, dtype), rhs(rng, N, None, dtype)
    a_in, b_in = a.copy(), b.copy()
    _warm(dtype)
    with Counted() as c:
        f = starfact.potrf(a_in, overwrite_a=True, nb=NB)
        x = starfact.potrs(f, b_in, overwrite_b=True, nb=NB)
    assert f[0] is a_in and x is b_in
    assert (c.copies, c.bytes) == (0, 0)
    assert cholesky_residual(a, a_in, False, dtype) < LIMIT and solve_residual(a, x, b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_lu_in_place_copies_nothing(rng, dtype):
    g, b = general(rng, N, dtype), rhs(rng, N, 2, dtype)
    g_in, b_in = numpy.array(g, order="F"), numpy.array(b, order="F")
    _warm(dtype)
    with Counted() as c:
        lu, piv = starfact.getrf(g_in, overwrite_a=True, nb=NB)
        x = starfact.getrs((lu, piv), b_in, overwrite_b=True, nb=NB)
    assert lu is g_in and x is b_in
    assert (c.copies, c.bytes) == (0, 0)
    assert lu_residual(g, lu, piv, dtype) < LIMIT and solve_residual(g, x, b, dtype) < LIMIT


def test_mixed_posv_in_place_copies_nothing(rng):
    a, b = spd(rng, N, numpy.float64), rhs(rng, N, None, numpy.float64)
    a_in, b_in = a.copy(), b.copy()
    _warm(numpy.float64)
    with Counted() as c:
        x, report = starfact.posv(a_in, b_in, overwrite_a=True, overwrite_b=True, factor="fp32", nb=NB,
                                  always_low=True)
    assert x is b_in and report.path in ("refined", "gmres")
    assert (c.copies, c.bytes) == (0, 0)
    assert numpy.array_equal(numpy.triu(a_in), numpy.triu(a))  # a refined solve leaves a as it was
    assert solve_residual(a, x, b, numpy.float64) < LIMIT


def test_overlapping_arguments_are_copied(rng):
    """b is a column of a's own memory: viewing both, written, would race; the C ABI copies instead."""
    dtype = numpy.float64
    a = spd(rng, N, dtype)
    m = numpy.asfortranarray(numpy.hstack([a, rhs(rng, N, 1, dtype)]))
    b = m[:, N - 1].copy()
    b_in = m[:, N - 1]  # a's last column
    _warm(dtype)
    with Counted() as c:
        x = starfact.posv(m[:, :N], b_in, lower=True, overwrite_a=True, overwrite_b=True, nb=NB)
    assert c.copies > 0
    assert solve_residual(a, x, b, dtype) < LIMIT

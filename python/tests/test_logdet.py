"""slogdet and cho_logdet against numpy.linalg.slogdet: fresh random SPD matrices in both precisions, C, Fortran and
strided layouts, either triangle, n = 1, n < nb, n = nb, n not a multiple of nb; determinants that overflow and
underflow; matrices that are not SPD and bad factors raise LinAlgError with LAPACK's info; a is only read unless
overwrite_a; the submit forms; arguments named."""
import numpy
import pytest

import starfact
from support import DTYPES, NB, ORDERS, eps, layout, spd


def reference(a):
    """numpy.linalg.slogdet of a in float64 (numpy's LU: independent of the Cholesky under test)."""
    sign, logabsdet = numpy.linalg.slogdet(numpy.asarray(a, dtype=numpy.float64))
    return float(sign), float(logabsdet)


def tolerance(n, expected, dtype):
    """A few units of the dtype's roundoff per diagonal entry of the factor, and of float64's relative to the sum
    (taken in float64 whatever the dtype)."""
    return 16 * eps(dtype) * n + 16 * eps(numpy.float64) * abs(expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", ORDERS)
@pytest.mark.parametrize("order", ["C", "F", "strided"])
@pytest.mark.parametrize("lower", [False, True])
def test_slogdet_against_numpy(rng, dtype, n, order, lower):
    a = spd(rng, n, dtype)
    sign0, expected = reference(a)
    assert sign0 == 1.0
    a_in = layout(a, order)
    r = starfact.slogdet(a_in, lower=lower, nb=NB)
    assert isinstance(r, tuple) and isinstance(r.sign, float) and isinstance(r.logabsdet, float)
    sign, logabsdet = r
    assert sign == 1.0
    assert abs(logabsdet - expected) <= tolerance(n, expected, dtype), (logabsdet, expected)
    assert numpy.array_equal(a_in, a)  # overwrite_a=False: a only read
    c = starfact.potrf(a_in, lower=lower, nb=NB)
    assert abs(starfact.cho_logdet(c, nb=NB) - expected) <= tolerance(n, expected, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_default_tiling_and_mappings(rng, dtype):
    """The plan's tile size (256 on CPUs): n above and below it; both mappings a CPU-only runtime runs."""
    for n in (100, 300):
        a = spd(rng, n, dtype)
        _, expected = reference(a)
        for mapping in (None, "cpu-only"):
            assert abs(starfact.slogdet(a, mapping=mapping).logabsdet - expected) <= tolerance(n, expected, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_determinant_overflows_and_underflows(rng, dtype):
    n = 100
    big = 1e30 if dtype == numpy.float32 else 1e200
    a0 = spd(rng, n, numpy.float64)
    _, log0 = reference(a0)
    for scale in (big, 1 / big):
        a = (a0 * scale).astype(dtype)
        with numpy.errstate(over="ignore", under="ignore"):
            assert numpy.linalg.det(a.astype(numpy.float64)) in (0.0, numpy.inf)  # beyond float64 itself
        expected = log0 + n * numpy.log(scale)
        sign, logabsdet = starfact.slogdet(a, nb=NB)
        assert sign == 1.0
        assert abs(logabsdet - expected) <= tolerance(n, expected, dtype), (scale, logabsdet, expected)
        assert abs(starfact.cho_logdet(starfact.potrf(a, nb=NB), nb=NB) - expected) <= tolerance(n, expected, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_not_spd_raises_with_info(rng, dtype):
    n = 3 * NB + 7
    for k, value in ((0, -1.0), (40, 0.0), (n - 1, -5.0), (70, numpy.nan)):
        a = spd(rng, n, dtype)
        a[k, k] = value
        with pytest.raises(starfact.LinAlgError) as e:
            starfact.slogdet(a, nb=NB)
        assert e.value.info == k + 1
        assert isinstance(e.value, numpy.linalg.LinAlgError)
        assert "slogdet" in str(e.value)
    # indefinite, although numpy's slogdet has an answer for it (sign -1): slogdet is for SPD matrices only
    indefinite = numpy.diag(numpy.array([2.0, -3.0], dtype=dtype))
    assert reference(indefinite)[0] == -1.0
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.slogdet(indefinite)
    assert e.value.info == 2


@pytest.mark.parametrize("dtype", DTYPES)
def test_bad_factor_raises_with_info(rng, dtype):
    n = 2 * NB + 3
    c, lower = starfact.potrf(spd(rng, n, dtype), lower=True, nb=NB)
    for k, value in ((0, 0.0), (NB, -1.0), (n - 1, numpy.inf)):
        bad = c.copy()
        bad[k, k] = value
        with pytest.raises(starfact.LinAlgError) as e:
            starfact.cho_logdet((bad, lower), nb=NB)
        assert e.value.info == k + 1
        assert "cho_logdet" in str(e.value)


def test_overwrite_a_factors_in_place(rng):
    n = 2 * NB + 5
    a = numpy.asfortranarray(spd(rng, n, numpy.float64))
    _, expected = reference(a)
    work = a.copy(order="F")
    sign, logabsdet = starfact.slogdet(work, lower=True, overwrite_a=True, nb=NB)
    assert sign == 1.0 and abs(logabsdet - expected) <= tolerance(n, expected, numpy.float64)
    l = numpy.tril(work)
    assert numpy.allclose(l @ l.T, a)  # work holds the factor (lower triangle)
    assert starfact.cho_logdet((work, True)) == pytest.approx(expected, abs=tolerance(n, expected, numpy.float64))


def test_empty_and_one_by_one():
    assert tuple(starfact.slogdet(numpy.zeros((0, 0)))) == (1.0, 0.0) == tuple(numpy.linalg.slogdet(numpy.zeros((0, 0))))
    assert starfact.slogdet(numpy.array([[4.0]])) == (1.0, pytest.approx(numpy.log(4.0)))


def test_async_forms(rng):
    a = spd(rng, 150, numpy.float64)
    _, expected = reference(a)
    job = starfact.slogdet_async(a, nb=NB)
    sign, logabsdet = job.wait()
    assert job.info == 0 and sign == 1.0
    assert abs(logabsdet - expected) <= tolerance(150, expected, numpy.float64)
    job = starfact.cho_logdet_async(starfact.potrf(a, nb=NB), nb=NB)
    assert abs(job.wait() - expected) <= tolerance(150, expected, numpy.float64) and job.info == 0
    bad = a.copy()
    bad[7, 7] = -1.0
    job = starfact.slogdet_async(bad, nb=NB)
    with pytest.raises(starfact.LinAlgError):
        job.wait()
    assert job.info == 8


def test_arguments_named():
    def raises(exc, argument, call):
        with pytest.raises(exc) as e:
            call()
        assert "'%s'" % argument in str(e.value), str(e.value)

    raises(ValueError, "a", lambda: starfact.slogdet(numpy.ones((3, 4))))
    raises(TypeError, "a", lambda: starfact.slogdet(numpy.eye(3, dtype=numpy.int64)))
    raises(ValueError, "c", lambda: starfact.cho_logdet((numpy.ones((3, 4)), True)))
    raises(TypeError, "c_and_lower", lambda: starfact.cho_logdet(numpy.eye(3)))
    raises(ValueError, "mapping", lambda: starfact.slogdet(numpy.eye(3), mapping="everywhere"))
    raises(ValueError, "nb", lambda: starfact.cho_logdet((numpy.eye(3), True), nb=-1))
    for name, call in (("slogdet", lambda: starfact.slogdet(numpy.eye(3), mapping="everywhere")),
                       ("cho_logdet", lambda: starfact.cho_logdet((numpy.eye(3), True), mapping="everywhere"))):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value).startswith("starfact.%s: argument 'mapping' " % name), str(e.value)

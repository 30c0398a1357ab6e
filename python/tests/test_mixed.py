"""The mixed-precision posv (factor=...): double accuracy from a lower-precision factor, its report, GMRES, the
fall-back, and the failure without it."""
import numpy
import pytest

import starfact
from support import LIMIT, NB, layout, rhs, solve_residual, spd


def conditioned_spd(rng, n, cond, split):
    """Q diag(s) Q^T with singular values from 1 down to 1/cond (split: half at 1, half at 1/cond)."""
    q, _ = numpy.linalg.qr(rng.standard_normal((n, n)))
    if split:
        s = numpy.where(numpy.arange(n) < n // 2, 1.0, 1.0 / cond)
    else:
        s = numpy.logspace(0, -numpy.log10(cond), n)
    a = (q * s) @ q.T
    return (a + a.T) / 2


@pytest.mark.parametrize("factor", ["fp32", "tf32", "bf16", "fp16", "tf32x3"])
@pytest.mark.parametrize("n", [1, NB - 3, 3 * NB + 7])
def test_refined_to_double_accuracy(rng, factor, n):
    a = spd(rng, n, numpy.float64)
    b = rhs(rng, n, 2, numpy.float64)
    a_in = a.copy()
    # always_low: with CUDA workers the plan runs the double factorization at these orders (path "direct")
    x, report = starfact.posv(a_in, b, factor=factor, nb=NB, always_low=True)
    assert isinstance(report, starfact.SolveReport)
    assert report.path in ("refined", "gmres"), report
    assert report.factor == factor
    assert report.backward_error <= report.tolerance
    assert solve_residual(a, x, b, numpy.float64) < LIMIT
    assert numpy.array_equal(a_in, a)


@pytest.mark.parametrize("order", ["C", "F"])
def test_report_and_layouts(rng, order):
    n = 2 * NB + 5
    a = spd(rng, n, numpy.float64)
    b = rhs(rng, n, None, numpy.float64)
    x, report = starfact.posv(layout(a, order), b, lower=(order == "F"), factor="tf32")  # the plan's tiles
    assert solve_residual(a, x, b, numpy.float64) < LIMIT
    assert report.seconds >= report.factor_seconds >= 0
    x, report = starfact.posv(a, b, factor="native", nb=NB)
    assert report.path == "direct" and solve_residual(a, x, b, numpy.float64) < LIMIT
    x32, report = starfact.posv(a.astype(numpy.float32), b.astype(numpy.float32), factor="fp32", nb=NB)
    assert report.path == "direct" and solve_residual(a, x32, b, numpy.float32) < LIMIT


def test_gmres(rng):
    n = 130
    a = spd(rng, n, numpy.float64)
    b = rhs(rng, n, 2, numpy.float64)
    x, report = starfact.posv(a, b, factor="fp32", max_iterations=0, fallback=False, time_budget=0, nb=NB)
    assert report.path == "gmres" and report.iterations == 0 and report.gmres_iterations > 0
    assert solve_residual(a, x, b, numpy.float64) < LIMIT


def test_fallback_and_failure(rng):
    n = 96
    a = conditioned_spd(rng, n, 1e13, True)  # indefinite once rounded to float
    b = rhs(rng, n, 1, numpy.float64)
    a_in = a.copy()
    x, report = starfact.posv(a_in, b, overwrite_a=True, factor="fp32", shift_retries=0, nb=NB)
    assert report.path == "fallback" and "broke down" in report.reason
    assert solve_residual(a, x, b, numpy.float64) < LIMIT
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.posv(a, b, factor="fp32", fallback=False, shift_retries=0, nb=NB)
    assert e.value.info == 0 and e.value.report.path == "failed"


def test_breakdown_stops_the_low_precision_factorization(rng):
    # SPD, but the leading 2 x 2 block rounds to a singular one in float32: the float factorization breaks down at
    # column 2, in its first tile, and the rest of its graph is skipped; the float64 fall-back solves
    n = 4 * NB + 3
    a = spd(rng, n, numpy.float64)
    a[:2, :] = 0
    a[:, :2] = 0
    a[0, 0] = a[1, 1] = 1.0
    a[0, 1] = a[1, 0] = 1.0 - 1e-10
    b = rhs(rng, n, 2, numpy.float64)
    x, report = starfact.posv(a, b, factor="fp32", shift_retries=0, nb=NB)
    assert report.path == "fallback" and report.low_info == 2, report
    assert report.skipped_tasks >= 3 + 4 * 3 // 2, report
    assert solve_residual(a, x, b, numpy.float64) < LIMIT
    x, report = starfact.posv(spd(rng, n, numpy.float64), b, factor="fp32", nb=NB)  # nothing breaks down
    assert report.path == "refined" and report.skipped_tasks == 0, report


def test_shift_keeps_the_low_precision(rng):
    n = 96
    a = conditioned_spd(rng, n, 1e10, False)  # the unshifted float factorization breaks down
    b = rhs(rng, n, 1, numpy.float64)
    x, report = starfact.posv(a, b, factor="fp32", fallback=False, time_budget=0, gmres_restart=120,
                              gmres_iterations=1000, nb=NB)
    assert report.path == "gmres" and report.factorizations >= 2 and report.shift > 0, report
    assert solve_residual(a, x, b, numpy.float64) < LIMIT


def test_nonfinite_b_refused(rng):
    n = 40
    a = spd(rng, n, numpy.float64)
    b = rhs(rng, n, 1, numpy.float64)
    b[7] = numpy.nan
    with pytest.raises(ValueError) as e:
        starfact.posv(a, b, factor="fp32", nb=NB)
    assert "NaN or Inf" in str(e.value)


def test_async_with_report(rng):
    n = 3 * NB
    a = spd(rng, n, numpy.float64)
    b = rhs(rng, n, 3, numpy.float64)
    job = starfact.posv_async(a, b, factor="fp32", nb=NB)
    x, report = job.wait()
    assert report.path == "refined" and job.info == 0
    assert solve_residual(a, x, b, numpy.float64) < LIMIT


def test_bad_settings(rng):
    a = spd(rng, 8, numpy.float64)
    b = numpy.ones(8)
    for name, value in (("max_iterations", -1), ("gmres_restart", 0), ("stall_ratio", 2.0), ("tolerance", -1.0),
                        ("shift_retries", -1), ("time_budget", -1.0)):
        with pytest.raises(ValueError) as e:
            starfact.posv(a, b, factor="fp32", **{name: value})
        assert e.value.argument == name
    with pytest.raises(ValueError) as e:
        starfact.posv(a, b, tolerance=1e-10)
    assert "'tolerance'" in str(e.value)
    with pytest.raises(ValueError) as e:
        starfact.posv(a, b, factor="quarter")
    assert e.value.argument == "factor"
    with pytest.raises(ValueError) as e:
        starfact.posv(a.astype(numpy.float32), b.astype(numpy.float32), factor="fp64")
    assert e.value.argument == "factor"
    with pytest.raises(ValueError) as e:
        starfact.potrf(a, factor="tf32")  # a double factorization runs in double
    assert e.value.argument == "factor"


def test_automatic_precision(rng):
    """factor="auto": tf32 where it serves (the report names the rung), the double factorization where it does not."""
    n = 2 * NB + 5
    a = spd(rng, n, numpy.float64)
    b = rhs(rng, n, 1, numpy.float64)
    x, report = starfact.posv(a.copy(), b, factor="auto", nb=NB, always_low=True)
    assert report.path in ("refined", "gmres"), report
    assert report.factor == "tf32"
    assert solve_residual(a, x, b, numpy.float64) < LIMIT
    j = numpy.ones((n, n)) + 1e-9 * numpy.eye(n)  # rounded to float: rank one, every float factor breaks down
    x, report = starfact.posv(j.copy(), b, factor="auto", nb=NB, always_low=True)
    assert report.path == "fallback", report
    assert "broke down" in report.reason
    assert solve_residual(j, x, b, numpy.float64) < LIMIT


def morton_covariance(rng, n, length):
    """exp(-|x_i - x_j| / length) over n random points of the unit square, numbered along a Morton curve."""
    p = rng.random((n, 2))
    q = (p * 65536).astype(numpy.uint64)
    code = numpy.zeros(n, dtype=numpy.uint64)
    for bit in range(16):
        code |= ((q[:, 0] >> numpy.uint64(bit)) & numpy.uint64(1)) << numpy.uint64(2 * bit)
        code |= ((q[:, 1] >> numpy.uint64(bit)) & numpy.uint64(1)) << numpy.uint64(2 * bit + 1)
    p = p[numpy.argsort(code)]
    d = numpy.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(axis=2))
    return numpy.exp(-d / length)


def test_per_tile_arithmetic(rng):
    n, nb = 8 * NB + 5, NB
    a = morton_covariance(rng, n, 0.01)
    b = rhs(rng, n, 2, numpy.float64)
    x, report = starfact.posv(a, b, factor="tf32", tile_tolerance=2.0**-24, always_low=True, nb=nb)
    assert report.path in ("refined", "gmres"), report
    assert solve_residual(a, x, b, numpy.float64) < LIMIT
    assert report.off_diagonal_tiles == 9 * 8 // 2
    assert 0 < report.low_tiles < report.off_diagonal_tiles  # the far tiles, not the ones beside the diagonal
    _, plain = starfact.posv(a, b, factor="tf32", always_low=True, nb=nb)
    assert plain.low_tiles == -1
    with pytest.raises(ValueError, match="tile_tolerance"):
        starfact.posv(a, b, factor="tf32", tile_tolerance=1.5, nb=nb)

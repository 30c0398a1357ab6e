"""NumPy scalars are taken wherever Python ints and floats are (refinement settings, tile sizes, chunks, the
runtime's counts, LSSVC's parameters); bools are refused where a count is meant, and a value the library's fields
cannot hold is refused by name, never truncated."""
import numpy
import pytest

import starfact
from starfact.svm import LSSVC
from support import LIMIT, rhs, solve_residual, spd


def _names(exc, argument, call):
    with pytest.raises(exc) as e:
        call()
    assert "'%s'" % argument in str(e.value), str(e.value)
    return e.value


def test_refinement_settings(rng):
    n = 40
    a = spd(rng, n, numpy.float64)
    b = rhs(rng, n, 2, numpy.float64)
    x, report = starfact.posv(a, b, factor="fp32", max_iterations=numpy.int64(8), gmres_iterations=numpy.int32(20),
                              gmres_restart=numpy.uint8(10), stall_ratio=numpy.float32(0.5),
                              tolerance=numpy.float64(0), shift=numpy.int16(-1), shift_retries=numpy.int64(2),
                              time_budget=numpy.float32(4), fallback=numpy.bool_(True),
                              always_low=numpy.bool_(True), nb=numpy.int64(16))
    assert solve_residual(a, x, b, numpy.float64) < LIMIT
    assert report.path in ("refined", "gmres", "fallback")
    for name in ("max_iterations", "gmres_iterations", "shift_retries"):
        _names(TypeError, name, lambda name=name: starfact.posv(a, b, factor="fp32", **{name: True}))
        _names(TypeError, name, lambda name=name: starfact.posv(a, b, factor="fp32", **{name: 2.0}))
        for big in (2 ** 31, numpy.int64(2 ** 40)):  # beyond the C ABI's 32-bit field: refused, not wrapped
            _names(ValueError, name, lambda name=name, big=big: starfact.posv(a, b, factor="fp32", **{name: big}))
    for name in ("tolerance", "stall_ratio", "time_budget", "shift"):
        _names(TypeError, name, lambda name=name: starfact.posv(a, b, factor="fp32", **{name: numpy.bool_(True)}))
        _names(TypeError, name, lambda name=name: starfact.posv(a, b, factor="fp32", **{name: "1e-9"}))


def test_options(rng):
    a = spd(rng, 30, numpy.float32)
    c, lower = starfact.potrf(a, nb=numpy.int32(8))
    assert not lower and c.shape == (30, 30)
    _names(TypeError, "nb", lambda: starfact.potrf(a, nb=True))
    _names(TypeError, "nb", lambda: starfact.potrf(a, nb=numpy.bool_(True)))
    _names(TypeError, "nb", lambda: starfact.potrf(a, nb=numpy.float64(8)))
    _names(ValueError, "nb", lambda: starfact.potrf(a, nb=numpy.int64(-1)))
    _names(ValueError, "nb", lambda: starfact.potrf(a, nb=2 ** 64))
    if starfact.build_info()["batched_cholesky"]:
        batch = numpy.stack([spd(rng, 4, numpy.float64) for _ in range(6)])
        x = starfact.posv_batched(batch, numpy.ones((6, 4)), chunk=numpy.uint16(2))
        assert numpy.allclose(numpy.einsum("kij,kj->ki", batch, x), 1)
        _names(TypeError, "chunk", lambda: starfact.posv_batched(batch, numpy.ones((6, 4)), chunk=True))


def test_flags(rng):
    a = spd(rng, 12, numpy.float64)
    c, lower = starfact.potrf(a, lower=numpy.bool_(True), overwrite_a=numpy.int64(0))
    assert lower is True and c is not a
    _names(TypeError, "lower", lambda: starfact.potrf(a, lower=numpy.float64(1)))


def test_runtime_counts():
    with starfact.Runtime(ncpus=numpy.int64(1), ncuda=numpy.int32(0), workers_per_gpu=numpy.uint8(1)) as rt:
        assert rt.cpu_workers == 1 and rt.cuda_workers == 0
    _names(TypeError, "ncpus", lambda: starfact.Runtime(ncpus=True))
    _names(TypeError, "ncpus", lambda: starfact.Runtime(ncpus=numpy.float32(2)))
    _names(ValueError, "ncpus", lambda: starfact.Runtime(ncpus=2 ** 32))
    _names(ValueError, "cuda_memory_limit_mb", lambda: starfact.Runtime(cuda_memory_limit_mb=2 ** 63))


def test_lssvc_parameters(rng):
    x = numpy.concatenate([rng.normal(-3, 1, (20, 2)), rng.normal(3, 1, (20, 2))])
    y = numpy.repeat([0, 1], 20)
    model = LSSVC(C=numpy.float32(10), gamma=numpy.float64(0.5), nb=numpy.int64(16)).fit(x, y)
    assert model.score(x, y) >= 0.9
    assert numpy.allclose(model.decision_function(x, block=numpy.int64(7)), model.decision_function(x))
    _names(TypeError, "block", lambda: model.decision_function(x, block=True))

"""Runtime: explicit configuration as a context manager, one at a time, the default one started on demand."""
import numpy
import pytest

import starfact
from support import LIMIT, rhs, solve_residual, spd


def test_context_manager(rng):
    with starfact.Runtime(ncpus=1, scheduler="lws") as rt:
        assert rt.cpu_workers == 1
        assert rt.scheduler == "lws"
        assert "1 CPU worker" in rt.describe()
        assert starfact.runtime() is rt
        a = spd(rng, 40, numpy.float64)
        b = rhs(rng, 40, 1, numpy.float64)
        assert solve_residual(a, starfact.posv(a, b, runtime=rt), b, numpy.float64) < LIMIT
        assert solve_residual(a, starfact.posv(a, b), b, numpy.float64) < LIMIT  # the running one
        with pytest.raises(RuntimeError):
            starfact.Runtime()
    assert rt.closed and "closed" in repr(rt)
    with pytest.raises(ValueError) as e:
        starfact.posv(a, b, runtime=rt)
    assert "'runtime'" in str(e.value)
    rt.close()  # idempotent
    # a default runtime starts again on demand
    assert solve_residual(a, starfact.posv(a, b), b, numpy.float64) < LIMIT
    assert starfact.runtime() is not rt


def test_explicit_runtime_replaces_the_default(rng):
    a = spd(rng, 20, numpy.float64)
    starfact.potrf(a)
    default = starfact.runtime()
    rt = starfact.Runtime(ncpus=2)
    try:
        assert default.closed and starfact.runtime() is rt
    finally:
        rt.close()


def test_bad_configuration():
    with pytest.raises(ValueError) as e:
        starfact.Runtime(ncpus=-2)
    assert "'ncpus'" in str(e.value)
    with pytest.raises(TypeError):
        starfact.Runtime(ncpus="two")
    with pytest.raises(ValueError) as e:
        starfact.Runtime(scheduler="no-such-policy")
    assert getattr(e.value, "argument", "") == "scheduler"
    with pytest.raises(TypeError):
        starfact.Runtime(bogus=1)
    a = numpy.eye(3)
    assert numpy.allclose(starfact.posv(a, numpy.ones(3)), 1)  # a failed start leaves no runtime behind


def test_close_completes_pending_jobs(rng):
    a = spd(rng, 100, numpy.float64)
    rt = starfact.Runtime(ncpus=1)
    job = starfact.potrf_async(a, nb=32, runtime=rt)
    rt.close()
    c, _ = job.wait()
    assert numpy.allclose(numpy.triu(c).T @ numpy.triu(c), a)


def test_build_information():
    assert isinstance(starfact.__version__, str) and starfact.__version__.count(".") == 2
    assert isinstance(starfact.built_with_cuda(), bool)
    assert starfact.cuda_device_count() >= 0
    info = starfact.build_info()
    assert info["version"] == starfact.__version__ and info["cuda"] == starfact.built_with_cuda()

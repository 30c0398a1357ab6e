"""CUDA device arrays (PyTorch, CuPy, JAX through DLPack; Numba through the CUDA Array Interface): results of the
caller's type on the caller's device, no copy where the layout allows (checked by pointer), residuals < 60.
Skipped without a CUDA build, a CUDA device, or the array library."""
import os
import subprocess
import sys
import textwrap
import threading

import numpy
import pytest

import starfact
from support import (LIMIT, NB, cholesky_residual, cupy_cuda, general, inverse_residual, jax_gpu, lstsq_residual,
                     lu_residual, needs_cuda, norm1, orthogonality, qr_residual, rhs, solve_residual, spd, tall,
                     torch_cuda)

pytestmark = needs_cuda

DTYPES = (numpy.float32, numpy.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mapping", [None, "gpu-only"])
def test_torch_cuda(rng, dtype, mapping):
    torch = torch_cuda()
    n = 3 * NB + 7
    a, g, b = spd(rng, n, dtype), general(rng, n, dtype), rhs(rng, n, 3, dtype)
    ta, tg, tb = (torch.from_numpy(x.copy()).cuda() for x in (a, g, b))
    x = starfact.posv(ta, tb, nb=NB, mapping=mapping)
    assert isinstance(x, torch.Tensor) and x.is_cuda and x.device == tb.device
    assert solve_residual(a, x.cpu().numpy(), b, dtype) < LIMIT
    c, lower = starfact.potrf(ta, nb=NB, mapping=mapping)
    assert c.is_cuda and cholesky_residual(a, c.cpu().numpy(), lower, dtype) < LIMIT
    assert solve_residual(a, starfact.potrs((c, lower), tb, nb=NB).cpu().numpy(), b, dtype) < LIMIT
    assert inverse_residual(a, starfact.potri(ta, nb=NB).cpu().numpy(), dtype) < LIMIT
    lu, piv = starfact.getrf(tg, nb=NB, mapping=mapping)
    assert lu.is_cuda and piv.is_cuda
    assert lu_residual(g, lu.cpu().numpy(), piv.cpu().numpy(), dtype) < LIMIT
    assert solve_residual(g, starfact.getrs((lu, piv), tb, nb=NB).cpu().numpy(), b, dtype) < LIMIT
    assert solve_residual(g, starfact.gesv(tg, tb, nb=NB).cpu().numpy(), b, dtype) < LIMIT
    assert torch.equal(ta.cpu(), torch.from_numpy(a))  # inputs untouched


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_cuda_in_place_no_copy(rng, dtype):
    torch = torch_cuda()
    n = 2 * NB + 3
    a, b = spd(rng, n, dtype), rhs(rng, n, 4, dtype)
    ta = torch.from_numpy(a.copy()).cuda()
    tb = torch.from_numpy(b.T.copy()).cuda().t()  # column-major (n, 4)
    pa, pb = ta.data_ptr(), tb.data_ptr()
    x = starfact.posv(ta, tb, overwrite_a=True, overwrite_b=True, nb=NB, residency="device")
    assert x is tb and x.data_ptr() == pb and ta.data_ptr() == pa
    assert solve_residual(a, x.cpu().numpy(), b, dtype) < LIMIT
    assert cholesky_residual(a, ta.cpu().numpy(), False, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [False, True])
def test_device_input_kept_is_copied_by_its_library(rng, dtype, lower):
    """posv, gesv, gels and slogdet as typed on device arrays: the input they overwrite is copied by the caller's
    library and worked on there in place (no copy by the C ABI, none into tiles); the caller's array is untouched."""
    torch = torch_cuda()
    from starfact import _clib  # pylint: disable=import-outside-toplevel
    n = 3 * NB + 5
    a, g, b = spd(rng, n, dtype), general(rng, n, dtype), rhs(rng, n, 2, dtype)
    ta, tg, tb = (torch.from_numpy(x.copy()).cuda() for x in (a, g, b))
    tt = torch.from_numpy(tall(rng, n + 9, n, dtype)).cuda()
    tc = torch.from_numpy(rhs(rng, n + 9, 2, dtype)).cuda()
    before = _clib.copy_counters()
    x = starfact.posv(ta, tb, lower=lower, nb=NB)
    assert _clib.copy_counters() == before  # a and b (row-major) were copied by torch
    assert solve_residual(a, x.cpu().numpy(), b, dtype) < LIMIT
    assert solve_residual(g, starfact.gesv(tg, tb, nb=NB).cpu().numpy(), b, dtype) < LIMIT
    sign, logabsdet = starfact.slogdet(ta, lower=lower, nb=NB)
    s_ref, l_ref = numpy.linalg.slogdet(a.astype(numpy.float64))
    assert sign == s_ref and abs(logabsdet - l_ref) <= 1e-3 * max(1.0, abs(l_ref))
    xs = starfact.gels(tt, tc, nb=NB)
    assert lstsq_residual(tt.cpu().numpy(), xs.cpu().numpy(), tc.cpu().numpy(), dtype) < LIMIT
    for t, ref in ((ta, a), (tg, g), (tb, b)):
        assert torch.equal(t.cpu(), torch.from_numpy(ref))  # inputs untouched


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [False, True])
def test_jax_input_is_copied_by_jax(rng, dtype, lower):
    """posv as typed on JAX arrays: a and b are copied by JAX (none by the C ABI), never written."""
    from starfact import _clib  # pylint: disable=import-outside-toplevel
    jax, gpu = jax_gpu()
    n = 3 * NB + 5
    a, b = spd(rng, n, dtype), rhs(rng, n, 2, dtype)
    ja, jb = jax.device_put(a, gpu), jax.device_put(b, gpu)
    before = _clib.copy_counters()
    x = starfact.posv(ja, jb, lower=lower, nb=NB)
    assert _clib.copy_counters() == before
    assert isinstance(x, jax.Array) and solve_residual(a, numpy.asarray(x), b, dtype) < LIMIT
    assert numpy.array_equal(numpy.asarray(ja), a)


def test_first_runtime_keeps_the_callers_device_memory(tmp_path):
    """The first runtime on a machine measures the bus for StarPU's models: tensors PyTorch allocated before it
    stay valid through it (StarPU 1.3 reset the device after measuring; deps/starpu-bus-no-device-reset.patch)."""
    torch_cuda()
    script = textwrap.dedent("""
        import numpy, torch, starfact
        n = 300
        rng = numpy.random.default_rng(1)
        m = rng.standard_normal((n, n))
        a, b = m @ m.T + n * numpy.eye(n), rng.standard_normal((n, 2))
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        x = starfact.posv(ta, tb).cpu().numpy()
        norm = lambda v: numpy.abs(v).sum(0).max()
        r = norm(a @ x - b) / (norm(a) * norm(x) * n * numpy.finfo(float).eps)
        assert torch.equal(ta.cpu(), torch.from_numpy(a)) and r < 60, r
        print("solved")
    """)
    env = dict(os.environ, STARPU_HOME=str(tmp_path))  # no bus measurements there yet
    env.pop("STARPU_PERF_MODEL_DIR", None)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600,
                         check=False)
    assert out.returncode == 0 and "solved" in out.stdout, out.stdout[-1000:] + out.stderr[-3000:]


def test_torch_cuda_side_stream(rng):
    """Data written on a side stream just before the call is what starfact reads (DLPack's stream contract)."""
    torch = torch_cuda()
    n = 512
    a, b = spd(rng, n, numpy.float64), rhs(rng, n, 2, numpy.float64)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        ta = torch.from_numpy(a).cuda(non_blocking=True) * 1.0
        tb = torch.from_numpy(b).cuda(non_blocking=True) * 1.0
        x = starfact.posv(ta, tb)
        y = x * 1.0  # consumed on the side stream right away
    s.synchronize()
    assert solve_residual(a, y.cpu().numpy(), b, numpy.float64) < LIMIT


def test_torch_cuda_mixed_precision(rng):
    torch = torch_cuda()
    n = 4 * NB
    a, b = spd(rng, n, numpy.float64), rhs(rng, n, 2, numpy.float64)
    x, report = starfact.posv(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), factor="tf32",
                              always_low=True)  # below the order from which the plan takes the tensor cores
    assert x.is_cuda and report.path in ("refined", "gmres", "fallback")
    assert solve_residual(a, x.cpu().numpy(), b, numpy.float64) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_cuda_batched(rng, dtype):
    torch = torch_cuda()
    count, n = 33, 24
    a = numpy.stack([spd(rng, n, dtype) for _ in range(count)])
    g = numpy.stack([general(rng, n, dtype) for _ in range(count)])
    b = rng.uniform(-0.5, 0.5, (count, n, 2)).astype(dtype)
    x = starfact.posv_batched(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda())
    y = starfact.gesv_batched(torch.from_numpy(g).cuda(), torch.from_numpy(b).cuda())
    lu, piv = starfact.getrf_batched(torch.from_numpy(g).cuda())
    z = starfact.getrs_batched((lu, piv), torch.from_numpy(b).cuda())
    assert x.is_cuda and y.is_cuda and piv.is_cuda
    for k in range(count):
        assert solve_residual(a[k], x[k].cpu().numpy(), b[k], dtype) < LIMIT
        assert solve_residual(g[k], y[k].cpu().numpy(), b[k], dtype) < LIMIT
        assert solve_residual(g[k], z[k].cpu().numpy(), b[k], dtype) < LIMIT
    bad = a.copy()
    bad[4, 3, 3] = -1
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.posv_batched(torch.from_numpy(bad).cuda(), torch.from_numpy(b).cuda())
    assert e.value.info == 4 and list(numpy.nonzero(e.value.infos)[0]) == [4]


def test_torch_cuda_threads(rng):
    torch = torch_cuda()
    n = 200
    problems = [(spd(rng, n, numpy.float64), rhs(rng, n, 2, numpy.float64)) for _ in range(8)]
    results = [None] * len(problems)

    def run(i):
        a, b = problems[i]
        results[i] = starfact.posv(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), nb=64).cpu().numpy()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(problems))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for (a, b), x in zip(problems, results):
        assert solve_residual(a, x, b, numpy.float64) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mapping", [None, "gpu-only"])
def test_torch_cuda_slogdet(rng, dtype, mapping):
    """slogdet and cho_logdet of CUDA tensors against numpy.linalg.slogdet (Python floats back), also where the
    determinant overflows; a matrix that is not SPD raises with LAPACK's info."""
    torch = torch_cuda()
    n = 3 * NB + 7
    big = 1e30 if dtype == numpy.float32 else 1e200
    a0 = spd(rng, n, numpy.float64)
    expected0 = float(numpy.linalg.slogdet(a0)[1])
    for scale in (1.0, big):
        a = (a0 * scale).astype(dtype)
        expected = expected0 + n * numpy.log(scale)
        tol = 16 * float(numpy.finfo(dtype).eps) * n + 16 * float(numpy.finfo(numpy.float64).eps) * abs(expected)
        ta = torch.from_numpy(a.copy()).cuda()
        sign, logabsdet = starfact.slogdet(ta, nb=NB, mapping=mapping)
        assert isinstance(logabsdet, float) and sign == 1.0 and abs(logabsdet - expected) <= tol
        assert torch.equal(ta.cpu(), torch.from_numpy(a))  # a only read
        c = starfact.potrf(ta, nb=NB, mapping=mapping)
        assert abs(starfact.cho_logdet(c, nb=NB, mapping=mapping) - expected) <= tol
    bad = a0.astype(dtype)
    bad[40, 40] = -1.0
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.slogdet(torch.from_numpy(bad).cuda(), nb=NB, mapping=mapping)
    assert e.value.info == 41


@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy(rng, dtype):
    cupy = cupy_cuda()
    n = 2 * NB + 9
    a, g, b = spd(rng, n, dtype), general(rng, n, dtype), rhs(rng, n, 3, dtype)
    ca, cg = cupy.asarray(a), cupy.asarray(g)
    cb = cupy.asfortranarray(cupy.asarray(b))
    x = starfact.posv(ca, cb, nb=NB)
    assert isinstance(x, cupy.ndarray) and solve_residual(a, cupy.asnumpy(x), b, dtype) < LIMIT
    ptr = cb.data.ptr
    x = starfact.posv(ca, cb, overwrite_b=True, nb=NB)
    assert x is cb and x.data.ptr == ptr
    assert solve_residual(g, cupy.asnumpy(starfact.gesv(cg, cupy.asarray(b), nb=NB)), b, dtype) < LIMIT
    assert cupy.array_equal(ca, cupy.asarray(a)) and cupy.array_equal(cg, cupy.asarray(g))  # copied, not written
    lu, piv = starfact.getrf(cg, nb=NB)
    assert isinstance(piv, cupy.ndarray) and lu_residual(g, cupy.asnumpy(lu), cupy.asnumpy(piv), dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_jax(rng, dtype):
    jax, gpu = jax_gpu()
    n = 2 * NB + 1
    a, b = spd(rng, n, dtype), rhs(rng, n, 2, dtype)
    ja, jb = jax.device_put(a, gpu), jax.device_put(b, gpu)
    x = starfact.posv(ja, jb, nb=NB)
    assert isinstance(x, jax.Array) and solve_residual(a, numpy.asarray(x), b, dtype) < LIMIT
    x = starfact.posv(ja, jb, overwrite_a=True, overwrite_b=True, nb=NB)  # JAX arrays are never written
    assert numpy.array_equal(numpy.asarray(ja), a) and numpy.array_equal(numpy.asarray(jb), b)
    c, lower = starfact.potrf(ja, lower=True, nb=NB)
    assert cholesky_residual(a, numpy.asarray(c), True, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mapping", [None, "gpu-only"])
def test_torch_cuda_qr(rng, dtype, mapping):
    """QR and least squares on CUDA tensors: results on the tensors' device, the factors kept where the tasks made
    them (GPU memory) for ormqr and orgqr, in place without copies, a zero diagonal of R found."""
    torch = torch_cuda()
    m, n = 5 * NB + 7, NB + 3
    a, b = tall(rng, m, n, dtype), tall(rng, m, 3, dtype)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    q, r = starfact.qr(ta, nb=NB, mapping=mapping)
    assert q.is_cuda and r.is_cuda and q.device == ta.device and q.shape == (m, n) and r.shape == (n, n)
    assert orthogonality(q.cpu().numpy(), dtype) < LIMIT and qr_residual(a, q.cpu().numpy(), r.cpu().numpy(), dtype) < LIMIT
    x, residues, rank, _ = starfact.lstsq(ta, tb, nb=NB, mapping=mapping)
    assert x.is_cuda and residues.is_cuda and rank == n and x.shape == (n, 3)
    assert lstsq_residual(a, x.cpu().numpy(), b, dtype) < LIMIT
    for tree in ("flat", "binary", "panel"):
        f = starfact.geqrf(ta, nb=NB, tree=tree, mapping=mapping)
        assert f.qr.is_cuda and f.ib == NB  # GPU mappings: one triangular factor per tile
        c = starfact.ormqr(f, starfact.ormqr(f, tb, "T", mapping=mapping), mapping=mapping)
        assert c.is_cuda and float((c - tb).abs().max()) < 100 * m * numpy.finfo(dtype).eps
        assert orthogonality(starfact.orgqr(f, mapping=mapping).cpu().numpy(), dtype) < LIMIT
    qf, rf = starfact.qr(ta, mode="full", nb=NB, mapping=mapping)
    assert qf.is_cuda and qf.shape == (m, m) and qr_residual(a, qf.cpu().numpy(), rf.cpu().numpy(), dtype) < LIMIT
    assert torch.equal(ta.cpu(), torch.from_numpy(a)) and torch.equal(tb.cpu(), torch.from_numpy(b))  # untouched
    # in place: column-major tensors viewed where they lie
    fa = torch.from_numpy(a.T.copy()).cuda().t()
    fb = torch.from_numpy(b.T.copy()).cuda().t()
    pa, pb = fa.data_ptr(), fb.data_ptr()
    x = starfact.gels(fa, fb, overwrite_a=True, overwrite_b=True, nb=NB, mapping=mapping, residency="device")
    assert x.data_ptr() == pb and fa.data_ptr() == pa
    assert lstsq_residual(a, x.cpu().numpy(), b, dtype) < LIMIT
    bad = a.copy()
    bad[:, 5] = 0
    with pytest.raises(starfact.LinAlgError) as e:
        starfact.gels(torch.from_numpy(bad).cuda(), tb, nb=NB, mapping=mapping)
    assert e.value.info == 6


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mapping", [None, "gpu-only"])
def test_torch_cuda_qr_right_and_wide(rng, dtype, mapping):
    """ormqr from the right on CUDA tensors against the explicit Q; a wide matrix: R trapezoidal, and lstsq's
    minimum-norm solution (b read into n rows through the host) on the tensors' device, against NumPy's."""
    torch = torch_cuda()
    m, n = 5 * NB + 7, NB + 3
    a = tall(rng, m, n, dtype)
    f = starfact.geqrf(torch.from_numpy(a).cuda(), nb=NB, mapping=mapping)
    eye = torch.eye(m, dtype=f.qr.dtype, device=f.qr.device)
    q = starfact.ormqr(f, eye, "N", mapping=mapping).cpu().numpy().astype(numpy.float64)  # the explicit Q
    w = tall(rng, 4, m, dtype)
    scale = numpy.abs(w).sum(axis=1).max() * m * numpy.finfo(dtype).eps
    for trans, ref in (("N", w.astype(numpy.float64) @ q), ("T", w.astype(numpy.float64) @ q.T)):
        got = starfact.ormqr(f, torch.from_numpy(w).cuda(), trans, side="R", mapping=mapping)
        assert got.is_cuda and numpy.abs(got.cpu().numpy() - ref).sum(axis=1).max() / scale < LIMIT, trans
    wide = numpy.ascontiguousarray(a.T)  # n x m, n < m
    b = tall(rng, n, 2, dtype)
    x, residues, rank, _ = starfact.lstsq(torch.from_numpy(wide).cuda(), torch.from_numpy(b).cuda(), nb=NB,
                                          mapping=mapping)
    assert x.is_cuda and x.shape == (m, 2) and rank == n and tuple(residues.shape) == (0,)
    x_np = numpy.linalg.lstsq(wide.astype(numpy.float64), b.astype(numpy.float64), rcond=None)[0]
    assert norm1(x.cpu().numpy() - x_np) / (norm1(x_np) * m * numpy.finfo(dtype).eps) < LIMIT
    qw, rw = starfact.qr(torch.from_numpy(wide).cuda(), nb=NB, mapping=mapping)
    assert qw.is_cuda and tuple(qw.shape) == (n, n) and tuple(rw.shape) == (n, m)
    assert orthogonality(qw.cpu().numpy(), dtype) < LIMIT
    assert qr_residual(wide, qw.cpu().numpy(), rw.cpu().numpy(), dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_qr_plan_tiles_on_device(rng, dtype):
    """The plan's tile sizes on device arrays (tall-and-skinny: tiles of many rows)."""
    torch = torch_cuda()
    m, n = 3000, 200
    a, b = tall(rng, m, n, dtype), tall(rng, m, 2, dtype)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    q, r = starfact.qr(ta)
    assert orthogonality(q.cpu().numpy(), dtype) < LIMIT and qr_residual(a, q.cpu().numpy(), r.cpu().numpy(), dtype) < LIMIT
    assert lstsq_residual(a, starfact.gels(ta, tb).cpu().numpy(), b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_qr(rng, dtype):
    m, n = 3 * NB + 5, NB + 1
    a, b = tall(rng, m, n, dtype), tall(rng, m, 2, dtype)
    cupy = cupy_cuda()
    q, r = starfact.qr(cupy.asarray(a), nb=NB)
    assert isinstance(q, cupy.ndarray) and isinstance(r, cupy.ndarray)
    assert orthogonality(cupy.asnumpy(q), dtype) < LIMIT and qr_residual(a, cupy.asnumpy(q), cupy.asnumpy(r), dtype) < LIMIT
    x, residues, _, _ = starfact.lstsq(cupy.asarray(a), cupy.asfortranarray(cupy.asarray(b)), nb=NB)
    assert isinstance(x, cupy.ndarray) and isinstance(residues, cupy.ndarray)
    assert lstsq_residual(a, cupy.asnumpy(x), b, dtype) < LIMIT


@pytest.mark.parametrize("dtype", DTYPES)
def test_jax_qr(rng, dtype):
    m, n = 3 * NB + 5, NB + 1
    a, b = tall(rng, m, n, dtype), tall(rng, m, 2, dtype)
    jax, gpu = jax_gpu()
    ja, jb = jax.device_put(a, gpu), jax.device_put(b, gpu)
    q, r = starfact.qr(ja, nb=NB)
    assert isinstance(q, jax.Array) and qr_residual(a, numpy.asarray(q), numpy.asarray(r), dtype) < LIMIT
    assert orthogonality(numpy.asarray(q), dtype) < LIMIT
    x, _, _, _ = starfact.lstsq(ja, jb, nb=NB)
    assert isinstance(x, jax.Array) and lstsq_residual(a, numpy.asarray(x), b, dtype) < LIMIT
    assert numpy.array_equal(numpy.asarray(ja), a)  # JAX arrays are never written


def test_numba(rng):
    cuda = pytest.importorskip("numba.cuda")
    if not cuda.is_available():
        pytest.skip("numba sees no device")
    n = NB + 5
    a, b = spd(rng, n, numpy.float64), rhs(rng, n, None, numpy.float64)
    da, db = cuda.to_device(a), cuda.to_device(b)
    x = starfact.posv(da, db, nb=NB)
    assert hasattr(x, "__cuda_array_interface__")
    assert solve_residual(a, x.copy_to_host(), b, numpy.float64) < LIMIT
    x = starfact.posv(da, db, overwrite_b=True, nb=NB)
    assert x is db and solve_residual(a, db.copy_to_host(), b, numpy.float64) < LIMIT


def test_device_arrays_need_cuda_workers(rng):
    torch = torch_cuda()
    a = torch.eye(8, dtype=torch.float64).cuda()
    with starfact.Runtime(ncuda=0, ncpus=1) as rt:
        with pytest.raises(ValueError) as e:
            starfact.potrf(a, runtime=rt)
        assert e.value.argument == "a"

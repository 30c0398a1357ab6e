"""starfact.posv on device arrays against each array library's own Cholesky solve, in one process.

For each library present (PyTorch, CuPy, JAX) and each order (default 16384 and 32768, double): the library's
Cholesky solve (torch.linalg.cholesky + torch.cholesky_solve; cupy.linalg.cholesky + two
cupyx.scipy.linalg.solve_triangular; jax.scipy.linalg.cho_factor/cho_solve, jitted), then
starfact.posv(a, b) as a user types it (no keyword: a and b left as they were), then on the same arrays in place
(overwrite_a, overwrite_b; JAX arrays are read in place and x is a new
array), every pointer the C ABI gets checked against the arrays' own (no copy), and the mixed-precision
posv(factor="tf32") with its report, in place as well. Each time is the median of --repeat runs after --warmup, the
device synchronized; every solution's scaled residual ||A x - b||_1 / (||A||_1 ||x||_1 n eps) is checked on the device.

Python's overhead: the same posv through the C ABI directly (starfact_c_posv_submit + starfact_c_job_wait, the C++
submit form and its wait with nothing of the Python layer around them) on the same arrays, at small and large n;
and, first of all (before any array library takes GPU memory), the C++ driver on the same problem,
`starpu_chol --op posv --gpu-only --device-resident --prec d --n N` (--driver, default starpu_chol on PATH), whose
median is set against starfact.posv's from Python on each library's arrays, and the same with --factor-prec tf32
against posv(factor="tf32").

    python3 python/bench/bench_posv.py [--ns 16384,32768] [--nrhs 1] [--repeat 3] [--warmup 1]
                                       [--libs torch,cupy,jax] [--driver PATH] [--json FILE]
"""
import argparse
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX: allocate as needed, not 75% up front

import numpy  # noqa: E402

import starfact  # noqa: E402
from starfact import _clib  # noqa: E402

EPS = float(numpy.finfo(numpy.float64).eps)


class PointerLog:
    """Records the data pointers starfact hands the C ABI's posv (a, a_out, b, b_out)."""

    def __init__(self):
        self.calls = []
        self._original = _clib.lib.starfact_c_posv_submit

    def __enter__(self):
        original = self._original

        def recording(handle, a, a_out, b, b_out, opts, refine, job):
            def ptr(m):  # m: the ctypes.byref() of a starfact_c_matrix, or None
                return None if m is None else m._obj.data  # pylint: disable=protected-access
            self.calls.append((ptr(a), ptr(a_out), ptr(b), ptr(b_out)))
            return original(handle, a, a_out, b, b_out, opts, refine, job)

        _clib.lib.starfact_c_posv_submit = recording
        return self

    def __exit__(self, *exc):
        _clib.lib.starfact_c_posv_submit = self._original


def median_time(run, sync, repeat, warmup, setup=None):
    """(median seconds of the timed runs, the last run's result); setup() gives each run its state, untimed."""
    times = []
    out = None
    for i in range(warmup + repeat):
        state = setup() if setup else None
        sync()
        t0 = time.perf_counter()
        out = run(state) if setup else run()
        sync()
        if i >= warmup:
            times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def gflops(n, nrhs, seconds):
    """GFLOP/s of a Cholesky solve of order n with nrhs right-hand sides."""
    return (n ** 3 / 3 + 2 * n * n * nrhs) / seconds / 1e9


# ---- libraries ------------------------------------------------------------------------------------------------

class TorchLib:
    """PyTorch CUDA tensors and PyTorch's Cholesky solve."""
    name = "torch"

    def __init__(self):
        import torch  # pylint: disable=import-outside-toplevel
        if not torch.cuda.is_available():
            raise RuntimeError("torch has no CUDA")
        self.t = torch

    def sync(self):
        self.t.cuda.synchronize()

    def problem(self, n, nrhs, seed):
        t = self.t
        g = t.Generator(device="cuda").manual_seed(seed)
        a = t.rand((n, n), generator=g, device="cuda", dtype=t.float64) - 0.5
        a = (a + a.T) / 2
        a.diagonal().add_(n)
        b = t.rand((n, nrhs), generator=g, device="cuda", dtype=t.float64) - 0.5
        return a, b

    def fortran(self, b):
        return b.T.contiguous().T

    def copy(self, x):
        return x.clone(memory_format=self.t.preserve_format)

    def pointer(self, x):
        return x.data_ptr()

    def native(self, a, b):
        l = self.t.linalg.cholesky(a)
        return self.t.cholesky_solve(b, l)

    def residual(self, a, x, b):
        t = self.t
        n = a.shape[0]
        r = t.linalg.matrix_norm(a @ x - b, ord=1)
        return float(r / (t.linalg.matrix_norm(a, ord=1) * t.linalg.matrix_norm(x, ord=1) * n * EPS))

    def free(self):
        self.t.cuda.empty_cache()


class CupyLib:
    """CuPy arrays and CuPy's Cholesky with two triangular solves."""
    name = "cupy"

    def __init__(self):
        import cupy  # pylint: disable=import-outside-toplevel
        import cupyx.scipy.linalg as cl  # pylint: disable=import-outside-toplevel
        self.cp = cupy
        self.cl = cl

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def problem(self, n, nrhs, seed):
        cp = self.cp
        rs = cp.random.RandomState(seed)
        a = rs.random_sample((n, n)) - 0.5
        a = (a + a.T) / 2
        a[cp.arange(n), cp.arange(n)] += n
        b = rs.random_sample((n, nrhs)) - 0.5
        return a, b

    def fortran(self, b):
        return self.cp.asfortranarray(b)

    def copy(self, x):
        return x.copy(order="K")

    def pointer(self, x):
        return x.data.ptr

    def native(self, a, b):
        l = self.cp.linalg.cholesky(a)
        y = self.cl.solve_triangular(l, b, lower=True)
        return self.cl.solve_triangular(l, y, lower=True, trans="T")

    def residual(self, a, x, b):
        cp = self.cp
        n = a.shape[0]

        def n1(m):
            return float(cp.abs(m).sum(axis=0).max())
        return n1(a @ x - b) / (n1(a) * n1(x) * n * EPS)

    def free(self):
        self.cp.get_default_memory_pool().free_all_blocks()


class JaxLib:
    """JAX GPU arrays and jax.scipy.linalg's cho_factor/cho_solve, jitted."""
    name = "jax"

    def __init__(self):
        import jax  # pylint: disable=import-outside-toplevel
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
        import jax.scipy.linalg as jl  # pylint: disable=import-outside-toplevel
        self.jax, self.jnp = jax, jnp
        self.gpu = jax.devices("gpu")[0]
        self._solve = jax.jit(lambda a, b: jl.cho_solve(jl.cho_factor(a, lower=True), b))

    def sync(self):
        pass  # every run blocks on its result

    def problem(self, n, nrhs, seed):
        jnp, jax = self.jnp, self.jax
        k1, k2 = jax.random.split(jax.random.PRNGKey(seed))
        with jax.default_device(self.gpu):
            a = jax.random.uniform(k1, (n, n), dtype=jnp.float64) - 0.5
            a = (a + a.T) / 2 + n * jnp.eye(n, dtype=jnp.float64)
            b = jax.random.uniform(k2, (n, nrhs), dtype=jnp.float64) - 0.5
        return a.block_until_ready(), b.block_until_ready()

    def fortran(self, b):
        return b  # JAX arrays are row-major values

    def copy(self, x):
        return x

    def pointer(self, x):
        return x.unsafe_buffer_pointer()

    def native(self, a, b):
        return self._solve(a, b).block_until_ready()

    def residual(self, a, x, b):
        jnp = self.jnp
        n = a.shape[0]

        def n1(m):
            return float(jnp.abs(m).sum(axis=0).max())
        return n1(a @ x - b) / (n1(a) * n1(x) * n * EPS)

    def free(self):
        self.jax.clear_caches()


LIBS = {"torch": TorchLib, "cupy": CupyLib, "jax": JaxLib}


# ---- the C ABI call, for Python's overhead -------------------------------------------------------------------

def c_posv(rt_handle, a_ptr, b_ptr, n, nrhs, ld_b, opts):
    """posv through the C ABI alone: in place, descriptors built once (the caller passes pointers)."""
    a = _clib.Matrix(a_ptr, n, n, n, _clib.FLOAT64, 0)
    b = _clib.Matrix(b_ptr, n, nrhs, ld_b, _clib.FLOAT64, 0)
    job = ctypes.c_void_p()
    info = ctypes.c_int32()
    _clib.check(_clib.lib.starfact_c_posv_submit(rt_handle, ctypes.byref(a), ctypes.byref(a), ctypes.byref(b),
                                                 ctypes.byref(b), ctypes.byref(opts), None, ctypes.byref(job)))
    try:
        _clib.check(_clib.lib.starfact_c_job_wait(job, ctypes.byref(info)))
    finally:
        _clib.lib.starfact_c_job_destroy(job)
    return info.value


def overhead(lib, rt, ns, nrhs, repeat, warmup, kw):
    """Median time of starfact.posv and of the bare C ABI call on the same device arrays, per n."""
    rows = []
    handle = rt._enter()  # pylint: disable=protected-access
    try:
        opts = starfact._ops.options(**kw)  # pylint: disable=protected-access
        for n in ns:
            a0, b0 = lib.problem(n, nrhs, 7)
            b0 = lib.fortran(b0)

            def fresh():
                return lib.copy(a0), lib.copy(b0)

            t_py, _ = median_time(lambda s: starfact.posv(s[0], s[1], overwrite_a=True, overwrite_b=True, **kw),
                                  lib.sync, repeat, warmup, setup=fresh)
            t_c, _ = median_time(lambda s: c_posv(handle, lib.pointer(s[0]), lib.pointer(s[1]), n, nrhs, n, opts),
                                 lib.sync, repeat, warmup, setup=fresh)
            rows.append({"lib": lib.name, "n": n, "python_s": t_py, "c_abi_s": t_c, "overhead_s": t_py - t_c})
            a0 = b0 = None
            lib.free()
    finally:
        rt._leave()  # pylint: disable=protected-access
    return rows


def driver_posv(driver, ns, nrhs, repeat, warmup, extra=()):
    """{n: median seconds} of the C++ driver's posv (potrf + potrs on device-resident tiles), from its CSV rows;
    `extra` flags, e.g. ("--factor-prec", "tf32") for the mixed-precision solve."""
    medians = {}
    for n in ns:
        cmd = [driver, "--op", "posv", "--gpu-only", "--device-resident", "--prec", "d", "--n", str(n), "--nrhs",
               str(nrhs), "--warmup", str(warmup), "--repeat", str(repeat), "--no-check", "--csv"] + list(extra)
        p = subprocess.run(cmd, capture_output=True, text=True, check=False)
        lines = [l for l in p.stdout.splitlines() if l.strip() and not l.startswith("#")]
        print("# " + " ".join(cmd) + " (exit %d)" % p.returncode)
        for l in lines[:1 + repeat]:
            print("#   " + l)
        seconds = []
        if lines:
            header = lines[0].split(",")
            col = next((i for i, h in enumerate(header) if h.strip() in ("seconds", "time_s", "s")), None)
            for l in lines[1:]:
                f = l.split(",")
                if col is not None and len(f) == len(header) and f[0].strip() == "starfact":
                    try:
                        seconds.append(float(f[col]))
                    except ValueError:
                        pass
        if seconds:
            medians[n] = statistics.median(seconds)
        else:
            print("# starpu_chol: no timed rows read (stderr: %s)" % p.stderr.strip()[-300:])
    return medians


def main():
    """Runs the driver, then each library's rows and the overhead rows; returns 1 on a failed check."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ns", default="16384,32768")
    p.add_argument("--overhead-ns", default="256,1024,4096,16384")
    p.add_argument("--nrhs", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--libs", default="torch,cupy,jax")
    p.add_argument("--mapping", default="gpu-only")
    p.add_argument("--residency", default="device")
    p.add_argument("--driver", default=shutil.which("starpu_chol"), help="starpu_chol, for the C++ posv")
    p.add_argument("--json", help="write the rows to this file")
    args = p.parse_args()
    ns = [int(v) for v in args.ns.split(",") if v]
    kw = {"mapping": args.mapping, "residency": args.residency}

    if starfact.cuda_device_count() == 0 or not starfact.built_with_cuda():
        print("bench_posv: needs a CUDA build of starfact and a GPU", file=sys.stderr)
        return 77
    cpp = driver_posv(args.driver, ns, args.nrhs, args.repeat, args.warmup) if args.driver else {}
    cpp_tf32 = (driver_posv(args.driver, ns, args.nrhs, args.repeat, args.warmup, ("--factor-prec", "tf32", "--no-vendor"))
                if args.driver else {})
    rt = starfact.Runtime()
    print("# " + rt.describe())
    rows = []
    failures = []
    for name in [v for v in args.libs.split(",") if v]:
        try:
            lib = LIBS[name]()
        except Exception as e:  # pylint: disable=broad-except
            print("# %s: skipped (%s)" % (name, e))
            continue
        for n in ns:
            a0, b0 = lib.problem(n, args.nrhs, 1)
            b0 = lib.fortran(b0)
            t_native, x = median_time(lambda: lib.native(a0, b0), lib.sync, args.repeat, args.warmup)
            res_native = lib.residual(a0, x, b0)
            del x
            lib.free()

            # as a user types it: no keyword, a and b left as they were (the factor goes into a copy of a)
            t_typed, xt = median_time(lambda: starfact.posv(a0, b0), lib.sync, args.repeat, args.warmup)
            res_typed = lib.residual(a0, xt, b0)
            del xt
            lib.free()

            def fresh():
                return lib.copy(a0), lib.copy(b0)

            with PointerLog() as log:
                t_sf, state = median_time(
                    lambda s: (s, starfact.posv(s[0], s[1], overwrite_a=True, overwrite_b=True, **kw)),
                    lib.sync, args.repeat, args.warmup, setup=fresh)
            (a_run, b_run), x = state
            a_ptr, _, b_ptr, b_out_ptr = log.calls[-1]
            # JAX arrays are never written: a, which the factorization overwrites, reaches the C ABI as JAX's copy of
            # it; b is read in place (when it is a vector) and x is a new array. The others are written in place.
            if name == "jax":
                no_copy = a_ptr != lib.pointer(a_run) and (args.nrhs > 1 or b_ptr == lib.pointer(b_run))
            else:
                no_copy = a_ptr == lib.pointer(a_run) and b_ptr == b_out_ptr == lib.pointer(b_run) and x is b_run
            res_sf = lib.residual(a0, x, b0)
            del a_run, b_run, x, state
            lib.free()
            # in place too (a fresh copy each run, as above): A is then only read unless the solve falls back to
            # the double factorization, where the C++ driver's tiles are likewise overwritten
            t_mixed, (_, (xm, report)) = median_time(
                lambda s: (s, starfact.posv(s[0], s[1], factor="tf32", overwrite_a=True, overwrite_b=True, **kw)),
                lib.sync, args.repeat, args.warmup, setup=fresh)
            res_mixed = lib.residual(a0, xm, b0)
            del xm
            row = {"lib": name, "n": n, "nrhs": args.nrhs, "native_s": t_native, "starfact_s": t_sf,
                   "tf32_s": t_mixed, "tf32_speedup": t_native / t_mixed, "cpp_posv_s": cpp.get(n),
                   "python_over_cpp": t_sf / cpp[n] if n in cpp else None, "cpp_tf32_s": cpp_tf32.get(n),
                   "tf32_python_over_cpp": t_mixed / cpp_tf32[n] if n in cpp_tf32 else None,
                   "native_gflops": gflops(n, args.nrhs, t_native),
                   "starfact_gflops": gflops(n, args.nrhs, t_sf), "speedup": t_native / t_sf,
                   "no_copy": no_copy, "residual_native": res_native, "residual_starfact": res_sf,
                   "residual_tf32": res_mixed, "tf32_path": report.path, "tf32_iterations": report.iterations,
                   "tf32_gmres": report.gmres_iterations, "tf32_backward_error": report.backward_error,
                   "typed_s": t_typed, "typed_speedup": t_native / t_typed, "residual_typed": res_typed}
            rows.append(row)
            print("%-5s n=%6d  native %8.3f s (%7.0f GFLOP/s, res %.2g)  starfact %8.3f s (%7.0f GFLOP/s, "
                  "res %.2g, no copy: %s)  x%.2f  tf32 %8.3f s (%s, %d it, %d gmres, bwd %.1e, res %.2g)"
                  % (name, n, t_native, row["native_gflops"], res_native, t_sf, row["starfact_gflops"], res_sf,
                     no_copy, row["speedup"], t_mixed, report.path, report.iterations, report.gmres_iterations,
                     report.backward_error, res_mixed), flush=True)
            print("%-5s n=%6d  ratios: %s/starfact %.2f  %s/tf32 %.2f  starfact from Python / C++ driver %s"
                  % (name, n, name, row["speedup"], name, row["tf32_speedup"],
                     "%.3f (driver %.3f s)" % (row["python_over_cpp"], cpp[n]) if n in cpp else "-"), flush=True)
            print("%-5s n=%6d  as typed, starfact.posv(a, b): %8.3f s, %s/starfact %.2f (res %.2g)"
                  % (name, n, t_typed, name, row["typed_speedup"], res_typed), flush=True)
            if n in cpp_tf32:
                print("%-5s n=%6d  tf32 posv from Python / C++ driver's --factor-prec tf32 %.3f (driver %.3f s)"
                      % (name, n, row["tf32_python_over_cpp"], cpp_tf32[n]), flush=True)
            for label, r in (("native", res_native), ("starfact", res_sf), ("tf32", res_mixed), ("typed", res_typed)):
                if not r < 60:
                    failures.append("%s n=%d %s residual %.3g" % (name, n, label, r))
            if not no_copy:
                failures.append("%s n=%d: starfact copied an array it could read in place" % (name, n))
            a0 = b0 = None
            lib.free()
        if name in ("torch", "cupy"):
            # small orders take microseconds: more runs, so that the medians are stable
            for row in overhead(lib, rt, [int(v) for v in args.overhead_ns.split(",") if v], args.nrhs,
                                max(args.repeat, 10), max(args.warmup, 3), kw):
                rows.append(row)
                print("%-5s n=%6d  python posv %.6f s  C ABI %.6f s  overhead %.1f us"
                      % (row["lib"], row["n"], row["python_s"], row["c_abi_s"], row["overhead_s"] * 1e6),
                      flush=True)
        lib = None
    rt.close()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runtime": "see first line", "rows": rows}, f, indent=1)
    for f in failures:
        print("FAILED: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""The StarPU runtime: one per process, started explicitly (:class:`Runtime`) or on the first call."""
import atexit
import ctypes
import os
import threading
import weakref

from . import _args, _clib
from .errors import argument_type_error, argument_value_error

_lock = threading.Lock()
_current = None  # the running Runtime, if any
_default = None  # the Runtime started by a call without one (closed at exit, or when a Runtime() is made)
_start_lock = threading.Lock()  # one thread starts the default runtime


class Closable:
    """An object holding library resources that ``close()`` frees: on leaving a ``with`` block and on garbage
    collection (errors while collecting are dropped)."""

    def close(self):
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # pylint: disable=broad-except
            pass


class Runtime(Closable):
    """The StarPU instance that runs starfact's task graphs (``starfact::Runtime``).

    One runtime runs per process at a time. Calls without ``runtime=`` use the running one, and start one with
    the default arguments if none runs (closed at interpreter exit). Constructing a Runtime closes that default one
    first (once its calls are done); constructing a second while an explicit one runs raises RuntimeError.

    Arguments (None: the defaults of starfact's drivers, starpu_chol's; StarPU's environment variables,
    STARPU_NCPU, STARPU_NCUDA, STARPU_SCHED, STARPU_NWORKER_PER_CUDA, ..., win over them, as in C++):
        ncpus: CPU workers (None: StarPU's default, the cores not driving a GPU, less one left to the
            application when GPUs work).
        ncuda: CUDA devices (0: none; None: all).
        workers_per_gpu: CUDA workers (streams) per device (None: the plan's, 4, which the tile sizes are tuned
            for, as the drivers; StarPU's own default is 1).
        scheduler: StarPU's policy ("dmdas" by default; "lws", "eager", "prio", ...).
        perfmodel_dir: performance-model directory, when STARPU_PERF_MODEL_DIR and STARPU_HOME are unset (None: the
            drivers', $XDG_CACHE_HOME or ~/.cache, then starfact/perfmodels, so that models calibrated by
            starpu_chol serve Python and the other way round).
        calibrate: keep calibrating the performance models.
        profiling: StarPU's per-worker counters.
        cuda_memory_limit_mb: MiB of each GPU StarPU may use for tiles.
        warm_up: run the GPU kernels once per CUDA worker at start.
        pause_when_idle: put the workers to sleep while no call of this runtime is running (StarPU's idle workers
            poll, taking the cores from the rest of the program: NumPy, scikit-learn, ...). Default True.

    Use it as a context manager (``with starfact.Runtime(ncpus=4) as rt: ...``) or call :meth:`close`.
    StarPU's signal handlers are left out (STARPU_CATCH_SIGNALS=0 unless set), so that Ctrl-C reaches Python.
    """

    def __init__(self, ncpus=None, ncuda=None, workers_per_gpu=None, scheduler=None, perfmodel_dir=None,
                 calibrate=False, profiling=False, cuda_memory_limit_mb=None, warm_up=True, pause_when_idle=True,
                 **private):
        global _current, _default  # pylint: disable=global-statement
        as_default = private.pop("_as_default", False)
        if private:
            raise TypeError("Runtime() got an unexpected keyword argument '%s'" % next(iter(private)))
        config = _clib.RuntimeConfig()
        _clib.lib.starfact_c_runtime_config_init(_clib.byref(config))
        for name, value, high in (("ncpus", ncpus, _args.INT32_MAX), ("ncuda", ncuda, _args.INT32_MAX),
                                  ("workers_per_gpu", workers_per_gpu, _args.INT32_MAX),
                                  ("cuda_memory_limit_mb", cuda_memory_limit_mb, _args.INT64_MAX)):
            if value is not None:
                setattr(config, name, _args.integer(name, value, 0, high, ">= 0 or None", "an int or None"))
        for name, value in (("scheduler", scheduler), ("perfmodel_dir", perfmodel_dir)):
            if value is not None and not isinstance(value, (str, os.PathLike)):
                raise argument_type_error(name, "a str or None", type(value).__name__)
        if scheduler is not None:
            config.scheduler = _clib.text(scheduler)
        if perfmodel_dir is not None:
            config.perfmodel_dir = _clib.text(os.fspath(perfmodel_dir))
        config.calibrate = int(bool(calibrate))
        config.profiling = int(bool(profiling))
        config.warm_up = int(bool(warm_up))
        self._pause_when_idle = bool(pause_when_idle)
        self._handle = None
        self._cond = threading.Condition()
        self._calls = 0          # calls and jobs running on this runtime
        self._closing = False
        self._paused = False
        self._jobs = weakref.WeakSet()
        self._factors = weakref.WeakSet()  # QR factors, freed before StarPU stops
        with _lock:
            if _current is not None:
                if _current is _default:
                    _close_default()
                else:
                    raise RuntimeError("a starfact Runtime is already running in this process (one at a time): "
                                       "close it first")
            os.environ.setdefault("STARPU_CATCH_SIGNALS", "0")
            handle = ctypes.c_void_p()
            _clib.check(_clib.lib.starfact_c_runtime_create(_clib.byref(config), _clib.byref(handle)))
            self._handle = handle
            _current = self
            if as_default:
                _default = self
        if self._pause_when_idle:
            _clib.check(_clib.lib.starfact_c_runtime_pause(self._handle))
            self._paused = True

    # ---- state ------------------------------------------------------------------------------------------

    @property
    def closed(self):
        """Whether close() has run."""
        return self._handle is None

    def _info(self):
        info = _clib.RuntimeInfo()
        _clib.check(_clib.lib.starfact_c_runtime_info_get(self._live(), _clib.byref(info)))
        return info

    @property
    def cpu_workers(self):
        """CPU workers."""
        return self._info().cpu_workers

    @property
    def cuda_workers(self):
        """CUDA workers (streams over all devices)."""
        return self._info().cuda_workers

    @property
    def cuda_devices(self):
        """Distinct CUDA devices in use."""
        return self._info().cuda_devices

    @property
    def scheduler(self):
        """The scheduling policy in effect."""
        text = ctypes.c_char_p()
        _clib.check(_clib.lib.starfact_c_runtime_scheduler(self._live(), _clib.byref(text)))
        return text.value.decode()

    def describe(self):
        """One line: workers, scheduler, tracing, performance-model directory."""
        text = ctypes.c_char_p()
        _clib.check(_clib.lib.starfact_c_runtime_describe(self._live(), _clib.byref(text)))
        return text.value.decode()

    def __repr__(self):
        if self.closed:
            return "<starfact.Runtime (closed)>"
        return "<starfact.Runtime %s>" % self.describe()

    def _live(self):
        if self._handle is None:
            raise argument_value_error("runtime", "is closed")
        return self._handle

    # ---- calls ------------------------------------------------------------------------------------------

    def _enter(self):
        """Counts one running call or job (resuming the workers for the first); returns the C handle."""
        with self._cond:
            if self._handle is None or self._closing:
                raise argument_value_error("runtime", "is closed")
            if self._calls == 0 and self._paused:
                _clib.check(_clib.lib.starfact_c_runtime_resume(self._handle))
                self._paused = False
            self._calls += 1
            return self._handle

    def _leave(self):
        """Ends what _enter counted (pausing the workers after the last)."""
        with self._cond:
            self._calls -= 1
            if self._calls == 0:
                if self._pause_when_idle and not self._paused and self._handle is not None:
                    _clib.lib.starfact_c_runtime_pause(self._handle)
                    self._paused = True
                self._cond.notify_all()

    def _track(self, job):
        self._jobs.add(job)

    def _track_factors(self, factors):
        self._factors.add(factors)

    def close(self):
        """Completes the jobs not yet waited for, waits for the running calls, frees the QR factors made on this
        runtime (:class:`starfact.QRFactors`, unusable from then on) and stops StarPU. Idempotent."""
        global _current, _default  # pylint: disable=global-statement
        with self._cond:
            if self._handle is None or self._closing:
                return
            self._closing = True
        for job in list(self._jobs):
            job._complete()  # pylint: disable=protected-access
        with self._cond:
            while self._calls > 0:
                self._cond.wait()
            handle, self._handle = self._handle, None
            if self._paused:
                _clib.lib.starfact_c_runtime_resume(handle)
                self._paused = False
        for factors in list(self._factors):
            factors.close()
        try:
            _clib.check(_clib.lib.starfact_c_runtime_destroy(handle))
        finally:
            with _lock:
                if _current is self:
                    _current = None
                if _default is self:
                    _default = None


def _close_default():
    """Closes the default runtime (with _lock held)."""
    global _default, _current  # pylint: disable=global-statement
    rt = _default
    _default = None
    _current = None
    if rt is not None:
        _lock.release()
        try:
            rt.close()
        finally:
            _lock.acquire()


def current(runtime=None):
    """The runtime a call runs on: `runtime` if given, else the running one, else a new default one."""
    if runtime is not None:
        if not isinstance(runtime, Runtime):
            raise argument_type_error("runtime", "a starfact.Runtime or None", type(runtime).__name__)
        return runtime
    rt = _current
    if rt is not None:
        return rt
    with _start_lock:
        rt = _current
        if rt is None:
            rt = Runtime(_as_default=True)
    return rt


def enter(runtime=None):
    """Counts a call on the runtime `current(runtime)` gives (Runtime._enter) and returns (runtime, C handle). A
    default runtime closed meanwhile (a Runtime() was made) is replaced by the running one."""
    while True:
        rt = current(runtime)
        try:
            return rt, rt._enter()  # pylint: disable=protected-access
        except ValueError:
            if runtime is not None or rt is _current:
                raise


def running():
    """The running Runtime, or None (starts nothing)."""
    return _current


@atexit.register
def _close_at_exit():
    rt = _current
    if rt is not None:
        try:
            rt.close()
        except Exception:  # pylint: disable=broad-except
            pass

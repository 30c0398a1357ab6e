"""Submitted operations: the objects the ``*_async`` functions return."""
import ctypes
import threading

from . import _clib


class Job:
    """An operation submitted to StarPU: it runs while Python goes on.

    ``wait()`` blocks until it has completed (the GIL released meanwhile) and returns what the blocking form of
    the function returns, or raises what it raises (:class:`starfact.LinAlgError` when ``info`` > 0). ``info`` is
    LAPACK's info once the job has completed (None before), ``done()`` whether it has. The arrays the operation
    reads and writes must not be used until ``wait()`` returns; the job keeps them alive until then.
    A job that is never waited for is completed when it is garbage-collected or when its Runtime closes.
    """

    def __init__(self, runtime, handle, finish, keep, has_report=False):
        self._runtime = runtime
        self._handle = handle
        self._finish = finish
        self._keep = keep
        self._has_report = has_report
        self._lock = threading.Lock()
        self._info = None
        self._report = None
        self._error = None
        self._result = None
        self._finished = False
        runtime._track(self)  # pylint: disable=protected-access

    def _complete(self):
        """Waits in C for the operation, reads its info (and report), frees it; idempotent."""
        with self._lock:
            if self._handle is None:
                return
            try:
                info = ctypes.c_int32()
                _clib.check(_clib.lib.starfact_c_job_wait(self._handle, ctypes.byref(info)))
                if self._has_report:
                    report = _clib.SolveReport()
                    _clib.check(_clib.lib.starfact_c_job_report(self._handle, ctypes.byref(report)))
                    self._report = report
                self._info = info.value
            except Exception as e:  # pylint: disable=broad-except
                self._error = e
            finally:
                _clib.lib.starfact_c_job_destroy(self._handle)
                self._handle = None
                self._runtime._leave()  # pylint: disable=protected-access

    def wait(self):
        """Blocks until the operation has completed; returns its result (see the function that submitted it)."""
        self._complete()
        if self._error is not None:
            raise self._error
        with self._lock:
            if not self._finished:
                try:
                    self._result = self._finish(self._info, self._report)
                except Exception as e:  # pylint: disable=broad-except
                    self._error = e
                self._finished = True
                self._keep = None
        if self._error is not None:
            raise self._error
        return self._result

    def done(self):
        """Whether the operation has completed (never blocks: while another thread waits for it, False until that
        wait has returned)."""
        if not self._lock.acquire(blocking=False):
            return self._handle is None
        try:
            handle = self._handle
            if handle is None:
                return True
            flag = ctypes.c_int32()
            _clib.check(_clib.lib.starfact_c_job_done(handle, ctypes.byref(flag)))
            return bool(flag.value)
        finally:
            self._lock.release()

    @property
    def info(self):
        """LAPACK's info once the operation has completed (0: success, k > 0: failure at k), else None."""
        if self._handle is not None and self.done():
            self._complete()
        return self._info

    def __repr__(self):
        state = "pending" if self._handle is not None else "info=%s" % self._info
        return "<starfact.Job %s>" % state

    def __del__(self):
        try:
            self._complete()
        except Exception:  # pylint: disable=broad-except
            pass

"""Submitted operations: the objects the ``*_async`` functions return."""
import ctypes
import threading

from . import _clib

_PENDING, _FINISHING, _FINAL = range(3)


class Job:
    """An operation submitted to StarPU: it runs while Python goes on.

    ``wait()`` blocks until it has completed (the GIL released meanwhile) and returns what the blocking form of
    the function returns, or raises what it raises (:class:`starfact.LinAlgError` when ``info`` > 0). ``info`` is
    LAPACK's info once the job has completed (None before), ``done()`` whether it has. The arrays the operation
    reads and writes must not be used until ``wait()`` returns; the job keeps them alive until then.
    Several threads may wait for one job: the first waits for the operation and builds the result, the others
    block until it has, and all get the same result (or the same exception), as the C ABI's jobs do.
    A job that is never waited for is completed when it is garbage-collected or when its Runtime closes.
    """

    def __init__(self, runtime, handle, finish, keep, has_report=False):
        self._runtime = runtime
        self._handle = handle
        self._finish = finish
        self._keep = keep
        self._has_report = has_report
        self._cond = threading.Condition()
        self._stage = _PENDING  # _FINISHING: a thread builds the result; _FINAL: it is there
        self._info = None
        self._report = None
        self._error = None
        self._result = None
        runtime._track(self)  # pylint: disable=protected-access

    def _complete(self):
        """Waits in C for the operation, reads its info (and report), frees it and builds the result (the finish
        step): once, in the first thread to get here; the others block until it is done. Idempotent."""
        with self._cond:
            if self._stage == _FINISHING:
                self._cond.wait_for(lambda: self._stage == _FINAL)
            if self._stage == _FINAL:
                return
            self._stage = _FINISHING
        info = report = result = error = None
        try:
            try:
                c_info = ctypes.c_int32()
                _clib.check(_clib.lib.starfact_c_job_wait(self._handle, ctypes.byref(c_info)))
                if self._has_report:
                    report = _clib.SolveReport()
                    _clib.check(_clib.lib.starfact_c_job_report(self._handle, ctypes.byref(report)))
                info = c_info.value
            finally:
                _clib.lib.starfact_c_job_destroy(self._handle)
                self._handle = None
                self._runtime._leave()  # pylint: disable=protected-access
            result = self._finish(info, report)
        except BaseException as e:  # pylint: disable=broad-except
            error = e  # every waiter gets it
        with self._cond:
            self._info, self._report, self._result, self._error = info, report, result, error
            self._finish = self._keep = None
            self._stage = _FINAL
            self._cond.notify_all()
        if error is not None and not isinstance(error, Exception):
            raise error  # KeyboardInterrupt, SystemExit: for this thread too

    def wait(self):
        """Blocks until the operation has completed; returns its result (see the function that submitted it)."""
        self._complete()
        if self._error is not None:
            raise self._error
        return self._result

    def done(self):
        """Whether the operation has completed (never blocks): False while it runs, and while another thread that
        waits for it is still building the result; True once a wait() returns at once."""
        with self._cond:
            if self._stage != _PENDING:
                return self._stage == _FINAL
            flag = ctypes.c_int32()
            _clib.check(_clib.lib.starfact_c_job_done(self._handle, ctypes.byref(flag)))
            return bool(flag.value)

    @property
    def info(self):
        """LAPACK's info once the operation has completed (0: success, k > 0: failure at k), else None."""
        if not self.done():
            return None
        self._complete()
        return self._info

    def __repr__(self):
        state = "info=%s" % self._info if self._stage == _FINAL else "pending"
        return "<starfact.Job %s>" % state

    def __del__(self):
        try:
            self._complete()
        except Exception:  # pylint: disable=broad-except
            pass

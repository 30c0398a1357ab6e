"""What the operations share: keyword options, work arrays, submission."""
import ctypes

from . import _args, _arrays, _clib, _jobs, _runtime
from .errors import argument_type_error, argument_value_error


def options(nb=None, mapping=None, variant=None, panel=None, diag=None, factor=None, residency=None, chunk=None,
            tree=None, ib=None):
    """The C options of the keyword arguments (None: the library's choice; nb, chunk, ib: Python or NumPy integers);
    a wrong type raises TypeError naming the keyword, a wrong value ValueError (from the C++ parsers, which name it
    too)."""
    o = _clib.Options()
    _clib.lib.starfact_c_options_init(ctypes.byref(o))
    for name, value in (("nb", nb), ("chunk", chunk), ("ib", ib)):
        if value is None:
            continue
        setattr(o, name, _args.integer(name, value, 0, _args.INT64_MAX, ">= 0, or None for the default",
                                       "an int or None"))
    for name, value in (("mapping", mapping), ("variant", variant), ("panel", panel), ("diag", diag),
                        ("factor", factor), ("residency", residency), ("tree", tree)):
        if value is None:
            continue
        if not isinstance(value, str):
            raise argument_type_error(name, "a str or None", type(value).__name__)
        setattr(o, name, value.encode())
    return o


def check_bool(name, value):
    """A flag argument: bool (or numpy.bool_, or an integer)."""
    return _args.flag(name, value)


def square(v):
    """The order of the square 2-D array view v; ValueError naming it otherwise."""
    if v.shape[0] != v.shape[1]:
        raise argument_value_error(v.name, "must be square (got shape %s)" % (v.shape,))
    return v.shape[0]


def same_dtype(v, ref):
    """TypeError naming v unless it has ref's dtype."""
    if v.dtype != ref.dtype:
        raise argument_type_error(v.name, "of the dtype of '%s' (%s)" % (ref.name, ref.dtype), str(v.dtype))


def right_hand_sides(vb, n, ref):
    """b: n rows (1-D: n entries), the dtype of ref."""
    same_dtype(vb, ref)
    if vb.shape[0] != n:
        raise argument_value_error(vb.name, "must have %d rows, as '%s' (got shape %s)" % (n, ref.name, vb.shape))


ALIGN = 32  # entries: the leading dimension of a device matrix's scratch copy is a multiple (as starfact's device tiles)


class Work:
    """An array argument as the C ABI gets it: `src`, the column-major matrix read; `dst`, the one written (None:
    no output wanted); `result`, what the caller gets back; `views`, the views to keep alive and synchronize.
    `overwritten`: the operation overwrites the argument even when the caller does not want it back (posv's a).

    The library's column-major matrix W is the caller's array u (transpose False) or its transpose (True). u is
    read in place when its memory is W column-major; written in place when, besides, the caller allows it
    (overwrite) and it is writable. Otherwise a work array of the caller's library is allocated (an output
    only) or copied from u (one copy, when u's layout cannot be read as W), and W is computed there.
    """

    def __init__(self, v, transpose, overwrite, output, batch=False, overwritten=False):
        be = v.backend
        self._backend = be
        self.views = [v]
        describe = (lambda w, t: w.batch(t)) if batch else (lambda w, t: w.matrix(t))
        src = describe(v, transpose)
        vector = v.ndim == (2 if batch else 1)
        # A device array the operation overwrites (overwritten) that cannot be written in place (the caller keeps it,
        # or it is immutable: JAX): copied by the caller's library, whose allocator keeps device memory between
        # calls, and worked on in place there (a copy the C ABI made into tiles of its own would allocate and free
        # them on every call; an empty output array would be filled once more).
        scratch = overwritten and v.device >= 0 and not (overwrite and v.writable)
        if src is not None and not scratch and ((overwrite and v.writable) or not output):
            self.src = src
            self.dst = src if output else None
            self._result = v.obj
            self._swap = False
            return
        # A work array, C-ordered: its memory is W column-major when read as its transpose.
        copied = src is None or batch or scratch  # the batched entry points work in place: they get a copy
        buf = None
        if scratch and not (vector or batch) and v.shape[-1 if transpose else -2] % ALIGN:
            # columns aligned for the tensor-core kernels, as the library's own device tiles have them
            buf = be.padded_copy(v.obj, not transpose, ALIGN)
        if buf is None and not copied:
            buf = be.empty(v.obj, v.shape if (transpose or vector) else v.shape[::-1], v.dtype)
        elif buf is None:
            buf = be.copy(v.obj) if (vector or transpose) else be.swapped_copy(v.obj)
        bv = _arrays.view(buf, v.name, (v.ndim,), (v.dtype,))  # (the dtype already checked)
        self.views.append(bv)
        written = describe(bv, True)
        if written is None:  # a fresh C-ordered array always is
            raise argument_value_error(v.name, "could not be laid out for the library (shape %s)" % (v.shape,))
        self.src = written if copied else src
        self.dst = written if (output or scratch) else None
        self._result = buf
        self._swap = not (transpose or vector)

    def result(self):
        """The array handed back to the caller (the caller's own when written in place)."""
        if self._swap:
            return self._backend.finish(self._backend.swap(self._result))
        if self._result is self.views[0].obj:
            return self._result
        return self._backend.finish(self._result)

    def ready(self):
        """Synchronizes the streams of the device arrays involved."""
        for v in self.views:
            v.ready()


def submit(function, runtime, works, args, finish, has_report=False, keep=()):
    """Calls the C submit function `function(handle, *args, &job)` on the runtime (counted while the job runs) and
    returns its Job; `works` are synchronized first and kept alive with `keep` until the job completes."""
    rt, handle = _runtime.enter(runtime)
    try:
        for w in works:
            w.ready()
        job = ctypes.c_void_p()
        _clib.check(function(handle, *args, ctypes.byref(job)))
    except BaseException:
        rt._leave()  # pylint: disable=protected-access
        raise
    return _jobs.Job(rt, job, finish, (works, keep), has_report=has_report)


def pointer(m):
    """ctypes pointer to a C matrix or batch, or None."""
    return ctypes.byref(m) if m is not None else None

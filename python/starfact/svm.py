"""Least-squares support-vector classification on starfact's Cholesky solve (the model of examples/lssvm/).

:class:`LSSVC` is a scikit-learn-style estimator (``fit``, ``predict``, ``decision_function``, ``score``,
``get_params``/``set_params``), usable inside scikit-learn's ``cross_val_score`` and ``GridSearchCV`` where
scikit-learn is installed (it then derives from ``sklearn.base.BaseEstimator`` and ``ClassifierMixin``).

Model (Suykens & Vandewalle, 1999), one-vs-all over the classes c with targets y_c(i) = +1 or -1::

    [ 0  1^T ] [ b_c ]   [ 0   ]
    [ 1  H   ] [ a_c ] = [ y_c ],    H = K + I / C,   K(i, j) = k(x_i, x_j)

eliminated into one SPD system with 1 + classes right-hand sides sharing H::

    H [eta, nu_1 .. nu_m] = [1, y_1 .. y_m],   b_c = 1^T nu_c / 1^T eta,   a_c = nu_c - b_c eta

and the decision function f_c(x) = sum_i a_c(i) k(x, x_i) + b_c; the predicted class is argmax_c f_c.

Where the work runs: the kernel matrix K is assembled in the caller's array library, NumPy on the host (BLAS
matrix products for the inner products, then an element-wise exp), PyTorch or CuPy on their device, only the
triangle the solve reads (by row blocks, about 56% of the full kernel's work); the system
H X = B, the O(n^3) part, is solved by :func:`starfact.posv` on those arrays in place (H is symmetric and
row-major, which the library reads as its lower triangle without a copy, and B is built column-major). The
assembly is O(n^2 d) work that these libraries already run at BLAS speed wherever the data is, so it needs no
code of starfact's own and no copy of X to another device; the C++ application (examples/lssvm/) assembles by
StarPU tasks instead, to overlap the assembly with the factorization on matrices too large for that to be minor.
"""
import numbers

import numpy

from . import _args, _backends, _validation
from .cholesky import posv

try:  # scikit-learn's base classes, when it is installed: clone(), tags, GridSearchCV's checks
    from sklearn.base import BaseEstimator as _Base, ClassifierMixin as _Classifier  # pylint: disable=import-error
    from sklearn.exceptions import NotFittedError  # pylint: disable=import-error
    _BASES = (_Classifier, _Base)
except ImportError:  # pragma: no cover - exercised where scikit-learn is absent
    class NotFittedError(ValueError, AttributeError):
        """The estimator is used before fit()."""

    class _Params:
        """get_params / set_params / score as scikit-learn's BaseEstimator and ClassifierMixin give them."""

        @classmethod
        def _param_names(cls):
            import inspect  # pylint: disable=import-outside-toplevel
            return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

        def get_params(self, deep=True):  # pylint: disable=unused-argument
            return {name: getattr(self, name) for name in self._param_names()}

        def set_params(self, **params):
            names = self._param_names()
            for name, value in params.items():
                if name not in names:
                    raise ValueError("invalid parameter '%s' for %s" % (name, type(self).__name__))
                setattr(self, name, value)
            return self

        def score(self, X, y, sample_weight=None):
            y = numpy.asarray(y)
            hits = (self.predict(X) == y).astype(float)
            return float(numpy.average(hits, weights=sample_weight))

    _BASES = (_Params,)

_KERNELS = ("rbf", "linear")


class _Namespace:
    """The few array operations the estimator needs, in the array's own library (NumPy, PyTorch, CuPy)."""

    def __init__(self, x):
        self.backend = _backends.of(x)
        if self.backend.name == "torch":
            import torch  # pylint: disable=import-outside-toplevel
            self.xp, self.device = torch, x.device
        elif self.backend.name == "cupy":
            import cupy  # pylint: disable=import-outside-toplevel
            self.xp, self.device = cupy, x.device
        else:
            self.xp, self.device = numpy, None

    def asarray(self, x, dtype):
        """x in this library, on its device, of dtype (a numpy dtype), C-ordered."""
        if self.backend.name == "torch":
            t = self.xp.as_tensor(x, device=self.device)
            return t.to(getattr(self.xp, numpy.dtype(dtype).name)).contiguous()
        if self.backend.name == "cupy":
            with self.device:
                return self.xp.ascontiguousarray(self.xp.asarray(x, dtype=dtype))
        return numpy.ascontiguousarray(numpy.asarray(x, dtype=dtype))

    def arange(self, n):
        """0 .. n-1 in this library, on its device."""
        if self.backend.name == "torch":
            return self.xp.arange(n, device=self.device)
        if self.backend.name == "cupy":
            with self.device:
                return self.xp.arange(n)
        return numpy.arange(n)

    def concatenate(self, parts):
        """The arrays `parts` stacked along the first axis."""
        return self.xp.cat(parts) if self.backend.name == "torch" else self.xp.concatenate(parts)

    def zeros(self, shape, dtype):
        """A zero array of this library, on its device (dtype: one of this library's)."""
        if self.backend.name == "torch":
            return self.xp.zeros(shape, dtype=dtype, device=self.device)
        if self.backend.name == "cupy":
            with self.device:
                return self.xp.zeros(shape, dtype=dtype)
        return numpy.zeros(shape, dtype=dtype)

    def matmul(self, a, b, out=None):
        """a @ b, written into `out` (a view of a larger array) when given; returns the product."""
        return a @ b if out is None else self.xp.matmul(a, b, out=out)

    def exp_(self, x):
        """exp in place."""
        if self.backend.name == "torch":
            return x.exp_()
        return self.xp.exp(x, out=x)

    def clamp_max_(self, x, bound):
        """min(x, bound) in place."""
        if self.backend.name == "torch":
            return x.clamp_(max=bound)
        return self.xp.minimum(x, bound, out=x)

    def to_numpy(self, x):
        """x as a NumPy array on the host."""
        return numpy.asarray(self.backend.to_numpy(x))

    def argmax(self, x):
        """The index of the largest entry of each row of x, as a NumPy array."""
        return self.to_numpy(x.argmax(1))


def _squared_norms(x):
    return (x * x).sum(1)


class LSSVC(*_BASES):
    """Least-squares SVM classifier, one-vs-all, trained by one SPD solve with starfact.

    Args:
        C: regularization, > 0 (H = K + I / C).
        gamma: RBF width: a float > 0, "scale" (1 / (n_features * X.var()), scikit-learn's default) or "auto"
            (1 / n_features).
        kernel: "rbf" (exp(-gamma |x - z|^2)) or "linear" (x . z).
        dtype: "float64" or "float32": the precision of the kernel matrix and of the solve.
        factor: None, or the factor precision of the mixed-precision solve (float64 only: "fp32", "tf32",
            "bf16", "fp16"; :func:`starfact.posv`).
        nb, mapping: the solve's tile size and mapping (None: the library's choice).

    Attributes after fit: classes_, n_features_in_, alpha_ (n_samples x classes, the dual coefficients a_c),
    bias_ (classes,), support_vectors_ (the training samples, in the array type fit was given), gamma_ (as used),
    solve_report_ (the SolveReport when factor is given, else None).

    X may be a NumPy array, or a PyTorch or CuPy array (host or device): the kernel and the solve then run where
    it lives; other array types are read through NumPy. Labels y are any NumPy-convertible sequence; predict
    returns a NumPy array of labels.

    scikit-learn's conventions hold (its check_estimator passes): X must be dense, real, finite and 2-D (NaN,
    infinity, complex or 1-D X raise ValueError, sparse X TypeError), y must hold class labels, a binary
    decision_function has shape (n_samples,), and the estimator raises NotFittedError before fit.
    """

    def __init__(self, C=10.0, gamma="scale", kernel="rbf", dtype="float64", factor=None, nb=None, mapping=None):
        self.C = C
        self.gamma = gamma
        self.kernel = kernel
        self.dtype = dtype
        self.factor = factor
        self.nb = nb
        self.mapping = mapping

    # ---- parameters --------------------------------------------------------------------------------------

    def _checked(self):
        if not isinstance(self.C, numbers.Real) or isinstance(self.C, bool) or not numpy.isfinite(self.C) \
                or self.C <= 0:
            raise ValueError("LSSVC: parameter 'C' must be a finite number > 0 (got %r)" % (self.C,))
        if self.kernel not in _KERNELS:
            raise ValueError("LSSVC: parameter 'kernel' must be one of %s (got %r)" % (", ".join(_KERNELS),
                                                                                        self.kernel))
        if isinstance(self.gamma, str):
            if self.gamma not in ("scale", "auto"):
                raise ValueError("LSSVC: parameter 'gamma' must be 'scale', 'auto' or a number > 0 (got %r)"
                                 % (self.gamma,))
        elif not isinstance(self.gamma, numbers.Real) or isinstance(self.gamma, bool) or not self.gamma > 0:
            raise ValueError("LSSVC: parameter 'gamma' must be 'scale', 'auto' or a number > 0 (got %r)"
                             % (self.gamma,))
        try:
            dtype = numpy.dtype(self.dtype)
        except TypeError as e:
            raise ValueError("LSSVC: parameter 'dtype' must be float32 or float64 (got %r)" % (self.dtype,)) from e
        if dtype not in (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64)):
            raise ValueError("LSSVC: parameter 'dtype' must be float32 or float64 (got %r)" % (self.dtype,))
        return dtype

    # ---- the model ---------------------------------------------------------------------------------------

    def _training_kernel(self, ns, x, norms, blocks=8):
        """K(x, x), only the triangle posv reads: the solve views the row-major H as column-major, i.e. as H^T,
        and reads its lower triangle, which is the row-major upper one. Formed by `blocks` row blocks, each
        k(x[r0:r1], x[r0:]) written into H[r0:r1, r0:] in place: (blocks + 1) / (2 blocks) of the full kernel's
        products and passes (about 0.56 for 8), and no array beyond H. The other triangle is left unset (zero)."""
        n = int(x.shape[0])
        h = ns.zeros((n, n), x.dtype)
        step = max(256, -(-n // blocks))
        for r0 in range(0, n, step):
            r1 = min(n, r0 + step)
            self._kernel(ns, x[r0:r1], x[r0:], norms[r0:], out=h[r0:r1, r0:], x_norms=norms[r0:r1])
        return h

    def _kernel(self, ns, x, z, z_norms, out=None, x_norms=None):
        """k(x_i, z_j) for rows of x and z (z_norms: |z_j|^2; x_norms: |x_i|^2, computed when None), a new array of
        x's library, or `out` (a view) when given. The product x z^T is the only array of that size: the RBF kernel
        is formed in it, in place (a 60,000-sample kernel matrix in double is 28.8 GB, which a GPU holds once, not
        four times)."""
        if self.kernel == "linear":
            return ns.matmul(x, z.T, out)
        # -gamma |x - z|^2 = (2 gamma x).z - gamma |x|^2 - gamma |z|^2, at most 0 (rounding can make it slightly
        # positive): gamma folded into the product's small operand, four passes over the n x m array
        g = self.gamma_
        k = ns.matmul(x * (2.0 * g), z.T, out)
        k -= (g * (_squared_norms(x) if x_norms is None else x_norms))[:, None]
        k -= (g * z_norms)[None, :]
        ns.clamp_max_(k, 0.0)
        return ns.exp_(k)

    def fit(self, X, y):
        """Trains on X (n_samples x n_features; dense, real and finite) and labels y (n_samples,); returns self."""
        dtype = self._checked()
        ns = _Namespace(X)
        x = _validation.features(self, ns, X, dtype)
        if x is X:  # kept as the support vectors: not the caller's array, which it may change later
            x = ns.backend.copy(x)
        labels = _validation.labels(self, y, int(x.shape[0]))
        n, d = int(x.shape[0]), int(x.shape[1])
        self.classes_, codes = numpy.unique(labels, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError("LSSVC.fit: y must hold at least two classes, got 1 class (%r)" % (self.classes_[0],))
        m = len(self.classes_)
        if self.gamma == "scale":
            var = float(ns.to_numpy(((x - x.mean()) ** 2).mean()))
            self.gamma_ = 1.0 / (d * var) if var > 0 else 1.0
        elif self.gamma == "auto":
            self.gamma_ = 1.0 / d
        else:
            self.gamma_ = float(self.gamma)
        norms = _squared_norms(x)
        h = self._training_kernel(ns, x, norms)
        diagonal = ns.arange(n)
        h[diagonal, diagonal] += 1.0 / float(self.C)
        # B = [1, y_1 .. y_m], column-major (its transpose built row-major) so that posv solves it in place.
        targets = -numpy.ones((m + 1, n), dtype=dtype)
        targets[0] = 1
        targets[codes + 1, numpy.arange(n)] = 1
        b = ns.asarray(targets, dtype).T
        result = posv(h, b, overwrite_a=True, overwrite_b=True, factor=self.factor, nb=self.nb,
                      mapping=self.mapping)
        sol, self.solve_report_ = (result if self.factor is not None else (result, None))
        eta, nu = sol[:, 0], sol[:, 1:]
        bias = nu.sum(0) / eta.sum()
        self.alpha_ = nu - eta[:, None] * bias[None, :]
        self.bias_ = bias
        self.support_vectors_ = x
        self._norms = norms
        self._dtype = dtype
        self.n_features_in_ = d
        return self

    def _fitted(self):
        if not hasattr(self, "alpha_"):
            raise NotFittedError("this LSSVC is not fitted yet: call fit(X, y) first")

    def decision_function(self, X, block=4096):
        """The decision function, of the training data's array type, computed `block` rows at a time (the test
        kernel is never whole): f_c(x) for every row of X and class c, shape (n_samples, classes); with two classes,
        as scikit-learn's binary classifiers, f(x) of the second class (``classes_[1]``), shape (n_samples,),
        positive where that class is predicted (the first class's is its negative)."""
        self._fitted()
        ns = _Namespace(self.support_vectors_)
        x = _validation.features(self, ns, X, self._dtype, self.n_features_in_)
        block = _args.integer("block", block, 1, rule=">= 1")
        parts = []
        for start in range(0, int(x.shape[0]), block):
            k = self._kernel(ns, x[start:start + block], self.support_vectors_, self._norms)
            parts.append(k @ self.alpha_ + self.bias_[None, :])
        scores = parts[0] if len(parts) == 1 else ns.concatenate(parts)
        return scores[:, 1] if len(self.classes_) == 2 else scores

    def predict(self, X):
        """The predicted label of every row of X (a NumPy array of the labels fit saw)."""
        scores = self.decision_function(X)
        ns = _Namespace(self.support_vectors_)
        if len(self.classes_) == 2:
            return self.classes_[(ns.to_numpy(scores) > 0).astype(int)]
        return self.classes_[ns.argmax(scores)]

"""The input checks of starfact.svm's estimators, in scikit-learn's conventions (its ``check_array`` and
``check_classification_targets``, with their messages, which scikit-learn's estimator checks look for), on the
arrays of any library the estimators take (NumPy, PyTorch, CuPy: checked where they live). Without scikit-learn
installed, the same checks with local warning and error classes."""
import warnings

import numpy

from . import _backends

try:  # scikit-learn's own classes where it is installed, so that its tools recognize them
    from sklearn.exceptions import DataConversionWarning  # pylint: disable=import-error
except ImportError:  # pragma: no cover - exercised where scikit-learn is absent
    class DataConversionWarning(UserWarning):
        """A column-vector y was passed where a 1-D array was expected (and raveled)."""


def _is_sparse(x):
    return type(x).__module__.split(".", 1)[0] == "scipy" and hasattr(x, "toarray")


def _is_complex(x):
    if _backends.of(x).name == "torch":
        return bool(x.is_complex())
    kind = getattr(getattr(x, "dtype", None), "kind", None)
    if isinstance(kind, str):
        return kind == "c"
    return numpy.iscomplexobj(numpy.asarray(x))


def features(estimator, ns, X, dtype, n_features=None):
    """X as a 2-D array of ns's library in `dtype` (C-ordered), checked as scikit-learn's check_array does: dense,
    real, 2-D, at least one sample and one feature, finite; `n_features`: the count fit saw (None: in fit)."""
    name = type(estimator).__name__
    if _is_sparse(X):
        raise TypeError("%s: sparse input is not supported (got %s): pass a dense array, e.g. X.toarray()"
                        % (name, type(X).__name__))
    if _is_complex(X):
        raise ValueError("Complex data not supported: %s takes real features (got complex X)" % name)
    x = ns.asarray(X, dtype)
    ndim = len(x.shape)
    if ndim == 0:
        raise ValueError("Expected 2D array, got scalar array instead: %s takes X of shape (n_samples, n_features)"
                         % name)
    if ndim == 1:
        raise ValueError("Expected 2D array, got 1D array instead (shape %s). Reshape your data either using "
                         "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) if it "
                         "contains a single sample." % (tuple(x.shape),))
    if ndim > 2:
        raise ValueError("Found array with dim %d. %s expected <= 2." % (ndim, name))
    n, d = int(x.shape[0]), int(x.shape[1])
    if n < 1:
        raise ValueError("Found array with 0 sample(s) (shape=%s) while a minimum of 1 is required by %s."
                         % ((n, d), name))
    if d < 1:
        raise ValueError("Found array with 0 feature(s) (shape=%s) while a minimum of 1 is required by %s."
                         % ((n, d), name))
    if n_features is not None and d != n_features:
        raise ValueError("X has %d features, but %s is expecting %d features as input." % (d, name, n_features))
    if not bool(ns.to_numpy((x == x).all())):
        raise ValueError("Input X contains NaN: %s takes finite features." % name)
    if not bool(ns.to_numpy((abs(x) < float("inf")).all())):
        raise ValueError("Input X contains infinity or a value too large for %s: %s takes finite features."
                         % (numpy.dtype(dtype), name))
    return x


def labels(estimator, y, n_samples):
    """y as a 1-D NumPy array of class labels, one per sample, checked as scikit-learn's column_or_1d and
    check_classification_targets do: a column vector is raveled (with a DataConversionWarning); continuous or
    multi-output targets, NaN labels and a length other than n_samples are refused."""
    name = type(estimator).__name__
    if y is None:
        raise ValueError("%s requires y to be passed, but the target y is None." % name)
    y = numpy.asarray(_backends.of(y).to_numpy(y))
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please change the shape of y to "
                      "(n_samples,), for example using ravel().", DataConversionWarning, stacklevel=3)
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError("y should be a 1d array, got an array of shape %s instead: %s takes one label per sample."
                         % (y.shape, name))
    if y.shape[0] != n_samples:
        raise ValueError("Found input variables with inconsistent numbers of samples: [%d, %d] (X, y)"
                         % (n_samples, y.shape[0]))
    if y.dtype.kind == "c" or (y.dtype.kind == "f" and not numpy.all(numpy.isfinite(y))):
        raise ValueError("Input y contains NaN, infinity or complex values: %s takes class labels." % name)
    if y.dtype.kind == "f" and numpy.any(y != numpy.round(y)):
        raise ValueError("Unknown label type: 'continuous'. %s is a classifier: y must hold class labels (integers "
                         "or strings), not continuous values." % name)
    return y

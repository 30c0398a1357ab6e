"""starfact.svm.LSSVC: the trained model is the solution of the LS-SVM system (checked against a dense solve of
the bordered system), it classifies separable data, and it works inside scikit-learn's cross_val_score and
GridSearchCV."""
import numpy
import pytest

import starfact
from starfact.svm import LSSVC


def blobs(rng, n, classes=3, d=4, spread=0.6):
    """n samples around `classes` centres in d dimensions, 6 apart on the axes (well separated whatever the seed),
    with labels 10, 20, ..."""
    centres = 6.0 * numpy.eye(classes, d)
    labels = rng.integers(0, classes, n)
    x = centres[labels] + spread * rng.standard_normal((n, d))
    return x, (labels + 1) * 10


def reference(x, labels, gamma, c):
    """Dual coefficients and biases from a dense solve of each class's bordered system."""
    n = x.shape[0]
    sq = (x * x).sum(1)
    k = numpy.exp(-gamma * numpy.maximum(sq[:, None] + sq[None, :] - 2 * x @ x.T, 0))
    classes = numpy.unique(labels)
    alpha, bias = numpy.zeros((n, len(classes))), numpy.zeros(len(classes))
    for j, cls in enumerate(classes):
        m = numpy.zeros((n + 1, n + 1))
        m[0, 1:] = m[1:, 0] = 1
        m[1:, 1:] = k + numpy.eye(n) / c
        rhs = numpy.concatenate([[0.0], numpy.where(labels == cls, 1.0, -1.0)])
        sol = numpy.linalg.solve(m, rhs)
        bias[j], alpha[:, j] = sol[0], sol[1:]
    return alpha, bias


@pytest.mark.parametrize("n", [120, 700])  # 700: the kernel's triangle assembled in three row blocks
def test_model_is_the_ls_svm_solution(rng, n):
    x, y = blobs(rng, n)
    model = LSSVC(C=5.0, gamma=0.3).fit(x, y)
    alpha, bias = reference(x, y, 0.3, 5.0)
    assert numpy.allclose(model.alpha_, alpha, rtol=1e-7, atol=1e-9)
    assert numpy.allclose(model.bias_, bias, rtol=1e-7, atol=1e-9)
    assert list(model.classes_) == [10, 20, 30] and model.n_features_in_ == 4
    wrong = LSSVC(C=5.0, gamma=0.31).fit(x, y)  # the check above can fail: another gamma, another model
    assert not numpy.allclose(wrong.alpha_, alpha, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_classifies(rng, dtype):
    x, y = blobs(rng, 200)
    xt, yt = x[150:], y[150:]
    model = LSSVC(C=10.0, dtype=dtype).fit(x[:150], y[:150])
    assert model.score(xt, yt) >= 0.9
    assert model.predict(xt).dtype == y.dtype
    scores = model.decision_function(xt, block=7)  # blocks of the test kernel
    assert scores.shape == (50, 3) and numpy.array_equal(model.classes_[scores.argmax(1)], model.predict(xt))


def test_linear_kernel_and_mixed_precision(rng):
    x, y = blobs(rng, 100, classes=2)
    lin = LSSVC(kernel="linear", C=1.0).fit(x, y)
    assert lin.score(x, y) >= 0.9
    mixed = LSSVC(C=10.0, factor="fp32").fit(x, y)
    exact = LSSVC(C=10.0).fit(x, y)
    assert mixed.solve_report_.path in ("refined", "gmres", "fallback")
    assert numpy.allclose(mixed.alpha_, exact.alpha_, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("n", [90, 600])
def test_torch_input(rng, n):
    torch = pytest.importorskip("torch")
    x, y = blobs(rng, n)
    a = LSSVC(C=3.0).fit(x, y)
    b = LSSVC(C=3.0).fit(torch.from_numpy(x), y)
    assert isinstance(b.alpha_, torch.Tensor)
    assert numpy.allclose(b.alpha_.numpy(), a.alpha_)
    assert numpy.array_equal(b.predict(torch.from_numpy(x)), a.predict(x))


def test_parameters_and_errors(rng):
    model = LSSVC(C=2.0, gamma="auto")
    assert model.get_params()["C"] == 2.0 and model.get_params()["gamma"] == "auto"
    assert model.set_params(C=3.0) is model and model.C == 3.0
    x, y = blobs(rng, 30)
    with pytest.raises(ValueError) as e:
        model.predict(x)
    for bad, name in ((dict(C=0.0), "'C'"), (dict(C=-1), "'C'"), (dict(gamma="wide"), "'gamma'"),
                      (dict(gamma=0), "'gamma'"), (dict(kernel="poly"), "'kernel'"), (dict(dtype="int32"), "'dtype'")):
        with pytest.raises(ValueError) as e:
            LSSVC(**bad).fit(x, y)
        assert name in str(e.value)
    with pytest.raises(ValueError):
        LSSVC().fit(x, y[:-1])
    with pytest.raises(ValueError):
        LSSVC().fit(x, numpy.zeros(30))
    bad_x = x.copy()
    bad_x[3, 1] = numpy.nan
    with pytest.raises(ValueError):
        LSSVC().fit(bad_x, y)
    with pytest.raises(ValueError):
        LSSVC().fit(x, y).predict(x[:, :2])


def test_inside_scikit_learn(rng):
    pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV, cross_val_score
    x, y = blobs(rng, 150, spread=1.5)
    est = LSSVC()
    assert clone(est).get_params() == est.get_params()
    scores = cross_val_score(LSSVC(C=10.0), x, y, cv=3)
    assert scores.shape == (3,) and scores.min() >= 0.7
    grid = GridSearchCV(LSSVC(), {"C": [0.1, 10.0], "gamma": [0.05, "scale"]}, cv=3)
    grid.fit(x, y)
    assert set(grid.best_params_) == {"C", "gamma"}
    assert grid.best_score_ >= 0.8 and len(grid.cv_results_["mean_test_score"]) == 4
    assert grid.score(x, y) >= 0.8
    assert isinstance(grid.best_estimator_, LSSVC) and grid.best_estimator_.alpha_.shape == (150, 3)
    assert starfact.runtime() is not None


def test_binary_decision_function(rng):
    """Two classes: decision_function is (n,), positive where classes_[1] is predicted, so that scikit-learn's
    roc_auc scoring works."""
    x, y = blobs(rng, 120, classes=2, spread=2.5)
    model = LSSVC(C=1.0).fit(x, y)
    f = model.decision_function(x)
    assert f.shape == (120,)
    assert numpy.array_equal(model.predict(x), model.classes_[(f > 0).astype(int)])
    assert numpy.allclose(f, LSSVC(C=1.0).fit(x, numpy.where(y == 10, "b", "a")).decision_function(x) * -1)
    pytest.importorskip("sklearn")
    from sklearn.model_selection import cross_val_score
    auc = cross_val_score(LSSVC(C=1.0), x, y, cv=3, scoring="roc_auc")
    assert numpy.all(numpy.isfinite(auc)) and auc.min() > 0.8


def test_refuses_what_it_cannot_classify(rng):
    """NaN, infinite, complex and sparse features, continuous targets: ValueError (TypeError for sparse) at fit and
    at predict, never a silent answer."""
    x, y = blobs(rng, 40)
    model = LSSVC().fit(x, y)
    for bad_value, word in ((numpy.nan, "NaN"), (numpy.inf, "infinity")):
        bad = x.copy()
        bad[5, 2] = bad_value
        for call in (lambda bad=bad: LSSVC().fit(bad, y), lambda bad=bad: model.predict(bad),
                     lambda bad=bad: model.decision_function(bad)):
            with pytest.raises(ValueError, match=word):
                call()
    complex_x = x + 1j
    for call in (lambda: LSSVC().fit(complex_x, y), lambda: model.predict(complex_x)):
        with pytest.raises(ValueError, match="Complex"):
            call()
    with pytest.raises(ValueError, match="Unknown label type"):
        LSSVC().fit(x, rng.standard_normal(40))
    with pytest.raises(ValueError, match="Reshape your data"):
        model.predict(x[0])
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(TypeError, match="sparse"):
        LSSVC().fit(sparse.csr_matrix(x), y)


def test_scikit_learn_estimator_checks():
    """scikit-learn's check_estimator: every check passes (checks of sample weights are not made: fit takes none;
    those of pandas input need pandas; newer scikit-learn releases check array-API input only when SCIPY_ARRAY_API
    is set in the environment)."""
    pytest.importorskip("sklearn")
    import warnings
    from sklearn.exceptions import SkipTestWarning
    from sklearn.utils.estimator_checks import check_estimator
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_estimator(LSSVC(mapping="cpu-only"))
    skipped = [str(w.message) for w in caught if issubclass(w.category, SkipTestWarning)]
    # Checks skipped for what the environment lacks, never for LSSVC itself.
    assert all("pandas" in s or "SCIPY_ARRAY_API" in s for s in skipped), skipped

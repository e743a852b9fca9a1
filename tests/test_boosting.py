"""Gradient boosting (fastdt.ensemble.boosting): the losses, the Newton step, early
stopping, the format, the estimators."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import fastdt
from fastdt.ensemble import Forest, fit_boosting
from fastdt.ensemble._losses import get_loss
from fastdt.tree import FIELDS


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 6))
    X[rng.random(X.shape) < 0.03] = np.nan
    z = np.nan_to_num(X)
    y = (z[:, 0] + z[:, 1] * z[:, 2] + 0.3 * rng.normal(size=600) > 0).astype(int)
    yr = 2 * z[:, 0] - z[:, 3] + rng.normal(size=600)
    y3 = np.digitize(z[:, 0] + 0.5 * z[:, 1], [-0.5, 0.5])
    return X, y, yr, y3


_LOSSES = [("squared_error", "regression", 0), ("poisson", "regression", 0),
           ("gamma", "regression", 0), ("tweedie", "regression", 0),
           ("log_loss", "classification", 2), ("log_loss", "classification", 4)]


def _case(name, task, k, seed, n):
    """A loss and random targets and weights for it: ``(loss, y, w, rng)``."""
    rng = np.random.default_rng(seed)
    loss = get_loss(name, task, k, power=1.3)
    y = rng.integers(0, k, n).astype(float) if task == "classification" else rng.gamma(2.0, size=n)
    return loss, y, rng.uniform(0.5, 2.0, n), rng


@pytest.mark.parametrize("name,task,k", _LOSSES, ids=lambda v: str(v))
def test_gradients_and_hessians_are_the_loss_derivatives(name, task, k):
    """Central finite differences of the per-row loss, in every raw-score column."""
    loss, y, w, rng = _case(name, task, k, seed=1, n=40)
    n, cols = y.shape[0], k if k > 2 else 1
    raw = rng.normal(scale=0.7, size=(n, cols))
    g, h = loss.gradient_hessian(y, raw, w)
    eps = 1e-4
    for i in range(n):
        for c in range(cols):
            def f(d, i=i, c=c):
                r = raw[i:i + 1].copy()
                r[0, c] += d
                return w[i] * loss.value(y[i:i + 1], r, np.ones(1))
            num_g = (f(eps) - f(-eps)) / (2 * eps)
            num_h = (f(eps) - 2 * f(0.0) + f(-eps)) / eps ** 2
            assert g[i, c] == pytest.approx(num_g, rel=1e-5, abs=1e-7)
            assert h[i, c] == pytest.approx(num_h, rel=1e-3, abs=1e-5)


@pytest.mark.parametrize("name,task,k", _LOSSES, ids=lambda v: str(v))
def test_baseline_minimises_the_loss(name, task, k):
    loss, y, w, _ = _case(name, task, k, seed=2, n=200)
    n = y.shape[0]
    base = loss.baseline(y, w)
    best = loss.value(y, np.tile(base, (n, 1)), w)
    for c in range(base.shape[0]):
        for d in (-1e-3, 1e-3):
            moved = base.copy()
            moved[c] += d
            assert loss.value(y, np.tile(moved, (n, 1)), w) >= best - 1e-12


@pytest.mark.parametrize("lam", [0.0, 3.0])
def test_one_round_stump_is_the_newton_step(data, lam):
    """Binary log-loss, one round of a stump: each leaf is -lr * G / (H + lambda) over its
    rows at the starting score (G, H the sums of p - y and p (1 - p))."""
    X, y, _, _ = data
    Xc = np.nan_to_num(X)
    f = fit_boosting(Xc, y, max_iter=1, max_depth=1, max_leaf_nodes=None,
                     learning_rate=0.3, l2_regularization=lam, early_stopping=False,
                     min_samples_leaf=1)
    p0 = y.mean()
    assert f.boosting["baseline"][0] == pytest.approx(np.log(p0 / (1 - p0)))
    t = f.tree(0)
    assert t.node_count == 3
    go_left = Xc[:, t.feature[0]] <= t.threshold[0]
    for leaf, rows in ((t.left[0], go_left), (t.right[0], ~go_left)):
        G = np.sum(p0 - y[rows])
        H = rows.sum() * p0 * (1 - p0)
        assert t.value[leaf, 0] == pytest.approx(-0.3 * G / (H + lam), rel=1e-10)
    raw = fastdt.ensemble.boosting.decision_function(f, Xc)
    expect = f.boosting["baseline"][0] + t.value[np.where(go_left, t.left[0], t.right[0]), 0]
    np.testing.assert_allclose(raw, expect, rtol=1e-12)


def test_squared_error_stump_fits_the_residual_means(data):
    X, _, yr, _ = data
    f = fit_boosting(X, yr, max_iter=1, max_depth=1, max_leaf_nodes=None, learning_rate=1.0,
                     early_stopping=False, min_samples_leaf=1)
    leaves = fastdt.apply(f.tree(0), X)
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        assert f.tree(0).value[leaf, 0] == pytest.approx(np.mean(yr[rows] - yr.mean()))


@pytest.mark.parametrize("target", ["yr", "y", "y3"])
def test_training_loss_does_not_increase_at_a_small_learning_rate(data, target):
    X, y, yr, y3 = data
    t = {"y": y, "yr": yr, "y3": y3}[target]
    f = fit_boosting(X, t, max_iter=30, learning_rate=0.05, early_stopping=False)
    loss = f.fit_info_["train_loss"]
    assert loss.shape == (31,)
    assert np.all(np.diff(loss) <= 1e-12)
    assert loss[-1] < loss[0]


def test_early_stopping_keeps_the_best_iteration(data):
    X, y, _, _ = data
    f = fit_boosting(X, y, max_iter=300, learning_rate=0.5, early_stopping=True,
                     validation_fraction=0.25, n_iter_no_change=5, random_state=0)
    val = f.fit_info_["validation_loss"]
    assert len(val) < 301  # it stopped
    n_iter = f.fit_info_["n_iter"]
    assert n_iter == max(1, int(np.argmin(val))) and f.n_trees == n_iter
    # the last rounds did not improve on the one before them by more than tol
    assert min(val[-5:]) >= val[-6] - 1e-7


def test_early_stopping_on_the_training_loss(data):
    """validation_fraction=None: every row trains, and the training loss decides."""
    X, y, _, _ = data
    f = fit_boosting(X, y, max_iter=40, early_stopping=True, validation_fraction=None)
    info = f.fit_info_
    np.testing.assert_array_equal(info["validation_loss"], info["train_loss"])
    full = fit_boosting(X, y, max_iter=f.n_trees, early_stopping=False)
    np.testing.assert_array_equal(f.value, full.value)


def test_prediction_is_the_sum_of_the_trees_through_the_link(data):
    X, _, _, y3 = data
    f = fit_boosting(X, y3, max_iter=5, early_stopping=False)
    assert f.n_trees == 15 and f.value.shape[1] == 3
    raw = np.tile(f.boosting["baseline"], (X.shape[0], 1))
    for t in f.trees():
        raw += fastdt.predict(t, X)
    np.testing.assert_allclose(fastdt.ensemble.boosting.decision_function(f, X), raw,
                               rtol=1e-12, atol=1e-12)
    proba = fastdt.predict_proba(f, X)
    e = np.exp(raw - raw.max(axis=1, keepdims=True))
    np.testing.assert_allclose(proba, e / e.sum(axis=1, keepdims=True), rtol=1e-10)
    np.testing.assert_array_equal(fastdt.predict(f, X), f.classes[np.argmax(proba, axis=1)])
    *_, last = fastdt.ensemble.boosting.staged_values(f, X)
    np.testing.assert_allclose(last, proba, rtol=1e-10)


def test_same_model_whatever_the_threads(data):
    X, y, _, _ = data
    a = fit_boosting(X, y, max_iter=10, max_features=0.5, random_state=3, n_jobs=1)
    b = fit_boosting(X, y, max_iter=10, max_features=0.5, random_state=3, n_jobs=2)
    for name in (*FIELDS, "offsets"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_categories_and_missing_values_in_a_frame():
    rng = np.random.default_rng(4)
    n = 800
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    x = rng.normal(size=n)
    x[rng.random(n) < 0.1] = np.nan
    y = ((colour == "red") | (colour == "blue")) ^ (np.nan_to_num(x, nan=1.0) > 0.5)
    df = pd.DataFrame({"colour": pd.Categorical(colour), "x": x})
    f = fit_boosting(df, y, max_iter=20, early_stopping=False)
    assert f.categories[0] is not None
    assert (fastdt.predict(f, df) == y).mean() > 0.97


def test_save_load_pickle_and_damaged_metadata(tmp_path, data):
    X, y, yr, y3 = data
    for target, loss in ((y, "auto"), (y3, "auto"), (np.abs(yr) + 0.1, "tweedie")):
        f = fit_boosting(X, target, max_iter=4, loss=loss, early_stopping=False)
        path = tmp_path / "b.npz"
        f.save(path)
        back = fastdt.load(path)
        assert isinstance(back, Forest) and back.boosting == f.boosting
        assert back.task == f.task
        np.testing.assert_array_equal(fastdt.predict(back, X), fastdt.predict(f, X))
        again = pickle.loads(pickle.dumps(f))
        np.testing.assert_array_equal(fastdt.predict(again, X), fastdt.predict(f, X))
    import json

    with np.load(path) as z:
        contents = {k: z[k] for k in z.files}
    meta = json.loads(str(contents["__meta__"]))
    for key, bad in (("loss", "log_loss"), ("baseline", [1.0, 2.0]), ("baseline", ["x"]),
                     ("learning_rate", -1.0), ("power", 2.5), ("task", "ranking"),
                     ("classes", {"dtype": "<i8", "values": [0, 1]})):
        damaged = dict(contents)
        m = json.loads(json.dumps(meta))
        m["boosting"][key] = bad
        damaged["__meta__"] = np.array(json.dumps(m))
        np.savez(tmp_path / "bad.npz", **damaged)
        with pytest.raises(ValueError):
            fastdt.load(tmp_path / "bad.npz")


def test_clear_errors(data):
    X, y, yr, y3 = data
    with pytest.raises(ValueError, match="loss='poisson' is not a loss of a classifier"):
        fit_boosting(X, y, loss="poisson", task="classification")
    with pytest.raises(ValueError, match="learning_rate"):
        fit_boosting(X, y, learning_rate=0.0)
    with pytest.raises(TypeError, match="max_iter"):
        fit_boosting(X, y, max_iter=2.5)
    with pytest.raises(ValueError, match="power"):
        fit_boosting(X, np.abs(yr), loss="tweedie", power=2.0)
    with pytest.raises(ValueError, match="y > 0"):
        fit_boosting(X, yr, loss="gamma")
    with pytest.raises(ValueError, match="multiclass"):
        fit_boosting(X, y3, monotonic_cst=[1, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="sparse"):
        import scipy.sparse as sp

        fit_boosting(sp.csr_matrix(np.nan_to_num(X)), y)
    with pytest.raises(ValueError, match="n_jobs"):
        fit_boosting(X, y, n_jobs=0)
    with pytest.raises(ValueError, match="warm_start"):
        fastdt.GradientBoostingClassifier(warm_start=True).fit(X, y)


def test_estimator_attributes_and_staged_predictions(data):
    X, y, yr, _ = data
    clf = fastdt.GradientBoostingClassifier(max_iter=15, early_stopping=True,
                                            random_state=0).fit(X, y)
    assert clf.n_iter_ == clf.forest_.n_trees <= 15 and clf.n_trees_per_iteration_ == 1
    assert clf.do_early_stopping_ and clf.validation_score_.shape == (len(clf.train_score_),)
    assert clf.feature_importances_.shape == (6,)
    assert clf.feature_importances_.sum() == pytest.approx(1.0)
    staged = list(clf.staged_predict(X))
    assert len(staged) == clf.n_iter_
    np.testing.assert_array_equal(staged[-1], clf.predict(X))
    d = clf.decision_function(X)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[(d > 0).astype(int)])
    reg = fastdt.GradientBoostingRegressor(max_iter=15).fit(X, yr)
    assert not reg.do_early_stopping_ and reg.n_iter_ == 15
    np.testing.assert_allclose(list(reg.staged_predict(X))[-1], reg.predict(X), rtol=1e-12)


@pytest.mark.parametrize("name", ["breast_cancer", "wine", "diabetes"])
def test_accuracy_like_scikit_learn(name):
    """Test accuracy / R^2 within noise of scikit-learn's HistGradientBoosting (5 seeds)."""
    from sklearn import ensemble

    from _sklearn_compare import assert_scores_like

    kind = "Classifier" if name != "diabetes" else "Regressor"
    assert_scores_like(name, getattr(fastdt, f"GradientBoosting{kind}"),
                       getattr(ensemble, f"HistGradientBoosting{kind}"), max_iter=50)


with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*does not inherit from", category=UserWarning)
    from sklearn.utils.estimator_checks import parametrize_with_checks

    _CHECKS = parametrize_with_checks(
        [fastdt.GradientBoostingClassifier(max_iter=10),
         fastdt.GradientBoostingRegressor(max_iter=10)])


@_CHECKS
def test_sklearn_check_estimator(estimator, check):
    check(estimator)

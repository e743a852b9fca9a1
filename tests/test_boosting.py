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


def test_binary_logloss_in_one_pass_is_numpys_formulas():
    """The one-pass kernel (gradients, hessians, loss) against the numpy formulas, with
    scores far out in both tails (no overflow), over enough rows to run on threads."""
    from fastdt.ensemble._losses import _sigmoid, _weighted_mean

    rng = np.random.default_rng(5)
    n = 120_000
    raw = rng.normal(scale=4.0, size=(n, 1))
    raw[:4, 0] = [-800.0, 800.0, 0.0, -0.0]
    y = rng.integers(0, 2, n).astype(float)
    w = rng.uniform(0.5, 2.0, n)
    loss = get_loss("log_loss", "classification", 2)
    g, h, value = loss.gradient_hessian_value(y, raw, w)
    p = _sigmoid(raw[:, 0])
    # numpy's exp (vectorised) and the kernel's may differ in the last bit of p, and
    # p - y cancels where p is near y: a relative bound fails there (numpy 2.4.6: 3 rows
    # of 120,000 off by 1.8e-13 relatively, 3.6e-16 absolutely), so the bound is
    # relative or a few units in the last place of w * p (w < 2), whichever is larger
    tol = dict(rtol=1e-14, atol=8 * np.finfo(float).eps)
    np.testing.assert_allclose(g[:, 0], w * (p - y), **tol)
    np.testing.assert_allclose(h[:, 0], w * p * (1.0 - p), **tol)
    assert value == pytest.approx(_weighted_mean(loss.rows(y, raw), w), rel=1e-14)
    assert np.isfinite(g).all() and np.isfinite(h).all() and np.isfinite(value)
    assert (loss.gradient_hessian(y, raw, w)[0] == g).all() and loss.value(y, raw, w) == value


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


def test_the_loss_tells_the_task(data):
    X, y, yr, y3 = data
    counts = np.random.default_rng(0).poisson(2.0, X.shape[0])  # whole numbers
    model = fit_boosting(X, counts, loss="poisson", max_iter=3, early_stopping=False)
    assert model.task == "regression"
    ref = fit_boosting(X, counts.astype(float), loss="poisson", max_iter=3,
                       early_stopping=False, random_state=model.params["random_seed"])
    assert np.array_equal(fastdt.predict(model, X), fastdt.predict(ref, X))
    assert fit_boosting(X, y.astype(float), loss="log_loss", max_iter=1).task == \
        "classification"


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
    with pytest.raises(ValueError, match="needs quantile"):
        fit_boosting(X, yr, loss="quantile")
    with pytest.raises(ValueError, match="quantile"):
        fit_boosting(X, yr, loss="quantile", quantile=1.0)
    with pytest.raises(ValueError, match="subsample"):
        fit_boosting(X, y, subsample=0.0)
    with pytest.raises(ValueError, match="min_split_gain"):
        fit_boosting(X, y, min_split_gain=-1.0)
    with pytest.raises(ValueError, match="warm_start"):
        fastdt.GradientBoostingClassifier(warm_start="yes").fit(X, y)


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


# ------------------------------------------------------------------ robust losses


@pytest.mark.parametrize("name", ["absolute_error", "quantile", "huber"])
def test_robust_loss_gradients_and_baselines(name):
    """Gradients are the derivatives of the per-row loss (away from the kinks; Huber at
    the batch's delta), hessians the weights; the baseline is the (weighted) quantile,
    which minimises the loss (Huber: the median)."""
    rng = np.random.default_rng(3)
    n = 60
    loss = get_loss(name, "regression", quantile=0.3 if name == "quantile" else 0.8)
    y, w = rng.normal(size=n) * 3, rng.uniform(0.5, 2.0, n)
    raw = rng.normal(size=(n, 1))
    g, h = loss.gradient_hessian(y, raw, w)
    np.testing.assert_array_equal(h[:, 0], w)
    if name == "huber":
        delta = loss.delta(y, raw, w)
        a = np.abs(y - raw[:, 0])
        assert np.mean(a <= delta) == pytest.approx(0.8, abs=0.05)

        def per_row(i, r):
            d = abs(y[i] - r)
            return 0.5 * d * d if d <= delta else delta * (d - 0.5 * delta)
    else:
        def per_row(i, r):
            return loss.value(y[i:i + 1], np.array([[r]]), np.ones(1))
    eps = 1e-6
    for i in range(n):
        num = (per_row(i, raw[i, 0] + eps) - per_row(i, raw[i, 0] - eps)) / (2 * eps)
        assert g[i, 0] == pytest.approx(w[i] * num, rel=1e-5, abs=1e-6)
    base = loss.baseline(y, w)
    q = 0.5 if name == "huber" else loss.q
    assert base[0] == np.percentile(y, 100 * q, method="inverted_cdf", weights=w)
    assert loss.baseline(y, np.ones(n))[0] == pytest.approx(np.percentile(y, 100 * q))
    if name != "huber":
        best = loss.value(y, np.tile(base, (n, 1)), w)
        for d in (-1e-3, 1e-3):
            assert loss.value(y, np.tile(base + d, (n, 1)), w) >= best - 1e-12


def test_quantile_of_groups_is_numpys_percentile():
    from fastdt.ensemble._losses import quantile_of

    rng = np.random.default_rng(4)
    v, w, g = rng.normal(size=80), rng.uniform(0.0, 2.0, 80), rng.integers(0, 5, 80)
    g[g == 3] = 4  # group 3 is empty
    for q in (0.05, 0.5, 0.9):
        got_w, got = quantile_of(v, w, q, g, 5), quantile_of(v, None, q, g, 5)
        assert np.isnan(got_w[3]) and np.isnan(got[3])
        for k in (0, 1, 2, 4):
            assert got_w[k] == np.percentile(v[g == k], 100 * q, method="inverted_cdf",
                                             weights=w[g == k])
            assert got[k] == pytest.approx(np.percentile(v[g == k], 100 * q))


@pytest.mark.parametrize("loss,q", [("absolute_error", 0.5), ("quantile", 0.75)])
@pytest.mark.parametrize("weighted", [False, True])
def test_leaves_are_quantiles_of_their_residuals(data, loss, q, weighted):
    X, _, yr, _ = data
    w = np.random.default_rng(5).uniform(0.5, 2.0, yr.shape[0]) if weighted else None
    f = fit_boosting(X, yr, loss=loss, quantile=q, max_iter=1, learning_rate=0.5,
                     early_stopping=False, sample_weight=w)
    tree = f.trees()[0]
    leaf = fastdt.apply(tree, X)
    residual = yr - f.boosting["baseline"][0]
    leaves = np.unique(leaf)
    assert leaves.shape[0] > 2
    for node in leaves:
        r = residual[leaf == node]
        want = (np.percentile(r, 100 * q) if w is None else
                np.percentile(r, 100 * q, method="inverted_cdf", weights=w[leaf == node]))
        assert tree.value[node, 0] == pytest.approx(0.5 * want)


def test_quantile_loss_covers_its_quantile():
    rng = np.random.default_rng(6)
    X = rng.uniform(-2, 2, size=(4000, 3))
    y = X[:, 0] + rng.normal(size=4000) * (1 + np.abs(X[:, 1]))
    for q in (0.2, 0.8):
        reg = fastdt.GradientBoostingRegressor(loss="quantile", quantile=q, max_iter=60,
                                               early_stopping=False).fit(X, y)
        assert np.mean(y <= reg.predict(X)) == pytest.approx(q, abs=0.04)
    med = fastdt.GradientBoostingRegressor(loss="absolute_error", max_iter=60,
                                           early_stopping=False).fit(X, y)
    hub = fastdt.GradientBoostingRegressor(loss="huber", max_iter=60,
                                           early_stopping=False).fit(X, y)
    for reg in (med, hub):
        assert np.mean(y <= reg.predict(X)) == pytest.approx(0.5, abs=0.04)
        loss = reg.forest_.fit_info_["train_loss"]
        assert loss[-1] < 0.8 * loss[0]


def test_quantile_model_saves_its_quantile(tmp_path, data):
    X, _, yr, _ = data
    f = fit_boosting(X, yr, loss="quantile", quantile=0.3, max_iter=3, early_stopping=False)
    assert f.boosting["quantile"] == 0.3
    f.save(tmp_path / "q.npz")
    back = fastdt.load(tmp_path / "q.npz")
    assert back.boosting == f.boosting
    np.testing.assert_array_equal(fastdt.predict(back, X), fastdt.predict(f, X))
    import json

    with np.load(tmp_path / "q.npz") as z:
        contents = {k: z[k] for k in z.files}
    for bad in (1.5, None, "0.3"):
        meta = json.loads(str(contents["__meta__"]))
        meta["boosting"]["quantile"] = bad
        np.savez(tmp_path / "bad.npz", **dict(contents, __meta__=np.array(json.dumps(meta))))
        with pytest.raises(ValueError, match="quantile"):
            fastdt.load(tmp_path / "bad.npz")


# ------------------------------------------------------------------ more parameters


def test_min_split_gain_is_the_newton_gain(data):
    """The root split of a first squared-error round: its gain
    ``G_L^2/H_L + G_R^2/H_R - G^2/H`` computed by hand decides whether it is made."""
    X, _, yr, _ = data
    kw = dict(max_iter=1, max_leaf_nodes=2, early_stopping=False)
    stump = fit_boosting(X, yr, **kw).trees()[0]
    assert stump.node_count == 3
    g = yr.mean() - yr  # gradients at the baseline; hessians 1
    left = fastdt.apply(stump, X) == stump.left[0]
    gain = (g[left].sum() ** 2 / left.sum() + g[~left].sum() ** 2 / (~left).sum()
            - g.sum() ** 2 / g.shape[0])
    assert fit_boosting(X, yr, min_split_gain=gain * (1 - 1e-6), **kw).trees()[0].node_count == 3
    assert fit_boosting(X, yr, min_split_gain=gain * (1 + 1e-6), **kw).trees()[0].node_count == 1


def _soft(G, alpha):
    return np.sign(G) * max(abs(G) - alpha, 0.0)


def _regularised_gains(X, g, lam, alpha):
    """Every (feature, threshold) cut of integer-valued ``X`` and its gain
    ``T(G_L)^2/(H_L+lam) + T(G_R)^2/(H_R+lam) - T(G)^2/(H+lam)`` (hessians 1,
    ``T`` the soft threshold by ``alpha``), by enumeration."""
    out = {}
    for f in range(X.shape[1]):
        for v in np.unique(X[:, f])[:-1]:
            left = X[:, f] <= v
            out[f, v] = (_soft(g[left].sum(), alpha) ** 2 / (left.sum() + lam)
                         + _soft(g[~left].sum(), alpha) ** 2 / ((~left).sum() + lam)
                         - _soft(g.sum(), alpha) ** 2 / (g.shape[0] + lam))
    return out


@pytest.mark.parametrize("lam,alpha,feature", [(0.0, 0.0, 0), (2.0, 0.0, 0), (50.0, 0.0, 1),
                                               (0.0, 15.0, 1), (3.0, 4.0, 0)])
def test_regularisation_in_the_split_gain_and_the_leaves(lam, alpha, feature):
    """The root split of a squared-error round is the cut of largest regularised gain
    among all cuts (enumerated; integer features so every cut is a bin boundary), its
    leaves are ``-lr T(G) / (H + lambda)``, and min_split_gain compares with that gain.
    Feature 0 isolates three extreme rows (the best cut without regularisation),
    feature 1 halves the rows (the best under a large lambda or alpha)."""
    rng = np.random.default_rng(3)
    n = 200
    X = np.column_stack([np.zeros(n), rng.integers(0, 2, n), rng.integers(0, 6, n)])
    X[:3, 0] = 1
    y = 0.8 * X[:, 1] + 0.1 * rng.normal(size=n)
    y[:3] += 6.0
    kw = dict(max_iter=1, max_leaf_nodes=2, early_stopping=False, min_samples_leaf=1,
              l2_regularization=lam, l1_regularization=alpha, learning_rate=0.5)
    stump = fit_boosting(X, y, **kw).trees()[0]
    g = y.mean() - y
    gains = _regularised_gains(X, g, lam, alpha)
    best = max(gains, key=gains.get)
    assert best[0] == feature
    assert stump.feature[0] == feature and best[1] <= stump.threshold[0] < best[1] + 1
    left = X[:, feature] <= best[1]
    for leaf, rows in ((stump.left[0], left), (stump.right[0], ~left)):
        want = -0.5 * _soft(g[rows].sum(), alpha) / (rows.sum() + lam)
        assert stump.value[leaf, 0] == pytest.approx(want, rel=1e-9, abs=1e-12)
    top = gains[best]
    assert fit_boosting(X, y, min_split_gain=top * (1 - 1e-6), **kw).trees()[0].node_count == 3
    assert fit_boosting(X, y, min_split_gain=top * (1 + 1e-6), **kw).trees()[0].node_count == 1


@pytest.mark.parametrize("seed", [24, 3, 7])
def test_monotonic_constraint_holds_for_the_regularised_leaves(seed):
    """With lambda (and alpha) the leaves are ``-T(G)/(H+lambda)``, not the means: the
    constraint is checked on those values (scikit-learn's rule), so the raw score never
    decreases along an increasing feature. Seed 24 broke it when the check used the
    means (a step of -6e-4)."""
    rng = np.random.default_rng(seed)
    n = 300
    X = rng.uniform(size=(n, 1))
    y = 2 + np.floor(X[:, 0] * 5) * 0.3 + rng.normal(size=n) * 0.3
    y[X[:, 0] > 0.97] += rng.uniform(0, 3)
    grid = np.linspace(0, 1, 2001)[:, None]
    for lam, alpha in ((100.0, 0.0), (20.0, 5.0), (0.0, 10.0)):
        f = fit_boosting(X, y, max_iter=2, learning_rate=1.0, monotonic_cst=[1],
                         l2_regularization=lam, l1_regularization=alpha,
                         early_stopping=False, min_samples_leaf=1, max_leaf_nodes=31)
        raw = fastdt.ensemble.boosting.decision_function(f, grid)
        assert np.all(np.diff(raw) >= -1e-12), (lam, alpha)


def test_regularisation_is_for_histogram_regression_trees(data):
    from fastdt import _engine

    X, y, yr, _ = data
    prep = _engine.prepare(X, y, params={"splitter": "hist"})
    with pytest.raises(ValueError, match="l1_regularization apply"):
        _engine.grow(prep, l2_regularization=1.0)
    prep = _engine.prepare(X, yr, params={"splitter": "hist", "task": "regression"})
    with pytest.raises(ValueError, match="l2_regularization must be"):
        _engine.grow(prep, l2_regularization=-1.0)
    with pytest.raises(ValueError, match="l1_regularization must be"):
        _engine.grow(prep, l1_regularization=np.inf)
    with pytest.raises(ValueError, match="l1_regularization"):
        fit_boosting(X, yr, l1_regularization=-1.0)
    assert _engine.grow(prep, l2_regularization=1.0, l1_regularization=2.0) is not None


def test_trees_grown_one_after_another_reuse_the_histogram_pool(data):
    """Boosting's trees share one histogram pool (``scratch``); what an earlier tree left
    in it is never read."""
    from fastdt import _engine

    X, _, yr, _ = data
    prep = _engine.prepare(X, yr, params={"splitter": "hist", "task": "regression",
                                          "max_leaf_nodes": 20})
    scratch = {}
    first = _engine.assemble(prep, _engine.grow(prep, scratch=scratch))
    pool = scratch["hist_pool"]
    pool[:] = np.nan
    again = _engine.assemble(prep, _engine.grow(prep, scratch=scratch))
    assert scratch["hist_pool"] is pool
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(first, name), getattr(again, name), err_msg=name)


def test_subsample_grows_each_round_on_a_share_of_the_rows(data):
    X, y, _, y3 = data
    for target in (y, y3):
        f = fit_boosting(X, target, subsample=0.5, max_iter=4, early_stopping=False,
                         random_state=1)
        roots = [t.n_node_samples[0] for t in f.trees()]
        assert roots == [300] * len(roots)
        again = fit_boosting(X, target, subsample=0.5, max_iter=4, early_stopping=False,
                             random_state=1)
        np.testing.assert_array_equal(fastdt.predict_proba(again, X),
                                      fastdt.predict_proba(f, X))
        full = fit_boosting(X, target, max_iter=4, early_stopping=False, random_state=1)
        assert not np.array_equal(fastdt.predict_proba(full, X), fastdt.predict_proba(f, X))


@pytest.mark.parametrize("target", ["y", "y3", "yr"])
def test_continuing_a_model_is_one_longer_fit(data, target):
    X, y, yr, y3 = data
    t = {"y": y, "y3": y3, "yr": yr}[target]
    kw = dict(early_stopping=False, random_state=7, subsample=0.8)
    whole = fit_boosting(X, t, max_iter=9, **kw)
    part = fit_boosting(X, t, max_iter=4, **kw)
    cont = fit_boosting(X, t, max_iter=9, init_model=part, **kw)
    assert cont.n_trees == whole.n_trees
    np.testing.assert_allclose(fastdt.predict_proba(cont, X) if target != "yr"
                               else fastdt.predict(cont, X),
                               fastdt.predict_proba(whole, X) if target != "yr"
                               else fastdt.predict(whole, X), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="max_iter=3"):
        fit_boosting(X, t, max_iter=3, init_model=part, **kw)
    other = yr if target != "yr" else y
    with pytest.raises(ValueError, match="another task"):
        fit_boosting(X, other, max_iter=9, init_model=part, **kw)
    with pytest.raises(TypeError, match="init_model"):
        fit_boosting(X, t, init_model=fastdt.fit_forest(X, t, n_estimators=2))


def test_warm_start_estimator_adds_rounds(data):
    X, y, _, _ = data
    clf = fastdt.GradientBoostingClassifier(max_iter=5, warm_start=True, random_state=0,
                                            early_stopping=True, n_iter_no_change=50)
    clf.fit(X, y)
    first = clf.forest_.trees()
    clf.set_params(max_iter=12).fit(X, y)
    assert clf.n_iter_ == clf.forest_.n_trees == 12
    assert clf.train_score_.shape == (13,) and clf.validation_score_.shape == (13,)
    for a, b in zip(first, clf.forest_.trees()):
        np.testing.assert_array_equal(a.value, b.value)
    one = fastdt.GradientBoostingClassifier(max_iter=12, random_state=0, early_stopping=True,
                                            n_iter_no_change=50).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), one.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(clf.train_score_, one.train_score_, atol=1e-12)
    with pytest.raises(ValueError, match="max_iter"):
        clf.set_params(max_iter=3).fit(X, y)


def test_a_validation_set_of_ones_own(data):
    X, y, yr, y3 = data
    Xv, yv = X[:150], y[:150]
    f = fit_boosting(X, y, X_val=Xv, y_val=yv, max_iter=5, n_iter_no_change=50)
    info = f.fit_info_
    assert info["early_stopping"] and f.trees()[0].n_node_samples[0] == 600
    loss = get_loss("log_loss", "classification", 2)
    base = np.tile(f.boosting["baseline"], (150, 1))
    assert info["validation_loss"][0] == pytest.approx(loss.value(yv.astype(float), base,
                                                                   np.ones(150)))
    labels = np.array(["a", "b", "c"])[y3]
    clf = fastdt.GradientBoostingClassifier(max_iter=5).fit(
        X, labels, X_val=X[:100], y_val=labels[:100], sample_weight_val=np.full(100, 2.0))
    assert clf.do_early_stopping_ and clf.validation_score_.shape == (6,)
    with pytest.raises(ValueError, match="not fitted on"):
        fit_boosting(X, labels, X_val=X[:5], y_val=np.array(["a", "b", "z", "a", "a"]))
    with pytest.raises(ValueError, match="early_stopping=False"):
        fit_boosting(X, y, X_val=Xv, y_val=yv, early_stopping=False)
    with pytest.raises(ValueError, match="both or neither"):
        fit_boosting(X, y, X_val=Xv)
    with pytest.raises(ValueError, match="features"):
        fit_boosting(X, y, X_val=Xv[:, :3], y_val=yv)
    reg = fastdt.GradientBoostingRegressor(max_iter=5).fit(X, yr, X_val=X[:50], y_val=yr[:50])
    assert reg.do_early_stopping_


def test_feature_importances_gain_and_split(data):
    from fastdt.ensemble.boosting import feature_importances

    X, y, _, _ = data
    clf = fastdt.GradientBoostingClassifier(max_iter=8, early_stopping=False).fit(X, y)
    forest = clf.forest_
    split = feature_importances(forest, "split")
    counts = np.bincount(forest.feature[forest.feature >= 0], minlength=6)
    np.testing.assert_allclose(split, counts / counts.sum())
    gain = feature_importances(forest)
    np.testing.assert_array_equal(gain, clf.feature_importances_)
    # a tree's total gain is the sum over its splits of G_L^2/H_L + G_R^2/H_R - G^2/H:
    # the weighted decrease of squared error of its targets; for the first tree (the
    # gradients at the baseline, hessians p (1 - p)), recomputed from the rows
    first = forest.trees()[0]
    p = 1 / (1 + np.exp(-forest.boosting["baseline"][0]))
    g, h = p - y, np.full(y.shape[0], p * (1 - p))
    indptr, indices = fastdt.decision_path(first, X)
    path = np.zeros((600, first.node_count), dtype=bool)
    path[np.repeat(np.arange(600), np.diff(indptr)), indices] = True
    want = np.zeros(6)
    for node in np.flatnonzero(first.feature >= 0):
        rows = path[:, node]
        lrows = path[:, first.left[node]]
        rrows = rows & ~lrows
        want[first.feature[node]] += (g[lrows].sum() ** 2 / h[lrows].sum()
                                      + g[rrows].sum() ** 2 / h[rrows].sum()
                                      - g[rows].sum() ** 2 / h[rows].sum())
    one = Forest.from_trees([first])
    one.boosting = forest.boosting
    np.testing.assert_allclose(feature_importances(one), want / want.sum(), rtol=1e-9)
    with pytest.raises(ValueError, match="importance_type"):
        feature_importances(forest, "cover")


def test_training_rows_reach_the_leaves_the_tree_walk_gives(data, monkeypatch):
    """Each round finds its training rows' leaves in the histogram layout (the leaves'
    ranges of positions) instead of walking the tree: the same leaves, for trees grown
    best-first or level-wise, with categories, missing values, leaves whose parent's
    rows were not moved (both children unable to split) and speculative splits undone
    (best-first batches on 5,000 rows: before the undone splits were left out, the last
    node made took their children's place and 28 rows reached the wrong leaf)."""
    from fastdt import _predict
    from fastdt.ensemble import boosting

    X, y, yr, y3 = data
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(X)
    frame["c"] = pd.Categorical(rng.choice(list("abcdefg"), X.shape[0]))
    seen = {"layout": 0, "walked": 0}
    find = boosting._training_leaves

    def checked(tree, scratch, rows, grown_on_all):
        leaf = find(tree, scratch, rows, grown_on_all)
        np.testing.assert_array_equal(leaf, _predict.leaves(tree, *rows))
        ranges = scratch.get("ranges")
        if grown_on_all and scratch.get("rows") is not None:
            seen["layout"] += 1
            seen["walked"] += int((ranges[tree.left < 0, 0] < 0).any())
        return leaf

    monkeypatch.setattr(boosting, "_training_leaves", checked)
    for kw in ({}, {"max_leaf_nodes": 7}, {"max_leaf_nodes": None, "max_depth": 3},
               {"min_samples_leaf": 60}):
        for Xs, target in ((X, y), (frame, y3), (X, yr)):
            fit_boosting(Xs, target, max_iter=3, early_stopping=False, **kw)
    big = rng.normal(size=(5000, 6))
    big[rng.random(big.shape) < 0.03] = np.nan
    z = np.nan_to_num(big)
    target = (z[:, 0] + z[:, 1] * z[:, 2] + 0.3 * rng.normal(size=5000) > 0).astype(int)
    for leaves in (31, 63):
        fit_boosting(big, target, max_iter=3, max_leaf_nodes=leaves, early_stopping=False)
    assert seen["layout"] > 0 and seen["walked"] > 0

"""AdaBoost (fastdt.ensemble.adaboost): parity with scikit-learn's AdaBoostClassifier (SAMME)
and AdaBoostRegressor (AdaBoost.R2), the early exits, the format, the estimators."""

import json
import pickle
import warnings

import numpy as np
import pytest

import fastdt
from fastdt.ensemble import Forest, fit_adaboost
from fastdt.ensemble.adaboost import weighted_median

sklearn = pytest.importorskip("sklearn")

from sklearn import ensemble as sk_ensemble  # noqa: E402
from sklearn import tree as sk_tree  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

assert_allclose = np.testing.assert_allclose


@pytest.fixture(scope="module")
def clf_data():
    """Continuous features (no ties between values), two and three classes, weights."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y2 = (X[:, 0] + X[:, 1] ** 2 + 0.5 * rng.normal(size=300) > 1).astype(int)
    y3 = np.digitize(X[:, 0] + 0.5 * X[:, 2] + 0.3 * rng.normal(size=300), [-0.5, 0.5])
    return X, y2, y3, rng.uniform(0.5, 2.0, 300), rng.normal(size=(100, 5))


def _reg_data(seed, n, uniform):
    rng = np.random.default_rng(seed)
    if uniform:
        X = rng.uniform(size=(n, 4))
        y = np.sin(4 * X[:, 0]) + X[:, 1] + 0.1 * rng.normal(size=n)
    else:
        X = rng.normal(size=(n, 4))
        y = X[:, 0] + np.sin(2 * X[:, 1]) + 0.3 * rng.normal(size=n)
    return X, y, rng.uniform(0.5, 2.0, n), rng.uniform(X.min(), X.max(), size=(100, 4))


# ---------------------------------------------------------------------- SAMME parity


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("depth", [1, 3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("lr", [1.0, 0.5])
def test_samme_is_scikit_learns(clf_data, n_classes, depth, weighted, lr):
    """The same trees, weights, errors, votes and probabilities. Deeper trees reach nodes
    of a few rows that two features split alike (a tie: scikit-learn takes a random
    feature, fastdt the lowest), so theirs keep leaves of at least 10 rows."""
    X, y2, y3, sw, Xt = clf_data
    y = y2 if n_classes == 2 else y3
    w = sw if weighted else None
    params = dict(max_depth=depth, min_samples_leaf=1 if depth == 1 else 10)
    ours = fastdt.AdaBoostClassifier(fastdt.DecisionTreeClassifier(**params),
                                     n_estimators=30, learning_rate=lr).fit(X, y, w)
    theirs = sk_ensemble.AdaBoostClassifier(sk_tree.DecisionTreeClassifier(**params),
                                            n_estimators=30, learning_rate=lr).fit(X, y, w)
    assert len(ours.estimators_) == len(theirs.estimators_)
    assert_allclose(ours.estimator_weights_, theirs.estimator_weights_, rtol=1e-10)
    assert_allclose(ours.estimator_errors_, theirs.estimator_errors_, rtol=1e-10)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    for rows in (X, Xt):
        assert_allclose(ours.decision_function(rows), theirs.decision_function(rows),
                        rtol=1e-10, atol=1e-12)
        assert_allclose(ours.predict_proba(rows), theirs.predict_proba(rows), rtol=1e-10)
        np.testing.assert_array_equal(ours.predict(rows), theirs.predict(rows))
    staged = zip(ours.staged_decision_function(Xt), theirs.staged_decision_function(Xt),
                 ours.staged_predict_proba(Xt), theirs.staged_predict_proba(Xt),
                 ours.staged_predict(Xt), theirs.staged_predict(Xt), strict=True)
    for d1, d2, p1, p2, c1, c2 in staged:
        assert_allclose(d1, d2, rtol=1e-10, atol=1e-12)
        assert_allclose(p1, p2, rtol=1e-10)
        np.testing.assert_array_equal(c1, c2)
    assert_allclose(ours.feature_importances_, theirs.feature_importances_, atol=1e-12)
    # the functional API reads the same Forest
    assert_allclose(fastdt.predict_proba(ours.forest_, Xt), ours.predict_proba(Xt))
    np.testing.assert_array_equal(fastdt.predict(ours.forest_, Xt), ours.predict(Xt))


@pytest.mark.parametrize("params", [
    dict(max_depth=1, class_weight="balanced"),
    dict(max_depth=1, class_weight={0: 3.0, 1: 0.0, 2: 1.0}),  # errors at 1 - 1/K, to 1 ulp
    dict(max_depth=3, min_samples_leaf=10, ccp_alpha=0.002),
    dict(max_depth=2, criterion="entropy"),
], ids=["balanced", "zero-class-weight", "ccp_alpha", "entropy"])
def test_samme_base_tree_parameters_are_scikit_learns(clf_data, params):
    """Class weights, pruning, another criterion, rows of weight 0."""
    X, _, _, sw, Xt = clf_data
    y = np.digitize(X[:, 0] + 0.5 * X[:, 2], [-0.9, 0.5])
    w = sw.copy()
    w[:20] = 0.0
    ours = fastdt.AdaBoostClassifier(fastdt.DecisionTreeClassifier(**params),
                                     n_estimators=20).fit(X, y, w)
    with warnings.catch_warnings():  # scikit-learn takes the log of the weights of 0
        warnings.simplefilter("ignore", RuntimeWarning)
        theirs = sk_ensemble.AdaBoostClassifier(sk_tree.DecisionTreeClassifier(**params),
                                                n_estimators=20).fit(X, y, w)
    assert len(ours.estimators_) == len(theirs.estimators_)
    assert_allclose(ours.estimator_weights_, theirs.estimator_weights_, rtol=1e-10,
                    atol=1e-14)
    assert_allclose(ours.estimator_errors_, theirs.estimator_errors_, rtol=1e-10)
    assert_allclose(ours.decision_function(Xt), theirs.decision_function(Xt), rtol=1e-10,
                    atol=1e-12)


def test_samme_by_hand():
    """Stumps on 4 rows, y = 0 0 1 0. Round 1 splits at 1.5; its right leaf is a tie
    (class 0), so it misses row 2: e = 1/4, alpha = log(3) + log(2 - 1). Row 2's weight
    triples: weights 1/6 1/6 1/2 1/6; round 2 splits at 1.5 again, its right leaf now
    says 1 and misses row 3: e = 1/6, alpha = log(5). The decision is the weighted vote
    over the sum of the weights (+-2 each, binary): -2 left of 1.5, 2 (log 5 - log 3) /
    log 15 right of it."""
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 0])
    f = fit_adaboost(X, y, n_estimators=2)
    assert_allclose(f.params["estimator_errors"], [1 / 4, 1 / 6], rtol=1e-12)
    assert_allclose(f.params["estimator_weights"], [np.log(3.0), np.log(5.0)], rtol=1e-12)
    d = fastdt.ensemble.adaboost.decision_function(f, X)
    right = 2 * (np.log(5.0) - np.log(3.0)) / np.log(15.0)
    assert_allclose(d, [-2.0, -2.0, right, right], rtol=1e-12)
    assert_allclose(fastdt.predict_proba(f, X)[:, 1], 1 / (1 + np.exp(-d)), rtol=1e-12)
    np.testing.assert_array_equal(fastdt.predict(f, X), [0, 0, 1, 1])


# ---------------------------------------------------------------------- R2 parity


@pytest.mark.parametrize("loss", ["linear", "square", "exponential"])
@pytest.mark.parametrize("case", ["stumps", "stumps-weighted-lr", "depth3", "depth3-weighted"])
def test_r2_is_scikit_learns(loss, case):
    """The same bootstrap samples (scikit-learn's random numbers), trees, weights and
    weighted medians. Depth-3 trees on bootstrap samples often meet nodes of a few
    distinct rows that two features split alike (a tie, which scikit-learn breaks by a
    random feature order and fastdt by the lowest feature): those cases grow on data
    where no such tie arises, with leaves of at least 5% of the weight."""
    if case.startswith("stumps"):
        X, y, sw, Xt = _reg_data(1, 200, uniform=False)
        params, lr = dict(max_depth=1), (0.7 if case.endswith("lr") else 1.0)
    else:
        X, y, sw, Xt = _reg_data(0, 400, uniform=True)
        params, lr = dict(max_depth=3, min_weight_fraction_leaf=0.05), 1.0
    w = sw if "weighted" in case else None
    ours = fastdt.AdaBoostRegressor(fastdt.DecisionTreeRegressor(**params), n_estimators=25,
                                    learning_rate=lr, loss=loss, random_state=3).fit(X, y, w)
    theirs = sk_ensemble.AdaBoostRegressor(sk_tree.DecisionTreeRegressor(**params),
                                           n_estimators=25, learning_rate=lr, loss=loss,
                                           random_state=3).fit(X, y, w)
    assert len(ours.estimators_) == len(theirs.estimators_)
    assert_allclose(ours.estimator_weights_, theirs.estimator_weights_, rtol=1e-10)
    assert_allclose(ours.estimator_errors_, theirs.estimator_errors_, rtol=1e-10)
    for rows in (X, Xt):
        assert_allclose(ours.predict(rows), theirs.predict(rows), rtol=1e-12)
    for p1, p2 in zip(ours.staged_predict(Xt), theirs.staged_predict(Xt), strict=True):
        assert_allclose(p1, p2, rtol=1e-12)
    assert_allclose(ours.feature_importances_, theirs.feature_importances_, atol=1e-12)
    assert_allclose(fastdt.predict(ours.forest_, Xt), ours.predict(Xt))


def test_weighted_median_by_hand():
    preds = np.array([[3.0, 1.0, 2.0], [5.0, 5.0, 0.0]])
    # row 0 sorted: 1 (w .2), 2 (w .3), 3 (w .5): half the total (.5) is reached at 2
    assert_allclose(weighted_median(preds, np.array([0.5, 0.2, 0.3])), [2.0, 5.0])
    # every weight 0 (R2's one too-weak tree): the smallest prediction
    assert_allclose(weighted_median(preds, np.zeros(3)), [1.0, 0.0])
    # equal weights, an even count: half the total is reached exactly at the lower one
    assert_allclose(weighted_median(np.array([[4.0, 1.0, 3.0, 2.0]]), np.ones(4)), [2.0])


# ---------------------------------------------------------------------- early exits


def test_a_perfect_tree_ends_the_fit():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 3))
    X[:, 0] = np.sign(X[:, 0]) * (1.0 + 0.1 * rng.random(80))  # two clusters far apart
    y = (X[:, 1] > 0.2).astype(int)
    ours = fastdt.AdaBoostClassifier(n_estimators=10).fit(X, y)
    theirs = sk_ensemble.AdaBoostClassifier(n_estimators=10).fit(X, y)
    assert len(ours.estimators_) == len(theirs.estimators_) == 1
    np.testing.assert_array_equal(ours.estimator_weights_, theirs.estimator_weights_)
    np.testing.assert_array_equal(ours.estimator_errors_, theirs.estimator_errors_)
    assert ours.estimator_weights_[0] == 1.0 and ours.estimator_errors_[0] == 0.0
    np.testing.assert_array_equal(ours.predict(X), y)
    # any bootstrap sample's tree splits between the clusters: every row is predicted
    yr = np.where(X[:, 0] > 0.0, 2.0, -1.0)
    reg = fastdt.AdaBoostRegressor(n_estimators=10, random_state=0).fit(X, yr)
    sk_reg = sk_ensemble.AdaBoostRegressor(n_estimators=10, random_state=0).fit(X, yr)
    assert len(reg.estimators_) == len(sk_reg.estimators_) == 1
    np.testing.assert_array_equal(reg.estimator_weights_, sk_reg.estimator_weights_)
    assert_allclose(reg.predict(X), yr)


def test_a_weak_first_tree():
    """No split is possible (one constant feature): SAMME refuses, as scikit-learn; R2
    keeps the tree with weight 0 and predicts its value."""
    X = np.zeros((40, 1))
    y = np.tile([0, 1], 20)
    with pytest.raises(ValueError, match="no better than chance"):
        fastdt.AdaBoostClassifier(n_estimators=5).fit(X, y)
    with pytest.raises(ValueError, match="worse than random"):
        sk_ensemble.AdaBoostClassifier(n_estimators=5).fit(X, y)
    yr = y.astype(float)
    reg = fastdt.AdaBoostRegressor(n_estimators=5, random_state=0).fit(X, yr)
    sk_reg = sk_ensemble.AdaBoostRegressor(n_estimators=5, random_state=0).fit(X, yr)
    assert len(reg.estimators_) == len(sk_reg.estimators_) == 1
    np.testing.assert_array_equal(reg.estimator_weights_, np.zeros(5))
    np.testing.assert_array_equal(reg.estimator_weights_, sk_reg.estimator_weights_)
    assert_allclose(reg.predict(X), sk_reg.predict(X))


# ---------------------------------------------------------------------- format


@pytest.fixture(scope="module")
def models(clf_data):
    X, y2, y3, sw, _ = clf_data
    yr = X[:, 0] + 0.1 * X[:, 1]
    return {"samme2": fit_adaboost(X, y2, n_estimators=5),
            "samme3": fit_adaboost(X, y3, n_estimators=5),
            "r2": fit_adaboost(X, yr, n_estimators=5, random_state=0)}


def test_the_forms(models):
    assert models["samme2"].boosting["loss"] == "samme"
    assert models["samme3"].value.shape[1] == 3 and models["samme2"].value.shape[1] == 1
    assert models["r2"].boosting is None and models["r2"].tree_weights.shape == (5,)
    assert "weighted_median" in repr(models["r2"])


@pytest.mark.parametrize("name", ["samme2", "samme3", "r2"])
def test_save_load_and_pickle(tmp_path, clf_data, models, name):
    X = clf_data[4]
    f = models[name]
    read = "predict" if name == "r2" else "predict_proba"
    want = getattr(fastdt, read)(f, X)
    f.save(tmp_path / "m.npz")
    for back in (fastdt.load(tmp_path / "m.npz"), pickle.loads(pickle.dumps(f))):
        assert isinstance(back, Forest)
        assert back.boosting == f.boosting and back.params == json.loads(json.dumps(f.params))
        np.testing.assert_array_equal(getattr(fastdt, read)(back, X), want)
        if name == "r2":
            np.testing.assert_array_equal(back.tree_weights, f.tree_weights)


def _damaged(tmp_path, forest, change):
    forest.save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz") as z:
        contents = {k: z[k] for k in z.files}
    meta = json.loads(str(contents["__meta__"]))
    change(meta)
    np.savez(tmp_path / "bad.npz", **dict(contents, __meta__=np.array(json.dumps(meta))))
    return tmp_path / "bad.npz"


def _set(*path_value):
    *path, value = path_value

    def change(meta):
        at = meta
        for key in path[:-1]:
            at = at[key]
        if value is _DROP:
            del at[path[-1]]
        else:
            at[path[-1]] = value
    return change


_DROP = object()
_SAMME_DAMAGE = [
    (_set("boosting", "baseline", [1.0]), "baseline"),
    (_set("boosting", "baseline", [0.0, 0.0]), "baseline"),
    (_set("boosting", "learning_rate", -1.0), "learning_rate"),
    (_set("boosting", "learning_rate", "x"), "learning_rate"),
    (_set("boosting", "task", "regression"), "classification"),
    (_set("boosting", "classes", {"dtype": "<i8", "values": [0, 1, 2]}), "column"),
    (_set("combine", "mean"), "combine"),
    (_set("combine", _DROP), "combine"),
]
_R2_DAMAGE = [
    (_set("tree_weights", [1.0, 2.0]), "one per tree"),
    (_set("tree_weights", [1.0, -1.0, 1.0, 1.0, 1.0]), ">= 0"),
    (_set("tree_weights", [1.0, "x", 1.0, 1.0, 1.0]), "finite numbers"),
    (_set("tree_weights", 1.0), "finite numbers"),
    (_set("boosting", {"loss": "samme"}), "no boosting block"),
]


@pytest.mark.parametrize("change,match", _SAMME_DAMAGE)
def test_damaged_samme_files_are_refused(tmp_path, models, change, match):
    with pytest.raises(ValueError, match=match):
        fastdt.load(_damaged(tmp_path, models["samme2"], change))


@pytest.mark.parametrize("change,match", _R2_DAMAGE)
def test_damaged_r2_files_are_refused(tmp_path, models, change, match):
    with pytest.raises(ValueError, match=match):
        fastdt.load(_damaged(tmp_path, models["r2"], change))


def test_damaged_objects_are_refused_on_unpickling(models):
    f = pickle.loads(pickle.dumps(models["r2"]))
    f.tree_weights = f.tree_weights[:2]
    with pytest.raises(ValueError, match="one per tree"):
        pickle.loads(pickle.dumps(f))
    g = pickle.loads(pickle.dumps(models["samme3"]))
    g.boosting = dict(g.boosting, baseline=[0.0])
    with pytest.raises(ValueError, match="baseline"):
        pickle.loads(pickle.dumps(g))


# ---------------------------------------------------------------------- inputs


def test_sparse_X_is_the_dense_copy(clf_data):
    sp = pytest.importorskip("scipy.sparse")
    X, y2, y3, _, Xt = clf_data
    Xs = np.where(np.abs(X) < 0.5, 0.0, X)  # zeros for the sparse layout to skip
    for y, est in ((y3, fastdt.AdaBoostClassifier(n_estimators=8)),
                   (Xs[:, 0] + Xs[:, 1], fastdt.AdaBoostRegressor(n_estimators=8,
                                                                  random_state=0))):
        dense = est.fit(Xs, y).predict(Xt), est.estimator_weights_
        sparse = est.fit(sp.csr_matrix(Xs), y).predict(Xt), est.estimator_weights_
        for a, b in zip(sparse, dense):  # leaf means: the same sums in another order
            assert_allclose(a, b, rtol=1e-12)


def _no_kernel(monkeypatch):
    """Fail if the engine is reached: the errors below come before any kernel."""
    from fastdt import _engine

    def boom(*args, **kwargs):
        raise AssertionError("the engine ran before the error")
    monkeypatch.setattr(_engine, "prepare", boom)


@pytest.mark.parametrize("kwargs,error,match", [
    (dict(n_estimators=0), ValueError, "n_estimators"),
    (dict(n_estimators=2.5), TypeError, "n_estimators"),
    (dict(learning_rate=0.0), ValueError, "learning_rate"),
    (dict(learning_rate=np.inf), ValueError, "learning_rate"),
    (dict(learning_rate="1"), TypeError, "learning_rate"),
    (dict(loss="huber"), ValueError, "loss"),
    (dict(loss="square", task="classification"), ValueError, "regression"),
    (dict(tree_params=[("max_depth", 2)]), TypeError, "tree_params"),
    (dict(tree_params=dict(random_state=0)), ValueError, "random_state"),
    (dict(tree_params=dict(missing="fractional")), ValueError, "fractional"),
    (dict(random_state="a"), TypeError, "random_state"),
    (dict(sample_weight=-np.ones(300)), ValueError, "non-negative"),
])
def test_clear_errors_before_any_kernel(monkeypatch, clf_data, kwargs, error, match):
    X, y2 = clf_data[:2]
    _no_kernel(monkeypatch)
    with pytest.raises(error, match=match):
        fit_adaboost(X, y2, **kwargs)


def test_clear_input_errors_before_any_kernel(monkeypatch, clf_data):
    X, y2 = clf_data[:2]
    _no_kernel(monkeypatch)
    with pytest.raises(ValueError, match="one output"):
        fit_adaboost(X, np.column_stack([y2, y2]))
    with pytest.raises(ValueError, match="at least two classes"):
        fit_adaboost(X, np.zeros(300, dtype=int))
    with pytest.raises(TypeError, match="Dataset"):
        fit_adaboost(fastdt.Dataset(X), y2)
    with pytest.raises(TypeError, match="DecisionTreeClassifier"):
        fastdt.AdaBoostClassifier(fastdt.DecisionTreeRegressor()).fit(X, y2)
    with pytest.raises(TypeError, match="DecisionTreeRegressor"):
        fastdt.AdaBoostRegressor(sk_tree.DecisionTreeRegressor()).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="loss"):
        fastdt.AdaBoostRegressor(loss="l1").fit(X, X[:, 0])


def test_random_state_reproduces_and_base_tree_params_are_used(clf_data):
    X = clf_data[0]
    y = X[:, 0] - X[:, 2]
    a = fastdt.AdaBoostRegressor(n_estimators=6, random_state=7).fit(X, y)
    b = fastdt.AdaBoostRegressor(n_estimators=6, random_state=7).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.estimator_.max_depth == 3
    deep = fastdt.AdaBoostRegressor(fastdt.DecisionTreeRegressor(max_depth=5),
                                    n_estimators=2, random_state=7).fit(X, y)
    assert max(t.max_depth for t in deep.estimators_) == 5


# ---------------------------------------------------------------------- check_estimator


def _expected_failures(estimator):
    """Those scikit-learn marks for its own AdaBoost estimators."""
    return {name: "sample_weight is not equivalent to removing/repeating samples."
            for name in ("check_sample_weight_equivalence_on_dense_data",
                         "check_sample_weight_equivalence_on_sparse_data")}


with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*does not inherit from", category=UserWarning)
    _CHECKS = parametrize_with_checks(
        [fastdt.AdaBoostClassifier(n_estimators=5), fastdt.AdaBoostRegressor(n_estimators=5)],
        expected_failed_checks=_expected_failures)


@_CHECKS
def test_sklearn_check_estimator(estimator, check):
    check(estimator)

"""monotonic_cst: monotonic constraints per feature, as scikit-learn defines them."""

import itertools

import numpy as np
import pytest

import fastdt
from fastdt import DecisionTreeClassifier, DecisionTreeRegressor

from _sklearn_compare import assert_same_tree


def _data(n=400, seed=0, nan=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)).astype(np.float32)  # scikit-learn fits float32
    y = X[:, 0] - 0.5 * X[:, 1] + np.sin(3 * X[:, 2]) + 0.5 * rng.normal(size=n)
    if nan:
        X[rng.random(X.shape) < nan] = np.nan
    return X, y


CONSTRAINTS = ([1, 0, 0], [1, -1, 0], [0, 0, 1], [-1, 1, 1])
GROWTH = ({"max_depth": 5}, {"max_leaf_nodes": 12}, {})


def test_same_trees_as_scikit_learn():
    """Leaves of at least 15 rows keep ties between features away (scikit-learn breaks
    them by a random feature order): the trees are scikit-learn's, values clipped to
    the same bounds, bit for bit in structure and thresholds."""
    sk = pytest.importorskip("sklearn.tree")
    X, y = _data()
    outcomes = []
    for cst, growth, task in itertools.product(CONSTRAINTS, GROWTH, ("clf", "reg")):
        params = dict(monotonic_cst=cst, min_samples_leaf=15, **growth)
        if task == "clf":
            yy = (y > 0).astype(int)
            ours = DecisionTreeClassifier(**params).fit(X, yy)
            theirs = sk.DecisionTreeClassifier(random_state=0, **params).fit(X, yy)
            np.testing.assert_array_equal(ours.predict_proba(X), theirs.predict_proba(X))
        else:
            ours = DecisionTreeRegressor(**params).fit(X, y)
            theirs = sk.DecisionTreeRegressor(random_state=0, **params).fit(X, y)
            np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)
        try:
            assert_same_tree(ours.tree_, theirs)
            outcomes.append("same")
        except AssertionError as e:  # a tie between features: same predictions above
            assert "feature" in str(e), e
            outcomes.append("tie")
    assert outcomes.count("same") >= 0.9 * len(outcomes), outcomes


def _assert_monotone(predict, X, cst, rng, n_lines=40):
    """Along each constrained feature, from random rows, predictions never go the
    wrong way."""
    grid = np.linspace(-3, 3, 121, dtype=np.float32)
    for f, c in enumerate(cst):
        if c == 0:
            continue
        base = X[rng.integers(0, X.shape[0], n_lines)]
        base = np.where(np.isnan(base), 0.0, base).astype(np.float32)
        rows = np.repeat(base, grid.shape[0], axis=0)
        rows[:, f] = np.tile(grid, n_lines)
        p = predict(rows).reshape(n_lines, grid.shape[0])
        steps = np.diff(p, axis=1) * c
        assert steps.min() >= 0, (f, c, steps.min())


@pytest.mark.parametrize("splitter", ["best", "random", "hist"])
@pytest.mark.parametrize("cst", CONSTRAINTS)
def test_predictions_are_monotone(splitter, cst):
    X, y = _data(n=1500, seed=1)
    rng = np.random.default_rng(2)
    reg = DecisionTreeRegressor(monotonic_cst=cst, splitter=splitter, random_state=0).fit(X, y)
    _assert_monotone(reg.predict, X, cst, rng)
    clf = DecisionTreeClassifier(monotonic_cst=cst, splitter=splitter, random_state=0,
                                 max_leaf_nodes=40).fit(X, (y > 0).astype(int))
    _assert_monotone(lambda Z: clf.predict_proba(Z)[:, 1], X, cst, rng)
    # an unconstrained tree of the same data is not monotone (the check can fail)
    free = DecisionTreeRegressor(splitter=splitter, random_state=0).fit(X, y)
    with pytest.raises(AssertionError):
        _assert_monotone(free.predict, X, cst, rng)


def test_missing_values_learned_side_keeps_monotone_predictions():
    X, y = _data(n=1500, seed=3, nan=0.1)
    cst = [1, -1, 0]
    for splitter in ("best", "hist"):
        reg = DecisionTreeRegressor(monotonic_cst=cst, splitter=splitter).fit(X, y)
        _assert_monotone(reg.predict, X, cst, np.random.default_rng(4))


def test_hist_is_exact_with_enough_bins():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 40, size=(800, 3)).astype(np.float64)
    y = X[:, 0] - X[:, 1] + 5 * rng.normal(size=800)
    for cst in CONSTRAINTS:
        a = fastdt.fit(X, y, monotonic_cst=cst, max_depth=6)
        b = fastdt.fit(X, y, monotonic_cst=cst, max_depth=6, splitter="hist", max_bins=64)
        for name in ("feature", "threshold", "left", "n_node_samples"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        # sums of y in another order: equal to rounding
        np.testing.assert_allclose(a.value, b.value, rtol=1e-12, atol=1e-12)


def test_values_stay_in_bounds_and_zero_means_unconstrained(tmp_path):
    X, y = _data()
    free = fastdt.fit(X, y, max_depth=6)
    zero = fastdt.fit(X, y, max_depth=6, monotonic_cst=[0, 0, 0])
    for name in ("feature", "threshold", "left", "value"):
        np.testing.assert_array_equal(getattr(zero, name), getattr(free, name))
    tree = fastdt.fit(X, y, max_depth=6, monotonic_cst=np.array([1, 0, 0]))
    assert tree.params["monotonic_cst"] == [1, 0, 0]  # JSON-ready: the tree saves
    assert not np.array_equal(tree.value, free.value)
    tree.save(tmp_path / "mono.npz")
    assert fastdt.load(tmp_path / "mono.npz") == tree


@pytest.mark.parametrize("cst, match", [
    ([1, 0], r"monotonic_cst has shape \(2,\) but the input data X has 3 features"),
    ([1, 0, 2], r"monotonic_cst must be None or an array-like of -1, 0 or 1, but got"),
    ("inc", r"monotonic_cst='inc' is invalid"),
    (np.array(1), r"monotonic_cst has shape \(\) but"),
])
def test_bad_constraints(cst, match):
    X, y = _data(n=50)
    with pytest.raises(ValueError, match=match):
        fastdt.fit(X, y, monotonic_cst=cst)


def test_unsupported_cases_are_refused_before_any_kernel():
    X, y = _data(n=60)
    y3 = np.digitize(y, [-1, 1])
    with pytest.raises(ValueError, match="not supported with multiclass classification"):
        fastdt.fit(X, y3, monotonic_cst=[1, 0, 0])
    Xc = X.copy()
    Xc[:, 0] = np.arange(60) % 4
    with pytest.raises(ValueError, match="categorical feature"):
        fastdt.fit(Xc, y, monotonic_cst=[1, 0, 0], categorical_features=[0])
    for missing in ("fractional", "surrogate"):
        with pytest.raises(ValueError, match="needs missing='learn'"):
            fastdt.fit(X, y, monotonic_cst=[1, 0, 0], missing=missing)
    # a constraint beside an unconstrained categorical feature is fine
    fastdt.fit(Xc, y, monotonic_cst=[0, 1, 0], categorical_features=[0])

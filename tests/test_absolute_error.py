"""criterion="absolute_error": weighted-median leaves, O(n log n) split search."""

import numpy as np
import pytest

import fastdt

from reference import absolute_error, best_split, weighted_median


def _data(n, seed, n_features=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features)).astype(np.float32)  # scikit-learn fits float32
    y = X[:, 0] + np.abs(X[:, 1]) + rng.standard_t(2, size=n)  # heavy tails
    return X.astype(np.float64), y, rng


def test_weighted_median_reference():
    assert weighted_median(np.array([3.0, 1.0, 2.0]), np.ones(3)) == 2.0
    assert weighted_median(np.array([1.0, 2.0, 3.0, 4.0]), np.ones(4)) == 2.5  # exact half
    assert weighted_median(np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 3.0])) == 3.0


def test_leaves_are_weighted_medians_and_impurity_the_mean_absolute_error():
    X, y, rng = _data(600, 0)
    w = rng.integers(1, 4, size=600).astype(float)
    for sw in (None, w):
        tree = fastdt.fit(X, y, criterion="absolute_error", max_depth=4, sample_weight=sw)
        leaf = fastdt.apply(tree, X)
        ww = np.ones(600) if sw is None else sw
        for node in np.unique(leaf):
            rows = leaf == node
            assert tree.value[node, 0] == weighted_median(y[rows], ww[rows])
            np.testing.assert_allclose(tree.impurity[node], absolute_error(y[rows], ww[rows]),
                                       rtol=1e-9, atol=1e-12)
        assert tree.value[0, 0] == weighted_median(y, ww)


def test_root_split_is_the_brute_force_best():
    for seed in range(6):
        X, y, rng = _data(80, seed, n_features=3)
        w = rng.uniform(0.5, 2.0, 80) if seed % 2 else np.ones(80)
        tree = fastdt.fit(X, y, criterion="absolute_error", max_depth=1, sample_weight=w)
        score, f, thr = best_split("absolute_error", X, y, w)
        mask = X[:, tree.feature[0]] <= tree.threshold[0]
        from reference import split_score
        np.testing.assert_allclose(split_score("absolute_error", y, w, mask), score,
                                   rtol=1e-9, atol=1e-12)


def test_same_trees_as_scikit_learn():
    """Absolute error has many exact ties (moving a row across the median often leaves
    the error unchanged); where the two trees pick different splits, the splits must
    score the same, and most cases are compared as whole trees."""
    sk = pytest.importorskip("sklearn.tree")
    from _sklearn_compare import assert_same_tree, assert_same_up_to_ties

    outcomes = []
    for n, params in [(300, {"max_depth": 4}), (1000, {"min_samples_leaf": 5}),
                      (2000, {"max_leaf_nodes": 30}), (1500, {"min_samples_leaf": 20}),
                      (800, {"max_depth": 6, "min_samples_split": 30})]:
        X, y, rng = _data(n, n)
        for sw in (None, rng.uniform(0.5, 2.0, n)):
            tree = fastdt.fit(X, y, criterion="absolute_error", sample_weight=sw, **params)
            theirs = sk.DecisionTreeRegressor(criterion="absolute_error", random_state=0,
                                              **params).fit(X, y, sample_weight=sw)
            ties, _ = assert_same_up_to_ties(tree, theirs, X, y, sw, "absolute_error")
            if not ties:
                assert_same_tree(tree, theirs, atol=1e-9)
                np.testing.assert_array_equal(fastdt.predict(tree, X), theirs.predict(X))
            outcomes.append("tie" if ties else "same")
    assert outcomes.count("same") >= 0.6 * len(outcomes), outcomes


def test_missing_values_learned_side():
    X, y, rng = _data(500, 7)
    X[rng.random(X.shape) < 0.15] = np.nan
    tree = fastdt.fit(X, y, criterion="absolute_error", max_depth=5)
    leaf = fastdt.apply(tree, X)
    for node in np.unique(leaf):
        assert tree.value[node, 0] == weighted_median(y[leaf == node], np.ones((leaf == node).sum()))
    # a feature missing where y is large: the missing rows get a side of their own
    X2 = rng.normal(size=(400, 1))
    y2 = rng.normal(size=400)
    X2[:100, 0] = np.nan
    y2[:100] += 10
    t2 = fastdt.fit(X2, y2, criterion="absolute_error", max_depth=1)
    assert t2.threshold[0] == np.inf or t2.missing_go_left[0] in (0, 1)
    np.testing.assert_allclose(np.sort(fastdt.predict(t2, X2[:100]))[[0, -1]],
                               weighted_median(y2[:100], np.ones(100)), rtol=0.2)


def test_random_splitter_and_estimator():
    X, y, _ = _data(500, 9)
    a = fastdt.ExtraTreeRegressor(criterion="absolute_error", random_state=0).fit(X, y)
    b = fastdt.ExtraTreeRegressor(criterion="absolute_error", random_state=0).fit(X, y)
    assert a.tree_ == b.tree_
    leaf = a.apply(X)
    for node in np.unique(leaf):
        assert a.tree_.value[node, 0] == weighted_median(y[leaf == node], np.ones((leaf == node).sum()))


def test_n_log_n_split_search():
    """Twice the rows of one node cost about twice the time, not four times (a quadratic
    search would)."""
    import time

    rng = np.random.default_rng(3)
    times = []
    for n in (20_000, 40_000):
        X = rng.normal(size=(n, 1))
        y = rng.normal(size=n)
        fastdt.fit(X[:1000], y[:1000], criterion="absolute_error", max_depth=1)
        best = np.inf
        for _ in range(3):
            t = time.perf_counter()
            fastdt.fit(X, y, criterion="absolute_error", max_depth=1)
            best = min(best, time.perf_counter() - t)
        times.append(best)
    assert times[1] / times[0] < 3.0, times


@pytest.mark.parametrize("params, match", [
    ({"splitter": "hist"}, "use splitter='best' or 'random'"),
    ({"missing": "fractional"}, "missing='learn' only"),
    ({"categorical_features": [0]}, "categorical"),
    ({"monotonic_cst": [1, 0, 0, 0]}, "monotonic_cst"),
])
def test_refused_combinations(params, match):
    X, y, _ = _data(50, 1)
    if "categorical_features" in params:
        X[:, 0] = np.arange(50) % 3
    with pytest.raises(ValueError, match=match):
        fastdt.fit(X, y, criterion="absolute_error", **params)

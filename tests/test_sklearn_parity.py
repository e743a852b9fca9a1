"""Parity with scikit-learn's DecisionTreeClassifier / DecisionTreeRegressor.

Two traps (see the issue): scikit-learn fits on a float32 copy of X, so all data here is
exactly representable in float32; and scikit-learn breaks ties between equally good
features by a random feature order (fastdt: lowest feature index). Trees are therefore
compared in two steps:

* ``assert_same_up_to_ties``: both trees are walked in step from the root; where they
  choose different splits, the two splits must score the same on the node's rows (a
  tie, checked with the naive oracle of ``reference.py``), and the walk stops below
  that node. It returns the number of such ties.
* with no tie anywhere, the whole tree must be identical (``assert_same_tree``:
  structure, thresholds, sample counts, impurities, values), and so must depth, leaf
  count, predict/predict_proba and the feature importances (1e-12).

One known difference is allowed by the walk: scikit-learn computes a
child's class counts as ``total - left``, and the rounding can leave a *pure* node with
an impurity of a few 1e-16 (> EPSILON), which it then splits into two pure children with
zero gain (likewise a constant-target regression node, whose variance
``sum(w*y**2)/w - mean**2`` cancels to +-1e-11). fastdt does not split pure nodes; the predictions are the same.
"""

import itertools

import numpy as np
import pytest

import fastdt
from _sklearn_compare import assert_same_tree, assert_same_up_to_ties

sklearn = pytest.importorskip("sklearn")
from sklearn import datasets  # noqa: E402
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402

from fastdt.inspection import impurity_importances  # noqa: E402


def f32(X):
    return np.asarray(X, dtype=np.float32).astype(np.float64)


def _random_clf(n=3000, n_features=8, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    score = X[:, 0] + X[:, 1] ** 2 - X[:, 2] * X[:, 3] + 0.7 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return f32(X), y


def _random_reg(n=3000, n_features=8, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    y = np.exp(0.5 * X[:, 0] - 0.3 * X[:, 1] * X[:, 2]) + 0.1 * rng.uniform(size=n)
    return f32(X), y


def _with_nan(loader, seed=5):
    """``loader``'s data with holes: each feature misses 5-40% of its values, more often
    for large values of feature 0 (so that where the missing rows go matters)."""
    def load():
        X, y = loader()
        X = np.array(X, dtype=np.float64)
        rng = np.random.default_rng(seed)
        rate = rng.uniform(0.05, 0.4, size=X.shape[1])
        boost = X[:, [0]] > np.median(X[:, 0])
        X[rng.random(X.shape) < rate * (1 + boost)] = np.nan
        return X, y
    return load


CLF_DATA = {
    "iris": lambda: datasets.load_iris(return_X_y=True),
    "wine": lambda: datasets.load_wine(return_X_y=True),
    "breast_cancer": lambda: datasets.load_breast_cancer(return_X_y=True),
    "random": _random_clf,
    "breast_cancer_nan": _with_nan(lambda: datasets.load_breast_cancer(return_X_y=True)),
    "random_nan": _with_nan(_random_clf),
}
REG_DATA = {
    "diabetes": lambda: datasets.load_diabetes(return_X_y=True),
    "random": _random_reg,
    "random_nan": _with_nan(_random_reg),
}
GRID = [
    {},
    {"max_depth": 3},
    {"max_depth": 6, "min_samples_leaf": 7},
    {"min_samples_split": 25},
    {"min_impurity_decrease": 0.002},
    {"max_leaf_nodes": 12},
    {"max_leaf_nodes": 30, "min_samples_leaf": 3},
    {"min_weight_fraction_leaf": 0.02},
    {"weights": True},
    {"weights": "continuous", "max_depth": 8},
]
CLF_GRID = GRID + [{"class_weight": "balanced"}, {"class_weight": "weights_dict"}]


def _params(g, y, rng):
    g = dict(g)
    sw = None
    weights = g.pop("weights", False)
    if weights == "continuous":  # continuous weights make exact ties (almost) impossible
        sw = rng.uniform(0.5, 1.5, size=len(y))
    elif weights:
        sw = rng.integers(1, 4, size=len(y)).astype(float)
    if g.get("class_weight") == "weights_dict":
        g["class_weight"] = {np.unique(y)[0]: 2.5}
    return g, sw


def _check(task, name, loader, criterion, g, continuous_weights=False):
    X, y = loader()
    X = f32(X)
    rng = np.random.default_rng(0)
    params, sw = _params(g, y, rng)
    if continuous_weights and sw is None:
        sw = rng.uniform(0.5, 1.5, size=len(y))
    cls = DecisionTreeClassifier if task == "classification" else DecisionTreeRegressor
    tree = fastdt.fit(X, y, sample_weight=sw, criterion=criterion, task=task, **params)
    sk = cls(random_state=0, criterion=criterion, **params).fit(X, y, sample_weight=sw)
    ties, pure_splits = assert_same_up_to_ties(tree, sk, X, y, sw, criterion)
    if ties:
        return "tie"
    if task == "classification":
        if sw is None or np.all(sw == np.round(sw)):  # integer weights: exact fractions
            np.testing.assert_array_equal(fastdt.predict_proba(tree, X), sk.predict_proba(X))
        else:  # sums of real weights in another order: equal to rounding
            np.testing.assert_allclose(fastdt.predict_proba(tree, X), sk.predict_proba(X),
                                       rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(fastdt.predict(tree, X), sk.predict(X))
    else:
        # leaf means are sums in a different order: equal to rounding, not bit for bit
        np.testing.assert_allclose(fastdt.predict(tree, X), sk.predict(X), rtol=1e-12)
    if pure_splits:
        return "pure"
    assert_same_tree(tree, sk)
    assert tree.max_depth == sk.get_depth()
    assert tree.n_leaves == sk.get_n_leaves()
    np.testing.assert_allclose(impurity_importances(tree), sk.feature_importances_, rtol=0, atol=1e-12)
    return "same"


CLF_CASES = list(itertools.product(CLF_DATA, ["gini", "entropy"], range(len(CLF_GRID))))
REG_CASES = list(itertools.product(REG_DATA, ["squared_error", "poisson"], range(len(GRID))))


@pytest.mark.parametrize("name,criterion,gi", CLF_CASES)
def test_classifier_parity(name, criterion, gi):
    _check("classification", name, CLF_DATA[name], criterion, CLF_GRID[gi])


@pytest.mark.parametrize("name,criterion,gi", REG_CASES)
def test_regressor_parity(name, criterion, gi):
    _check("regression", name, REG_DATA[name], criterion, GRID[gi])


def test_enough_cases_compared_whole():
    """Ties come from small deep nodes that several features split identically. With
    continuous sample weights and leaves of at least 15 rows there are (almost) none,
    so most cases of the grid must be compared as whole trees."""
    big = [{"min_samples_leaf": 15, **g} for g in GRID]
    outcomes = [
        _check("classification", "random", _random_clf, c, g, continuous_weights=True)
        for c, g in itertools.product(["gini", "entropy"], big + [
            {"min_samples_leaf": 15, **g} for g in CLF_GRID[len(GRID):]])
    ] + [
        _check("regression", n, REG_DATA[n], c, g)
        for n, c, g in itertools.product(REG_DATA, ["squared_error", "poisson"], big)
    ]
    assert outcomes.count("same") >= 0.5 * len(outcomes), outcomes
    assert outcomes.count("tie") <= 0.25 * len(outcomes), outcomes


def test_friedman_mse_same_splits_as_squared_error():
    X, y = _random_reg()
    a = fastdt.fit(X, y, criterion="friedman_mse", max_depth=6)
    b = fastdt.fit(X, y, criterion="squared_error", max_depth=6)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_array_equal(a.feature, b.feature)


def test_float32_input_matches_sklearn():
    X, y = _random_clf()
    X32 = X.astype(np.float32)
    sw = np.random.default_rng(3).uniform(0.5, 1.5, size=len(y))
    tree = fastdt.fit(X32, y, max_depth=5, min_samples_leaf=10, sample_weight=sw)
    assert tree.threshold.dtype == np.float64
    sk = DecisionTreeClassifier(max_depth=5, min_samples_leaf=10, random_state=0)
    sk.fit(X, y, sample_weight=sw)
    assert_same_tree(tree, sk)


def test_data_with_holes_mostly_compared_whole():
    """The learned missing-value side, compared node for node: with continuous weights
    and leaves of at least 15 rows, most trees on data with NaN must be identical."""
    big = [{"min_samples_leaf": 15, **g} for g in GRID]
    outcomes = [
        _check("classification", "random_nan", CLF_DATA["random_nan"], c, g,
               continuous_weights=True)
        for c, g in itertools.product(["gini", "entropy"], big)
    ] + [
        _check("regression", "random_nan", REG_DATA["random_nan"], c, g)
        for c, g in itertools.product(["squared_error", "poisson"], big)
    ]
    assert outcomes.count("same") >= 0.5 * len(outcomes), outcomes

"""max_features: a node scans only the features its sampler visits, and grows the tree it
grew when every feature was scanned and the choice made from the full tables.

``fastdt._sampling.SCAN_DRAWN_ONLY`` switches the splitters between the two; the trees
must be equal array for array in every configuration the splitters serve (numeric,
missing values three ways, categorical features, random splits, absolute error, several
outputs, monotonic constraints, histograms, forests' in-bag weights), including nodes
where the first features drawn are constant (the sampler then visits more).
"""

import numpy as np
import pytest

import fastdt
from fastdt import _sampling

from _same_tree import assert_same


def _data(seed=0, n=600, task="classification", nan=False, cats=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8))
    X[:, 5] = rng.integers(0, 2, n)  # binary features: constant in many small nodes
    X[:, 6] = (rng.random(n) < 0.05).astype(float)
    X[:, 7] = 1.0  # constant everywhere: drawn, and the sampler visits one more
    if cats:
        X[:, 4] = rng.integers(0, 6, n)
    if nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    score = X[:, 0] + np.sin(3 * np.nan_to_num(X[:, 1])) + 0.5 * np.nan_to_num(X[:, 5])
    if task == "classification":
        y = (score + 0.5 * rng.normal(size=n) > 0.3).astype(int) + (score > 1.5)
    else:
        y = score + 0.3 * rng.normal(size=n)
    return X, y


CONFIGS = {
    "gini": (dict(), dict()),
    "entropy weighted": (dict(), dict(criterion="entropy", weighted=True)),
    "squared_error": (dict(task="regression"), dict()),
    "poisson": (dict(task="regression"), dict(criterion="poisson", shift=True)),
    "absolute_error": (dict(task="regression"), dict(criterion="absolute_error")),
    "nan learn": (dict(nan=True), dict()),
    "nan fractional": (dict(nan=True), dict(missing="fractional")),
    "nan surrogate": (dict(nan=True), dict(missing="surrogate")),
    "categorical": (dict(cats=True), dict(categorical_features=[4])),
    "categorical nan": (dict(cats=True, nan=True), dict(categorical_features=[4])),
    "random categorical": (dict(cats=True), dict(splitter="random",
                                                 categorical_features=[4])),
    "random fractional": (dict(nan=True), dict(splitter="random", missing="fractional")),
    "monotonic": (dict(task="regression"), dict(monotonic_cst=[1, 0, 0, -1, 0, 0, 0, 0])),
    "several outputs": (dict(task="regression"), dict(outputs=True)),
    "hist": (dict(), dict(splitter="hist")),
    "hist nan categorical": (dict(cats=True, nan=True), dict(splitter="hist",
                                                             categorical_features=[4])),
    "hist regression": (dict(task="regression"), dict(splitter="hist", max_bins=16)),
}


def _fit_both(fit, monkeypatch):
    trees = []
    for drawn_only in (True, False):
        monkeypatch.setattr(_sampling, "SCAN_DRAWN_ONLY", drawn_only)
        trees.append(fit())
    return trees


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("max_features", [1, 3])
def test_scanning_drawn_features_only_grows_the_same_tree(name, max_features, monkeypatch):
    data, params = CONFIGS[name]
    params = dict(params)
    X, y = _data(**data)
    w = None
    if params.pop("weighted", False):
        w = np.random.default_rng(1).uniform(0.5, 2.0, y.shape[0])
    if params.pop("shift", False):
        y = y - y.min()
    if params.pop("outputs", False):
        y = np.column_stack([y, np.cos(y)])
    a, b = _fit_both(lambda: fastdt.fit(X, y, sample_weight=w, max_features=max_features,
                                        random_state=3, **params), monkeypatch)
    assert a.node_count > 15  # deep enough for constant features in its nodes
    assert_same(a, b)


@pytest.mark.parametrize("splitter", ["best", "hist"])
def test_forest_trees_are_the_same(splitter, monkeypatch):
    X, y = _data(seed=2, n=800)
    a, b = _fit_both(lambda: fastdt.fit_forest(X, y, n_estimators=4, splitter=splitter,
                                               random_state=0), monkeypatch)
    for i in range(a.n_trees):
        assert_same(a.tree(i), b.tree(i))


def test_the_sampler_visits_more_while_the_drawn_features_are_constant():
    """A node whose first drawn features are constant still splits (scikit-learn's
    rule): with max_features=1 and six constant features, every split of the tree uses
    one of the two that vary, whatever the draws."""
    rng = np.random.default_rng(0)
    X = np.ones((300, 8))
    X[:, 2] = rng.normal(size=300)
    X[:, 6] = rng.normal(size=300)
    y = (X[:, 2] + X[:, 6] > 0).astype(int)
    for splitter in ("best", "hist"):
        tree = fastdt.fit(X, y, max_features=1, random_state=1, splitter=splitter)
        used = tree.feature[tree.feature >= 0]
        assert used.size > 5 and set(used.tolist()) <= {2, 6}
        assert np.all(fastdt.predict(tree, X) == y)

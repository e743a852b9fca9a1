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


# ---------------------------------------------------------------- a subset of features per tree


@pytest.mark.parametrize("splitter", ["best", "hist"])
@pytest.mark.parametrize("max_features", [2, None])
def test_a_tree_on_its_feature_subset_is_the_tree_fitted_on_those_columns(splitter,
                                                                          max_features):
    """fit_forest(tree_features=...): tree i may use only the features drawn from its
    seed, and is the tree grown from the same seed on those columns alone (its
    features mapped back), max_features counting among them."""
    from fastdt import _engine
    from fastdt._sampling import tree_pool

    X, y = _data(seed=4, n=700, nan=splitter == "hist")
    forest = fastdt.fit_forest(X, y, n_estimators=3, bootstrap=False, tree_features=5,
                               max_features=max_features, splitter=splitter, random_state=2)
    assert forest.params["tree_features"] == 5
    for i, seed in enumerate(forest.params["seeds"]):
        pool = tree_pool(seed, X.shape[1], 5)
        prep = _engine.prepare(X[:, pool], y, None,
                               dict(max_features=max_features, splitter=splitter))
        alone = _engine.assemble(prep, _engine.grow(prep, seed=seed))
        tree = forest.tree(i)
        internal = alone.feature >= 0
        mapped = alone.feature.copy()
        mapped[internal] = pool[alone.feature[internal]]
        np.testing.assert_array_equal(tree.feature, mapped)
        for name in ("threshold", "left", "right", "value", "n_node_samples"):
            np.testing.assert_array_equal(getattr(tree, name), getattr(alone, name))


@pytest.mark.parametrize("splitter", ["best", "hist", "random"])
def test_feature_subsets_scanned_or_masked_give_the_same_forest(splitter, monkeypatch):
    X, y = _data(seed=5, n=500)
    a, b = _fit_both(lambda: fastdt.fit_forest(X, y, n_estimators=3, tree_features=0.5,
                                               splitter=splitter, random_state=1),
                     monkeypatch)
    for i in range(a.n_trees):
        assert_same(a.tree(i), b.tree(i))
        used = set(a.tree(i).feature[a.tree(i).feature >= 0].tolist())
        assert len(used) <= 4


def test_feature_subsets_sparse_and_saved(tmp_path):
    import scipy.sparse as sp

    from fastdt._sampling import tree_pool

    X, y = _data(seed=6, n=400)
    forest = fastdt.fit_forest(sp.csc_matrix(np.nan_to_num(X)), y, n_estimators=3,
                               tree_features=3, random_state=0)
    for i, seed in enumerate(forest.params["seeds"]):
        used = set(forest.tree(i).feature[forest.tree(i).feature >= 0].tolist())
        assert used <= set(tree_pool(seed, X.shape[1], 3).tolist())
    forest.save(tmp_path / "f.npz")
    loaded = fastdt.load(tmp_path / "f.npz")
    assert loaded.params["tree_features"] == 3
    np.testing.assert_array_equal(fastdt.predict_proba(loaded, np.nan_to_num(X)),
                                  fastdt.predict_proba(forest, np.nan_to_num(X)))


@pytest.mark.parametrize("bad, error", [
    (0, ValueError), (9, ValueError), (0.0, ValueError), (1.5, ValueError),
    ("half", TypeError), (True, TypeError),
])
def test_tree_features_checked(bad, error):
    X, y = _data(n=100)
    with pytest.raises(error, match="tree_features"):
        fastdt.fit_forest(X, y, n_estimators=2, tree_features=bad)


def test_max_features_beyond_the_subset_refused():
    X, y = _data(n=100)
    with pytest.raises(ValueError, match="tree_features=3"):
        fastdt.fit_forest(X, y, n_estimators=2, tree_features=3, max_features=5)


def test_estimators_take_tree_features():
    X, y = _data(seed=7, n=300)
    for model in (fastdt.RandomForestClassifier(5, tree_features=2, random_state=0),
                  fastdt.ExtraTreesRegressor(5, tree_features=2, random_state=0)):
        model.fit(X, y)
        assert model.forest_.params["tree_features"] == 2
        for tree in model.estimators_:
            assert len(set(tree.feature[tree.feature >= 0].tolist())) <= 2

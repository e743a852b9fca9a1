"""splitter="random" and the ExtraTree estimators: one random threshold per feature."""

import numpy as np
import pytest

import fastdt
from fastdt import ExtraTreeClassifier, ExtraTreeRegressor

from _sklearn_compare import assert_same_tree


def _internal(tree):
    return np.flatnonzero(tree.feature >= 0)


def test_threshold_uniform_between_the_node_min_and_max():
    """The root threshold of a one-feature stump is uniform on [min, max) (KS test
    over many seeds)."""
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(2.0, 7.0, 400))
    X = x[:, None]
    y = (x > 4.0).astype(int)
    lo, hi = x.min(), x.max()
    thr = np.array([
        fastdt.fit(X, y, splitter="random", max_depth=1, random_state=s).threshold[0]
        for s in range(400)
    ])
    assert np.all((thr >= lo) & (thr < hi))
    u = (thr - lo) / (hi - lo)
    assert stats.kstest(u, "uniform").pvalue > 1e-3
    # the draws differ from seed to seed, and the same seed gives the same tree
    assert np.unique(thr).shape[0] > 390
    a = fastdt.fit(X, y, splitter="random", random_state=5)
    assert a == fastdt.fit(X, y, splitter="random", random_state=5)


def test_children_follow_the_threshold():
    """The rows the growth sent to each node are those the stored thresholds send
    there, and each leaf's value is its rows' mean."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 4))
    y = X[:, 0] + 0.1 * rng.normal(size=500)
    tree = fastdt.fit(X, y, splitter="random", max_depth=6, random_state=0)
    counts = np.zeros(tree.node_count, dtype=np.int64)
    leaf = np.empty(500, dtype=np.int64)
    for i, row in enumerate(X):
        node = 0
        counts[node] += 1
        while tree.feature[node] >= 0:
            go_left = row[tree.feature[node]] <= tree.threshold[node]
            node = tree.left[node] if go_left else tree.right[node]
            counts[node] += 1
        leaf[i] = node
    np.testing.assert_array_equal(counts, tree.n_node_samples)
    np.testing.assert_array_equal(leaf, fastdt.apply(tree, X))
    for node in np.unique(leaf):
        np.testing.assert_allclose(tree.value[node, 0], y[leaf == node].mean())


def test_same_tree_as_scikit_learn_where_the_draw_cannot_matter():
    """Binary features: every threshold in [0, 1) splits a node the same way, so the
    tree's structure and predictions are scikit-learn's (its thresholds are random)."""
    sk = pytest.importorskip("sklearn.tree")
    rng = np.random.default_rng(3)
    n = 600
    X = (rng.random((n, 5)) < np.array([0.5, 0.3, 0.7, 0.4, 0.6])).astype(np.float64)
    logits = 2 * X[:, 0] - 1.5 * X[:, 1] + X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=n)
    y_clf = (logits > 0.5).astype(int)
    y_reg = logits
    for ours, theirs, y in (
        (ExtraTreeClassifier(max_features=None, max_depth=4, random_state=0),
         sk.ExtraTreeClassifier(max_features=None, max_depth=4, random_state=0), y_clf),
        (ExtraTreeRegressor(max_depth=4, random_state=0),
         sk.ExtraTreeRegressor(max_depth=4, random_state=0), y_reg),
    ):
        ours.fit(X, y)
        theirs.fit(X, y)
        assert_same_tree(ours.tree_, theirs, thresholds=False)
        np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)
        t = ours.tree_
        internal = t.feature >= 0
        assert np.all((t.threshold[internal] >= 0) & (t.threshold[internal] < 1))


def test_deterministic_across_thread_counts(on_each_thread_count):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(3000, 6)).astype(np.float32)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + 0.3 * rng.normal(size=3000) > 0).astype(int)
    one, many = on_each_thread_count(lambda: [
        fastdt.fit(X, y, splitter="random", random_state=1),
        fastdt.fit(X, y, splitter="random", max_features=2, random_state=2),
    ])
    for a, b in zip(one, many):
        assert a == b


def test_missing_values_go_to_a_random_side():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 3))
    X[rng.random(X.shape) < 0.2] = np.nan
    y = (np.nan_to_num(X[:, 0], nan=1.0) > 0).astype(int)
    sides = set()
    for s in range(30):
        tree = fastdt.fit(X, y, splitter="random", max_depth=3, random_state=s)
        internal = _internal(tree)
        sides |= set(tree.missing_go_left[internal].tolist())
        # missing rows reach a leaf on the learned side
        p = fastdt.predict_proba(tree, X)
        assert np.all(np.isfinite(p))
    assert sides == {0, 1}


@pytest.mark.parametrize("missing", ["fractional", "surrogate"])
def test_other_missing_strategies(missing):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 3))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) > 0).astype(int)
    tree = fastdt.fit(X, y, splitter="random", missing=missing, max_depth=4, random_state=0)
    assert tree.node_count > 1
    assert fastdt.predict(tree, X).shape == (300,)


def test_categorical_features_get_a_random_subset():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(6)
    n = 500
    cat = rng.integers(0, 6, n)
    df = pd.DataFrame({"c": pd.Categorical(np.array(list("abcdef"))[cat]),
                       "x": rng.normal(size=n)})
    y = (np.isin(cat, [0, 2, 5]) ^ (rng.random(n) < 0.1)).astype(int)
    subsets = set()
    for s in range(20):
        tree = fastdt.fit(df, y, splitter="random", max_depth=1, random_state=s,
                          max_features=1)
        if tree.feature[0] == 0:
            off = tree.cat_offset[0]
            subsets.add(int(tree.cat_bitsets[off]))
    assert len(subsets) > 2  # different random subsets, none empty or full
    assert all(0 < b < (1 << 6) - 1 for b in subsets)


def test_min_samples_leaf_rejects_a_draw():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 2))
    y = rng.normal(size=200)
    tree = fastdt.fit(X, y, splitter="random", min_samples_leaf=30, random_state=0)
    leaves = tree.feature < 0
    assert tree.n_node_samples[leaves].min() >= 30


def test_hist_options_refused():
    X = np.zeros((10, 2))
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match="max_bins"):
        fastdt.fit(X, y, splitter="random", max_bins=16)
    with pytest.raises(ValueError, match="splitter"):
        fastdt.fit(X, y, splitter="Random")


def test_estimator_defaults():
    assert ExtraTreeClassifier().max_features == "sqrt"
    assert ExtraTreeRegressor().max_features == 1.0
    assert ExtraTreeClassifier().splitter == "random"
    X = np.random.default_rng(0).normal(size=(100, 4))
    y = (X[:, 0] > 0).astype(int)
    clf = ExtraTreeClassifier(random_state=0).fit(X, y)
    assert clf.tree_.params["splitter"] == "random"
    assert clf.score(X, y) == 1.0


# ------------------------------------------------ random splits read from the rows


def _row_and_presorted(X, y, sw=None, **params):
    """The tree of the row splitter (fastdt._random_rows, what splitter="random" uses on
    numeric data) and of the presorted random splitter, from one preparation."""
    from fastdt import _engine
    from fastdt._exact import presort

    prep = _engine.prepare(X, y, sw, dict(params, splitter="random"))
    assert prep.layout is None  # the row splitter needs no presorted layout
    rows = _engine.assemble(prep, _engine.grow(prep))
    prep.layout = presort(prep.X, prep.target, prep.weights)
    return rows, _engine.assemble(prep, _engine.grow(prep))


@pytest.mark.parametrize("params", [
    {"random_state": 0}, {"random_state": 1, "max_features": 2},
    {"random_state": 2, "max_features": 1, "min_samples_leaf": 5},
    {"random_state": 3, "max_leaf_nodes": 20}, {"random_state": 4, "min_weight_fraction_leaf": 0.01},
], ids=str)
@pytest.mark.parametrize("small", [0, 64, 4096])
def test_row_splitter_grows_the_presorted_splitters_tree(params, small, monkeypatch):
    # small: nodes below it keep their rows' values at their positions; 64: the root
    # reads the columns, nodes of fewer rows gather theirs and move them when they split
    import fastdt._random_rows as rr
    monkeypatch.setattr(rr, "_SMALL", small)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 7))
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, 6] = 1.0  # constant: visited, counted, never chosen
    z = np.nan_to_num(X)
    y = (z[:, 0] + z[:, 1] > 0).astype(int) + (z[:, 2] > 1)
    yi = np.rint(3 * z[:, 0] + z[:, 3] + rng.normal(size=600)) + 5  # sums exact
    w = rng.integers(0, 3, 600).astype(float)
    for Xd, target, sw in ((X, y, None), (X, yi, None), (X, y, w),
                           (X.astype(np.float32), yi, w)):
        a, b = _row_and_presorted(Xd, target, sw, **params)
        assert a.node_count == b.node_count
        for name in ("feature", "threshold", "left", "n_node_samples", "value", "impurity",
                     "missing_go_left"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def test_row_splitter_monotonic():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 4))
    y = (X[:, 0] - X[:, 1] + 0.5 * rng.normal(size=500) > 0).astype(int)
    a, b = _row_and_presorted(X, y, monotonic_cst=[1, -1, 0, 0], random_state=0, max_depth=6)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_array_equal(a.value, b.value)

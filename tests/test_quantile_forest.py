"""Quantile regression forests (Meinshausen 2006): brute force, non-crossing, out of bag,
persistence, errors, and the quantile-forest package on the same trees."""

import pickle
import warnings

import numpy as np
import pytest

import fastdt
from fastdt import _engine
from fastdt.ensemble import Forest, RandomForestRegressor, fit_forest
from fastdt.ensemble import _quantiles
from fastdt.ensemble.api import in_bag_counts, predict_quantiles

QS = np.array([0.0, 0.0371, 0.25, 0.5013, 0.9071, 1.0])


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = X[:, 0] + rng.normal(size=300) * (1 + np.abs(X[:, 1]))
    w = rng.uniform(0.5, 2.0, size=300)
    return X, y, w


def _meinshausen_weights(forest, X_train, row_weights, X, oob=False):
    """Training rows' weights for every row of X (float64 [n, n_train]), from the trees'
    leaves (fastdt.apply) and their in-bag weights (regenerated independently)."""
    leaves_train = fastdt.apply(forest, X_train)
    leaves = fastdt.apply(forest, X)
    W = np.zeros((X.shape[0], X_train.shape[0]))
    for r in range(X.shape[0]):
        used = 0
        for t in range(forest.n_trees):
            if oob and row_weights[t][r] > 0:
                continue
            same = (leaves_train[:, t] == leaves[r, t]) & (row_weights[t] > 0)
            W[r, same] += row_weights[t][same] / row_weights[t][same].sum()
            used += 1
        W[r] /= max(used, 1)
    return W


def _numpy_quantiles(W, y, qs):
    return np.array([np.quantile(y, qs, weights=w, method="inverted_cdf") if w.any()
                     else np.full(len(qs), np.nan) for w in W])


@pytest.mark.parametrize("bootstrap", [True, False])
def test_quantiles_equal_brute_force(data, bootstrap):
    X, y, sw = data
    forest = fit_forest(X, y, sample_weight=sw, n_estimators=6, bootstrap=bootstrap,
                        min_samples_leaf=4, max_features=0.5, random_state=3, leaf_samples=True)
    n = len(y)
    weights = [sw * (in_bag_counts(s, n, n) if bootstrap else 1.0)
               for s in forest.params["seeds"]]
    Xt = X[:40] + 0.1
    W = _meinshausen_weights(forest, X, weights, Xt)
    np.testing.assert_array_equal(predict_quantiles(forest, Xt, QS), _numpy_quantiles(W, y, QS))
    np.testing.assert_allclose(W @ y, fastdt.predict(forest, Xt), rtol=1e-10)  # the mean
    if bootstrap:
        W = _meinshausen_weights(forest, X, weights, X, oob=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # rows every tree drew: NaN
            got = predict_quantiles(forest, X, QS, oob=True)
        np.testing.assert_array_equal(got, _numpy_quantiles(W, y, QS))


def test_non_crossing_and_order_of_quantiles(data):
    X, y, _ = data
    forest = fit_forest(X, y, n_estimators=10, random_state=0, leaf_samples=True)
    rng = np.random.default_rng(1)
    qs = np.sort(rng.uniform(size=25))
    got = predict_quantiles(forest, X, qs)
    assert np.all(np.diff(got, axis=1) >= 0)
    perm = rng.permutation(25)
    np.testing.assert_array_equal(predict_quantiles(forest, X, qs[perm]), got[:, perm])
    np.testing.assert_array_equal(predict_quantiles(forest, X, 0.5),
                                  predict_quantiles(forest, X, [0.5]))
    assert np.all(got >= y.min()) and np.all(got <= y.max())  # observed values only
    assert np.all(np.isin(got, y))


def test_estimator_save_load_and_pickle(data, tmp_path):
    X, y, _ = data
    est = RandomForestRegressor(n_estimators=5, random_state=0, leaf_samples=True,
                                min_samples_leaf=3).fit(X, y)
    q = est.predict_quantiles(X[:30], [0.1, 0.9])
    assert q.shape == (30, 2)
    est.forest_.save(tmp_path / "f.npz")
    loaded = fastdt.load(tmp_path / "f.npz")
    np.testing.assert_array_equal(predict_quantiles(loaded, X[:30], [0.1, 0.9]), q)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict_quantiles(X[:30], [0.1, 0.9]), q)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # rows every tree drew: NaN
        oob = est.predict_quantiles(X, [0.5], oob=True)
    drawn_by_all = np.all([in_bag_counts(s, 300, 300) > 0
                           for s in est.forest_.params["seeds"]], axis=0)
    assert drawn_by_all.any() and not drawn_by_all.all()
    np.testing.assert_array_equal(np.isnan(oob[:, 0]), drawn_by_all)


def test_damaged_leaf_samples_are_refused(data, tmp_path):
    X, y, _ = data
    forest = fit_forest(X, y, n_estimators=3, random_state=0, leaf_samples=True)
    forest.save(tmp_path / "ok.npz")
    good = dict(np.load(tmp_path / "ok.npz"))
    ls = forest.leaf_samples
    internal = int(np.flatnonzero(forest.left != -1)[0])
    damage = {
        "rows out of range": ("__leaf_rows__", ls.rows + len(y)),
        "negative weight": ("__leaf_weight__", -ls.weight),
        "ptr too short": ("__leaf_ptr__", ls.ptr[:-1]),
        "rows at an internal node": ("__leaf_ptr__", np.where(
            np.arange(ls.ptr.shape[0]) == internal + 1, ls.ptr[internal] + 1, ls.ptr)),
        "y not finite": ("__leaf_y__", np.where(np.arange(len(y)) == 0, np.nan, ls.y)),
        "wrong dtype": ("__leaf_rows__", ls.rows.astype(np.float64)),
    }
    for what, (key, value) in damage.items():
        bad = dict(good, **{key: value})
        np.savez(tmp_path / "bad.npz", **bad)
        with pytest.raises(ValueError, match="leaf samples"):
            fastdt.load(tmp_path / "bad.npz")
    partial = {k: v for k, v in good.items() if k != "__leaf_y__"}
    np.savez(tmp_path / "bad.npz", **partial)
    with pytest.raises(ValueError, match="leaf samples need"):
        fastdt.load(tmp_path / "bad.npz")


def test_errors(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="regression with one output"):
        fit_forest(X, (y > 0).astype(int), n_estimators=2, leaf_samples=True)
    with pytest.raises(ValueError, match="regression with one output"):
        fit_forest(X, np.c_[y, y], n_estimators=2, leaf_samples=True)
    with pytest.raises(ValueError, match="leaf_samples must be a bool"):
        fit_forest(X, y, n_estimators=2, leaf_samples="yes")
    plain = fit_forest(X, y, n_estimators=2, random_state=0)
    with pytest.raises(ValueError, match="leaf_samples=True"):
        predict_quantiles(plain, X, [0.5])
    forest = fit_forest(X, y, n_estimators=2, random_state=0, leaf_samples=True)
    for bad in (1.5, -0.1, np.nan, [], [[0.5]]):
        with pytest.raises(ValueError, match="quantiles"):
            predict_quantiles(forest, X, bad)
    with pytest.raises(ValueError, match="training X"):
        predict_quantiles(forest, X[:10], [0.5], oob=True)
    with pytest.raises(ValueError, match="features"):
        predict_quantiles(forest, X[:, :2], [0.5])


def test_same_trees_as_quantile_forest():
    """quantile-forest's RandomForestQuantileRegressor and fastdt trees grown on the same
    bootstrap draws (every feature at every split: the same trees): the same leaf
    weights (their Meinshausen-weighted mean equals ours exactly), and quantiles close
    (their default interpolates linearly; ours is Meinshausen's inverted CDF)."""
    qf_mod = pytest.importorskip("quantile_forest")
    rng = np.random.default_rng(0)
    n = 400
    X = rng.normal(size=(n, 4)).astype(np.float32)
    y = X[:, 0] + rng.normal(size=n) * (1 + np.abs(X[:, 1]))
    qf = qf_mod.RandomForestQuantileRegressor(
        n_estimators=5, max_features=1.0, max_samples_leaf=None, bootstrap=True,
        random_state=0, min_samples_leaf=5).fit(X, y)
    prep = _engine.prepare(X, y, None, {"max_features": None, "min_samples_leaf": 5})
    trees, counts = [], []
    for est in qf.estimators_:  # scikit-learn's bootstrap draws of each tree
        drawn = np.random.RandomState(est.random_state).randint(0, n, n)
        counts.append(np.bincount(drawn, minlength=n).astype(np.float64))
        trees.append(_engine.assemble(prep, _engine.grow(prep, row_weights=counts[-1])))
        np.testing.assert_allclose(fastdt.predict(trees[-1], X), est.predict(X), atol=1e-12)
        assert trees[-1].node_count == est.tree_.node_count
    forest = Forest.from_trees(trees)
    leaves = fastdt.apply(forest, X)
    forest.leaf_samples = _quantiles.build(forest, lambda i: leaves[:, i],
                                           lambda i: counts[i], y)
    np.testing.assert_allclose(qf.predict(X, quantiles="mean", weighted_leaves=True),
                               fastdt.predict(forest, X), atol=1e-12)
    qs = [0.1, 0.5, 0.9]
    ours = predict_quantiles(forest, X, qs)
    theirs = qf.predict(X, quantiles=qs, weighted_leaves=True)
    assert np.abs(ours - theirs).mean() < 0.05 * y.std()

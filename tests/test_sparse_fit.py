"""Fitting on scipy.sparse X: the same trees as on the dense copy, never a dense copy.

Classification (weighted class counts) and regression on integer targets add up the
same sums in any order, so the sparse splitter (zero block = node minus stored values)
and the dense one (every row in sorted order) score every candidate bit for bit alike:
the trees are equal, every array. With real-valued targets the sums differ in the last
bits, and two features splitting a node into the same rows (an exact tie, usual in the
small nodes of a deep tree on mostly-zero columns) may fall either way; that case is
checked at small depth, values to 1e-12.
"""

import tracemalloc

import numpy as np
import pytest

import fastdt
from fastdt import DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier

sp = pytest.importorskip("scipy.sparse")

from _same_tree import ARRAYS, assert_same  # noqa: E402


def _data(n=1200, n_features=12, density=0.3, nan=0.04, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    X[rng.random(X.shape) > density] = 0.0
    X[rng.random(X.shape) < nan] = np.nan
    X[:, 1] = np.abs(X[:, 1])  # positive values only
    X[:, 2] = -np.abs(X[:, 2])  # negative values only
    X[:, 3] = 0.0  # all zeros: constant
    z = np.nan_to_num(X)
    y = (z[:, 0] + z[:, 1] + z[:, 4] + 0.4 * rng.normal(size=n) > 0.1).astype(int)
    y3 = y + (z[:, 5] > 0.3)
    yi = np.rint(3 * z[:, 0] + 2 * z[:, 4] + rng.normal(size=n)) + 8  # integer targets
    return X, y3, np.clip(yi, 0, None), rng.integers(0, 4, size=n).astype(float)


@pytest.fixture(scope="module")
def data():
    return _data()


CLF_PARAMS = [
    {}, {"max_depth": 4}, {"criterion": "entropy"}, {"criterion": "gain_ratio", "max_depth": 6},
    {"max_leaf_nodes": 25}, {"min_samples_leaf": 7, "min_samples_split": 20},
    {"max_features": 0.5, "random_state": 3}, {"splitter": "random", "random_state": 5},
    {"splitter": "hist"}, {"splitter": "hist", "max_bins": 8},
    {"min_weight_fraction_leaf": 0.02}, {"min_impurity_decrease": 0.002},
]


@pytest.mark.parametrize("params", CLF_PARAMS, ids=str)
@pytest.mark.parametrize("weighted", [False, True])
def test_classification_same_tree(data, params, weighted):
    X, y, _, w = data
    sw = w if weighted else None
    td = fastdt.fit(X, y, sample_weight=sw, **params)
    ts = fastdt.fit(sp.csr_matrix(X), y, sample_weight=sw, **params)
    assert_same(ts, td)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok"])
def test_every_format_and_dtype(data, fmt):
    X, y, _, _ = data
    for dtype in (np.float64, np.float32):
        Xd = X.astype(dtype)
        S = sp.csr_matrix(Xd).asformat(fmt)
        assert_same(fastdt.fit(S, y), fastdt.fit(Xd, y))
    Si = sp.csr_matrix(np.nan_to_num(X) * 10).astype(np.int64).asformat(fmt)
    assert_same(fastdt.fit(Si, y), fastdt.fit(Si.toarray(), y))


@pytest.mark.parametrize("params", [
    {}, {"criterion": "poisson", "max_depth": 6}, {"max_depth": 5}, {"splitter": "hist"},
    {"splitter": "random", "random_state": 2}, {"max_leaf_nodes": 20},
    {"monotonic_cst": [1, 0, 0, 0, 1] + [0] * 7, "max_depth": 6},
], ids=str)
def test_regression_integer_targets_same_tree(data, params):
    X, _, yi, w = data
    # Poisson's impurity sums w*y*log(y): not whole numbers (compared to 1e-9; in
    # deep trees a pure node's impurity, 0 up to rounding, can fall either side of EPSILON)
    poisson = params.get("criterion") == "poisson"
    for sw in (None, w):
        td = fastdt.fit(X, yi, sample_weight=sw, **params)
        ts = fastdt.fit(sp.csr_matrix(X), yi, sample_weight=sw, **params)
        assert_same(ts, td, [a for a in ARRAYS if not (poisson and a == "impurity")])
        np.testing.assert_allclose(ts.impurity, td.impurity, rtol=1e-9, atol=1e-12)


def test_regression_real_targets_top_levels(data):
    X, _, yi, _ = data
    y = yi + np.random.default_rng(1).normal(size=yi.shape[0]) / 7
    for params in ({"max_depth": 3}, {"max_depth": 3, "splitter": "hist"}):
        td = fastdt.fit(X, y, **params)
        ts = fastdt.fit(sp.csr_matrix(X), y, **params)
        assert_same(ts, td, ("feature", "threshold", "left", "right", "n_node_samples"))
        np.testing.assert_allclose(ts.value, td.value, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ts.impurity, td.impurity, rtol=1e-9, atol=1e-12)


def test_monotonic_and_class_weight(data):
    X, y, _, _ = data
    yb = (y > 0).astype(int)
    params = {"monotonic_cst": [1, -1, 1] + [0] * 9, "max_depth": 6}
    assert_same(fastdt.fit(sp.csr_matrix(X), yb, **params), fastdt.fit(X, yb, **params))
    cw = {0: 1.0, 1: 3.0, 2: 2.0}  # whole numbers: sums exact in any order
    assert_same(fastdt.fit(sp.csr_matrix(X), y, class_weight=cw),
                fastdt.fit(X, y, class_weight=cw))


def test_stored_zeros_duplicates_and_negative_zero(data):
    """Explicit zeros (0.0 and -0.0) are the implicit zeros' value; duplicate entries
    add up, as scipy defines them."""
    X, y, _, _ = data
    S = sp.coo_matrix(X)
    rows = np.concatenate([S.row, [0, 1, 2, 5]])
    cols = np.concatenate([S.col, [3, 3, 7, 0]])
    extra = np.array([0.0, -0.0, 0.0, 0.0])
    messy = sp.coo_matrix((np.concatenate([S.data, extra]), (rows, cols)), shape=X.shape)
    # a value split into two duplicate entries
    dup = sp.coo_matrix((np.r_[S.data, 0.25, -0.25], (np.r_[S.row, 9, 9], np.r_[S.col, 6, 6])),
                        shape=X.shape)
    assert_same(fastdt.fit(messy, y), fastdt.fit(X, y))
    assert_same(fastdt.fit(dup, y), fastdt.fit(dup.toarray(), y))


def test_row_order_does_not_matter(data):
    X, y, _, w = data
    perm = np.random.default_rng(4).permutation(X.shape[0])
    a = fastdt.fit(sp.csr_matrix(X), y, sample_weight=w)
    b = fastdt.fit(sp.csr_matrix(X[perm]), y[perm], sample_weight=w[perm])
    assert_same(a, b)


def test_same_tree_on_every_thread_count(on_each_thread_count):
    X, y, yi, _ = _data(n=6000, n_features=60, seed=3)
    S = sp.csr_matrix(X)
    one, many = on_each_thread_count(lambda: [
        fastdt.fit(S, y), fastdt.fit(S, yi, splitter="random", random_state=0),
        fastdt.fit(S, y, splitter="hist", max_leaf_nodes=40)])
    for a, b in zip(one, many):
        assert_same(a, b)


def test_prepared_once_grown_twice(data):
    """The engine's copy=True leaves the sparse layout as it was for the next tree."""
    from fastdt import _engine

    X, y, _, _ = data
    prep = _engine.prepare(sp.csr_matrix(X), y, None, {"max_depth": 5})
    first = _engine.assemble(prep, _engine.grow(prep, copy=True))
    second = _engine.assemble(prep, _engine.grow(prep, copy=False))
    assert_same(first, second)
    assert_same(first, fastdt.fit(X, y, max_depth=5))


def test_no_dense_copy(monkeypatch):
    """A 20,000 x 5,000 matrix with 0.1% density (a dense copy: 800 MB) fits with a
    small fraction of that allocated, and without ever calling toarray/todense."""
    rng = np.random.default_rng(0)
    n, n_features = 20_000, 5_000
    S = sp.random(n, n_features, density=0.001, format="csr", random_state=rng)
    y = (np.asarray(S[:, :50].sum(axis=1)).ravel() > 0.1).astype(int)
    fastdt.fit(S[:500], y[:500], max_depth=3)  # compile outside the measurement

    def refuse(*args, **kwargs):
        raise AssertionError("fit made a sparse matrix dense")

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    tracemalloc.start()
    tree = fastdt.fit(S, y, max_depth=8)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert tree.node_count > 1
    assert peak < 0.05 * n * n_features * 8, peak


def test_estimators(data):
    X, y, yi, _ = data
    S = sp.csr_matrix(X)
    for est in (DecisionTreeClassifier(max_depth=6), ExtraTreeClassifier(random_state=0)):
        a, b = est.fit(S, y), type(est)(**est.get_params()).fit(X, y)
        np.testing.assert_array_equal(a.predict_proba(S), b.predict_proba(X))
        assert a.n_features_in_ == X.shape[1]
    reg = DecisionTreeRegressor(splitter="hist").fit(S, yi)
    np.testing.assert_array_equal(reg.predict(S), reg.predict(X))


def test_refused_before_any_kernel(data):
    X, y, yi, _ = data
    S = sp.csr_matrix(X)
    with pytest.raises(ValueError, match="missing='learn' only"):
        fastdt.fit(S, y, missing="surrogate")
    with pytest.raises(ValueError, match="missing='learn' only"):
        fastdt.fit(S, y, missing="fractional")
    with pytest.raises(ValueError, match="categorical_features needs a dense X"):
        fastdt.fit(S, y, categorical_features=[0])
    with pytest.raises(ValueError, match="absolute_error"):
        fastdt.fit(S, yi, criterion="absolute_error")
    with pytest.raises(ValueError, match="several outputs"):
        fastdt.fit(S, np.column_stack([y, y]))
    bad = S.copy()
    bad.data[3] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        fastdt.fit(bad, y)
    with pytest.raises(ValueError, match="0 sample"):
        fastdt.fit(sp.csr_matrix((0, 3)), np.zeros(0))
    with pytest.raises(ValueError, match="0 feature"):
        fastdt.fit(sp.csr_matrix((3, 0)), np.zeros(3))
    with pytest.raises(ValueError, match="must be numeric"):
        fastdt.fit(sp.csr_matrix(np.ones((3, 2), dtype=complex)), np.zeros(3))
    with pytest.raises(ValueError, match="max_bins"):
        fastdt.fit(S, y, splitter="hist", max_bins=1)

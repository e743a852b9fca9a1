"""Preparations kept for refits on the same data (``fastdt._memo``): the same trees, bit
for bit, as a new preparation; never taken for other data; within their limits."""

import numpy as np
import pytest

import fastdt
from fastdt import _memo
from _same_tree import assert_same


@pytest.fixture
def cache():
    """The cache on, empty, and afterwards back as it was, empty."""
    previous = fastdt.set_prepare_cache(0)
    fastdt.set_prepare_cache(_memo.MAX_BYTES)
    yield
    fastdt.set_prepare_cache(0)
    fastdt.set_prepare_cache(previous)


def _data(seed, n=3000, nan=False):
    """Few-valued integer columns (coded), wide ones (presorted), string labels."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 6, n), rng.normal(size=n), rng.integers(0, 3, n),
                         rng.normal(size=n).round(1)]).astype(np.float64)
    if nan:
        X[rng.random(n) < 0.05, 1] = np.nan
    names = np.array(["<=50K", ">50K", "other"])[
        (X[:, 0] + 2 * (X[:, 1] > 0) + rng.integers(0, 2, n)).astype(int) % 3]
    # distinct objects, as labels read from a file
    return X, np.array([(v + "!")[:-1] for v in names.tolist()], dtype=object)


def _fresh(X, y, **params):
    """The tree of a new preparation (the cache off for the call)."""
    previous = fastdt.set_prepare_cache(0)
    try:
        return fastdt.fit(X, y, **params)
    finally:
        fastdt.set_prepare_cache(previous)


@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize("params", [dict(max_depth=6), dict(min_samples_leaf=5),
                                    dict(max_leaf_nodes=20), dict(max_features=2,
                                                                  random_state=0)])
def test_refits_take_the_kept_preparation_and_grow_the_same_trees(cache, nan, params):
    X, y = _data(1, nan=nan)
    trees = [fastdt.fit(X, y, **params) for _ in range(4)]
    kinds = sorted(e[0] for e in _memo._entries)
    assert kinds == ["labels", "layout"]  # kept from the second fit, taken by the others
    want = _fresh(X, y, **params)
    for tree in trees:  # each growth rearranged its own copy of the layout
        assert_same(want, tree)
        np.testing.assert_array_equal(tree.classes, want.classes)


def test_a_single_fit_keeps_only_a_fingerprint(cache):
    X, y = _data(2)
    fastdt.fit(X, y, max_depth=3)
    assert _memo._entries == [] and _memo.kept_bytes() == 0


def test_folds_and_settings_as_a_grid_search_fits_them(cache):
    X, y = _data(3, n=4000)
    folds = [np.flatnonzero(np.arange(4000) % 3 != k) for k in range(3)]
    settings = (2, 5, None)
    want = [[_fresh(X[rows], y[rows], max_depth=d) for rows in folds] for d in settings]
    for i, depth in enumerate(settings):
        for k, rows in enumerate(folds):  # new arrays each time, as GridSearchCV's folds
            assert_same(want[i][k], fastdt.fit(X[rows], y[rows], max_depth=depth))
    assert sum(e[0] == "layout" for e in _memo._entries) == 3


def test_changed_data_is_never_taken_for_the_kept(cache):
    X, y = _data(4)
    X2 = X.copy()
    X2[17, 1] = np.nextafter(X2[17, 1], np.inf)  # one bit of one value
    y2 = y.copy()
    y2[5] = "<=50K" if y[5] != "<=50K" else ">50K"
    X3 = X.copy()
    X3[:, 0] = X[::-1, 0]
    cases = [(X2, y), (X, y2), (X.astype(np.float32), y), (X3, y)]
    want = [_fresh(Xc, yc, max_depth=6) for Xc, yc in cases]
    for _ in range(3):
        fastdt.fit(X, y, max_depth=6)
    assert sorted(e[0] for e in _memo._entries) == ["labels", "layout"]
    for (Xc, yc), tree in zip(cases[:3], want):
        assert_same(tree, fastdt.fit(Xc, yc, max_depth=6))
    X[:, 0] = X[::-1, 0]  # the user's X changed in place: the kept copy is the cache's own
    assert_same(want[3], fastdt.fit(X, y, max_depth=6))


def test_equal_labels_as_other_objects_give_the_same_tree(cache):
    X, y = _data(5)
    want = _fresh(X, y, max_depth=4)
    for _ in range(3):
        fastdt.fit(X, y, max_depth=4)
    other = np.array([(v + "!")[:-1] for v in y], dtype=object)  # new str objects
    assert not any(a is b for a, b in zip(other, y))
    assert_same(want, fastdt.fit(X, other, max_depth=4))


def test_weighted_and_forest_fits(cache):
    X, y = _data(6)
    w = np.random.default_rng(0).random(X.shape[0])
    want = _fresh(X, y, sample_weight=w, max_depth=5)
    fastdt.set_prepare_cache(0)
    want_forest = fastdt.fit_forest(X, y, n_estimators=3, random_state=0, splitter="best")
    fastdt.set_prepare_cache(_memo.MAX_BYTES)
    for _ in range(3):
        assert_same(want, fastdt.fit(X, y, sample_weight=w, max_depth=5))
    assert not any(e[0] == "layout" for e in _memo._entries)  # weighted: never kept
    for _ in range(3):
        forest = fastdt.fit_forest(X, y, n_estimators=3, random_state=0, splitter="best")
        assert_same(want_forest, forest)
    assert any(e[0] == "layout" for e in _memo._entries)


def test_limits(cache, monkeypatch):
    X, y = _data(7)
    assert fastdt.set_prepare_cache(1000) == _memo.MAX_BYTES
    for _ in range(3):
        fastdt.fit(X, y, max_depth=3)
    assert _memo.kept_bytes() <= 1000 and not any(e[0] == "layout" for e in _memo._entries)
    fastdt.set_prepare_cache(_memo.MAX_BYTES)
    monkeypatch.setattr(_memo, "MAX_VALUES", X.size - 1)
    for _ in range(3):
        fastdt.fit(X, y, max_depth=3)
    assert not any(e[0] == "layout" for e in _memo._entries)
    monkeypatch.setattr(_memo, "MAX_VALUES", 1 << 21)
    for seed in range(8):  # more data than the limit holds: the oldest dropped
        Xs, ys = _data(10 + seed)
        for _ in range(2):
            fastdt.fit(Xs, ys, max_depth=2)
    assert _memo.kept_bytes() > 0
    fastdt.set_prepare_cache(_memo.kept_bytes() // 2)
    assert 0 < _memo.kept_bytes() <= _memo._limit[0]
    assert fastdt.set_prepare_cache(0) > 0
    assert _memo.kept_bytes() == 0 and _memo._entries == []
    for bad in (-1, 1.5, True, "64M", None):
        with pytest.raises(ValueError, match="max_bytes"):
            fastdt.set_prepare_cache(bad)


def test_recall_returns_copies(cache):
    a = np.arange(10.0)
    value = (np.ones(3), None, (np.zeros(2),))
    _memo.keep("t", (a,), value)
    assert _memo.recall("t", (a,)) is None  # seen once: a fingerprint only
    _memo.keep("t", (a,), value)
    value[0][:] = 5.0  # the caller's arrays change after keep
    got = _memo.recall("t", (a,))
    np.testing.assert_array_equal(got[0], 1.0)
    got[0][:] = 7.0
    np.testing.assert_array_equal(_memo.recall("t", (a,))[0], 1.0)
    assert _memo.recall("t", (a[::2].copy(),)) is None
    assert _memo.recall("u", (a,)) is None
    assert _memo.recall("t", (a[::-1],)) is None  # not C-contiguous: never compared
    mixed = np.zeros(3, dtype=[("x", float), ("o", object)])  # objects in records
    for _ in range(3):
        _memo.keep("t", (mixed,), value)
    assert _memo.recall("t", (mixed,)) is None

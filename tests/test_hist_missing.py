"""The histogram splitter on missing values (NaN) and categorical features: binning,
the scan kernels on hand-made histograms, and bit-for-bit parity with the exact
splitter (which ``test_missing.py`` and ``test_categorical.py`` check against
scikit-learn and brute force)."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdt
from fastdt import Dataset
from test_hist import assert_identical

NAN = np.nan


def assert_same_tree(hist, exact, value_tol=0.0):
    """:func:`assert_identical` plus the categorical arrays of the format."""
    assert_identical(hist, exact, value_tol)
    for name in ("cat_offset", "cat_bitsets", "n_categories"):
        np.testing.assert_array_equal(getattr(hist, name), getattr(exact, name), err_msg=name)
    assert hist.categories == exact.categories


def mixed_data(n=600, seed=0, nan_rate=0.15, k=6, n_numeric=3, dtype=np.float64):
    """Numeric columns with few distinct values, then a categorical column of codes
    ``0 .. k-1`` (when ``k``), with NaN at ``nan_rate`` everywhere. Targets depend on
    both, and on whether a value is missing."""
    rng = np.random.default_rng(seed)
    num = np.round(rng.standard_normal((n, n_numeric)), 1)
    cols = [num]
    if k:
        cols.append(rng.integers(0, k, n)[:, None].astype(float))
    X = np.column_stack(cols).astype(dtype)
    effect = rng.normal(size=max(k, 1))
    score = num[:, 0] + num[:, 1] * num[:, -1] + 0.5 * rng.standard_normal(n)
    if k:
        score += effect[X[:, -1].astype(int)]
    X[rng.random(X.shape) < nan_rate] = NAN
    score += np.isnan(X[:, 0]) * 1.5
    y_clf = np.digitize(score, [-0.5, 0.7])  # three classes
    y_reg = np.round(2 * score)  # integer targets: every sum is exact
    return X, y_clf, y_reg


def both(X, y, **params):
    return (fastdt.fit(X, y, splitter="hist", **params), fastdt.fit(X, y, **params))


PARAMS = [
    {}, {"max_depth": 3}, {"min_samples_leaf": 7}, {"min_samples_split": 30},
    {"max_leaf_nodes": 9}, {"max_features": 2, "random_state": 0},
    {"min_impurity_decrease": 0.01}, {"min_weight_fraction_leaf": 0.05},
]


# --------------------------------------------------------------------- binning


def test_missing_values_get_the_bin_after_the_last():
    X = np.array([[3.0, NAN], [NAN, NAN], [1.0, NAN], [3.0, NAN], [2.0, NAN]])
    ds = Dataset(X)
    assert ds.n_bins.tolist() == [3, 0]  # an all-missing feature has no value bin
    np.testing.assert_array_equal(ds.codes[0], [2, 3, 0, 2, 1])
    np.testing.assert_array_equal(ds.codes[1], 0)
    np.testing.assert_array_equal(ds.bin_lo[0], [1, 2, 3])
    np.testing.assert_array_equal(ds.bin_hi[0], [1, 2, 3])


def test_categorical_feature_gets_one_bin_per_category():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"c": pd.Categorical(["b", None, "d", "b"], categories=list("abcd")),
                       "x": [0.5, 0.25, 0.5, NAN]})
    ds = Dataset(df, max_bins=2)
    assert ds.categories == [["a", "b", "c", "d"], None]
    np.testing.assert_array_equal(ds.n_categories, [4, 0])
    assert ds.n_bins.tolist() == [4, 2]  # categories: one bin each, whatever max_bins
    np.testing.assert_array_equal(ds.codes[0], [1, 4, 3, 1])
    np.testing.assert_array_equal(ds.codes[1], [1, 0, 1, 2])
    np.testing.assert_array_equal(ds.bin_lo[0], [0, 1, 2, 3])
    np.testing.assert_array_equal(ds.bin_hi[0], [0, 1, 2, 3])


@pytest.mark.parametrize("max_bins, k, dtype", [
    (255, 0, np.uint8), (256, 0, np.uint16), (16, 255, np.uint8), (16, 256, np.uint16),
])
def test_codes_are_uint8_when_every_code_fits(max_bins, k, dtype):
    rng = np.random.default_rng(0)
    n = 2000
    X = np.column_stack([rng.permutation(n) % 256, np.arange(n) % max(k, 1)]).astype(float)
    X[::7] = NAN
    ds = Dataset(X, max_bins=max_bins, categorical_features=[1] if k else None)
    assert ds.codes.dtype == dtype
    np.testing.assert_array_equal(ds.codes[0][np.isnan(X[:, 0])], ds.n_bins[0])
    assert ds.codes.max() == ds.n_bins.max()  # the largest code is a missing one


def test_sample_missed_values_are_binned_again_with_missing_values():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 40, 3000).astype(float)
    x[17] = 12.5  # one rare value
    x[rng.random(3000) < 0.2] = NAN
    X = np.column_stack([x, rng.standard_normal(3000)])
    y = (np.nan_to_num(x, nan=30) > 12.2).astype(int)
    ds = Dataset(X, max_bins=64, subsample=500)
    assert ds.n_bins[0] == 41
    np.testing.assert_array_equal(ds.codes[0][np.isnan(x)], 41)
    assert_same_tree(fastdt.fit(ds, y, max_depth=3), fastdt.fit(X, y, max_depth=3))


# --------------------------------------------------------------------- scan kernels
# (called as plain Python, ``py_func``: a direct call with other array types would
# compile one more signature, which test_jit_policy counts)


def _hist(rows):
    """A gini histogram from ``rows`` = class counts per bin (last row: missing)."""
    return np.array(rows, dtype=float)


def test_scan_bins_tries_missing_right_then_present_versus_missing_then_missing_left():
    from fastdt._config import GINI
    from fastdt._criteria import NO_REG
    from fastdt._hist_scan import _children, _scan_bins

    def scan(h, nb, msl=1):
        lo = hi = np.arange(float(nb))
        total = h.sum(axis=0)
        w = total.sum()
        out_l, out_r, miss = np.empty(2), np.empty(2), np.empty(2)
        occ = np.empty(nb, dtype=np.int64)
        # a classification (reg_crit None), no constraint, no lambda
        res = _scan_bins.py_func(h, nb, lo, hi, total, w, int(w), 0.5, None, GINI, None, False,
                                 msl, 0.0, np.empty(2), np.empty(2), miss, occ, True, None, 0,
                                 -np.inf, np.inf, NO_REG)
        if res[1] > 0:  # the children of the split found
            _children.py_func(h, occ, res[6], res[4], res[5], miss, True, False, out_l, out_r)
        return res[:6], out_l, out_r

    # values 0, 1 | 2 | missing: class 1 sits at 2 and in the missing bin
    (proxy, nl, thr, nc, b, mgl), out_l, out_r = scan(_hist([[2, 0], [2, 0], [0, 2], [0, 2]]), 3)
    assert (nl, thr, b, mgl) == (4, 1.5, 1, 0) and nc
    np.testing.assert_array_equal(out_l, [4, 0])
    np.testing.assert_array_equal(out_r, [0, 4])
    # only the missing rows differ: present | missing, threshold +inf
    (proxy, nl, thr, nc, b, mgl), out_l, _ = scan(_hist([[2, 0], [2, 0], [0, 0], [0, 3]]), 3)
    assert (nl, thr, b, mgl) == (4, np.inf, 1, 0)
    # missing rows belong with the low values: the missing-left pass finds it
    (proxy, nl, thr, nc, b, mgl), out_l, out_r = scan(_hist([[2, 0], [0, 2], [0, 2], [3, 0]]), 3)
    assert (nl, thr, b, mgl) == (5, 0.5, 0, 1)
    np.testing.assert_array_equal(out_l, [5, 0])
    # one value and missing rows: not constant; one value and none missing: constant
    assert scan(_hist([[2, 1], [0, 0], [1, 2]]), 2)[0][3]
    assert not scan(_hist([[2, 1], [0, 0], [0, 0]]), 2)[0][3]
    # min_samples_leaf=3 rules out the 2-row missing side
    (proxy, nl, thr, nc, b, mgl), _, _ = scan(_hist([[3, 0], [0, 3], [0, 2]]), 2, msl=3)
    assert (nl, thr, mgl) == (3, 0.5, 0)


def test_mark_sides_routes_missing_and_categories():
    from fastdt._hist_build import mark_sides

    codes = np.array([[0, 1, 2, 3, 3, 1], [0, 1, 2, 3, 0, 2]], dtype=np.uint8)
    n_bins = np.array([3, 3], dtype=np.int32)
    n_cats = np.array([0, 3], np.int32)
    side = np.zeros(6, dtype=np.uint8)
    # the node in one piece, and in two (the rows going right counted per piece)
    for pieces in ([[0, 6, 0]], [[0, 2, 0], [2, 6, 0]]):
        pieces = np.array(pieces, dtype=np.int64)
        n_right = np.full(pieces.shape[0], -1, dtype=np.int64)
        # no piece is a whole node to move (the moves: the next test)
        no_move = (np.zeros(pieces.shape[0], dtype=np.uint8), np.empty(0, dtype=np.int32),
                   np.empty((6, 0)))
        # positions read the codes through the row ids: in order, then reversed
        for rows in (np.arange(6), np.arange(6)[::-1].copy()):
            for mgl, expect in ((1, [0, 0, 1, 0, 0, 0]), (0, [0, 0, 1, 1, 1, 0])):
                mark_sides.py_func(0, pieces.shape[0], codes, rows, pieces, np.array([0]),
                                   np.array([1]), np.array([mgl]),
                                   np.zeros((1, 1), dtype=np.uint64), n_bins, n_cats, side,
                                   n_right, *no_move)
                np.testing.assert_array_equal(side, np.array(expect)[rows])
                assert n_right.tolist() == [side[a:b].sum() for a, b, _ in pieces]
            # feature 1 categorical (3 categories, code 3 missing): category 2 left,
            # missing left
            mark_sides.py_func(0, pieces.shape[0], codes, rows, pieces, np.array([1]),
                               np.array([-1]), np.array([1]),
                               np.array([[4]], dtype=np.uint64), n_bins, n_cats, side,
                               n_right, *no_move)
            np.testing.assert_array_equal(side, np.array([1, 1, 0, 0, 1, 0])[rows])
            assert n_right.tolist() == [side[a:b].sum() for a, b, _ in pieces]



@pytest.mark.parametrize("task", ["classification", "regression"])
def test_mark_sides_moves_the_rows_of_whole_nodes(task):
    """A piece marked as a whole node has its positions partitioned in the same call,
    stably, side 0 first (the row ids, class codes and statistics together); a piece
    of a node cut in several is only marked. Compiled, as a fit runs it."""
    from fastdt._hist_build import mark_sides

    rng = np.random.default_rng(0)
    n = 40
    codes = rng.integers(0, 5, size=(2, n)).astype(np.uint8)
    n_bins = np.array([5, 5], dtype=np.int32)
    rows0 = rng.permutation(n).astype(np.int32)
    if task == "classification":
        ycode0, rstat0 = rng.integers(0, 3, n).astype(np.int32), np.empty((n, 0))
    else:  # boosting's three regression sums
        ycode0, rstat0 = np.empty(0, dtype=np.int32), rng.normal(size=(n, 3))
    # node 0: positions [0, 15) whole; node 1: [15, 40) cut in two pieces
    pieces = np.array([[0, 15, 0], [15, 27, 1], [27, 40, 1]], dtype=np.int64)
    whole = np.array([1, 0, 0], dtype=np.uint8)
    rows, ycode, rstat = rows0.copy(), ycode0.copy(), rstat0.copy()
    side = np.zeros(n, dtype=np.uint8)
    n_right = np.empty(3, dtype=np.int64)
    mark_sides(0, 3, codes, rows, pieces, np.array([0, 1]), np.array([2, 1]),
               np.array([0, 0]), np.zeros((2, 1), dtype=np.uint64), n_bins,
               np.zeros(2, dtype=np.int32), side, n_right, whole, ycode, rstat)
    goes = codes[0, rows0[:15]] > 2
    order = np.r_[np.flatnonzero(~goes), np.flatnonzero(goes)]  # stable, left first
    np.testing.assert_array_equal(rows[:15], rows0[:15][order])
    np.testing.assert_array_equal(side[15:], codes[1, rows0[15:]] > 1)
    np.testing.assert_array_equal(rows[15:], rows0[15:])  # cut: marked only
    assert n_right.tolist() == [goes.sum(), side[15:27].sum(), side[27:].sum()]
    if task == "classification":
        np.testing.assert_array_equal(ycode[:15], ycode0[:15][order])
        np.testing.assert_array_equal(ycode[15:], ycode0[15:])
    else:
        np.testing.assert_array_equal(rstat[:15], rstat0[:15][order])
        np.testing.assert_array_equal(rstat[15:], rstat0[15:])

# --------------------------------------------------------------------- parity with exact


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("criterion", ["gini", "entropy", "gain_ratio"])
@pytest.mark.parametrize("params", PARAMS)
def test_hist_equals_exact_with_missing_values(dtype, criterion, params):
    X, y, _ = mixed_data(k=0, dtype=dtype)
    assert_same_tree(*both(X, y, criterion=criterion, **params))


@pytest.mark.parametrize("criterion", ["squared_error", "poisson"])
@pytest.mark.parametrize("params", [{}, {"max_depth": 4}, {"max_leaf_nodes": 12},
                                    {"min_samples_leaf": 5}])
def test_hist_equals_exact_with_missing_values_regression(criterion, params):
    X, _, y = mixed_data(seed=5, k=0)
    if criterion == "poisson":
        y = y - y.min()
    assert_same_tree(*both(X, y, criterion=criterion, **params), value_tol=1e-12)


@pytest.mark.parametrize("task", ["classification", "regression"])
@pytest.mark.parametrize("k", [0, 5])
def test_hist_equals_exact_with_missing_values_and_weights(task, k):
    X, y_clf, y_reg = mixed_data(seed=6, k=k)
    y = y_clf if task == "classification" else y_reg
    w = np.random.default_rng(6).integers(0, 4, y.shape[0]).astype(float)  # zeros too
    cf = [X.shape[1] - 1] if k else None
    assert_same_tree(*both(X, y, sample_weight=w, task=task, max_depth=6,
                           categorical_features=cf, min_weight_fraction_leaf=0.01),
                     value_tol=1e-12)


@pytest.mark.parametrize("n_classes, k", [(2, 8), (3, 6), (3, 14), (None, 12)])
@pytest.mark.parametrize("nan_rate", [0.0, 0.15])
@pytest.mark.parametrize("params", [{}, {"max_depth": 3, "min_samples_leaf": 5},
                                    {"max_leaf_nodes": 8}])
def test_hist_equals_exact_with_categorical_codes(n_classes, k, nan_rate, params):
    """Breiman ordering (two classes, regression), exhaustive (three classes, six
    categories) and per-class orderings (beyond MAX_EXHAUSTIVE_GROUPS)."""
    X, y_clf, y_reg = mixed_data(seed=k, k=k, nan_rate=nan_rate)
    y = y_reg if n_classes is None else y_clf % n_classes
    tol = 1e-12 if n_classes is None else 0.0
    hist, exact = both(X, y, categorical_features=[X.shape[1] - 1], **params)
    assert_same_tree(hist, exact, value_tol=tol)
    assert (exact.cat_offset >= 0).any()  # the categorical feature is used


@pytest.mark.parametrize("criterion", ["entropy", "gain_ratio"])
def test_hist_equals_exact_with_categorical_codes_other_criteria(criterion):
    X, y, _ = mixed_data(seed=8, k=9)
    assert_same_tree(*both(X, y, criterion=criterion, categorical_features=[3], max_depth=5))


def test_hist_equals_exact_on_a_dataframe_with_string_and_category_columns():
    pd = pytest.importorskip("pandas")
    X, y, _ = mixed_data(seed=9, k=7, n_numeric=2)
    rng = np.random.default_rng(9)
    words = np.array(["red", "green", "blue", "cyan", "teal", "gold", "pink"])
    df = pd.DataFrame({
        "a": X[:, 0], "b": X[:, 1],
        "color": pd.Series(words[np.nan_to_num(X[:, 2], nan=0).astype(int)],
                           dtype=object).where(~np.isnan(X[:, 2]), None),
        "size": pd.Categorical(rng.choice(["S", "M", "L", None], X.shape[0]),
                               categories=["S", "M", "L", "XL"]),
    })
    y = y + (df["size"] == "L").to_numpy()
    hist, exact = both(df, y, max_depth=6)
    assert_same_tree(hist, exact)
    assert hist.feature_names == list(df.columns)
    np.testing.assert_array_equal(fastdt.predict(hist, df), fastdt.predict(exact, df))
    assert set(hist.feature[hist.cat_offset >= 0]) == {2, 3}


def test_pool_exhaustion_and_small_nodes_with_missing_and_categories(monkeypatch):
    """Histograms from the pool, built on the fly (dense and compact): one tree."""
    import fastdt._hist

    X, y, _ = mixed_data(n=3000, seed=10, k=12)
    params = {"categorical_features": [3], "splitter": "hist", "max_bins": 16}
    full = fastdt.fit(X, y, **params)
    monkeypatch.setattr(fastdt._hist, "HIST_POOL_BYTES", 1)
    assert_same_tree(fastdt.fit(X, y, **params), full)


def test_coarse_bins_keep_training_rows_on_their_side():
    """With fewer bins than values, apply() on the raw rows still reproduces the fit's
    node counts: missing values and categories are routed as they were grown."""
    X, y, _ = mixed_data(n=5000, seed=11, k=20)
    X[:, 0] = np.where(np.isnan(X[:, 0]), NAN, X[:, 0] + np.arange(5000) * 1e-3)
    for max_bins in (4, 32):
        tree = fastdt.fit(X, y, splitter="hist", max_bins=max_bins, categorical_features=[3])
        counts = np.bincount(fastdt.apply(tree, X), minlength=tree.node_count)
        is_leaf = tree.left == fastdt.LEAF
        np.testing.assert_array_equal(counts[is_leaf], tree.n_node_samples[is_leaf])


# --------------------------------------------------------------------- Dataset, estimators


def test_categorical_dataset_is_reused_pickled_and_not_modified():
    X, y, y_reg = mixed_data(n=800, seed=12, k=9)
    ds = Dataset(X, categorical_features=[3])
    before = ds.codes.copy()
    exact = fastdt.fit(X, y, categorical_features=[3], max_depth=5)
    for _ in range(2):
        assert_same_tree(fastdt.fit(ds, y, max_depth=5), exact)
    np.testing.assert_array_equal(ds.codes, before)
    assert_same_tree(fastdt.fit(ds, y_reg, max_depth=4),
                     fastdt.fit(X, y_reg, categorical_features=[3], max_depth=4), 1e-12)
    ds2 = pickle.loads(pickle.dumps(ds))
    assert ds2.categories == ds.categories
    assert_same_tree(fastdt.fit(ds2, y, max_depth=5), exact)
    with pytest.raises(ValueError, match="categorical_features is set when the Dataset"):
        fastdt.fit(ds, y, categorical_features=[3])


@pytest.mark.parametrize("Est", [fastdt.DecisionTreeClassifier, fastdt.DecisionTreeRegressor])
def test_estimators_fit_missing_values_with_hist(Est):
    X, y_clf, y_reg = mixed_data(seed=13, k=0)
    y = y_clf if Est is fastdt.DecisionTreeClassifier else y_reg
    hist = Est(splitter="hist", max_depth=5).fit(X, y)
    exact = Est(max_depth=5).fit(X, y)
    np.testing.assert_array_equal(hist.predict(X), exact.predict(X))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 120), levels=st.integers(1, 8),
       k=st.integers(1, 13), nan_rate=st.sampled_from([0.0, 0.1, 0.4, 1.0]),
       n_classes=st.sampled_from([2, 3, None]), weighted=st.booleans(),
       depth=st.one_of(st.none(), st.integers(1, 5)), msl=st.integers(1, 4))
def test_hist_equals_exact_property(seed, n, levels, k, nan_rate, n_classes, weighted,
                                    depth, msl):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, levels, size=(n, 2)),
                         rng.integers(0, k, size=n)]).astype(np.float64)
    X[rng.random(X.shape) < nan_rate] = NAN
    if np.isnan(X[:, 2]).all():
        X[0, 2] = 0.0  # a categorical column needs one category
    y = rng.integers(0, n_classes or 5, size=n)
    task = "regression" if n_classes is None else "classification"
    w = rng.integers(1, 4, size=n).astype(float) if weighted else None
    assert_same_tree(*both(X, y, task=task, sample_weight=w, categorical_features=[2],
                           max_depth=depth, min_samples_leaf=msl), value_tol=1e-12)

"""Missing values (NaN) in numeric features: the learned direction (``missing="learn"``).

Parity with scikit-learn on data with holes is in ``test_sklearn_parity.py`` (the
``*_nan`` datasets); here: hand-worked nodes, prediction-time NaN, invariances.
"""

import numpy as np
import pytest

import fastdt

NAN = np.nan


def test_missing_rows_go_where_they_fit_best():
    # {1, 2} | {3, NaN, NaN}: threshold 2.5, missing right
    t = fastdt.fit(np.array([[1.0], [2.0], [3.0], [NAN], [NAN]]), [0, 0, 1, 1, 1])
    assert t.threshold[0] == 2.5 and t.missing_go_left[0] == 0
    assert t.node_count == 3
    # {NaN, NaN, 1} | {2, 3}: threshold 1.5, missing left
    t = fastdt.fit(np.array([[NAN], [NAN], [1.0], [2.0], [3.0]]), [0, 0, 0, 1, 1])
    assert t.threshold[0] == 1.5 and t.missing_go_left[0] == 1
    np.testing.assert_array_equal(t.n_node_samples, [5, 3, 2])


def test_present_versus_missing_split_has_infinite_threshold():
    t = fastdt.fit(np.array([[1.0], [2.0], [3.0], [NAN], [NAN]]), [0, 0, 0, 1, 1])
    assert t.threshold[0] == np.inf and t.missing_go_left[0] == 0
    np.testing.assert_array_equal(fastdt.predict(t, [[1e300], [NAN], [-5.0]]), [0, 1, 0])


def test_all_missing_feature_is_never_used():
    rng = np.random.default_rng(0)
    X = np.column_stack([np.full(50, NAN), rng.normal(size=50)])
    y = (X[:, 1] > 0).astype(int)
    t = fastdt.fit(X, y)
    assert not np.any(t.feature == 0)


def test_nan_at_predict_time_follows_the_larger_child():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    t = fastdt.fit(X, [0, 1, 1, 1, 1], max_depth=1)  # 1 row left, 4 right
    assert t.missing_go_left[0] == 0
    assert fastdt.apply(t, [[NAN]])[0] == t.right[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_predictions_with_and_without_the_fast_kernel_agree(dtype):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 4)).astype(dtype)
    X[rng.random(X.shape) < 0.2] = NAN
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1], nan=2) > 0.5).astype(int)
    t = fastdt.fit(X, y, max_depth=6)
    full = fastdt.apply(t, X)
    present = ~np.isnan(X).any(axis=1)
    np.testing.assert_array_equal(fastdt.apply(t, X[present]), full[present])


def test_row_order_does_not_change_the_tree():
    rng = np.random.default_rng(2)
    X = np.round(rng.normal(size=(400, 3)), 1)
    X[rng.random(X.shape) < 0.25] = NAN
    y = rng.integers(0, 3, size=400)
    perm = rng.permutation(400)
    assert fastdt.fit(X, y, max_depth=5) == fastdt.fit(X[perm], y[perm], max_depth=5)


def test_dataframe_none_and_pandas_na_are_missing():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": pd.array([1, 2, None, 4, 5, None], dtype="Int64"),
                       "b": [1.0, None, 3.0, 4.0, 5.0, 6.0]})
    y = [0, 0, 1, 1, 1, 1]
    t = fastdt.fit(df, y)
    X = np.array([[1, 1], [2, NAN], [NAN, 3], [4, 4], [5, 5], [NAN, 6]], dtype=float)
    u = fastdt.fit(X, y)
    for name in t.arrays._fields:
        np.testing.assert_array_equal(getattr(t, name), getattr(u, name), err_msg=name)


@pytest.mark.parametrize("splitter", ["best", "hist"])
def test_hist_splitter_learns_the_missing_side_too(splitter):
    # the worked nodes above, with both splitters
    t = fastdt.fit(np.array([[NAN], [NAN], [1.0], [2.0], [3.0]]), [0, 0, 0, 1, 1],
                   splitter=splitter)
    assert t.threshold[0] == 1.5 and t.missing_go_left[0] == 1
    t = fastdt.fit(np.array([[1.0], [2.0], [3.0], [NAN], [NAN]]), [0, 0, 0, 1, 1],
                   splitter=splitter)
    assert t.threshold[0] == np.inf and t.missing_go_left[0] == 0


def test_infinity_is_still_rejected():
    with pytest.raises(ValueError, match="infinity"):
        fastdt.fit(np.array([[1.0], [np.inf]]), [0, 1])


@pytest.mark.parametrize("params", [
    dict(),
    dict(criterion="entropy"),
    dict(criterion="squared_error", regression=True),
    dict(criterion="poisson", regression=True),
    dict(splitter="random", random_state=0),
    dict(monotonic_cst=[1, 0, -1, 0], sample_weight=True),
    dict(max_features=2, random_state=3),
])
def test_scan_without_missing_steps_is_the_same_tree(params, monkeypatch):
    """X without missing values: the exact scans are compiled without their steps for
    missing values (``scan_features``' ``missing`` None, pruned by numba) and give the
    tree the general scans give, array for array."""
    from _same_tree import assert_same

    from fastdt import _exact, _exact_scan

    X, y, params = _complete_data(params, 300, 0)
    pruned = fastdt.fit(X, y, max_depth=6, **params)
    assert _scan_compiled_without_missing_steps(_exact_scan.scan_features)
    _as_if_missing(monkeypatch, _exact.ExactSplitter)
    assert_same(fastdt.fit(X, y, max_depth=6, **params), pruned)


@pytest.mark.parametrize("params", [
    dict(),
    dict(criterion="entropy"),
    dict(regression=True),
    dict(monotonic_cst=[1, 0, -1, 0], sample_weight=True),
    dict(max_features=2, random_state=3),
])
def test_hist_scan_without_missing_steps_is_the_same_tree(params, monkeypatch):
    """The same for the histogram scan (``scan_nodes``' ``missing`` None when the
    Dataset has no missing value)."""
    from _same_tree import assert_same

    from fastdt import _hist, _hist_scan

    X, y, params = _complete_data(dict(params, splitter="hist", max_bins=16), 400, 1)
    assert not fastdt.Dataset(X).has_missing
    pruned = fastdt.fit(X, y, max_depth=6, **params)
    assert _scan_compiled_without_missing_steps(_hist_scan.scan_nodes)
    _as_if_missing(monkeypatch, _hist.HistSplitter)
    assert_same(fastdt.fit(X, y, max_depth=6, **params), pruned)


def _complete_data(params, n, seed):
    """``(X, y, params)``: n rows of 4 features without missing values (one with ties),
    a classification or (``regression=True`` in ``params``) a regression target, and
    ``sample_weight=True`` made into weights."""
    params = dict(params)
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 1] = np.round(X[:, 1] * 2)  # ties
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0).astype(np.int64)
    if params.pop("regression", False):
        y = np.exp(X[:, 0]) + rng.random(n)
    if params.pop("sample_weight", False):
        params["sample_weight"] = rng.uniform(0.5, 2.0, n)
    return X, y, params


def _as_if_missing(monkeypatch, splitter_class):
    """Make ``splitter_class`` take the general path, as if X had missing values."""
    init = splitter_class.__init__

    def general(self, *args, **kwargs):
        init(self, *args, **dict(kwargs, has_missing=True))

    monkeypatch.setattr(splitter_class, "__init__", general)


def test_dataset_knows_whether_values_are_missing():
    import pickle

    X = np.arange(12.0).reshape(6, 2)
    assert not fastdt.Dataset(X).has_missing
    X[3, 1] = NAN
    ds = fastdt.Dataset(X)
    assert ds.has_missing and pickle.loads(pickle.dumps(ds)).has_missing
    assert not pickle.loads(pickle.dumps(fastdt.Dataset(X[:3]))).has_missing


def _scan_compiled_without_missing_steps(dispatcher):
    import inspect

    from numba import types

    at = list(inspect.signature(dispatcher.py_func).parameters).index("missing")
    return any(sig[at] == types.none for sig in dispatcher.signatures)

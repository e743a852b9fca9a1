"""Every bad-input path of the functional API, and what fit does to (and with) good input.

One test per bad input, each naming the exception type and a meaningful part of the
message. numba does not check bounds, so anything invalid must be stopped in
``fastdt._input`` before a kernel runs.
"""

import warnings

import numpy as np
import pytest

import fastdt
from fastdt import _columns
from fastdt._input import DataConversionWarning, NumericLookingColumnWarning, check_X

N, M = 60, 4


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(0).normal(size=(N, M))


@pytest.fixture(scope="module")
def y_clf(X):
    return (X[:, 0] + X[:, 1] > 0).astype(np.int64)


@pytest.fixture(scope="module")
def y_reg(X):
    return X[:, 0] * 2.0 - X[:, 2]


@pytest.fixture(scope="module")
def tree(X, y_clf):
    return fastdt.fit(X, y_clf, max_depth=3, random_state=0)


# ---------------------------------------------------------------------- X shape


def test_X_1d(y_clf):
    with pytest.raises(ValueError, match="Expected a 2D array, got a 1D array"):
        fastdt.fit(np.arange(N, dtype=float), y_clf)


def test_X_3d(y_clf):
    with pytest.raises(ValueError, match="Expected a 2D array, got a 3D array"):
        fastdt.fit(np.zeros((N, 2, 2)), y_clf)


def test_X_0d():
    with pytest.raises(ValueError, match="Expected a 2D array, got a 0D array"):
        fastdt.fit(np.float64(3.0), [1])


def test_X_none(y_clf):
    with pytest.raises(ValueError, match="X is None"):
        fastdt.fit(None, y_clf)


def test_X_no_rows():
    with pytest.raises(ValueError, match=r"0 sample\(s\)"):
        fastdt.fit(np.zeros((0, M)), np.zeros(0, dtype=int))


def test_X_no_features(y_clf):
    with pytest.raises(ValueError, match=r"0 feature\(s\)"):
        fastdt.fit(np.zeros((N, 0)), y_clf)


def test_X_y_length_mismatch(X, y_clf):
    with pytest.raises(ValueError, match=f"X has {N} samples but y has {N - 1}"):
        fastdt.fit(X, y_clf[:-1])


def test_X_y_length_mismatch_regression(X, y_reg):
    with pytest.raises(ValueError, match=f"X has {N} samples but y has {N + 1}"):
        fastdt.fit(X, np.append(y_reg, 0.0))


def test_y_2d_is_several_outputs_and_3d_is_refused(X):
    tree = fastdt.fit(X, np.zeros((N, 2), dtype=int))  # two outputs (tests/test_multi_output.py)
    assert tree.n_outputs == 2
    with pytest.raises(ValueError, match="y must be 1-D"):
        fastdt.fit(X, np.zeros((N, 2, 2), dtype=int))
    with pytest.raises(ValueError, match=f"X has {N} samples but y has {N + 1}"):
        fastdt.fit(X, np.zeros((N + 1, 2)))


def test_y_none(X):
    with pytest.raises(ValueError, match="y is None"):
        fastdt.fit(X, None, task="classification")


def test_sample_weight_length_mismatch(X, y_clf):
    with pytest.raises(ValueError, match=f"sample_weight has {N + 2} entries for {N} samples"):
        fastdt.fit(X, y_clf, sample_weight=np.ones(N + 2))


def test_sample_weight_2d(X, y_clf):
    with pytest.raises(ValueError, match="sample_weight must be 1-D"):
        fastdt.fit(X, y_clf, sample_weight=np.ones((N, 1)))


def test_sample_weight_non_numeric(X, y_clf):
    with pytest.raises(ValueError, match="sample_weight must be numeric"):
        fastdt.fit(X, y_clf, sample_weight=np.array(["a"] * N))


# ---------------------------------------------------------------------- non-finite values


def test_nan_in_y_regression(X, y_reg):
    y = y_reg.copy()
    y[5] = np.nan
    with pytest.raises(ValueError, match="Input y contains NaN"):
        fastdt.fit(X, y)


def test_nan_in_y_classification_float(X, y_clf):
    y = y_clf.astype(float)
    y[5] = np.nan
    with pytest.raises(ValueError, match="Input y contains NaN"):
        fastdt.fit(X, y, task="classification")


def test_nan_in_y_classification_object(X):
    y = np.array(["a", "b"] * (N // 2), dtype=object)
    y[3] = np.nan
    with pytest.raises(ValueError, match="missing labels"):
        fastdt.fit(X, y)


def test_none_in_y_classification(X):
    y = np.array(["a", "b"] * (N // 2), dtype=object)
    y[3] = None
    with pytest.raises(ValueError, match="missing labels"):
        fastdt.fit(X, y)


def test_inf_in_y_regression(X, y_reg):
    y = y_reg.copy()
    y[0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        fastdt.fit(X, y)


def test_inf_in_y_classification(X, y_clf):
    y = y_clf.astype(float)
    y[0] = -np.inf
    with pytest.raises(ValueError, match="infinity"):
        fastdt.fit(X, y, criterion="gini")


def test_inf_in_X_fit(X, y_clf):
    Xb = X.copy()
    Xb[2, 1] = np.inf
    with pytest.raises(ValueError, match="Input X contains infinity"):
        fastdt.fit(Xb, y_clf)


def test_inf_in_X_predict(tree, X):
    Xb = X.copy()
    Xb[2, 1] = -np.inf
    with pytest.raises(ValueError, match="Input X contains infinity"):
        fastdt.predict(tree, Xb)


def test_inf_in_float32_X(y_clf):
    Xb = np.ones((N, 2), dtype=np.float32)
    Xb[0, 0] = np.float32(np.inf)
    with pytest.raises(ValueError, match="infinity"):
        fastdt.fit(Xb, y_clf)


def test_nan_in_X_is_missing_not_an_error(X, y_clf, tree):
    Xb = X.copy()
    Xb[7, 3] = np.nan
    assert fastdt.fit(Xb, y_clf).node_count > 1
    for fn in (fastdt.predict, fastdt.predict_proba, fastdt.apply, fastdt.decision_path):
        fn(tree, Xb)  # routed by missing_go_left (test_missing.py)


# ---------------------------------------------------------------------- sample weights


def test_negative_sample_weight(X, y_clf):
    sw = np.ones(N)
    sw[4] = -0.5
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        fastdt.fit(X, y_clf, sample_weight=sw)


def test_nan_sample_weight(X, y_clf):
    sw = np.ones(N)
    sw[4] = np.nan
    with pytest.raises(ValueError, match="sample_weight contains NaN"):
        fastdt.fit(X, y_clf, sample_weight=sw)


def test_inf_sample_weight(X, y_reg):
    sw = np.ones(N)
    sw[4] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        fastdt.fit(X, y_reg, sample_weight=sw)


def test_all_zero_sample_weight(X, y_clf):
    with pytest.raises(ValueError, match="sample_weight sums to zero"):
        fastdt.fit(X, y_clf, sample_weight=np.zeros(N))


def test_scalar_zero_sample_weight(X, y_reg):
    with pytest.raises(ValueError, match="sample_weight sums to zero"):
        fastdt.fit(X, y_reg, sample_weight=0.0)


def test_class_weight_zeroing_every_sample(X, y_clf):
    with pytest.raises(ValueError, match="class_weight leaves every sample with zero weight"):
        fastdt.fit(X, y_clf, class_weight={0: 0.0, 1: 0.0})


# ---------------------------------------------------------------------- criterion / task


def test_unknown_criterion(X, y_clf):
    with pytest.raises(ValueError, match="criterion='bogus' is invalid"):
        fastdt.fit(X, y_clf, criterion="bogus")


def test_regression_criterion_for_classification_task(X, y_clf):
    with pytest.raises(ValueError, match="does not apply to task='classification'"):
        fastdt.fit(X, y_clf, task="classification", criterion="squared_error")


def test_classification_criterion_for_regression_task(X, y_reg):
    with pytest.raises(ValueError, match="does not apply to task='regression'"):
        fastdt.fit(X, y_reg, task="regression", criterion="gini")


def test_unknown_task(X, y_clf):
    with pytest.raises(ValueError, match="task='clustering' is invalid"):
        fastdt.fit(X, y_clf, task="clustering")


def test_classification_criterion_with_continuous_y(X, y_reg):
    # the criterion implies the task; a continuous y cannot be classified
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        fastdt.fit(X, y_reg, criterion="entropy")


def test_continuous_y_with_classification_task(X, y_reg):
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        fastdt.fit(X, y_reg, task="classification")


def test_class_weight_on_regression(X, y_reg):
    with pytest.raises(ValueError, match="class_weight applies to classification only"):
        fastdt.fit(X, y_reg, class_weight="balanced")


def test_poisson_negative_y(X, y_reg):
    with pytest.raises(ValueError, match="criterion='poisson' needs y >= 0"):
        fastdt.fit(X, y_reg, criterion="poisson")


def test_poisson_all_zero_y(X):
    with pytest.raises(ValueError, match="positive"):
        fastdt.fit(X, np.zeros(N), criterion="poisson")


def test_regression_y_strings(X):
    with pytest.raises(ValueError, match="regression target must be numeric"):
        fastdt.fit(X, np.array(["a"] * N), task="regression")


def test_y_mixed_string_and_int_labels(X):
    y = np.array(["a", 1] * (N // 2), dtype=object)
    with pytest.raises(ValueError, match="mixes string and non-string labels"):
        fastdt.fit(X, y)


def test_complex_y(X):
    with pytest.raises(ValueError, match="Complex data not supported"):
        fastdt.fit(X, np.ones(N, dtype=complex), task="regression")


# ---------------------------------------------------------------------- parameters


def test_unknown_parameter_name(X, y_clf):
    with pytest.raises(TypeError, match="unknown parameter.*'max_dpeth'"):
        fastdt.fit(X, y_clf, max_dpeth=3)


def test_unknown_parameter_name(X, y_clf):
    with pytest.raises(TypeError, match="unknown parameter.*'monotone_constraints'"):
        fastdt.fit(X, y_clf, monotone_constraints=[0, 0])


def test_unknown_splitter_is_rejected_by_name(X, y_clf):
    with pytest.raises(ValueError, match="splitter='Random' is invalid: splitter must be "
                                         "None, 'best'"):
        fastdt.fit(X, y_clf, splitter="Random")


@pytest.mark.parametrize("name, value, match", [
    ("max_depth", 0, "max_depth=0 is invalid: max_depth must be None or an int >= 1"),
    ("max_depth", -3, "max_depth=-3 is invalid"),
    ("max_depth", 2.0, r"max_depth=2\.0 is invalid"),
    ("max_depth", True, "max_depth=True is invalid"),
    ("min_samples_split", 1, "min_samples_split=1 is invalid"),
    ("min_samples_split", 0.0, r"min_samples_split=0\.0 is invalid"),
    ("min_samples_split", 1.5, r"min_samples_split=1\.5 is invalid"),
    ("min_samples_leaf", 0, "min_samples_leaf=0 is invalid"),
    ("min_samples_leaf", 1.0, r"min_samples_leaf=1\.0 is invalid: .*float in \(0, 1\)"),
    ("min_samples_leaf", -0.1, r"min_samples_leaf=-0\.1 is invalid"),
    ("min_weight_fraction_leaf", 0.6, r"min_weight_fraction_leaf=0\.6 is invalid"),
    ("min_weight_fraction_leaf", -0.1, r"min_weight_fraction_leaf=-0\.1 is invalid"),
    ("min_weight_fraction_leaf", float("nan"), "min_weight_fraction_leaf=nan is invalid"),
    ("max_features", 0, "max_features=0 is invalid"),
    ("max_features", 0.0, r"max_features=0\.0 is invalid"),
    ("max_features", 1.5, r"max_features=1\.5 is invalid"),
    ("max_features", "auto", "max_features='auto' is invalid"),
    ("max_leaf_nodes", 1, "max_leaf_nodes=1 is invalid: max_leaf_nodes must be None or an int >= 2"),
    ("max_leaf_nodes", 0, "max_leaf_nodes=0 is invalid"),
    ("min_impurity_decrease", -1, "min_impurity_decrease=-1 is invalid"),
    ("min_impurity_decrease", float("nan"), "min_impurity_decrease=nan is invalid"),
    ("min_impurity_decrease", float("inf"), "min_impurity_decrease=inf is invalid"),
    ("class_weight", "bogus", "class_weight='bogus' is invalid"),
    ("class_weight", [1, 2], r"class_weight=\[1, 2\] is invalid"),
    ("random_state", "seed", "random_state='seed' is invalid"),
    ("random_state", 1.5, r"random_state=1\.5 is invalid"),
])
def test_out_of_range_parameter(X, y_clf, name, value, match):
    with pytest.raises(ValueError, match=match):
        fastdt.fit(X, y_clf, **{name: value})


def test_max_features_larger_than_n_features(X, y_clf):
    with pytest.raises(ValueError, match=f"max_features={M + 1} is larger than the number of features"):
        fastdt.fit(X, y_clf, max_features=M + 1)


def test_max_features_equal_n_features_is_fine(X, y_clf):
    fastdt.fit(X, y_clf, max_features=M, random_state=0)


def test_class_weight_unknown_label(X, y_clf):
    with pytest.raises(ValueError, match="class_weight names class 7, which is not in y"):
        fastdt.fit(X, y_clf, class_weight={0: 1.0, 7: 2.0})


def test_class_weight_unknown_string_label(X):
    y = np.array(["cat", "dog"] * (N // 2))
    with pytest.raises(ValueError, match="class_weight names class 'cow'"):
        fastdt.fit(X, y, class_weight={"cow": 2.0})


@pytest.mark.parametrize("weight", [-1.0, float("nan"), "heavy"])
def test_class_weight_bad_weight(X, y_clf, weight):
    with pytest.raises(ValueError, match=r"class_weight\[1\]=.* must be a number >= 0"):
        fastdt.fit(X, y_clf, class_weight={1: weight})


# ---------------------------------------------------------------------- X types


def test_dataframe_string_and_category_columns_are_categorical(y_clf):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": np.arange(N, dtype=float), "colour": ["red", "blue"] * (N // 2),
                       "kind": pd.Categorical(["x", "y"] * (N // 2))})
    tree = fastdt.fit(df, y_clf)
    assert tree.categories == [None, ["blue", "red"], ["x", "y"]]


def test_dataframe_datetime_column(y_clf):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": np.arange(N, dtype=float),
                       "when": pd.date_range("2020-01-01", periods=N)})
    with pytest.raises(TypeError, match="column 'when'"):
        fastdt.fit(df, y_clf)


def test_object_array_with_strings(y_clf):
    Xo = np.array([["1.5", "abc"]] * N, dtype=object)
    with pytest.raises(TypeError, match="X must be numeric"):
        fastdt.fit(Xo, y_clf)


def test_string_array(y_clf):
    Xs = np.array([["x", "y"]] * N)
    with pytest.raises(TypeError, match="X must be numeric"):
        fastdt.fit(Xs, y_clf)


def test_object_array_of_numbers_is_accepted(X, y_clf):
    t = fastdt.fit(X.astype(object), y_clf, random_state=0)
    assert t == fastdt.fit(X, y_clf, random_state=0)


def test_complex_X(X, y_clf):
    with pytest.raises(ValueError, match="Complex data not supported"):
        fastdt.fit(X.astype(complex), y_clf)


def test_datetime_X(y_clf):
    Xd = np.array(["2020-01-01"] * N * 2, dtype="datetime64[D]").reshape(N, 2)
    with pytest.raises(TypeError, match="unsupported dtype"):
        fastdt.fit(Xd, y_clf)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_X_fit(X, y_clf, fmt):
    """Fit takes sparse X (tests/test_sparse_fit.py): the dense copy's tree."""
    sp = pytest.importorskip("scipy.sparse")
    tree = fastdt.fit(sp.csr_matrix(X).asformat(fmt), y_clf)
    np.testing.assert_array_equal(tree.threshold, fastdt.fit(X, y_clf).threshold)


def test_sparse_X_predict(tree, X):
    """Prediction takes sparse X (tests/test_sparse_predict.py)."""
    sp = pytest.importorskip("scipy.sparse")
    np.testing.assert_array_equal(fastdt.predict(tree, sp.csr_array(X)), fastdt.predict(tree, X))


@pytest.mark.parametrize("fn", [fastdt.predict, fastdt.predict_proba, fastdt.apply,
                                fastdt.decision_path])
@pytest.mark.parametrize("m", [M - 1, M + 1])
def test_predict_wrong_number_of_features(tree, X, fn, m):
    Xb = np.zeros((5, m))
    with pytest.raises(ValueError, match=f"X has {m} features, but the tree is expecting {M} features"):
        fn(tree, Xb)


def test_predict_1d_row(tree, X):
    with pytest.raises(ValueError, match="[Rr]eshape your data"):
        fastdt.predict(tree, X[0])


@pytest.mark.parametrize("fn", [fastdt.predict, fastdt.predict_proba, fastdt.apply,
                                fastdt.decision_path])
@pytest.mark.parametrize("not_a_tree", ["tree", None, {"left": [1]}, np.zeros(3)])
def test_predict_on_something_that_is_not_a_tree(X, fn, not_a_tree):
    with pytest.raises(TypeError, match="expected a fastdt Tree"):
        fn(not_a_tree, X)


def test_predict_proba_on_regression_tree(X, y_reg):
    t = fastdt.fit(X, y_reg, max_depth=2)
    with pytest.raises(ValueError, match="predict_proba needs a classification tree"):
        fastdt.predict_proba(t, X)


def test_dataframe_feature_names_mismatch_at_predict(X, y_clf):
    pd = pytest.importorskip("pandas")
    cols = [f"f{i}" for i in range(M)]
    t = fastdt.fit(pd.DataFrame(X, columns=cols), y_clf, max_depth=2)
    renamed = pd.DataFrame(X, columns=cols[:-1] + ["other"])
    with pytest.raises(ValueError, match="Feature names unseen at fit time"):
        fastdt.predict(t, renamed)
    reordered = pd.DataFrame(X[:, ::-1], columns=cols[::-1])
    with pytest.raises(ValueError, match="same order"):
        fastdt.predict(t, reordered)


# ---------------------------------------------------------------------- good input, untouched


def _copies(*arrays):
    return [(a, a.copy(order="K"), a.flags.writeable, a.flags.c_contiguous,
             a.flags.f_contiguous, a.dtype) for a in arrays]


def _assert_untouched(records):
    for a, before, writeable, c, f, dtype in records:
        assert a.dtype == dtype
        assert a.flags.writeable == writeable
        assert a.flags.c_contiguous == c and a.flags.f_contiguous == f
        np.testing.assert_array_equal(a, before)


@pytest.mark.parametrize("layout", ["float64", "float32", "int64", "int32", "float64_F",
                                    "float32_F", "float64_view"])
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_fit_does_not_mutate_inputs(layout, task):
    rng = np.random.default_rng(3)
    base = rng.normal(size=(80, 5)) * 10
    if layout.startswith("float64"):
        Xi = base.copy()
    elif layout.startswith("float32"):
        Xi = base.astype(np.float32)
    else:
        Xi = np.round(base).astype(layout)
    if layout.endswith("_F"):
        Xi = np.asfortranarray(Xi)
    if layout.endswith("_view"):
        Xi = np.random.default_rng(4).normal(size=(160, 10))[::2, ::2]  # strided view
        assert not Xi.flags.c_contiguous
    if task == "classification":
        y = np.array([2, 5, 9])[rng.integers(0, 3, size=80)]
    else:
        y = rng.normal(size=80)
    sw = rng.uniform(0.5, 2.0, size=80)
    records = _copies(Xi, y, sw)
    t = fastdt.fit(Xi, y, sample_weight=sw, task=task, max_depth=4, random_state=0)
    _assert_untouched(records)
    for fn in (fastdt.predict, fastdt.apply):
        fn(t, Xi)
    fastdt.decision_path(t, Xi)
    _assert_untouched(records)


def test_fit_does_not_mutate_readonly_inputs():
    rng = np.random.default_rng(3)
    Xi = rng.normal(size=(50, 3))
    y = rng.normal(size=50)
    sw = np.ones(50)
    for a in (Xi, y, sw):
        a.flags.writeable = False
    t = fastdt.fit(Xi, y, sample_weight=sw, max_depth=3)
    fastdt.predict(t, Xi)


def test_fit_does_not_mutate_dataframe():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    df = pd.DataFrame(rng.normal(size=(50, 3)), columns=["a", "b", "c"])
    y = pd.Series(rng.integers(0, 2, size=50))
    df_before, y_before = df.copy(deep=True), y.copy(deep=True)
    fastdt.fit(df, y, max_depth=3)
    pd.testing.assert_frame_equal(df, df_before)
    pd.testing.assert_series_equal(y, y_before)


# ---------------------------------------------------------------------- dtypes


def test_float32_X_stays_float32():
    Xf = np.random.default_rng(0).normal(size=(10, 3)).astype(np.float32)
    assert check_X(Xf).dtype == np.float32
    assert check_X(np.asfortranarray(Xf)).dtype == np.float32
    assert check_X(Xf.astype(np.float16)).dtype == np.float32
    assert check_X(Xf.astype(np.float64)).dtype == np.float64
    assert check_X(np.arange(6).reshape(3, 2)).dtype == np.float64
    assert check_X(np.ones((3, 2), dtype=bool)).dtype == np.float64


def _node_members(tree, X):
    indptr, indices = fastdt.decision_path(tree, X)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(indptr))
    return {node: rows[indices == node] for node in np.flatnonzero(tree.left != fastdt.LEAF)}


def test_float32_thresholds_are_midpoints_of_float32_values():
    rng = np.random.default_rng(11)
    X32 = (rng.normal(size=(400, 3)) * 1e3).astype(np.float32)
    y = X32[:, 0].astype(np.float64) + 0.01 * X32[:, 1] + rng.normal(size=400)
    t = fastdt.fit(X32, y, max_depth=6, random_state=0)
    internal = np.flatnonzero(t.left != fastdt.LEAF)
    assert internal.size > 10
    thr = t.threshold[internal]
    # float64 midpoints of float32 values are mostly not float32 numbers
    assert np.any(thr != thr.astype(np.float32).astype(np.float64))
    for node, rows in _node_members(t, X32).items():
        f = t.feature[node]
        v = X32[rows, f]
        lo = v[v <= t.threshold[node]].max()
        hi = v[v > t.threshold[node]].min()
        mid = np.float64(lo) / 2.0 + np.float64(hi) / 2.0
        expected = lo if mid >= hi else mid
        assert t.threshold[node] == expected, (node, lo, hi, t.threshold[node])
    # the float32 training data is routed exactly as in fit
    leaves = fastdt.apply(t, X32)
    counts = np.bincount(leaves, minlength=t.node_count)
    leaf = t.left == fastdt.LEAF
    assert np.array_equal(counts[leaf], t.n_node_samples[leaf])
    # and a float64 copy of the same values is routed the same way
    np.testing.assert_array_equal(fastdt.apply(t, X32.astype(np.float64)), leaves)


def test_int_X_accepted_and_equal_to_float64(y_clf):
    Xi = np.random.default_rng(2).integers(-5, 5, size=(N, M))
    t_int = fastdt.fit(Xi, y_clf, random_state=0)
    t_flt = fastdt.fit(Xi.astype(np.float64), y_clf, random_state=0)
    assert t_int == t_flt
    np.testing.assert_array_equal(fastdt.predict(t_int, Xi), fastdt.predict(t_flt, Xi))
    # thresholds are midpoints of two integers
    thr = t_int.threshold[t_int.left != fastdt.LEAF]
    np.testing.assert_array_equal(thr * 2, np.round(thr * 2))


def test_bool_X_accepted(y_clf):
    Xb = np.random.default_rng(2).integers(0, 2, size=(N, M)).astype(bool)
    t = fastdt.fit(Xb, y_clf, random_state=0)
    assert set(t.threshold[t.left != fastdt.LEAF]) <= {0.5}
    fastdt.predict(t, Xb)


def test_column_vector_y_warns_and_fits(X, y_clf, y_reg):
    for y in (y_clf, y_reg):
        with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
            t = fastdt.fit(X, y.reshape(-1, 1), random_state=0, max_depth=3)
        assert t == fastdt.fit(X, y, random_state=0, max_depth=3)


def test_1d_y_does_not_warn(X, y_clf):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fastdt.fit(X, y_clf, random_state=0, max_depth=3)


def test_list_inputs_accepted(X, y_clf):
    t = fastdt.fit(X.tolist(), y_clf.tolist(), sample_weight=[1.0] * N, random_state=0)
    assert t == fastdt.fit(X, y_clf, random_state=0)


# ------------------------------------------------ text columns that look numeric


def _ages(n=200, seed=0):
    """A numeric column as pandas reads it from a CSV with one stray string: text."""
    pd = pytest.importorskip("pandas")
    ages = np.random.default_rng(seed).integers(18, 80, size=n)
    col = pd.Series(ages.astype(str), dtype=object)
    col[7] = "age"
    return col, (ages > 45).astype(np.int64)


def _numeric_looking_warnings(record):
    return [w for w in record if issubclass(w.category, NumericLookingColumnWarning)]


def test_numeric_looking_column_warns_once_and_names_it():
    pd = pytest.importorskip("pandas")
    age, y = _ages()
    df = pd.DataFrame({"x": np.arange(age.shape[0], dtype=float), "age": age,
                       "colour": ["red", "blue"] * (age.shape[0] // 2)})
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        tree = fastdt.fit(df, y, max_depth=3, random_state=0)
    found = _numeric_looking_warnings(record)
    assert len(found) == 1
    text = str(found[0].message)
    n_levels = len(set(age))
    assert f"column 'age' (dtype object, {n_levels} categories): 1 of 200 values is not a " \
           "number: 'age'" in text
    assert "colour" not in text
    assert "pd.to_numeric(X['age'], errors=\"coerce\")" in text
    assert "categorical_features=['age']" in text
    assert found[0].filename == __file__  # points at the user's call
    # nothing else changes: the column is still categorical
    assert len(tree.categories[1]) == n_levels and "age" in tree.categories[1]
    # predicting does not warn
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fastdt.predict(tree, df)


def test_numeric_looking_column_is_silenced_by_categorical_features():
    pd = pytest.importorskip("pandas")
    age, y = _ages()
    df = pd.DataFrame({"x": np.arange(age.shape[0], dtype=float), "age": age})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        by_name = fastdt.fit(df, y, max_depth=3, random_state=0, categorical_features=["age"])
        by_index = fastdt.fit(df, y, max_depth=3, random_state=0, categorical_features=[1])
    assert by_name.categories == by_index.categories and "age" in by_name.categories[1]


@pytest.mark.parametrize("kind", ["category", "real text", "few numbers", "bool"])
def test_no_numeric_looking_warning(kind):
    pd = pytest.importorskip("pandas")
    age, y = _ages()
    n = age.shape[0]
    column = {
        "category": age.astype("category"),  # categorical on purpose
        "real text": pd.Series([f"name{i % 30}" for i in range(n)]),
        "few numbers": pd.Series([str(i % 5) for i in range(n)]),  # codes "0".."4"
        "bool": pd.Series(np.arange(n) % 3 == 0),
    }[kind]
    df = pd.DataFrame({"x": np.arange(n, dtype=float), "c": column})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fastdt.fit(df, y, max_depth=3, random_state=0)


def test_numeric_looking_columns_share_one_warning_from_an_estimator():
    pd = pytest.importorskip("pandas")
    age, y = _ages()
    hours = pd.Series((np.arange(age.shape[0]) % 40 + 20).astype(str), dtype="string")
    hours[[3, 4]] = ["?", "n/a"]
    codes = pd.Series(np.arange(age.shape[0]) % 50, dtype=object)  # Python ints, no stray
    df = pd.DataFrame({"age": age, "hours": hours, "codes": codes})
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        fastdt.DecisionTreeClassifier(max_depth=2).fit(df, y)
    found = _numeric_looking_warnings(record)
    assert len(found) == 1 and found[0].filename == __file__
    lines = str(found[0].message).splitlines()
    assert lines[0].startswith("3 columns of an object or string dtype hold numbers")
    assert lines[1].startswith("  column 'age' (dtype object, ")
    assert lines[2] == ("  column 'hours' (dtype string, 42 categories): 2 of 200 values are "
                        "not numbers: '?', 'n/a'")
    assert lines[3] == "  column 'codes' (dtype object, 50 categories): all 200 values are numbers"
    assert "categorical_features=['age', 'hours', 'codes']" in lines[4]


def test_numeric_looking_column_without_names_is_named_by_index():
    pd = pytest.importorskip("pandas")
    age, y = _ages()
    df = pd.DataFrame({0: np.arange(age.shape[0], dtype=float), 1: age})
    with pytest.warns(NumericLookingColumnWarning, match=r"categorical_features=\[1\]"):
        fastdt.fit(df, y, max_depth=2)


def _looks_numeric(values):
    """_numeric_looking on a column of these values (None: missing)."""
    pd = pytest.importorskip("pandas")
    codes, levels = _columns._levels_column("c", pd.Series(values, dtype=object))
    return _columns._numeric_looking(levels, codes)


def _numbers(k, repeat=20):
    return [str(i) for i in range(k)] * repeat


@pytest.mark.parametrize("values,expected", [
    # at least 10 distinct numbers
    (_numbers(10) + ["x"], (11, 201, 1, 1, ["x"])),
    (_numbers(9) + ["x"], None),
    (_numbers(9), None),
    (_numbers(10), (10, 200, 0, 0, [])),
    # at most 5 distinct values that are not numbers, and at most 10% of them
    (_numbers(45) + ["a", "b", "c", "d", "e"], (50, 905, 5, 5, ["a", "b", "c"])),
    (_numbers(60) + ["a", "b", "c", "d", "e", "f"], None),
    (_numbers(17) + ["a", "b"], None),
    (_numbers(18) + ["a", "b"], (20, 362, 2, 2, ["a", "b"])),
    # at most 5% of the non-missing rows not numbers (missing values do not count)
    (_numbers(10, 19) + ["x"] * 10, (11, 200, 10, 1, ["x"])),
    (_numbers(10, 19) + ["x"] * 11, None),
    (_numbers(10, 19) + ["x"] * 10 + [None] * 50, (11, 200, 10, 1, ["x"])),
    # the most frequent values first as examples
    (_numbers(50) + ["b", "a", "a", "c", "d", "d", "d"], (54, 1007, 7, 4, ["d", "a", "b"])),
])
def test_numeric_looking_thresholds(values, expected):
    assert _looks_numeric(values) == expected


@pytest.mark.parametrize("text,number", [
    ("39", True), (" 39", True), ("39 ", True), ("-1.5e3", True), ("+.5", True), ("5.", True),
    ("nan", False), ("NaN", False), ("inf", False), ("-Infinity", False), ("1e999", False),
    ("", False), (" ", False), ("1,000", False), ("1_000", False), ("0x10", False),
    ("\u0661\u0662", False), ("age", False), ("True", False),
    (39, True), (2.5, True), (float("nan"), False), (float("inf"), False), (True, False),
])
def test_what_is_a_number(text, number):
    assert _columns._is_number(text) is number
    if isinstance(text, str):  # as pd.to_numeric(errors="coerce") sees it
        pd = pytest.importorskip("pandas")
        parsed = pd.to_numeric(pd.Series([text], dtype=object), errors="coerce")[0]
        assert bool(np.isfinite(parsed)) is number


def test_zero_dim_sample_weight_is_a_type_error(X, y_clf):
    """As scikit-learn: a 0-d array is not a scalar weight (a Python or numpy number is)."""
    with pytest.raises(TypeError, match="at least 1 dimension"):
        fastdt.fit(X, y_clf, sample_weight=np.array(0))
    tree = fastdt.fit(X, y_clf, sample_weight=np.float64(2.0))
    assert tree.weighted_n_node_samples[0] == 2.0 * N


def test_sparse_y_is_a_type_error(X, y_clf):
    sparse = pytest.importorskip("scipy.sparse")
    for y in (sparse.csr_matrix(y_clf.reshape(-1, 1)), sparse.csr_array(y_clf.reshape(1, -1))):
        with pytest.raises(TypeError, match="Sparse data was passed for y"):
            fastdt.fit(X, y)
    with pytest.raises(TypeError, match="Sparse data was passed for sample_weight"):
        fastdt.fit(X, y_clf, sample_weight=sparse.csr_matrix(np.ones((1, N))))


@pytest.mark.parametrize("max_leaf_nodes", [2**40, 2**62, 2**65])
def test_huge_max_leaf_nodes_grows_what_the_data_allows(max_leaf_nodes):
    """The node tables are sized by what the rows can produce, not by max_leaf_nodes."""
    rng = np.random.default_rng(0)
    X10 = rng.normal(size=(10, 3))
    y10 = rng.integers(0, 2, 10)
    tree = fastdt.fit(X10, y10, max_leaf_nodes=max_leaf_nodes)
    ref = fastdt.fit(X10, y10, max_leaf_nodes=10)
    for name in ("feature", "threshold", "left", "right", "value", "n_node_samples"):
        np.testing.assert_array_equal(getattr(tree, name), getattr(ref, name))
    assert np.all(fastdt.predict(tree, X10) == y10)

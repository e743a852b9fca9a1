"""The raw-table loaders of ``fastdt.datasets`` (skipped without the shared datasets)."""

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

from fastdt.datasets import load_adult, load_adult_frame, load_titanic_frame  # noqa: E402


def _check_split(X_train, y_train, X_test, y_test, n_features):
    assert isinstance(X_train, pd.DataFrame) and isinstance(X_test, pd.DataFrame)
    assert X_train.shape[1] == X_test.shape[1] == n_features
    assert list(X_train.columns) == list(X_test.columns)
    assert (X_train.dtypes == X_test.dtypes).all()  # one category dtype for both splits
    for y, X in ((y_train, X_train), (y_test, X_test)):
        assert y.dtype == np.int64 and y.shape == (X.shape[0],)
        assert set(np.unique(y)) == {0, 1}


def test_adult_frame(datasets_dir):
    X_train, y_train, X_test, y_test = load_adult_frame(datasets_dir)
    _check_split(X_train, y_train, X_test, y_test, 14)
    assert X_train.shape[0] == 32_561 and X_test.shape[0] == 16_281
    assert "income" not in X_train.columns
    cats = [c for c in X_train.columns if isinstance(X_train[c].dtype, pd.CategoricalDtype)]
    assert len(cats) == 8
    assert all(pd.api.types.is_integer_dtype(X_train[c]) for c in X_train.columns if c not in cats)
    for X in (X_train, X_test):
        missing = X.isna().sum()
        assert set(missing[missing > 0].index) == {"workclass", "occupation", "native-country"}
        assert not any("?" in X[c].cat.categories for c in cats)
    assert 0.2 < y_train.mean() < 0.3 and 0.2 < y_test.mean() < 0.3
    # the same rows and labels as the ordinal-encoded loader
    Xo, yo, _, yo_test = load_adult(datasets_dir)
    assert np.array_equal(yo, y_train) and np.array_equal(yo_test, y_test)
    assert np.array_equal(Xo[:, 0], X_train["age"].to_numpy())


def test_titanic_frame(datasets_dir):
    X_train, y_train, X_test, y_test = load_titanic_frame(datasets_dir)
    _check_split(X_train, y_train, X_test, y_test, 13)
    assert X_train.shape[0] + X_test.shape[0] == 891
    assert X_test.shape[0] == pytest.approx(0.25 * 891, abs=1)
    assert "alive" not in X_train.columns and "survived" not in X_train.columns
    assert isinstance(X_train["sex"].dtype, pd.CategoricalDtype)
    assert X_train["alone"].dtype == bool
    assert X_train["age"].isna().any() and X_train["deck"].isna().any()
    # stratified: both splits keep the survival rate
    assert abs(y_train.mean() - y_test.mean()) < 0.01
    # seeded: the same split again, another one for another seed
    again = load_titanic_frame(datasets_dir)
    assert X_train.equals(again[0]) and np.array_equal(y_test, again[3])
    other = load_titanic_frame(datasets_dir, random_state=1)
    assert not X_train.equals(other[0])
    with pytest.raises(ValueError, match="test_size"):
        load_titanic_frame(datasets_dir, test_size=1.0)

"""Prediction on scipy.sparse X (CSR, CSC, arrays and matrices), one dense row block at
a time: the same answers as on the dense copy. (Fitting on sparse X is not supported
yet and says so.)"""

import numpy as np
import pytest

import fastdt
from fastdt import _predict

sparse = pytest.importorskip("scipy.sparse")


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 6))
    X[rng.random(X.shape) < 0.6] = 0.0  # mostly zeros, stored sparsely
    X[rng.random(X.shape) < 0.05] = np.nan  # stored NaN: missing
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("kind", ["csr_matrix", "csc_matrix", "csr_array", "coo_array"])
def test_same_answers_as_dense(data, kind, monkeypatch):
    X, y = data
    tree = fastdt.fit(X, y, max_depth=6)
    reg = fastdt.fit(X, np.arange(400.0) + np.nan_to_num(X[:, 2]), max_depth=5)
    Xs = getattr(sparse, kind)(X)
    monkeypatch.setattr(_predict, "SPARSE_BLOCK_VALUES", 6 * 37)  # blocks of 37 rows
    np.testing.assert_array_equal(fastdt.predict(tree, Xs), fastdt.predict(tree, X))
    np.testing.assert_array_equal(fastdt.predict_proba(tree, Xs), fastdt.predict_proba(tree, X))
    np.testing.assert_array_equal(fastdt.apply(tree, Xs), fastdt.apply(tree, X))
    np.testing.assert_array_equal(fastdt.predict(reg, Xs), fastdt.predict(reg, X))
    for a, b in zip(fastdt.decision_path(tree, Xs), fastdt.decision_path(tree, X)):
        np.testing.assert_array_equal(a, b)


def test_estimators_and_several_outputs(data):
    X, y = data
    Y = np.column_stack([y, (np.nan_to_num(X[:, 3]) > 0).astype(int)])
    clf = fastdt.DecisionTreeClassifier(max_depth=5).fit(X, Y)
    Xs = sparse.csr_matrix(X)
    np.testing.assert_array_equal(clf.predict(Xs), clf.predict(X))
    for p, q in zip(clf.predict_proba(Xs), clf.predict_proba(X)):
        np.testing.assert_array_equal(p, q)
    assert (clf.decision_path(Xs) != clf.decision_path(X)).nnz == 0


def test_float32_sparse_keeps_its_precision(data):
    X, y = data
    X32 = X.astype(np.float32)
    tree = fastdt.fit(X32, y, max_depth=6)
    np.testing.assert_array_equal(fastdt.predict(tree, sparse.csr_matrix(X32)),
                                  fastdt.predict(tree, X32))


def test_wrong_width_is_refused(data):
    X, y = data
    tree = fastdt.fit(X, y, max_depth=3)
    with pytest.raises(ValueError, match="features"):
        fastdt.predict(tree, sparse.csr_matrix(X[:, :5]))

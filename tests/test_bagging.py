"""Bagging estimators: a forest with the tree estimator's parameters; hard voting."""

import warnings

import numpy as np
import pytest

import fastdt
from fastdt import BaggingClassifier, BaggingRegressor, fit_forest
from fastdt.tree import FIELDS

from _same_tree import assert_same  # noqa: E402

sklearn = pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=300) > 0).astype(int)
    yr = 2 * X[:, 0] - X[:, 3] + rng.normal(size=300)
    return X, y, yr


def _same_arrays(a, b):
    for name in (*FIELDS, "offsets"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_bagging_is_the_forest_of_the_tree_parameters(data):
    """Bagging a tree estimator = fit_forest with its parameters (every feature per
    node unless the tree samples), tree_features = max_features, max_samples as given."""
    X, y, yr = data
    bag = BaggingClassifier(fastdt.DecisionTreeClassifier(max_depth=4, criterion="entropy"),
                            n_estimators=6, max_samples=0.8, max_features=4,
                            random_state=3).fit(X, y)
    _same_arrays(bag.forest_, fit_forest(X, y, n_estimators=6, max_samples=0.8,
                                         tree_features=4, max_features=None, max_depth=4,
                                         criterion="entropy", random_state=3))
    assert [f.shape[0] for f in bag.estimators_features_] == [4] * 6
    for feats, tree in zip(bag.estimators_features_, bag.estimators_):
        used = tree.feature[tree.left != -1]
        assert np.isin(used, feats).all()
    reg = BaggingRegressor(fastdt.ExtraTreeRegressor(min_samples_leaf=3), n_estimators=4,
                           random_state=1).fit(X, yr)
    _same_arrays(reg.forest_, fit_forest(X, yr, n_estimators=4, splitter="random",
                                         max_features=1.0, min_samples_leaf=3,
                                         random_state=1))


def test_pasting_draws_rows_without_replacement(data):
    X, y, _ = data
    bag = BaggingClassifier(n_estimators=3, bootstrap=False, max_samples=100,
                            random_state=0).fit(X, y)
    assert bag.forest_.params["replace"] is False
    assert all(t.weighted_n_node_samples[0] == 100 == t.n_node_samples[0]
               for t in bag.estimators_)
    every = BaggingClassifier(n_estimators=2, bootstrap=False, random_state=0).fit(X, y)
    for t in every.estimators_:  # every row, once: both trees are the plain tree
        assert_same(t, fastdt.fit(X, y))


def test_hard_voting_is_the_majority_with_random_ties(data):
    X, y, _ = data
    bag = BaggingClassifier(fastdt.DecisionTreeClassifier(max_depth=2), n_estimators=4,
                            random_state=0, voting="hard").fit(X, y)
    votes = np.zeros((X.shape[0], 2), dtype=int)
    for t in bag.estimators_:
        votes[np.arange(X.shape[0]), fastdt.predict_proba(t, X).argmax(1)] += 1
    np.testing.assert_array_equal(bag.predict_proba(X), votes / 4)
    pred = bag.predict(X)
    clear = votes[:, 0] != votes[:, 1]
    np.testing.assert_array_equal(pred[clear], votes[clear].argmax(1))
    tie = ~clear
    assert tie.sum() > 20  # four shallow trees: many 2-2 ties, broken both ways
    assert 0 < pred[tie].mean() < 1
    # a row's answer does not depend on the rows predicted with it
    np.testing.assert_array_equal(bag.predict(X[::-1]), pred[::-1])
    np.testing.assert_array_equal(bag.predict(X[tie][:3]), pred[tie][:3])
    # labels of any type
    labels = np.array(["no", "yes"])[y]
    assert set(BaggingClassifier(n_estimators=3, voting="hard", random_state=0)
               .fit(X, labels).predict(X)) <= {"no", "yes"}


@pytest.mark.parametrize("kwargs, error, match", [
    ({"bootstrap_features": True}, ValueError, "bootstrap_features"),
    ({"voting": "mean"}, ValueError, "voting"),
    ({"oob_score": True, "bootstrap": False}, ValueError, "Out of bag"),
    ({"estimator": "tree"}, TypeError, "fastdt trees"),
    ({"max_features": 0}, ValueError, "tree_features"),
    ({"max_samples": 2.0}, ValueError, "max_samples"),
], ids=str)
def test_parameters_refused(data, kwargs, error, match):
    X, y, _ = data
    with pytest.raises(error, match=match):
        BaggingClassifier(n_estimators=2, **kwargs).fit(X, y)


def test_estimator_of_the_other_task_refused(data):
    X, y, yr = data
    with pytest.raises(ValueError, match="classification tree"):
        BaggingClassifier(fastdt.DecisionTreeRegressor()).fit(X, y)
    from sklearn.tree import DecisionTreeRegressor

    with pytest.raises(TypeError, match="fastdt trees"):
        BaggingRegressor(DecisionTreeRegressor()).fit(X, yr)


@pytest.mark.parametrize("name", ["breast_cancer", "wine", "diabetes"])
def test_accuracy_like_scikit_learn(name):
    """Test accuracy / R^2 within noise of scikit-learn's bagging of its trees."""
    from sklearn import ensemble

    from _sklearn_compare import assert_scores_like

    kind = "Classifier" if name != "diabetes" else "Regressor"
    assert_scores_like(name, getattr(fastdt, f"Bagging{kind}"),
                       getattr(ensemble, f"Bagging{kind}"), n_estimators=30, max_features=0.7)


def _expected_failures(estimator):
    """As for the forests: a bootstrap sample of weighted rows is not a bootstrap
    sample of repeated rows (scikit-learn marks these for its own forests)."""
    return {name: "bootstrap draws rows, not weight" for name in
            ("check_sample_weight_equivalence_on_dense_data",
             "check_sample_weight_equivalence_on_sparse_data")}


with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*does not inherit from", category=UserWarning)
    _CHECKS = parametrize_with_checks(
        [BaggingClassifier(n_estimators=5), BaggingClassifier(n_estimators=5, voting="hard"),
         BaggingRegressor(n_estimators=5)],
        expected_failed_checks=_expected_failures)


@_CHECKS
def test_sklearn_check_estimator(estimator, check):
    check(estimator)

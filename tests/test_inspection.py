"""Structural and permutation importances (``fastdt.inspection``)."""

import numpy as np
import pytest

import fastdt
from fastdt.inspection import permutation_importance, structural_importances


def test_structural_importances_of_the_animals_tree():
    X = np.array([[4, 2], [2, 2], [8, 8], [4, 2], [2, 2], [8, 8]], dtype=float)
    tree = fastdt.fit(X, ["dog", "chicken", "spider"] * 2)  # legs <= 3, then legs <= 6
    counts, depth = structural_importances(tree)
    assert counts.tolist() == [2, 0]
    assert depth[0] == 0.5 and np.isnan(depth[1])
    est = fastdt.DecisionTreeClassifier().fit(X, ["dog", "chicken", "spider"] * 2)
    assert structural_importances(est)[0].tolist() == [2, 0]


def test_permutation_importance():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    y = (X[:, 0] + 0.2 * X[:, 1] > 0).astype(int)
    tree = fastdt.fit(X, y, max_depth=4)
    r = permutation_importance(tree, X, y, n_repeats=4, random_state=0)
    assert r.importances.shape == (4, 4)
    counts, _ = structural_importances(tree)
    np.testing.assert_array_equal(r.importances[counts == 0], 0.0)  # unused: no effect
    assert r.importances_mean[0] > 0.3 > r.importances_mean[1] > 0
    again = permutation_importance(tree, X, y, n_repeats=4, random_state=0)
    np.testing.assert_array_equal(again.importances, r.importances)
    reg = fastdt.fit(X, X[:, 2] * 3.0, max_depth=5)
    rr = permutation_importance(reg, X, X[:, 2] * 3.0, n_repeats=2, random_state=1)
    assert rr.importances_mean.argmax() == 2 and rr.importances_mean[2] > 1.0  # R^2 drop


def test_permutation_importance_on_a_dataframe_and_bad_input():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"colour": rng.choice(["red", "blue", "green"], 300),
                       "x": rng.normal(size=300)})
    y = (df["colour"] == "red").to_numpy().astype(int)
    tree = fastdt.fit(df, y)
    r = permutation_importance(tree, df, y, n_repeats=3, random_state=0)
    assert r.importances_mean[0] > 0.2 and r.importances_mean[1] == 0.0
    with pytest.raises(ValueError, match="n_repeats"):
        permutation_importance(tree, df, y, n_repeats=0)
    with pytest.raises(ValueError, match="samples but y has"):
        permutation_importance(tree, df, y[:10])

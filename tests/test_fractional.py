"""Fractional missing values (``missing="fractional"``, C4.5): hand-worked examples."""

import numpy as np
import pytest

import fastdt

NAN = np.nan


def test_missing_rows_go_down_both_branches_with_the_known_shares():
    # present: x = 1, 2, 3 (classes 0, 0, 1) split at 2.5: the left child holds 2/3 of
    # the known weight, so the row missing x (class 1) goes left with weight 2/3 and
    # right with weight 1/3
    t = fastdt.fit(np.array([[1.0], [2.0], [3.0], [NAN]]), [0, 0, 1, 1],
                   missing="fractional", max_depth=1)
    assert t.threshold[0] == 2.5
    np.testing.assert_allclose(t.weighted_n_node_samples, [4.0, 8 / 3, 4 / 3])
    np.testing.assert_array_equal(t.n_node_samples, [4, 3, 2])  # the row is in both
    np.testing.assert_allclose(t.value[1], [2 / (8 / 3), (2 / 3) / (8 / 3)])  # [0.75, 0.25]
    np.testing.assert_allclose(t.value[2], [0.0, 1.0])
    # prediction of a row missing x: 2/3 of the left leaf plus 1/3 of the right one
    np.testing.assert_allclose(fastdt.predict_proba(t, [[NAN]]), [[0.5, 0.5]])
    np.testing.assert_allclose(fastdt.predict_proba(t, [[0.0], [9.0]]),
                               [[0.75, 0.25], [0.0, 1.0]])


def test_split_is_judged_on_known_values_times_their_share():
    # a: 4 of 6 values known, a perfect split of them: Q = 4/6 * gini(2, 2) = 1/3
    # b: all known, best split {0, 0} | {1, 0, 1, 1}: Q = 1/2 - 4/6 * 0.375 = 1/4
    y = [0, 0, 1, 1, 0, 1]
    a = [1.0, 2.0, 3.0, 4.0, NAN, NAN]
    b = [1.0, 2.0, 5.0, 3.0, 4.0, 6.0]
    t = fastdt.fit(np.column_stack([a, b]), y, missing="fractional", max_depth=1)
    assert t.feature[0] == 0 and t.threshold[0] == 2.5
    # impurity decrease of the root, weighted as fastdt's importances count it
    w, imp = t.weighted_n_node_samples, t.impurity
    decrease = (w[0] * imp[0] - w[1] * imp[1] - w[2] * imp[2]) / w[0]
    # children: [2 + 1/2, 1/2] and [1/2, 2 + 1/2] (each of the two missing rows halved)
    np.testing.assert_allclose(t.value[1], [2.5 / 3, 0.5 / 3])
    np.testing.assert_allclose(decrease, 0.5 - 2 * (3 / 6) * (1 - (25 + 1) / 36))
    # the other feature, all known, wins when a has too few known values
    a2 = [1.0, 2.0, 3.0, NAN, NAN, NAN]
    t2 = fastdt.fit(np.column_stack([a2, b]), y, missing="fractional", max_depth=1)
    assert t2.feature[0] == 1


def test_weights_are_conserved_and_predictions_are_distributions():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 1)
    X[rng.random(X.shape) < 0.25] = NAN
    t = fastdt.fit(X, y, missing="fractional", max_depth=6, min_samples_leaf=5)
    leaves = t.left == -1
    np.testing.assert_allclose(t.weighted_n_node_samples[leaves].sum(), 600.0)
    internal = ~leaves
    kids = t.weighted_n_node_samples[t.left[internal]] + t.weighted_n_node_samples[t.right[internal]]
    np.testing.assert_allclose(kids, t.weighted_n_node_samples[internal])
    assert np.all(t.n_node_samples[internal]
                  <= t.n_node_samples[t.left[internal]] + t.n_node_samples[t.right[internal]])
    X_test = rng.normal(size=(300, 4))
    X_test[rng.random(X_test.shape) < 0.4] = NAN
    proba = fastdt.predict_proba(t, X_test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # rows missing nothing on their path get exactly their leaf's value
    complete = ~np.isnan(X_test).any(axis=1)
    np.testing.assert_array_equal(proba[complete],
                                  t.value[fastdt.apply(t, X_test[complete])])


def test_save_load_and_regression(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    y = X[:, 0] * 2 + rng.normal(size=300)
    X[rng.random(X.shape) < 0.2] = NAN
    t = fastdt.fit(X, y, missing="fractional", max_depth=4)
    t.save(tmp_path / "m.npz")
    back = fastdt.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(fastdt.predict(back, X), fastdt.predict(t, X))
    assert np.isfinite(fastdt.predict(t, X)).all()


@pytest.mark.parametrize("missing", ["fractional", "surrogate"])
def test_strategies_with_categorical_features_and_best_first(missing):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    n = 500
    df = pd.DataFrame({
        "colour": pd.Categorical(rng.choice(["r", "g", "b", None], size=n)),
        "x": np.where(rng.random(n) < 0.2, NAN, rng.normal(size=n)),
        "z": rng.normal(size=n),
    })
    y = ((df["colour"] == "r") | (df["x"] > 0.5)).to_numpy().astype(int)
    for params in ({"max_depth": 5}, {"max_leaf_nodes": 12}):
        t = fastdt.fit(df, y, missing=missing, **params)
        t.validate()
        assert (fastdt.predict(t, df) == y).mean() > 0.85


def test_hist_splitter_supports_learn_only():
    with pytest.raises(ValueError, match="needs splitter='best'"):
        fastdt.fit(np.zeros((4, 1)), [0, 1, 0, 1], splitter="hist", missing="fractional")

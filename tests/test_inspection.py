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


def _permutation_importance_reference(tree, X, y, *, n_repeats=5, random_state=None,
                                      sample_weight=None):
    """The first, numpy implementation: shuffle a column of a copy of X, predict it."""
    from fastdt import _input
    from fastdt._predict import X_for
    from fastdt.api import predict

    Xa, _ = X_for(tree, X)
    n = Xa.shape[0]
    y = np.asarray(y)
    w = _input.check_sample_weight(sample_weight, n)
    rng = np.random.default_rng(_input.seed_from(random_state))

    def score(A):
        pred = predict(tree, A)
        if tree.task == "classification":
            return float(np.sum(w * (pred == y)) / np.sum(w))
        yf = y.astype(np.float64)
        mean = np.sum(w * yf) / np.sum(w)
        total = np.sum(w * (yf - mean) ** 2)
        return 1.0 - float(np.sum(w * (yf - pred) ** 2) / total) if total > 0 else 0.0

    base = score(Xa)
    out = np.empty((tree.n_features, n_repeats))
    work = Xa.copy()
    for f in range(tree.n_features):
        for r in range(n_repeats):
            work[:, f] = Xa[rng.permutation(n), f]
            out[f, r] = base - score(work)
        work[:, f] = Xa[:, f]
    return out


@pytest.mark.parametrize("case", ["numeric", "float32", "regression", "nan-learn", "surrogate",
                                  "fractional", "categorical", "labels"])
def test_permutation_importance_equals_shuffling_and_predicting(case):
    rng = np.random.default_rng(3)
    n = 700
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] - X[:, 3] * X[:, 4] > 0).astype(int)
    w = rng.uniform(0.2, 2.0, n)
    params = {}
    if case == "float32":
        X = X.astype(np.float32)
    if case == "regression":
        y = X[:, 0] * 2 + X[:, 2] ** 2 + rng.normal(size=n)
    if case in ("nan-learn", "surrogate", "fractional"):
        X[rng.random(X.shape) < 0.1] = np.nan
        params["missing"] = {"nan-learn": "learn"}.get(case, case)
    if case == "categorical":
        X[:, 2] = rng.integers(0, 6, n)
        y = (np.isin(X[:, 2], [1, 4]) ^ (X[:, 0] > 0.5)).astype(int)
        params["categorical_features"] = [2]
    if case == "labels":
        y = np.array(["cat", "dog", "eel"])[(X[:, 0] > 0).astype(int) + (X[:, 1] > 1)]
    tree = fastdt.fit(X, y, max_depth=6, **params)
    Xt = X.copy()
    if case == "categorical":
        Xt[:5, 2] = 9  # unseen categories
    got = permutation_importance(tree, Xt, y, n_repeats=3, random_state=7, sample_weight=w)
    want = _permutation_importance_reference(tree, Xt, y, n_repeats=3, random_state=7,
                                             sample_weight=w)
    np.testing.assert_array_equal(got.importances, want)  # bit for bit
    assert np.any(want != 0)


def test_permutation_importance_equals_reference_on_a_dataframe():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"colour": rng.choice(["red", "blue", "green"], 400),
                       "x": rng.normal(size=400), "z": rng.normal(size=400)})
    y = ((df["colour"] == "red") ^ (df["x"] > 0.3)).to_numpy()
    tree = fastdt.fit(df, y, max_depth=5)
    got = permutation_importance(tree, df, y, n_repeats=4, random_state=1)
    want = _permutation_importance_reference(tree, df, y, n_repeats=4, random_state=1)
    np.testing.assert_array_equal(got.importances, want)

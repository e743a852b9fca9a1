"""ccp_cv: alpha chosen by cross-validation over the whole path, checked by brute force
(every fold refitted with ``ccp_alpha`` and scored by ``predict``)."""

import numpy as np
import pytest

import fastdt
from fastdt.pruning import _folds


def _data(task, n=900, seed=0, nan=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    X[:, 4] = rng.integers(0, 6, n)  # category codes
    if task == "classification":
        y = np.where(X[:, 0] + 0.5 * np.isin(X[:, 4], [1, 3]) + rng.normal(size=n) > 0.3,
                     "yes", "no")
        y[rng.random(n) < 0.1] = "maybe"
    else:
        y = X[:, 0] ** 2 + (X[:, 4] == 2) + 0.3 * rng.normal(size=n)
    if nan:
        X[rng.random(X.shape) < 0.15] = np.nan
    return X, y


def _brute_force(X, y, splits, alphas, sample_weight=None, **params):
    """Mean over the folds of the score of fit(..., ccp_alpha=a) at every alpha."""
    scores = np.zeros(len(alphas))
    for tr, te in splits:
        w_tr = None if sample_weight is None else sample_weight[tr]
        w_te = np.ones(len(te)) if sample_weight is None else sample_weight[te]
        for i, a in enumerate(alphas):
            tree = fastdt.fit(X[tr], y[tr], sample_weight=w_tr, ccp_alpha=float(a), **params)
            pred = fastdt.predict(tree, X[te])
            if tree.task == "classification":
                scores[i] += np.dot(w_te, pred == y[te]) / w_te.sum()
            else:
                mean = np.dot(w_te, y[te]) / w_te.sum()
                scores[i] += 1 - np.dot(w_te, (y[te] - pred) ** 2) / np.dot(
                    w_te, (y[te] - mean) ** 2)
    return scores / len(splits)


CASES = [
    ("classification", False, {"min_samples_leaf": 3}),
    ("classification", True, {"categorical_features": [4], "criterion": "entropy"}),
    ("regression", False, {"min_samples_leaf": 5}),
    ("regression", True, {"categorical_features": [4], "missing": "surrogate"}),
]


@pytest.mark.parametrize("task,nan,params", CASES)
def test_scores_equal_refitting_every_alpha(task, nan, params):
    X, y = _data(task, nan=nan)
    sw = np.random.default_rng(1).uniform(0.5, 2.0, len(y)) if task == "regression" else None
    result = fastdt.ccp_cv(X, y, cv=4, sample_weight=sw, task=task, **params)
    assert result.alphas[0] == 0.0 and len(result.alphas) > 10
    codes = np.unique(y, return_inverse=True)[1] if task == "classification" else None
    splits = _folds(4, codes, len(y), False, None)
    pick = np.unique(np.r_[np.linspace(0, len(result.alphas) - 1, 12).astype(int),
                           np.flatnonzero(result.alphas == result.best_alpha)])
    expected = _brute_force(X, y, splits, result.alphas[pick], sw, task=task, **params)
    np.testing.assert_allclose(result.scores[pick], expected, rtol=0, atol=1e-12)
    assert result.fold_scores.shape == (4, len(result.alphas))
    np.testing.assert_allclose(result.scores, result.fold_scores.mean(axis=0))
    # the best: highest mean score, the largest alpha among equals
    assert result.best_score == result.scores.max()
    assert result.best_alpha == result.alphas[result.scores == result.scores.max()].max()
    assert result.tree == fastdt.fit(X, y, sample_weight=sw, task=task,
                                     ccp_alpha=result.best_alpha, **params)


def test_folds_are_stratified_and_partition_the_rows():
    codes = np.repeat([0, 1, 2], [50, 30, 20])
    splits = _folds(5, codes, 100, True, 0)
    tests = np.concatenate([te for _, te in splits])
    np.testing.assert_array_equal(np.sort(tests), np.arange(100))
    for tr, te in splits:
        assert np.bincount(codes[te]).tolist() == [10, 6, 4]
        assert np.intersect1d(tr, te).size == 0 and tr.size + te.size == 100
    blocks = _folds(4, None, 10, False, None)
    assert [te.tolist() for _, te in blocks] == [[0, 1, 2], [3, 4], [5, 6, 7], [8, 9]]


def test_user_splits_and_dataframes():
    pd = pytest.importorskip("pandas")
    X, y = _data("classification", n=400)
    df = pd.DataFrame(X, columns=list("abcde"))
    df["e"] = pd.Categorical(np.array(list("pqrstu"))[X[:, 4].astype(int)])
    splits = [(np.arange(200, 400), np.arange(200)), (np.arange(200), np.arange(200, 400))]
    r = fastdt.ccp_cv(df, y, cv=splits)
    assert r.fold_scores.shape[0] == 2
    assert r.tree.feature_names == list("abcde") and r.tree.categories[4] == list("pqrstu")
    expected = _brute_force(X, y, splits, r.alphas[::5], categorical_features=[4])
    np.testing.assert_allclose(r.scores[::5], expected, atol=1e-12)


def test_bad_arguments():
    X, y = _data("classification", n=100)
    with pytest.raises(ValueError, match="ccp_alpha"):
        fastdt.ccp_cv(X, y, ccp_alpha=0.1)
    with pytest.raises(ValueError, match="cv=1"):
        fastdt.ccp_cv(X, y, cv=1)
    with pytest.raises(ValueError, match="cv=101"):
        fastdt.ccp_cv(X, y, cv=101)
    with pytest.raises(TypeError, match="cv must be"):
        fastdt.ccp_cv(X, y, cv="five")
    with pytest.raises(ValueError, match="integer indices"):
        fastdt.ccp_cv(X, y, cv=[(np.arange(50), np.arange(50, 200))])
    with pytest.raises(ValueError, match="no splits"):
        fastdt.ccp_cv(X, y, cv=[])
    with pytest.raises(TypeError, match="shuffle"):
        fastdt.ccp_cv(X, y, shuffle="yes")
    with pytest.raises(TypeError, match="Dataset"):
        fastdt.ccp_cv(fastdt.Dataset(X), y)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="fractional"):
        fastdt.ccp_cv(Xn, y, missing="fractional")
    with pytest.raises(ValueError, match="max_depth"):
        fastdt.ccp_cv(X, y, max_depth=-1)  # fit's own checks come first

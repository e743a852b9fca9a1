"""Reduced-error pruning, against an enumeration of every pruned subtree."""

import itertools

import numpy as np
import pytest

import fastdt
from fastdt._config import LEAF


def _subtrees(tree):
    """Every pruned subtree, as the set of its internal nodes (ids of ``tree``)."""
    def below(node):
        if tree.left[node] == LEAF:
            return [frozenset()]
        out = [frozenset()]  # node as a leaf
        for a, b in itertools.product(below(tree.left[node]), below(tree.right[node])):
            out.append(a | b | {node})
        return out
    return below(0)


def _loss(tree, internal, X, y, w):
    """Validation loss of the subtree keeping ``internal`` (routes as the kernels)."""
    indptr, indices = fastdt.decision_path(tree, X)
    total = 0.0
    for i in range(X.shape[0]):
        path = indices[indptr[i]:indptr[i + 1]]
        node = next(int(v) for v in path if v not in internal)
        if tree.task == "classification":
            total += w[i] * (tree.classes[np.argmax(tree.value[node])] != y[i])
        else:
            total += w[i] * (y[i] - tree.value[node, 0]) ** 2
    return total


@pytest.mark.parametrize("task", ["classification", "regression"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_smallest_subtree_of_least_validation_loss(task, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(500, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    noise = rng.normal(size=500)
    signal = np.nan_to_num(X[:, 0]) + noise
    y = signal if task == "regression" else signal > 0
    w = rng.uniform(0.5, 2, 200)
    tree = fastdt.fit(X[:300], y[:300], max_leaf_nodes=9, task=task)
    pruned = fastdt.prune_reduced_error(tree, X[300:], y[300:], sample_weight=w)
    best = min(_subtrees(tree), key=lambda s: (round(_loss(tree, s, X[300:], y[300:], w), 9),
                                               len(s)))
    assert pruned.n_leaves == len(best) + 1
    pred = fastdt.predict(pruned, X[300:])
    loss = (np.dot(w, pred != y[300:]) if task == "classification"
            else np.dot(w, (pred - y[300:]) ** 2))
    assert loss == pytest.approx(_loss(tree, best, X[300:], y[300:], w), rel=1e-12)
    pruned.validate()
    assert pruned.params["pruning"] == "reduced_error"


def test_estimator_dataframe_and_errors():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"c": rng.choice(list("abcd"), 400), "x": rng.normal(size=400)})
    y = np.where((df["c"] == "a") ^ (df["x"] > 0), "p", "q")
    clf = fastdt.DecisionTreeClassifier().fit(df[:200], y[:200])
    pruned = fastdt.prune_reduced_error(clf, df[200:], y[200:])
    assert pruned.n_leaves <= clf.get_n_leaves() and pruned.categories == clf.tree_.categories
    assert (fastdt.predict(pruned, df[200:]) == y[200:]).mean() >= clf.score(df[200:], y[200:])
    with pytest.raises(ValueError, match="labels the tree was not fitted on"):
        fastdt.prune_reduced_error(clf, df[200:], np.where(y[200:] == "p", "p", "z"))
    with pytest.raises(ValueError, match="samples"):
        fastdt.prune_reduced_error(clf, df[200:], y[201:])
    X = rng.normal(size=(100, 2))
    X[:10, 0] = np.nan
    frac = fastdt.fit(X, X[:, 1] > 0, missing="fractional")
    with pytest.raises(ValueError, match="fractional"):
        fastdt.prune_reduced_error(frac, X, X[:, 1] > 0)

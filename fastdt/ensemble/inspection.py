"""Inspecting forests: Breiman's out-of-bag permutation importance."""

import numpy as np

from .. import _predict
from .api import in_bag_counts

__all__ = ["oob_permutation_importance"]


def oob_permutation_importance(forest, X, y, *, sample_weight=None, n_repeats=1,
                               random_state=None):
    """Breiman's permutation importance, out of bag: for every tree, the drop of its
    score (accuracy, or R^2) on the rows it did not draw when one feature's values are
    shuffled among those rows; averaged over the trees.

    Parameters
    ----------
    forest : Forest
        Fitted by :func:`fastdt.fit_forest` with ``bootstrap=True`` on ``X, y``.
    X, y, sample_weight
        The training data of the forest (``sample_weight`` too: rows of weight 0 were
        in no tree's sample, and the scores are weighted by it). Dense X.
    n_repeats : int, default=1
        Shuffles per tree and feature.
    random_state : None, int or numpy Generator
        Seeds the shuffles: for each tree, each feature, each repeat, in that order,
        ``rng.permutation`` of the tree's out-of-bag rows.

    Returns
    -------
    dict with ``importances`` (float64 ``[n_features, n_repeats]``: per repeat the mean
    over the trees), ``importances_mean`` and ``importances_std`` (over the repeats).
    """
    if getattr(forest, "kind", None) != "forest":
        raise TypeError("oob_permutation_importance takes a fastdt Forest")
    if not forest.params.get("bootstrap", False):
        raise ValueError("out-of-bag importance needs a forest fitted with bootstrap=True")
    if forest.n_outputs != 1:
        raise ValueError("out-of-bag importance handles one output")
    if _predict.is_sparse(X):
        raise TypeError("oob_permutation_importance takes dense X")
    if isinstance(n_repeats, (bool, np.bool_)) or not isinstance(n_repeats, (int, np.integer)) \
            or n_repeats < 1:
        raise ValueError(f"n_repeats={n_repeats!r} must be an int >= 1")
    Xa, has_nan = _predict.X_for(forest.tree(0), X)
    n = Xa.shape[0]
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y must be 1-D with one label per row of X ({n}), got shape {y.shape}")
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must be finite, >= 0 and one per row of X")
    rows = np.flatnonzero(w > 0)
    clf = forest.task == "classification"
    target = y if clf else y.astype(np.float64)
    rng = np.random.default_rng(random_state)
    drops = np.zeros((forest.n_features, n_repeats))
    for t, (tree, seed) in enumerate(zip(forest.trees(), forest.params["seeds"])):
        oob = rows[in_bag_counts(seed, rows.shape[0], forest.params["n_samples"]) == 0]
        Xo = np.ascontiguousarray(Xa[oob])
        yo, wo = target[oob], w[oob]
        base = _tree_score(tree, Xo, has_nan, yo, wo, clf)
        for j in range(forest.n_features):
            col = Xo[:, j].copy()
            for r in range(n_repeats):
                Xo[:, j] = col[rng.permutation(oob.shape[0])]
                drops[j, r] += base - _tree_score(tree, Xo, has_nan, yo, wo, clf)
            Xo[:, j] = col
    drops /= forest.n_trees
    return {"importances": drops, "importances_mean": drops.mean(axis=1),
            "importances_std": drops.std(axis=1)}


def _tree_score(tree, X, has_nan, y, w, clf):
    """Weighted accuracy or R^2 of one tree on rows ``X`` (0 for no rows)."""
    if X.shape[0] == 0 or w.sum() == 0:
        return 0.0
    values = _predict.values_of(tree, X, has_nan)
    if clf:
        pred = np.asarray(tree.classes)[np.argmax(values, axis=1)]
        return float(np.average(pred == y, weights=w))
    resid = np.sum(w * (y - values[:, 0]) ** 2)
    total = np.sum(w * (y - np.average(y, weights=w)) ** 2)
    return float(1.0 - resid / total) if total > 0 else 0.0

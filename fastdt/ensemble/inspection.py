"""Inspecting forests: Breiman's out-of-bag permutation importance."""

import numpy as np

from .. import _input, _predict
from ..inspection import permutation_drops
from .api import forest_in_bag

__all__ = ["oob_permutation_importance"]


def oob_permutation_importance(forest, X, y, *, sample_weight=None, n_repeats=1,
                               random_state=None):
    """Breiman's permutation importance, out of bag: for every tree, the drop of its
    score (accuracy, or R^2) on the rows it did not draw when one feature's values are
    shuffled among those rows (:func:`fastdt.inspection.permutation_importance`'s
    kernels, on the tree's out-of-bag rows); averaged over the trees.

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
    if not _input._is_int(n_repeats) or n_repeats < 1:
        raise ValueError(f"n_repeats={n_repeats!r} must be an int >= 1")
    Xa, has_nan = _predict.X_for(forest.tree(0), X)
    n = Xa.shape[0]
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y must be 1-D with one label per row of X ({n}), got shape {y.shape}")
    w = _input.check_sample_weight(sample_weight, n)
    rows = np.flatnonzero(w > 0)
    rng = np.random.default_rng(random_state)
    drops = np.zeros((forest.n_features, n_repeats))
    for tree, seed in zip(forest.trees(), forest.params["seeds"]):
        oob = rows[forest_in_bag(forest, seed, rows.shape[0]) == 0]
        if oob.shape[0]:  # a tree that drew every row adds nothing
            drops += permutation_drops(tree, np.ascontiguousarray(Xa[oob]), has_nan, y[oob],
                                       w[oob], n_repeats, rng)
    drops /= forest.n_trees
    return {"importances": drops, "importances_mean": drops.mean(axis=1),
            "importances_std": drops.std(axis=1)}

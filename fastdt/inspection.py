"""Model inspection computed from the public arrays of a fitted :class:`~fastdt.tree.Tree`."""

from typing import NamedTuple

import numpy as np

from ._config import LEAF
from .export import _tree_of
from .tree import Tree

__all__ = ["impurity_importances", "permutation_importance", "structural_importances"]


def impurity_importances(tree, normalize=True):
    """Impurity-based (mean decrease in impurity, "Gini") feature importances.

    Every internal node credits its split feature with the weighted impurity decrease
    it achieves::

        w[i] * impurity[i] - w[left[i]] * impurity[left[i]] - w[right[i]] * impurity[right[i]]

    where ``w`` is ``weighted_n_node_samples``. The per-feature sums are divided by the
    root's weight and, with ``normalize=True``, rescaled to sum to one (unless every
    importance is zero, e.g. for a single-leaf tree). This is the definition behind
    scikit-learn's ``feature_importances_``.

    Parameters
    ----------
    tree : Tree
        A fitted fastdt tree.
    normalize : bool, default=True
        Rescale the importances to sum to 1 when their sum is positive.

    Returns
    -------
    importances : ndarray of shape (n_features,), dtype float64
        Importance of every feature; features never used in a split get 0.

    Raises
    ------
    TypeError
        If ``tree`` is not a :class:`~fastdt.tree.Tree`.

    Notes
    -----
    Impurity importances are computed on the training data and favour features with
    many distinct values; permutation importances on held-out data are less biased.

    Examples
    --------
    >>> import numpy as np
    >>> import fastdt
    >>> from fastdt.inspection import impurity_importances
    >>> X = np.array([[0.0, 5.0], [1.0, 5.0], [2.0, 5.0], [3.0, 5.0]])
    >>> tree = fastdt.fit(X, [0, 0, 1, 1])
    >>> impurity_importances(tree)
    array([1., 0.])
    """
    if not isinstance(tree, Tree):
        raise TypeError(f"expected a fastdt Tree, got {type(tree).__name__}")
    importances = np.zeros(tree.n_features, dtype=np.float64)
    internal = np.flatnonzero(tree.left != LEAF)
    if internal.shape[0]:
        w = tree.weighted_n_node_samples
        imp = tree.impurity
        left = tree.left[internal]
        right = tree.right[internal]
        decrease = (w[internal] * imp[internal] - w[left] * imp[left]
                    - w[right] * imp[right])
        importances += np.bincount(
            tree.feature[internal], weights=decrease, minlength=tree.n_features
        )
    root_weight = tree.weighted_n_node_samples[0]
    if root_weight > 0:
        importances /= root_weight
    if normalize:
        total = importances.sum()
        if total > 0.0:
            importances /= total
    return importances


def structural_importances(tree):
    """The two structural importances: how many internal nodes split on each feature,
    and the mean depth of those nodes (NaN for a feature never used; the root is at
    depth 0, so features used near the root have small mean depths).

    Returns
    -------
    (n_nodes, mean_depth) : ndarray int64 (n_features,), ndarray float64 (n_features,)
    """
    tree = _tree_of(tree)
    internal = np.flatnonzero(tree.left != LEAF)
    f = tree.feature[internal]
    counts = np.bincount(f, minlength=tree.n_features).astype(np.int64)
    depth_sum = np.bincount(f, weights=tree.depth[internal], minlength=tree.n_features)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_depth = np.where(counts > 0, depth_sum / np.maximum(counts, 1), np.nan)
    return counts, mean_depth


class PermutationImportance(NamedTuple):
    """``importances[f, r]``: drop of the score when feature ``f`` is shuffled (repeat
    ``r``); ``importances_mean``/``importances_std`` over the repeats."""

    importances_mean: np.ndarray
    importances_std: np.ndarray
    importances: np.ndarray


def permutation_importance(tree, X, y, *, n_repeats=5, random_state=None, sample_weight=None):
    """Permutation importance (Breiman 2001) of a fitted tree on data ``X, y``.

    Each feature's column is shuffled ``n_repeats`` times and the score (accuracy for
    classification, R^2 for regression, weighted by ``sample_weight``) is measured
    again with the prediction kernels; the importance is the baseline score minus the
    shuffled one. ``X`` may be a DataFrame (categories are mapped as at predict time,
    once, and shuffled as codes).
    """
    from . import _input
    from .api import _X_for, predict

    tree = _tree_of(tree)
    if not _input._is_int(n_repeats) or n_repeats < 1:
        raise ValueError(f"n_repeats={n_repeats!r} is invalid: it must be an int >= 1")
    Xa, _ = _X_for(tree, X)
    n = Xa.shape[0]
    y = np.asarray(y)
    if y.shape[0] != n:
        raise ValueError(f"X has {n} samples but y has {y.shape[0]}; they must match")
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
    return PermutationImportance(out.mean(axis=1), out.std(axis=1), out)

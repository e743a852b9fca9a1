"""Model inspection computed from the public arrays of a fitted :class:`~fastdt.tree.Tree`."""

import numpy as np

from ._config import LEAF
from .tree import Tree

__all__ = ["impurity_importances"]


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

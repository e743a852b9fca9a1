"""Model inspection computed from the public arrays of a fitted :class:`~fastdt.tree.Tree`."""

from typing import NamedTuple

import numpy as np

from ._predict import single_output
from ._config import LEAF
from .export import _subtree_heights, _tree_of
from .tree import Tree, binary_only

__all__ = ["explain", "impurity_importances", "permutation_importance", "structural_importances"]


def impurity_importances(tree, normalize=True):
    """Impurity-based (mean decrease in impurity, "Gini") feature importances.

    Every internal node credits its split feature with the weighted impurity decrease
    it achieves::

        w[i] * impurity[i] - w[left[i]] * impurity[left[i]] - w[right[i]] * impurity[right[i]]

    (a multiway split: minus every child's term), where ``w`` is
    ``weighted_n_node_samples``. The per-feature sums are divided by the
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
        # the children of the internal nodes, in id order, are nodes 1, 2, ...
        children = np.add.reduceat((w * imp)[1:], tree.left[internal] - 1)
        decrease = w[internal] * imp[internal] - children
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
    again; the importance is the baseline score minus the shuffled one.

    The shuffled predictions come from ``@njit`` kernels (:mod:`fastdt._permute`,
    parallel over rows): a row whose path never reads the shuffled feature keeps its
    prediction, the others are routed, with the one shuffled value swapped in, from
    the first node on their path that reads it. No shuffled copy of ``X`` is made. The
    scores equal those of shuffling the column and calling :func:`fastdt.predict`,
    to the last bit. ``missing="fractional"`` trees on data with missing values are
    routed from the root, down both branches where a value is missing, as
    :func:`fastdt.predict` does.

    Parameters
    ----------
    tree : Tree or fitted estimator
    X : array-like or pandas DataFrame of shape (n_samples, n_features)
        Categories are mapped to codes once, as at predict time, and shuffled as codes.
    y : array-like of shape (n_samples,)
        True labels (classification) or targets (regression).
    n_repeats : int, default=5
        Shuffles per feature.
    random_state : int, numpy Generator or None
        Seeds the shuffles: ``numpy.random.default_rng(seed).permutation(n_samples)``
        is drawn once per feature and repeat, features in order, repeats within them.
    sample_weight : array-like of shape (n_samples,), optional
        Weights of the score.

    Returns
    -------
    PermutationImportance
        ``importances`` of shape (n_features, n_repeats) and their mean and standard
        deviation over the repeats.

    Raises
    ------
    ValueError
        If ``n_repeats`` is not an int >= 1, or ``X`` and ``y`` differ in length.
    """
    single_output(tree, "permutation_importance")
    from . import _input
    from ._predict import X_for

    tree = _tree_of(tree)
    if not _input._is_int(n_repeats) or n_repeats < 1:
        raise ValueError(f"n_repeats={n_repeats!r} is invalid: it must be an int >= 1")
    Xa, has_nan = X_for(tree, X)
    n = Xa.shape[0]
    y = np.asarray(y)
    if y.shape[0] != n:
        raise ValueError(f"X has {n} samples but y has {y.shape[0]}; they must match")
    w = _input.check_sample_weight(sample_weight, n)
    rng = np.random.default_rng(_input.seed_from(random_state))
    out = permutation_drops(tree, Xa, has_nan, y, w, n_repeats, rng)
    return PermutationImportance(out.mean(axis=1), out.std(axis=1), out)


def permutation_drops(tree, Xa, has_nan, y, w, n_repeats, rng):
    """The score drops (float64 ``[n_features, n_repeats]``) of :func:`permutation_importance`
    for rows ``Xa`` already checked (``fastdt._predict.X_for``), labels ``y`` and weights
    ``w``; ``rng.permutation(n)`` is drawn once per feature and repeat, in that order."""
    from ._permute import first_reader, permuted_numeric, permuted_predictions
    from ._predict import leaves, numeric_route
    from .kernels import step_arrays, value_fractional_batch

    n = Xa.shape[0]
    is_clf = tree.task == "classification"
    fractional = bool(has_nan) and tree.params.get("missing") == "fractional"  # _predict.values
    if is_clf:  # y as class codes (-1: not a class); pred == y iff the codes are equal
        target = np.full(n, -1.0)
        for k, c in enumerate(tree.classes):
            match = np.asarray(y == c, dtype=bool)
            if match.shape == target.shape:  # else incomparable types: no match
                target[match] = k
    else:
        target = y.astype(np.float64)

    def score(pred):  # the arithmetic of the scores as they were first written
        if is_clf:
            return float(np.sum(w * (pred == target)) / np.sum(w))
        mean = np.sum(w * target) / np.sum(w)
        total = np.sum(w * (target - mean) ** 2)
        return 1.0 - float(np.sum(w * (target - pred) ** 2) / total) if total > 0 else 0.0

    t = tree.arrays
    if fractional:  # rows missing a value go down both branches: no single path
        values = np.empty((n, tree.n_values))
        value_fractional_batch(t, Xa, values)
        base_pred = np.argmax(values, axis=1).astype(np.float64) if is_clf else values[:, 0]
        rows, starts, node_pred = np.arange(n), np.zeros(n, dtype=np.int64), np.empty(0)
    else:
        leaf = leaves(tree, Xa, has_nan)
        node_pred = (np.argmax(tree.value, axis=1).astype(np.float64) if is_clf
                     else tree.value[:, 0].copy())
        base_pred = node_pred[leaf]
        first = np.empty(tree.node_count, dtype=np.int64)
    steps = step_arrays(t, Xa.dtype) if numeric_route(tree, has_nan) else None
    height = _subtree_heights(tree)
    base = score(base_pred)
    pred = np.empty(n)
    out = np.empty((tree.n_features, n_repeats))
    for f in range(tree.n_features):
        if not fractional:  # only rows whose path reads f, from the first node reading it
            first_reader(t, f, first)
            start = first[leaf]
            rows = np.flatnonzero(start >= 0)
            starts = start[rows]
        for r in range(n_repeats):
            perm = rng.permutation(n)
            pred[:] = base_pred
            col = Xa[perm[rows], f]
            if steps is not None:
                permuted_numeric(*steps, height, Xa, f, rows, starts, col, node_pred, pred)
            else:
                permuted_predictions(t, Xa, f, rows, starts, col, node_pred, is_clf,
                                     fractional, pred)
            out[f, r] = base - score(pred)
    return out


# ---------------------------------------------------------------------- explanations


class Condition(NamedTuple):
    """One step of a row's path: at internal ``node``, the row's ``value`` of feature
    number ``feature`` (named ``name``) sent it to the left child (``left``) or the
    right one. ``value`` is a number, a category level, or None when missing (NaN, or
    a category not seen in training)."""

    node: int
    feature: int
    name: str
    value: object
    left: bool
    text: str


class Explanation(NamedTuple):
    """Why a tree predicts what it does for one row (see :func:`explain`).

    ``str()`` reads ``cond; cond; ... -> prediction (n samples, p=...)``.
    """

    conditions: tuple
    leaf: int
    prediction: object
    proba: object
    samples: int
    text: str

    def __str__(self):
        return self.text


def explain(tree, X, *, feature_names=None, class_names=None, decimals=3, _estimator_name=None):
    """The path of every row of ``X`` as readable conditions, with the prediction.

    Each step states the row's value and the condition it satisfied, worded as
    :func:`fastdt.export_text` words splits::

        petal length (cm) = 1.4 <= 2.450 -> setosa (50 samples, p=1.00)
        colour = red in {blue, red}; x = 3.0 > 1.500 -> 2.718 (7 samples)

    A missing value (NaN, or a category unseen in training) says where it went and
    why: ``age is missing -> left (learned)`` (``missing="learn"``: the side learned
    in training, or the larger child where training saw no missing value),
    ``(via surrogate b = 0.3 <= 0.500)`` or ``(majority)`` (``"surrogate"``).

    The path is the one :func:`fastdt.decision_path` (the kernels' routing) gives, so
    ``leaf`` equals :func:`fastdt.apply`. A ``missing="fractional"`` tree sends a row
    missing a split's value down both branches; the path then follows the heavier one
    (as ``apply`` does) and the step says so (``-> both ways (left 60%, right 40%);
    followed left``), while ``prediction`` and ``proba`` are those of
    :func:`fastdt.predict`, averaged over every branch taken.

    Parameters
    ----------
    tree : Tree or fitted estimator
    X : array-like or pandas DataFrame of shape (n_samples, n_features)
        The rows to explain (``X[i:i + 1]`` for one).
    feature_names, class_names, decimals
        As :func:`fastdt.export_text`. The row's values are shown with at most
        ``decimals`` digits after the point, or as many more as it takes for the
        shown value to satisfy the shown condition.

    Returns
    -------
    list of Explanation
        One per row: ``conditions`` (a tuple of :class:`Condition`, root first),
        ``leaf``, ``prediction`` (as :func:`fastdt.predict`), ``proba`` (the row of
        :func:`fastdt.predict_proba`; None for regression), ``samples`` (training
        rows in the leaf) and ``text`` (also ``str()``).

    Examples
    --------
    >>> import fastdt
    >>> tree = fastdt.fit([[0.0], [1.0], [2.0], [3.0]], ["a", "a", "b", "b"])
    >>> print(fastdt.explain(tree, [[2.5]], feature_names=["x"])[0])
    x = 2.5 > 1.500 -> b (2 samples, p=1.00)
    """
    single_output(tree, "explain")
    from ._predict import X_for, decision_path, values
    from .export import _options, _split_text

    tree, names, labels, number = _options(tree, feature_names, class_names, decimals)
    binary_only(tree, "explain")
    Xa, has_nan = X_for(tree, X, _estimator_name)
    indptr, indices = decision_path(tree, Xa, has_nan)
    node_values = values(tree, Xa)
    fractional = tree.params.get("missing") == "fractional"
    out = []
    for i in range(Xa.shape[0]):
        path = indices[indptr[i]:indptr[i + 1]]
        conditions = []
        for node, child in zip(path[:-1], path[1:]):
            went_left = bool(child == tree.left[node])
            f = int(tree.feature[node])
            value = _value_of(tree, f, Xa[i, f])
            if value is None:
                text = _missing_text(tree, node, names, Xa[i], went_left, fractional, number)
            else:
                text = _split_text(tree, node, names, number)[0 if went_left else 1]
                # "name >  t" is aligned with "name <= t" in export_text; not needed here
                text = text[len(names[f]):].replace(" >  ", " > ", 1)
                shown = value if tree.cat_offset[node] >= 0 else _digits(
                    value, tree.threshold[node], number, went_left, decimals)
                text = f"{names[f]} = {shown}{text}"
            conditions.append(Condition(int(node), f, names[f], value, went_left, text))
        leaf = int(path[-1])
        if labels is not None:
            k = int(np.argmax(node_values[i]))
            prediction, proba = tree.classes[k], node_values[i].copy()
            tail = f"{labels[k]} ({int(tree.n_node_samples[leaf])} samples, p={proba[k]:.2f})"
        else:
            prediction, proba = float(node_values[i, 0]), None
            tail = f"{number(prediction)} ({int(tree.n_node_samples[leaf])} samples)"
        text = "; ".join(c.text for c in conditions)
        text = f"{text} -> {tail}" if text else f"-> {tail}"
        out.append(Explanation(tuple(conditions), leaf, prediction, proba,
                               int(tree.n_node_samples[leaf]), text))
    return out


def _digits(v, threshold, number, went_left, decimals):
    """``v`` with at most ``decimals`` digits after the point, or more where fewer
    would put it on the wrong side of the threshold as shown (``number``)."""
    shown_threshold = float(number(threshold)) if np.isfinite(threshold) else threshold
    for digits in range(int(decimals), 18):
        text = np.format_float_positional(v, precision=digits, unique=True, trim="0")
        if (float(text) <= shown_threshold) == went_left:
            return text
    return str(v)


def _value_of(tree, f, v):
    """The row's value as shown: a number, a category level, or None when missing."""
    if np.isnan(v):
        return None
    k = int(tree.n_categories[f])
    if k == 0:
        return v
    if not 0 <= v < k:
        return None
    return tree.categories[f][int(v)] if tree.categories is not None else int(v)


def _missing_text(tree, node, names, x, went_left, fractional, number):
    f = int(tree.feature[node])
    what = "is missing" if np.isnan(x[f]) else "has a category unseen in training"
    side = "left" if went_left else "right"
    if fractional:
        w = tree.weighted_n_node_samples
        share = w[tree.left[node]] / w[node]
        return (f"{names[f]} {what} -> both ways (left {share:.0%}, right {1 - share:.0%}); "
                f"followed {side}")
    s0, s1 = int(tree.surrogate_ptr[node]), int(tree.surrogate_ptr[node + 1])
    if tree.params.get("missing") != "surrogate":
        return f"{names[f]} {what} -> {side} (learned)"
    for s in range(s0, s1):  # the first surrogate the row has decides (kernels._missing_left)
        g = int(tree.surrogate_feature[s])
        if not np.isnan(x[g]):
            le = x[g] <= tree.surrogate_threshold[s]
            op = "<=" if le else ">"
            return (f"{names[f]} {what} -> {side} (via surrogate {names[g]} = {x[g]} {op} "
                    f"{number(tree.surrogate_threshold[s])})")
    return f"{names[f]} {what} -> {side} (majority)"

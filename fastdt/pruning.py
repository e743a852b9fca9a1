"""Pruning a fitted tree: CART's cost-complexity pruning (the path, a pruned tree, and
``alpha`` chosen by cross-validation) and Quinlan's reduced-error pruning.

Every function reads the flat node arrays of a :class:`~fastdt.tree.Tree`; the
kernels are in :mod:`fastdt._prune`. A pruned tree is a new, compact Tree whose node
ids run breadth-first again. Rule post-pruning (C4.5) is in :mod:`fastdt.rules`.
"""

import warnings
from typing import NamedTuple

import numpy as np

from . import _engine, _input
from ._predict import X_for, decision_path, single_output
from ._config import LEAF
from .export import _tree_of
from .tree import Tree, bfs_order, binary_only, empty_extras

__all__ = ["PruningPath", "CCPCVResult", "cost_complexity_pruning_path", "prune", "ccp_cv",
           "prune_reduced_error"]


class PruningPath(NamedTuple):
    """The cost-complexity path: ``ccp_alphas[k]`` is the effective alpha of the
    ``k``-th weakest-link pruning (0 first: the whole tree) and ``impurities[k]`` the
    total leaf impurity ``sum w(leaf) / w(root) * impurity(leaf)`` after it."""

    ccp_alphas: np.ndarray
    impurities: np.ndarray


def _weakest_link(tree, ccp_alpha):
    """``(alphas, impurities, keep, step)`` of weakest-link pruning up to ``ccp_alpha``."""
    binary_only(tree, "cost-complexity pruning")
    n = tree.node_count
    alphas, impurities = np.empty(n), np.empty(n)
    keep = np.empty(n, dtype=np.uint8)
    step = np.empty(n, dtype=np.int64)
    from ._prune import weakest_link  # numba loads on first use

    m = weakest_link(tree.left, tree.right, tree.weighted_n_node_samples, tree.impurity,
                     float(ccp_alpha), alphas, impurities, keep, step)
    return alphas[:m].copy(), impurities[:m].copy(), keep, step


def cost_complexity_pruning_path(tree):
    """Minimal cost-complexity pruning path of a fitted tree (CART's weakest link).

    Equal to scikit-learn's ``cost_complexity_pruning_path`` on the same tree, computed
    from the Tree arrays by an ``@njit`` kernel over a heap (scikit-learn rescans:
    ``O(n^2)``).

    Parameters
    ----------
    tree : Tree or fitted estimator

    Returns
    -------
    PruningPath
        ``(ccp_alphas, impurities)``, float64 arrays, alphas non-decreasing in practice.
    """
    alphas, impurities, _, _ = _weakest_link(_tree_of(tree), np.inf)
    return PruningPath(alphas, impurities)


def _check_alpha(ccp_alpha):
    if not (_input._is_real(ccp_alpha) and np.isfinite(ccp_alpha) and ccp_alpha >= 0):
        raise ValueError(f"ccp_alpha={ccp_alpha!r} is invalid: it must be a number >= 0")
    return float(ccp_alpha)


def prune(tree, ccp_alpha):
    """The subtree of minimal cost complexity for ``ccp_alpha`` (as scikit-learn's
    ``ccp_alpha``): weakest links are pruned while their effective alpha is at most
    ``ccp_alpha``. Returns a new, compact Tree (breadth-first ids again)."""
    tree = _tree_of(tree)
    ccp_alpha = _check_alpha(ccp_alpha)
    keep = _weakest_link(tree, ccp_alpha)[2]
    return _subtree(tree, keep, ccp_alpha=ccp_alpha)


# ------------------------------------------------------------ alpha by cross-validation


class CCPCVResult(NamedTuple):
    """What :func:`ccp_cv` found.

    Attributes
    ----------
    best_alpha : float
        The candidate of highest mean validation score (the largest, i.e. the
        smallest tree, among equal scores).
    best_score : float
        Its mean validation score.
    alphas : ndarray
        The candidates: the whole cost-complexity path of the tree grown on all rows.
    scores, scores_std : ndarray
        Mean and standard deviation over the folds of the validation score of the
        fold trees pruned at each candidate (accuracy, or R^2 for regression).
    fold_scores : ndarray of shape (n_folds, n_alphas)
    tree : Tree
        The tree grown on all rows pruned at ``best_alpha``: the same tree as
        ``fit(X, y, ccp_alpha=best_alpha, **fit_params)``.
    """

    best_alpha: float
    best_score: float
    alphas: np.ndarray
    scores: np.ndarray
    scores_std: np.ndarray
    fold_scores: np.ndarray
    tree: Tree


def _folds(cv, codes, n, shuffle, random_state):
    """``[(train, test)]`` index arrays: ``cv`` folds, stratified by class for
    classification (``codes``), contiguous for regression, or the user's splits."""
    if _input._is_int(cv):
        if cv < 2 or cv > n:
            raise ValueError(f"cv={cv} is invalid: it must be an int in [2, n_samples={n}]")
        order = np.arange(n)
        if shuffle:
            order = np.random.default_rng(_input.seed_from(random_state)).permutation(n)
        fold = np.empty(n, dtype=np.int64)
        if codes is None:
            fold[order] = np.arange(n) * cv // n
        else:  # dealt round-robin class by class: every fold gets each class's share
            fold[order[np.argsort(codes[order], kind="stable")]] = np.arange(n) % cv
        return [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in range(cv)]
    if shuffle:
        raise ValueError("shuffle applies to an integer cv only")
    try:
        splits = [(np.asarray(tr), np.asarray(te)) for tr, te in cv]
    except (TypeError, ValueError) as exc:
        raise TypeError(
            "cv must be an int or an iterable of (train_indices, test_indices) pairs"
        ) from exc
    if len(splits) < 1:
        raise ValueError("cv gave no splits")
    for tr, te in splits:
        for a in (tr, te):
            if a.ndim != 1 or a.size == 0 or a.dtype.kind not in "iu" or a.min() < 0 \
                    or a.max() >= n:
                raise ValueError(
                    f"every cv split needs non-empty 1-D integer indices in [0, {n})"
                )
    return splits


def _node_predictions(tree):
    """Every node's prediction as a leaf: class label (numeric) or value, float64."""
    if tree.task == "classification":
        return tree.classes[np.argmax(tree.value, axis=1)].astype(np.float64)
    return np.ascontiguousarray(tree.value[:, 0])


def _score(loss, y, w, is_clf):
    """Accuracy (from the 0/1 loss) or R^2 (from the squared error), weighted."""
    total = w.sum()
    if is_clf:
        return 1.0 - loss / total
    mean = np.dot(w, y) / total
    sst = np.dot(w, (y - mean) ** 2)
    if sst == 0.0:  # a constant target: scikit-learn's r2_score convention
        return np.where(loss == 0.0, 1.0, 0.0)
    return 1.0 - loss / sst


def ccp_cv(X, y, *, cv=5, sample_weight=None, shuffle=False, random_state=None, **fit_params):
    """Choose ``ccp_alpha`` by cross-validation over the whole cost-complexity path.

    One tree is grown on all rows; its pruning path gives the candidate alphas. One
    tree is grown per fold; every held-out row is walked down its fold tree once and
    scored against every node of its path, which gives the fold's score at every step
    of the fold tree's own path (:func:`fastdt._prune.path_losses`). No tree is refitted
    or rebuilt per alpha, so the whole path costs about ``cv + 1`` fits.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        As :func:`fastdt.fit` (not a ``Dataset``).
    y : array-like of shape (n_samples,)
    cv : int or iterable of (train, test) index arrays, default=5
        An int: that many folds, stratified by class for classification (each class's
        rows dealt round-robin), contiguous blocks for regression. Or the splits
        themselves, e.g. a scikit-learn splitter's ``split(X, y)``.
    sample_weight : array-like of shape (n_samples,), optional
        Used to grow the trees and to weight the validation scores.
    shuffle : bool, default=False
        Shuffle the rows before dealing an integer ``cv``.
    random_state : int, numpy Generator or None
        Seeds the shuffle.
    **fit_params
        Passed to :func:`fastdt.fit` (all but ``ccp_alpha``).

    Returns
    -------
    CCPCVResult
        ``best_alpha``, ``best_score``, ``alphas``, ``scores`` (mean validation
        accuracy for classification, R^2 for regression), ``scores_std``,
        ``fold_scores`` and ``tree`` (the tree of all rows pruned at ``best_alpha``).

    Examples
    --------
    >>> result = fastdt.ccp_cv(X, y, cv=5, min_samples_leaf=5)   # doctest: +SKIP
    >>> tree = result.tree  # == fastdt.fit(X, y, ccp_alpha=result.best_alpha, ...)
    """
    from .dataset import Dataset

    if isinstance(X, Dataset):
        raise TypeError("ccp_cv needs X as an array or DataFrame, not a Dataset "
                        "(folds are fitted on row subsets)")
    if "ccp_alpha" in fit_params:
        raise ValueError("ccp_cv chooses ccp_alpha: do not pass it")
    if not isinstance(shuffle, (bool, np.bool_)):
        raise TypeError(f"shuffle must be a bool, got {shuffle!r}")
    full = _engine.build(X, y, sample_weight, fit_params)[0]  # also checks everything
    single_output(full, "ccp_cv")
    alphas = cost_complexity_pruning_path(full).ccp_alphas
    is_clf = full.task == "classification"
    with warnings.catch_warnings():  # the fit above has warned about X already
        warnings.simplefilter("ignore", _input.NumericLookingColumnWarning)
        Xa, categories, has_nan = _input.check_X_fit(X, fit_params.get("categorical_features"))
    n = Xa.shape[0]  # has_nan: of every fold's rows, which then take the general walk
    if full.params.get("missing") == "fractional" and has_nan:
        raise ValueError("ccp_cv cannot score missing='fractional' trees on rows with "
                         "missing values (they are predicted down both branches)")
    if is_clf:
        target = _input.check_y_classification(y, n)[1]
        target_f = target.astype(np.float64)
    else:
        target = target_f = _input.check_y_regression(y, n)
    sw = _input.check_sample_weight(sample_weight, n)
    splits = _folds(cv, target if is_clf else None, n, shuffle, random_state)
    mask = np.array([c is not None for c in categories])
    params = dict(fit_params, task=full.task,
                  categorical_features=mask if mask.any() else None)
    fold_scores = np.empty((len(splits), alphas.shape[0]))
    for j, (tr, te) in enumerate(splits):
        t = _engine.build(Xa[tr], target[tr], None if sample_weight is None else sw[tr],
                          params)[0]
        t_alphas, _, _, step = _weakest_link(t, np.inf)
        loss = np.empty(t_alphas.shape[0])
        from ._prune import path_losses

        indptr, indices = decision_path(t, np.ascontiguousarray(Xa[te]), has_nan)
        path_losses(indptr, indices, target_f[te], sw[te], _node_predictions(t), is_clf,
                    step, loss)
        score = _score(loss, target_f[te], sw[te], is_clf)
        # a candidate prunes the fold tree up to its first path alpha above it
        k = np.searchsorted(np.maximum.accumulate(t_alphas[1:]), alphas, side="right")
        fold_scores[j] = score[k]
    scores = fold_scores.mean(axis=0)
    best = int(np.flatnonzero(scores >= scores.max())[-1])
    best_alpha = float(alphas[best])
    return CCPCVResult(best_alpha, float(scores[best]), alphas, scores,
                       fold_scores.std(axis=0), fold_scores, prune(full, best_alpha))


# ----------------------------------------------------------------- reduced error


def prune_reduced_error(tree, X_val, y_val, *, sample_weight=None):
    """Reduced-error pruning (Quinlan 1987) on a validation set.

    Bottom-up, every internal node is replaced by a leaf (predicting the node's
    training class, or value) when the leaf's loss on the validation rows reaching the
    node is at most the loss of the branch below it: errors for classification,
    squared error for regression. Branches no validation row reaches are pruned, as
    they cannot lower the validation loss. The result is the smallest subtree of least
    validation loss.

    Parameters
    ----------
    tree : Tree or fitted estimator
    X_val : array-like or DataFrame of shape (n_samples, n_features)
    y_val : array-like of shape (n_samples,)
        Labels the tree knows (classification) or numeric targets.
    sample_weight : array-like of shape (n_samples,), optional
        Weights of the validation rows.

    Returns
    -------
    Tree
        A new, compact Tree.
    """
    single_output(tree, "prune_reduced_error")
    tree = _tree_of(tree)
    binary_only(tree, "reduced-error pruning")
    Xa, has_nan = X_for(tree, X_val)
    n = Xa.shape[0]
    is_clf = tree.task == "classification"
    if has_nan and tree.params.get("missing") == "fractional":
        raise ValueError("prune_reduced_error cannot score missing='fractional' trees on "
                         "rows with missing values (they are predicted down both branches)")
    if is_clf:
        target = _input.class_codes(tree.classes, y_val, n).astype(np.float64)
        node_pred = np.argmax(tree.value, axis=1).astype(np.float64)
    else:
        target = _input.check_y_regression(y_val, n)
        node_pred = _node_predictions(tree)
    sw = _input.check_sample_weight(sample_weight, n)
    leaf_loss = np.empty(tree.node_count)
    from ._prune import node_losses, reduced_error

    node_losses(*decision_path(tree, Xa, has_nan), target, sw, node_pred, is_clf, leaf_loss)
    keep = np.empty(tree.node_count, dtype=np.uint8)
    reduced_error(tree.left, leaf_loss, keep)
    return _subtree(tree, keep, pruning="reduced_error")


# ----------------------------------------------------------------- the subtree


def _subtree(tree, keep, **params):
    """The nodes with ``keep == 1`` as a Tree of their own (kept nodes whose children
    are gone become leaves), renumbered breadth-first; ``params`` update the record of
    the parameters."""
    internal = (tree.left != LEAF) & (keep[np.maximum(tree.left, 0)] == 1)
    left = np.where(internal, tree.left, LEAF).astype(np.int32)
    right = np.where(internal, tree.right, LEAF).astype(np.int32)
    order = bfs_order(left, right)
    new_id = np.full(tree.node_count, -1, dtype=np.int64)
    new_id[order] = np.arange(order.shape[0])
    inner = internal[order]
    m = order.shape[0]
    new_left = np.where(inner, new_id[left[order]], LEAF).astype(np.int32)
    arrays = {
        "feature": np.where(inner, tree.feature[order], LEAF).astype(np.int32),
        "threshold": np.where(inner, tree.threshold[order], np.nan),
        "left": new_left,
        "right": np.where(inner, new_left + 1, LEAF).astype(np.int32),
        "value": tree.value[order].copy(),
        "impurity": tree.impurity[order].copy(),
        "n_node_samples": tree.n_node_samples[order].copy(),
        "weighted_n_node_samples": tree.weighted_n_node_samples[order].copy(),
        "depth": tree.depth[order].copy(),
        "missing_go_left": np.where(inner, tree.missing_go_left[order], 0).astype(np.uint8),
        **empty_extras(m, tree.n_features),
        "n_categories": tree.n_categories.copy(),
    }
    words, offsets, pos = [], np.full(m, -1, dtype=np.int64), 0
    ptr = np.zeros(m + 1, dtype=np.int64)
    sur = []
    for j in np.flatnonzero(inner):
        old = order[j]
        if tree.cat_offset[old] >= 0:
            w = (int(tree.n_categories[tree.feature[old]]) + 63) // 64
            words.append(tree.cat_bitsets[tree.cat_offset[old]:tree.cat_offset[old] + w])
            offsets[j] = pos
            pos += w
        s0, s1 = tree.surrogate_ptr[old], tree.surrogate_ptr[old + 1]
        ptr[j + 1] = s1 - s0
        sur.append(np.arange(s0, s1))
    np.cumsum(ptr, out=ptr)
    rows = np.concatenate(sur) if sur else np.zeros(0, dtype=np.int64)
    arrays.update({
        "cat_offset": offsets,
        "cat_bitsets": np.concatenate(words).astype(np.uint64) if words else np.zeros(0, np.uint64),
        "surrogate_ptr": ptr,
        "surrogate_feature": tree.surrogate_feature[rows].copy(),
        "surrogate_threshold": tree.surrogate_threshold[rows].copy(),
        "surrogate_left_if_le": tree.surrogate_left_if_le[rows].copy(),
    })
    return Tree(arrays, task=tree.task, n_features=tree.n_features, classes=tree.classes,
                n_outputs=tree.n_outputs,
                feature_names=tree.feature_names, categories=tree.categories,
                criterion=tree.criterion, params={**tree.params, **params},
                format_version=tree.format_version).validate()

"""The functional API: ``fit`` returns a :class:`~fastdt.tree.Tree`; the rest read one.

All checks happen in :mod:`fastdt._input` before any kernel runs; the kernels live in
``_exact`` / ``_grow`` (fitting) and :mod:`fastdt.kernels` (prediction).
"""

import numpy as np

from . import _input
from ._config import (
    CRITERIA_CLF, CRITERIA_REG, DEFAULT_MAX_BINS, FORMAT_VERSION, HIST_POOL_BYTES, ID_DTYPE,
    LEAF, MISSING_STRATEGIES, POISSON,
)
from ._exact import presort
from ._grow import bfs_order, grow_tree
from ._hist import grow_hist, row_arrays
from .dataset import Dataset
from .pruning import prune
from .kernels import (
    apply_batch, apply_numeric_batch, decision_path_batch, step_arrays, value_fractional_batch,
)
from .tree import Tree, empty_extras

__all__ = ["fit", "predict", "predict_proba", "apply", "decision_path"]


def fit(X, y, *, sample_weight=None, **params):
    """Fit one exact CART decision tree.

    Parameters
    ----------
    X : array-like or pandas DataFrame of shape (n_samples, n_features)
        Numeric features. float32 and float64 are used at the precision given; other
        numeric dtypes become float64. DataFrame column names become feature names.
    y : array-like of shape (n_samples,)
        Class labels (any type; classification) or a numeric target (regression).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights.
    task : {"classification", "regression"}, optional
        Inferred when omitted: from ``criterion`` if given, else floating-point ``y``
        means regression and anything else classification.
    criterion : str, optional
        Classification: ``"gini"`` (default), ``"entropy"``/``"log_loss"``,
        ``"gain_ratio"`` (C4.5). Regression: ``"squared_error"`` (default),
        ``"friedman_mse"`` (same splits as squared error), ``"poisson"``.
    max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf,
    max_features, random_state, max_leaf_nodes, min_impurity_decrease, class_weight
        As in scikit-learn's ``DecisionTreeClassifier``/``DecisionTreeRegressor``.
        Ties between equally good splits go to the lowest feature index, then the
        lowest threshold.

    Returns
    -------
    Tree
    """
    p = _input.check_params(params)
    splitter = p["splitter"] or ("hist" if isinstance(X, Dataset) else "best")
    if isinstance(X, Dataset):
        if splitter != "hist":
            raise ValueError("a Dataset holds binned features: fit it with splitter='hist'")
        if p["categorical_features"] is not None:
            raise ValueError(
                "categorical_features is set when the Dataset is built: "
                "Dataset(X, categorical_features=...)"
            )
        if p["max_bins"] is not None and p["max_bins"] != X.max_bins:
            raise ValueError(
                f"max_bins={p['max_bins']} differs from the Dataset's max_bins={X.max_bins}; "
                "bin a new Dataset to change it"
            )
        dataset, Xa = X, None
        feature_names = X.feature_names
        n, n_features = X.shape
        categories = X.categories
    else:
        if splitter == "best" and p["max_bins"] is not None:
            raise ValueError("max_bins applies to splitter='hist' only")
        dataset = None
        feature_names = _input.feature_names_of(X)
        Xa, categories = _input.check_X_fit(X, p["categorical_features"])
        n, n_features = Xa.shape
    n_categories = _input.n_categories_of(categories)
    mode = MISSING_STRATEGIES.index(p["missing"])
    if splitter == "hist" and mode != 0:
        raise ValueError(
            f"missing={p['missing']!r} needs splitter='best'; the histogram splitter "
            "learns the side of missing values (missing='learn')"
        )
    task = _input.infer_task(y, p["task"], p["criterion"])
    criterion = p["criterion"] or ("gini" if task == "classification" else "squared_error")
    if task == "classification" and criterion not in CRITERIA_CLF:
        raise ValueError(f"criterion={criterion!r} is a regression criterion")
    if task == "regression" and criterion not in CRITERIA_REG:
        raise ValueError(f"criterion={criterion!r} is a classification criterion")
    if task == "regression" and p["class_weight"] is not None:
        raise ValueError("class_weight applies to classification only")
    sw = _input.check_sample_weight(sample_weight, n)

    if task == "classification":
        classes, target = _input.check_y_classification(y, n)  # int32 class codes
        cw = _input.class_weights(p["class_weight"], classes, target)
        if cw is not None:
            sw = sw * cw
            if not sw.sum() > 0:
                raise ValueError("class_weight leaves every sample with zero weight")
        crit = CRITERIA_CLF[criterion]
        n_stats = len(classes)
    else:
        classes = None
        target = _input.check_y_regression(y, n)
        crit = CRITERIA_REG[criterion]
        if crit == POISSON:
            if np.any(target < 0) or not (target * sw).sum() > 0:
                raise ValueError(
                    "criterion='poisson' needs y >= 0 with a positive (weighted) sum"
                )
        n_stats = 3

    lim = _input.resolve_limits(p, n, n_features, sw)
    seed = _input.seed_from(p["random_state"])
    growth = (
        lim["max_depth"], lim["min_samples_split"], lim["min_samples_leaf"],
        lim["min_weight_leaf"], lim["min_impurity_decrease"], lim["max_features"],
        lim["max_leaf_nodes"], seed,
    )
    is_clf = task == "classification"
    # Samples of weight zero are left out of the growth, as scikit-learn's splitter
    # does: they count in no node (n_node_samples, min_samples_*) and place no threshold.
    # Fractional min_samples_* were resolved above from all samples, as scikit-learn.
    positive = None
    if not sw.min() > 0:
        positive = sw > 0
        target = target[positive]
        sw = sw[positive]
    # None: every weight is 1 (fractional rows need weights of their own)
    has_nan = Xa is not None and mode == 1 and bool(np.isnan(Xa).any())
    weights = sw if np.any(sw != 1.0) or has_nan else None
    del sw  # per-row arrays are the memory of a large fit: keep only what grows
    if splitter == "hist":
        own = dataset is None  # binned here: the fit may rearrange the codes in place
        if own:
            dataset = Dataset._from_checked(Xa, categories, p["max_bins"] or DEFAULT_MAX_BINS,
                                            feature_names)
            del Xa  # the codes are all a histogram fit needs
        inode, fnode, stats, cat = _grow_hist(dataset, target, weights, positive, n_stats,
                                              is_clf, crit, n_categories, growth, own)
        sur, n_sur = np.zeros((inode.shape[0], 0)), np.zeros(inode.shape[0], dtype=np.int64)
    else:
        inode, fnode, stats, cat, sur, n_sur = _grow_exact(
            Xa, target, weights, positive, n_stats, is_clf, crit, n_categories, mode,
            p["max_surrogates"], growth)
    if lim["max_leaf_nodes"] > 0:
        inode, fnode, stats, cat, sur, n_sur = _renumber_bfs(inode, fnode, stats, cat, sur,
                                                             n_sur)

    wn = fnode[:, 2]
    if task == "classification":
        value = stats / wn[:, None]
    else:
        value = (stats[:, 1] / wn)[:, None]
    arrays = {
        "feature": inode[:, 0].astype(np.int32),
        "threshold": np.ascontiguousarray(fnode[:, 0]),
        "left": inode[:, 1].astype(np.int32),
        "right": inode[:, 2].astype(np.int32),
        "value": np.ascontiguousarray(value),
        "impurity": np.ascontiguousarray(fnode[:, 1]),
        "n_node_samples": inode[:, 3].copy(),
        "weighted_n_node_samples": np.ascontiguousarray(wn),
        "depth": inode[:, 4].astype(np.int32),
        "missing_go_left": inode[:, 5].astype(np.uint8),
        **empty_extras(inode.shape[0], n_features),
        **_category_arrays(inode[:, 0], cat, n_categories),
        **_surrogate_arrays(sur, n_sur),
    }
    record = {k: v for k, v in p.items() if k != "random_state"}
    record["criterion"] = criterion
    record["task"] = task
    record["splitter"] = splitter
    if splitter == "hist":
        record["max_bins"] = dataset.max_bins
    if isinstance(p["random_state"], (int, np.integer)):
        record["random_state"] = int(p["random_state"])
    if record["categorical_features"] is not None:
        record["categorical_features"] = np.asarray(record["categorical_features"]).tolist()
    if isinstance(record.get("class_weight"), dict):
        record["class_weight"] = {str(k): float(v) for k, v in record["class_weight"].items()}
    tree = Tree(
        arrays, task=task, n_features=n_features, classes=classes,
        feature_names=feature_names, categories=categories, criterion=criterion, params=record,
        format_version=FORMAT_VERSION,
    )
    if p["ccp_alpha"] > 0.0:  # minimal cost-complexity pruning, as scikit-learn
        tree = prune(tree, p["ccp_alpha"])
    return tree


def _category_arrays(feature, cat, n_categories):
    """``cat_offset``, ``cat_bitsets`` and ``n_categories`` of the format from the
    driver's per-node bitsets (``cat``: uint64 [n_nodes, W])."""
    n = feature.shape[0]
    offset = np.full(n, -1, dtype=np.int64)
    words = []
    pos = 0
    for node in np.flatnonzero(feature >= 0):
        k = int(n_categories[feature[node]])
        if k:
            w = (k + 63) // 64
            offset[node] = pos
            words.append(cat[node, :w])
            pos += w
    bitsets = np.concatenate(words).astype(np.uint64) if words else np.zeros(0, np.uint64)
    return {"cat_offset": offset, "cat_bitsets": bitsets,
            "n_categories": n_categories.astype(np.int32)}


def _surrogate_arrays(sur, n_sur):
    """The format's surrogate arrays (CSR by node) from the driver's per-node table
    of ``(feature, threshold, left_if_le)`` triples."""
    ptr = np.zeros(n_sur.shape[0] + 1, dtype=np.int64)
    np.cumsum(n_sur, out=ptr[1:])
    rows = np.repeat(np.arange(n_sur.shape[0]), n_sur)
    cols = np.arange(rows.shape[0]) - ptr[rows]
    triples = sur[rows[:, None], 3 * cols[:, None] + np.arange(3)] if rows.size else np.zeros((0, 3))
    return {
        "surrogate_ptr": ptr,
        "surrogate_feature": triples[:, 0].astype(np.int32),
        "surrogate_threshold": np.ascontiguousarray(triples[:, 1]),
        "surrogate_left_if_le": triples[:, 2].astype(np.uint8),
    }


def _grow_exact(Xa, target, weights, positive, n_stats, is_clf, crit, n_categories, mode,
                max_surrogates, growth):
    """Presort, then grow (``weights``: None when every weight is 1; ``positive``: the
    rows kept, None for all)."""
    if positive is not None:
        Xa = np.ascontiguousarray(Xa[positive])
    n, n_features = Xa.shape
    target = target.astype(np.float64)
    sw = np.empty(0) if weights is None else weights
    idx = np.empty((n_features, n), dtype=ID_DTYPE)
    xs = np.empty((n_features, n), dtype=Xa.dtype)
    ys = np.empty((n_features, n), dtype=np.float64)
    ws = np.empty((n_features, n if weights is not None else 0), dtype=np.float64)
    # ties in a feature are broken by (y, w), so that row order cannot change the sums
    base = (np.argsort(target, kind="stable") if weights is None
            else np.lexsort((weights, target)))
    presort(Xa, target, sw, base.astype(ID_DTYPE), idx, xs, ys, ws)
    rows = Xa if mode == 2 else np.empty((0, n_features), dtype=Xa.dtype)
    return grow_tree(idx, xs, ys, ws, n_stats, is_clf, crit, n_categories, rows, mode,
                     max_surrogates, *growth)


def _grow_hist(dataset, target, weights, positive, n_stats, is_clf, crit, n_categories,
               growth, own):
    """Bin-code layout, then grow (arguments as :func:`_grow_exact`; ``own``: the
    Dataset was made by this fit, so its codes may be rearranged in place)."""
    if positive is None:
        # partitioned in place by the fit: a user's Dataset is copied, never changed
        codes = dataset.codes if own else dataset.codes.copy()
        codes.flags.writeable = True
    else:
        codes = np.ascontiguousarray(dataset.codes[:, positive])
    weighted = weights is not None
    ycode, rstat = row_arrays(target, weights, is_clf, crit)
    width = n_stats + (1 if weighted else 0)
    # a histogram has one bin more than the most value bins: the missing bin
    slot_bytes = 8 * width * codes.shape[0] * (dataset.bin_lo.shape[1] + 1)
    max_slots = max(2, HIST_POOL_BYTES // slot_bytes)
    return grow_hist(
        codes, ycode, rstat, weighted, n_stats, is_clf, crit, dataset.n_bins,
        dataset.bin_lo, dataset.bin_hi, n_categories, *growth, max_slots,
    )


def _renumber_bfs(inode, fnode, stats, cat, sur, n_sur):
    order = bfs_order(inode[:, 1], inode[:, 2])
    new_id = np.full(inode.shape[0], -1, dtype=np.int64)
    new_id[order] = np.arange(order.shape[0])
    inode = inode[order].copy()
    for col in (1, 2):
        internal = inode[:, col] >= 0
        inode[internal, col] = new_id[inode[internal, col]]
    return (inode, fnode[order].copy(), stats[order].copy(), cat[order].copy(),
            sur[order].copy(), n_sur[order].copy())


def _check_tree(tree):
    if not isinstance(tree, Tree):
        raise TypeError(f"expected a fastdt Tree, got {type(tree).__name__}")


def _X_for(tree, X, estimator_name=None):
    """``(X as the kernels take it, whether it holds NaN)``."""
    _check_tree(tree)
    return _input.check_X_predict(
        X, n_features=tree.n_features, feature_names=tree.feature_names,
        estimator_name=estimator_name, categories=tree.categories,
    )


def _numeric_route(tree, has_nan):
    """Whether rows take the branch-free kernels: numeric-only tree, no NaN in X."""
    return not has_nan and tree.cat_bitsets.shape[0] == 0 and tree.surrogate_feature.shape[0] == 0


def _leaves(tree, Xa, has_nan):
    out = np.empty(Xa.shape[0], dtype=np.int64)
    # numeric-only trees and rows without NaN take the branch-free kernel
    if _numeric_route(tree, has_nan):
        packed, thresholds = step_arrays(tree.arrays, Xa.dtype)
        apply_numeric_batch(packed, thresholds, tree.max_depth, Xa, out)
    else:
        apply_batch(tree.arrays, Xa, out)
    return out


def apply(tree, X, *, _estimator_name=None):
    """Leaf id (int64) reached by every row of ``X``."""
    return _leaves(tree, *_X_for(tree, X, _estimator_name))


def _values(tree, X, estimator_name=None):
    Xa, has_nan = _X_for(tree, X, estimator_name)
    if has_nan and tree.params.get("missing") == "fractional":
        # a row missing a split's feature goes down both branches (C4.5)
        out = np.empty((Xa.shape[0], tree.n_values))
        value_fractional_batch(tree.arrays, Xa, out)
        return out
    return np.take(tree.value, _leaves(tree, Xa, has_nan), axis=0)


def predict_proba(tree, X, *, _estimator_name=None):
    """Class probabilities (weighted class fractions of the leaf), shape (n, n_classes)."""
    _check_tree(tree)
    if tree.task != "classification":
        raise ValueError("predict_proba needs a classification tree")
    return _values(tree, X, _estimator_name)


def predict(tree, X, *, _estimator_name=None):
    """Predicted class labels (original label type) or regression values."""
    _check_tree(tree)
    values = _values(tree, X, _estimator_name)
    if tree.task == "classification":
        return tree.classes[np.argmax(values, axis=1)]
    return values[:, 0]


def decision_path(tree, X, *, _estimator_name=None):
    """Nodes visited by every row, as CSR arrays ``(indptr, indices)`` (int64).

    Row ``i`` visits ``indices[indptr[i]:indptr[i + 1]]``, root first. Wrap with
    ``scipy.sparse.csr_matrix((np.ones_like(indices), indices, indptr))`` for an
    indicator matrix.
    """
    Xa, has_nan = _X_for(tree, X, _estimator_name)
    leaves = _leaves(tree, Xa, has_nan)
    indptr = np.zeros(Xa.shape[0] + 1, dtype=np.int64)
    np.cumsum(tree.depth[leaves].astype(np.int64) + 1, out=indptr[1:])
    indices = np.empty(indptr[-1], dtype=np.int64)
    decision_path_batch(tree.arrays, Xa, indptr, indices)
    return indptr, indices

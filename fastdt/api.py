"""The functional API: ``fit`` returns a :class:`~fastdt.tree.Tree`; the rest read one.

``fit`` is the engine's composition (:mod:`fastdt._engine`: prepare, grow, assemble)
and, with ``ccp_alpha``, :func:`fastdt.prune`;
prediction routes rows through :mod:`fastdt._predict`. Every check happens in
:mod:`fastdt._input` before any kernel runs.
"""

import numpy as np

from . import _engine, _predict
from .pruning import prune

__all__ = ["fit", "predict", "predict_proba", "apply", "decision_path"]


def fit(X, y, *, sample_weight=None, algorithm="cart", **params):
    """Fit one decision tree: CART (binary splits, the default), C4.5 or ID3.

    Parameters
    ----------
    X : array-like, pandas DataFrame or fastdt.Dataset of shape (n_samples, n_features)
        Features. float32 and float64 are used at the precision given; other numeric
        dtypes become float64. DataFrame column names become feature names; category,
        object, string and bool columns are categorical; NaN/None is missing. A
        ``Dataset`` (binned features) implies ``splitter="hist"``.
    y : array-like of shape (n_samples,)
        Class labels (any type; classification) or a numeric target (regression).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights.
    algorithm : {"cart", "c4.5", "id3"}, default="cart"
        ``"c4.5"`` and ``"id3"`` grow multiway classification trees as Quinlan's
        C4.5 Release 8 and ID3 do (one branch per category of a nominal feature); they
        take ``min_samples_leaf``, ``max_depth`` and ``categorical_features``, and C4.5
        also ``confidence`` (0.25), ``prune`` (True) and ``subtree_raising`` (True).
        See docs/multiway.md. The parameters below are CART's.
    task : {"classification", "regression"}, optional
        Inferred when omitted: from ``criterion`` if given, else floating-point ``y``
        means regression and anything else classification.
    criterion : str, optional
        Classification: ``"gini"`` (default), ``"entropy"``/``"log_loss"``,
        ``"gain_ratio"`` (C4.5). Regression: ``"squared_error"`` (default),
        ``"friedman_mse"`` (same splits as squared error), ``"poisson"``.
    max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf,
    max_features, random_state, max_leaf_nodes, min_impurity_decrease, class_weight,
    ccp_alpha
        As in scikit-learn's ``DecisionTreeClassifier``/``DecisionTreeRegressor``.
        Ties between equally good splits go to the lowest feature index, then the
        lowest threshold.
    splitter, max_bins, categorical_features, missing, max_surrogates
        See the README's parameter table.

    Returns
    -------
    Tree
    """
    if algorithm != "cart":
        from . import multiway

        if algorithm not in multiway.ALGORITHMS:
            raise ValueError(f"algorithm={algorithm!r} is not one of ('cart', "
                             f"{', '.join(map(repr, multiway.ALGORITHMS))})")
        return multiway.fit(X, y, algorithm=algorithm, sample_weight=sample_weight, **params)
    tree, prep = _engine.build(X, y, sample_weight, params)
    if prep.ccp_alpha > 0.0:  # minimal cost-complexity pruning, as scikit-learn
        tree = prune(tree, prep.ccp_alpha)
    return tree


def apply(tree, X, *, _estimator_name=None):
    """Leaf id (int64) reached by every row of ``X``."""
    if getattr(tree, "kind", None) == "forest":
        from .ensemble import api as forest_api

        return forest_api.apply(tree, X, _estimator_name)
    if _predict.is_sparse(X):  # dense row blocks, never the whole matrix
        return _predict.by_blocks(apply, tree, X, _estimator_name=_estimator_name)
    return _predict.leaves(tree, *_predict.X_for(tree, X, _estimator_name))


def predict_proba(tree, X, *, _estimator_name=None):
    """Class probabilities (weighted class fractions of the leaf; a forest: their mean
    over the trees), shape (n, n_classes); with several outputs, a list of one such
    array per output."""
    kind = _check_model(tree)
    if tree.task != "classification":
        raise ValueError(f"predict_proba needs a classification {kind}")
    values = _leaf_values(tree, X, _estimator_name)
    if tree.n_outputs == 1:
        return values
    off = tree.value_offsets
    return [np.ascontiguousarray(values[:, off[k]:off[k + 1]]) for k in range(tree.n_outputs)]


def predict(tree, X, *, _estimator_name=None):
    """Predicted class labels (original label type) or regression values (a forest:
    from the mean of its trees' leaf values); with several outputs, shape
    (n, n_outputs)."""
    _check_model(tree)
    values = _leaf_values(tree, X, _estimator_name)
    if tree.task == "classification":
        if tree.n_outputs == 1:
            return tree.classes[np.argmax(values, axis=1)]
        off = tree.value_offsets
        cols = [tree.classes[k][np.argmax(values[:, off[k]:off[k + 1]], axis=1)]
                for k in range(tree.n_outputs)]
        dtypes = {c.dtype for c in cols}
        return np.column_stack(cols) if len(dtypes) == 1 else np.column_stack(
            [c.astype(object) for c in cols])
    return values[:, 0] if tree.n_outputs == 1 else values


def _check_model(model):
    """``"forest"`` or ``"tree"``; a ``TypeError`` for anything else."""
    if getattr(model, "kind", None) == "forest":
        return "forest"
    _predict.check_tree(model)
    return "tree"


def _leaf_values(model, X, estimator_name):
    """The leaf values of every row (float64 [n, n_values]): a Tree's
    (:func:`fastdt._predict.values`), or the mean of a Forest's trees'; a sparse X one
    dense row block at a time."""
    if getattr(model, "kind", None) == "forest":
        from .ensemble.api import forest_values

        return forest_values(model, X, estimator_name)
    if _predict.is_sparse(X):  # dense row blocks, never the whole matrix
        return _predict.by_blocks(_leaf_values, model, X, estimator_name)
    return _predict.values(model, X, estimator_name)


def decision_path(tree, X, *, _estimator_name=None):
    """Nodes visited by every row, as CSR arrays ``(indptr, indices)`` (int64).

    Row ``i`` visits ``indices[indptr[i]:indptr[i + 1]]``, root first. Wrap with
    ``scipy.sparse.csr_matrix((np.ones_like(indices), indices, indptr))`` for an
    indicator matrix.
    """
    if _predict.is_sparse(X):  # dense row blocks, never the whole matrix
        return _predict.by_blocks(decision_path, tree, X, _estimator_name=_estimator_name)
    return _predict.decision_path(tree, *_predict.X_for(tree, X, _estimator_name))

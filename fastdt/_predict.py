"""Rows through a fitted tree: ``X`` checked for the tree, then the prediction kernels.

Shared by the functional API (:mod:`fastdt.api`), pruning and inspection. The kernels
(:mod:`fastdt.kernels`) are serial; blocks of rows run on threads
(:mod:`fastdt._parallel`), one thread for small inputs.
"""

import numpy as np

from . import _input
from .tree import Tree


def check_tree(tree):
    if not isinstance(tree, Tree):
        raise TypeError(f"expected a fastdt Tree, got {type(tree).__name__}")


# values per dense block of a sparse X being predicted (8 Mi values: 64 MiB in float64)
SPARSE_BLOCK_VALUES = 1 << 23

#: Steps of rows down a tree that count as one value read (the threads' work unit,
#: :mod:`fastdt._parallel`): a step takes about 0.7 ns, and a prediction on two threads
#: paid from about 500,000 steps (Adult's folds, trees of depth 8 and 36: below, the
#: hand-off to the second thread cost up to twice what it saved; 20,000 rows of the
#: depth-8 tree 149 us on one thread, 303 us on two).
STEPS_A_VALUE = 5


def _work(tree, n):
    """The work a prediction of ``n`` rows reports to the threads."""
    return n * max(1, tree.max_depth) // STEPS_A_VALUE


is_sparse = _input.is_sparse  # (re-exported: api and the forests ask here)


def sparse_blocks(X, n_features):
    """Dense row blocks of a sparse ``X`` (CSR rows; implicit entries are 0.0, stored
    NaN missing), at most :data:`SPARSE_BLOCK_VALUES` values each: the whole matrix is
    never dense at once. At least one block (maybe of zero rows)."""
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    X = X.tocsr()
    rows = max(1, SPARSE_BLOCK_VALUES // max(1, X.shape[1], n_features))
    for i in range(0, max(X.shape[0], 1), rows):
        yield X[i:i + rows].toarray()


def by_blocks(fn, tree, X, *args, **kwargs):
    """``fn(tree, X, ...)`` on a sparse ``X`` one dense row block at a time, the
    results joined (arrays, lists of arrays, or CSR ``(indptr, indices)`` pairs)."""
    check_tree(tree)
    parts = [fn(tree, b, *args, **kwargs) for b in sparse_blocks(X, tree.n_features)]
    first = parts[0]
    if isinstance(first, tuple):  # decision_path's (indptr, indices)
        indptr = [first[0]]
        for p in parts[1:]:
            indptr.append(p[0][1:] + indptr[-1][-1])
        return np.concatenate(indptr), np.concatenate([p[1] for p in parts])
    if isinstance(first, list):  # predict_proba with several outputs
        return [np.concatenate([p[k] for p in parts]) for k in range(len(first))]
    return np.concatenate(parts)


def single_output(tree, what):
    """A ``ValueError`` for a tool that handles one output, given a tree (or a fitted
    estimator) with several; anything else is left to the tool's own checks."""
    tree = getattr(tree, "tree_", tree)
    if isinstance(tree, Tree) and tree.n_outputs > 1:
        raise ValueError(f"{what} handles trees with one output; this tree has "
                         f"{tree.n_outputs}")


def X_for(tree, X, estimator_name=None):
    """``(X as the kernels take it, whether it holds NaN)``."""
    check_tree(tree)
    return _input.check_X_predict(
        X, n_features=tree.n_features, feature_names=tree.feature_names,
        estimator_name=estimator_name, categories=tree.categories,
    )


def numeric_route(tree, has_nan):
    """Whether rows take the branch-free kernels: numeric-only tree, no NaN in X."""
    return (not has_nan and tree.cat_bitsets.shape[0] == 0
            and tree.surrogate_feature.shape[0] == 0 and not tree.is_multiway.any())


def leaves(tree, Xa, has_nan):
    """Leaf id (int64) of every row of the checked ``Xa``."""
    from ._parallel import run_rows
    from .kernels import apply_batch, apply_numeric_batch, step_arrays

    out = np.empty(Xa.shape[0], dtype=np.int64)
    work = _work(tree, Xa.shape[0])
    # numeric-only trees and rows without NaN take the branch-free kernel
    if numeric_route(tree, has_nan):
        packed, thresholds = step_arrays(tree.arrays, Xa.dtype)
        run_rows(apply_numeric_batch, Xa.shape[0], work, (packed, thresholds, tree.max_depth),
                 Xa, out)
    else:
        run_rows(apply_batch, Xa.shape[0], work, (tree.arrays,), Xa, out)
    return out


def values(tree, X, estimator_name=None):
    """``value`` of the leaf of every row (fractional trees: the weighted mean of the
    leaves a row missing a value reaches)."""
    return values_of(tree, *X_for(tree, X, estimator_name))


def values_of(tree, Xa, has_nan):
    """:func:`values` of rows already checked (:func:`X_for`)."""
    if has_nan and tree.params.get("missing") == "fractional":
        # a row missing a split's feature goes down both branches (C4.5)
        from ._parallel import run_rows
        from .kernels import value_fractional_batch

        out = np.empty((Xa.shape[0], tree.n_values))
        run_rows(value_fractional_batch, Xa.shape[0], _work(tree, Xa.shape[0]),
                 (tree.arrays,), Xa, out)
        return out
    return np.take(tree.value, leaves(tree, Xa, has_nan), axis=0)


def decision_path(tree, Xa, has_nan):
    """CSR ``(indptr, indices)`` of the nodes every row visits."""
    from ._parallel import run_rows
    from .kernels import decision_path_batch

    lv = leaves(tree, Xa, has_nan)
    indptr = np.zeros(Xa.shape[0] + 1, dtype=np.int64)
    np.cumsum(tree.depth[lv].astype(np.int64) + 1, out=indptr[1:])
    indices = np.empty(indptr[-1], dtype=np.int64)
    t = tree.arrays
    # blocks of rows and of their starts in indptr; indices is shared (disjoint parts)
    run_rows(lambda X_b, start_b: decision_path_batch(t, X_b, start_b, indices),
             Xa.shape[0], indices.shape[0], (), Xa, indptr[:-1])
    return indptr, indices

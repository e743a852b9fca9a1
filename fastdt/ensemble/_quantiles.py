"""Quantile regression forests (Meinshausen 2006): the leaf-to-training-rows map of a
regression forest and the weighted quantiles of the rows in a sample's leaves.

A forest fitted with ``leaf_samples=True`` keeps, for every leaf of every tree, the
training rows the tree grew on that fell in it and their weights there (the bootstrap
count times the sample weight): :class:`LeafSamples`, grouped by node of the forest's
concatenated arrays. For a sample ``x`` reaching leaf ``l_t`` in tree ``t``, training
row ``i`` gets the weight::

    w_i(x) = 1/T * sum_t  c_ti [i in l_t] / sum_{j in l_t} c_tj

(``c_ti``: row ``i``'s weight in tree ``t``; the weights of a tree's leaf sum to 1/T, and
the weighted mean of ``y`` is the forest's prediction). The conditional distribution
is ``F(z | x) = sum_i w_i(x) [y_i <= z]`` and the ``q``-quantile is the smallest ``y_i``
with ``F(y_i | x) >= q``, numpy's ``quantile(y, q, weights=w(x),
method="inverted_cdf")``: a non-decreasing function of ``q`` for every ``x``, so
quantiles never cross. Out of bag, ``T`` counts only the trees whose bag lacks the row.
"""

from typing import NamedTuple

import numpy as np

from .._jit import JIT


class LeafSamples(NamedTuple):
    """The training rows of every leaf of a forest (see the module docstring)."""

    ptr: np.ndarray  # int64 [n_nodes + 1]: node k's entries are ptr[k]:ptr[k + 1]
    rows: np.ndarray  # int64 [n_entries]: training row of each entry
    weight: np.ndarray  # float64 [n_entries]: > 0, its weight in that tree
    y: np.ndarray  # float64 [n_train]: the training targets


_FIELDS = {"ptr": (np.int64, 1), "rows": (np.int64, 1), "weight": (np.float64, 1),
           "y": (np.float64, 1)}


def build(forest, leaves_of_tree, weights_of_tree, y):
    """The :class:`LeafSamples` of ``forest``: ``leaves_of_tree(i)`` gives the local leaf of
    every training row in tree ``i`` and ``weights_of_tree(i)`` their weights there (0:
    not in the tree's bag)."""
    roots = forest.offsets[0]
    n_nodes = int(roots[-1])
    counts = np.zeros(n_nodes, dtype=np.int64)
    parts_rows, parts_w = [], []
    for i in range(forest.n_trees):
        w = np.asarray(weights_of_tree(i), dtype=np.float64)
        rows = np.flatnonzero(w > 0)
        leaf = leaves_of_tree(i)[rows] + roots[i]
        order = np.argsort(leaf, kind="stable")  # grouped by leaf, rows ascending
        parts_rows.append(rows[order])
        parts_w.append(w[rows[order]])
        counts += np.bincount(leaf, minlength=n_nodes)
    ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    # trees are in node order, and each tree's entries in leaf order: ptr matches
    return LeafSamples(ptr, np.concatenate(parts_rows).astype(np.int64),
                       np.concatenate(parts_w), np.asarray(y, dtype=np.float64).copy())


def validate(ls, forest):
    """Raise ``ValueError`` unless ``ls`` is a consistent map for ``forest``."""
    for name, (dtype, ndim) in _FIELDS.items():
        a = getattr(ls, name)
        if not isinstance(a, np.ndarray) or a.dtype != dtype or a.ndim != ndim:
            raise ValueError(f"leaf samples: {name} must be {np.dtype(dtype).name} "
                             f"with {ndim} dimension(s)")
    n_nodes = forest.node_count
    ptr = ls.ptr
    if ptr.shape[0] != n_nodes + 1 or ptr[0] != 0 or np.any(np.diff(ptr) < 0) \
            or ptr[-1] != ls.rows.shape[0] or ls.weight.shape[0] != ls.rows.shape[0]:
        raise ValueError("leaf samples: ptr must rise from 0 to the number of entries, "
                         "one offset per node and one more")
    internal = forest.left != -1
    if np.any(np.diff(ptr)[internal] != 0):
        raise ValueError("leaf samples: only leaves may hold training rows")
    if ls.rows.shape[0] and (ls.rows.min() < 0 or ls.rows.max() >= ls.y.shape[0]):
        raise ValueError("leaf samples: rows must index y")
    if not (np.all(np.isfinite(ls.weight)) and np.all(ls.weight > 0)):
        raise ValueError("leaf samples: weights must be finite and > 0")
    if not np.all(np.isfinite(ls.y)):
        raise ValueError("leaf samples: y must be finite")
    return ls


def check_quantiles(quantiles):
    """``quantiles`` as a float64 1-D array in [0, 1] (a scalar: one quantile)."""
    q = np.atleast_1d(np.asarray(quantiles, dtype=np.float64))
    if q.ndim != 1 or q.shape[0] == 0:
        raise ValueError("quantiles must be a number or a 1-D list of numbers in [0, 1]")
    if not np.all((q >= 0.0) & (q <= 1.0)):  # NaN fails too
        raise ValueError(f"quantiles must be in [0, 1], got {quantiles!r}")
    return q


@JIT
def quantiles_batch(ptr, rows, weight, y, qs, leaves, out):
    """``out[r, k]`` = the ``qs[k]``-quantile of the training targets weighted by the
    leaves ``leaves[r]`` (global node ids of the concatenated forest; -1: tree not used)
    reach (module docstring); NaN where no tree is used. Serial; threads run blocks
    of rows.

    Parameters
    ----------
    ptr, rows, weight, y
        The forest's :class:`LeafSamples`.
    qs : float64 [n_quantiles] in [0, 1]
    leaves : int64 [n, n_trees]
    out : float64 [n, n_quantiles]
    """
    n, n_trees = leaves.shape
    cap = 64  # scratch, grown when a row's leaves hold more entries
    vals = np.empty(cap)
    ws = np.empty(cap)
    cdf = np.empty(cap)
    for r in range(n):
        m = 0
        for t in range(n_trees):
            node = leaves[r, t]
            if node >= 0:
                m += ptr[node + 1] - ptr[node]
        if m == 0:
            out[r, :] = np.nan
            continue
        if m > cap:
            cap = 2 * m
            vals = np.empty(cap)
            ws = np.empty(cap)
            cdf = np.empty(cap)
        k = 0
        for t in range(n_trees):
            node = leaves[r, t]
            if node < 0:
                continue
            a, b = ptr[node], ptr[node + 1]
            total = 0.0
            for e in range(a, b):
                total += weight[e]
            for e in range(a, b):
                vals[k] = y[rows[e]]
                ws[k] = weight[e] / total
                k += 1
        order = np.argsort(vals[:m])
        cum = 0.0
        for j in range(m):
            cum += ws[order[j]]
            cdf[j] = cum
        for j in range(m):
            cdf[j] /= cum
        for c in range(qs.shape[0]):
            j = np.searchsorted(cdf[:m], qs[c])  # the first j with cdf[j] >= q
            out[r, c] = vals[order[min(j, m - 1)]]

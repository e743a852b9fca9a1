"""@njit kernels of :func:`fastdt.inspection.permutation_importance`.

Scoring a shuffled feature ``f`` needs the prediction of every row ``i`` with its own
values except ``x[f]``, which is taken from row ``perm[i]``. No shuffled copy of ``X``
is made, and most of the routing is skipped:

* the unshuffled path of row ``i`` (root -> its leaf) is routed the same way whatever
  ``x[f]`` is, down to the first node on it that reads ``f`` (splits on ``f`` or has a
  surrogate split on ``f``; :func:`first_reader`). A row with no such node keeps its
  unshuffled prediction; the others are routed from that node, not from the root;
* :func:`permuted_predictions` copies such rows, a block of 256 at a time, into a
  buffer of the thread's, swaps in the shuffled values and routes the block from those
  nodes in one call (:func:`fastdt.kernels.walk_batch`; fractional trees row by row);
  :func:`permuted_numeric` does the same for the trees and data that
  :func:`fastdt.kernels.apply_numeric_batch` handles (numeric splits only, no NaN),
  branch-free and four rows at a time, without a buffer: about three times faster.

The shuffled values ``X[perm[rows], f]`` are gathered by numpy beforehand: read inside
the routing loop, those random accesses doubled the kernel's time.
"""

import numpy as np
from numba import prange

from ._config import LEAF
from ._jit import JIT, PJIT
from .kernels import fractional_values, stack_size, walk_batch


@JIT
def first_reader(t, f, out):
    """``out[node]``: the shallowest strict ancestor of ``node`` that reads feature
    ``f`` (splits on it, or has a surrogate split on it); -1 if none does.

    One sweep in id order (a parent's id is smaller than its children's).

    Parameters
    ----------
    t : TreeArrays
    f : int
        Feature id.
    out : int64 [n_nodes]
        Output.
    """
    out[0] = -1
    for node in range(t.left.shape[0]):
        if t.left[node] == LEAF:
            continue
        first = out[node]
        if first < 0:
            reads = t.feature[node] == f
            for s in range(t.surrogate_ptr[node], t.surrogate_ptr[node + 1]):
                reads = reads or t.surrogate_feature[s] == f
            if reads:
                first = node
        out[t.left[node]] = first
        out[t.right[node]] = first


@PJIT
def permuted_predictions(t, X, f, rows, starts, col, node_pred, is_clf, fractional, out):
    """Predictions of ``rows`` of ``X`` with ``x[f]`` replaced by ``col`` (parallel
    over blocks of rows; ``X`` is not modified; other rows of ``out`` are not written).

    Parameters
    ----------
    t : TreeArrays
    X : float32 or float64 [n, n_features]
    f : int
        The shuffled feature.
    rows : int64 [k]
        The rows to predict.
    starts : int64 [k]
        Node to route ``rows[j]`` from: one its unshuffled path reaches (ignored when
        ``fractional``: from the root).
    col : X.dtype [k]
        The value of ``f`` for ``rows[j]``.
    node_pred : float64 [n_nodes]
        Prediction at every leaf: class code (first largest value) or value.
    is_clf : bool
        Fractional routing: predict the class code of the mixed values, else value 0.
    fractional : bool
        Route as :func:`fastdt.kernels.value_fractional_batch` (a row missing a
        split's value goes down both children) rather than to one leaf.
    out : float64 [n]
        Output: ``out[rows[j]]``.
    """
    k = rows.shape[0]
    size = stack_size(t)
    block = 256
    for blk in prange((k + block - 1) // block):
        lo, hi = blk * block, min(k, (blk + 1) * block)
        if fractional:
            x = np.empty(X.shape[1], dtype=X.dtype)
            s_node = np.empty(size, dtype=np.int64)
            s_w = np.empty(size)
            vals = np.empty(t.value.shape[1])
            for j in range(lo, hi):
                i = rows[j]
                x[:] = X[i]
                x[f] = col[j]
                fractional_values(t, x, s_node, s_w, vals)
                out[i] = np.argmax(vals) if is_clf else vals[0]
            continue
        # the block's rows, shuffled, walked in one call (a call per node that takes t
        # costs far more: see fastdt.kernels.walk_batch)
        xb = np.empty((hi - lo, X.shape[1]), dtype=X.dtype)
        for j in range(lo, hi):
            xb[j - lo] = X[rows[j]]
            xb[j - lo, f] = col[j]
        leaf = np.empty(hi - lo, dtype=np.int64)
        walk_batch(t, xb, leaf, None, None, starts[lo:hi])
        for j in range(lo, hi):
            out[rows[j]] = node_pred[leaf[j - lo]]


@PJIT
def permuted_numeric(packed, thresholds, height, X, f, rows, starts, col, node_pred, out):
    """:func:`permuted_predictions` for a numeric-only tree and ``X`` without NaN.

    Branch-free steps ``node = left + (x > threshold)`` over the arrays of
    :func:`fastdt.kernels.step_arrays` (leaves loop to themselves), reading ``col[j]``
    where a node splits on ``f``; four rows advance together, for the steps the
    deepest subtree under their start nodes may need, so their chains of loads overlap.

    Parameters
    ----------
    packed, thresholds : int64 [n_nodes], X.dtype [n_nodes]
        From :func:`fastdt.kernels.step_arrays`.
    height : int64 [n_nodes]
        Levels of the subtree under every node (1 at a leaf): a row routed from node
        ``s`` reaches its leaf in ``height[s] - 1`` steps at most.
    X, f, rows, starts, col, node_pred, out
        As :func:`permuted_predictions`.
    """
    k = rows.shape[0]
    m = 0xFFFFFFFF
    for blk in prange(k // 4):
        s = blk * 4
        i0, i1, i2, i3 = rows[s], rows[s + 1], rows[s + 2], rows[s + 3]
        c0, c1, c2, c3 = col[s], col[s + 1], col[s + 2], col[s + 3]
        k0, k1, k2, k3 = starts[s], starts[s + 1], starts[s + 2], starts[s + 3]
        for _ in range(max(height[k0], height[k1], height[k2], height[k3]) - 1):
            p0, p1, p2, p3 = packed[k0], packed[k1], packed[k2], packed[k3]
            g0, g1, g2, g3 = p0 & m, p1 & m, p2 & m, p3 & m
            k0 = (p0 >> 32) + ((c0 if g0 == f else X[i0, g0]) > thresholds[k0])
            k1 = (p1 >> 32) + ((c1 if g1 == f else X[i1, g1]) > thresholds[k1])
            k2 = (p2 >> 32) + ((c2 if g2 == f else X[i2, g2]) > thresholds[k2])
            k3 = (p3 >> 32) + ((c3 if g3 == f else X[i3, g3]) > thresholds[k3])
        out[i0], out[i1] = node_pred[k0], node_pred[k1]
        out[i2], out[i3] = node_pred[k2], node_pred[k3]
    for j in range(k - k % 4, k):
        node = starts[j]
        for _ in range(height[node] - 1):
            pk = packed[node]
            g = pk & m
            node = (pk >> 32) + ((col[j] if g == f else X[rows[j], g]) > thresholds[node])
        out[rows[j]] = node_pred[node]

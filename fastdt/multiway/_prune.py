"""C4.5's simplification of a grown tree: collapsing and error-based pruning (kernels).

Both work on the grown node tables: ``feature`` (-1 at leaves), ``threshold`` (NaN at
nominal splits), ``left``/``right`` (the children are ``left .. right``, -1 at leaves),
``dist`` (weighted class frequencies), ``items`` (their total), ``count`` (entries) and
``leaf_class`` (the class a node predicts as a leaf). They edit them in place; nodes
cut off stay in the tables, unreachable (the caller renumbers what the root reaches).

* :func:`collapse` (C4.5 Release 8, ``FormTree``): a subtree that makes at least as
  many training errors as its root would as a leaf (less ``EPSILON``) becomes a leaf.
* :func:`estimate` (Release 8, ``EstimateErrors`` in ``prune.c``): bottom-up, a node's
  predicted errors are compared as a leaf (``E + AddErrs(N, E)``, see
  :func:`fastdt._rules.added_errors`), as its subtree (the sum over its leaves)
  and, with subtree raising, as its largest branch given all of the node's cases; the
  smallest wins, with a margin of 0.1 in favour of the simpler tree.
"""

import numpy as np

from .._jit import INLINE, JIT
from .._rules import added_errors
from ._grow import EPSILON


@JIT
def collapse(left, right, feature, dist, items):
    """Collapse, children before parents (ids are breadth-first). Returns the
    subtree training errors of every node (float64 [n])."""
    n = left.shape[0]
    errors = np.zeros(n)
    for node in range(n - 1, -1, -1):
        leaf_errors = items[node] - dist[node].max() if items[node] > 0 else 0.0
        if left[node] < 0:
            errors[node] = leaf_errors
            continue
        sub = 0.0
        for c in range(left[node], right[node] + 1):
            sub += errors[c]
        errors[node] = sub
        if sub >= leaf_errors - EPSILON:
            left[node] = right[node] = feature[node] = -1
    return errors


@INLINE
def _branch(XT, row, f, threshold, nominal):
    """Branch of ``row`` at a split on ``f`` (-1: missing)."""
    v = XT[f, row]
    if np.isnan(v):
        return -1
    if nominal:
        return np.int64(v)
    return 0 if v <= threshold else 1


@JIT
def estimate(left, right, feature, threshold, ncat, dist, items, count, leaf_class,
             XT, y, rows, wts, node, update, raising, cf, coeff, top):
    """C4.5's predicted errors of the subtree at ``node`` for the cases ``rows`` (weights
    ``wts``); with ``update``, record the cases' class frequencies and prune: a node
    becomes a leaf, or (``raising``) is replaced by its largest branch, when that
    predicts no more errors (plus 0.1) than its subtree. ``cf``, ``coeff`` (``z**2``),
    ``top``: the error estimate (:func:`fastdt._rules.added_errors`)."""
    leaf_errors = 0.0
    extra = 0.0
    if update or left[node] < 0:  # (a subtree's estimate needs only its leaves')
        n_classes = dist.shape[1]
        local = np.zeros(n_classes)
        for i in range(rows.shape[0]):
            local[y[rows[i]]] += wts[i]
        cases = local.sum()
        best = leaf_class[node]
        for c in range(n_classes):
            if local[c] > local[best]:
                best = c
        leaf_errors = cases - local[best]
        extra = added_errors(cases, leaf_errors, cf, coeff, top) if cases > 0 else 0.0
        if update:
            items[node] = cases
            count[node] = rows.shape[0]
            leaf_class[node] = best
            dist[node] = local
    if left[node] < 0:
        return leaf_errors + extra

    # the cases of each branch: its known cases, then every missing one, scaled
    f = feature[node]
    nominal = ncat[f] > 0
    k = right[node] - left[node] + 1
    known_n = np.zeros(k, dtype=np.int64)
    known_w = np.zeros(k)
    branch = np.empty(rows.shape[0], dtype=np.int64)
    n_miss = 0
    for i in range(rows.shape[0]):
        b = _branch(XT, rows[i], f, threshold[node], nominal)
        branch[i] = b
        if b >= 0:
            known_n[b] += 1
            known_w[b] += wts[i]
        else:
            n_miss += 1
    known = known_w.sum()
    # the cases grouped by branch (in their order), the missing ones last: one pass
    at = np.empty(k + 1, dtype=np.int64)
    at[0] = 0
    for b in range(k):
        at[b + 1] = at[b] + known_n[b]
    miss_at = at[k]
    grouped = np.empty(rows.shape[0], dtype=np.int64)  # positions in rows
    for i in range(rows.shape[0]):
        b = branch[i]
        if b >= 0:
            grouped[at[b]] = i
            at[b] += 1
        else:
            grouped[miss_at] = i
            miss_at += 1
    tree_errors = 0.0
    max_b = -1
    max_factor = 0.0
    for b in range(k):
        if known_n[b] == 0:
            continue
        factor = known_w[b] / known
        if factor >= max_factor:
            max_b, max_factor = b, factor
        sub_rows = np.empty(known_n[b] + n_miss, dtype=np.int64)
        sub_w = np.empty(known_n[b] + n_miss)
        first = at[b] - known_n[b]  # at[b] now ends branch b's cases
        for q in range(known_n[b]):
            i = grouped[first + q]
            sub_rows[q], sub_w[q] = rows[i], wts[i]
        for q in range(n_miss):
            i = grouped[at[k] + q]  # the missing cases follow every known one
            sub_rows[known_n[b] + q], sub_w[known_n[b] + q] = rows[i], wts[i] * factor
        tree_errors += estimate(left, right, feature, threshold, ncat, dist, items, count,
                                leaf_class, XT, y, sub_rows, sub_w, left[node] + b, update,
                                raising, cf, coeff, top)
    if update == 0:
        return tree_errors
    branch_errors = np.inf
    if raising and max_b >= 0:
        branch_errors = estimate(left, right, feature, threshold, ncat, dist, items, count,
                                 leaf_class, XT, y, rows, wts, left[node] + max_b,
                                 np.int64(0), raising, cf, coeff, top)
    as_leaf = leaf_errors + extra
    if as_leaf <= branch_errors + 0.1 and as_leaf <= tree_errors + 0.1:
        left[node] = right[node] = feature[node] = -1
        threshold[node] = np.nan
        return as_leaf
    if branch_errors <= tree_errors + 0.1:  # subtree raising: the largest branch moves up
        b = left[node] + max_b
        feature[node], threshold[node] = feature[b], threshold[b]
        left[node], right[node], leaf_class[node] = left[b], right[b], leaf_class[b]
        return estimate(left, right, feature, threshold, ncat, dist, items, count,
                        leaf_class, XT, y, rows, wts, node, np.int64(1), raising, cf, coeff, top)
    return tree_errors

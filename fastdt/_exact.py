"""Exact splitter kernels: sort every feature once, then partition and scan per level.

Data layout (the "presorted" layout of SLIQ/SPRINT and early scikit-learn)::

    idx[f, :]   int32 sample ids, sorted by X[:, f] *within each node's segment*
    xs[f, :]    the matching values X[idx[f, p], f] (X's own dtype)

    feature f:  | node 3: [a3, b3) | node 4: [a4, b4) | ... finished leaves ... |
                  sorted by x_f       sorted by x_f

Every node owns the same range ``[start, end)`` in every feature's row. Splitting a node
is a *stable* partition of that range in every row (left samples first, then right), so
each child's range stays sorted and no feature is ever sorted again. Finished leaves are
simply never visited again: a level costs time in proportion to the rows of the nodes
that are still open.

One call of :func:`split_and_scan` per level does, for every feature in parallel
(``prange`` over features; each thread owns whole rows, so there are no write races):

1. partition the ranges of the nodes that were split at the previous level, using the
   per-sample ``side`` marks (0 = left, 1 = right) written by :func:`walk_splits`;
2. scan the ranges of the new open nodes left to right, accumulating weighted class
   counts (or sums of ``w*y``) as prefix sums, and score every boundary between two
   distinct values with the criterion's proxy. The best candidate of each
   (node, feature) goes into a table that is reduced serially, in feature order, by the
   driver (deterministic whatever the number of threads).
"""

import numpy as np
from numba import prange

from ._config import FEATURE_THRESHOLD, JIT, PJIT
from ._criteria import proxy_classification, proxy_regression


@PJIT
def presort(X, idx, xs):
    """Sort every column of ``X`` once.

    Parameters
    ----------
    X : float32 or float64 [n, F]
        Training data, no NaN.
    idx : int32 [F, n]
        Output: ``idx[f]`` is a stable argsort of ``X[:, f]``.
    xs : X.dtype [F, n]
        Output: ``xs[f, p] = X[idx[f, p], f]``.
    """
    n, n_features = X.shape
    for f in prange(n_features):
        col = np.empty(n, dtype=X.dtype)
        for i in range(n):
            col[i] = X[i, f]
        order = np.argsort(col, kind="mergesort")
        for p in range(n):
            i = order[p]
            idx[f, p] = i
            xs[f, p] = col[i]


@JIT
def _partition_segment(idx_f, xs_f, side, a, b, s_idx, s_x):
    """Stable in-place partition of ``idx_f[a:b]``/``xs_f[a:b]``: side 0 first, then side 1."""
    wpos = a
    r = 0
    for p in range(a, b):
        i = idx_f[p]
        if side[i] == 0:
            idx_f[wpos] = i
            xs_f[wpos] = xs_f[p]
            wpos += 1
        else:
            s_idx[r] = i
            s_x[r] = xs_f[p]
            r += 1
    for q in range(r):
        idx_f[wpos + q] = s_idx[q]
        xs_f[wpos + q] = s_x[q]


@JIT
def _scan_segment(
    idx_f, xs_f, a, b, total, w_node, imp_node, yc, wy, w, is_clf, crit,
    min_samples_leaf, min_weight_leaf, left, work,
):
    """Best split of one node on one feature.

    Returns ``(proxy, n_left, threshold, non_constant)``; ``n_left == 0`` means no
    valid split. Ties keep the first (lowest threshold) candidate.
    """
    best = -np.inf
    best_nl = 0
    best_thr = np.nan
    if xs_f[b - 1] <= xs_f[a] + FEATURE_THRESHOLD:
        return best, best_nl, best_thr, False
    for c in range(left.shape[0]):
        left[c] = 0.0
    wl = 0.0
    sl = 0.0
    for p in range(a, b - 1):
        i = idx_f[p]
        wi = w[i]
        wl += wi
        if is_clf:
            left[yc[i]] += wi
        else:
            sl += wy[i]
        x0 = xs_f[p]
        x1 = xs_f[p + 1]
        if x1 <= x0 + FEATURE_THRESHOLD:
            continue
        nl = p + 1 - a
        if nl < min_samples_leaf or b - p - 1 < min_samples_leaf:
            continue
        wr = w_node - wl
        if wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0:
            continue
        if is_clf:
            proxy = proxy_classification(crit, left, total, wl, wr, imp_node, work)
        else:
            proxy = proxy_regression(crit, sl, wl, total[1] - sl, wr)
        if proxy > best:
            best = proxy
            best_nl = nl
            thr = x0 / 2.0 + x1 / 2.0
            if thr >= x1:  # rounding reached the right value: keep x <= thr exact
                thr = x0
            best_thr = thr
    return best, best_nl, best_thr, True


@PJIT
def split_and_scan(
    idx, xs, side, part, scratch, scan, scan_stats, scan_w, scan_imp, yc, wy, w,
    is_clf, crit, min_samples_leaf, min_weight_leaf,
    out_proxy, out_nl, out_thr, out_nonconst,
):
    """Partition the nodes split last level, then scan the open nodes, for every feature.

    Parameters
    ----------
    idx, xs : int32 [F, n], X.dtype [F, n]
        The presorted layout (module docstring); partitioned in place.
    side : uint8 [n]
        0 if the sample goes to the left child of its (split) node, 1 if right.
    part : int64 [m, 2]
        ``[start, end)`` of each node to partition.
    scratch : int
        Length of the largest range in ``part`` (size of each thread's buffer).
    scan : int64 [k, 2]
        ``[start, end)`` of each node to scan.
    scan_stats, scan_w, scan_imp : float64 [k, S], [k], [k]
        Statistics, weight and impurity of each node to scan.
    yc, wy, w : int32 [n], float64 [n], float64 [n]
        Class codes (classification), ``w*y`` (regression) and sample weights.
    is_clf, crit, min_samples_leaf, min_weight_leaf
        Task flag, criterion code and leaf minimums.
    out_proxy, out_nl, out_thr, out_nonconst : [k, F] float64, int64, float64, uint8
        Output: best candidate per (node, feature).
    """
    n_features = idx.shape[0]
    n_stats = scan_stats.shape[1]
    for f in prange(n_features):
        idx_f = idx[f]
        xs_f = xs[f]
        if part.shape[0] > 0:
            s_idx = np.empty(scratch, dtype=idx.dtype)
            s_x = np.empty(scratch, dtype=xs.dtype)
            for m in range(part.shape[0]):
                _partition_segment(idx_f, xs_f, side, part[m, 0], part[m, 1], s_idx, s_x)
        left = np.empty(n_stats)
        work = np.empty(n_stats)
        for k in range(scan.shape[0]):
            proxy, nl, thr, nonconst = _scan_segment(
                idx_f, xs_f, scan[k, 0], scan[k, 1], scan_stats[k], scan_w[k], scan_imp[k],
                yc, wy, w, is_clf, crit, min_samples_leaf, min_weight_leaf, left, work,
            )
            out_proxy[k, f] = proxy
            out_nl[k, f] = nl
            out_thr[k, f] = thr
            out_nonconst[k, f] = nonconst


@PJIT
def walk_splits(idx, seg, feat, n_left, yc, wy, wt, w, is_clf, side, left_stats, right_stats):
    """Mark the side of every sample of each chosen split and sum the children's statistics.

    Parameters
    ----------
    seg : int64 [k, 2]
        ``[start, end)`` of each node.
    feat, n_left : int32 [k], int64 [k]
        Chosen feature (``-1``: none) and size of the left child.
    wt : float64 [n]
        ``w * t(y)`` for regression (see ``_criteria``).
    side : uint8 [n]
        Output marks (0 left, 1 right).
    left_stats, right_stats : float64 [k, S]
        Output: statistics of the two children.
    """
    for k in prange(seg.shape[0]):
        f = feat[k]
        left_stats[k, :] = 0.0
        right_stats[k, :] = 0.0
        if f < 0:
            continue
        a = seg[k, 0]
        b = seg[k, 1]
        m = a + n_left[k]
        for p in range(a, b):
            i = idx[f, p]
            s = left_stats[k] if p < m else right_stats[k]
            side[i] = 0 if p < m else 1
            if is_clf:
                s[yc[i]] += w[i]
            else:
                s[0] += w[i]
                s[1] += wy[i]
                s[2] += wt[i]

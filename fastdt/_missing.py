"""Surrogate splits (``missing="surrogate"``, CART / rpart) for the exact splitter.

Once a node's primary split is chosen, every row whose split feature is present has a
side (``side`` 0 or 1); the rows missing it are marked 2. A *surrogate* is a split on
another numeric feature ``g`` that mimics the primary: among the rows where both are
present, it sends as much weight as possible to the same side. As rpart's
``choose_surg`` does, one pass over ``g``'s sorted range of the node scores every
threshold with prefix sums, both ways round ("``<=`` goes left" and "``<=`` goes
right"), keeping a threshold only when it leaves at least two such rows on each side
and agrees with more weight than the majority side of those rows. The surrogates of a
node are ranked by agreement and kept when their *adjusted agreement*
``(agree - majority) / (1 - majority)`` is positive, both over all the rows the
primary sends somewhere (rpart's ``surrogatestyle = 0``): a surrogate must beat the
majority rule. Up to ``max_surrogates`` are kept.

A row missing the primary feature then takes the first surrogate whose feature it
has, else the primary's majority side (rpart's ``usesurrogate = 2``): in training by
:func:`resolve_surrogates`, at prediction by :func:`fastdt.kernels.go_left`.
Surrogates on categorical features are not searched (the tree format keeps numeric
surrogates only).
"""

import numpy as np

from ._config import FEATURE_THRESHOLD
from ._jit import JIT
from ._criteria import node_weight, split_threshold
from ._exact_scan import _add_stats


@JIT
def find_surrogates(lo, hi, idx, xs, ws, seg, feat, n_categories, side, out_agree, out_thr,
                    out_dir):
    """The best surrogate on each numeric feature ``g`` in ``[lo, hi)`` of every split node.

    Parameters
    ----------
    idx, xs, ws : the presorted layout (``_exact``).
    seg : int64 [k, 2]
        ``[start, end)`` of each node.
    feat : int32 [k]
        Primary split feature (``-1``: no split).
    n_categories : int32 [F]
    side : uint8 [n]
        Side of every row under its node's primary split (2: missing the feature).
    out_agree, out_thr, out_dir : float64 [k, F], float64 [k, F], uint8 [k, F]
        Output: agreement (weight; ``-inf`` when the feature has no surrogate
        split), threshold and direction (1: ``x <= threshold`` goes left).
    """
    n = idx.shape[1]
    weighted = ws.shape[1] == n
    for g in range(lo, hi):
        idx_g = idx[g]
        xs_g = xs[g]
        for k in range(seg.shape[0]):
            out_agree[k, g] = -np.inf
            out_thr[k, g] = np.nan
            out_dir[k, g] = 0
            f = feat[k]
            if f < 0 or f == g or n_categories[g] > 0:
                continue
            a = seg[k, 0]
            e = seg[k, 1]
            while e > a and np.isnan(xs_g[e - 1]):
                e -= 1
            w_l = 0.0  # rows with g present, by primary side
            w_r = 0.0
            n_known = 0
            for p in range(a, e):
                s = side[np.uint64(idx_g[p])]
                wi = ws[g, p] if weighted else 1.0
                if s == 0:
                    w_l += wi
                    n_known += 1
                elif s == 1:
                    w_r += wi
                    n_known += 1
            best = max(w_l, w_r)  # the majority among these rows: to be beaten
            found = False
            ll = 0.0  # at or below the threshold: primary left / right
            rl = 0.0
            below = 0
            for p in range(a, e - 1):
                s = side[np.uint64(idx_g[p])]
                wi = ws[g, p] if weighted else 1.0
                if s == 0:
                    ll += wi
                    below += 1
                elif s == 1:
                    rl += wi
                    below += 1
                x0 = xs_g[p]
                x1 = xs_g[p + 1]
                if x1 <= x0 + FEATURE_THRESHOLD or below < 2 or n_known - below < 2:
                    continue
                agree_right = rl + (w_l - ll)  # "<= goes right" (rpart's first test)
                agree_left = ll + (w_r - rl)
                if agree_right > best:
                    best = agree_right
                    out_thr[k, g] = split_threshold(x0, x1)
                    out_dir[k, g] = 0
                    found = True
                elif agree_left > best:
                    best = agree_left
                    out_thr[k, g] = split_threshold(x0, x1)
                    out_dir[k, g] = 1
                    found = True
            if found:
                out_agree[k, g] = best


@JIT
def choose_surrogates(agree, thr, direction, w_left, w_right, max_surrogates, out):
    """Rank one node's surrogates (rows of :func:`find_surrogates`' outputs).

    Keeps the features whose adjusted agreement is positive, best agreement first
    (ties: lower feature), at most ``max_surrogates``. ``w_left``/``w_right``: weight
    the primary sends each way. Writes ``(feature, threshold, direction)`` triples into
    ``out`` (float64 [3 * max_surrogates]) and returns how many.
    """
    total = w_left + w_right
    majority = max(w_left, w_right) / total
    n_features = agree.shape[0]
    taken = np.zeros(n_features, dtype=np.uint8)
    m = 0
    while m < max_surrogates:
        best_g = -1
        for g in range(n_features):
            if taken[g] or agree[g] == -np.inf:
                continue
            adj = (agree[g] / total - majority) / (1.0 - majority)
            if adj <= 0.0:
                continue
            if best_g < 0 or agree[g] > agree[best_g]:
                best_g = g
        if best_g < 0:
            break
        taken[best_g] = 1
        out[3 * m] = best_g
        out[3 * m + 1] = thr[best_g]
        out[3 * m + 2] = direction[best_g]
        m += 1
    return m


@JIT
def resolve_surrogates(lo, hi, X, idx, xs, ys, ws, seg, feat, sur, n_sur, mgl, is_clf, crit,
                       side, left_stats, right_stats, n_left, n_right):
    """Send the rows missing their node's split feature by the node's surrogates (nodes
    ``[lo, hi)``).

    For each node, the rows of ``feat``'s range whose value is missing (last in the
    range) try the surrogates ``sur[k, :3 * n_sur[k]]`` in order, reading their own
    row of ``X``, then fall back to ``mgl[k]``; their side is written to ``side`` and
    their statistics added to the child they join.

    Parameters
    ----------
    X : float32 or float64 [n, F]
        The training rows (ids of the layout are rows of ``X``).
    sur : float64 [k, 3 * S]
        ``(feature, threshold, left_if_le)`` triples (:func:`choose_surrogates`).
    n_sur : int64 [k]
    Other parameters are those of :func:`fastdt._exact_scan.walk_nodes`.
    """
    weighted = ws.shape[1] == idx.shape[1]
    for k in range(lo, hi):
        f = feat[k]
        if f < 0:
            continue
        a = seg[k, 0]
        b = seg[k, 1]
        p = b
        while p > a and np.isnan(xs[f, p - 1]):
            p -= 1
        for q in range(p, b):
            r = idx[f, q]
            go_left = mgl[k] == 1
            for j in range(n_sur[k]):
                v = X[r, np.int64(sur[k, 3 * j])]
                if not np.isnan(v):
                    go_left = (v <= sur[k, 3 * j + 1]) == (sur[k, 3 * j + 2] == 1.0)
                    break
            wi = ws[f, q] if weighted else 1.0
            if go_left:
                side[r] = 0
                _add_stats(left_stats[k], is_clf, crit, ys[f, q], wi)
                n_left[k] += 1
            else:
                side[r] = 1
                _add_stats(right_stats[k], is_clf, crit, ys[f, q], wi)
                n_right[k] += 1


@JIT
def choose_all_surrogates(feat, agree, thr, direction, left_stats, right_stats, is_clf,
                          max_surrogates, out, n_out):
    """:func:`choose_surrogates` for every node with a split (``feat >= 0``): its
    triples into ``out[k]`` (float64 [k, 3 * max_surrogates]), their number into
    ``n_out[k]``."""
    for k in range(feat.shape[0]):
        n_out[k] = 0
        if feat[k] >= 0:
            n_out[k] = choose_surrogates(agree[k], thr[k], direction[k],
                                         node_weight(is_clf, left_stats[k]),
                                         node_weight(is_clf, right_stats[k]), max_surrogates,
                                         out[k])

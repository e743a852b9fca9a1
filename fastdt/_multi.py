"""Several outputs in one tree (``y`` of shape ``(n, K)``): statistics, impurity and the
exact scan.

A node's statistics are the single-output statistics of each output, one block after
another (:mod:`fastdt._criteria`): classification, the class weights of output ``k`` in
columns ``offs[k]:offs[k + 1]``; regression, ``[w, sum w*y_k, sum w*t(y_k)]`` in columns
``3k:3k + 3``. The impurity is the mean of the outputs' impurities and the proxy the sum
of their proxies, as scikit-learn does. The targets are read by row id from ``Y``
(float64 ``[n, K]``: class codes or values): one row of ``Y`` is one cache line for a few
outputs, and the layout keeps one row of targets per feature for single-output trees
only.
"""

import numpy as np

from ._config import FEATURE_THRESHOLD, GINI, SQUARED_ERROR
from ._criteria import (
    gini_fraction, impurity, node_weight, proxy_classification, proxy_regression,
    split_threshold, target_stat,
)
from ._jit import JIT
from ._sampling import random_threshold


@JIT
def add_row(s, is_clf, crit, Y, i, w, offs):
    """Add row ``i`` (weight ``w``) of ``Y`` to the statistics ``s``."""
    for k in range(Y.shape[1]):
        yv = Y[i, k]
        if is_clf:
            s[offs[k] + np.int64(yv)] += w
        else:
            s[3 * k] += w
            s[3 * k + 1] += w * yv
            s[3 * k + 2] += w * target_stat(crit, yv)


@JIT
def node_weights_multi(is_clf, crit, stats, offs, out_w, out_imp):
    """Weight and impurity (the mean over outputs) of each node (``stats`` [k, S])."""
    n_out = offs.shape[0] - 1
    for j in range(stats.shape[0]):
        w = node_weight(is_clf, stats[j, offs[0]:offs[1]])  # output 0's block
        total = 0.0
        for k in range(n_out):
            total += impurity(crit, stats[j, offs[k]:offs[k + 1]], w)
        out_w[j] = w
        out_imp[j] = total / n_out


@JIT
def proxy_multi(is_clf, crit, left, total, wl, wr, offs, work):
    """Sum over outputs of the single-output proxies, as ``(num, den)`` (gini: one
    fraction over every class column, the sums of squares of all outputs together)."""
    n_out = offs.shape[0] - 1
    if is_clf and crit == GINI:
        return gini_fraction(left, total, wl, wr)
    if is_clf:  # entropy: the sum of -wl*H_l - wr*H_r (crit: never a literal)
        out = 0.0
        for k in range(n_out):
            a, b = offs[k], offs[k + 1]
            out += proxy_classification(crit, left[a:b], total[a:b], wl, wr, 0.0, work[a:b])
        return out, 1.0
    if crit == SQUARED_ERROR:  # scikit-learn's MSE proxy: squares summed, then divided
        pl = 0.0
        pr = 0.0
        for k in range(n_out):
            sl = left[3 * k + 1]
            sr = total[3 * k + 1] - sl
            pl += sl * sl
            pr += sr * sr
        return pl / wl + pr / wr, 1.0
    out = 0.0  # Poisson: -inf as soon as one output's is
    for k in range(n_out):
        sl = left[3 * k + 1]
        out += proxy_regression(crit, sl, wl, total[3 * k + 1] - sl, wr)
    return out, 1.0


@JIT
def scan_multi(
    xs_f, idx_f, ws_f, weighted, a, b, total, w_node, is_clf, crit, min_samples_leaf,
    min_weight_leaf, Y, offs, left, work, miss, random, u_thr, u_side,
):
    """Best split of one node on one numeric feature with several outputs (or, with
    ``random``, the split at a threshold drawn by ``u_thr``, missing rows left when
    ``u_side < 0.5``). The candidates, their order and the missing-value rules are
    :func:`fastdt._exact_scan._scan_segment`'s; returns the same tuple."""
    e = b
    while e > a and np.isnan(xs_f[e - 1]):
        e -= 1
    n_node = b - a
    n_miss = b - e
    if e == a or (n_miss == 0 and xs_f[e - 1] <= xs_f[a] + FEATURE_THRESHOLD):
        return -np.inf, 0, np.nan, False, -1
    miss[:] = 0.0
    w_miss = 0.0
    for p in range(e, b):
        wi = ws_f[p] if weighted else 1.0
        add_row(miss, is_clf, crit, Y, idx_f[p], wi, offs)
        w_miss += wi
    thr_r = np.nan
    mgl_r = 0
    if random:
        lo_x = np.float64(xs_f[a])
        hi_x = np.float64(xs_f[e - 1])
        thr_r = random_threshold(lo_x, hi_x, u_thr)
        mgl_r = 1 if (n_miss and u_side < 0.5) else 0
    best_num = -np.inf
    best_den = 1.0
    best_nl = 0
    best_thr = np.nan
    best_mgl = -1
    n_pass = 2 if n_miss else 1
    for missing_left in range(n_pass):
        if random and missing_left != mgl_r:
            continue
        for c in range(left.shape[0]):
            left[c] = miss[c] if missing_left else 0.0
        wl = w_miss if missing_left else 0.0
        nl = n_miss if missing_left else 0
        for p in range(a, e):
            wi = ws_f[p] if weighted else 1.0
            add_row(left, is_clf, crit, Y, idx_f[p], wi, offs)
            wl += wi
            nl += 1
            x0 = xs_f[p]
            if random:
                # the last present row at or below the drawn threshold
                if p + 1 < e and xs_f[p + 1] <= thr_r:
                    continue
                if p + 1 == e and not (n_miss and not missing_left):
                    break  # every present row left, no missing row right: no split
            else:
                if p + 1 == e:
                    break
                if nl < min_samples_leaf or n_node - nl < min_samples_leaf:
                    continue
                if xs_f[p + 1] <= x0 + FEATURE_THRESHOLD:
                    continue
            wr = w_node - wl
            if (nl < min_samples_leaf or n_node - nl < min_samples_leaf
                    or wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0
                    or wr <= 0.0):
                if random:
                    break
                continue
            num, den = proxy_multi(is_clf, crit, left, total, wl, wr, offs, work)
            if num * best_den > best_num * den:
                best_num = num
                best_den = den
                best_nl = nl
                best_thr = thr_r if random else split_threshold(x0, xs_f[p + 1])
                best_mgl = missing_left if n_miss else -1
            if random:
                break
        if (not random and n_pass == 2 and not missing_left
                and n_node - n_miss >= min_samples_leaf and n_miss >= min_samples_leaf):
            # every present value left, the missing ones right
            for c in range(left.shape[0]):
                left[c] = total[c] - miss[c]
            wl = w_node - w_miss
            wr = w_miss
            if not (wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0):
                num, den = proxy_multi(is_clf, crit, left, total, wl, wr, offs, work)
                if num * best_den > best_num * den:
                    best_num = num
                    best_den = den
                    best_nl = n_node - n_miss
                    best_thr = np.inf
                    best_mgl = 0
    return best_num / best_den, best_nl, best_thr, True, best_mgl


@JIT
def children_multi(lo, hi, idx, ws, seg, feat, side, is_clf, crit, Y, offs, left_stats,
                   right_stats):
    """The children's statistics of the chosen splits of nodes ``[lo, hi)`` from the
    ``side`` marks (:func:`fastdt._exact_scan.walk_nodes` has set them), summed in the
    chosen feature's order."""
    weighted = ws.shape[1] == idx.shape[1]
    for k in range(lo, hi):
        f = feat[k]
        left_stats[k, :] = 0.0
        right_stats[k, :] = 0.0
        if f < 0:
            continue
        for p in range(seg[k, 0], seg[k, 1]):
            i = idx[f, p]
            wi = ws[f, p] if weighted else 1.0
            if side[i] == 0:
                add_row(left_stats[k], is_clf, crit, Y, i, wi, offs)
            else:
                add_row(right_stats[k], is_clf, crit, Y, i, wi, offs)


@JIT
def root_multi(idx_f, ws_f, is_clf, crit, Y, offs, out):
    """Statistics of every row, in one feature row's order."""
    weighted = ws_f.shape[0] == idx_f.shape[0]
    for p in range(idx_f.shape[0]):
        add_row(out, is_clf, crit, Y, idx_f[p], ws_f[p] if weighted else 1.0, offs)

"""The growth driver's per-level bookkeeping, compiled (:mod:`fastdt._grow`).

A level of a small or deep tree does little work per node, and the same bookkeeping in
numpy (a few dozen fancy-indexed reads and writes of the node tables) cost about half a
millisecond a level on the development machine: most of the time of a deep tree on a
few thousand rows. :func:`split_nodes` does it in one call.
"""

import numpy as np

from ._config import EPSILON, LEAF
from ._jit import JIT


@JIT
def split_nodes(ids, first, max_depth, min_samples_split, min_samples_leaf, min_weight_leaf,
                feature, left, right, threshold, missing_go_left, cat, sur, depth, start,
                end, n_node_samples, stats, weighted_n_node_samples, impurity, bounds,
                c_feature, c_threshold, c_mgl, c_cat, c_sur, c_nl, c_nr, c_rstart, c_lst,
                c_rst, c_wl, c_wr, c_impl, c_impr, can, part):
    """Split the nodes ``ids`` (each has a candidate, the ``c_*`` columns) into two new
    children each: node ``ids[i]``'s are ``first + 2i`` (left) and ``first + 2i + 1``.

    Children own the left and right part of the parent's ``[start, end)`` range (the
    right part starts at ``c_rstart`` when set) and get their statistics, weight and
    impurity from the candidate and their parent's bounds; a parent without missing
    values sends them to its larger child. Writes whether each child can split into
    ``can`` (uint8 [2m], children in order) under the limits (``max_depth``,
    ``min_samples_split``, ``min_samples_leaf``, ``min_weight_leaf``; a pure node never
    splits), and the ``[start, end, node]`` rows of the split nodes with an open child
    into ``part`` (int64 [m, 3]); returns how many rows.
    """
    n_part = 0
    for i in range(ids.shape[0]):
        p = ids[i]
        a = start[p]
        n_l = c_nl[p]
        n_r = c_nr[p]
        r_start = c_rstart[p] if c_rstart[p] >= 0 else a + n_l
        feature[p] = c_feature[p]
        threshold[p] = c_threshold[p]
        missing_go_left[p] = c_mgl[p] if c_mgl[p] >= 0 else np.int64(n_l > n_r)
        cat[p, :] = c_cat[p, :]
        sur[p, :] = c_sur[p, :]
        any_open = False
        left[p] = first + 2 * i
        right[p] = first + 2 * i + 1
        for side in range(2):  # 0: the left child, 1: the right one
            kid = first + 2 * i + side
            start[kid] = r_start if side else a
            n_kid = n_r if side else n_l
            stats[kid, :] = c_rst[p, :] if side else c_lst[p, :]
            weighted_n_node_samples[kid] = c_wr[p] if side else c_wl[p]
            impurity[kid] = c_impr[p] if side else c_impl[p]
            end[kid] = start[kid] + n_kid
            n_node_samples[kid] = n_kid
            depth[kid] = depth[p] + 1
            feature[kid] = LEAF
            left[kid] = LEAF
            right[kid] = LEAF
            c_feature[kid] = LEAF
            missing_go_left[kid] = 0
            threshold[kid] = np.nan
            bounds[kid, :] = bounds[p, :]
            ok = not (depth[kid] >= max_depth or n_kid < min_samples_split
                      or n_kid < 2 * min_samples_leaf
                      or weighted_n_node_samples[kid] < 2 * min_weight_leaf
                      or impurity[kid] <= EPSILON)
            can[2 * i + side] = ok
            any_open = any_open or ok
        if any_open:
            part[n_part, 0] = a
            part[n_part, 1] = end[p]
            part[n_part, 2] = p
            n_part += 1
    return n_part


@JIT
def accept_candidates(ids, feat, thr, mgl, bin_, n_left, n_right, lst, rst, cat, sur, n_sur,
                      w_lr, imp_lr, gain_in, w_total, min_impurity_decrease,
                      weighted_n_node_samples, impurity, c_feature, c_threshold, c_gain,
                      c_mgl, c_bin, c_nl, c_nr, c_rstart, c_wl, c_wr, c_impl, c_impr, c_lst,
                      c_rst, c_cat, c_sur, c_nsur, ok):
    """Keep the best split found for each node ``ids`` (a :class:`fastdt._grow.Splits`'
    columns, ``feat`` -1: none) as its candidate when it decreases the impurity enough.

    ``w_lr``/``imp_lr`` (float64 [2, k]): the children's weights and impurities (row 0
    the left ones). The gain is scikit-learn's ``impurity_improvement``, term by term,
    unless ``gain_in`` (float64 [k], or [0]: none) gives it (boosting's regularised
    gain). Writes ``ok`` (uint8 [k]): whether each node has a candidate; the others get
    ``c_feature`` -1.
    """
    for i in range(ids.shape[0]):
        p = ids[i]
        w_node = weighted_n_node_samples[p]
        if gain_in.shape[0]:
            gain = gain_in[i]
        else:
            gain = (w_node / w_total) * (impurity[p] - (w_lr[1, i] / w_node) * imp_lr[1, i]
                                         - (w_lr[0, i] / w_node) * imp_lr[0, i])
        good = feat[i] >= 0 and not gain + EPSILON < min_impurity_decrease
        ok[i] = good
        if not good:
            c_feature[p] = -1
            continue
        c_feature[p] = feat[i]
        c_threshold[p] = thr[i]
        c_gain[p] = gain
        c_mgl[p] = mgl[i]
        c_bin[p] = bin_[i]
        c_nl[p] = n_left[i]
        c_nr[p] = n_right[i]
        c_rstart[p] = -1
        c_wl[p] = w_lr[0, i]
        c_wr[p] = w_lr[1, i]
        c_impl[p] = imp_lr[0, i]
        c_impr[p] = imp_lr[1, i]
        c_lst[p, :] = lst[i, :]
        c_rst[p, :] = rst[i, :]
        c_cat[p, :] = cat[i, :]
        c_sur[p, :] = sur[i, :]
        c_nsur[p] = n_sur[i]


@JIT
def best_features(t_proxy, t_nl, feat):
    """The winning feature of each node (row) of the ``[k, F]`` candidate tables into
    ``feat`` (int64 [k]): the largest proxy among the features with a valid split
    (``t_nl > 0``; a NaN or -inf proxy never wins), the lowest index on ties, -1 when
    none is valid."""
    for i in range(t_proxy.shape[0]):
        best = -np.inf
        f = -1
        for j in range(t_proxy.shape[1]):
            if t_nl[i, j] > 0 and t_proxy[i, j] > best:
                best = t_proxy[i, j]
                f = j
        feat[i] = f

"""The growth driver's per-level bookkeeping, compiled (:mod:`fastdt._grow`).

A level of a small or deep tree does little work per node, and the same bookkeeping in
numpy (a few dozen fancy-indexed reads and writes of the node tables) cost about 0.25 ms
a level on the development machine: a third of a deep tree's time on a few hundred rows.
The kernels here do it in one call each. They take the node tables packed in a few
arrays (:class:`fastdt._grow.Nodes`): few arguments compile and dispatch faster.
"""

import numpy as np

from ._config import EPSILON, LEAF
from ._jit import JIT

#: The node tables' integer columns, the rows of ``Nodes.ints`` (the ``c_*`` ones: the
#: candidate split of an open node, ``c_feature`` -1: none; ``tree`` and ``local``: a
#: node's tree and its id in that tree when several trees grow together, else 0).
INT_COLUMNS = ("feature", "left", "right", "n_node_samples", "depth", "missing_go_left",
               "start", "end", "c_feature", "c_mgl", "c_bin", "c_nl", "c_nr", "c_rstart",
               "c_nsur", "tree", "local")
(_FEATURE, _LEFT, _RIGHT, _N_NODE, _DEPTH, _MGL, _START, _END, _C_FEATURE, _C_MGL, _C_BIN,
 _C_NL, _C_NR, _C_RSTART, _C_NSUR, _TREE, _LOCAL) = range(len(INT_COLUMNS))
#: The float columns, the rows of ``Nodes.floats``.
FLOAT_COLUMNS = ("threshold", "impurity", "weighted_n_node_samples", "c_threshold",
                 "c_gain", "c_wl", "c_wr", "c_impl", "c_impr")
(_THRESHOLD, _IMPURITY, _W_NODE, _C_THRESHOLD, _C_GAIN, _C_WL, _C_WR, _C_IMPL,
 _C_IMPR) = range(len(FLOAT_COLUMNS))


@JIT
def can_split(depth, n, w, impurity, max_depth, min_samples_split, min_samples_leaf,
              min_weight_leaf):
    """Whether a node of ``n`` rows, weight ``w`` and ``impurity`` at ``depth`` may
    split: scikit-learn's stopping rules, in its order (:mod:`fastdt._grow`). The root's
    check (called from Python) and every child's (:func:`split_nodes`)."""
    return not (depth >= max_depth or n < min_samples_split or n < 2 * min_samples_leaf
                or w < 2 * min_weight_leaf or impurity <= EPSILON)


@JIT
def split_nodes(ids, first, max_depth, min_samples_split, min_samples_leaf, min_weight_leaf,
                ints, floats, stat3, cat2, sur2, bounds, can, part):
    """Split the nodes ``ids`` (each has a candidate, the ``c_*`` columns) into two new
    children each: node ``ids[i]``'s are ``first + 2i`` (left) and ``first + 2i + 1``.

    ``ints``, ``floats``, ``stat3`` (statistics, the candidates' left and right ones),
    ``cat2`` (bitsets, the candidates'), ``sur2`` (surrogates, the candidates'),
    ``bounds``: the node tables. Children own the left and right part of the parent's
    ``[start, end)`` range (the right part starts at ``c_rstart`` when set) and get
    their statistics, weight and impurity from the candidate and their parent's bounds;
    a parent without missing values sends them to its larger child. Writes whether each
    child can split into ``can`` (uint8 [2m], children in order) under the limits
    (:func:`can_split`), and the ``[start, end,
    node]`` rows of the split nodes with an open child into ``part`` (int64 [m, 3]);
    returns how many rows.
    """
    n_part = 0
    for i in range(ids.shape[0]):
        p = ids[i]
        a = ints[_START, p]
        n_l = ints[_C_NL, p]
        n_r = ints[_C_NR, p]
        r_start = ints[_C_RSTART, p] if ints[_C_RSTART, p] >= 0 else a + n_l
        ints[_FEATURE, p] = ints[_C_FEATURE, p]
        mgl = ints[_C_MGL, p]
        ints[_MGL, p] = mgl if mgl >= 0 else np.int64(n_l > n_r)
        ints[_LEFT, p] = first + 2 * i
        ints[_RIGHT, p] = first + 2 * i + 1
        floats[_THRESHOLD, p] = floats[_C_THRESHOLD, p]
        for c in range(cat2.shape[2]):
            cat2[0, p, c] = cat2[1, p, c]
        for c in range(sur2.shape[2]):
            sur2[0, p, c] = sur2[1, p, c]
        any_open = False
        for side in range(2):  # 0: the left child, 1: the right one
            kid = first + 2 * i + side
            n_kid = n_r if side else n_l
            ints[_START, kid] = r_start if side else a
            ints[_END, kid] = ints[_START, kid] + n_kid
            ints[_N_NODE, kid] = n_kid
            ints[_DEPTH, kid] = ints[_DEPTH, p] + 1
            ints[_FEATURE, kid] = LEAF
            ints[_LEFT, kid] = LEAF
            ints[_RIGHT, kid] = LEAF
            ints[_C_FEATURE, kid] = LEAF
            ints[_MGL, kid] = 0
            floats[_THRESHOLD, kid] = np.nan
            floats[_W_NODE, kid] = floats[_C_WR if side else _C_WL, p]
            floats[_IMPURITY, kid] = floats[_C_IMPR if side else _C_IMPL, p]
            for c in range(stat3.shape[2]):
                stat3[0, kid, c] = stat3[1 + side, p, c]
            bounds[kid, 0] = bounds[p, 0]
            bounds[kid, 1] = bounds[p, 1]
            ok = can_split(ints[_DEPTH, kid], n_kid, floats[_W_NODE, kid],
                           floats[_IMPURITY, kid], max_depth, min_samples_split,
                           min_samples_leaf, min_weight_leaf)
            can[2 * i + side] = ok
            any_open = any_open or ok
        if any_open:
            part[n_part, 0] = a
            part[n_part, 1] = ints[_END, p]
            part[n_part, 2] = p
            n_part += 1
    return n_part


@JIT
def accept_candidates(ids, feat, thr, mgl, bin_, n_left, n_right, lst, rst, cat, sur, n_sur,
                      w_lr, imp_lr, gain_in, w_root, min_impurity_decrease, ints, floats,
                      stat3, cat2, sur2, ok):
    """Keep the best split found for each node ``ids`` (a :class:`fastdt._grow.Splits`'
    columns, ``feat`` -1: none) as its candidate (the ``c_*`` columns of the node tables
    ``ints``, ``floats``, ``stat3``, ``cat2``, ``sur2``) when it decreases the impurity
    enough.

    ``w_lr``/``imp_lr`` (float64 [2, k]): the children's weights and impurities (row 0
    the left ones), ``w_root`` (float64 [k]): the weight of each node's tree's root. The
    gain is scikit-learn's ``impurity_improvement``, term by term,
    unless ``gain_in`` (float64 [k], or [0]: none) gives it (boosting's regularised
    gain). Writes ``ok`` (uint8 [k]): whether each node has a candidate; the others get
    ``c_feature`` -1.
    """
    for i in range(ids.shape[0]):
        p = ids[i]
        w_node = floats[_W_NODE, p]
        if gain_in.shape[0]:
            gain = gain_in[i]
        else:
            gain = (w_node / w_root[i]) * (floats[_IMPURITY, p]
                                         - (w_lr[1, i] / w_node) * imp_lr[1, i]
                                         - (w_lr[0, i] / w_node) * imp_lr[0, i])
        good = feat[i] >= 0 and not gain + EPSILON < min_impurity_decrease
        ok[i] = good
        if not good:
            ints[_C_FEATURE, p] = -1
            continue
        ints[_C_FEATURE, p] = feat[i]
        ints[_C_MGL, p] = mgl[i]
        ints[_C_BIN, p] = bin_[i]
        ints[_C_NL, p] = n_left[i]
        ints[_C_NR, p] = n_right[i]
        ints[_C_RSTART, p] = -1
        ints[_C_NSUR, p] = n_sur[i]
        floats[_C_THRESHOLD, p] = thr[i]
        floats[_C_GAIN, p] = gain
        floats[_C_WL, p] = w_lr[0, i]
        floats[_C_WR, p] = w_lr[1, i]
        floats[_C_IMPL, p] = imp_lr[0, i]
        floats[_C_IMPR, p] = imp_lr[1, i]
        for c in range(lst.shape[1]):
            stat3[1, p, c] = lst[i, c]
            stat3[2, p, c] = rst[i, c]
        for c in range(cat.shape[1]):
            cat2[1, p, c] = cat[i, c]
        for c in range(sur.shape[1]):
            sur2[1, p, c] = sur[i, c]


@JIT
def cut_trees(ints, floats, stat3, cat2, sur2, bounds, n, cuts, inode, fnode, stats, cat,
              sur, n_sur, out_bounds):
    """The first ``n`` nodes of a batch of trees grown together (:class:`fastdt._grow.Nodes`'
    packed tables), tree after tree, each tree's in creation order, into the tables of
    ``Nodes.output`` (``inode`` int64 [n, 6], ``fnode`` [n, 3], ``stats``, ``cat``,
    ``sur``, ``n_sur``, ``out_bounds``), the children as ids within their tree
    (``local``); ``cuts`` (int64 [B + 1]): where each tree's nodes start, and the end.

    One pass that moves each value once: a stable sort by tree in numpy and a take of
    each table, after ``Nodes.output``'s copies, took about 10 ms a tree in a hist
    forest's batches of 13 trees of 23,000 nodes.
    """
    n_trees = cuts.shape[0] - 1
    for t in range(n_trees + 1):
        cuts[t] = 0
    for k in range(n):
        cuts[ints[_TREE, k] + 1] += 1
    at = np.empty(n_trees, dtype=np.int64)  # where each tree's next node goes
    for t in range(n_trees):
        at[t] = cuts[t]
        cuts[t + 1] += cuts[t]
    for k in range(n):
        t = ints[_TREE, k]
        i = at[t]
        at[t] = i + 1
        f = ints[_FEATURE, k]
        left, right = ints[_LEFT, k], ints[_RIGHT, k]
        inode[i, 0] = f
        inode[i, 1] = ints[_LOCAL, left] if left >= 0 else left
        inode[i, 2] = ints[_LOCAL, right] if right >= 0 else right
        inode[i, 3] = ints[_N_NODE, k]
        inode[i, 4] = ints[_DEPTH, k]
        inode[i, 5] = ints[_MGL, k]
        fnode[i, 0] = floats[_THRESHOLD, k]
        fnode[i, 1] = floats[_IMPURITY, k]
        fnode[i, 2] = floats[_W_NODE, k]
        for c in range(stats.shape[1]):
            stats[i, c] = stat3[0, k, c]
        for c in range(cat.shape[1]):
            cat[i, c] = cat2[0, k, c]
        for c in range(sur.shape[1]):
            sur[i, c] = sur2[0, k, c]
        n_sur[i] = ints[_C_NSUR, k] if f >= 0 else 0
        out_bounds[i, 0] = bounds[k, 0]
        out_bounds[i, 1] = bounds[k, 1]


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


@JIT
def replay(ints, floats, count, budget, chosen, todo):
    """The one-at-a-time best-first process on the known candidates of the ``count``
    nodes (:func:`fastdt._grow._replay`): writes the split nodes it pops within
    ``budget`` pops into ``chosen`` and the popped nodes not split yet into ``todo``
    (int64 [>= budget] each), and returns how many of each.

    A binary heap of keys ``(-c_gain, id)`` in three arrays, ``id`` the number that
    process gives a node (children numbered as they are made): ties break as there. In
    Python (``heapq``) the replays cost about 5% of a boosting round of 255 leaves.
    """
    feature, left, right = ints[_FEATURE], ints[_LEFT], ints[_RIGHT]
    c_feature, c_gain = ints[_C_FEATURE], floats[_C_GAIN]
    cap = 2 * budget + 2  # a pop adds two entries at most
    key = np.empty(cap)
    tie = np.empty(cap, dtype=np.int64)
    val = np.empty(cap, dtype=np.int64)
    size = 0
    if count > 0 and c_feature[0] >= 0:
        key[0], tie[0], val[0] = -c_gain[0], 0, 0
        size = 1
    n_chosen = 0
    n_todo = 0
    next_id = 1
    while size > 0 and n_chosen + n_todo < budget:
        node = val[0]
        size -= 1  # the last entry moves to the root and sifts down
        k, t, v = key[size], tie[size], val[size]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            if c + 1 < size and (key[c + 1] < key[c]
                                 or (key[c + 1] == key[c] and tie[c + 1] < tie[c])):
                c += 1
            if key[c] < k or (key[c] == k and tie[c] < t):
                key[i], tie[i], val[i] = key[c], tie[c], val[c]
                i = c
            else:
                break
        if size > 0:
            key[i], tie[i], val[i] = k, t, v
        if feature[node] == LEAF:
            todo[n_todo] = node
            n_todo += 1
            continue
        chosen[n_chosen] = node
        n_chosen += 1
        for kid in (left[node], right[node]):
            if c_feature[kid] >= 0:  # push, sifting up
                k, t = -c_gain[kid], next_id
                i = size
                size += 1
                while i > 0:
                    par = (i - 1) // 2
                    if k < key[par] or (k == key[par] and t < tie[par]):
                        key[i], tie[i], val[i] = key[par], tie[par], val[par]
                        i = par
                    else:
                        break
                key[i], tie[i], val[i] = k, t, kid
            next_id += 1
    return n_chosen, n_todo

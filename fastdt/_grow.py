"""The growth driver: one ``@njit`` loop that owns the frontier and the node arrays.

Python calls :func:`grow_tree` once per fit; everything per node happens here, in
arrays. Two growth orders share every kernel:

* **level-wise** (default): every open node of a level is scanned by one call of
  :func:`fastdt._exact.split_and_scan`, the best split of each is chosen, and all
  nodes that can split are split at once. Node ids come out breadth-first.
* **best-first** (``max_leaf_nodes``): as scikit-learn's ``BestFirstTreeBuilder``, the
  open node with the largest impurity decrease is split next, until
  ``max_leaf_nodes - 1`` splits are made; ids are renumbered breadth-first at the end.

The stopping rules are scikit-learn's, in the same order: a node is a leaf if
``depth >= max_depth``, ``n < min_samples_split``, ``n < 2 * min_samples_leaf``,
``w < 2 * min_weight_leaf`` or ``impurity <= EPSILON``; or if it has no valid split or
its split's decrease is below ``min_impurity_decrease`` (with ``EPSILON`` slack).
"""

import numpy as np

from ._config import EPSILON, JIT, LEAF
from ._criteria import impurity, improvement
from ._criteria import node_weight as _node_weight
from ._exact import _add_stats, split_and_scan, walk_splits
from ._missing import choose_surrogates, find_surrogates, resolve_surrogates

# --------------------------------------------------------------------------- helpers


@JIT
def _rng_next(state):
    """xorshift64* step on ``state`` (uint64 [1]); returns a uint64."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@JIT
def _resize2(a, cap):
    out = np.empty((cap, a.shape[1]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@JIT
def _heap_push(h_key, h_node, size, key, node):
    """Push onto a max-heap keyed by ``key``; ties pop the smaller node id first."""
    pos = size
    h_key[pos] = key
    h_node[pos] = node
    while pos > 0:
        parent = (pos - 1) // 2
        if h_key[parent] > h_key[pos] or (
            h_key[parent] == h_key[pos] and h_node[parent] < h_node[pos]
        ):
            break
        h_key[parent], h_key[pos] = h_key[pos], h_key[parent]
        h_node[parent], h_node[pos] = h_node[pos], h_node[parent]
        pos = parent
    return size + 1


@JIT
def _heap_pop(h_key, h_node, size):
    """Pop the top of the heap; returns ``(node, new_size)``."""
    top = h_node[0]
    size -= 1
    h_key[0] = h_key[size]
    h_node[0] = h_node[size]
    pos = 0
    while True:
        lc = 2 * pos + 1
        if lc >= size:
            break
        best = lc
        rc = lc + 1
        if rc < size and (
            h_key[rc] > h_key[lc] or (h_key[rc] == h_key[lc] and h_node[rc] < h_node[lc])
        ):
            best = rc
        if h_key[pos] > h_key[best] or (h_key[pos] == h_key[best] and h_node[pos] < h_node[best]):
            break
        h_key[pos], h_key[best] = h_key[best], h_key[pos]
        h_node[pos], h_node[best] = h_node[best], h_node[pos]
        pos = best
    return top, size


@JIT
def _choose_feature(proxy, nl, nonconst, n_features, max_features, rng, perm):
    """Pick the winning feature of one node from its row of the candidate table.

    All features are considered when ``max_features >= n_features`` (ties: lowest
    feature index). Otherwise features are visited in a random order, as scikit-learn
    does: ``max_features`` of them, and further ones while every visited feature was
    constant in the node; ties keep the first visited. Returns -1 if none is valid.
    """
    best_f = -1
    best = -np.inf
    if max_features >= n_features:
        for f in range(n_features):
            if nl[f] > 0 and proxy[f] > best:
                best = proxy[f]
                best_f = f
        return best_f
    for j in range(n_features):
        perm[j] = j
    visited = 0
    n_const = 0
    for j in range(n_features):
        if visited >= max_features and visited > n_const:
            break
        r = j + np.int64(_rng_next(rng) % np.uint64(n_features - j))
        perm[j], perm[r] = perm[r], perm[j]
        f = perm[j]
        visited += 1
        if not nonconst[f]:
            n_const += 1
            continue
        if nl[f] > 0 and proxy[f] > best:
            best = proxy[f]
            best_f = f
    return best_f


# --------------------------------------------------------------------------- node tables

# Columns of the driver's per-node tables (one int64 and one float64 table, so that
# growing capacity is two copies, not seventeen). _SLOT and _CBIN serve the histogram
# splitter only (histogram slot of an open node; bin of its candidate split). _CMGL is
# the side of missing values of the candidate split (-1: none in the node). _CNL and
# _CNR are the rows of its children, _CRS where the right child's range starts (-1:
# after the left child's; missing="fractional" copies rows into both children, whose
# ranges then outgrow the parent's). A third table, ``cand_cat`` (uint64 [cap, W]),
# holds the left categories of categorical candidates, and stays the split's bitset
# once the node is split.
(_FEAT, _LEFT, _RIGHT, _NNS, _DEPTH, _MGL, _START, _END, _CF, _CNL, _SLOT, _CBIN,
 _CMGL, _CNR, _CRS) = range(15)
_THR, _IMP, _WNS, _CTHR, _CGAIN = range(5)


@JIT
def _reserve(need, inode, fnode, stats, cand_l, cand_r, cand_cat):
    """Double the capacity of the node tables until ``need`` rows fit."""
    cap = inode.shape[0]
    if need <= cap:
        return inode, fnode, stats, cand_l, cand_r, cand_cat
    cap = max(2 * cap, need)
    return (_resize2(inode, cap), _resize2(fnode, cap), _resize2(stats, cap),
            _resize2(cand_l, cap), _resize2(cand_r, cap), _resize2(cand_cat, cap))


@JIT
def _can_split(n, w, imp, depth, limits):
    max_depth, min_samples_split, min_samples_leaf, min_weight_leaf = limits
    return not (depth >= max_depth or n < min_samples_split or n < 2 * min_samples_leaf
                or w < 2 * min_weight_leaf or imp <= EPSILON)


@JIT
def new_tree(root_stats, n, is_clf, crit, limits, max_leaf_nodes, n_words):
    """Node tables holding the root (statistics ``root_stats`` of ``n`` rows);
    ``n_words``: width of a category bitset (0 without categorical features).

    Returns ``(inode, fnode, stats, cand_l, cand_r, cand_cat, open_nodes, heap)`` where
    ``open_nodes`` is ``[0]`` or empty (the root cannot split) and ``heap`` is the
    ``(keys, nodes)`` pair of the best-first heap.
    """
    cap = 64
    inode = np.zeros((cap, 15), dtype=np.int64)
    cand_cat = np.zeros((cap, n_words), dtype=np.uint64)
    fnode = np.zeros((cap, 5))
    n_stats = root_stats.shape[0]
    stats = np.zeros((cap, n_stats))
    cand_l = np.zeros((cap, n_stats))
    cand_r = np.zeros((cap, n_stats))
    stats[0] = root_stats
    w = _node_weight(is_clf, root_stats)
    inode[0, _FEAT] = LEAF
    inode[0, _LEFT] = LEAF
    inode[0, _RIGHT] = LEAF
    inode[0, _NNS] = n
    inode[0, _END] = n
    inode[0, _SLOT] = -1
    fnode[0, _THR] = np.nan
    fnode[0, _WNS] = w
    fnode[0, _IMP] = impurity(crit, root_stats, w)
    open_nodes = np.zeros(1, dtype=np.int64)
    if not _can_split(n, w, fnode[0, _IMP], 0, limits):
        open_nodes = open_nodes[:0]
    h_cap = max_leaf_nodes + 2 if max_leaf_nodes > 0 else 0  # empty: level-wise
    h_key = np.empty(h_cap)
    h_node = np.empty(h_cap, dtype=np.int64)
    return inode, fnode, stats, cand_l, cand_r, cand_cat, open_nodes, (h_key, h_node)


@JIT
def node_ranges(open_nodes, inode, fnode, stats):
    """``[start, end)``, statistics, weight and impurity of each open node (for a scan)."""
    n_open = open_nodes.shape[0]
    scan = np.empty((n_open, 2), dtype=np.int64)
    scan_stats = np.empty((n_open, stats.shape[1]))
    scan_w = np.empty(n_open)
    scan_imp = np.empty(n_open)
    for k in range(n_open):
        node = open_nodes[k]
        scan[k, 0] = inode[node, _START]
        scan[k, 1] = inode[node, _END]
        scan_stats[k] = stats[node]
        scan_w[k] = fnode[node, _WNS]
        scan_imp[k] = fnode[node, _IMP]
    return scan, scan_stats, scan_w, scan_imp


@JIT
def choose_features(t_proxy, t_nl, t_nc, max_features, rng, perm):
    """Winning feature (``-1``: none) and left size of every scanned node (serial, in a
    fixed order: the same tree whatever the thread count)."""
    n_open, n_features = t_proxy.shape
    feat = np.empty(n_open, dtype=np.int32)
    nl = np.zeros(n_open, dtype=np.int64)
    for k in range(n_open):
        f = _choose_feature(t_proxy[k], t_nl[k], t_nc[k], n_features, max_features, rng, perm)
        feat[k] = f
        if f >= 0:
            nl[k] = t_nl[k, f]
    return feat, nl


@JIT
def record_candidates(
    open_nodes, feat, nl, thr, cbin, mgl, cat, lst, rst, inode, fnode, cand_l, cand_r,
    cand_cat, is_clf, crit, min_impurity_decrease, heap, h_size,
):
    """Store each scanned node's chosen split as its candidate (exact gain checked
    against ``min_impurity_decrease``); best-first growth also pushes it on the heap.

    ``thr``/``cbin``/``mgl``/``cat`` are the threshold, (histogram splitter) bin,
    missing side and left categories of the chosen split, ``lst``/``rst`` the
    children's statistics. Returns the heap size.
    """
    w_total = fnode[0, _WNS]
    best_first = heap[0].shape[0] > 0
    for k in range(open_nodes.shape[0]):
        node = open_nodes[k]
        inode[node, _CF] = -1
        f = feat[k]
        if f < 0:
            continue
        wl = _node_weight(is_clf, lst[k])
        wr = _node_weight(is_clf, rst[k])
        gain = improvement(
            fnode[node, _WNS], w_total, fnode[node, _IMP],
            wl, impurity(crit, lst[k], wl), wr, impurity(crit, rst[k], wr),
        )
        if gain + EPSILON < min_impurity_decrease:
            continue
        inode[node, _CF] = f
        inode[node, _CNL] = nl[k]
        inode[node, _CNR] = inode[node, _END] - inode[node, _START] - nl[k]
        inode[node, _CRS] = -1
        inode[node, _CBIN] = cbin[k]
        inode[node, _CMGL] = mgl[k]
        cand_cat[node] = cat[k]
        fnode[node, _CTHR] = thr[k]
        fnode[node, _CGAIN] = gain
        cand_l[node] = lst[k]
        cand_r[node] = rst[k]
        if best_first:
            h_size = _heap_push(heap[0], heap[1], h_size, gain, node)
    return h_size


@JIT
def nodes_to_split(open_nodes, inode, heap, h_size, n_splits, max_leaf_nodes):
    """The nodes to split now: every open node with a candidate (level-wise), or the
    heap's top while fewer than ``max_leaf_nodes - 1`` splits were made (best-first).
    Returns ``(to_split, h_size)``."""
    if max_leaf_nodes > 0:
        if h_size > 0 and n_splits < max_leaf_nodes - 1:
            top, h_size = _heap_pop(heap[0], heap[1], h_size)
            return np.full(1, top, dtype=np.int64), h_size
        return np.empty(0, dtype=np.int64), h_size
    m = 0
    for k in range(open_nodes.shape[0]):
        if inode[open_nodes[k], _CF] >= 0:
            m += 1
    to_split = np.empty(m, dtype=np.int64)
    m = 0
    for k in range(open_nodes.shape[0]):
        if inode[open_nodes[k], _CF] >= 0:
            to_split[m] = open_nodes[k]
            m += 1
    return to_split, h_size


@JIT
def split_nodes(to_split, inode, fnode, stats, cand_l, cand_r, cand_cat, node_count, is_clf,
                crit, limits):
    """Turn each node of ``to_split`` into an internal node with two new children.

    Children own the left and right part of the parent's ``[start, end)`` range and
    get their statistics from the parent's candidate. Returns the (possibly grown)
    tables, the new node count, the children that can split (``next_open``) and the
    ``[start, end, node]`` rows of the split nodes with at least one open child (the
    ranges the splitter must partition).
    """
    inode, fnode, stats, cand_l, cand_r, cand_cat = _reserve(
        node_count + 2 * to_split.shape[0], inode, fnode, stats, cand_l, cand_r, cand_cat
    )
    next_open = np.empty(2 * to_split.shape[0], dtype=np.int64)
    part = np.empty((to_split.shape[0], 3), dtype=np.int64)
    n_next = 0
    n_part = 0
    for node in to_split:
        a = inode[node, _START]
        b = inode[node, _END]
        n_l = inode[node, _CNL]
        n_r = inode[node, _CNR]
        r_start = inode[node, _CRS] if inode[node, _CRS] >= 0 else a + n_l
        inode[node, _FEAT] = inode[node, _CF]
        inode[node, _LEFT] = node_count
        inode[node, _RIGHT] = node_count + 1
        # no missing values in the node: missing values follow the larger child
        mgl = inode[node, _CMGL]
        inode[node, _MGL] = mgl if mgl >= 0 else (1 if n_l > n_r else 0)
        fnode[node, _THR] = fnode[node, _CTHR]
        any_open = False
        for j in range(2):
            c = node_count + j
            inode[c, _FEAT] = LEAF
            inode[c, _LEFT] = LEAF
            inode[c, _RIGHT] = LEAF
            inode[c, _MGL] = 0
            inode[c, _CF] = -1
            inode[c, _SLOT] = -1
            inode[c, _DEPTH] = inode[node, _DEPTH] + 1
            inode[c, _START] = a if j == 0 else r_start
            inode[c, _END] = a + n_l if j == 0 else r_start + n_r
            inode[c, _NNS] = inode[c, _END] - inode[c, _START]
            stats[c] = cand_l[node] if j == 0 else cand_r[node]
            wc = _node_weight(is_clf, stats[c])
            fnode[c, _THR] = np.nan
            fnode[c, _WNS] = wc
            fnode[c, _IMP] = impurity(crit, stats[c], wc)
            if _can_split(inode[c, _NNS], wc, fnode[c, _IMP], inode[c, _DEPTH], limits):
                next_open[n_next] = c
                n_next += 1
                any_open = True
        node_count += 2
        if any_open:
            part[n_part, 0] = a
            part[n_part, 1] = b
            part[n_part, 2] = node
            n_part += 1
    return (inode, fnode, stats, cand_l, cand_r, cand_cat, node_count, next_open[:n_next],
            part[:n_part])


@JIT
def finish_tree(inode, fnode, stats, cand_cat, node_count):
    """The public columns of the node tables (see :func:`grow_tree`'s Returns)."""
    cols = np.array([_FEAT, _LEFT, _RIGHT, _NNS, _DEPTH, _MGL])
    return (inode[:node_count][:, cols], fnode[:node_count, :3].copy(),
            stats[:node_count].copy(), cand_cat[:node_count].copy())


@JIT
def new_rng(seed, n_features):
    """State of the feature-sampling generator and its permutation scratch."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = seed if seed != 0 else np.uint64(0x9E3779B97F4A7C15)
    return rng, np.empty(n_features, dtype=np.int64)


# --------------------------------------------------------------------------- driver


@JIT
def grow_tree(
    idx, xs, ys, ws, n_stats, is_clf, crit, n_categories, X, mode, max_surrogates,
    max_depth, min_samples_split, min_samples_leaf, min_weight_leaf,
    min_impurity_decrease, max_features, max_leaf_nodes, seed,
):
    """Grow one tree on presorted data (the exact splitter).

    Parameters
    ----------
    idx, xs, ys, ws : int32 [F, n], X.dtype [F, n], float64 [F, n], float64 [F, n or 0]
        Output of :func:`fastdt._exact.presort` (consumed: partitioned in place);
        ``ys`` holds class codes or targets, ``ws`` the weights (class weights folded
        in), or has no columns when every weight is 1 (``mode`` 1 needs weights).
    n_stats : int
        Width of a statistics row (n_classes, or 3 for regression).
    is_clf, crit : bool, int
        Task and criterion code.
    n_categories : int32 [F]
        Categories of each feature (0: numeric).
    X : float32 or float64 [n, F] (or [0, F])
        The training rows, read by surrogate splits only (``mode`` 2).
    mode : int
        Missing values: 0 ``"learn"``, 1 ``"fractional"``, 2 ``"surrogate"``
        (:func:`fastdt._exact.walk_splits`).
    max_surrogates : int
        Surrogates kept per split (``mode`` 2).
    max_depth, min_samples_split, min_samples_leaf : int
        Stopping rules, already resolved to absolute numbers.
    min_weight_leaf, min_impurity_decrease : float
    max_features : int
        Features considered per node (``n_features`` for all).
    max_leaf_nodes : int
        ``-1`` for level-wise growth, otherwise best-first with this many leaves.
    seed : uint64
        Seed of the feature-sampling generator.

    Returns
    -------
    inode : int64 [n_nodes, 6]
        Columns feature, left, right, n_node_samples, depth, missing_go_left.
    fnode : float64 [n_nodes, 3]
        Columns threshold, impurity, weighted_n_node_samples.
    stats : float64 [n_nodes, n_stats]
        Sufficient statistics of every node.
    cat : uint64 [n_nodes, W]
        Left categories of each categorical split.
    sur, n_sur : float64 [n_nodes, 3 * max_surrogates], int64 [n_nodes]
        Surrogate splits of each node (:func:`fastdt._missing.choose_surrogates`).
    Node ids are in creation order: breadth-first for level-wise growth, to be
    renumbered by :func:`bfs_order` after best-first growth.
    """
    n_features, n = idx.shape
    limits = (max_depth, min_samples_split, min_samples_leaf, min_weight_leaf)
    rng, perm = new_rng(seed, n_features)
    side = np.zeros(n, dtype=np.uint8)
    dup = np.zeros(n if mode == 1 else 0, dtype=np.int32)  # id of a row's right copy
    n_ids = n
    n_used = n  # positions of the layout in use (mode 1 appends right children)

    weighted = ws.shape[1] == n
    root = np.zeros(n_stats)
    for p in range(n):
        _add_stats(root, is_clf, crit, ys[0, p], ws[0, p] if weighted else 1.0)
    n_words = (n_categories.max() + 63) // 64
    inode, fnode, stats, cand_l, cand_r, cand_cat, open_nodes, heap = new_tree(
        root, n, is_clf, crit, limits, max_leaf_nodes, n_words
    )
    n_sur_cols = 3 * max_surrogates if mode == 2 else 0
    sur = np.zeros((inode.shape[0], n_sur_cols))
    n_sur = np.zeros(inode.shape[0], dtype=np.int64)
    node_count = 1
    h_size = 0
    n_splits = 0
    part = np.zeros((0, 3), dtype=np.int64)
    part_dst = np.zeros(0, dtype=np.int64)
    part_frac = np.zeros(0)
    while True:
        n_open = open_nodes.shape[0]
        if n_open > 0:
            # ---- scan: partition last splits, score every (open node, feature)
            scan, scan_stats, scan_w, scan_imp = node_ranges(open_nodes, inode, fnode, stats)
            t_proxy = np.empty((n_open, n_features))
            t_nl = np.empty((n_open, n_features), dtype=np.int64)
            t_thr = np.empty((n_open, n_features))
            t_nc = np.empty((n_open, n_features), dtype=np.uint8)
            t_mgl = np.empty((n_open, n_features), dtype=np.int8)
            t_cat = np.zeros((n_open, n_features, n_words), dtype=np.uint64)
            split_and_scan(
                idx, xs, ys, ws, side, part, part_dst, part_frac, dup, scan, scan_stats,
                scan_w, scan_imp, is_clf, crit, min_samples_leaf, min_weight_leaf,
                n_categories, mode != 0, t_proxy, t_nl, t_thr, t_nc, t_mgl, t_cat,
            )
            feat, _ = choose_features(t_proxy, t_nl, t_nc, max_features, rng, perm)
            thr = np.full(n_open, np.nan)
            mgl = np.full(n_open, -1, dtype=np.int64)
            cat = np.zeros((n_open, n_words), dtype=np.uint64)
            for k in range(n_open):
                f = feat[k]
                if f >= 0:
                    thr[k] = t_thr[k, f]
                    mgl[k] = t_mgl[k, f]
                    cat[k] = t_cat[k, f]
            lst = np.empty((n_open, n_stats))
            rst = np.empty((n_open, n_stats))
            n_l = np.empty(n_open, dtype=np.int64)
            n_r = np.empty(n_open, dtype=np.int64)
            walk_splits(idx, xs, ys, ws, scan, feat, thr, mgl, cat, n_categories, is_clf, crit,
                        mode, side, lst, rst, n_l, n_r)
            if mode != 0:  # the primary's majority side: apply()'s route, surrogates' fallback
                for k in range(n_open):
                    if feat[k] >= 0:
                        wl = _node_weight(is_clf, lst[k])
                        mgl[k] = 1 if wl >= _node_weight(is_clf, rst[k]) else 0
            if mode == 2:
                sur_k, n_sur_k = _surrogates(X, idx, xs, ys, ws, scan, feat, n_categories, side,
                                             max_surrogates, mgl, is_clf, crit, lst, rst,
                                             n_l, n_r)
                for k in range(n_open):
                    sur[open_nodes[k]] = sur_k[k]
                    n_sur[open_nodes[k]] = n_sur_k[k]
            h_size = record_candidates(
                open_nodes, feat, n_l, thr, np.zeros(n_open, dtype=np.int64), mgl, cat,
                lst, rst, inode, fnode, cand_l, cand_r, cand_cat, is_clf, crit,
                min_impurity_decrease, heap, h_size,
            )
            for k in range(n_open):
                inode[open_nodes[k], _CNR] = n_r[k]
        to_split, h_size = nodes_to_split(
            open_nodes, inode, heap, h_size, n_splits, max_leaf_nodes
        )
        if to_split.shape[0] == 0:
            break
        n_splits += to_split.shape[0]
        if mode == 1:
            idx, xs, ys, ws, side, dup, n_ids, n_used = _make_room(
                to_split, inode, idx, xs, ys, ws, side, dup, n_ids, n_used)
        (inode, fnode, stats, cand_l, cand_r, cand_cat, node_count, open_nodes,
         part) = split_nodes(to_split, inode, fnode, stats, cand_l, cand_r, cand_cat,
                             node_count, is_clf, crit, limits)
        if sur.shape[0] < inode.shape[0]:
            sur = _resize2(sur, inode.shape[0])
            grown = np.zeros(inode.shape[0], dtype=np.int64)
            grown[: n_sur.shape[0]] = n_sur
            n_sur = grown
        for c in range(node_count - 2 * to_split.shape[0], node_count):
            n_sur[c] = 0
        part_dst = np.full(part.shape[0], -1, dtype=np.int64)
        part_frac = np.zeros(part.shape[0])
        for m in range(part.shape[0]):
            node = part[m, 2]
            if inode[node, _CRS] >= 0:  # rows copied into both children
                part_dst[m] = inode[node, _CRS]
                part_frac[m] = fnode[inode[node, _LEFT], _WNS] / fnode[node, _WNS]
    inode_out, fnode_out, stats_out, cat_out = finish_tree(inode, fnode, stats, cand_cat,
                                                           node_count)
    return inode_out, fnode_out, stats_out, cat_out, sur[:node_count].copy(), n_sur[:node_count]


@JIT
def _surrogates(X, idx, xs, ys, ws, scan, feat, n_categories, side, max_surrogates, mgl,
                is_clf, crit, lst, rst, n_l, n_r):
    """Surrogates of each scanned node's split, then the rows missing its feature sent
    by them (:mod:`fastdt._missing`). Returns ``(sur [k, 3S], n_sur [k])``."""
    n_open = scan.shape[0]
    n_features = idx.shape[0]
    agree = np.empty((n_open, n_features))
    s_thr = np.empty((n_open, n_features))
    s_dir = np.empty((n_open, n_features), dtype=np.uint8)
    find_surrogates(idx, xs, ws, scan, feat, n_categories, side, agree, s_thr, s_dir)
    sur = np.zeros((n_open, 3 * max_surrogates))
    n_sur = np.zeros(n_open, dtype=np.int64)
    for k in range(n_open):
        if feat[k] >= 0:
            n_sur[k] = choose_surrogates(agree[k], s_thr[k], s_dir[k],
                                         _node_weight(is_clf, lst[k]),
                                         _node_weight(is_clf, rst[k]), max_surrogates, sur[k])
    resolve_surrogates(X, idx, xs, ys, ws, scan, feat, sur, n_sur, mgl, is_clf, crit, side,
                       lst, rst, n_l, n_r)
    return sur, n_sur


@JIT
def _make_room(to_split, inode, idx, xs, ys, ws, side, dup, n_ids, n_used):
    """``missing="fractional"``: the nodes about to split whose children share rows get
    a fresh range for their right child at the end of the layout (grown by doubling),
    and each shared row a fresh id for its right copy (``dup``)."""
    need = n_used
    new_ids = n_ids
    for node in to_split:
        n_l = inode[node, _CNL]
        n_r = inode[node, _CNR]
        n = inode[node, _END] - inode[node, _START]
        if n_l + n_r > n:
            inode[node, _CRS] = need
            need += n_r
            new_ids += n_l + n_r - n
    cap = idx.shape[1]
    if need > cap:
        cap = max(2 * cap, need)
        idx = _resize_cols(idx, cap)
        xs = _resize_cols(xs, cap)
        ys = _resize_cols(ys, cap)
        ws = _resize_cols(ws, cap)
    if new_ids > side.shape[0]:
        cap_ids = max(2 * side.shape[0], new_ids)
        side2 = np.zeros(cap_ids, dtype=side.dtype)
        side2[: side.shape[0]] = side
        side = side2
        dup2 = np.zeros(cap_ids, dtype=dup.dtype)
        dup2[: dup.shape[0]] = dup
        dup = dup2
    for node in to_split:
        if inode[node, _CRS] < 0:
            continue
        f = inode[node, _CF]
        for p in range(inode[node, _START], inode[node, _END]):
            i = idx[f, p]
            if side[i] == 2:
                dup[i] = n_ids
                n_ids += 1
    return idx, xs, ys, ws, side, dup, n_ids, need


@JIT
def _resize_cols(a, cap):
    out = np.empty((a.shape[0], cap), dtype=a.dtype)
    out[:, : a.shape[1]] = a
    return out


@JIT
def bfs_order(left, right):
    """Breadth-first order of the nodes reachable from node 0.

    Returns ``order`` (int64 [n]) with ``order[new_id] = old_id``.
    """
    n = left.shape[0]
    order = np.empty(n, dtype=np.int64)
    order[0] = 0
    head = 0
    tail = 1
    while head < tail:
        node = order[head]
        head += 1
        if left[node] != LEAF:
            order[tail] = left[node]
            order[tail + 1] = right[node]
            tail += 2
    return order[:tail]

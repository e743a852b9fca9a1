"""Sparse splitter kernels: scan each column's stored values, the implicit zeros as one block.

(The splitter that calls them, level by level, is :class:`fastdt._sparse.SparseSplitter`.)

Data layout (CSC, presorted)::

    indptr[f] .. live_end[f]   the live entries of feature f (rows of open nodes)
    e_rows[p]                  int32 row id of entry p
    e_vals[p]                  its value (never 0: zeros are implicit; NaN: missing)
    e_ys[p], e_ws[p]           its row's target and weight (weights: only if weighted)
    e_node[p]                  its node as of the last partition (read in order: the
                               scan finds a node's entries without a lookup per row)

    feature f:  | node 3's entries | node 4's entries | ... | dead entries (ignored)
                  sorted by value    sorted by value

    order[:]                   every row id once, grouped by node: node k owns
                               order[start_k:end_k] (the driver's ranges)
    node_of[row]               the open node holding a row (-1: a finished leaf)

Each column holds only its stored values, so a level costs time in proportion to the
stored values of the open nodes plus their rows, never to ``n * F``. A node's entries in
a column are adjacent and sorted; its rows that the column does not store are zeros,
and their statistics are the node's minus those of its stored entries (one subtraction,
not a pass over them: the zero block). Scanning a node's entries in order with the zero
block between the negative and the positive values visits exactly the candidates of
the exact splitter on the dense copy, in the same order, with the same rules
(:func:`fastdt._exact_scan._scan_segment`), so the same split wins.

Splitting a node marks each of its rows' side (``side``: 0 left, 1 right): first every
row on the zero block's side, then the rows stored in the chosen column by value. The
next level's scan first partitions each column's entries stably by side, dropping the
entries of finished leaves (:func:`_partition_column`), so children stay sorted and
nothing is sorted twice.

With the histogram splitter (``splitter="hist"``), the values are bin codes minus the
zero's bin code (so a zero stays an implicit zero); a candidate between codes ``c0 <
c1`` gets the histogram splitter's threshold ``split_threshold(bin_hi[c0],
bin_lo[c1])``, while the rows are routed by the codes themselves (``out_cut``).
"""

import numpy as np

from ._config import FEATURE_THRESHOLD
from ._criteria import (
    NO_REG, missing_right_score, monotone_ok, score_candidate, split_threshold, target_stat,
)
from ._jit import JIT
from ._sampling import random_threshold, uniform_draw


@JIT
def sort_columns(lo, hi, indptr, rows, vals, rank, order):
    """``order[indptr[f]:indptr[f + 1]]``: the entries of the columns ``[lo, hi)`` sorted
    by value (NaN last), ties by ``rank`` of their row (so that the sums of a scan do not
    depend on the order of the rows)."""
    for f in range(lo, hi):
        a, b = indptr[f], indptr[f + 1]
        if b == a:
            continue
        by_rank = np.argsort(rank[rows[a:b]])  # ranks of distinct rows: no ties
        v = vals[a:b][by_rank]
        by_value = np.argsort(v, kind="mergesort")  # stable: ties keep the rank order
        for t in range(b - a):
            order[a + t] = a + by_rank[by_value[t]]


@JIT
def _partition_column(p0, end, e_rows, e_vals, e_ys, e_ws, e_node, weighted, node_of, side,
                      s_rows, s_vals, s_ys, s_ws):
    """Stable in-place partition of the live entries ``[p0, end)`` of one column: each
    group of entries (of one node as of the last partition, ``e_node``) becomes its
    left child's entries then its right child's, each entry's node updated; entries of
    rows in finished leaves (``node_of`` -1) are dropped. Returns the new end of the
    live entries."""
    w = p0
    i = p0
    while i < end:
        g = e_node[i]
        r = 0
        rc = g
        while i < end and e_node[i] == g:
            row = e_rows[i]
            nn = node_of[row]
            if nn >= 0:
                if nn == g or side[row] == 0:
                    e_node[w] = nn
                    e_rows[w] = row
                    e_vals[w] = e_vals[i]
                    e_ys[w] = e_ys[i]
                    if weighted:
                        e_ws[w] = e_ws[i]
                    w += 1
                else:
                    s_rows[r] = row  # its node: the right child, the same for the group
                    rc = nn
                    s_vals[r] = e_vals[i]
                    s_ys[r] = e_ys[i]
                    if weighted:
                        s_ws[r] = e_ws[i]
                    r += 1
            i += 1
        for t in range(r):
            e_node[w + t] = rc
            e_rows[w + t] = s_rows[t]
            e_vals[w + t] = s_vals[t]
            e_ys[w + t] = s_ys[t]
            if weighted:
                e_ws[w + t] = s_ws[t]
        w += r
    return w


@JIT
def add_entry(is_clf, left, yv, wi):
    """Add a row of target ``yv`` and weight ``wi`` to the left statistics: its class
    count (classification; returns 0), or returns ``wi * yv`` (regression's sum)."""
    if is_clf:
        left[np.uint64(yv)] += wi
        return 0.0
    return wi * yv


@JIT
def _add_block(is_clf, left, zstat):
    """Add the zero block's statistics to the left child's (class counts into ``left``;
    regression: returns its sum of ``w*y``)."""
    if is_clf:
        for c in range(left.shape[0]):
            left[c] += zstat[c]
        return 0.0
    return zstat[1]


@JIT
def _scan_run(e_vals, e_ys, e_ws, weighted, i, j, n_node, total, w_node, imp_node, is_clf,
              crit, msl, mwl, left, work, miss, zstat, mono, f, lower, upper, random, u_thr,
              u_side, zcode, bin_lo, bin_hi):
    """Best (or, ``random``, one drawn) split of one node on one column, from its stored
    entries ``[i, j)`` (sorted, NaN last) and its zero block. Returns ``(proxy,
    n_left, threshold, cut, non_constant, missing_left)``: ``cut`` routes the stored
    values (the threshold itself, or between bin codes), the rest as
    :func:`fastdt._exact_scan._scan_segment`."""
    e = j
    while e > i and np.isnan(e_vals[e - 1]):
        e -= 1
    n_miss = j - e
    n_st = e - i
    nz = n_node - (j - i)  # rows of the node the column does not store: zeros
    n_s = total.shape[0]
    for c in range(n_s):
        miss[c] = 0.0
        zstat[c] = 0.0
    w_miss = 0.0
    w_pres = 0.0
    for p in range(i, j):
        wi = e_ws[p] if weighted else 1.0
        yv = e_ys[p]
        if p < e:
            w_pres += wi
            if is_clf:
                zstat[np.uint64(yv)] += wi
            else:
                zstat[1] += wi * yv
        else:
            w_miss += wi
            if is_clf:
                miss[np.uint64(yv)] += wi
            else:
                miss[0] += wi
                miss[1] += wi * yv
    w_zero = w_node - w_pres - w_miss
    if is_clf:
        for c in range(n_s):
            zstat[c] = total[c] - zstat[c] - miss[c]
    else:
        zstat[0] = w_zero
        zstat[1] = total[1] - zstat[1] - miss[1]
    if n_st + nz == 0:
        return -np.inf, 0, np.nan, np.nan, False, -1
    lo_v = np.float64(e_vals[i]) if n_st else 0.0
    hi_v = np.float64(e_vals[e - 1]) if n_st else 0.0
    if nz > 0:
        lo_v = min(lo_v, 0.0)
        hi_v = max(hi_v, 0.0)
    if n_miss == 0 and hi_v <= lo_v + FEATURE_THRESHOLD:
        return -np.inf, 0, np.nan, np.nan, False, -1
    zp = i  # first positive stored value: the zero block goes before it
    while zp < e and e_vals[zp] < 0:
        zp += 1
    has_z = nz > 0
    zi = zp - i
    binned = zcode.shape[0] > 0
    if random:
        thr = random_threshold(lo_v, hi_v, u_thr)
        mgl = 1 if (n_miss and u_side < 0.5) else 0
        for c in range(n_s):
            left[c] = miss[c] if mgl else 0.0
        wl = w_miss if mgl else 0.0
        sl = miss[1] if mgl and not is_clf else 0.0
        nl = n_miss if mgl else 0
        for p in range(i, e):
            if e_vals[p] > thr:
                break
            wi = e_ws[p] if weighted else 1.0
            wl += wi
            nl += 1
            sl += add_entry(is_clf, left, e_ys[p], wi)
        if has_z and 0.0 <= thr:
            wl += w_zero
            nl += nz
            sl += _add_block(is_clf, left, zstat)
        wr = w_node - wl
        if (nl < msl or n_node - nl < msl or wl < mwl or wr < mwl or wl <= 0.0
                or wr <= 0.0 or (mono is not None and mono[f] != 0 and not monotone_ok(
                    is_clf, mono[f], left, total, wl, wr, sl, lower, upper, NO_REG))):
            return -np.inf, 0, thr, thr, True, -1
        num, den = score_candidate(is_clf, crit, left, total, wl, wr, sl, imp_node, work,
                                   NO_REG)
        return num / den, nl, thr, thr, True, (mgl if n_miss else -1)
    best_num = -np.inf
    best_den = 1.0
    best_nl = 0
    best_thr = np.nan
    best_cut = np.nan
    best_mgl = -1
    m = n_st + (1 if has_z else 0)  # the items in order: entries, the zero block among them
    n_pass = 2 if n_miss else 1
    for missing_left in range(n_pass):
        for c in range(n_s):
            left[c] = miss[c] if missing_left else 0.0
        wl = w_miss if missing_left else 0.0
        sl = miss[1] if missing_left and not is_clf else 0.0
        nl = n_miss if missing_left else 0
        for t in range(m - 1):
            if has_z and t == zi:
                wl += w_zero
                nl += nz
                sl += _add_block(is_clf, left, zstat)
                x0 = 0.0
            else:
                p = i + t - (1 if has_z and t > zi else 0)
                wi = e_ws[p] if weighted else 1.0
                wl += wi
                nl += 1
                sl += add_entry(is_clf, left, e_ys[p], wi)
                x0 = np.float64(e_vals[p])
            t1 = t + 1
            if has_z and t1 == zi:
                x1 = 0.0
            else:
                x1 = np.float64(e_vals[i + t1 - (1 if has_z and t1 > zi else 0)])
            if nl < msl or n_node - nl < msl:
                continue
            if x1 <= x0 + FEATURE_THRESHOLD:
                continue
            wr = w_node - wl
            if wl < mwl or wr < mwl or wl <= 0.0 or wr <= 0.0:
                continue
            if mono is not None and mono[f] != 0 and not monotone_ok(
                    is_clf, mono[f], left, total, wl, wr, sl, lower, upper, NO_REG):
                continue
            num, den = score_candidate(is_clf, crit, left, total, wl, wr, sl, imp_node,
                                       work, NO_REG)
            if not num * best_den > best_num * den:
                continue
            best_num = num
            best_den = den
            best_nl = nl
            best_cut = split_threshold(x0, x1)
            if binned:
                best_thr = split_threshold(bin_hi[np.int64(x0) + zcode[f]],
                                           bin_lo[np.int64(x1) + zcode[f]])
            else:
                best_thr = best_cut
            best_mgl = missing_left if n_miss else -1
        if (n_pass == 2 and not missing_left and n_node - n_miss >= msl
                and n_miss >= msl):
            num, den = missing_right_score(is_clf, crit, total, miss, w_node, w_miss, mwl,
                                           mono, f, lower, upper, imp_node, left,
                                           work, NO_REG)
            if num * best_den > best_num * den:
                best_num = num
                best_den = den
                best_nl = n_node - n_miss
                best_thr = np.inf
                best_cut = np.inf
                best_mgl = 0
    return best_num / best_den, best_nl, best_thr, best_cut, True, best_mgl


@JIT
def scan_sparse(
    lo, hi, indptr, live_end, e_rows, e_vals, e_ys, e_ws, e_node, node_of, side, moved,
    node_slot, scan_n, scan_stats, scan_w, scan_imp, is_clf, crit, msl, mwl, rseed, mono,
    bounds, zcode, bin_lo, bin_hi, scratch_n, out_proxy, out_nl, out_thr, out_cut,
    out_nonconst, out_mgl,
):
    """Partition the columns ``[lo, hi)`` after the last split (``moved``), then scan
    every open node's entries in them.

    Parameters
    ----------
    indptr, live_end : int64 [F + 1], int64 [F]
        Each column's entries and the end of its live ones (updated here).
    e_rows, e_vals, e_ys, e_ws, e_node : the entries (module docstring) and each one's
        node (as of the last partition); partitioned in place.
    node_of, side : int32 [n], uint8 [n]
        Each row's open node (-1: finished) and its side in the last split.
    moved : bool
        Whether rows changed node since the last scan (then partition first).
    node_slot : int64 [n_nodes]
        The row of the scan tables of each node to scan (-1: not scanned now).
    scan_n, scan_stats, scan_w, scan_imp : int64 [k], float64 [k, S], [k], [k]
        Rows, statistics, weight and impurity of each node to scan.
    is_clf, crit, msl, mwl
        Task flag, criterion code, ``min_samples_leaf``, ``min_weight_leaf``.
    rseed : None, or uint64 [k]
        ``splitter="random"``: each node's seed (one drawn split per node and column).
    mono, bounds : None or int8 [F], float64 [k, 2]
        Monotonic constraints and each node's bounds.
    zcode, bin_lo, bin_hi : int64 [F] (empty: exact), float64 [F, B], [F, B]
        Histogram splitter: the zero's bin code per column and the bins' value ranges.
    scratch_n : int
        The most live entries of one column (the partition's buffers).
    out_proxy, out_nl, out_thr, out_cut, out_nonconst, out_mgl : [k, F]
        Output: each (node, column)'s candidate (preset by the caller to "no split").
    """
    weighted = e_ws.shape[0] > 0
    n_stats = scan_stats.shape[1]
    left = np.empty(n_stats)
    work = np.empty(n_stats)
    miss = np.zeros(max(n_stats, 2))
    zstat = np.zeros(max(n_stats, 2))
    s_rows = np.empty(scratch_n if moved else 0, dtype=e_rows.dtype)
    s_vals = np.empty(scratch_n if moved else 0, dtype=e_vals.dtype)
    s_ys = np.empty(scratch_n if moved else 0)
    s_ws = np.empty(scratch_n if moved and weighted else 0)
    draws = np.zeros(2)
    for f in range(lo, hi):
        end = live_end[f]
        if moved:
            end = _partition_column(indptr[f], end, e_rows, e_vals, e_ys, e_ws, e_node,
                                    weighted, node_of, side, s_rows, s_vals, s_ys, s_ws)
            live_end[f] = end
        i = indptr[f]
        while i < end:
            node = e_node[i]
            j = i + 1
            while j < end and e_node[j] == node:
                j += 1
            s = node_slot[node]
            if s >= 0:
                if rseed is not None:
                    for d in range(2):  # the threshold's draw and the missing side's
                        draws[d] = uniform_draw(rseed[s], f, d)
                proxy, nl, thr, cut, nonconst, mgl = _scan_run(
                    e_vals, e_ys, e_ws, weighted, i, j, scan_n[s], scan_stats[s], scan_w[s],
                    scan_imp[s], is_clf, crit, msl, mwl, left, work, miss, zstat, mono, f,
                    bounds[s, 0], bounds[s, 1], rseed is not None, draws[0], draws[1], zcode,
                    bin_lo[f] if zcode.shape[0] else bin_lo[0],
                    bin_hi[f] if zcode.shape[0] else bin_hi[0])
                out_proxy[s, f] = proxy
                out_nl[s, f] = nl
                out_thr[s, f] = thr
                out_cut[s, f] = cut
                out_nonconst[s, f] = nonconst
                out_mgl[s, f] = mgl
            i = j


@JIT
def route_sparse(lo, hi, indptr, live_end, e_rows, e_vals, e_node, node_slot, feat, cut,
                 mgl, side):
    """The side of each row of the split nodes that its node's column stores (columns
    ``[lo, hi)``): ``value <= cut`` left, a missing value by ``mgl``. The rows the column
    does not store were set by :func:`zero_sides`."""
    for f in range(lo, hi):
        for p in range(indptr[f], live_end[f]):
            s = node_slot[e_node[p]]
            if s < 0 or feat[s] != f:
                continue
            row = e_rows[p]
            v = e_vals[p]
            if v != v:
                side[row] = 0 if mgl[s] == 1 else 1
            else:
                side[row] = 0 if v <= cut[s] else 1


@JIT
def zero_sides(lo, hi, order, starts, ends, zero_side, side):
    """Every row of the split nodes ``[lo, hi)`` on its node's zero block's side."""
    for k in range(lo, hi):
        v = zero_side[k]
        for p in range(starts[k], ends[k]):
            side[order[p]] = v


@JIT
def add_row(is_clf, crit, st, k, yv, wi):
    """Add a row of target ``yv`` and weight ``wi`` to the statistics ``st[k]``: its class
    count (classification), or ``(w, w y, w t(y))`` (regression)."""
    if is_clf:
        st[k, np.uint64(yv)] += wi
    else:
        st[k, 0] += wi
        st[k, 1] += wi * yv
        st[k, 2] += wi * target_stat(crit, yv)


@JIT
def children_stats(lo, hi, order, starts, ends, side, y, w, is_clf, crit, lst, rst,
                   n_left, n_right):
    """Statistics and rows of both children of the nodes ``[lo, hi)`` from their rows
    (``order[starts[k]:ends[k]]``) and sides; a node whose rows all have side 0 gets its
    own statistics in ``lst`` (the root)."""
    weighted = w.shape[0] > 0
    for k in range(lo, hi):
        lst[k, :] = 0.0
        rst[k, :] = 0.0
        nl = 0
        for p in range(starts[k], ends[k]):
            row = order[p]
            wi = w[row] if weighted else 1.0
            yv = y[row]
            if side[row] == 0:
                nl += 1
                add_row(is_clf, crit, lst, k, yv, wi)
            else:
                add_row(is_clf, crit, rst, k, yv, wi)
        n_left[k] = nl
        n_right[k] = ends[k] - starts[k] - nl


@JIT
def partition_rows(lo, hi, order, side, part):
    """Stable partition of the ranges ``part[m, 0]:part[m, 1]`` of ``order`` by side."""
    scratch = 0
    for m in range(lo, hi):
        scratch = max(scratch, part[m, 1] - part[m, 0])
    buf = np.empty(scratch, dtype=order.dtype)
    for m in range(lo, hi):
        w = part[m, 0]
        r = 0
        for p in range(part[m, 0], part[m, 1]):
            row = order[p]
            if side[row] == 0:
                order[w] = row
                w += 1
            else:
                buf[r] = row
                r += 1
        for t in range(r):
            order[w + t] = buf[t]


@JIT
def relabel(lo, hi, order, starts, ends, side, left_id, right_id, node_of):
    """The node of every row of the nodes ``[lo, hi)`` after their split: its child by
    side (-1: a finished leaf)."""
    for k in range(lo, hi):
        for p in range(starts[k], ends[k]):
            row = order[p]
            node_of[row] = left_id[k] if side[row] == 0 else right_id[k]

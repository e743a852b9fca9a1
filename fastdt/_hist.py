"""Histogram splitter: binned features, one histogram per (open node, feature).

Data layout (built once per fit from a :class:`fastdt.Dataset`)::

    codes[f, :]   uint8/uint16 bin of every row for feature f, rows grouped by node:
                  0 .. n_bins[f]-1 the value bins (categorical: the category codes),
                  n_bins[f] the missing bin (NaN)
    ycode[:]      class code of each row (classification)
    rstat[:, :]   per-row statistics: the weight (weighted classification), or
                  (w, w*y, w*t(y)) for regression; no columns when not needed

    positions:   | node 3: [a3, b3) | node 4: [a4, b4) | ... finished leaves ... |

Unlike the exact splitter's layout, every feature row is in the *same* row order: a
node owns ``[start, end)`` of all of them, and splitting a node is one stable partition
of that range, the same in every row (marked once per position in ``side``). Every
histogram is then built by reading memory in order.

Histograms live in a pool ``float64 [slots, F, B, H]`` (``B = max(n_bins) + 1``: the
value bins of the widest feature and a missing bin): ``H`` columns per bin, the
node statistics of ``_criteria`` (class counts, or the three regression sums) plus a
row count when rows are weighted (unweighted, the count is the sum of the class
counts, or the weight sum). A node keeps its histogram in a slot while it waits to be
split; when it splits, only the smaller child's histogram is built from rows, and the
larger child's is the parent's minus the smaller's, computed in the parent's slot
(LightGBM's subtraction trick). Nodes with fewer rows than bins are not worth a slot:
their histograms are built on the fly in thread-local scratch when they are scanned.

Per level, :func:`build_level` partitions the ranges of the nodes just split and builds
the new histograms (``prange`` over features), then
:func:`fastdt._hist_scan.scan_nodes` scores every (open node, feature) with the exact
splitter's candidates, in its order, and the same criterion code (``prange`` over
nodes): numeric cuts with the missing rows on either side, categorical partitions.
Thresholds are placed midway between the largest value of the last bin on the left
and the smallest value of the first non-empty bin on the right: with one bin per
distinct value this is exactly the exact splitter's threshold, so the two give the
same tree. :func:`mark_sides` then routes the missing bin to the learned side and
categorical codes by the split's bitset.
"""

import numpy as np
from numba import prange

from ._config import JIT, PJIT
from ._exact import target_stat
from ._grow import (
    _CBIN, _CF, _END, _FEAT, _LEFT, _MGL, _NNS, _RIGHT, _SLOT, _START,
    choose_features, finish_tree, new_rng, new_tree, node_ranges, nodes_to_split,
    record_candidates, split_nodes,
)
from ._hist_scan import _accumulate, scan_nodes


@JIT
def _partition_codes(codes_f, side, a, b, buf):
    """Stable in-place partition of ``codes_f[a:b]``: side 0 first, then side 1.

    Branch-free: each value is written to both destinations and only the counter of
    its side advances (sides of a split are unpredictable; a branch would miss half
    the time).
    """
    w = a
    r = 0
    for p in range(a, b):
        q = np.uint64(p)  # unsigned indexing, as in _accumulate
        v = codes_f[q]
        s = np.int64(side[q])
        codes_f[np.uint64(w)] = v
        buf[np.uint64(r)] = v
        w += 1 - s
        r += s
    for j in range(r):
        codes_f[np.uint64(w + j)] = buf[np.uint64(j)]


@PJIT
def mark_sides(codes, part, feat, cbin, mgl, cat, n_bins, n_categories, side):
    """``side[p] = 1`` if position ``p`` of node ``part[m]`` goes right, else 0.

    On the split feature ``f = feat[m]``, the missing code ``n_bins[f]`` goes left iff
    ``mgl[m] == 1``; a categorical code ``c`` goes left iff its bit is set in
    ``cat[m]`` (uint64 [W]); a numeric code goes right iff it is above ``cbin[m]``.
    """
    for m in prange(part.shape[0]):
        f = feat[m]
        t = cbin[m]
        codes_f = codes[f]
        mc = np.int64(n_bins[f])
        if n_categories[f] > 0:
            miss_side = 0 if mgl[m] == 1 else 1
            words = cat[m]
            for p in range(part[m, 0], part[m, 1]):
                q = np.uint64(p)  # unsigned indexing, as in _accumulate
                c = np.uint64(codes_f[q])
                if np.int64(c) == mc:
                    side[q] = miss_side
                else:
                    bit = (words[c >> np.uint64(6)] >> (c & np.uint64(63))) & np.uint64(1)
                    side[q] = 0 if bit else 1
        else:
            # the missing code is above every value bin: right unless it goes left
            ml = mc if mgl[m] == 1 else -1
            for p in range(part[m, 0], part[m, 1]):
                q = np.uint64(p)
                c = np.int64(codes_f[q])
                side[q] = (c > t) & (c != ml)  # branch-free


@PJIT
def partition_rows(ycode, rstat, side, part):
    """Stable partition of the per-row arrays over each range of ``part`` (branch-free,
    as :func:`_partition_codes`)."""
    has_code = ycode.shape[0] > 0
    n_cols = rstat.shape[1]
    for m in prange(part.shape[0]):
        a = part[m, 0]
        b = part[m, 1]
        buf_c = np.empty(b - a if has_code else 0, dtype=ycode.dtype)
        buf_s = np.empty((b - a, n_cols))
        w = a
        r = 0
        for p in range(a, b):  # unsigned indexing, as in _accumulate
            q = np.uint64(p)
            qw = np.uint64(w)
            qr = np.uint64(r)
            s = np.int64(side[q])
            if has_code:
                v = ycode[q]
                ycode[qw] = v
                buf_c[qr] = v
            for j in range(n_cols):
                x = rstat[q, j]
                rstat[qw, j] = x
                buf_s[qr, j] = x
            w += 1 - s
            r += s
        for i in range(r):
            qi = np.uint64(i)
            qw = np.uint64(w + i)
            if has_code:
                ycode[qw] = buf_c[qi]
            for j in range(n_cols):
                rstat[qw, j] = buf_s[qi, j]


@PJIT
def build_level(codes, side, part, jobs, pool, n_bins, ycode, rstat, is_clf, weighted):
    """Partition the split nodes' ranges in every feature row, then build histograms.

    Parameters
    ----------
    codes : uint8/uint16 [F, n]
        Binned features, partitioned in place.
    side, part
        Sides of positions (:func:`mark_sides`) and ``[start, end, node]`` rows.
    jobs : int64 [j, 4]
        ``(start, end, dst, sub)``: histogram of positions ``[start, end)`` into pool
        slot ``dst``; if ``sub >= 0``, then ``pool[sub] -= pool[dst]`` (subtraction).
    pool : float64 [slots, F, B, H]
    """
    n_features = codes.shape[0]
    scratch = 0
    for m in range(part.shape[0]):
        scratch = max(scratch, part[m, 1] - part[m, 0])
    for f in prange(n_features):
        if part.shape[0] > 0:
            buf = np.empty(scratch, dtype=codes.dtype)
            for m in range(part.shape[0]):
                _partition_codes(codes[f], side, part[m, 0], part[m, 1], buf)
        nb = n_bins[f] + 1  # value bins and the missing bin
        for j in range(jobs.shape[0]):
            h = pool[jobs[j, 2], f]
            h[:nb] = 0.0
            _accumulate(codes[f], ycode, rstat, jobs[j, 0], jobs[j, 1], is_clf, weighted, h)
            if jobs[j, 3] >= 0:
                g = pool[jobs[j, 3], f]
                for k in range(nb):
                    for c in range(h.shape[1]):
                        g[k, c] -= h[k, c]


# --------------------------------------------------------------------------- pool


@JIT
def _take_slot(pool, free, n_free, max_slots):
    """A free slot of the pool (grown by doubling up to ``max_slots``), or -1.
    Returns ``(slot, pool, free, n_free)``."""
    if n_free == 0:
        cap = pool.shape[0]
        new_cap = min(2 * cap, max_slots)
        if new_cap <= cap:
            return -1, pool, free, n_free
        grown = np.empty((new_cap,) + pool.shape[1:])
        grown[:cap] = pool
        free = np.empty(new_cap, dtype=np.int64)
        for s in range(new_cap - cap):
            free[s] = new_cap - 1 - s
        pool = grown
        n_free = new_cap - cap
    n_free -= 1
    return free[n_free], pool, free, n_free


@JIT
def _plan_builds(part, inode, is_open, keep_rows, pool, free, n_free, max_slots):
    """Histogram jobs for the children of the split nodes in ``part`` (see the module
    docstring); assigns children's slots. Returns ``(jobs, temps, pool, free, n_free)``:
    ``temps`` are slots to release once the jobs ran."""
    jobs = np.empty((part.shape[0], 4), dtype=np.int64)
    temps = np.empty(part.shape[0], dtype=np.int64)
    n_jobs = 0
    n_temps = 0
    for m in range(part.shape[0]):
        node = part[m, 2]
        ps = inode[node, _SLOT]
        inode[node, _SLOT] = -1
        if ps < 0:
            continue  # children are built on the fly when scanned
        lc = inode[node, _LEFT]
        rc = inode[node, _RIGHT]
        small, large = (lc, rc) if inode[lc, _NNS] <= inode[rc, _NNS] else (rc, lc)
        keep_large = is_open[large] == 1 and inode[large, _NNS] >= keep_rows
        keep_small = is_open[small] == 1 and inode[small, _NNS] >= keep_rows
        if keep_large:
            t, pool, free, n_free = _take_slot(pool, free, n_free, max_slots)
            if t < 0:  # pool full: build the larger child directly in the parent's slot
                jobs[n_jobs, 0] = inode[large, _START]
                jobs[n_jobs, 1] = inode[large, _END]
                jobs[n_jobs, 2] = ps
                jobs[n_jobs, 3] = -1
                inode[large, _SLOT] = ps
            else:
                jobs[n_jobs, 0] = inode[small, _START]
                jobs[n_jobs, 1] = inode[small, _END]
                jobs[n_jobs, 2] = t
                jobs[n_jobs, 3] = ps
                inode[large, _SLOT] = ps
                if keep_small:
                    inode[small, _SLOT] = t
                else:
                    temps[n_temps] = t
                    n_temps += 1
            n_jobs += 1
        elif keep_small:
            jobs[n_jobs, 0] = inode[small, _START]
            jobs[n_jobs, 1] = inode[small, _END]
            jobs[n_jobs, 2] = ps
            jobs[n_jobs, 3] = -1
            inode[small, _SLOT] = ps
            n_jobs += 1
        else:
            free[n_free] = ps
            n_free += 1
    return jobs[:n_jobs], temps[:n_temps], pool, free, n_free


# --------------------------------------------------------------------------- driver


@JIT
def grow_hist(
    codes, ycode, rstat, weighted, n_stats, is_clf, crit, n_bins, bin_lo, bin_hi,
    n_categories, max_depth, min_samples_split, min_samples_leaf, min_weight_leaf,
    min_impurity_decrease, max_features, max_leaf_nodes, seed, max_slots,
):
    """Grow one tree on binned data (the histogram splitter).

    Parameters
    ----------
    codes : uint8 or uint16 [F, n]
        Bins of the training rows (consumed: partitioned in place).
    ycode : int32 [n] or [0]
        Class codes (classification; empty for regression). Partitioned in place.
    rstat : float64 [n, R]
        Per-row statistics (module docstring). Partitioned in place.
    weighted : bool
        Whether rows carry weights (adds a count column to histograms).
    n_bins, bin_lo, bin_hi : int32 [F], float64 [F, B], float64 [F, B]
        Value bins per feature (code ``n_bins[f]`` is the missing bin) and the value
        range of each value bin (:class:`fastdt.Dataset`).
    n_categories : int32 [F]
        Categories of each feature (0: numeric; else bin ``c`` is category ``c``).
    max_slots : int
        Most histograms kept at once (the pool's memory bound).
    Other parameters and the return value are those of :func:`fastdt._grow.grow_tree`.
    """
    n_features, n = codes.shape
    limits = (max_depth, min_samples_split, min_samples_leaf, min_weight_leaf)
    rng, perm = new_rng(seed, n_features)
    side = np.zeros(n, dtype=np.uint8)
    width = n_stats + (1 if weighted else 0)
    n_bins_max = bin_lo.shape[1] + 1  # histogram rows: the value bins and the missing bin
    n_words = (n_categories.max() + 63) // 64

    root = np.zeros(n_stats)
    for p in range(n):
        if is_clf:
            root[ycode[p]] += rstat[p, 0] if weighted else 1.0
        else:
            for j in range(3):
                root[j] += rstat[p, j]
    inode, fnode, stats, cand_l, cand_r, cand_cat, open_nodes, heap = new_tree(
        root, n, is_clf, crit, limits, max_leaf_nodes, n_words
    )
    node_count = 1
    h_size = 0
    n_splits = 0

    pool = np.empty((min(16, max_slots), n_features, n_bins_max, width))
    free = np.arange(pool.shape[0] - 1, -1, -1)
    n_free = pool.shape[0]
    keep_rows = n_bins_max  # smaller nodes are built on the fly when scanned
    no_part = np.zeros((0, 3), dtype=np.int64)
    if open_nodes.shape[0] > 0:
        slot, pool, free, n_free = _take_slot(pool, free, n_free, max_slots)
        inode[0, _SLOT] = slot
        jobs = np.zeros((1, 4), dtype=np.int64)
        jobs[0, 1] = n
        jobs[0, 2] = slot
        jobs[0, 3] = -1
        build_level(codes, side, no_part, jobs, pool, n_bins, ycode, rstat, is_clf, weighted)

    while True:
        n_open = open_nodes.shape[0]
        if n_open > 0:
            scan, scan_stats, scan_w, scan_imp = node_ranges(open_nodes, inode, fnode, stats)
            slots = np.empty(n_open, dtype=np.int64)
            for k in range(n_open):
                slots[k] = inode[open_nodes[k], _SLOT]
            t_proxy = np.empty((n_open, n_features))
            t_nl = np.empty((n_open, n_features), dtype=np.int64)
            t_thr = np.empty((n_open, n_features))
            t_nc = np.empty((n_open, n_features), dtype=np.uint8)
            t_bin = np.empty((n_open, n_features), dtype=np.int64)
            t_mgl = np.empty((n_open, n_features), dtype=np.int64)
            t_cat = np.zeros((n_open, n_features, n_words), dtype=np.uint64)
            t_l = np.empty((n_open, n_features, n_stats))
            t_r = np.empty((n_open, n_features, n_stats))
            scan_nodes(
                pool, slots, scan, scan_stats, scan_w, scan_imp, codes, ycode, rstat, n_bins,
                bin_lo, bin_hi, n_categories, is_clf, crit, weighted, min_samples_leaf,
                min_weight_leaf, t_proxy, t_nl, t_thr, t_nc, t_bin, t_mgl, t_cat, t_l, t_r,
            )
            feat, nl = choose_features(t_proxy, t_nl, t_nc, max_features, rng, perm)
            thr = np.full(n_open, np.nan)
            cbin = np.zeros(n_open, dtype=np.int64)
            mgl = np.full(n_open, -1, dtype=np.int64)
            cat = np.zeros((n_open, n_words), dtype=np.uint64)
            lst = np.zeros((n_open, n_stats))
            rst = np.zeros((n_open, n_stats))
            for k in range(n_open):
                f = feat[k]
                if f >= 0:
                    thr[k] = t_thr[k, f]
                    cbin[k] = t_bin[k, f]
                    mgl[k] = t_mgl[k, f]
                    cat[k] = t_cat[k, f]
                    lst[k] = t_l[k, f]
                    rst[k] = t_r[k, f]
            h_size = record_candidates(
                open_nodes, feat, nl, thr, cbin, mgl, cat, lst, rst, inode, fnode, cand_l,
                cand_r, cand_cat, is_clf, crit, min_impurity_decrease, heap, h_size,
            )
            for k in range(n_open):  # nodes that cannot split release their histogram
                node = open_nodes[k]
                if inode[node, _CF] < 0 and inode[node, _SLOT] >= 0:
                    free[n_free] = inode[node, _SLOT]
                    n_free += 1
                    inode[node, _SLOT] = -1
        to_split, h_size = nodes_to_split(
            open_nodes, inode, heap, h_size, n_splits, max_leaf_nodes
        )
        if to_split.shape[0] == 0:
            break
        n_splits += to_split.shape[0]
        (inode, fnode, stats, cand_l, cand_r, cand_cat, node_count, open_nodes,
         part) = split_nodes(to_split, inode, fnode, stats, cand_l, cand_r, cand_cat,
                             node_count, is_clf, crit, limits)
        is_open = np.zeros(node_count, dtype=np.uint8)
        for c in open_nodes:
            is_open[c] = 1
        for node in to_split:  # split nodes with no open child release their histogram
            if inode[node, _SLOT] >= 0 and is_open[inode[node, _LEFT]] == 0 and \
                    is_open[inode[node, _RIGHT]] == 0:
                free[n_free] = inode[node, _SLOT]
                n_free += 1
                inode[node, _SLOT] = -1
        if part.shape[0] == 0:
            continue
        feat_p = np.empty(part.shape[0], dtype=np.int64)
        bin_p = np.empty(part.shape[0], dtype=np.int64)
        mgl_p = np.empty(part.shape[0], dtype=np.int64)
        cat_p = np.empty((part.shape[0], n_words), dtype=np.uint64)
        for m in range(part.shape[0]):
            node = part[m, 2]
            feat_p[m] = inode[node, _FEAT]
            bin_p[m] = inode[node, _CBIN]
            mgl_p[m] = inode[node, _MGL]
            cat_p[m] = cand_cat[node]
        mark_sides(codes, part, feat_p, bin_p, mgl_p, cat_p, n_bins, n_categories, side)
        partition_rows(ycode, rstat, side, part)
        jobs, temps, pool, free, n_free = _plan_builds(
            part, inode, is_open, keep_rows, pool, free, n_free, max_slots
        )
        build_level(codes, side, part, jobs, pool, n_bins, ycode, rstat, is_clf, weighted)
        for t in temps:
            free[n_free] = t
            n_free += 1
    return finish_tree(inode, fnode, stats, cand_cat, node_count)


def row_arrays(target, weights, is_clf, crit):
    """The per-row arrays of the layout, ``(ycode, rstat)``, from the targets (class
    codes, or y) and the weights (None when every weight is 1)."""
    n = target.shape[0]
    if is_clf:
        ycode = np.array(target, dtype=np.int32)  # a copy: partitioned in place
        rstat = np.empty((n, 0)) if weights is None else weights.reshape(-1, 1).copy()
        return ycode, rstat
    w = np.ones(n) if weights is None else weights
    rstat = np.empty((n, 3))
    rstat[:, 0] = w
    rstat[:, 1] = w * target
    rstat[:, 2] = w * _target_stats(crit, target)
    return np.empty(0, dtype=np.int32), rstat


@PJIT
def _target_stats(crit, y):
    out = np.empty(y.shape[0])
    for i in prange(y.shape[0]):
        out[i] = target_stat(crit, y[i])
    return out

"""Exact splitter kernels: sort every feature once, then partition and scan per level.

Data layout (the "presorted" layout of SLIQ/SPRINT and early scikit-learn)::

    idx[f, :]   int32 sample ids, sorted by X[:, f] *within each node's segment*
    xs[f, :]    the matching values X[idx[f, p], f] (X's own dtype)
    ys[f, :]    the matching targets: class code (as float) or y
    ws[f, :]    the matching sample weights (only when weighted; else shape [F, 0])

    feature f:  | node 3: [a3, b3) | node 4: [a4, b4) | ... finished leaves ... |
                  sorted by x_f       sorted by x_f

Targets and weights travel with the sorted ids, so that scanning a feature reads memory
strictly in order: a random access per row (``y[idx]``) costs a cache miss on large
data, which would dominate the whole fit.

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

import math

import numpy as np
from numba import prange

from ._config import FEATURE_THRESHOLD, GINI, JIT, PJIT, POISSON
from ._criteria import score_candidate, split_threshold

_MAX_DIGIT_BITS = 8  # 256 buckets: every pass's write streams stay in cache


@JIT
def _radix_sort_row(xs_f, idx_f, ys_f, ws_f, weighted):
    """Sort one feature row in place by value, carrying ids, targets and weights along.

    LSD radix sort on order-preserving 64-bit keys: values are widened to float64
    (exactly) and mapped to unsigned keys whose order is the values' order (-0.0 and
    0.0 are one value). Only the bits that vary among the keys are sorted, in as few
    passes of at most 8 bits as they need (float32 data: the low 29 bits are zero, so
    about 5 passes). The sort is stable: equal values keep their order in the row.
    Every pass reads in order and writes to 256 streams per array, so no row is ever
    fetched at random.
    """
    n = xs_f.shape[0]
    keys = np.empty(n, dtype=np.float64)
    for i in range(n):
        v = np.float64(xs_f[i])
        keys[i] = v if v != 0.0 else 0.0
    keys = keys.view(np.uint64)  # reinterpreted in place
    top = np.uint64(1) << np.uint64(63)
    all_or = np.uint64(0)
    all_and = ~np.uint64(0)
    for i in range(n):
        u = keys[i]
        k = ~u if u & top else u | top
        keys[i] = k
        all_or |= k
        all_and &= k
    varying = all_or ^ all_and
    if varying == np.uint64(0):
        return  # constant row: already sorted
    lo = 0
    while (varying >> np.uint64(lo)) & np.uint64(1) == np.uint64(0):
        lo += 1
    hi = 63
    while (varying >> np.uint64(hi)) & np.uint64(1) == np.uint64(0):
        hi -= 1
    n_bits = hi - lo + 1
    n_pass = (n_bits + _MAX_DIGIT_BITS - 1) // _MAX_DIGIT_BITS
    width = (n_bits + n_pass - 1) // n_pass
    n_buckets = 1 << width
    mask = np.uint64(n_buckets - 1)
    counts = np.zeros((n_pass, n_buckets), dtype=np.int64)
    for i in range(n):
        k = keys[i] >> np.uint64(lo)
        for d in range(n_pass):
            counts[d, (k >> np.uint64(d * width)) & mask] += 1
    k_a, i_a, y_a, w_a = keys, idx_f.copy(), ys_f.copy(), ws_f.copy()
    k_b = np.empty(n, dtype=np.uint64)
    i_b = np.empty(n, dtype=idx_f.dtype)
    y_b = np.empty(n)
    w_b = np.empty(ws_f.shape[0])
    pos = np.empty(n_buckets, dtype=np.int64)
    for d in range(n_pass):
        acc = 0
        for bkt in range(n_buckets):
            pos[bkt] = acc
            acc += counts[d, bkt]
        shift = np.uint64(lo + d * width)
        for i in range(n):
            k = k_a[i]
            bkt = (k >> shift) & mask  # unsigned: no wrap-around test when indexing
            q = pos[bkt]
            pos[bkt] = q + 1
            q = np.uint64(q)
            k_b[q] = k
            i_b[q] = i_a[i]
            y_b[q] = y_a[i]
            if weighted:
                w_b[q] = w_a[i]
        k_a, k_b = k_b, k_a
        i_a, i_b = i_b, i_a
        y_a, y_b = y_b, y_a
        w_a, w_b = w_b, w_a
    bits = np.empty(n, dtype=np.uint64)
    for i in range(n):
        k = k_a[i]
        bits[i] = k ^ top if k & top else ~k
    vals = bits.view(np.float64)
    for i in range(n):
        xs_f[i] = vals[i]
        idx_f[i] = i_a[i]
        ys_f[i] = y_a[i]
        if weighted:
            ws_f[i] = w_a[i]


@PJIT
def _gather_rows(X, y, w, base, idx, xs, ys, ws):
    """Lay out every feature row in ``base`` order: ``xs[f, i] = X[base[i], f]`` etc.

    One random fetch per row of X (a whole row is one or two cache lines), not one per
    value; rows are handled in parallel blocks.
    """
    n, n_features = X.shape
    weighted = ws.shape[1] == n
    block = 4096
    for blk in prange((n + block - 1) // block):
        for i in range(blk * block, min(n, (blk + 1) * block)):
            r = base[i]
            yr = y[r]
            for f in range(n_features):
                xs[f, i] = X[r, f]
                idx[f, i] = r
                ys[f, i] = yr
                if weighted:
                    ws[f, i] = w[r]


@PJIT
def presort(X, y, w, base, idx, xs, ys, ws):
    """Sort every column of ``X`` once and lay out ids, values, targets and weights.

    Rows with equal values of a feature are ordered as in ``base``, a permutation of the
    rows sorted by ``(y, w)``: the order in which a scan adds up a feature's statistics
    then depends on the rows' values only, never on their order in ``X``, so the tree
    does not change (bit for bit) when the rows are shuffled.

    Parameters
    ----------
    X : float32 or float64 [n, F]
        Training data, no NaN.
    y : float64 [n]
        Class codes (as floats) or regression targets.
    w : float64 [n]
        Sample weights (read only when ``ws`` has n columns).
    base : int32 [n]
        Row order for ties (see above).
    idx, xs, ys, ws : int32 [F, n], X.dtype [F, n], float64 [F, n], float64 [F, n or 0]
        Output: the presorted layout of the module docstring.
    """
    n, n_features = X.shape
    weighted = ws.shape[1] == n
    _gather_rows(X, y, w, base, idx, xs, ys, ws)
    for f in prange(n_features):
        _radix_sort_row(xs[f], idx[f], ys[f], ws[f], weighted)


@JIT
def _partition_segment(idx_f, xs_f, ys_f, ws_f, weighted, side, a, b, s_idx, s_x, s_y, s_w):
    """Stable in-place partition of one feature row over ``[a, b)``: side 0 first, then
    side 1 (the right part waits in the ``s_*`` scratch buffers).

    Branch-free (each entry is written to both destinations and only its side's
    counter advances: the side of a sample is unpredictable), with unsigned indices
    (numba then skips the wrap-around test of negative indices on every access).
    """
    wpos = a
    r = 0
    for p in range(a, b):
        q = np.uint64(p)
        qw = np.uint64(wpos)
        qr = np.uint64(r)
        i = idx_f[q]
        x = xs_f[q]
        yv = ys_f[q]
        s = np.int64(side[np.uint64(i)])
        idx_f[qw] = i
        xs_f[qw] = x
        ys_f[qw] = yv
        s_idx[qr] = i
        s_x[qr] = x
        s_y[qr] = yv
        if weighted:
            wv = ws_f[q]
            ws_f[qw] = wv
            s_w[qr] = wv
        wpos += 1 - s
        r += s
    for j in range(r):
        qj = np.uint64(j)
        qw = np.uint64(wpos + j)
        idx_f[qw] = s_idx[qj]
        xs_f[qw] = s_x[qj]
        ys_f[qw] = s_y[qj]
        if weighted:
            ws_f[qw] = s_w[qj]


@JIT
def _scan_segment(
    xs_f, ys_f, ws_f, weighted, a, b, total, w_node, imp_node, is_clf, crit,
    min_samples_leaf, min_weight_leaf, left, work,
):
    """Best split of one node on one feature (row slices ``xs_f``, ``ys_f``, ``ws_f``).

    Returns ``(proxy, n_left, threshold, non_constant)``; ``n_left == 0`` means no
    valid split. Ties keep the first (lowest threshold) candidate. Candidates are
    scored by :func:`fastdt._criteria.score_candidate`, except that gini, scored once
    per row here, has the body of :func:`fastdt._criteria.gini_fraction` written out
    in the loop, operation for operation: any call that takes arrays, even inlined,
    adds reference counting per candidate and made this scan 20-30% slower. The
    histogram splitter calls ``gini_fraction`` itself, and its parity tests with this
    splitter check the two agree bit for bit.
    """
    best_num = -np.inf
    best_den = 1.0
    best_nl = 0
    best_thr = np.nan
    if xs_f[b - 1] <= xs_f[a] + FEATURE_THRESHOLD:
        return -np.inf, best_nl, best_thr, False
    for c in range(left.shape[0]):
        left[c] = 0.0
    gini = is_clf and crit == GINI
    wl = 0.0
    sl = 0.0
    # candidates need at least min_samples_leaf rows on each side
    p_lo = a + min_samples_leaf - 1
    p_hi = b - min_samples_leaf - 1
    for p in range(a, b - 1):
        q = np.uint64(p)  # unsigned indexing: no wrap-around test per access
        wi = ws_f[q] if weighted else 1.0
        wl += wi
        if is_clf:
            left[np.uint64(ys_f[q])] += wi
        else:
            sl += wi * ys_f[q]
        if p < p_lo or p > p_hi:
            continue
        x0 = xs_f[q]
        x1 = xs_f[np.uint64(p + 1)]
        if x1 <= x0 + FEATURE_THRESHOLD:
            continue
        wr = w_node - wl
        if wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0:
            continue
        if gini:  # gini_fraction, written out: see the docstring
            sq_l = 0.0
            sq_r = 0.0
            for c in range(left.shape[0]):
                lc = left[c]
                rc = total[c] - lc
                sq_l += lc * lc
                sq_r += rc * rc
            num = sq_l * wr + sq_r * wl
            den = wl * wr
        else:
            num, den = score_candidate(is_clf, crit, left, total, wl, wr, sl, imp_node, work)
        if not num * best_den > best_num * den:
            continue
        best_num = num
        best_den = den
        best_nl = p + 1 - a
        best_thr = split_threshold(x0, x1)
    best = best_num / best_den
    return best, best_nl, best_thr, True


@PJIT
def split_and_scan(
    idx, xs, ys, ws, side, part, scan, scan_stats, scan_w, scan_imp,
    is_clf, crit, min_samples_leaf, min_weight_leaf,
    out_proxy, out_nl, out_thr, out_nonconst,
):
    """Partition the nodes split last level, then scan the open nodes, for every feature.

    Parameters
    ----------
    idx, xs, ys, ws : the presorted layout (module docstring); partitioned in place.
    side : uint8 [n]
        0 if the sample goes to the left child of its (split) node, 1 if right.
    part : int64 [m, 3]
        ``[start, end)`` (and id) of each node to partition.
    scan : int64 [k, 2]
        ``[start, end)`` of each node to scan.
    scan_stats, scan_w, scan_imp : float64 [k, S], [k], [k]
        Statistics, weight and impurity of each node to scan.
    is_clf, crit, min_samples_leaf, min_weight_leaf
        Task flag, criterion code and leaf minimums.
    out_proxy, out_nl, out_thr, out_nonconst : [k, F] float64, int64, float64, uint8
        Output: best candidate per (node, feature).
    """
    n_features, n = idx.shape
    weighted = ws.shape[1] == n
    n_stats = scan_stats.shape[1]
    scratch = 0  # each thread's buffers hold the right part of the largest range
    for m in range(part.shape[0]):
        scratch = max(scratch, part[m, 1] - part[m, 0])
    for f in prange(n_features):
        if part.shape[0] > 0:
            s_idx = np.empty(scratch, dtype=idx.dtype)
            s_x = np.empty(scratch, dtype=xs.dtype)
            s_y = np.empty(scratch)
            s_w = np.empty(scratch if weighted else 0)
            for m in range(part.shape[0]):
                # row slices, not the prange index: its integer type varies, and
                # each variant would compile the helper again
                _partition_segment(idx[f], xs[f], ys[f], ws[f], weighted, side,
                                   part[m, 0], part[m, 1], s_idx, s_x, s_y, s_w)
        left = np.empty(n_stats)
        work = np.empty(n_stats)
        for k in range(scan.shape[0]):
            proxy, nl, thr, nonconst = _scan_segment(
                xs[f], ys[f], ws[f], weighted, scan[k, 0], scan[k, 1], scan_stats[k],
                scan_w[k], scan_imp[k], is_clf, crit, min_samples_leaf, min_weight_leaf,
                left, work,
            )
            out_proxy[k, f] = proxy
            out_nl[k, f] = nl
            out_thr[k, f] = thr
            out_nonconst[k, f] = nonconst


@JIT
def target_stat(crit, yv):
    """``t(y)`` of the regression statistics: ``y*log(y)`` for Poisson, else ``y**2``."""
    if crit == POISSON:
        return yv * math.log(yv) if yv > 0.0 else 0.0
    return yv * yv


@PJIT
def walk_splits(idx, ys, ws, seg, feat, n_left, is_clf, crit, side, left_stats, right_stats):
    """Mark the side of every sample of each chosen split and sum the children's statistics.

    Parameters
    ----------
    idx, ys, ws : the presorted layout.
    seg : int64 [k, 2]
        ``[start, end)`` of each node.
    feat, n_left : int32 [k], int64 [k]
        Chosen feature (``-1``: none) and size of the left child.
    side : uint8 [n]
        Output marks (0 left, 1 right).
    left_stats, right_stats : float64 [k, S]
        Output: statistics of the two children (see ``_criteria``).
    """
    weighted = ws.shape[1] == idx.shape[1]
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
            q = np.uint64(p)  # unsigned indexing: no wrap-around test per access
            s = left_stats[k] if p < m else right_stats[k]
            side[np.uint64(idx[f, q])] = 0 if p < m else 1
            wi = ws[f, q] if weighted else 1.0
            yv = ys[f, q]
            if is_clf:
                s[np.uint64(yv)] += wi
            else:
                s[0] += wi
                s[1] += wi * yv
                s[2] += wi * target_stat(crit, yv)

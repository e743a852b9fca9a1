"""Exact splitter kernels: sort every feature once, then partition and scan per level.

(The splitter that calls them, level by level, is :class:`fastdt._exact.ExactSplitter`.)

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

Per level, :func:`scan_features` does, for every feature of a range (threads take
ranges of features, :mod:`fastdt._parallel`; each owns whole rows, so there are no write
races):

1. partition the ranges of the nodes that were split at the previous level, using the
   per-sample ``side`` marks (0 = left, 1 = right) written by :func:`walk_nodes`;
2. scan the ranges of the new open nodes left to right, accumulating weighted class
   counts (or sums of ``w*y``) as prefix sums, and score every boundary between two
   distinct values with the criterion's proxy. The best candidate of each
   (node, feature) goes into a table that is reduced serially, in feature order, by the
   driver (deterministic whatever the number of threads).
"""

import numpy as np

from ._absolute import scan_absolute
from ._categorical import categorical_split, random_partition
from ._config import FEATURE_THRESHOLD, GAIN_RATIO, GINI
from ._jit import INLINE, JIT, NOREF
from ._multi import scan_multi
from ._sampling import next_feature, random_threshold, start_order, uniform_draw, \
    visited_enough
from ._criteria import (  # noqa: F401  (target_stat: also imported from here)
    NO_REG, impurity, missing_right_score, monotone_ok, node_weight, present_score,
    score_candidate, split_threshold, target_stat,
)

_MAX_DIGIT_BITS = 8  # 256 buckets: every pass's write streams stay in cache


@JIT
def _radix_sort_row(bits_f, rec, idx_f, ys_f, ws_f, weighted):
    """Sort one feature row by value, and fill in the ids, targets and weights.

    ``bits_f`` holds the row's values in the tie order (``rec``'s rows) as their bit
    patterns (uint32 for float32 data, uint64 for float64); it is sorted in place, and
    position ``i`` of ``idx_f``, ``ys_f``, ``ws_f`` gets the id, target and weight of the
    value that lands there, read from ``rec`` (float64 [n, 2 or 3]: id, target, weight
    of each row in the tie order).

    LSD radix sort on order-preserving keys (NaN sorts last, -0.0 and 0.0 are one value,
    written back as 0.0). Only the bits that vary among the keys are sorted, in as few
    passes of at most 8 bits as they need. When they are at most 32 (always for
    float32 data), a key and its position share one uint64 and a pass moves 8 bytes a
    value; otherwise the positions move beside the 64-bit keys. The sort moves
    positions, not the rows' payload: each value's id, target and weight are read from
    ``rec`` once, at the end, so a pass streams half the bytes or less. The sort is
    stable: equal values keep their tie order.
    """
    n = bits_f.shape[0]
    width = bits_f.itemsize * 8
    m_bits = 23 if width == 32 else 52  # mantissa bits
    top = np.uint64(1) << np.uint64(width - 1)
    full = top | (top - np.uint64(1))  # the width's ones
    inf = ((np.uint64(1) << np.uint64(width - 1 - m_bits)) - np.uint64(1)) << np.uint64(m_bits)
    nan = inf | (np.uint64(1) << np.uint64(m_bits - 1))
    a = np.empty(n, dtype=np.uint64)
    all_or = np.uint64(0)
    all_and = full
    for i in range(n):
        u = np.uint64(bits_f[i])
        if u & ~top > inf:
            u = nan  # one NaN, positive: missing values sort last
        if u == top:
            u = np.uint64(0)  # -0.0 is 0.0
        k = u ^ full if u & top else u | top
        a[i] = k
        all_or |= k
        all_and &= k
    varying = all_or ^ all_and
    if varying == np.uint64(0):  # constant row: already in order
        for i in range(n):
            idx_f[i] = np.int32(rec[i, 0])
            ys_f[i] = rec[i, 1]
            if weighted:
                ws_f[i] = rec[i, 2]
        return
    lo = 0
    while (varying >> np.uint64(lo)) & np.uint64(1) == np.uint64(0):
        lo += 1
    hi = width - 1
    while (varying >> np.uint64(hi)) & np.uint64(1) == np.uint64(0):
        hi -= 1
    n_bits = hi - lo + 1
    packed = n_bits <= 32
    n_pass = (n_bits + _MAX_DIGIT_BITS - 1) // _MAX_DIGIT_BITS
    d_bits = (n_bits + n_pass - 1) // n_pass
    n_buckets = 1 << d_bits
    mask = np.uint64(n_buckets - 1)
    base = np.uint64(32 if packed else lo)  # where the varying bits start in a key
    p_a = np.empty(0 if packed else n, dtype=np.uint32)
    counts = np.zeros((n_pass, n_buckets), dtype=np.int64)
    for i in range(n):
        k = a[i]
        if packed:
            k = ((k >> np.uint64(lo)) << base) | np.uint64(i)
            a[i] = k
        else:
            p_a[i] = i
        k >>= base
        for d in range(n_pass):
            counts[d, (k >> np.uint64(d * d_bits)) & mask] += 1
    b = np.empty(n, dtype=np.uint64)
    p_b = np.empty(p_a.shape[0], dtype=np.uint32)
    pos = np.empty(n_buckets, dtype=np.int64)
    for d in range(n_pass):
        acc = 0
        for bkt in range(n_buckets):
            pos[bkt] = acc
            acc += counts[d, bkt]
        shift = base + np.uint64(d * d_bits)
        for i in range(n):
            k = a[i]
            bkt = (k >> shift) & mask  # unsigned: no wrap-around test when indexing
            q = np.uint64(pos[bkt])
            pos[bkt] += 1
            b[q] = k
            if not packed:
                p_b[q] = p_a[i]
        a, b = b, a
        p_a, p_b = p_b, p_a
    low = np.uint64(0xFFFFFFFF)
    fixed = all_and & ~(((np.uint64(1) << np.uint64(n_bits)) - np.uint64(1)) << np.uint64(lo))
    for i in range(n):
        k = a[i]
        if packed:
            p = k & low
            k = ((k >> base) << np.uint64(lo)) | fixed
        else:
            p = np.uint64(p_a[i])
        bits_f[i] = k ^ top if k & top else k ^ full
        idx_f[i] = np.int32(rec[p, 0])
        ys_f[i] = rec[p, 1]
        if weighted:
            ws_f[i] = rec[p, 2]


@JIT
def gather_rows(lo, hi, X, base, xs):
    """Positions ``[lo, hi)`` of every feature row of ``xs``, in ``base`` order:
    ``xs[f, i] = X[base[i], f]``.

    One random fetch per row of X (a whole row is one or two cache lines), not one per
    value. ``X`` float32 or float64 [n, F], ``xs`` the same dtype [F, n], ``base`` int32
    [n]: the row order for ties (a permutation of the rows sorted by ``(y, w)``, so that
    the order in which a scan adds up a feature's statistics depends on the rows' values
    only, never on their order in X: the tree does not change, bit for bit, when the
    rows are shuffled).
    """
    n_features = X.shape[1]
    for i in range(lo, hi):
        r = base[i]
        for f in range(n_features):
            xs[f, i] = X[r, f]


@JIT
def gather_in_bag(lo, hi, idx, xs, ys, w, starts, o_idx, o_xs, o_ys, o_ws):
    """Features ``[lo, hi)`` of the layout restricted, for each tree ``b`` of a batch (one
    tree: ``w`` has one row), to the rows of positive weight ``w[b, id]`` (in order, so
    each row stays sorted), from position ``starts[b]`` on, their ids offset by ``b * n``
    (n: the layout's rows), each entry given its weight.

    Branch-free: every entry is written at the next free position, which advances only
    past the rows in the bag (about 63% of the rows of a bootstrap sample: a branch on it
    would miss a third of the time); the tree's range is full once the position reaches
    its end, and the rows left are all out of the bag."""
    n = idx.shape[1]
    for f in range(lo, hi):
        for b in range(w.shape[0]):
            m = starts[b]
            end = starts[b + 1]
            shift = b * n
            for p in range(n):
                if m == end:
                    break
                i = idx[f, p]
                wi = w[b, i]
                o_idx[f, m] = i + shift
                o_xs[f, m] = xs[f, p]
                o_ys[f, m] = ys[f, p]
                o_ws[f, m] = wi
                m += wi > 0.0


@JIT
def sort_features(lo, hi, bits, rec, idx, ys, ws):
    """Sort the rows of features ``[lo, hi)`` by value, and fill in the layout.

    Parameters
    ----------
    bits : uint32 or uint64 [F, n]
        The layout's ``xs`` (float32 or float64) viewed as bit patterns, filled in the
        tie order by :func:`gather_rows`; sorted in place.
    rec : float64 [n, 2 or 3]
        Id, target and (when weighted) weight of each row, in the tie order.
    idx, ys, ws : int32 [F, n], float64 [F, n], float64 [F, n or 0]
        Output: the rest of the presorted layout of the module docstring (ws has no
        columns when every weight is 1).
    """
    weighted = ws.shape[1] == idx.shape[1]
    for f in range(lo, hi):
        _radix_sort_row(bits[f], rec, idx[f], ys[f], ws[f], weighted)


@NOREF
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


@NOREF
def _partition_known(idx_f, xs_f, ys_f, ws_f, weighted, side, a, b, mid, s_idx, s_x, s_y,
                     s_w):
    """Stable in-place partition of one feature row over ``[a, b)`` whose left part's
    end ``mid`` is known (where the right child starts): every entry is written once,
    to its place in the ``s_*`` scratch buffers (the left part from 0, the right from
    ``mid - a``), which are then copied back in one contiguous pass. About 0.7x the time
    of :func:`_partition_segment`, which writes each entry to both destinations and
    the right part once more (a bench of this machine's caches, 2026-11-28).

    Branch-free: an entry's place is a select on its side (the side of a sample is
    unpredictable), with unsigned indices.
    """
    wl = 0
    wr = mid - a
    for p in range(a, b):
        q = np.uint64(p)
        i = idx_f[q]
        s = np.int64(side[np.uint64(i)])
        qs = np.uint64(wr if s else wl)
        s_idx[qs] = i
        s_x[qs] = xs_f[q]
        s_y[qs] = ys_f[q]
        if weighted:
            s_w[qs] = ws_f[q]
        wl += 1 - s
        wr += s
    for j in range(b - a):
        qj = np.uint64(j)
        qw = np.uint64(a + j)
        idx_f[qw] = s_idx[qj]
        xs_f[qw] = s_x[qj]
        ys_f[qw] = s_y[qj]
        if weighted:
            ws_f[qw] = s_w[qj]


@JIT
def partition_one(idx_f, xs_f, ys_f, ws_f, side, part):
    """Stable partition of the ranges ``part`` of one row of the layout, as
    :func:`scan_features` partitions every feature's (written out there: a call per
    feature, compiled apart, cost more compile time than the few lines it saves)."""
    weighted = ws_f.shape[0] == idx_f.shape[0]
    scratch = 0
    for m in range(part.shape[0]):
        scratch = max(scratch, part[m, 1] - part[m, 0])
    s_idx = np.empty(scratch, dtype=idx_f.dtype)
    s_x = np.empty(scratch, dtype=xs_f.dtype)
    s_y = np.empty(scratch)
    s_w = np.empty(scratch if weighted else 0)
    for m in range(part.shape[0]):
        _partition_segment(idx_f, xs_f, ys_f, ws_f, weighted, side, part[m, 0], part[m, 1],
                           s_idx, s_x, s_y, s_w)


@NOREF
def _partition_duplicating(idx_f, xs_f, ys_f, ws_f, side, a, b, dst, frac, dup,
                           s_idx, s_x, s_y, s_w):
    """Stable partition of ``[a, b)`` of one feature row for ``missing="fractional"``:
    side 0 stays in place from ``a``, side 1 goes to ``[dst, ...)`` (a range of its own:
    the children hold more rows than the parent), and a row of side 2 goes to both,
    its weight times ``frac`` on the left and ``1 - frac`` on the right, where its copy
    takes the id ``dup[id]``. Weights are always present (``ws_f`` has n columns).
    """
    wpos = a
    r = 0
    for p in range(a, b):
        q = np.uint64(p)
        i = idx_f[q]
        x = xs_f[q]
        yv = ys_f[q]
        wv = ws_f[q]
        s = side[np.uint64(i)]
        if s != 1:
            qw = np.uint64(wpos)
            idx_f[qw] = i
            xs_f[qw] = x
            ys_f[qw] = yv
            ws_f[qw] = wv * frac if s == 2 else wv
            wpos += 1
        if s != 0:
            qr = np.uint64(r)
            s_idx[qr] = dup[np.uint64(i)] if s == 2 else i
            s_x[qr] = x
            s_y[qr] = yv
            s_w[qr] = wv * (1.0 - frac) if s == 2 else wv
            r += 1
    for j in range(r):
        qj = np.uint64(j)
        qd = np.uint64(dst + j)
        idx_f[qd] = s_idx[qj]
        xs_f[qd] = s_x[qj]
        ys_f[qd] = s_y[qj]
        ws_f[qd] = s_w[qj]


@NOREF
def _missing_stats(ys_f, ws_f, weighted, e, b, is_clf, miss):
    """Statistics of positions ``[e, b)`` (a node's missing values) into ``miss``;
    returns their weight."""
    miss[:] = 0.0
    w = 0.0
    for p in range(e, b):
        q = np.uint64(p)
        wi = ws_f[q] if weighted else 1.0
        w += wi
        if is_clf:
            miss[np.uint64(ys_f[q])] += wi
        else:
            miss[0] += wi
            miss[1] += wi * ys_f[q]
    return w


@NOREF
def _scan_segment(
    xs, ys, ws, weighted, a, b, total, w_node, imp_node, is_clf, crit, log_crit,
    reg_crit, min_samples_leaf, min_weight_leaf, left, work, miss, missing, present_only,
    tot_p, mono, f, lower, upper,
):
    """Best split of one node on one numeric feature ``f`` (its rows ``xs[f]``, ``ys[f]``,
    ``ws[f]`` of the layout, viewed here, where views cost no reference counting).

    Missing values (NaN) sit at the end of the node's range. As scikit-learn (1.9)
    does, every threshold is tried with the missing rows sent right, then the split
    "present left, missing right" (threshold ``+inf``), then every threshold with the
    missing rows sent left. A feature is constant in the node when every value is
    missing, or when its present values are equal and none is missing. Returns
    ``(proxy, n_left, threshold, non_constant, missing_left)``: ``n_left`` counts
    every row going left (0: no valid split), ``missing_left`` is 1/0, or -1 when the
    node has no missing value. Ties keep the first candidate found. Candidates are
    scored by :func:`fastdt._criteria.score_candidate`, except that gini, scored once
    per row here, has the body of :func:`fastdt._criteria.gini_fraction` written out
    in the loop, operation for operation: any call that takes arrays, even inlined,
    adds reference counting per candidate and made this scan 20-30% slower. The
    histogram splitter calls ``gini_fraction`` itself, and its parity tests with this
    splitter check the two agree bit for bit. With two classes the class sums run in
    two registers (``l1 += w*y``, ``l0 += w*(1-y)``: the same sums, since ``y`` is 0
    or 1) instead of ``left[y] += w``, whose chain of loads and stores through memory
    made the loop about 2.5 times slower; ``left`` is written only at candidates.

    ``present_only`` (``missing="fractional"`` / ``"surrogate"``): candidates are
    scored on the present rows only (statistics into ``tot_p``), every feature with
    present values that are not all equal is non-constant, the score returned is
    :func:`fastdt._criteria.present_score` and ``n_left`` counts present rows.

    ``miss``: scratch for the statistics of the node's missing rows. ``missing``: None
    when no row of the fit misses a value and ``present_only`` is False: numba then
    prunes every step for missing values before typing (a compiled variant of its own,
    about 3 s less to compile for a first fit of data without them); else True.

    ``mono``, ``f``, ``lower``, ``upper``: the monotonic constraints (None: none, and
    numba prunes the check), the feature, and the node's bounds; a candidate that
    breaks them is skipped (:func:`fastdt._criteria.monotone_ok`). ``log_crit``,
    ``reg_crit``: :func:`fastdt._criteria.log_criterion` and
    :func:`fastdt._criteria.reg_criterion`; numba prunes the score of each that is None
    from the loop (gini: both).
    """
    xs_f, ys_f, ws_f = xs[f], ys[f], ws[f]  # free here: no reference counting
    best_num = -np.inf
    best_den = 1.0
    best_nl = 0
    best_thr = np.nan
    best_mgl = -1
    e = b  # end of the present values
    if missing is not None:  # None: no value is missing (see the docstring)
        while e > a and np.isnan(xs_f[np.uint64(e - 1)]):
            e -= 1
    n_node = b - a
    n_miss = b - e
    if e == a or ((n_miss == 0 or present_only)
                  and xs_f[e - 1] <= xs_f[a] + FEATURE_THRESHOLD):
        return -np.inf, best_nl, best_thr, False, best_mgl
    w_miss = 0.0
    n_pass = 1
    if missing is not None:
        if n_miss:
            w_miss = _missing_stats(ys_f, ws_f, weighted, e, b, is_clf, miss)
        if present_only:  # the node reduced to its present rows
            for c in range(total.shape[0]):
                tot_p[c] = total[c] - miss[c] if n_miss else total[c]
            total = tot_p
            w_node = w_node - w_miss
            n_node = e - a
            if n_miss and crit == GAIN_RATIO:  # the present rows' entropy
                imp_node = impurity(crit, tot_p, w_node)
        elif n_miss:
            n_pass = 2
    gini = is_clf and crit == GINI
    binary = is_clf and left.shape[0] == 2
    for missing_left in range(n_pass):
        # missing rows start on the left in the second pass
        for c in range(left.shape[0]):
            left[c] = 0.0
        wl = 0.0
        sl = 0.0
        nl = 0
        if missing is not None:
            if missing_left:
                for c in range(left.shape[0]):
                    left[c] = miss[c]
                wl = w_miss
                sl = miss[1] if not is_clf else 0.0
                nl = n_miss
        l0 = left[0] if binary else 0.0
        l1 = left[1] if binary else 0.0
        for p in range(a, e - 1):
            q = np.uint64(p)  # unsigned indexing: no wrap-around test per access
            wi = ws_f[q] if weighted else 1.0
            wl += wi
            nl += 1
            if binary:  # two sums in registers: the same values, no chain through memory
                yv = ys_f[q]
                l1 += wi * yv
                l0 += wi * (1.0 - yv)
            elif is_clf:
                left[np.uint64(ys_f[q])] += wi
            else:
                sl += wi * ys_f[q]
            if nl < min_samples_leaf or n_node - nl < min_samples_leaf:
                continue
            x0 = xs_f[q]
            x1 = xs_f[np.uint64(p + 1)]
            if x1 <= x0 + FEATURE_THRESHOLD:
                continue
            wr = w_node - wl
            if wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0:
                continue
            if binary:
                left[0] = l0
                left[1] = l1
            if mono is not None and mono[f] != 0 and not monotone_ok(
                    is_clf, mono[f], left, total, wl, wr, sl, lower, upper, NO_REG):
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
            elif reg_crit is not None:  # regression (classification: pruned)
                num, den = score_candidate(False, reg_crit, left, total, wl, wr, sl,
                                           imp_node, work, NO_REG)
            elif log_crit is not None:  # entropy, log loss, gain ratio: a literal task
                num, den = score_candidate(True, log_crit, left, total, wl, wr, sl,
                                           imp_node, work, NO_REG)
            else:  # gini, above: no other score compiled into its loop
                continue
            if not num * best_den > best_num * den:
                continue
            best_num = num
            best_den = den
            best_nl = nl
            best_thr = split_threshold(x0, x1)
            best_mgl = missing_left if n_miss else -1
        if missing is not None:
            if (n_pass == 2 and not missing_left and n_node - n_miss >= min_samples_leaf
                    and n_miss >= min_samples_leaf):
                num, den = missing_right_score(is_clf, crit, total, miss, w_node, w_miss,
                                               min_weight_leaf, mono, f, lower, upper,
                                               imp_node, left, work, NO_REG)
                if num * best_den > best_num * den:
                    best_num = num
                    best_den = den
                    best_nl = n_node - n_miss
                    best_thr = np.inf
                    best_mgl = 0
    if missing is not None:
        if present_only:
            if best_nl == 0:
                return -np.inf, 0, best_thr, True, -1
            wl = 0.0  # weight of the present rows going left
            for p in range(a, a + best_nl):
                wl += ws_f[np.uint64(p)] if weighted else 1.0
            return (present_score(is_clf, crit, best_num / best_den, total, w_node, wl,
                                  w_miss), best_nl, best_thr, True, -1)
    return best_num / best_den, best_nl, best_thr, True, best_mgl


@NOREF
def _scan_random(
    xs, ys, ws, weighted, a, b, total, w_node, imp_node, is_clf, crit,
    min_samples_leaf, min_weight_leaf, left, work, miss, present_only, tot_p, u_thr, u_side,
    mono, f, lower, upper,
):
    """One random split of one node on one numeric feature (``splitter="random"``, as
    scikit-learn's ``RandomSplitter``): a threshold drawn uniformly in ``[min, max)`` of
    the node's present values (``u_thr``; ``min`` when the draw rounds to ``max``), the
    missing rows sent left when ``u_side < 0.5``. The same returns as
    :func:`_scan_segment`; a split that leaves a child below ``min_samples_leaf`` or
    ``min_weight_leaf``, or breaks a monotonic constraint (``mono``, ``f``), is no
    candidate.
    """
    xs_f, ys_f, ws_f = xs[f], ys[f], ws[f]  # free here: no reference counting
    e = b
    while e > a and np.isnan(xs_f[np.uint64(e - 1)]):
        e -= 1
    n_node = b - a
    n_miss = b - e
    lo = np.float64(xs_f[a]) if e > a else 0.0
    hi = np.float64(xs_f[e - 1]) if e > a else 0.0
    if e == a or ((n_miss == 0 or present_only) and hi <= lo + FEATURE_THRESHOLD):
        return -np.inf, 0, np.nan, False, -1
    thr = random_threshold(lo, hi, u_thr)
    w_miss = _missing_stats(ys_f, ws_f, weighted, e, b, is_clf, miss) if n_miss else 0.0
    mgl = 1 if (n_miss and not present_only and u_side < 0.5) else 0
    if present_only:
        for c in range(total.shape[0]):
            tot_p[c] = total[c] - miss[c] if n_miss else total[c]
        total = tot_p
        w_node = w_node - w_miss
        n_node = e - a
        if n_miss and crit == GAIN_RATIO:
            imp_node = impurity(crit, tot_p, w_node)
    for c in range(left.shape[0]):
        left[c] = miss[c] if mgl else 0.0
    wl = w_miss if mgl else 0.0
    sl = miss[1] if mgl and not is_clf else 0.0
    nl = n_miss if mgl else 0
    p = a
    while p < e and xs_f[np.uint64(p)] <= thr:
        q = np.uint64(p)
        wi = ws_f[q] if weighted else 1.0
        wl += wi
        nl += 1
        if is_clf:
            left[np.uint64(ys_f[q])] += wi
        else:
            sl += wi * ys_f[q]
        p += 1
    wr = w_node - wl
    if (nl < min_samples_leaf or n_node - nl < min_samples_leaf or wl < min_weight_leaf
            or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0
            or (mono is not None and mono[f] != 0 and not monotone_ok(
                is_clf, mono[f], left, total, wl, wr, sl, lower, upper, NO_REG))):
        return -np.inf, 0, thr, True, -1
    num, den = score_candidate(is_clf, crit, left, total, wl, wr, sl, imp_node, work,
                               NO_REG)
    proxy = num / den
    if present_only:
        return (present_score(is_clf, crit, proxy, total, w_node, wl, w_miss), nl, thr,
                True, -1)
    return proxy, nl, thr, True, (mgl if n_miss else -1)


@JIT
def _scan_categorical(
    xs_f, ys_f, ws_f, weighted, a, b, total, w_node, imp_node, is_clf, crit,
    min_samples_leaf, min_weight_leaf, left, work, g_stats, g_rows, g_code, keys, mask,
    words, present_only, tot_p, rseed, k, f,
):
    """Best split of one node on one categorical feature (codes sorted, NaN last).

    The node's range holds each category's rows together: one pass sums them into
    groups (the missing rows form the last group), and
    :func:`fastdt._categorical.best_partition` picks the subset that goes left (with
    ``rseed`` not None, ``splitter="random"``: :func:`fastdt._categorical.random_partition`
    draws one from node ``k``'s seed and ``f``; None: numba prunes that branch, and a
    fit that draws nothing does not compile it).
    Returns ``(proxy, n_left, non_constant, missing_left)`` and the left categories'
    bitset in ``words``. ``present_only``: the missing group is left out and the
    score is :func:`fastdt._criteria.present_score` (as :func:`_scan_segment`).
    """
    n_stats = total.shape[0]
    m = -1
    prev = np.nan
    for p in range(a, b):
        q = np.uint64(p)
        x = xs_f[q]
        if m < 0 or not (x == prev or (np.isnan(x) and np.isnan(prev))):
            m += 1
            g_stats[m, :] = 0.0
            g_rows[m] = 0
            g_code[m] = -1 if np.isnan(x) else np.int64(x)
            prev = x
        wi = ws_f[q] if weighted else 1.0
        g_rows[m] += 1
        if is_clf:
            g_stats[m, np.uint64(ys_f[q])] += wi
        else:
            g_stats[m, 0] += wi
            g_stats[m, 1] += wi * ys_f[q]
    m += 1
    has_missing = g_code[m - 1] < 0
    n_node = b - a
    w_miss = 0.0
    if present_only and has_missing:  # the node reduced to its present rows
        m -= 1
        n_node -= g_rows[m]
        for c in range(n_stats):
            tot_p[c] = total[c] - g_stats[m, c]
        w_miss = node_weight(is_clf, g_stats[m])
        total = tot_p
        w_node = w_node - w_miss
        has_missing = False
        if is_clf and crit == GAIN_RATIO:
            imp_node = impurity(crit, tot_p, w_node)
    if rseed is not None:
        proxy, nl, nonconst = random_partition(
            g_stats, g_rows, g_code, m, total, w_node, n_node, imp_node, is_clf, crit,
            min_samples_leaf, min_weight_leaf, left, work, mask, words, rseed[k], f,
        )
    else:
        proxy, nl, nonconst = categorical_split(
            g_stats, g_rows, g_code, m, total, w_node, n_node, imp_node, is_clf, crit,
            min_samples_leaf, min_weight_leaf, keys, left, work, mask, words, NO_REG,
        )
    if nl == 0:
        return proxy, 0, nonconst, -1
    if present_only:
        wl = 0.0
        for j in range(m):
            if mask[j]:
                wl += node_weight(is_clf, g_stats[j])
        return present_score(is_clf, crit, proxy, total, w_node, wl, w_miss), nl, True, -1
    return proxy, nl, True, np.int64(mask[m - 1]) if has_missing else -1


@JIT
def scan_features(
    lo, hi, idx, xs, ys, ws, side, part, part_dst, part_frac, dup, scan, cuts, scan_stats,
    scan_w, scan_imp, is_clf, crit, log_crit, reg_crit, min_samples_leaf, min_weight_leaf,
    cats, present_only, missing, rseed, mono, bounds, mae_rank, mae_y, ymul, offs, seeds,
    max_features, pool, out_proxy, out_nl, out_thr, out_nonconst, out_mgl, out_cat, out_mae,
):
    """Partition the nodes split last level, then scan the open nodes, for the tasks
    ``[lo, hi)`` (a feature and a group of nodes each, ``cuts``); or, when ``seeds`` has
    a seed per node, scan the nodes ``[lo, hi)``, each on the features its sampler
    visits (the layout already partitioned).

    Parameters
    ----------
    idx, xs, ys, ws : the presorted layout (module docstring); partitioned in place.
    side : uint8 [n]
        0 if the sample goes to the left child of its (split) node, 1 if right.
    part : int64 [m, 3]
        ``[start, end)`` (and id) of each node to partition.
    part_dst, part_frac : int64 [m], float64 [m]
        Where the right child of each part starts (:func:`_partition_known`);
        ``missing="fractional"``: only when its rows are duplicated (-1: in place, after
        the left child), and the left child's share of a duplicated row (``part_frac``,
        unused otherwise).
    dup : None, or int32 [n_ids]
        ``missing="fractional"``: the id of each duplicated row's right copy
        (:func:`_partition_duplicating`). None otherwise: numba then prunes the
        duplicating partition before typing (a compiled variant of its own).
    scan : int64 [k, 2]
        ``[start, end)`` of each node to scan.
    cuts : int64 [G + 1, 2]
        Groups of nodes (no seeds): group ``g`` partitions the rows ``cuts[g, 0]`` to
        ``cuts[g + 1, 0]`` of ``part`` and scans the rows ``cuts[g, 1]`` to
        ``cuts[g + 1, 1]`` of ``scan``, which lie in those ranges; task ``o`` is feature
        ``o // G`` on group ``o % G``. Tasks write disjoint parts of the layout and of the
        outputs, so the result does not depend on how they are shared out.
    scan_stats, scan_w, scan_imp : float64 [k, S], [k], [k]
        Statistics, weight and impurity of each node to scan.
    is_clf, crit, log_crit, reg_crit, min_samples_leaf, min_weight_leaf
        Task flag, criterion code (and :func:`fastdt._criteria.log_criterion` and
        :func:`fastdt._criteria.reg_criterion` of both) and leaf minimums.
    cats : None, or int32 [F]
        Categories of each feature (0: numeric); None when every feature is numeric,
        and numba prunes the categorical scan before typing.
    present_only : bool
        Score splits on the rows where the feature is present (``_scan_segment``).
    missing : None or bool
        None: no row misses the value of a numeric feature and ``present_only`` is
        False, and numba prunes the numeric scan's steps for missing values before
        typing (``_scan_segment``'s ``missing``).
    rseed : None, or uint64 [k]
        ``splitter="random"``: each node's seed, and every (node, feature) gets one
        random split (:func:`_scan_random`, a random subset of categories) instead of
        the best. None: numba prunes the random scan before typing.
    mono, bounds : None or int8 [F], float64 [k, 2]
        Monotonic constraints (-1, 0, 1 per numeric feature; flipped to class 0 for
        classification) and each node's ``[lower, upper]`` bounds on its children's
        values; None: no constraint.
    mae_rank, mae_y : None or int32 [n_ids], float64 [n]
        ``criterion="absolute_error"``: each row's rank by target in its node and the
        targets sorted within each node (:mod:`fastdt._absolute`); None: numba prunes
        that scan before typing.
    ymul, offs : None or float64 [n_ids, K], int64 [K + 1]
        Several outputs: every row's targets and the statistics' blocks
        (:mod:`fastdt._multi`); None: numba prunes that scan before typing.
    seeds, max_features : uint64 [k] or [0], int
        Each node's feature order (:func:`fastdt._sampling.feature_seeds`), and how many
        features a node considers: with seeds, ``[lo, hi)`` are nodes, and each node
        scans the features in its order, ``max_features`` of them and more while every
        one scanned was constant (:func:`fastdt._sampling.choose_features`' rule, so it
        then chooses among exactly the features scanned): the cost of a node falls with
        ``max_features``. No seeds: ``[lo, hi)`` are tasks (``cuts``), and every open
        node is scanned on every feature.
    pool : int64 [P]
        With seeds: the features the tree may use, which the orders draw from
        (:func:`fastdt._sampling.choose_features`).
    out_proxy, out_nl, out_thr, out_nonconst, out_mgl : [k, F] float64, int64, float64,
    uint8, int8
        Output: best candidate per (node, feature); ``out_mgl`` the side of missing
        values (1 left, 0 right, -1: none in the node). With seeds, the entries of
        features a node did not scan are left as they were.
    out_cat : uint64 [k, F, W]
        Output: left categories of the best categorical candidates.
    out_mae : float64 [k, F, 4]
        Output (absolute error): the best candidates' ``(AE_l, median_l, AE_r,
        median_r)``.
    """
    n = idx.shape[1]
    weighted = ws.shape[1] == n
    n_stats = scan_stats.shape[1]
    scratch = 0  # each thread's buffers hold the largest range
    for m in range(part.shape[0]):
        scratch = max(scratch, part[m, 1] - part[m, 0])
    draws = np.empty(2)  # splitter="random": a node's draws for one feature
    if mae_rank is not None:  # absolute error: scratch for the largest node (pruned else)
        m_max = 0
        for k in range(scan.shape[0]):
            m_max = max(m_max, scan[k, 1] - scan[k, 0])
        fw = np.empty(m_max + 1)
        fwy = np.empty(m_max + 1)
        passes = np.empty((8, m_max))
    by_node = seeds.shape[0] > 0
    n_features = idx.shape[0]
    perm = np.empty(pool.shape[0], dtype=np.int64)
    state = np.empty(1, dtype=np.uint64)
    left = np.empty(n_stats)
    work = np.empty(n_stats)
    miss = np.zeros(max(n_stats, 2))  # several outputs: any width
    tot_p = np.empty(n_stats)
    n_groups = 0  # categories and the missing group, of the feature with the most
    if cats is not None:
        for f in range(n_features):
            n_groups = max(n_groups, cats[f] + 1 if cats[f] > 0 else 0)
    g_stats = np.empty((n_groups, n_stats))
    g_rows = np.empty(n_groups, dtype=np.int64)
    g_code = np.empty(n_groups, dtype=np.int64)
    keys = np.empty(n_groups)
    mask = np.empty(n_groups, dtype=np.uint8)
    n_cuts = cuts.shape[0] - 1
    for o in range(lo, hi):
        f = o
        if by_node:  # node o, on the features its sampler visits
            k_lo, k_hi, n_visit = o, o + 1, pool.shape[0]
        else:  # feature f: partition a group's ranges of its row, then scan its nodes
            f, g = o // n_cuts, o % n_cuts
            m_lo, m_hi = cuts[g, 0], cuts[g + 1, 0]
            k_lo, k_hi, n_visit = cuts[g, 1], cuts[g + 1, 1], 1
            if m_hi > m_lo:
                s_idx = np.empty(scratch, dtype=idx.dtype)
                s_x = np.empty(scratch, dtype=xs.dtype)
                s_y = np.empty(scratch)
                s_w = np.empty(scratch if weighted else 0)
                # the rows' views made once: each view costs reference counting
                idx_f, xs_f, ys_f, ws_f = idx[f], xs[f], ys[f], ws[f]
                for m in range(m_lo, m_hi):
                    if dup is None:  # where the right child starts: known
                        _partition_known(idx_f, xs_f, ys_f, ws_f, weighted, side,
                                         part[m, 0], part[m, 1], part_dst[m], s_idx, s_x,
                                         s_y, s_w)
                    elif part_dst[m] >= 0:
                        _partition_duplicating(idx_f, xs_f, ys_f, ws_f, side,
                                               part[m, 0], part[m, 1], part_dst[m],
                                               part_frac[m], dup, s_idx, s_x, s_y, s_w)
                    else:
                        _partition_segment(idx_f, xs_f, ys_f, ws_f, weighted, side,
                                           part[m, 0], part[m, 1], s_idx, s_x, s_y, s_w)
        for k in range(k_lo, k_hi):
            if by_node:
                start_order(perm, pool, state, seeds[k])
            visited = 0
            n_const = 0
            for j in range(n_visit):
                if by_node:
                    if visited_enough(visited, n_const, max_features):
                        break
                    f = next_feature(perm, j, state)
                if rseed is not None:
                    for d in range(2):  # the threshold's draw and the missing side's
                        draws[d] = uniform_draw(rseed[k], f, d)
                if ymul is not None:
                    proxy, nl, thr, nonconst, mgl = scan_multi(
                        xs[f], idx[f], ws[f], weighted, scan[k, 0], scan[k, 1], scan_stats[k],
                        scan_w[k], is_clf, crit, min_samples_leaf, min_weight_leaf, ymul, offs,
                        left, work, miss, rseed is not None, draws[0], draws[1],
                    )
                elif cats is not None and cats[f] > 0:
                    proxy, nl, nonconst, mgl = _scan_categorical(
                        xs[f], ys[f], ws[f], weighted, scan[k, 0], scan[k, 1], scan_stats[k],
                        scan_w[k], scan_imp[k], is_clf, crit, min_samples_leaf,
                        min_weight_leaf, left, work, g_stats, g_rows, g_code, keys, mask,
                        out_cat[k, f], present_only, tot_p, rseed, k, f,
                    )
                    thr = np.nan
                elif mae_rank is not None:
                    proxy, nl, thr, nonconst, mgl = scan_absolute(
                        xs[f], idx[f], ws[f], weighted, scan[k, 0], scan[k, 1], scan_w[k],
                        min_samples_leaf, min_weight_leaf, mae_rank, mae_y, fw, fwy, passes[0],
                        passes[1], passes[2], passes[3], passes[4], passes[5], passes[6],
                        passes[7], out_mae[k, f], rseed is not None, draws[0], draws[1],
                    )
                elif rseed is not None:
                    proxy, nl, thr, nonconst, mgl = _scan_random(
                        xs, ys, ws, weighted, scan[k, 0], scan[k, 1], scan_stats[k],
                        scan_w[k], scan_imp[k], is_clf, crit, min_samples_leaf, min_weight_leaf,
                        left, work, miss, present_only, tot_p, draws[0], draws[1], mono, f,
                        bounds[k, 0], bounds[k, 1],
                    )
                else:
                    proxy, nl, thr, nonconst, mgl = _scan_segment(
                        xs, ys, ws, weighted, scan[k, 0], scan[k, 1], scan_stats[k],
                        scan_w[k], scan_imp[k], is_clf, crit, log_crit, reg_crit,
                        min_samples_leaf,
                        min_weight_leaf, left, work, miss, missing, present_only, tot_p,
                        mono, f, bounds[k, 0], bounds[k, 1],
                    )
                out_proxy[k, f] = proxy
                out_nl[k, f] = nl
                out_thr[k, f] = thr
                out_nonconst[k, f] = nonconst
                out_mgl[k, f] = mgl
                visited += 1
                if not nonconst:
                    n_const += 1


@JIT
def walk_nodes(lo, hi, idx, xs, ys, ws, seg, feat, thr, mgl, cat, cats, is_clf, crit,
               mode, missing, side, left_stats, right_stats, n_left, n_right):
    """Mark the side of every sample of the chosen splits of nodes ``[lo, hi)`` and sum
    the children's statistics.

    Parameters
    ----------
    idx, xs, ys, ws : the presorted layout.
    seg : int64 [k, 2]
        ``[start, end)`` of each node.
    feat, thr, mgl : int32 [k], float64 [k], int64 [k]
        Chosen feature (``-1``: none), threshold and side of missing values (1: left).
    cat : uint64 [k, W]
        Left categories of categorical splits (:func:`fastdt.kernels.in_bitset`).
    cats : None or int32 [F]
        Categories of each feature (0: numeric); None when every feature is numeric,
        and numba prunes the categorical step before typing.
    mode : int
        What happens to the rows missing the split feature (they come last in the
        node's range): 0 (``"learn"``) they go to the ``mgl`` side; 1
        (``"fractional"``) they go to both children (``side`` 2), their statistics
        shared in proportion to the present rows' weights; 2 (``"surrogate"``) they
        are marked 2 and left out, for :func:`fastdt._missing.resolve_surrogates`.
    missing : None or bool
        None: no row misses a value and ``mode`` is 0, and numba prunes the steps for
        missing values before typing (as :func:`scan_features`).
    side : uint8 [n_ids]
        Output marks (0 left, 1 right, 2 see ``mode``).
    left_stats, right_stats : float64 [k, S]
        Output: statistics of the two children (see ``_criteria``).
    n_left, n_right : int64 [k]
        Output: rows (copies) of each child.
    """
    weighted = ws.shape[1] == idx.shape[1]
    for k in range(lo, hi):
        f = feat[k]
        left_stats[k, :] = 0.0
        right_stats[k, :] = 0.0
        n_left[k] = 0
        n_right[k] = 0
        if f < 0:
            continue
        is_cat = False
        if cats is not None:
            is_cat = cats[f] > 0
        t = thr[k]
        miss_side = 0 if mgl[k] == 1 else 1
        w_left = 0.0  # present rows' weights: the fractions of mode 1
        w_right = 0.0
        for p in range(seg[k, 0], seg[k, 1]):
            q = np.uint64(p)  # unsigned indexing: no wrap-around test per access
            x = xs[f, q]
            wi = ws[f, q] if weighted else 1.0
            yv = ys[f, q]
            s_p = 0 if x <= t else 1
            if missing is not None:
                if np.isnan(x) and mode != 0:
                    side[np.uint64(idx[f, q])] = 2
                    if mode == 1:  # a share of the row in each child
                        frac = w_left / (w_left + w_right)
                        _add_stats(left_stats[k], is_clf, crit, yv, wi * frac)
                        _add_stats(right_stats[k], is_clf, crit, yv, wi * (1.0 - frac))
                        n_left[k] += 1
                        n_right[k] += 1
                    continue
                if np.isnan(x):
                    s_p = miss_side
            if cats is not None:
                if is_cat and not np.isnan(x):
                    c = np.uint64(x)
                    word = cat[k, c >> np.uint64(6)]
                    s_p = 0 if (word >> (c & np.uint64(63))) & np.uint64(1) else 1
            side[np.uint64(idx[f, q])] = s_p
            if s_p == 0:
                _add_stats(left_stats[k], is_clf, crit, yv, wi)
                n_left[k] += 1
                w_left += wi
            else:
                _add_stats(right_stats[k], is_clf, crit, yv, wi)
                n_right[k] += 1
                w_right += wi


@INLINE
def _add_stats(s, is_clf, crit, yv, wi):
    """Add a row (target ``yv``, weight ``wi``) to the statistics ``s``."""
    if is_clf:
        s[np.uint64(yv)] += wi
    else:
        s[0] += wi
        s[1] += wi * yv
        s[2] += wi * target_stat(crit, yv)


@JIT
def root_stats(ys_f, ws_f, is_clf, crit, out):
    """Statistics of a whole feature row (``ys_f``, ``ws_f``: one row of the layout; no
    weights: every weight 1) added into ``out``, in the row's order."""
    weighted = ws_f.shape[0] == ys_f.shape[0]
    for p in range(ys_f.shape[0]):
        _add_stats(out, is_clf, crit, ys_f[p], ws_f[p] if weighted else 1.0)


@JIT
def assign_copies(start, end, feat, idx, side, dup, n_ids):
    """``missing="fractional"``: give every row of the nodes ``[start, end)`` marked 2
    (missing their split feature ``feat``: they go to both children) a fresh id for
    its right copy, ``dup[id]``, numbered from ``n_ids`` in node and range order.
    Returns the new number of ids."""
    for j in range(start.shape[0]):
        f = feat[j]
        for p in range(start[j], end[j]):
            i = idx[f, p]
            if side[i] == 2:
                dup[i] = n_ids
                n_ids += 1
    return n_ids


@JIT
def node_ranks(part, scan, idx_y, xs_y, ys_y, ws_y, side, rank):
    """Partition the target-sorted row (``idx_y``, ...) for the nodes split last
    (``part``, as the features), then each scanned node's rows' ranks by target:
    ``rank[id] = position - start`` (the row stays sorted by ``y`` in each node)."""
    partition_one(idx_y, xs_y, ys_y, ws_y, side, part)
    for k in range(scan.shape[0]):
        a = scan[k, 0]
        for p in range(a, scan[k, 1]):
            rank[idx_y[p]] = p - a

"""Histogram splitter, part 2: building one histogram and scanning it for a split.

A histogram ``h`` (float64 [B, H]) of one node and feature has a row per bin: the node
statistics of ``_criteria`` summed over the node's rows in that bin, plus a row count
when rows are weighted (see :mod:`fastdt._hist`). A node with fewer rows than bins is
scanned over a compact histogram of its occupied bins only (:func:`_compact_histogram`).
"""

import numpy as np
from numba import prange

from ._config import FEATURE_THRESHOLD, INLINE, JIT, PJIT
from ._criteria import score_candidate, split_threshold


@INLINE
def _bin_rows(h, q, is_clf, weighted):
    """Rows counted in bin ``q`` (unsigned) of histogram ``h``."""
    if weighted:
        return h[q, h.shape[1] - 1]
    if is_clf:
        s = 0.0
        for c in range(h.shape[1]):
            s += h[q, c]
        return s
    return h[q, 0]


@JIT
def _accumulate(codes_f, ycode, rstat, a, b, is_clf, weighted, h):
    """Add positions ``[a, b)`` of one feature row to histogram ``h`` (float64 [B, H]).

    Positions are indexed as unsigned integers: numba then knows they are not
    negative and leaves out the wrap-around test of every access (2.5 times faster
    here). Unsigned values are used for indexing only: numba turns mixed
    signed/unsigned arithmetic into floats.
    """
    last = h.shape[1] - 1
    if is_clf and not weighted:
        for p in range(a, b):
            q = np.uint64(p)
            h[codes_f[q], np.uint32(ycode[q])] += 1.0
    elif is_clf:
        for p in range(a, b):
            q = np.uint64(p)
            k = codes_f[q]
            h[k, np.uint32(ycode[q])] += rstat[q, 0]
            h[k, last] += 1.0
    else:
        for p in range(a, b):
            q = np.uint64(p)
            k = codes_f[q]
            h[k, 0] += rstat[q, 0]
            h[k, 1] += rstat[q, 1]
            h[k, 2] += rstat[q, 2]
            if weighted:
                h[k, last] += 1.0


@JIT
def _scan_bins(
    h, nb, lo, hi, total, w_node, n_node, imp_node, is_clf, crit, weighted,
    min_samples_leaf, min_weight_leaf, left, work, out_l, out_r,
):
    """Best split of one node on one feature from its histogram ``h`` (float64 [B, H]).

    Returns ``(proxy, n_left, threshold, non_constant, bin)``: rows with a code at most
    ``bin`` go left; ``n_left == 0`` means no valid split. Writes the children's
    statistics into ``out_l``/``out_r``. Empty bins are skipped, so a candidate lies
    between two neighbouring non-empty bins, as in the exact splitter between two
    neighbouring distinct values.
    """
    n_stats = total.shape[0]
    for c in range(n_stats):
        left[c] = 0.0
    wl = 0.0
    sl = 0.0
    nl = 0
    best_num = -np.inf
    best_den = 1.0
    best_nl = 0
    best_thr = np.nan
    best_bin = -1
    prev = np.uint64(0)  # last non-empty bin (valid once `seen`)
    first = np.uint64(0)
    seen = False
    for k in range(nb):
        q = np.uint64(k)  # unsigned indexing, as in _accumulate
        cnt = _bin_rows(h, q, is_clf, weighted)
        if cnt == 0.0:
            continue
        if not seen:
            first = q
        elif (nl >= min_samples_leaf and n_node - nl >= min_samples_leaf
              and lo[q] > hi[prev] + FEATURE_THRESHOLD):
            wr = w_node - wl
            if not (wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0):
                num, den = score_candidate(is_clf, crit, left, total, wl, wr, sl, imp_node, work)
                if num * best_den > best_num * den:
                    best_num = num
                    best_den = den
                    best_nl = nl
                    best_bin = np.int64(prev)
                    best_thr = split_threshold(hi[prev], lo[q])
        if is_clf:
            for c in range(n_stats):
                left[c] += h[q, c]
                wl += h[q, c]
        else:
            wl += h[q, 0]
            sl += h[q, 1]
        nl += np.int64(cnt)
        prev = q
        seen = True
    nonconst = seen and hi[prev] > lo[first] + FEATURE_THRESHOLD
    for c in range(n_stats):
        out_l[c] = 0.0
        out_r[c] = 0.0
    if best_bin >= 0:
        for k in range(nb):
            q = np.uint64(k)
            if _bin_rows(h, q, is_clf, weighted) == 0.0:
                continue
            if k <= best_bin:
                for c in range(n_stats):
                    out_l[c] += h[q, c]
            else:
                for c in range(n_stats):
                    out_r[c] += h[q, c]
    return best_num / best_den, best_nl, best_thr, nonconst, best_bin


@PJIT
def scan_nodes(
    pool, slots, scan, scan_stats, scan_w, scan_imp, codes, ycode, rstat, n_bins,
    bin_lo, bin_hi, is_clf, crit, weighted, min_samples_leaf, min_weight_leaf,
    out_proxy, out_nl, out_thr, out_nc, out_bin, out_l, out_r,
):
    """Score every (open node, feature) from the nodes' histograms (``prange`` over nodes).

    A node with ``slots[k] < 0`` has no stored histogram: it is built here, one
    feature at a time, in scratch owned by the thread (over its occupied bins only when
    it has fewer rows than bins). Outputs are ``[k, F]`` tables
    (``out_l``/``out_r``: ``[k, F, S]`` children statistics of each feature's best
    split).
    """
    n_features = codes.shape[0]
    n_stats = scan_stats.shape[1]
    width = pool.shape[3]
    for k in prange(slots.shape[0]):
        a = scan[k, 0]
        b = scan[k, 1]
        stored = slots[k] >= 0
        # a node with fewer rows than bins gets a compact histogram of its occupied bins
        compact = not stored and b - a <= pool.shape[2]
        scratch = np.empty((0 if stored or compact else pool.shape[2], width))
        r = b - a if compact else 0
        order = np.empty(r, dtype=np.int64)
        h_c = np.empty((r, width))
        lo_c = np.empty(r)
        hi_c = np.empty(r)
        bins = np.empty(r, dtype=np.int64)
        start = np.empty(pool.shape[2] + 1 if compact else 0, dtype=np.int64)
        left = np.empty(n_stats)
        work = np.empty(n_stats)
        for f in range(n_features):
            nb = n_bins[f]
            lo_f = bin_lo[f]
            hi_f = bin_hi[f]
            if stored:
                h = pool[slots[k], f]
            elif compact:
                nb = _compact_histogram(codes[f], ycode, rstat, a, b, is_clf, weighted, nb,
                                        lo_f, hi_f, start, order, h_c, lo_c, hi_c, bins)
                h = h_c
                lo_f = lo_c
                hi_f = hi_c
            else:  # one feature at a time: the scratch stays in L1
                h = scratch
                h[:nb] = 0.0
                _accumulate(codes[f], ycode, rstat, a, b, is_clf, weighted, h)
            proxy, nl, thr, nc, bb = _scan_bins(
                h, nb, lo_f, hi_f, scan_stats[k], scan_w[k], b - a,
                scan_imp[k], is_clf, crit, weighted, min_samples_leaf, min_weight_leaf,
                left, work, out_l[k, f], out_r[k, f],
            )
            out_proxy[k, f] = proxy
            out_nl[k, f] = nl
            out_thr[k, f] = thr
            out_nc[k, f] = nc
            out_bin[k, f] = bins[bb] if compact and bb >= 0 else bb


@JIT
def _compact_histogram(codes_f, ycode, rstat, a, b, is_clf, weighted, nb, lo_f, hi_f,
                       start, order, h, lo_c, hi_c, bins):
    """Histogram of positions ``[a, b)`` over the bins they occupy only, in bin order.

    For a node with fewer rows than bins, whose dense histogram would be mostly empty
    bins to zero and scan: the rows are counting-sorted by code (stable, so each bin
    adds its rows in position order, as the dense histogram does: the same sums, the
    same tree), then grouped. Fills the first ``m`` rows of ``h``, ``lo_c``, ``hi_c``
    and ``bins`` (the occupied bins' codes) and returns ``m``. ``start`` is int64
    scratch of at least ``nb + 1``.
    """
    start[: nb + 1] = 0
    for p in range(a, b):
        start[np.uint64(codes_f[np.uint64(p)]) + np.uint64(1)] += 1
    for c in range(nb):
        start[c + 1] += start[c]
    for p in range(a, b):
        c = np.uint64(codes_f[np.uint64(p)])
        order[start[c]] = p
        start[c] += 1
    last = h.shape[1] - 1
    m = -1
    for i in range(b - a):
        p = np.uint64(order[i])
        c = np.uint64(codes_f[p])
        if m < 0 or c != bins[m]:
            m += 1
            h[m, :] = 0.0
            bins[m] = c
            lo_c[m] = lo_f[c]
            hi_c[m] = hi_f[c]
        if is_clf:
            h[m, np.uint32(ycode[p])] += rstat[p, 0] if weighted else 1.0
            if weighted:
                h[m, last] += 1.0
        else:
            h[m, 0] += rstat[p, 0]
            h[m, 1] += rstat[p, 1]
            h[m, 2] += rstat[p, 2]
            if weighted:
                h[m, last] += 1.0
    return m + 1

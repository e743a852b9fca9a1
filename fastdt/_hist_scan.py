"""Histogram splitter, part 2: building one histogram and scanning it for a split.

A histogram ``h`` (float64 [B, H]) of one node and feature has a row per bin: the node
statistics of ``_criteria`` summed over the node's rows in that bin, plus a row count
when rows are weighted (see :mod:`fastdt._hist`). Rows ``0 .. nb-1`` are the value
bins (categories, for a categorical feature) in order, row ``nb`` the missing bin (the
rows whose value is NaN). The scans reproduce the exact splitter's
(:func:`fastdt._exact._scan_segment`, :func:`fastdt._exact._scan_categorical`) with a
bin in place of a distinct value:

* numeric: every cut between two neighbouring non-empty value bins with the missing
  rows right (lowest cut first), then "every present value left, missing right"
  (threshold ``+inf``), then every cut with the missing rows left; ties keep the first;
* categorical: the node's groups are its non-empty category bins in code order, then
  the missing bin, and :func:`fastdt._categorical.best_partition` picks the left ones.

A node with fewer rows than bins is scanned over a compact histogram of its occupied
bins only (:func:`_compact_histogram`): the same layout with ``nb`` the number of
occupied value bins, whose codes are kept aside.
"""

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ._categorical import categorical_split
from ._config import FEATURE_THRESHOLD, SQUARED_ERROR
from ._jit import INLINE, JIT, NOREF
from ._sampling import next_feature, start_order, visited_enough
from ._criteria import (gini_fraction, gini_fraction_two, missing_right_score, monotone_ok,
                        regression_score, score_candidate, split_threshold)


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


@INLINE
def _add_sums(rstat, q, h, k):
    """Add the regression sums of position ``q`` (unsigned) to bin ``k`` of ``h``. The
    callers read the bins of both chains' rows first: numba tells LLVM nothing about
    aliasing, so a read after a store waits for it."""
    h[k, 0] += rstat[q, 0]
    h[k, 1] += rstat[q, 1]
    h[k, 2] += rstat[q, 2]


@INLINE
def _add_to_bin(ycode, rstat, q, is_clf, weighted, h, k):
    """Add position ``q`` (unsigned) to bin ``k`` of histogram ``h``."""
    if is_clf:
        h[k, np.uint32(ycode[q])] += rstat[q, 0] if weighted else 1.0
    else:
        _add_sums(rstat, q, h, k)
    if weighted:
        h[k, h.shape[1] - 1] += 1.0


@INLINE
def _add_row(codes_f, rows, ycode, rstat, q, is_clf, weighted, h):
    """Add position ``q`` (unsigned) to histogram ``h``, in its code's bin."""
    _add_to_bin(ycode, rstat, q, is_clf, weighted, h, codes_f[np.uint64(rows[q])])


@INLINE
def _gather_codes(codes_f, rows, a, b, out):
    """``out[i] = codes_f[rows[a + i]]`` for the positions ``[a, b)``: the gathers in a
    loop that does nothing else. A node's rows lie far apart in the column, so most of
    them miss the caches; alone in their loop, many misses are in flight at once, where
    a loop that also stores through each code (a histogram's sums, a count) waits for
    them one after another."""
    for i in range(b - a):
        out[np.uint64(i)] = codes_f[np.uint64(rows[np.uint64(a + i)])]


#: Positions whose bin codes :func:`_accumulate` gathers at a time, before adding them
#: to the histogram
_GATHER = 2048


@NOREF
def _accumulate(codes_f, rows, ycode, rstat, a, b, is_clf, weighted, h, h2, n_h, kb):
    """Add positions ``[a, b)`` (rows ``rows[a:b]`` of the feature's codes ``codes_f``) to
    the first ``n_h`` bins of histogram ``h`` (float64 [B, H], zeros on entry).

    The codes are gathered first (:func:`_gather_codes`), :data:`_GATHER` positions at
    a time, into ``kb`` (of the codes' type, at least ``_GATHER`` long): a boosting
    fit's builds, captured and replayed, 3-8% less time; 512 and 2,048 positions at a
    time measure alike.

    A bin's sums are read-modify-writes through memory, and a row often lands in the bin
    of one of the rows just before it, whose store it then waits for. With at least
    ``2 n_h`` positions, they alternate between ``h`` and the scratch ``h2`` (float64
    [>= n_h, H]) in one loop, two chains of stores (twice as fast here), and ``h2`` is
    added to ``h`` after: a bin's sum is that of its rows at even offsets from ``a`` plus
    that of those at odd ones (counts and integer weights: exact either way). Fewer
    positions: the same loops with ``h`` for both, one chain in position order (as
    :func:`_compact_histogram`; one copy of the loops compiles faster). Each task
    has a loop of its own, with no branch in it (a branch between the two chains' stores
    kept them from overlapping).

    Positions are indexed as unsigned integers: numba then knows they are not
    negative and leaves out the wrap-around test of every access (2.5 times faster
    here). Unsigned values are used for indexing only: numba turns mixed
    signed/unsigned arithmetic into floats.
    """
    two = b - a >= 2 * n_h
    if two:
        h2[:n_h] = 0.0
    else:  # one chain: the loops below alternate between h and h, in position order
        h2 = h
    end = b - (b - a) % 2
    last = h.shape[1] - 1
    one = np.uint64(1)
    for c0 in range(a, end, _GATHER):
        c1 = min(c0 + _GATHER, end)
        _gather_codes(codes_f, rows, c0, c1, kb)
        if is_clf and not weighted:
            for p in range(c0, c1, 2):
                q = np.uint64(p)
                i = np.uint64(p - c0)
                h[kb[i], np.uint32(ycode[q])] += 1.0
                h2[kb[i + one], np.uint32(ycode[q + one])] += 1.0
        elif is_clf:
            for p in range(c0, c1, 2):
                q = np.uint64(p)
                i = np.uint64(p - c0)
                k = kb[i]
                k2 = kb[i + one]
                h[k, np.uint32(ycode[q])] += rstat[q, 0]
                h[k, last] += 1.0
                h2[k2, np.uint32(ycode[q + one])] += rstat[q + one, 0]
                h2[k2, last] += 1.0
        elif weighted:
            for p in range(c0, c1, 2):
                q = np.uint64(p)
                i = np.uint64(p - c0)
                k = kb[i]
                k2 = kb[i + one]
                _add_sums(rstat, q, h, k)
                h[k, last] += 1.0
                _add_sums(rstat, q + one, h2, k2)
                h2[k2, last] += 1.0
        else:
            for p in range(c0, c1, 2):
                q = np.uint64(p)
                i = np.uint64(p - c0)
                k = kb[i]
                k2 = kb[i + one]
                _add_sums(rstat, q, h, k)
                _add_sums(rstat, q + one, h2, k2)
    if end < b:
        _add_row(codes_f, rows, ycode, rstat, np.uint64(end), is_clf, weighted, h)
    if two:
        for k in range(n_h):
            for c in range(h.shape[1]):
                h[k, c] += h2[k, c]


#: Bits of each of the three fields of a packed histogram bin (:func:`_accumulate_packed`)
PACK_BITS = 21
#: The increments of a layout that is not packed (no rows: the kernels test for them)
NO_INC = np.zeros((0, 1), dtype=np.int64)


@INLINE
def _unpack(p, h, n_h):
    """Bins ``0 .. n_h - 1`` of the packed histogram ``p`` (int64) as float rows of ``h``:
    class 0's weight, class 1's, the rows (:func:`_accumulate_packed`)."""
    low = np.int64(PACK_BITS)
    mask = (np.int64(1) << low) - 1
    for k in range(n_h):
        v = p[k]
        h[k, 0] = np.float64((v >> low) & mask)
        h[k, 1] = np.float64(v >> (2 * low))
        h[k, 2] = np.float64(v & mask)


@NOREF
def _accumulate_packed(codes_f, rows, rinc, a, b, h, p1, p2, n_h, kb):
    """:func:`_accumulate` of a packed layout (:meth:`fastdt._hist.HistSplitter._pack`:
    a binary classification whose weights are whole numbers, a forest's bootstrap
    counts): the same histogram, written to the first ``n_h`` bins of ``h`` (float64
    [B, 3]: class 0's weight, class 1's, the rows).

    A bin is summed as one int64, the rows in its low :data:`PACK_BITS` bits, class 0's
    weight in the next ones, class 1's above; ``rinc[q, 0]`` is position ``q``'s
    increment (1 + its weight shifted to its class's field), so a row costs one
    addition to memory where the float bins cost two. No field carries into the next
    (a tree's rows and weight are below ``2**(PACK_BITS - 1)``), and the float sums it
    replaces are of whole numbers too (exact): the same histogram, bit for bit. ``p1``,
    ``p2``: int64 scratch of at least ``n_h``, the positions alternating between them
    as in :func:`_accumulate`.
    """
    for k in range(n_h):
        p1[k] = 0
        p2[k] = 0
    end = b - (b - a) % 2
    one = np.uint64(1)
    for c0 in range(a, end, _GATHER):
        c1 = min(c0 + _GATHER, end)
        _gather_codes(codes_f, rows, c0, c1, kb)
        for p in range(c0, c1, 2):
            q = np.uint64(p)
            i = np.uint64(p - c0)
            p1[kb[i]] += rinc[q, 0]
            p2[kb[i + one]] += rinc[q + one, 0]
    if end < b:
        q = np.uint64(end)
        p1[codes_f[np.uint64(rows[q])]] += rinc[q, 0]
    for k in range(n_h):
        p1[k] += p2[k]
    _unpack(p1, h, n_h)


@INLINE
def _stats_weight(is_clf, s):
    """Weight of the statistics ``s`` (float64 [S])."""
    if is_clf:
        w = 0.0
        for c in range(s.shape[0]):
            w += s[c]
        return w
    return s[0]


@NOREF
def _scan_bins(
    h, nb, lo, hi, total, w_node, n_node, imp_node, reg_crit, crit, log_crit, weighted,
    min_samples_leaf, min_weight_leaf, left, work, miss, occ, missing, mono, f, lower,
    upper, reg,
):
    """Best split of one node on one numeric feature from its histogram ``h``.

    Returns ``(proxy, n_left, threshold, non_constant, bin, missing_left, n_occ)``:
    present rows with a code at most ``bin`` go left, missing rows (bin ``nb``) go left
    when ``missing_left == 1``, right when 0 (-1: the node has none); ``n_left`` counts
    every row going left (0: no valid split); ``occ[:n_occ]`` lists the non-empty value
    bins; :func:`_children` then sums the
    children's statistics of the split that wins. ``left``, ``work``, ``miss``, ``occ``
    (float64 [>= S], [S], [max(S, 2)], int64 [>= nb]) are scratch (``miss`` holds the
    missing bin's statistics on return, for :func:`_children`). Empty bins are skipped
    (the loop runs over the non-empty ones, listed in ``occ`` first), so a cut lies
    between two neighbouring non-empty bins, as the exact splitter's between two
    neighbouring distinct values; the candidates come in the exact splitter's order (module
    docstring) and the feature is constant in the same cases. ``mono``, ``f``,
    ``lower``, ``upper``: the monotonic constraints (None: none) and the node's bounds,
    as :func:`fastdt._exact_scan._scan_segment`. ``reg``: the L2 and L1 regularisation of
    the squared-error score (:func:`fastdt._criteria.score_candidate`; boosting's).
    ``log_crit``: :func:`fastdt._criteria.log_criterion` (None: gini or regression,
    and the other scores are pruned from the loop). ``reg_crit``: None for a
    classification, else the regression criterion (``crit``): the task is then a
    constant where the scan compiles (a signature for each), and the loop holds one
    task's steps, where a flag left both in it. ``missing``: None when no row of
    the fit misses a value (the missing bin is empty): numba then prunes the steps for
    missing values before typing, as :func:`fastdt._exact_scan._scan_segment`.
    """
    # a constant where the kernel is compiled: LLVM keeps one task's steps in the loop
    is_clf = reg_crit is None
    n_stats = total.shape[0]
    qm = np.uint64(nb)
    n_miss = np.int64(0)
    w_miss = 0.0
    miss[:] = 0.0
    if missing is not None:
        n_miss = np.int64(_bin_rows(h, qm, is_clf, weighted))
        if n_miss:
            for c in range(n_stats):
                miss[c] = h[qm, c]
            w_miss = _stats_weight(is_clf, miss[:n_stats])
    best_num = -np.inf
    best_den = 1.0
    best_nl = 0
    best_thr = np.nan
    best_bin = -1
    best_mgl = -1
    # the non-empty value bins, listed without a branch: a node of a few hundred rows
    # leaves about half its bins empty, and a test of each bin in the scan's loop was
    # mispredicted about every other time (docs/benchmarks.md, "The histogram scan")
    n_occ = np.int64(0)
    for k in range(nb):
        occ[n_occ] = k
        n_occ += np.int64(_bin_rows(h, np.uint64(k), is_clf, weighted) != 0.0)
    seen = n_occ > 0
    # first and last non-empty value bins (valid once `seen`)
    first = np.uint64(occ[0]) if seen else np.uint64(0)
    prev = first
    # two classes by gini, or a squared error (boosting's too), with no missing rows and
    # no constraints (a binary forest's scans, a boosting round's): the loop below with
    # the left sums in registers, where that loop carries a classification's through
    # memory, and every test of a candidate in one branch (a new best comes
    # unpredictably, and the general loop's branches were mispredicted with it); the same
    # operations in the same order, the same floats
    fast = mono is None and n_miss == 0 and (
        (is_clf and log_crit is None and n_stats == 2)
        or (not is_clf and crit == SQUARED_ERROR))
    if fast:
        t0 = total[0]
        t1 = total[1]
        l0 = 0.0  # class 0's weight; a regression: unused
        l1 = 0.0  # class 1's weight; a regression: the sum of w*y
        wl = 0.0
        nl = np.int64(0)
        best_q = np.uint64(0)
        for j in range(n_occ):
            q = np.uint64(occ[j])
            h0 = h[q, 0]
            h1 = h[q, 1]
            wr = w_node - wl
            if is_clf:
                num, den = gini_fraction_two(l0, l1, t0, t1, wl, wr)
            else:  # a side without weight is no candidate: divided by 1 (numba
                # raises on a division by zero)
                num = regression_score(crit, l1, t1, wl + reg[0] if wl > 0.0 else 1.0,
                                       wr + reg[0] if wr > 0.0 else 1.0, reg)
                den = 1.0
            better = ((j > 0) & (nl >= min_samples_leaf) & (n_node - nl >= min_samples_leaf)
                      & (lo[q] > hi[prev] + FEATURE_THRESHOLD) & (wl >= min_weight_leaf)
                      & (wr >= min_weight_leaf) & (wl > 0.0) & (wr > 0.0)
                      & (num * best_den > best_num * den))
            best_num = num if better else best_num
            best_den = den if better else best_den
            best_nl = nl if better else best_nl
            best_bin = np.int64(prev) if better else best_bin
            best_q = q if better else best_q
            nl += np.int64(_bin_rows(h, q, is_clf, weighted))
            if is_clf:
                l0 += h0
                wl += h0
                l1 += h1
                wl += h1
            else:
                wl += h0
                l1 += h1
            prev = q
        if best_bin >= 0:
            best_thr = split_threshold(hi[np.uint64(best_bin)], lo[best_q])
    for missing_left in range(0 if fast else 2 if n_miss else 1):
        # missing rows start on the left in the second pass
        for c in range(n_stats):
            left[c] = miss[c] if missing_left else 0.0
        wl = w_miss if missing_left else 0.0
        sl = miss[1] if missing_left and not is_clf else 0.0
        nl = n_miss if missing_left else 0
        for j in range(n_occ):
            q = np.uint64(occ[j])  # unsigned indexing, as in _accumulate
            cnt = _bin_rows(h, q, is_clf, weighted)
            if (j > 0 and nl >= min_samples_leaf and n_node - nl >= min_samples_leaf
                    and lo[q] > hi[prev] + FEATURE_THRESHOLD):
                wr = w_node - wl
                if not (wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0
                        or wr <= 0.0 or (mono is not None and mono[f] != 0
                                         and not monotone_ok(is_clf, mono[f], left, total,
                                                             wl, wr, sl, lower, upper,
                                                             reg))):
                    # a literal task: each inlined copy keeps its task's arithmetic only,
                    # and the loop stays small (1.3x faster than one copy of both)
                    if is_clf:
                        if log_crit is None:  # gini: the others pruned (log_criterion)
                            num, den = gini_fraction(left, total, wl, wr)
                        else:
                            num, den = score_candidate(True, log_crit, left, total, wl, wr,
                                                       sl, imp_node, work, reg)
                    else:
                        num, den = score_candidate(False, crit, left, total, wl, wr, sl,
                                                   imp_node, work, reg)
                    if num * best_den > best_num * den:
                        best_num = num
                        best_den = den
                        best_nl = nl
                        best_bin = np.int64(prev)
                        best_thr = split_threshold(hi[prev], lo[q])
                        best_mgl = missing_left if n_miss else -1
            if is_clf:
                for c in range(n_stats):
                    left[c] += h[q, c]
                    wl += h[q, c]
            else:
                wl += h[q, 0]
                sl += h[q, 1]
            nl += np.int64(cnt)
            prev = q
        if missing is not None:
            if (not missing_left and n_miss and n_node - n_miss >= min_samples_leaf
                    and n_miss >= min_samples_leaf):
                num, den = missing_right_score(is_clf, crit, total, miss, w_node, w_miss,
                                               min_weight_leaf, mono, f, lower, upper,
                                               imp_node, left, work, reg)
                if num * best_den > best_num * den:
                    best_num = num
                    best_den = den
                    best_nl = n_node - n_miss
                    best_bin = np.int64(prev)
                    best_thr = np.inf
                    best_mgl = 0
    nonconst = seen and (n_miss > 0 or hi[prev] > lo[first] + FEATURE_THRESHOLD)
    return best_num / best_den, best_nl, best_thr, nonconst, best_bin, best_mgl, n_occ


@NOREF
def _children(h, occ, n_occ, best_bin, best_mgl, miss, is_clf, weighted, out_l, out_r):
    """The children's statistics (``out_l``/``out_r``, float64 [S]) of the numeric split
    :func:`_scan_bins` found in ``h``: the non-empty value bins (``occ[:n_occ]``, in
    order, as :func:`_scan_bins` lists them) up to ``best_bin`` go left, the others
    right, and the missing bin's (``miss``) left when ``best_mgl == 1``.

    Only the (node, feature) that may win needs them: :func:`scan_nodes` calls this for a
    feature that beats the node's features scanned before it (about ``ln F`` of ``F``
    features), not for every feature; the pass cost a third of the scan.
    """
    n_stats = out_l.shape[0]
    if is_clf and n_stats == 2:  # two classes: the sums in registers, in the same order
        l0 = 0.0
        l1 = 0.0
        r0 = 0.0
        r1 = 0.0
        for j in range(n_occ):
            q = np.uint64(occ[j])
            if occ[j] <= best_bin:
                l0 += h[q, 0]
                l1 += h[q, 1]
            else:
                r0 += h[q, 0]
                r1 += h[q, 1]
        out_l[0] = l0
        out_l[1] = l1
        out_r[0] = r0
        out_r[1] = r1
    else:
        out_l[:] = 0.0
        out_r[:] = 0.0
        # two branches, not one array picked per bin (that costs reference counting)
        for j in range(n_occ):
            q = np.uint64(occ[j])
            if occ[j] <= best_bin:
                for c in range(n_stats):
                    out_l[c] += h[q, c]
            else:
                for c in range(n_stats):
                    out_r[c] += h[q, c]
    for c in range(n_stats):
        if best_mgl == 1:
            out_l[c] += miss[c]
        else:
            out_r[c] += miss[c]


@JIT
def _scan_categorical_bins(
    h, nb, lo, total, w_node, n_node, imp_node, is_clf, crit, weighted,
    min_samples_leaf, min_weight_leaf, left, work, g_stats, g_rows, g_code, keys, mask,
    words, out_l, out_r, reg,
):
    """Best split of one node on one categorical feature from its histogram ``h``.

    The groups are the non-empty bins in order (a bin's category is ``lo[k]``), the
    missing bin last. Returns ``(proxy, n_left, non_constant, missing_left)``, the
    left categories' bitset in ``words`` (uint64 [W]) and the children's statistics in
    ``out_l``/``out_r``. ``g_*``, ``keys``, ``mask``: scratch of at least ``nb + 1``
    rows (see :func:`fastdt._categorical.best_partition`).
    """
    n_stats = total.shape[0]
    m = np.int64(0)  # not Literal[int](0): the callees would compile twice
    for k in range(nb + 1):
        q = np.uint64(k)
        cnt = _bin_rows(h, q, is_clf, weighted)
        if cnt == 0.0:
            continue
        for c in range(n_stats):
            g_stats[m, c] = h[q, c]
        g_rows[m] = np.int64(cnt)
        g_code[m] = np.int64(lo[q]) if k < nb else -1
        m += 1
    proxy, nl, nonconst = categorical_split(
        g_stats, g_rows, g_code, m, total, w_node, n_node, imp_node, is_clf, crit,
        min_samples_leaf, min_weight_leaf, keys, left, work, mask, words, reg,
    )
    if nl == 0:
        return proxy, 0, nonconst, -1
    out_l[:] = 0.0
    out_r[:] = 0.0
    for j in range(m):
        out = out_l if mask[j] == 1 else out_r
        for c in range(n_stats):
            out[c] += g_stats[j, c]
    return proxy, nl, True, np.int64(mask[m - 1]) if g_code[m - 1] < 0 else -1


@JIT
def scan_nodes(
    lo, hi, pool, slots, scan, scan_stats, scan_w, scan_imp, codes, rows, ycode, rstat, n_bins,
    bin_lo, bin_hi, cats, missing, reg_crit, crit, log_crit, weighted, min_samples_leaf,
    min_weight_leaf, mono, bounds, seeds, max_features, fpool, in_order, out_proxy, out_nl,
    out_thr, out_nc, out_bin, out_mgl, out_cat, out_l, out_r, reg, rinc,
):
    """Score every (open node, feature) of the nodes ``[lo, hi)`` from their histograms.

    A node with ``slots[k] < 0`` has no stored histogram: it is built here, one
    feature at a time, in scratch owned by the thread (over its occupied bins only when
    it has fewer rows than bins). ``cats`` (int32 [F], categories per feature, 0 for a
    numeric one) is None when every feature is numeric: numba then prunes the
    categorical scan before typing. ``missing`` is None when no code is a missing bin:
    numba then prunes the numeric scan's steps for missing values (:func:`_scan_bins`;
    else True). ``mono``/``bounds``: monotonic constraints (None:
    none) and the nodes' bounds, as :func:`fastdt._exact_scan.scan_features`.
    ``seeds``/``max_features``: with a seed per node, each node scans only the features
    its sampler visits (drawn from ``fpool``, int64 [P]: the features the tree may
    use), as :func:`fastdt._exact_scan.scan_features` (a feature it does not scan keeps
    its entries; a stored histogram still holds every feature, for the subtraction); no
    seeds: every feature. ``in_order``: the features are scanned in the order the
    winner is then chosen in (:func:`fastdt._grow.choose`: each node's own order, or
    every feature by index), so that only a feature beating those scanned before it can
    win, and only such a feature's children's statistics are summed
    (:func:`_children`; False: every feature's). Outputs
    are ``[k, F]`` tables: proxy, rows going left, threshold (NaN for a categorical split), non-constant flag, last bin going left (numeric), side of the
    missing rows (1 left, 0 right, -1 none in the node); ``out_cat`` (uint64
    [k, F, W], zeros on entry) the left categories of categorical splits;
    ``out_l``/``out_r`` ([k, F, S]) the children's statistics (with ``in_order``, of
    the features that may win only: the others' are left as they were). ``reg``: gradient
    boosting's ``(lambda, alpha)`` of the squared-error score (``NO_REG``: none).
    ``log_crit``: :func:`fastdt._criteria.log_criterion` of the task and criterion;
    ``reg_crit``: None for a classification, else the criterion (:func:`_scan_bins`).
    ``rinc``: a packed layout's increments (int64 [n, 1], one a position; no rows: the
    layout is not packed), and the histograms built here are then packed too
    (:func:`_accumulate_packed`).
    """
    is_clf = reg_crit is None  # the task, known when compiled (_scan_bins)
    n_features = codes.shape[0]
    n_stats = scan_stats.shape[1]
    width = pool.shape[3]
    n_groups = 0
    if cats is not None:
        n_groups = pool.shape[2]
    by_node = seeds.shape[0] > 0
    perm = np.empty(fpool.shape[0], dtype=np.int64)
    state = np.empty(1, dtype=np.uint64)
    n_visit = fpool.shape[0] if by_node else n_features
    # the thread's scratch, sized for any node: a histogram built here (nodes without a
    # stored one), and a compact one (nodes of at most as many rows as bins)
    n_b = pool.shape[2]
    scratch = np.empty((n_b, width))
    scratch2 = np.empty((n_b, width))
    seen = np.empty((n_b >> 6) + 1, dtype=np.uint64)
    h_c = np.empty((n_b + 1, width))  # + the missing bin
    lo_c = np.empty(n_b + 1)
    hi_c = np.empty(n_b + 1)
    bins = np.empty(n_b + 1, dtype=np.int64)
    occ = np.empty(n_b, dtype=np.int64)
    slot = np.empty(n_b + 1, dtype=np.int64)
    cb = np.empty(n_b, dtype=codes.dtype)
    kb = np.empty(_GATHER, dtype=codes.dtype)
    packed = rinc.shape[0] > 0
    pk1 = np.empty(n_b + 1 if packed else 0, dtype=np.int64)
    pk2 = np.empty(n_b if packed else 0, dtype=np.int64)
    left = np.empty(n_stats)
    work = np.empty(n_stats)
    miss = np.empty(max(n_stats, 2))
    g_stats = np.empty((n_groups, n_stats))
    g_rows = np.empty(n_groups, dtype=np.int64)
    g_code = np.empty(n_groups, dtype=np.int64)
    keys = np.empty(n_groups)
    mask = np.empty(n_groups, dtype=np.uint8)
    for k in range(lo, hi):
        a = scan[k, 0]
        b = scan[k, 1]
        stored = slots[k] >= 0
        # a node with fewer rows than bins gets a compact histogram of its occupied bins
        compact = not stored and b - a <= n_b
        if by_node:
            start_order(perm, fpool, state, seeds[k])
        visited = 0
        n_const = 0
        node_best = -np.inf  # of the features scanned so far (a NaN proxy never wins)
        for j in range(n_visit):
            f = j
            if by_node:
                if visited_enough(visited, n_const, max_features):
                    break
                f = next_feature(perm, j, state)
            visited += 1
            nb = n_bins[f]
            lo_f = bin_lo[f]
            hi_f = bin_hi[f]
            if stored:
                h = pool[slots[k], f]
            elif compact:
                nb = _compact_histogram(codes[f], rows, ycode, rstat, a, b, is_clf, weighted,
                                        nb, lo_f, hi_f, slot, seen, h_c, lo_c, hi_c, bins,
                                        cb, rinc, pk1)
                h = h_c
                lo_f = lo_c
                hi_f = hi_c
            elif packed:
                h = scratch
                _accumulate_packed(codes[f], rows, rinc, a, b, h, pk1, pk2, nb + 1, kb)
            else:  # one feature at a time: the scratch stays in L1
                h = scratch
                h[: nb + 1] = 0.0
                _accumulate(codes[f], rows, ycode, rstat, a, b, is_clf, weighted, h, scratch2,
                            nb + 1, kb)
            if cats is not None and cats[f] > 0:
                proxy, nl, nc, mgl = _scan_categorical_bins(
                    h, nb, lo_f, scan_stats[k], scan_w[k], b - a, scan_imp[k], is_clf, crit,
                    weighted, min_samples_leaf, min_weight_leaf, left, work, g_stats,
                    g_rows, g_code, keys, mask, out_cat[k, f], out_l[k, f], out_r[k, f],
                    reg,
                )
                thr = np.nan
                bb = -1
            else:
                proxy, nl, thr, nc, bb, mgl, n_occ = _scan_bins(
                    h, nb, lo_f, hi_f, scan_stats[k], scan_w[k], b - a,
                    scan_imp[k], reg_crit, crit, log_crit, weighted, min_samples_leaf,
                    min_weight_leaf, left, work, miss, occ, missing, mono, f, bounds[k, 0],
                    bounds[k, 1], reg,
                )
                if nl > 0 and (not in_order or proxy > node_best):
                    _children(h, occ, n_occ, bb, mgl, miss, is_clf, weighted, out_l[k, f],
                              out_r[k, f])
            if nl > 0 and nc and proxy > node_best:  # a candidate of either rule of choose
                node_best = proxy
            out_proxy[k, f] = proxy
            out_nl[k, f] = nl
            out_thr[k, f] = thr
            out_nc[k, f] = nc
            out_bin[k, f] = bins[bb] if compact and bb >= 0 else bb
            out_mgl[k, f] = mgl
            if not nc:
                n_const += 1


@NOREF
def _compact_histogram(codes_f, rows, ycode, rstat, a, b, is_clf, weighted, nb, lo_f,
                       hi_f, slot, seen, h, lo_c, hi_c, bins, cb, rinc, pk):
    """Histogram of positions ``[a, b)`` over the bins they occupy only, in bin order.

    For a node with fewer rows than bins, whose dense histogram would be mostly empty
    bins to zero and scan. The occupied codes are marked in a bitmap (``seen``, uint64
    scratch of at least ``nb // 64 + 1`` words), which lists them in code order, one
    trailing-zero count each: each gets its row ``slot[code]`` of the compact histogram
    (``slot``, int64 scratch of at least ``nb + 1``). The rows are then added to their
    bins' rows in position order, as the dense histogram adds them: the same sums, the
    same tree. Fills the first ``m`` rows of ``h``, ``lo_c``, ``hi_c`` and ``bins`` (the
    occupied value bins' codes) and row ``m`` of ``h`` with the missing bin (zeros when
    no row is missing), and returns ``m``: the layout of a histogram of ``m`` value
    bins. ``cb`` (of the codes' type) has at least ``b - a`` entries; ``h`` and
    ``bins`` at least ``b - a + 1`` rows. A packed layout (``rinc`` has rows): the bins
    are summed as :func:`_accumulate_packed` sums them (``pk``, int64 scratch of at
    least ``b - a + 1``), then unpacked.

    The codes are gathered once (``cb``, :func:`_gather_codes`; stores in the gathers'
    loop kept fewer of their cache misses in flight). No pass runs over all ``nb``
    bins: a node of 4 rows costs a few words of the bitmap, where a counting sort's
    prefix sums ran over every bin.
    """
    n = b - a
    n_words = (nb >> 6) + 1  # the codes 0 .. nb (nb: the missing bin)
    for w in range(n_words):
        seen[w] = 0
    _gather_codes(codes_f, rows, a, b, cb)
    one = np.uint64(1)
    six = np.uint64(6)
    low = np.uint64(63)
    for i in range(n):
        c = np.uint64(cb[i])
        seen[c >> six] |= one << (c & low)
    m = 0
    for w in range(n_words):
        word = seen[w]
        base = np.uint64(w) << six
        while word != 0:
            c = base + trailing_zeros(word)
            word &= word - one
            slot[c] = m
            bins[m] = c
            m += 1
    packed = rinc.shape[0] > 0
    for i in range(m + 1):  # and the row after the last bin: zeros
        if packed:
            pk[i] = 0
        else:
            for j in range(h.shape[1]):
                h[i, j] = 0.0
    for i in range(n):
        k = slot[np.uint64(cb[i])]
        p = np.uint64(a + i)
        if packed:
            pk[k] += rinc[p, 0]
        else:
            _add_to_bin(ycode, rstat, p, is_clf, weighted, h, k)
    if packed:
        _unpack(pk, h, m + 1)
    for j in range(m):
        c = bins[j]
        if c < nb:
            lo_c[j] = lo_f[c]
            hi_c[j] = hi_f[c]
    if m > 0 and bins[m - 1] == nb:  # the missing bin is last: already in place
        return m - 1
    return m  # row m: zeros (no row is missing)

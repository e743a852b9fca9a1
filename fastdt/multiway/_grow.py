"""The kernels that grow multiway trees (ID3, C4.5) level by level.

The cases of a level are *entries* ``(row, weight)``: open node ``j`` owns the entries
``starts[j]:ends[j]`` of ``erow``/``ew``. A case whose value of a split's feature is
missing goes down every non-empty branch, its weight scaled by the branch's share of
the known weight (C4.5's fractional cases), so one row can be several entries of a
level. ``order[k]`` holds the same entries sorted by the ``k``-th continuous feature,
missing values last, node by node::

    erow   | node 0: r5 r1 r7 r2 | node 1: r3 r0 r4 |
    order  | node 0: 1  3  0  2  | node 1: 6  4  5  |   (entry ids, by the value)

The features are sorted once, at the root; a split hands each child its entries in the
parent's order (a stable partition), so no node sorts again. Each open node of a level
is scored on each feature by one scan of its entries (:func:`score_nodes`, the (node,
feature) tasks on threads, then :func:`choose_splits`);
:func:`route_level` and :func:`fill_level` then build the next level's entries and
orders (threads over nodes). The results do not depend on the number of threads.

The scores are C4.5 Release 8's (``build.c``, ``contin.c``, ``discr.c``, ``info.c``),
with ``info(v) = sum(v) log2 sum(v) - sum(v log2 v)`` of a frequency vector ``v``:

* a nominal feature (one branch per category): gain
  ``(1 - unknown / cases) (base - sum_v info(freq_v) / known)``, where ``base`` is the
  entropy of the cases whose value is known; split information
  ``info([unknown, n_1, ..., n_V]) / cases`` (the unknown values are an outcome of
  their own); it needs two branches with ``min_leaf`` cases at least;
* a continuous feature: the same gain for every cut between two successive distinct
  known values that leaves ``min_split = clip(0.1 known / n_classes, min_leaf, 25)``
  cases on each side; the best cut's gain minus ``log2(number of cuts) / cases`` must
  stay positive;
* C4.5 chooses the largest gain ratio among the features whose gain is at least the
  average gain of the candidates (``Worth``); ID3 the largest information gain.
"""

import numpy as np

from .._jit import INLINE, JIT

EPSILON = 1e-3  # C4.5's Epsilon: a gain above -EPSILON is a candidate
# Weights are sums of fractions: comparisons of weights with a count (min_leaf, the
# cases of a cut) allow this much rounding, and a gain or gain ratio must beat the best
# so far by more than it (ties go to the first feature and the first cut), as Weka's
# J48 does (Utils.SMALL)
TOL = 1e-6


def xlog2x_table(n):
    """``k log2 k`` for ``k = 0 .. n`` (``0 log2 0 = 0``): the frequencies of unit
    weights are whole numbers, looked up instead of computed."""
    k = np.arange(n + 1, dtype=np.float64)
    k[0] = 1.0
    out = k * np.log2(k)
    return out


@INLINE
def _xlog2x(v, table):
    k = np.int64(v)
    if k == v and k < table.shape[0]:
        return table[k]
    return v * np.log2(v) if v > 0.0 else 0.0


@JIT
def _info(v, k, table):
    """C4.5's ``TotalInfo`` of ``v[:k]``: ``sum log2 sum - sum(v log2 v)`` (bits times
    cases); ``table``: :func:`xlog2x_table`."""
    total = 0.0
    s = 0.0
    for i in range(k):
        total += v[i]
        s += _xlog2x(v[i], table)
    return _xlog2x(total, table) - s


@JIT
def _nominal(x, y, erow, ew, s, e, n_values, n_classes, cases, min_leaf, freq, vfreq,
             known_dist, table):
    """Gain and split information of a multiway split of entries ``s:e`` on a nominal
    feature of column ``x`` (codes ``0 .. n_values - 1``, NaN missing); ``-EPSILON``
    gain: no valid split. ``freq``, ``vfreq``, ``known_dist``: scratch."""
    freq[:n_values + 1] = 0.0
    for p in range(s, e):
        v = x[erow[p]]
        slot = 0 if np.isnan(v) else np.int64(v) + 1
        freq[slot, y[erow[p]]] += ew[p]
    known_dist[:] = 0.0
    reasonable = 0
    this_info = 0.0
    for v in range(n_values + 1):
        vfreq[v] = 0.0
        for c in range(n_classes):
            vfreq[v] += freq[v, c]
            if v > 0:
                known_dist[c] += freq[v, c]
        if v > 0:
            this_info += _info(freq[v], n_classes, table)
            if vfreq[v] >= min_leaf - TOL:
                reasonable += 1
    known = cases - vfreq[0]
    if known <= 0.0 or reasonable < 2:
        return -EPSILON, 0.0
    base = _info(known_dist, n_classes, table) / known
    gain = (1.0 - vfreq[0] / cases) * (base - this_info / known)
    return gain, _info(vfreq, n_values + 1, table) / cases


@JIT
def _continuous(x, y, erow, ew, ordk, s, e, n_classes, cases, min_leaf, lo, hi, table):
    """``(gain, split information, cut)`` of the best threshold of entries ``s:e`` on
    continuous column ``x``, entries in ``ordk[s:e]`` sorted by value (NaN last);
    ``-EPSILON`` gain: none. ``lo``, ``hi``: scratch [n_classes]."""
    hi[:] = 0.0
    lo[:] = 0.0
    kn = s  # the known values are a prefix of the node's order
    known = 0.0
    while kn < e and not np.isnan(x[erow[ordk[kn]]]):
        q = ordk[kn]
        hi[y[erow[q]]] += ew[q]
        known += ew[q]
        kn += 1
    if known < 2.0 * min_leaf - TOL:
        return -EPSILON, 0.0, np.nan
    unknown = cases - known
    base = _info(hi, n_classes, table) / known
    min_split = 0.1 * known / n_classes
    if min_split <= min_leaf:
        min_split = min_leaf
    elif min_split > 25.0:
        min_split = 25.0
    low = 0.0
    tries = 0
    best_gain = -np.inf
    best_p = -1
    best_low = 0.0
    for p in range(s, kn - 1):
        q = ordk[p]
        c = y[erow[q]]
        low += ew[q]
        lo[c] += ew[q]
        hi[c] -= ew[q]
        if low < min_split - TOL:
            continue
        if low > known - min_split + TOL:
            break
        if x[erow[q]] < x[erow[ordk[p + 1]]] - 1e-5:
            gain = (1.0 - unknown / cases) * (
                base - (_info(lo, n_classes, table) + _info(hi, n_classes, table)) / known)
            tries += 1
            if gain > best_gain + TOL:  # ties (to rounding) go to the first cut
                best_gain, best_p, best_low = gain, p, low
    if tries == 0:
        return -EPSILON, 0.0, np.nan
    gain = best_gain - np.log2(tries) / cases
    if gain <= 0.0:
        return -EPSILON, 0.0, np.nan
    lo[0], lo[1], lo[2] = unknown, best_low, known - best_low
    info = _info(lo, np.int64(3), table) / cases  # not Literal[int](3): a 2nd signature
    cut = 0.5 * (x[erow[ordk[best_p]]] + x[erow[ordk[best_p + 1]]])
    return gain, info, cut


@JIT
def score_nodes(lo, hi, XT, y, erow, ew, order, slot, ncat, node, starts, ends, cases,
                tested, n_classes, min_leaf, table, gain, info, cut):
    """Gain, split information and cut of every (node, feature) task ``o`` in
    ``[lo, hi)``: open node ``node[o // F]`` of the level on feature ``o % F`` (``F``
    features), into row ``o // F`` of ``gain``, ``info`` and ``cut`` (float64 [m, F];
    gain ``-EPSILON``: no split, as for a nominal feature already tested on the path).

    Parameters
    ----------
    XT : float64 [F, n]
        The columns (nominal ones as category codes, NaN missing).
    y : int32 [n]
        Class codes.
    erow, ew : int64 / float64 [M]
        The level's entries (rows and weights).
    order : int64 [n_continuous, M]
        Entry ids by value of each continuous feature, node by node.
    slot : int64 [F]
        Row of ``order`` of each continuous feature (-1 for nominal ones).
    ncat : int64 [F]
        Categories of each nominal feature (0: continuous).
    node : int64 [m]
        The level's nodes to score (the others cannot split).
    starts, ends, cases : int64 / int64 / float64 [k]
        The level's nodes' entries and their total weight.
    tested : uint8 [k, F]
        Nominal features already split on the node's path (not used again).
    n_classes : int
    min_leaf : float
        C4.5's ``MINOBJS``.
    table : float64 [m]
        :func:`xlog2x_table`.
    """
    n_features = XT.shape[0]
    max_values = 1
    for f in range(n_features):
        max_values = max(max_values, ncat[f])
    freq = np.zeros((max_values + 1, n_classes))
    vfreq = np.zeros(max_values + 1)
    lo_c = np.zeros(max(n_classes, 3))
    hi_c = np.zeros(n_classes)
    for o in range(lo, hi):
        i = o // n_features
        f = o - i * n_features
        j = node[i]
        s, e = starts[j], ends[j]
        g, v, c = -EPSILON, 0.0, np.nan
        if ncat[f] > 0:
            if tested[j, f] == 0:
                g, v = _nominal(XT[f], y, erow, ew, s, e, ncat[f], n_classes, cases[j],
                                min_leaf, freq, vfreq, lo_c, table)
        else:
            g, v, c = _continuous(XT[f], y, erow, ew, order[slot[f]], s, e, n_classes,
                                  cases[j], min_leaf, lo_c, hi_c, table)
        gain[i, f], info[i, f], cut[i, f] = g, v, c


@JIT
def choose_splits(gain, info, ncat, id3, n_items, multi_val, best):
    """``best[i]``: the feature scored node ``i`` splits on (-1: none), from the gains
    and split informations of :func:`score_nodes` (float64 [m, F]).

    ID3: the largest gain. C4.5: the largest gain ratio among the features whose gain is
    at least the average gain of the candidates (a nominal feature with ``0.3 n_items``
    values or more is left out of the average, unless every feature has that many:
    ``multi_val``). A later feature must beat the best so far by more than ``TOL``: ties
    (to rounding) go to the first.
    """
    n_features = gain.shape[1]
    for i in range(gain.shape[0]):
        g = gain[i]
        b = -1
        if id3:
            for f in range(n_features):
                if g[f] > -EPSILON and (b < 0 or g[f] > g[b] + TOL):
                    b = f
        else:
            avg = 0.0
            possible = 0
            for f in range(n_features):
                if g[f] > -EPSILON and (multi_val or ncat[f] < 0.3 * n_items):
                    avg += g[f]
                    possible += 1
            avg = avg / possible if possible > 0 else 1e6
            best_val = -EPSILON
            for f in range(n_features):
                if g[f] > -EPSILON:
                    val = g[f] / info[i, f] if (g[f] >= avg - EPSILON
                                                and info[i, f] > EPSILON) else -EPSILON
                    if val > best_val + TOL:
                        b, best_val = f, val
        best[i] = b


@JIT
def route_level(lo, hi, XT, erow, ew, starts, ends, feature, cut, ncat, branch, known_n,
                known_w):
    """The branch of every entry of the splitting nodes (``feature >= 0``) among the
    level's nodes ``[lo, hi)``: ``branch[p]`` = the category code or 0/1 (``x <= cut`` /
    above), -1 for a missing value; ``known_n[j, b]``, ``known_w[j, b]``: count and
    weight of branch ``b``'s known entries (outputs, zeros on entry)."""
    for j in range(lo, hi):
        f = feature[j]
        if f < 0:
            continue
        x = XT[f]
        for p in range(starts[j], ends[j]):
            v = x[erow[p]]
            if np.isnan(v):
                b = -1
            elif ncat[f] > 0:
                b = np.int64(v)
            else:
                b = 0 if v <= cut[j] else 1
            branch[p] = b
            if b >= 0:
                known_n[j, b] += 1
                known_w[j, b] += ew[p]


@JIT
def fill_level(lo, hi, erow, ew, order, starts, ends, feature, branch, known_n, known_w,
               child_start, new_erow, new_ew, new_order, dest):
    """The next level's entries and orders from the branches of :func:`route_level`, for
    the level's nodes ``[lo, hi)``.

    Child ``b`` of node ``j`` owns the entries from ``child_start[j, b]``: its known
    entries in the parent's entry order, then (if it has known entries) every entry
    missing the split's value, its weight times ``known_w[j, b] / sum(known_w[j])``.
    ``dest``: scratch [M].
    """
    n_branches = known_n.shape[1]
    cur = np.empty(n_branches, dtype=np.int64)
    for j in range(lo, hi):
        if feature[j] < 0:
            continue
        s, e = starts[j], ends[j]
        total = 0.0
        for b in range(n_branches):
            total += known_w[j, b]
            cur[b] = child_start[j, b]
        n_miss = 0
        for p in range(s, e):  # known entries first, missing ones get their rank
            b = branch[p]
            if b >= 0:
                q = cur[b]
                cur[b] += 1
                new_erow[q] = erow[p]
                new_ew[q] = ew[p]
                dest[p] = q
            else:
                dest[p] = -1 - n_miss
                n_miss += 1
        if n_miss:
            for p in range(s, e):
                if branch[p] < 0:
                    for b in range(n_branches):
                        if known_n[j, b] > 0:
                            q = child_start[j, b] + known_n[j, b] - 1 - dest[p]
                            new_erow[q] = erow[p]
                            new_ew[q] = ew[p] * (known_w[j, b] / total)
        for k in range(order.shape[0]):  # each child's entries in the parent's order
            ordk = order[k]
            out = new_order[k]
            for b in range(n_branches):
                cur[b] = child_start[j, b]
            for i in range(s, e):
                p = ordk[i]
                d = dest[p]
                if d >= 0:
                    b = branch[p]
                    out[cur[b]] = d
                    cur[b] += 1
                else:
                    for b in range(n_branches):
                        if known_n[j, b] > 0:
                            out[cur[b]] = child_start[j, b] + known_n[j, b] - 1 - d
                            cur[b] += 1

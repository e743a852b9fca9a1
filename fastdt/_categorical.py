"""Categorical splits: the best partition of a node's categories into left and right.

A splitter summarises a node on a categorical feature as ``m`` *groups*: one per
category present in the node (in code order), plus the rows missing the value as one
more group, last, when there are any. :func:`best_partition` then finds the subset of
groups that goes left:

* **Target ordering (Breiman).** For two classes, order the groups by their share of
  class 1; for regression, by their mean target. For any impurity that is a concave
  function of that share or mean (gini, entropy, squared error, Poisson deviance)
  the optimal binary partition is one of the ``m - 1`` cuts of that order (Breiman
  et al. 1984, 9.4; Fisher 1958), so one prefix scan finds it.
* **Multiclass, and gain ratio.** The theorem does not hold. Up to
  ``MAX_EXHAUSTIVE_GROUPS`` groups every partition is tried (``2**(m-1) - 1`` of
  them: the last group always goes right). With more groups, a heuristic: one ordering
  per class (by the share of that class; gain ratio: by the share of each class, or
  the mean), scanned like the two-class case, keeping the best cut of all of them.

The missing-value group takes part like a category, so the side of the missing rows is
learned with the partition (its group's bit). Candidates are scored by the splitters'
own :func:`fastdt._criteria.score_candidate` and must leave ``min_samples_leaf`` rows
and ``min_weight_leaf`` weight on each side. Ties keep the first candidate found
(orderings are stable: equal keys keep code order).
"""

import numpy as np

from ._config import GAIN_RATIO, MAX_EXHAUSTIVE_GROUPS
from ._jit import INLINE, JIT
from ._criteria import NO_REG, node_weight, score_candidate
from ._sampling import uniform_draw


@JIT
def best_partition(
    g_stats, g_rows, m, total, w_node, n_node, imp_node, is_clf, crit,
    min_samples_leaf, min_weight_leaf, keys, left, work, mask, reg,
):
    """Best left/right partition of ``m`` groups.

    Parameters
    ----------
    g_stats : float64 [>= m, S]
        Statistics of each group (``_criteria``'s node statistics).
    g_rows : int64 [>= m]
        Rows in each group.
    total : float64 [S]
        Statistics of the node (the sum of the groups).
    w_node, n_node, imp_node : float, int, float
        Weight, rows and impurity of the node.
    keys : float64 [>= m]
        Scratch.
    left, work : float64 [S]
        Scratch.
    mask : uint8 [>= m]
        Output: ``mask[j] = 1`` when group ``j`` goes left (valid when a split is found).
    reg : (float, float)
        L2 and L1 regularisation of the squared-error score (gradient boosting;
        ``NO_REG`` elsewhere), as :func:`fastdt._criteria.score_candidate`.

    Returns
    -------
    (proxy, n_left) : float, int
        Proxy of the best split and the rows going left; ``n_left == 0`` when no
        partition is valid.
    """
    n_stats = total.shape[0]
    best_num = -np.inf
    best_den = 1.0
    best_nl = 0
    best_code = np.int64(-1)  # exhaustive: the mask; ordering: order * m + cut
    if m < 2:
        return -np.inf, 0
    exhaustive = is_clf and (n_stats > 2 or crit == GAIN_RATIO) and m <= MAX_EXHAUSTIVE_GROUPS
    if exhaustive:
        for code in range(1, 1 << (m - 1)):
            for c in range(n_stats):
                left[c] = 0.0
            nl = 0
            for j in range(m - 1):
                if (code >> j) & 1:
                    nl += g_rows[j]
                    for c in range(n_stats):
                        left[c] += g_stats[j, c]
            num, den = _score(left, nl, total, w_node, n_node, imp_node, is_clf, crit,
                              min_samples_leaf, min_weight_leaf, work, reg)
            if num * best_den > best_num * den:
                best_num, best_den, best_nl, best_code = num, den, nl, np.int64(code)
        if best_nl > 0:
            for j in range(m):
                mask[j] = (best_code >> j) & 1 if j < m - 1 else 0
        return best_num / best_den, best_nl

    n_orders = 1 if (not is_clf or (n_stats == 2 and crit != GAIN_RATIO)) else n_stats
    for o in range(n_orders):
        order = _ordering(g_stats, m, is_clf, n_stats, o, keys)
        for c in range(n_stats):
            left[c] = 0.0
        nl = 0
        for i in range(m - 1):
            j = order[i]
            nl += g_rows[j]
            for c in range(n_stats):
                left[c] += g_stats[j, c]
            num, den = _score(left, nl, total, w_node, n_node, imp_node, is_clf, crit,
                              min_samples_leaf, min_weight_leaf, work, reg)
            if num * best_den > best_num * den:
                best_num, best_den, best_nl, best_code = num, den, nl, np.int64(o * m + i)
    if best_nl > 0:
        o = best_code // m
        cut = best_code % m
        order = _ordering(g_stats, m, is_clf, n_stats, o, keys)
        mask[:m] = 0
        for i in range(cut + 1):
            mask[order[i]] = 1
    return best_num / best_den, best_nl


@JIT
def _ordering(g_stats, m, is_clf, n_stats, o, keys):
    """Groups sorted (stably) by their share of class ``o`` (two classes: class 1), or
    by their mean target (regression)."""
    for j in range(m):
        if not is_clf:
            keys[j] = g_stats[j, 1] / g_stats[j, 0] if g_stats[j, 0] > 0.0 else 0.0
            continue
        w = 0.0
        for c in range(n_stats):
            w += g_stats[j, c]
        c = 1 if n_stats == 2 and o == 0 else o
        keys[j] = g_stats[j, c] / w if w > 0.0 else 0.0
    return stable_argsort(keys, m)


@JIT
def stable_argsort(keys, m):
    """Indices that sort ``keys[:m]``, equal keys in index order (a bottom-up merge
    sort; numba's ``argsort(kind="mergesort")`` costs seconds of compilation)."""
    order = np.empty(m, dtype=np.int64)
    tmp = np.empty(m, dtype=np.int64)
    for i in range(m):
        order[i] = i
    width = 1
    while width < m:
        for lo in range(0, m, 2 * width):
            mid = min(lo + width, m)
            hi = min(lo + 2 * width, m)
            a, b, k = lo, mid, lo
            while a < mid and b < hi:
                if keys[order[b]] < keys[order[a]]:  # strict: ties keep the left one
                    tmp[k] = order[b]
                    b += 1
                else:
                    tmp[k] = order[a]
                    a += 1
                k += 1
            while a < mid:
                tmp[k] = order[a]
                a += 1
                k += 1
            while b < hi:
                tmp[k] = order[b]
                b += 1
                k += 1
        order, tmp = tmp, order
        width *= 2
    return order


@INLINE
def _score(left, nl, total, w_node, n_node, imp_node, is_clf, crit,
           min_samples_leaf, min_weight_leaf, work, reg):
    """``(num, den)`` of a candidate with left statistics ``left`` and ``nl`` rows, or
    ``(-inf, 1)`` when it leaves too few rows or too little weight on a side."""
    wl = node_weight(is_clf, left)
    wr = w_node - wl
    if (nl < min_samples_leaf or n_node - nl < min_samples_leaf or wl < min_weight_leaf
            or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0):
        return -np.inf, 1.0
    return score_candidate(is_clf, crit, left, total, wl, wr, left[1] if not is_clf else 0.0,
                           imp_node, work, reg)


@JIT
def categorical_split(
    g_stats, g_rows, g_code, m, total, w_node, n_node, imp_node, is_clf, crit,
    min_samples_leaf, min_weight_leaf, keys, left, work, mask, words, reg,
):
    """:func:`best_partition` of ``m`` groups with codes ``g_code`` (-1: the missing
    group), and the bitset of the left categories into ``words``.

    Returns ``(proxy, n_left, non_constant)``: fewer than two groups (one category
    and no missing value, or only missing values) is a constant feature.
    """
    if m < 2:
        return -np.inf, 0, False
    proxy, nl = best_partition(
        g_stats, g_rows, m, total, w_node, n_node, imp_node, is_clf, crit,
        min_samples_leaf, min_weight_leaf, keys, left, work, mask, reg,
    )
    if nl > 0:
        set_bits(words, g_code, mask, m)
    return proxy, nl, True


# draws of a random subset before falling back to "the first group left" (each draw is
# trivial, all groups on one side, with probability 2 ** (1 - m) <= 1/2)
_SUBSET_TRIES = 32


@JIT
def random_partition(
    g_stats, g_rows, g_code, m, total, w_node, n_node, imp_node, is_clf, crit,
    min_samples_leaf, min_weight_leaf, left, work, mask, words, seed, f,
):
    """A random left/right partition of ``m`` groups (``splitter="random"``, as extremely
    randomised trees split a nominal attribute: a random non-empty proper subset of the
    values present in the node goes left). Each group goes left with probability 1/2
    (:func:`fastdt._sampling.uniform_draw` of ``seed``, ``f``); a draw with every group
    on one side is drawn again. Returns ``(proxy, n_left, non_constant)`` as
    :func:`categorical_split`; ``n_left == 0`` when the draw leaves a child below
    ``min_samples_leaf`` or ``min_weight_leaf``.
    """
    if m < 2:
        return -np.inf, 0, False
    n_in = 0
    for t in range(_SUBSET_TRIES):
        n_in = 0
        for j in range(m):
            mask[j] = 1 if uniform_draw(seed, f, 2 + t * m + j) < 0.5 else 0
            n_in += mask[j]
        if 0 < n_in < m:
            break
    if n_in == 0 or n_in == m:
        mask[0] = 1
        for j in range(1, m):
            mask[j] = 0
    left[:] = 0.0
    nl = 0
    for j in range(m):
        if mask[j]:
            nl += g_rows[j]
            for c in range(total.shape[0]):
                left[c] += g_stats[j, c]
    wl = node_weight(is_clf, left)
    wr = w_node - wl
    if (nl < min_samples_leaf or n_node - nl < min_samples_leaf or wl < min_weight_leaf
            or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0):
        return -np.inf, 0, True
    sl = 0.0 if is_clf else left[1]
    num, den = score_candidate(is_clf, crit, left, total, wl, wr, sl, imp_node, work,
                               NO_REG)
    set_bits(words, g_code, mask, m)
    return num / den, nl, True


@JIT
def set_bits(words, codes, mask, m):
    """``words`` (uint64 [W]) = the bitset of ``codes[j]`` for the groups ``j < m`` with
    ``mask[j] == 1`` (codes < 0, the missing group, are skipped)."""
    words[:] = 0
    for j in range(m):
        c = codes[j]
        if mask[j] == 1 and c >= 0:
            words[c >> 6] |= np.uint64(1) << np.uint64(c & 63)

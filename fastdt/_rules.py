"""``@njit`` kernels of :mod:`fastdt.rules`: rule-list prediction over a flat encoding,
and greedy rule post-pruning (C4.5's, on validation data or by the pessimistic error).

The flat encoding (:class:`RuleArrays`) is a table of distinct conditions and a CSR
matrix of rules over it: rule ``q`` has the conditions ``rule_cond[rule_ptr[q]:
rule_ptr[q + 1]]`` (rules extracted from one tree share the conditions of their common
ancestors). Condition ``c`` reads feature ``cond_feature[c]`` of the row:

* numeric (``cond_cat_offset[c] == -1``): holds iff ``x <= cond_threshold[c]`` when
  ``cond_le[c] == 1``, iff ``x > cond_threshold[c]`` when ``cond_le[c] == 0``;
* categorical (``cond_cat_offset[c] >= 0``): holds iff the category code is in the
  set ``S`` (``cond_le[c] == 1``: ``x in S``) or not in it (``cond_le[c] == 0``:
  ``x not in S``); code ``k`` is in ``S`` iff bit ``k & 63`` of word
  ``cond_cat_offset[c] + (k >> 6)`` of ``cat_bitsets`` is set (the tree format's layout);
* a missing value (NaN; for a categorical feature also a code outside
  ``[0, n_categories[f])``, i.e. a category unseen in training) satisfies the
  condition iff ``cond_missing[c] == 1``.

A rule covers a row when all its conditions hold; a rule list predicts the class of
the first rule that covers the row, else its default class.
"""

from math import exp, log, sqrt
from typing import NamedTuple

import numpy as np
from numba import prange

from ._config import PESSIMISTIC, VALIDATION  # noqa: F401 (the method codes)
from ._jit import INLINE, JIT, PJIT

# estimate codes of prune_rules


class RuleArrays(NamedTuple):
    """The flat encoding of a rule list (see the module docstring)."""

    rule_ptr: np.ndarray  # int64 [n_rules + 1]
    rule_cond: np.ndarray  # int64 [rule_ptr[-1]]: condition ids, in the rule's order
    rule_class: np.ndarray  # int32 [n_rules], class codes (indices into tree.classes)
    cond_feature: np.ndarray  # int32 [n_conditions]
    cond_threshold: np.ndarray  # float64 [n_conditions], NaN for categorical conditions
    cond_le: np.ndarray  # uint8 [n_conditions]: 1 for "<=" / "in", 0 for ">" / "not in"
    cond_missing: np.ndarray  # uint8 [n_conditions]: 1 if a missing value satisfies it
    cond_cat_offset: np.ndarray  # int64 [n_conditions]: -1 numeric, else a word offset
    cat_bitsets: np.ndarray  # uint64 [n_words]
    n_categories: np.ndarray  # int32 [n_features], 0 for numeric features


@INLINE
def satisfies(v, threshold, le, missing, cat_offset, n_categories, cat_bitsets):
    """True iff value ``v`` satisfies the condition given by its fields (those of
    :class:`RuleArrays` for one condition; ``le`` and ``missing`` as bools): NaN, or a
    category code outside ``[0, n_categories)``, is missing."""
    if cat_offset >= 0:
        if np.isnan(v) or v < 0 or v >= n_categories:
            return missing
        code = np.int64(v)
        word = cat_bitsets[cat_offset + (code >> 6)]
        return ((word >> np.uint64(code & 63)) & np.uint64(1) == np.uint64(1)) == le
    if np.isnan(v):
        return missing
    return (v <= threshold) == le


@INLINE
def holds(r, c, X, i):
    """True iff condition ``c`` of the encoding ``r`` holds for row ``i`` of ``X`` (the row
    is read in place: a row view per call would cost reference counting)."""
    f = r.cond_feature[c]
    return satisfies(X[i, f], r.cond_threshold[c], r.cond_le[c] == 1, r.cond_missing[c] == 1,
                     r.cond_cat_offset[c], r.n_categories[f], r.cat_bitsets)


@PJIT
def match_batch(r, X, out):
    """Index of the first rule covering each row, -1 when none does (parallel over rows).

    Parameters
    ----------
    r : RuleArrays
    X : float32 or float64 [n, n_features]
        As the tree's kernels read it (categories as codes).
    out : int64 [n]
        Output.
    """
    n_rules = r.rule_ptr.shape[0] - 1
    for i in prange(X.shape[0]):
        found = -1
        for q in range(n_rules):
            ok = True
            for t in range(r.rule_ptr[q], r.rule_ptr[q + 1]):
                if not holds(r, r.rule_cond[t], X, i):
                    ok = False
                    break
            if ok:
                found = q
                break
        out[i] = found


@JIT
def condition_bits(r, XT, bits):
    """Which rows satisfy each condition of the table, as bitsets: bit ``i & 63`` of
    ``bits[c, i >> 6]`` is set iff condition ``c`` holds for row ``i``; the bits past
    the last row are 0.

    Parameters
    ----------
    r : RuleArrays
    XT : float32 or float64 [n_features, n]
        The rows as columns (``X.T``, C-contiguous): each condition reads one feature,
        so its values are read in order.
    bits : uint64 [n_conditions, ceil(n / 64)]
        Output.
    """
    n = XT.shape[1]
    one = np.uint64(1)
    for c in range(bits.shape[0]):
        f = r.cond_feature[c]
        col = XT[f]
        t = r.cond_threshold[c]
        le = r.cond_le[c] == 1
        miss = r.cond_missing[c] == 1
        off = r.cond_cat_offset[c]
        k = r.n_categories[f]
        for w in range(bits.shape[1]):
            word = np.uint64(0)
            for b in range(min(64, n - 64 * w)):
                if satisfies(col[64 * w + b], t, le, miss, off, k, r.cat_bitsets):
                    word |= one << np.uint64(b)
            bits[c, w] = word


@INLINE
def popcount(x):
    """Number of set bits of a uint64 (no multiplication: nothing overflows)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    x = x + (x >> np.uint64(8))
    x = x + (x >> np.uint64(16))
    x = x + (x >> np.uint64(32))
    return np.int64(x & np.uint64(0x7F))


@JIT
def c45_added_errors(n, e, cf, coeff):
    """C4.5's ``AddErrs(N, e)``: the errors to add to ``e`` observed errors among ``n``
    cases to reach the upper limit of the error at confidence ``cf``.

    Transcribed from Quinlan's C4.5 Release 8 (``stats.c``): exact for ``e = 0``
    (``n (1 - cf ** (1 / n))``, the binomial limit), linear between ``e = 0`` and
    ``e = 1``, ``0.67 (n - e)`` when ``e + 0.5 >= n``, and otherwise the upper limit of
    the normal approximation (Wilson's score interval, continuity-corrected) with
    ``coeff = z ** 2``.

    Parameters
    ----------
    n, e : float
        Cases (> 0) and errors (``0 <= e <= n``).
    cf : float
        Confidence level, in (0, 1).
    coeff : float
        ``z ** 2`` for ``cf`` (:func:`fastdt.rules.c45_coefficient`).
    """
    return added_errors(n, e, cf, coeff, 0.67)


@JIT
def added_errors(n, e, cf, coeff, top):
    """:func:`c45_added_errors` with ``top (n - e)`` added errors when ``e + 0.5 >= n``
    (C4.5: ``top = 0.67``; Weka's J48, whose ``Stats.addErrs`` is otherwise the same
    computation with the exact normal quantile for ``z``: ``top = 1``)."""
    val0 = n * (1.0 - exp(log(cf) / n))
    if e < 1e-6:
        return val0
    if e < 0.9999:
        return val0 + e * (_added_errors_normal(n, 1.0, coeff, top) - val0)
    return _added_errors_normal(n, e, coeff, top)


@JIT
def _added_errors_normal(n, e, coeff, top):
    """The ``e >= 1`` branches of :func:`added_errors`."""
    if e + 0.5 >= n:
        return top * (n - e)
    pr = (e + 0.5 + coeff / 2.0
          + sqrt(coeff * ((e + 0.5) * (1.0 - (e + 0.5) / n) + coeff / 4.0))) / (n + coeff)
    return n * pr - e


@JIT
def rule_estimate(method, covered, correct, cf, coeff):
    """The accuracy estimate of a rule that covers ``covered`` (> 0) rows of which it
    classifies ``correct`` correctly: ``correct / covered`` (``VALIDATION``), or one
    minus C4.5's pessimistic error rate ``(E + AddErrs(N, E)) / N`` (``PESSIMISTIC``)."""
    if method == VALIDATION:
        return correct / covered
    n = float(covered)
    e = float(covered - correct)
    return 1.0 - (e + c45_added_errors(n, e, cf, coeff)) / n


@JIT
def prune_rules(r, bits, class_bits, n, method, cf, coeff, keep, covered, correct, estimate,
                cover):
    """Greedy condition removal, rule by rule.

    For each rule, a condition is removed while the removal that gives the highest
    accuracy estimate (:func:`rule_estimate` on the rows the generalized rule covers)
    does not lower the current estimate; ties go to the earliest condition. A rule that
    covers no row is left as it is (there is nothing to estimate).

    Rows are bits (:func:`condition_bits`), 64 to a word. With ``S_t`` the rows
    satisfying the rule's ``t``-th kept condition, the rule covers ``AND_t S_t``, and
    removing condition ``t`` adds the rows that fail ``t`` and no other kept
    condition::

        only_t = ~S_t & prefix[t] & suffix[t + 1]
        prefix[t] = S_0 & ... & S_(t-1),   suffix[t + 1] = S_(t+1) & ... & S_(m-1)

    so one greedy step is three passes over the ``m`` kept conditions' words, and a
    rule of ``k`` conditions costs ``O(k^2 n / 64)`` word operations.

    Serial on purpose, as :func:`condition_bits`: pruning an unpruned tree's rules on
    thousands of rows takes milliseconds, less than waking a thread pool costs on a
    busy machine.

    Parameters
    ----------
    r : RuleArrays
    bits : uint64 [n_conditions, n_words]
        Rows satisfying each condition of the table (:func:`condition_bits`).
    class_bits : uint64 [n_classes, n_words]
        Rows of each class, in the same layout.
    n : int
        Number of rows.
    method : int
        ``VALIDATION`` or ``PESSIMISTIC``.
    cf, coeff : float
        Confidence level and C4.5's ``z ** 2`` (pessimistic estimate only).
    keep : uint8 [rule_ptr[-1]]
        Output: 1 for the rule conditions kept (aligned with ``rule_cond``).
    covered, correct : int64 [n_rules]
        Output: rows the pruned rule covers, and of them those of its class.
    estimate : float64 [n_rules]
        Output: the pruned rule's estimate (NaN when it covers no row).
    cover : uint64 [n_rules, n_words]
        Output: the rows the pruned rule covers.
    """
    n_words = bits.shape[1]
    n_rules = r.rule_ptr.shape[0] - 1
    ones = ~np.uint64(0)
    last = ones if n % 64 == 0 else (np.uint64(1) << np.uint64(n % 64)) - np.uint64(1)
    for q in range(n_rules):
        s = r.rule_ptr[q]
        k = r.rule_ptr[q + 1] - s
        ybits = class_bits[r.rule_class[q]]
        active = np.empty(k, dtype=np.int64)  # positions (in the rule) of kept conditions
        for t in range(k):
            active[t] = t
        m = k
        prefix = np.empty((k + 1, n_words), dtype=np.uint64)
        suffix = np.empty((k + 1, n_words), dtype=np.uint64)
        while True:
            for w in range(n_words):
                prefix[0, w] = ones if w < n_words - 1 else last
                suffix[m, w] = ones
            for t in range(m):
                c = r.rule_cond[s + active[t]]
                for w in range(n_words):
                    prefix[t + 1, w] = prefix[t, w] & bits[c, w]
            cov = np.int64(0)  # not a literal: rule_estimate has one signature
            cor = np.int64(0)
            for w in range(n_words):
                cov += popcount(prefix[m, w])
                cor += popcount(prefix[m, w] & ybits[w])
            if m == 0 or cov == 0:
                break
            for t in range(m - 1, -1, -1):
                c = r.rule_cond[s + active[t]]
                for w in range(n_words):
                    suffix[t, w] = suffix[t + 1, w] & bits[c, w]
            current = rule_estimate(method, cov, cor, cf, coeff)
            best = -1
            best_est = -np.inf
            for t in range(m):
                c = r.rule_cond[s + active[t]]
                gc = np.int64(0)
                gr = np.int64(0)
                for w in range(n_words):
                    only = ~bits[c, w] & prefix[t, w] & suffix[t + 1, w]
                    gc += popcount(only)
                    gr += popcount(only & ybits[w])
                est = rule_estimate(method, cov + gc, cor + gr, cf, coeff)
                if est > best_est:
                    best = t
                    best_est = est
            if best_est < current:
                break
            for t in range(best, m - 1):
                active[t] = active[t + 1]
            m -= 1
        for t in range(k):
            keep[s + t] = 0
        for t in range(m):
            keep[s + active[t]] = 1
        for w in range(n_words):
            cover[q, w] = prefix[m, w]
        covered[q] = cov
        correct[q] = cor
        estimate[q] = rule_estimate(method, cov, cor, cf, coeff) if cov > 0 else np.nan

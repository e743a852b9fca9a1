"""``@njit`` kernels of :mod:`fastdt.rules`: rule-list prediction over a flat encoding,
and greedy rule post-pruning (C4.5's, on validation data or by the pessimistic error).

The flat encoding (:class:`RuleArrays`) is a CSR table of conditions: rule ``q`` has the
conditions ``rule_ptr[q]:rule_ptr[q + 1]``, and condition ``c`` reads feature
``cond_feature[c]`` of the row:

* numeric (``cond_cat_offset[c] == -1``): holds iff ``x <= cond_threshold[c]`` when
  ``cond_le[c] == 1``, iff ``x > cond_threshold[c]`` when ``cond_le[c] == 0``;
* categorical (``cond_cat_offset[c] >= 0``): holds iff the category code is in the
  bitset (``cond_le[c] == 1``: ``x in S``) or not in it (``cond_le[c] == 0``:
  ``x not in S``); bit ``k & 63`` of word ``cond_cat_offset[c] + (k >> 6)`` of
  ``cat_bitsets`` is set iff code ``k`` is in ``S`` (the tree format's layout);
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

from ._config import INLINE, JIT, PJIT

# estimate codes of prune_rules
VALIDATION = 0
PESSIMISTIC = 1


class RuleArrays(NamedTuple):
    """The flat encoding of a rule list (see the module docstring)."""

    rule_ptr: np.ndarray  # int64 [n_rules + 1]
    rule_class: np.ndarray  # int32 [n_rules], class codes (indices into tree.classes)
    cond_feature: np.ndarray  # int32 [n_conditions]
    cond_threshold: np.ndarray  # float64 [n_conditions], NaN for categorical conditions
    cond_le: np.ndarray  # uint8 [n_conditions]: 1 for "<=" / "in", 0 for ">" / "not in"
    cond_missing: np.ndarray  # uint8 [n_conditions]: 1 if a missing value satisfies it
    cond_cat_offset: np.ndarray  # int64 [n_conditions]: -1 numeric, else a word offset
    cat_bitsets: np.ndarray  # uint64 [n_words]
    n_categories: np.ndarray  # int32 [n_features], 0 for numeric features


@INLINE
def holds(r, c, x):
    """True iff condition ``c`` of the encoding ``r`` holds for row ``x`` (1-D float)."""
    f = r.cond_feature[c]
    v = x[f]
    off = r.cond_cat_offset[c]
    if off >= 0:
        if np.isnan(v) or v < 0 or v >= r.n_categories[f]:
            return r.cond_missing[c] == 1
        code = np.int64(v)
        word = r.cat_bitsets[off + (code >> 6)]
        inside = (word >> np.uint64(code & 63)) & np.uint64(1) == np.uint64(1)
        return inside == (r.cond_le[c] == 1)
    if np.isnan(v):
        return r.cond_missing[c] == 1
    return (v <= r.cond_threshold[c]) == (r.cond_le[c] == 1)


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
        x = X[i]
        found = -1
        for q in range(n_rules):
            ok = True
            for c in range(r.rule_ptr[q], r.rule_ptr[q + 1]):
                if not holds(r, c, x):
                    ok = False
                    break
            if ok:
                found = q
                break
        out[i] = found


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
    val0 = n * (1.0 - exp(log(cf) / n))
    if e < 1e-6:
        return val0
    if e < 0.9999:
        return val0 + e * (_added_errors_normal(n, 1.0, coeff) - val0)
    return _added_errors_normal(n, e, coeff)


@JIT
def _added_errors_normal(n, e, coeff):
    """The ``e >= 1`` branches of :func:`c45_added_errors`."""
    if e + 0.5 >= n:
        return 0.67 * (n - e)
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


@PJIT
def prune_rules(r, X, y, method, cf, coeff, keep, covered, correct, estimate):
    """Greedy condition removal, rule by rule (parallel over rules).

    For each rule, a condition is removed while the removal that gives the highest
    accuracy estimate (:func:`rule_estimate` on the rows of ``X`` the generalized rule
    covers) does not lower the current estimate; ties go to the earliest condition. A
    rule that covers no row is left as it is (there is nothing to estimate).

    The rule's conditions are evaluated once, into a ``failed[j, i]`` table. Each row
    keeps the number of kept conditions it fails and the sum of their positions, so a
    row failing exactly one condition names it: removing condition ``j`` covers the
    rows covered now plus the rows that fail only ``j``. One greedy step is therefore
    one pass over the rows (tally the single failures) plus one over the rows that
    fail the removed condition.

    Parameters
    ----------
    r : RuleArrays
    X : float32 or float64 [n, n_features]
    y : int32 [n]
        Class codes.
    method : int
        ``VALIDATION`` or ``PESSIMISTIC``.
    cf, coeff : float
        Confidence level and C4.5's ``z ** 2`` (pessimistic estimate only).
    keep : uint8 [n_conditions]
        Output: 1 for the conditions kept.
    covered, correct : int64 [n_rules]
        Output: rows the pruned rule covers, and of them those of its class.
    estimate : float64 [n_rules]
        Output: the pruned rule's estimate (NaN when it covers no row).
    """
    n = X.shape[0]
    n_rules = r.rule_ptr.shape[0] - 1
    for q in prange(n_rules):
        s = r.rule_ptr[q]
        k = r.rule_ptr[q + 1] - s
        cls = r.rule_class[q]
        failed = np.zeros((k, n), dtype=np.uint8)
        n_failed = np.zeros(n, dtype=np.int64)
        failed_sum = np.zeros(n, dtype=np.int64)
        cov = 0
        cor = 0
        for i in range(n):
            x = X[i]
            for j in range(k):
                if not holds(r, s + j, x):
                    failed[j, i] = 1
                    n_failed[i] += 1
                    failed_sum[i] += j
            if n_failed[i] == 0:
                cov += 1
                if y[i] == cls:
                    cor += 1
        alive = np.ones(k, dtype=np.uint8)
        gain_cov = np.zeros(k, dtype=np.int64)
        gain_cor = np.zeros(k, dtype=np.int64)
        n_alive = k
        while n_alive > 0 and cov > 0:
            gain_cov[:] = 0
            gain_cor[:] = 0
            for i in range(n):
                if n_failed[i] == 1:
                    j = failed_sum[i]
                    gain_cov[j] += 1
                    if y[i] == cls:
                        gain_cor[j] += 1
            current = rule_estimate(method, cov, cor, cf, coeff)
            best = -1
            best_est = -np.inf
            for j in range(k):
                if alive[j] == 1:
                    est = rule_estimate(method, cov + gain_cov[j], cor + gain_cor[j], cf, coeff)
                    if est > best_est:
                        best = j
                        best_est = est
            if best_est < current:
                break
            alive[best] = 0
            n_alive -= 1
            cov += gain_cov[best]
            cor += gain_cor[best]
            for i in range(n):
                if failed[best, i] == 1:
                    n_failed[i] -= 1
                    failed_sum[i] -= best
        for j in range(k):
            keep[s + j] = alive[j]
        covered[q] = cov
        correct[q] = cor
        estimate[q] = rule_estimate(method, cov, cor, cf, coeff) if cov > 0 else np.nan

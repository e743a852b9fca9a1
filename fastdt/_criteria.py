"""Impurity criteria as small ``@njit`` functions of sufficient statistics.

One implementation of each criterion, shared by every splitter. A node is summarised by
a row of ``stats`` (float64) and its total weight ``w``:

* classification: ``stats[c]`` is the weighted count of class ``c`` (``w = sum(stats)``);
* regression: ``stats = [sum w, sum w*y, sum w*t(y)]`` where ``t(y) = y**2`` for
  squared error and ``t(y) = y*log(y)`` for Poisson.

Split candidates are ranked by a cheap *proxy* that is a monotone function of the
impurity decrease (as scikit-learn's ``proxy_impurity_improvement``); the exact
decrease is computed for the winner only (:func:`fastdt._grow._candidates`, with
:func:`node_weights`). Formulas follow
scikit-learn's ``_criterion.pyx`` term by term (entropy in bits, Poisson deviance in
nats) so that the same split wins.
"""

import math

import numpy as np

from ._config import (
    ABSOLUTE_ERROR, ENTROPY, EPSILON, GAIN_RATIO, GINI, POISSON, SQUARED_ERROR,
)
from ._jit import INLINE, JIT

_LN2 = math.log(2.0)


@JIT
def _entropy(counts, w):
    """Entropy in bits of weighted class counts ``counts`` (float64 [C]) summing to ``w``."""
    h = 0.0
    for c in range(counts.shape[0]):
        p = counts[c]
        if p > 0.0:
            p /= w
            h -= p * (math.log(p) / _LN2)
    return h


@JIT
def _gini(counts, w):
    """Gini index of weighted class counts ``counts`` (float64 [C]) summing to ``w``."""
    sq = 0.0
    for c in range(counts.shape[0]):
        sq += counts[c] * counts[c]
    return 1.0 - sq / (w * w)


@JIT
def target_stat(crit, yv):
    """``t(y)`` of the regression statistics: ``y*log(y)`` for Poisson, else ``y**2``."""
    if crit == POISSON:
        return yv * math.log(yv) if yv > 0.0 else 0.0
    return yv * yv


@INLINE
def node_weight(is_clf, stats):
    """Total weight of a node from its statistics (the class counts' sum, or ``sum w``)."""
    if is_clf:
        w = 0.0
        for c in range(stats.shape[0]):
            w += stats[c]
        return w
    return stats[0]


@JIT
def impurity(crit, stats, w):
    """Impurity of a node from its statistics.

    Parameters
    ----------
    crit : int
        Criterion code from ``_config``.
    stats : float64 [S]
        Sufficient statistics of the node (see module docstring).
    w : float
        Total weight of the node.
    """
    if crit == GINI:
        return _gini(stats, w)
    if crit == ENTROPY or crit == GAIN_RATIO:
        return _entropy(stats, w)
    if crit == SQUARED_ERROR:
        mean = stats[1] / w
        return stats[2] / w - mean * mean
    if crit == ABSOLUTE_ERROR:  # stats: [w, absolute error, median]
        return stats[1] / w
    # POISSON: half deviance, sum w*y*log(y/mean) / w
    if stats[1] <= EPSILON:
        return np.inf
    return (stats[2] - stats[1] * math.log(stats[1] / w)) / w


@INLINE
def gini_fraction(left, total, wl, wr):
    """The gini proxy ``sum(l**2)/wl + sum(r**2)/wr`` as a fraction ``(num, den)``.

    ``num = sum(l**2)*wr + sum(r**2)*wl`` and ``den = wl*wr``: candidates are compared
    by cross-multiplication, without a division per candidate (exact ties stay ties).
    """
    sq_l = 0.0
    sq_r = 0.0
    for c in range(left.shape[0]):
        lc = left[c]
        rc = total[c] - lc
        sq_l += lc * lc
        sq_r += rc * rc
    return sq_l * wr + sq_r * wl, wl * wr


@INLINE
def gini_fraction_two(l0, l1, t0, t1, wl, wr):
    """:func:`gini_fraction` of two classes from scalars (the left weights ``l0``, ``l1``
    and the node's ``t0``, ``t1``), for a loop that keeps its sums in registers: the
    same operations in the same order, the same floats."""
    r0 = t0 - l0
    r1 = t1 - l1
    return (l0 * l0 + l1 * l1) * wr + (r0 * r0 + r1 * r1) * wl, wl * wr


@JIT
def node_weights(is_clf, crit, stats, out_w, out_imp):
    """Weight and impurity of each node from its statistics (``stats`` float64 [k, S])
    into ``out_w`` and ``out_imp`` (float64 [k])."""
    for k in range(stats.shape[0]):
        w = node_weight(is_clf, stats[k])
        out_w[k] = w
        out_imp[k] = impurity(crit, stats[k], w)


@JIT
def proxy_classification(crit, left, total, wl, wr, parent_impurity, work):
    """Proxy improvement of a classification split; larger is better.

    Gini: ``sum(l_c**2)/wl + sum(r_c**2)/wr``, which is ``w - wl*gini_l - wr*gini_r``
    (scikit-learn's proxy up to the constant ``w``). Entropy: ``-wl*H_l - wr*H_r``.
    Gain ratio: C4.5's information gain divided by the split information.

    Parameters
    ----------
    left, total : float64 [C]
        Weighted class counts of the left child and of the node.
    wl, wr : float
        Weights of the left and right child (both > 0).
    parent_impurity : float
        Entropy of the node (used by gain ratio only).
    work : float64 [C]
        Scratch space for the right child's counts.
    """
    if crit == GINI:
        num, den = gini_fraction(left, total, wl, wr)
        return num / den
    for c in range(left.shape[0]):
        work[c] = total[c] - left[c]
    hl = _entropy(left, wl)
    hr = _entropy(work, wr)
    if crit == ENTROPY:
        return -wr * hr - wl * hl
    # GAIN_RATIO: information gain / split information (C4.5)
    w = wl + wr
    pl = wl / w
    pr = wr / w
    split_info = -(pl * math.log(pl) + pr * math.log(pr)) / _LN2
    gain = parent_impurity - pl * hl - pr * hr
    return gain / split_info


@JIT
def proxy_regression(crit, sl, wl, sr, wr):
    """Proxy improvement of a regression split from the left/right sums of ``w*y``."""
    if crit == SQUARED_ERROR:
        return sl * sl / wl + sr * sr / wr
    # POISSON
    if sl <= EPSILON or sr <= EPSILON:
        return -np.inf
    return sl * math.log(sl / wl) + sr * math.log(sr / wr)


NO_REG = (0.0, 0.0)  # no (lambda, alpha) regularisation: every tree but boosting's


def regularised(s, w, reg):
    """``(T(s), w + lambda)`` of arrays of sums ``s`` and weights ``w`` under
    ``reg = (lambda, alpha)``, ``T(s) = sign(s) max(|s| - alpha, 0)``: a node's regularised
    value is their ratio and its share of the gain ``T(s)^2 / (w + lambda)`` (what
    :func:`score_candidate` computes per candidate, outside the kernels)."""
    lam, alpha = reg
    return np.sign(s) * np.maximum(np.abs(s) - alpha, 0.0), w + lam


@INLINE
def soft_threshold(s, alpha):
    """``sign(s) max(|s| - alpha, 0)``: a sum of gradients under L1 regularisation."""
    if s > alpha:
        return s - alpha
    if s < -alpha:
        return s + alpha
    return 0.0


@INLINE
def score_candidate(is_clf, crit, left, total, wl, wr, sl, parent_impurity, work, reg):
    """Proxy of one split candidate as a fraction ``(num, den)`` with ``den > 0``.

    The one scoring rule of every splitter: candidate ``a`` beats ``b`` when
    ``num_a * den_b > num_b * den_a`` (for every criterion but gini ``den`` is 1, so
    this is ``num_a > num_b``). ``left``/``total`` are class counts (classification),
    ``sl`` the left sum of ``w*y`` and ``total[1]`` the node's (regression).
    ``reg = (lambda, alpha)``: gradient boosting's L2 and L1 regularisation of the
    squared-error score (:data:`NO_REG` elsewhere), ``T(S_L)^2 / (W_L + lambda) +
    T(S_R)^2 / (W_R + lambda)`` with ``T(s) = sign(s) max(|s| - alpha, 0)`` (LightGBM's).
    """
    if is_clf:
        if crit == GINI:
            return gini_fraction(left, total, wl, wr)
        return proxy_classification(crit, left, total, wl, wr, parent_impurity, work), 1.0
    return regression_score(crit, sl, total[1], wl + reg[0], wr + reg[0], reg), 1.0


@INLINE
def regression_score(crit, sl, total_s, dl, dr, reg):
    """:func:`score_candidate`'s regression proxy from the left sum ``sl`` of ``w*y``,
    the node's ``total_s`` and the sides' divisors ``dl``, ``dr`` (their weights plus
    ``reg[0]``), both sums soft-thresholded by ``reg[1]``: also called from a loop that
    keeps its sums in registers (:func:`fastdt._hist_scan._scan_bins`)."""
    sr = total_s - sl
    if reg[1] > 0.0:
        sl = soft_threshold(sl, reg[1])
        sr = soft_threshold(sr, reg[1])
    return proxy_regression(crit, sl, dl, sr, dr)


def log_criterion(is_clf, crit):
    """The classification criterion ``crit`` when its score takes logarithms (entropy,
    log loss, gain ratio), else None (gini, and every regression criterion).

    The numeric scans (:func:`fastdt._hist_scan._scan_bins`,
    :func:`fastdt._exact_scan._scan_segment`) take it as an argument: None prunes those
    scores from their loops before numba types them, which keeps gini's and the
    regression scores' loops free of calls. A loop holding a call on a path never
    taken ran 2 to 5 times slower per candidate (its running sums no longer stayed in
    registers); a fit with such a criterion compiles a second signature of the scans.
    """
    return crit if is_clf and crit != GINI else None


def reg_criterion(is_clf, crit):
    """The criterion ``crit`` of a regression, else None: the exact numeric scan
    (:func:`fastdt._exact_scan._scan_segment`) prunes the regression score from a
    classification's loop (about 0.5 s less to compile; a regression compiles a
    signature of its own), as :func:`log_criterion` the log scores."""
    return None if is_clf else crit


@JIT
def monotone_ok(is_clf, cst, left, total, wl, wr, sl, lower, upper, reg):
    """Whether a candidate keeps a monotonic constraint (scikit-learn's rule): the
    children's values (class 0's fraction, or the mean of ``y``) lie in the node's
    bounds ``[lower, upper]`` and ``(v_left - v_right) * cst <= 0``. For classification
    ``cst`` is already flipped to class 0 (the constraint is on class 1). Called only
    for constrained features, so a call (not inlined) costs nothing elsewhere and keeps
    the scans' compilation smaller. ``reg``: the values are gradient boosting's
    regularised leaves ``T(S) / (W + lambda)`` (:func:`score_candidate`)."""
    if is_clf:
        vl = left[0] / wl
        vr = (total[0] - left[0]) / wr
    else:
        vl = soft_threshold(sl, reg[1]) / (wl + reg[0])
        vr = soft_threshold(total[1] - sl, reg[1]) / (wr + reg[0])
    return (vl >= lower and vr >= lower and vl <= upper and vr <= upper
            and (vl - vr) * cst <= 0)


@JIT
def missing_right_score(is_clf, crit, total, miss, w_node, w_miss, min_weight_leaf, mono, f,
                        lower, upper, imp_node, left, work, reg):
    """The candidate "every present value left, the missing ones right" of every
    splitter, as a fraction ``(num, den)``: ``(-inf, 1)`` when a child is below
    ``min_weight_leaf`` or the split breaks a monotonic constraint (``mono`` None: none).
    ``left`` and ``work`` are scratch; ``reg`` as :func:`score_candidate`."""
    for c in range(total.shape[0]):
        left[c] = total[c] - miss[c]
    wl = w_node - w_miss
    wr = w_miss
    sl = 0.0 if is_clf else total[1] - miss[1]
    if (wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0
            or (mono is not None and mono[f] != 0 and not monotone_ok(
                is_clf, mono[f], left, total, wl, wr, sl, lower, upper, reg))):
        return -np.inf, 1.0
    return score_candidate(is_clf, crit, left, total, wl, wr, sl, imp_node, work, reg)


@INLINE
def split_threshold(x0, x1):
    """Threshold between two neighbouring values ``x0 < x1``: their float64 midpoint, or
    ``x0`` when rounding reaches ``x1`` (so that ``x <= threshold`` keeps ``x0`` left and
    ``x1`` right, in float32 as in float64)."""
    thr = np.float64(x0) / 2.0 + np.float64(x1) / 2.0
    if thr >= x1:
        thr = np.float64(x0)
    return thr


@JIT
def present_score(is_clf, crit, proxy, stats_p, w_p, wl, w_miss):
    """Score of a split found on the rows where its feature is present, comparable
    across features with different missing rows (``missing="fractional"`` or
    ``"surrogate"``; C4.5's and rpart's rule: the split is judged on the known values
    and weighted by their share).

    ``proxy`` is the candidate's proxy on the present rows (statistics ``stats_p``,
    weight ``w_p``, ``wl`` of it going left), ``w_miss`` the weight of the rows
    missing the feature. Returns the weighted impurity decrease on the present rows,
    ``w_p * I(present) - wl * I(left) - wr * I(right)`` (the proxy minus its parent
    term), or for gain ratio C4.5's ``(w_p / w) * gain / split_info`` with the missing
    rows as a third branch of the split information.
    """
    if is_clf and crit == GAIN_RATIO:
        wr = w_p - wl
        gain = proxy * _split_info(wl / w_p, wr / w_p, 0.0)
        w = w_p + w_miss
        return (w_p / w) * gain / _split_info(wl / w, wr / w, w_miss / w)
    if is_clf:
        if crit == GINI:
            sq = 0.0
            for c in range(stats_p.shape[0]):
                sq += stats_p[c] * stats_p[c]
            return proxy - sq / w_p
        return proxy + w_p * _entropy(stats_p, w_p)
    if crit == SQUARED_ERROR:
        return proxy - stats_p[1] * stats_p[1] / w_p
    # POISSON: proxy - s log(s / w)
    if stats_p[1] <= EPSILON:
        return -np.inf
    return proxy - stats_p[1] * math.log(stats_p[1] / w_p)


@JIT
def _split_info(pl, pr, pm):
    """Split information in bits of branch shares ``pl``, ``pr``, ``pm`` (0 terms skipped)."""
    h = 0.0
    for p in (pl, pr, pm):
        if p > 0.0:
            h -= p * math.log(p) / _LN2
    return h

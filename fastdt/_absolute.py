"""``criterion="absolute_error"``: weighted-median leaves, splits in O(n log n) per node.

The absolute error of a set of rows is ``sum w |y - m|`` around its weighted median
``m``; it has no sufficient statistics, so the exact splitter scores a node's candidates
for one feature with two passes over the node's rows in that feature's order (as
scikit-learn's ``MAE`` criterion since 1.9, whose numbers these are, operation for
operation):

* each row is *activated* at its rank among the node's targets in a Fenwick tree of
  prefix sums of ``w`` and ``w*y`` (:func:`_add`); the weighted median is found by a
  descent for half the total weight (:func:`_median`), and the absolute error from the
  prefix sums: ``(wy_right - m*w_right) + (m*w_left - wy_left)``;
* the forward pass gives the error of every prefix (left child), the backward pass that
  of every suffix (right child); with missing values, passes that start with the
  missing rows give the children that take them.

A node's ranks come from a copy of the layout sorted by the target (one row, partitioned
each level like the features): within a node's range it is sorted by ``y``, so a row's
rank is its position minus the range's start
(:func:`fastdt._exact_scan.node_ranks`). Statistics of a node
are ``[w, absolute error, median]`` (:mod:`fastdt._criteria`).
"""

import numpy as np

from ._config import FEATURE_THRESHOLD
from ._criteria import split_threshold
from ._jit import JIT
from ._sampling import random_threshold


@JIT
def _add(fw, fwy, size, rank, y, w):
    """Activate a row of rank ``rank`` (0-based) with target ``y`` and weight ``w``."""
    wy = w * y
    j = rank + 1
    while j <= size:
        fw[j] += w
        fwy[j] += wy
        j += j & -j
    return wy


@JIT
def _median(fw, fwy, size, top, half, ysort, a, tot_w, tot_wy):
    """``(median, absolute error)`` of the active rows: the smallest rank whose
    cumulative weight exceeds ``half``; when a prefix weighs exactly ``half``, the mean
    of the targets on either side of it."""
    cur = 0
    cw = 0.0
    cwy = 0.0
    bit = top
    target = half
    exact = False
    while bit != 0:
        nxt = cur + bit
        if nxt <= size:
            nw = fw[nxt]
            if target == nw:
                exact = True
                break
            if target > nw:
                target -= nw
                cur = nxt
                cw += nw
                cwy += fwy[nxt]
        bit >>= 1
    if exact:
        eq_bit = bit
        eq_target = target
        prev = cur  # the largest rank whose cumulative weight is below half
        while bit != 0:
            nxt = prev + bit
            if nxt <= size:
                nw = fw[nxt]
                if target > nw:
                    target -= nw
                    prev = nxt
            bit >>= 1
        bit = eq_bit
        target = eq_target
        while bit != 0:
            nxt = cur + bit
            if nxt <= size:
                nw = fw[nxt]
                if target >= nw:
                    target -= nw
                    cur = nxt
                    cw += nw
                    cwy += fwy[nxt]
            bit >>= 1
    else:
        prev = cur
    if cur != prev:
        med = (ysort[a + prev] + ysort[a + cur]) / 2
    else:
        med = ysort[a + cur]
    w_right = tot_w - cw
    wy_right = tot_wy - cwy
    return med, (wy_right - med * w_right) + (med * cw - cwy)


@JIT
def _pass(idx_f, ws_f, weighted, rank, ysort, a, size, pre_lo, pre_hi, lo, hi, step,
          fw, fwy, out_ae, out_med):
    """Activate the rows at positions ``[pre_lo, pre_hi)`` (no output), then those from
    ``lo`` towards ``hi`` (exclusive) by ``step``, writing the error and median of the
    active rows after each into ``out_ae``/``out_med`` at the row's offset ``p - a``."""
    for j in range(size + 1):  # an empty tree of `size` ranks
        fw[j] = 0.0
        fwy[j] = 0.0
    top = 1  # the largest power of two <= size
    while top <= size:
        top <<= 1
    top >>= 1
    tot_w = 0.0
    tot_wy = 0.0
    for p in range(pre_lo, pre_hi):
        i = idx_f[p]
        w = ws_f[p] if weighted else 1.0
        r = rank[i]
        tot_wy += _add(fw, fwy, size, r, ysort[a + r], w)
        tot_w += w
    p = lo
    while p != hi:
        i = idx_f[p]
        w = ws_f[p] if weighted else 1.0
        r = rank[i]
        tot_wy += _add(fw, fwy, size, r, ysort[a + r], w)
        tot_w += w
        med, ae = _median(fw, fwy, size, top, 0.5 * tot_w, ysort, a, tot_w, tot_wy)
        out_ae[p - a] = ae
        out_med[p - a] = med
        p += step


@JIT
def scan_absolute(
    xs_f, idx_f, ws_f, weighted, a, b, w_node, min_samples_leaf, min_weight_leaf, rank,
    ysort, fw, fwy, f_ae, f_med, fm_ae, fm_med, b_ae, b_med, bm_ae, bm_med, out,
    random, u_thr, u_side,
):
    """Best split of one node on one numeric feature under absolute error (or, with
    ``random``, the split at a threshold drawn by ``u_thr``, missing rows left when
    ``u_side < 0.5``, as :func:`fastdt._exact_scan._scan_random`).

    The candidates, their order and the missing-value rules are
    :func:`fastdt._exact_scan._scan_segment`'s; the proxy is scikit-learn's,
    ``-w_r * (AE_r / w_r) - w_l * (AE_l / w_l)``. Returns ``(proxy, n_left, threshold,
    non_constant, missing_left)`` and writes the best candidate's children
    ``(AE_l, median_l, AE_r, median_r)`` into ``out``. The other arrays are scratch
    sized for the node (the ``*_ae``/``*_med`` pairs hold the forward and backward
    passes, without and with the missing rows).
    """
    e = b
    while e > a and np.isnan(xs_f[e - 1]):
        e -= 1
    n_node = b - a
    n_miss = b - e
    lo_x = np.float64(xs_f[a]) if e > a else 0.0
    hi_x = np.float64(xs_f[e - 1]) if e > a else 0.0
    if e == a or (n_miss == 0 and hi_x <= lo_x + FEATURE_THRESHOLD):
        return -np.inf, 0, np.nan, False, -1
    size = n_node
    fwd = np.int64(1)  # steps as variables: a literal would compile a variant of its own
    bwd = np.int64(-1)
    # forward: prefixes (left children); backward: suffixes (right children)
    _pass(idx_f, ws_f, weighted, rank, ysort, a, size, a, a, a, e, fwd, fw, fwy, f_ae, f_med)
    _pass(idx_f, ws_f, weighted, rank, ysort, a, size, a, a, e - 1, a - 1, bwd, fw, fwy,
          b_ae, b_med)
    ae_miss = 0.0
    med_miss = 0.0
    w_miss = 0.0
    if n_miss:  # the same passes with the missing rows activated first
        _pass(idx_f, ws_f, weighted, rank, ysort, a, size, e, b, a, e, fwd, fw, fwy, fm_ae,
              fm_med)
        _pass(idx_f, ws_f, weighted, rank, ysort, a, size, e, b, e - 1, a - 1, bwd, fw, fwy,
              bm_ae, bm_med)
        # the missing rows alone, into the slots after the present ones
        _pass(idx_f, ws_f, weighted, rank, ysort, a, size, a, a, e, b, fwd, fw, fwy, fm_ae,
              fm_med)
        ae_miss = fm_ae[b - 1 - a]
        med_miss = fm_med[b - 1 - a]
        for p in range(e, b):
            w_miss += ws_f[p] if weighted else 1.0
    if random:
        thr = random_threshold(lo_x, hi_x, u_thr)
        mgl = 1 if (n_miss and u_side < 0.5) else 0
        q = a  # the last present row going left
        wl = ws_f[a] if weighted else 1.0
        while q + 1 < e and xs_f[q + 1] <= thr:
            q += 1
            wl += ws_f[q] if weighted else 1.0
        nl = q - a + 1
        if mgl:
            wl += w_miss
            nl += n_miss
            ae_l, med_l = fm_ae[q - a], fm_med[q - a]
            ae_r, med_r = (b_ae[q + 1 - a], b_med[q + 1 - a]) if q + 1 < e else (0.0, 0.0)
        else:
            ae_l, med_l = f_ae[q - a], f_med[q - a]
            if q + 1 == e:
                ae_r, med_r = ae_miss, med_miss
            elif n_miss:
                ae_r, med_r = bm_ae[q + 1 - a], bm_med[q + 1 - a]
            else:
                ae_r, med_r = b_ae[q + 1 - a], b_med[q + 1 - a]
        wr = w_node - wl
        if (nl < min_samples_leaf or n_node - nl < min_samples_leaf or wl < min_weight_leaf
                or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0):
            return -np.inf, 0, thr, True, -1
        out[0], out[1], out[2], out[3] = ae_l, med_l, ae_r, med_r
        return (-wr * (ae_r / wr) - wl * (ae_l / wl), nl, thr, True,
                mgl if n_miss else -1)
    best = -np.inf
    best_nl = 0
    best_thr = np.nan
    best_mgl = -1
    n_pass = 2 if n_miss else 1
    for missing_left in range(n_pass):
        wl = w_miss if missing_left else 0.0
        nl = n_miss if missing_left else 0
        for p in range(a, e - 1):
            wl += ws_f[p] if weighted else 1.0
            nl += 1
            if nl < min_samples_leaf or n_node - nl < min_samples_leaf:
                continue
            if xs_f[p + 1] <= xs_f[p] + FEATURE_THRESHOLD:
                continue
            wr = w_node - wl
            if wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0:
                continue
            if missing_left:
                ae_l, med_l = fm_ae[p - a], fm_med[p - a]
                ae_r, med_r = b_ae[p + 1 - a], b_med[p + 1 - a]
            else:
                ae_l, med_l = f_ae[p - a], f_med[p - a]
                if n_miss:
                    ae_r, med_r = bm_ae[p + 1 - a], bm_med[p + 1 - a]
                else:
                    ae_r, med_r = b_ae[p + 1 - a], b_med[p + 1 - a]
            proxy = -wr * (ae_r / wr) - wl * (ae_l / wl)
            if proxy > best:
                best = proxy
                best_nl = nl
                best_thr = split_threshold(xs_f[p], xs_f[p + 1])
                best_mgl = missing_left if n_miss else -1
                out[0], out[1], out[2], out[3] = ae_l, med_l, ae_r, med_r
        if (n_pass == 2 and not missing_left and n_node - n_miss >= min_samples_leaf
                and n_miss >= min_samples_leaf):
            # every present value left, the missing ones right
            wl = w_node - w_miss
            wr = w_miss
            if not (wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0):
                ae_l, med_l = f_ae[e - 1 - a], f_med[e - 1 - a]
                proxy = -wr * (ae_miss / wr) - wl * (ae_l / wl)
                if proxy > best:
                    best = proxy
                    best_nl = n_node - n_miss
                    best_thr = np.inf
                    best_mgl = 0
                    out[0], out[1], out[2], out[3] = ae_l, med_l, ae_miss, med_miss
    return best, best_nl, best_thr, True, best_mgl


@JIT
def root_absolute(idx_y, ys_y, ws_y, rank, out):
    """``out = [w, absolute error, median]`` of every row (a pass in target order)."""
    n = idx_y.shape[0]
    weighted = ws_y.shape[0] == n
    for p in range(n):
        rank[idx_y[p]] = p
    fw = np.empty(n + 1)
    fwy = np.empty(n + 1)
    ae = np.empty(n)
    med = np.empty(n)
    zero = np.int64(0)  # variables, not literals: one compiled signature of _pass
    _pass(idx_y, ws_y, weighted, rank, ys_y, zero, n, zero, zero, zero, n, np.int64(1), fw,
          fwy, ae, med)
    w = 0.0
    for p in range(n):
        w += ws_y[p] if weighted else 1.0
    out[0] = w
    out[1] = ae[n - 1]
    out[2] = med[n - 1]

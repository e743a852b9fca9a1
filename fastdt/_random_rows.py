"""Random splits from rows (``splitter="random"`` on numeric data): no presorted layout.

A random split needs, per (node, feature), the range of the node's present values and
the statistics of the rows at or below one drawn threshold: two passes over the node's
rows, no order. So this splitter keeps only the rows: each node owns a range of
``order`` (row ids), and a node reads, from the rows of X, only the features it visits
(``max_features`` of them in the node's random order, :func:`fastdt._sampling.next_feature`,
and further ones while all visited are constant, as scikit-learn): a level costs time in
proportion to its rows times the features visited, not times every feature (the
presorted splitter moves every feature's rows at every level). It reads the columns
of X (a copy of ``X.T``, made once per preparation) while a node's rows are dense in
them, and the rows of X once they lie far apart (a row's cache line then serves every
feature the node visits). A node of fewer than ``_SMALL`` rows has its rows' values at
its own positions (``XP``, a copy of the tree's rows in the order of ``order``: gathered
once when its parent splits, then moved with the rows), as the targets and weights of
every node are (``yp``, ``wp``): deep nodes read memory in order, not row by row from
all of X. A node is split as soon as its split is drawn,
from the winning feature's values still at hand: the children's statistics and the
stable partition of its range of ``order`` cost no second read of X. The draws, the
thresholds and the choice are those of :class:`fastdt._exact.ExactSplitter` with
``random_seed`` (:func:`fastdt._exact_scan._scan_random`, :func:`fastdt._grow.choose`):
the same trees (classification; regression up to the order of the sums).

Used by ``splitter="random"`` when every feature is numeric, missing values are learnt,
the tree has one output and the criterion is not absolute error (the engine decides,
:func:`usable`); the other random fits keep the presorted splitter.
"""

import numpy as np

from ._config import ABSOLUTE_ERROR, FEATURE_THRESHOLD
from ._criteria import NO_REG, monotone_ok, score_candidate
from ._grow import Splits, pool_of
from ._jit import INLINE, JIT, NOREF
from ._parallel import run
from ._sampling import next_feature, random_threshold, start_order, uniform_draw, \
    visited_enough
from ._sparse import rows_root
from ._sparse_scan import add_entry, add_row

#: A node whose rows are fewer than one in this many of the column's reads its values
#: from the rows of X (see :func:`_random_split`).
_SPARSE = 16

#: A node of fewer rows than this keeps its rows' values at its positions, moved with
#: them when it splits (see :func:`_random_split`).
_SMALL = 16384


def usable(prep):
    """Whether a prepared fit can take this splitter."""
    return (prep.splitter == "random" and prep.X is not None and prep.mode == 0
            and prep.ymul is None and not prep.n_categories.any()
            and prep.crit != ABSOLUTE_ERROR)


@INLINE
def _range4(xf, n):
    """``(lo, hi, n_miss)`` of ``xf[:n]``: the range of its values other than NaN, and
    the number of NaN.

    The range is kept in four pairs of accumulators, each value taking its turn: one
    pair is a chain of dependent minima and maxima, a few cycles a value, which four
    overlap (extra trees about 0.9x the fit time with the node loop's other changes).
    A NaN fails both comparisons, so it is skipped without a branch. (The minimum of
    the same values in another order is the same value; only ``-0.0`` against ``0.0``
    may come out either way, which no comparison with a threshold tells apart.)"""
    lo0 = lo1 = lo2 = lo3 = np.inf
    hi0 = hi1 = hi2 = hi3 = -np.inf
    n_miss = np.int64(0)
    end4 = n - n % 4
    for i in range(0, end4, 4):
        q = np.uint64(i)
        x0 = xf[q]
        x1 = xf[q + np.uint64(1)]
        x2 = xf[q + np.uint64(2)]
        x3 = xf[q + np.uint64(3)]
        n_miss += (np.int64(x0 != x0) + np.int64(x1 != x1)) + (np.int64(x2 != x2)
                                                              + np.int64(x3 != x3))
        lo0 = x0 if x0 < lo0 else lo0
        hi0 = x0 if x0 > hi0 else hi0
        lo1 = x1 if x1 < lo1 else lo1
        hi1 = x1 if x1 > hi1 else hi1
        lo2 = x2 if x2 < lo2 else lo2
        hi2 = x2 if x2 > hi2 else hi2
        lo3 = x3 if x3 < lo3 else lo3
        hi3 = x3 if x3 > hi3 else hi3
    for i in range(end4, n):
        x0 = xf[np.uint64(i)]
        n_miss += np.int64(x0 != x0)
        lo0 = x0 if x0 < lo0 else lo0
        hi0 = x0 if x0 > hi0 else hi0
    lo0 = lo1 if lo1 < lo0 else lo0
    lo2 = lo3 if lo3 < lo2 else lo2
    hi0 = hi1 if hi1 > hi0 else hi0
    hi2 = hi3 if hi3 > hi2 else hi2
    return (lo2 if lo2 < lo0 else lo0), (hi2 if hi2 > hi0 else hi0), n_miss


@INLINE
def _random_split(XT, XR, XP, small, order, a, b, f, yk, wk, weighted, is_clf, crit, total,
                  w_node, imp_node, msl, mwl, u_thr, u_side, mono, lower, upper, left, work,
                  miss, xf):
    """One random split of the node's rows ``order[a:b]`` on feature ``f`` (``yk``,
    ``wk``: their targets and weights, copied once per node; ``xf``: scratch for their
    values, gathered here from ``XT`` or ``XR``, or read from ``XP`` for a node of fewer
    than ``small`` rows, so that the second pass reads memory in order; their range,
    :func:`_range4`): as :func:`fastdt._exact_scan._scan_random`. Returns
    ``(proxy, n_left, threshold, non_constant, missing_left)``.

    Inlined into :func:`_split_range`, which calls it for every feature a node visits: a
    call cost about 0.1 us (a dozen arrays passed with their reference counts), as much
    as scanning a few dozen rows, and the nodes of deep trees hold a few dozen rows
    (the kernel of extra trees on Adult about 7% faster; about 1 s more to compile)."""
    for c in range(miss.shape[0]):
        miss[c] = 0.0
    w_miss = 0.0
    n_node = b - a
    base = np.uint64(a)
    if n_node < small:  # the node's rows' values are at its positions
        for i in range(n_node):
            xf[np.uint64(i)] = np.float64(XP[base + np.uint64(i), f])
    elif n_node * _SPARSE < XT.shape[1]:
        # the node's rows lie far apart: a row's cache line, fetched from the rows of X
        # for the node's first feature, still holds its other features for the next
        for i in range(n_node):
            xf[np.uint64(i)] = np.float64(XR[np.uint64(order[base + np.uint64(i)]), f])
    else:  # dense: the node streams through the feature's column
        for i in range(n_node):
            xf[np.uint64(i)] = np.float64(XT[f, np.uint64(order[base + np.uint64(i)])])
    lo, hi, n_miss = _range4(xf, n_node)
    if n_miss:  # the missing rows' statistics, in the rows' order
        for i in range(n_node):
            if xf[i] != xf[i]:
                wi = wk[i] if weighted else 1.0
                w_miss += wi
                if is_clf:
                    miss[np.uint64(yk[i])] += wi
                else:
                    miss[0] += wi
                    miss[1] += wi * yk[i]
    if n_miss == n_node or (n_miss == 0 and hi <= lo + FEATURE_THRESHOLD):
        return -np.inf, 0, np.nan, False, -1
    thr = random_threshold(lo, hi, u_thr)
    mgl = 1 if (n_miss and u_side < 0.5) else 0
    for c in range(left.shape[0]):
        left[c] = miss[c] if mgl else 0.0
    wl = w_miss if mgl else 0.0
    sl = miss[1] if mgl and not is_clf else 0.0
    nl = n_miss if mgl else 0
    if is_clf and left.shape[0] == 2 and not weighted:
        # unit weights: the sums are counts, exact in any order, so they are counted in
        # integers, which LLVM vectorises (the float sums' chain of additions it may not
        # reorder); the same values, bit for bit
        c = 0
        c1 = 0
        for i in range(n_node):
            q = np.uint64(i)
            on = np.int64(xf[q] <= thr)  # NaN compares False
            c += on
            c1 += on & np.int64(yk[q] != 0.0)
        left[0] += c - c1
        left[1] += c1
        wl += c
        nl += c
    elif is_clf and left.shape[0] == 2:  # branch-free: the side of a row is unpredictable
        l0 = left[0]
        l1 = left[1]
        for i in range(n_node):
            on = 1.0 if xf[i] <= thr else 0.0  # NaN compares False
            wm = (wk[i] if weighted else 1.0) * on
            wy = wm * yk[i]  # y is 0 or 1: exactly wm or 0, the sums are those of the
            l1 += wy         # branch below (adding zeros changes no sum)
            l0 += wm - wy
            wl += wm
            nl += np.int64(on)
        left[0] = l0
        left[1] = l1
    else:
        for i in range(n_node):
            if xf[i] <= thr:  # NaN compares False
                wi = wk[i] if weighted else 1.0
                wl += wi
                nl += 1
                sl += add_entry(is_clf, left, yk[i], wi)
    wr = w_node - wl
    if (nl < msl or n_node - nl < msl or wl < mwl or wr < mwl or wl <= 0.0 or wr <= 0.0
            or (mono is not None and mono[f] != 0 and not monotone_ok(
                is_clf, mono[f], left, total, wl, wr, sl, lower, upper, NO_REG))):
        return -np.inf, 0, thr, True, -1
    num, den = score_candidate(is_clf, crit, left, total, wl, wr, sl, imp_node, work,
                               NO_REG)
    return num / den, nl, thr, True, (mgl if n_miss else -1)


@JIT
def split_nodes(lo, hi, XT, XR, XP, small, order, starts, ends, yp, wp, is_clf, crit, msl,
                mwl, stats, w_node, imp, rseed, fseed, max_features, pool, mono, bounds,
                out_feat, out_thr, out_mgl, lst, rst, n_left, n_right):
    """The random split of each node ``[lo, hi)``: the features of ``pool`` (int64 [P],
    those the tree may use) visited in its random order (all of them, in index order,
    when ``max_features`` reaches their number),
    the best drawn split kept (ties: the first visited). ``out_feat`` -1: none valid.

    A node with a split is split at once: the statistics and rows of both children
    (``lst``, ``rst``, ``n_left``, ``n_right``, summed in the rows' order) and its range of
    ``order`` partitioned, stably, left child's rows first, with the targets and weights
    by position ``yp``, ``wp`` (``wp`` empty: all 1) and the values ``XP`` of the nodes of
    fewer than ``small`` rows (:func:`_split_rows`); the values of the winning feature
    are still at hand, so no row is read again.

    This function makes the scratch; :func:`_split_range` runs the loop, compiled without
    reference counting: numba otherwise counts a reference for every array passed to
    :func:`_split_rows` and every view (``stats[k]``), per node (about 4% of a forest
    of extra trees in ``NRT_incref`` and ``NRT_decref``)."""
    weighted = wp.shape[0] > 0
    n_stats = stats.shape[1]
    left = np.empty(n_stats)
    work = np.empty(n_stats)
    miss = np.zeros(max(n_stats, 2))
    perm = np.empty(pool.shape[0], dtype=np.int64)
    state = np.empty(1, dtype=np.uint64)
    most = 0
    for k in range(lo, hi):
        most = max(most, ends[k] - starts[k])
    yk = np.empty(most)
    wk = np.empty(most if weighted else 0)
    xf = np.empty(most)  # the values of the feature being drawn
    xb = np.empty(most)  # the values of the best feature so far
    right = np.empty(most, dtype=order.dtype)
    right_y = np.empty(most)
    right_w = np.empty(most if weighted else 0)
    right_x = np.empty((min(most, small), XP.shape[1]), dtype=XP.dtype)
    draws = np.zeros(2)
    _split_range(lo, hi, XT, XR, XP, small, order, starts, ends, yp, wp, is_clf, crit, msl,
                 mwl, stats, w_node, imp, rseed, fseed, max_features, pool, mono, bounds,
                 out_feat, out_thr, out_mgl, lst, rst, n_left, n_right, left, work, miss, perm,
                 state, yk, wk, xf, xb, right, right_y, right_w, right_x, draws)


@NOREF
def _split_range(lo, hi, XT, XR, XP, small, order, starts, ends, yp, wp, is_clf, crit, msl,
                 mwl, stats, w_node, imp, rseed, fseed, max_features, pool, mono, bounds,
                 out_feat, out_thr, out_mgl, lst, rst, n_left, n_right, left, work, miss, perm,
                 state, yk, wk, xf, xb, right, right_y, right_w, right_x, draws):
    """The loop of :func:`split_nodes` over its nodes, with its scratch (``left`` to
    ``draws``)."""
    weighted = wp.shape[0] > 0
    n_pool = pool.shape[0]
    every = max_features >= n_pool
    for k in range(lo, hi):
        a = starts[k]
        n_node = ends[k] - a
        base = np.uint64(a)
        for i in range(np.uint64(n_node)):  # unsigned: no test for a negative index
            yk[i] = yp[base + i]
            if weighted:
                wk[i] = wp[base + i]
        start_order(perm, pool, state, fseed[k])
        best = -np.inf
        best_f = -1
        best_thr = np.nan
        best_mgl = -1
        visited = 0
        n_const = 0
        for j in range(n_pool):
            if every:
                f = pool[j]
            else:
                if visited_enough(visited, n_const, max_features):
                    break
                f = next_feature(perm, j, state)
            visited += 1
            for d in range(2):  # the threshold's draw and the missing side's
                draws[d] = uniform_draw(rseed[k], f, d)
            proxy, nl, thr, nonconst, mgl = _random_split(
                XT, XR, XP, small, order, a, a + n_node, f, yk, wk, weighted, is_clf, crit,
                stats[k], w_node[k], imp[k], msl, mwl, draws[0], draws[1], mono, bounds[k, 0],
                bounds[k, 1], left, work, miss, xf)
            if not nonconst:
                n_const += 1
                continue
            if nl > 0 and proxy > best:
                best = proxy
                best_f = f
                best_thr = thr
                best_mgl = mgl
                xf, xb = xb, xf
        out_feat[k] = best_f
        out_thr[k] = best_thr
        out_mgl[k] = best_mgl
        if best_f >= 0:
            _split_rows(XR, XP, small, order, yp, wp, a, n_node, xb, best_thr, best_mgl == 1,
                        yk, wk, weighted, is_clf, crit, lst, rst, k, n_left, n_right, right,
                        right_y, right_w, right_x)


@INLINE
def _partition(counted, binary, weighted, moved, XP, order, yp, wp, a, n_node, xb, thr,
               missing_left, yk, wk, is_clf, crit, lst, rst, k, right, right_y, right_w,
               right_x):
    """The loop of :func:`_split_rows` over the node's rows: each row's id, target, weight
    (and values ``XP``, when ``moved``) to its side, the left ones in place and the right
    ones to the scratch ``right*``, and the children's sums (``counted``: the class-1 rows
    ``n1`` and those going left ``n1l``; ``binary``: the four float sums; otherwise added
    to ``lst[k]``, ``rst[k]``). Returns ``(nl, nr, n1, n1l, l0, l1, r0, r1)``.

    :func:`_split_rows` inlines it twice: once with the flags of the common case as
    constants, a copy of the loop holding only that case's steps (the loop with every
    case in it tested its flags in memory at every row), and once with the flags as they
    come. Positions are unsigned (no test for a negative index)."""
    n_cols = XP.shape[1]
    n1 = 0
    n1l = 0
    l0 = 0.0
    l1 = 0.0
    r0 = 0.0
    r1 = 0.0
    nl = 0
    nr = 0
    base = np.uint64(a)
    for i in range(n_node):
        q = np.uint64(i)
        x = xb[q]
        go = (x <= thr) if x == x else missing_left
        wi = wk[q] if weighted else 1.0
        yv = yk[q]
        at = base + np.uint64(nl)  # forward: position a + nl is at most a + i
        to = np.uint64(nr)
        row = order[base + q]
        order[at] = row
        right[to] = row
        yp[at] = yv
        right_y[to] = yv
        if weighted:
            wp[at] = wi
            right_w[to] = wi
        g = np.int64(go)
        if counted:  # integers: no chain of float additions (exact either way)
            y1 = np.int64(yv != 0.0)
            n1 += y1
            n1l += g & y1
        elif binary:  # y is 0 or 1
            wm = wi if go else 0.0
            wo = wi - wm
            l1 += wm * yv
            l0 += wm - wm * yv
            r1 += wo * yv
            r0 += wo - wo * yv
        elif go:
            add_row(is_clf, crit, lst, k, yv, wi)
        else:
            add_row(is_clf, crit, rst, k, yv, wi)
        if moved:
            if go:
                for c in range(n_cols):
                    XP[at, c] = XP[base + q, c]
            else:
                for c in range(n_cols):
                    right_x[to, c] = XP[base + q, c]
        nl += g
        nr += 1 - g
    return nl, nr, n1, n1l, l0, l1, r0, r1


@NOREF
def _split_rows(XR, XP, small, order, yp, wp, a, n_node, xb, thr, missing_left, yk, wk,
                weighted, is_clf, crit, lst, rst, k, n_left, n_right, right, right_y, right_w,
                right_x):
    """Split node ``k``'s rows ``order[a:a + n_node]`` of values ``xb`` at ``thr`` (a
    missing value left when ``missing_left``): both children's statistics, in the
    rows' order, and the stable partition of the range, and of the rows' targets and
    weights ``yp``, ``wp`` (``yk``, ``wk``: the node's, before it). A node of fewer than
    ``small`` rows moves its rows' values ``XP`` with them; a larger one gathers them
    (from ``XR``) for each child of fewer.

    The side of a row is unpredictable, so the loop branches on it only to move a row of
    ``XP``: a row's id, target and weight are written to both places (the left part of
    the range, in place, and the right's scratch) and the counters pick, and a binary
    classification keeps its four sums in registers, a row adding zero to the side it
    does not go to (the same sums, bit for bit, as adding it to its own side only)."""
    moved = n_node < small
    n_cols = XP.shape[1]
    binary = is_clf and lst.shape[1] == 2
    counted = binary and not weighted  # unit weights: the class sums are counts
    if not binary:
        lst[k, :] = 0.0
        rst[k, :] = 0.0
    if counted and moved:  # the common case, compiled as a loop of its own
        nl, nr, n1, n1l, l0, l1, r0, r1 = _partition(
            True, True, False, True, XP, order, yp, wp, a, n_node, xb, thr, missing_left,
            yk, wk, is_clf, crit, lst, rst, k, right, right_y, right_w, right_x)
    else:
        nl, nr, n1, n1l, l0, l1, r0, r1 = _partition(
            counted, binary, weighted, moved, XP, order, yp, wp, a, n_node, xb, thr,
            missing_left, yk, wk, is_clf, crit, lst, rst, k, right, right_y, right_w, right_x)
    if counted:
        l0 = np.float64(nl - n1l)
        l1 = np.float64(n1l)
        r0 = np.float64(nr - (n1 - n1l))
        r1 = np.float64(n1 - n1l)
    if binary:
        lst[k, 0] = l0
        lst[k, 1] = l1
        rst[k, 0] = r0
        rst[k, 1] = r1
    at = np.uint64(a + nl)  # the right child's first position
    for i in range(nr):
        q = np.uint64(i)
        order[at + q] = right[q]
        yp[at + q] = right_y[q]
        if weighted:
            wp[at + q] = right_w[q]
        if moved:
            for c in range(n_cols):
                XP[at + q, c] = right_x[q, c]
    if not moved:  # the children of fewer rows gather theirs (left ones come first)
        for p in range(a if nl < small else a + nl, a + n_node if nr < small else a + nl):
            row = np.uint64(order[p])
            for c in range(n_cols):
                XP[np.uint64(p), c] = XR[row, c]
    n_left[k] = nl
    n_right[k] = nr


class RowSplitter:
    """Random splits read from the rows of ``X`` (module docstring).

    ``feature_pool`` (set by the engine; None: every feature): the features the tree
    may use.

    Parameters
    ----------
    XT : float32 or float64 ndarray [F, n]
        The columns of X (``X.T``, C-contiguous: a node gathers one feature of its rows
        from one column, which stays in cache, instead of a cache line of every row).
    X : ndarray [n, F], C-contiguous, of XT's dtype
        The rows of X: a node whose rows lie far apart in the columns reads them from
        here, where one row's line serves every feature the node visits.
    target, weights : the prepared rows' targets, and their weights (None: all 1)
    row_weights : None, float64 [n] or float64 [B, n]
        A forest tree's in-bag weights: the rows of weight 0 take no part. Two
        dimensions: a batch of B trees grown together (:func:`fastdt._grow.grow`), tree
        b's in-bag rows at positions ``[tree_starts[b], tree_starts[b + 1])``.
    n_stats, is_clf, crit, min_samples_leaf, min_weight_leaf, random_seed, mono
        As :class:`fastdt._exact.ExactSplitter`.
    xp : None or ndarray [m, F] of X's dtype
        An earlier splitter's ``xp_buffer`` (trees grown one after another by one
        thread: a forest's), reused for ``XP`` when it has room, its contents unread.
        ``XP`` is written once over at every tree: fresh memory for each tree (a batch of
        7 at 200,000 x 20 float32: 112 MB) cost its first touches again (page faults).
    """

    feature_pool = None

    def __init__(self, XT, X, target, weights, *, n_stats, is_clf, crit, min_samples_leaf,
                 min_weight_leaf, random_seed, mono=None, row_weights=None, xp=None):
        self.XT, self.X = XT, X
        self.n_features = XT.shape[0]
        self.y = target.astype(np.float64)
        self.tree_starts = None
        if row_weights is not None and row_weights.ndim == 2:  # a batch
            orders = [np.flatnonzero(w > 0).astype(np.int32) for w in row_weights]
            self.tree_starts = np.cumsum([0] + [o.shape[0] for o in orders]).astype(np.int64)
            self.order = np.concatenate(orders)
            self.wp = np.concatenate([w[o] for w, o in zip(row_weights, orders)])
            self.w = row_weights
        else:
            if row_weights is not None:
                self.w = row_weights
                self.order = np.flatnonzero(row_weights > 0).astype(np.int32)
            else:
                self.w = np.empty(0) if weights is None else np.asarray(weights, np.float64)
                self.order = np.arange(XT.shape[1], dtype=np.int32)
            self.wp = self.w[self.order] if self.w.shape[0] else self.w
        if self.wp.shape[0] and (self.wp == 1.0).all():
            # every weight 1 (a forest without bootstrap): the kernels' unweighted steps,
            # which count the classes in integers; the same sums
            self.wp = np.empty(0)
        self.n = self.order.shape[0]
        # the targets (and above, the weights) by position in ``order``, partitioned with
        # it: a node reads its rows' in order, not gathered from row ids
        self.yp = self.y[self.order]
        # the values of the rows of small nodes, at their positions (small roots' now)
        if (xp is None or xp.dtype != X.dtype or xp.shape[1] != XT.shape[0]
                or xp.shape[0] < self.n):
            xp = np.empty((self.n, XT.shape[0]), dtype=X.dtype)
        self.xp_buffer = xp
        self.XP = xp[: self.n]
        for a, b in self._ranges():
            if b - a < _SMALL:
                self.XP[a:b] = X[self.order[a:b]]
        self.side = np.zeros(XT.shape[1], dtype=np.uint8)  # all 0: the root's statistics
        self.is_clf, self.crit, self.n_stats = is_clf, crit, n_stats
        self.min_samples_leaf, self.min_weight_leaf = min_samples_leaf, min_weight_leaf
        self.random_seed, self.mono = random_seed, mono

    def _ranges(self):
        """Each tree's positions ``(start, end)``."""
        s = np.array([0, self.n]) if self.tree_starts is None else self.tree_starts
        return list(zip(s[:-1].tolist(), s[1:].tolist()))

    def root(self):
        """Statistics of all rows."""
        return rows_root(self)

    def roots(self):
        """Statistics of each tree's rows, a batch (``tree_starts``): [B, n_stats]."""
        return np.stack([rows_root(self, self.order[a:b], w)
                         for (a, b), w in zip(self._ranges(), self.w)])

    def find(self, ids, nodes, rng, max_features):
        """The random split of each open node ``ids``, each node's rows split at once
        (:func:`split_nodes`): the children's ranges are ready when the driver commits
        them, and a node left a leaf keeps its rows in its range."""
        k = ids.shape[0]
        starts, ends = nodes.start[ids], nodes.end[ids]
        rows = int((ends - starts).sum())
        sp = Splits(k, self.n_stats, 0, 0)
        run(split_nodes, k, rows * min(max_features, self.XT.shape[0]), self.XT, self.X,
            self.XP, _SMALL, self.order, starts, ends, self.yp, self.wp, self.is_clf, self.crit,
            self.min_samples_leaf, self.min_weight_leaf, nodes.stats[ids],
            nodes.weighted_n_node_samples[ids], nodes.impurity[ids],
            rng.splits(ids), rng.features(ids), max_features,
            pool_of(self), self.mono, nodes.bounds[ids], sp.feature, sp.threshold, sp.mgl,
            sp.lst, sp.rst, sp.n_left, sp.n_right)
        return sp

    def release(self, ids):
        """Nothing to free: a node's rows are only a range of ``order``."""

    def make_room(self, ids, nodes):
        """Nothing to make: children share their parent's rows."""

    def split(self, ids, part, open_, nodes):
        """Nothing to move: :meth:`find` partitioned the rows of every node it split."""

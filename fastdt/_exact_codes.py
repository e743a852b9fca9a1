"""Exact splits of few-valued integer features, from per-node histograms.

A feature whose present values are at most :data:`MAX_VALUES` distinct integers
(ordinal codes, counts, flags, ages, amounts in round figures: most columns of a typical
table) has its exact splits in a histogram with one bin per value: the cut between two
neighbouring non-empty bins is the cut between two neighbouring distinct values, and
the histogram splitter's scan (:func:`fastdt._hist_scan.scan_nodes`) already scores those
cuts in the exact splitter's order, with its tie rule. Such a feature needs neither a
sorted row in the presorted layout nor a partition of that row at every level: its
values are coded once (NaN the bin after the last): ``code = x - min`` when they span at
most :data:`MAX_VALUES` consecutive numbers, else the value's rank among the column's
distinct values (:func:`distinct_integers`; Adult's capital gains,
119 values from 0 to 99,999, and losses, 92 from 0 to 4,356). Each open node
has a histogram of them: kept in a pool between levels (:class:`fastdt._hist.HistPool`), the
smaller child's built from its rows and the larger's its parent's minus it (exact: the bins
hold counts), a node of fewer rows than bins built when it is scanned.

:class:`CodedSplitter` is the exact splitter of a fit whose features are partly (or
wholly) coded so: an :class:`fastdt._exact.ExactSplitter` keeps the other ("wide")
features in its presorted layout, and always at least one, whose row of ids gives each
node's rows (``idx[0, start:end]``); both kinds of feature compete in one table, in
feature order, as in the exact splitter. The tree is the exact splitter's, bit for bit:
this path is taken only where every sum is a count (classification, every weight 1,
``missing="learn"``, level-wise growth, every feature scanned; :func:`codable`), so the
order in which the histogram adds them up cannot change a bit of any score; and only
from :data:`MIN_ROWS` rows on, where it pays. Below :data:`THREAD_ROWS` rows its
kernels run on the calling thread.
"""

import numpy as np

from ._criteria import NO_REG, log_criterion
from ._hist import HistPool
from ._hist_build import build_features
from ._hist_scan import NO_INC, scan_nodes
from ._jit import INLINE, JIT
from ._parallel import run, run_rows

#: Most distinct integer values of a coded feature: uint8 codes with one more for the
#: missing rows.
MAX_VALUES = 255
#: Slots of the hash set :func:`distinct_integers` keeps a column's distinct values in
#: (a power of two, at least four times MAX_VALUES).
_SLOTS = 1024
_SLOT_BITS = 10
#: Largest magnitude of a coded value: ``x - min`` and ``min + code`` are then exact.
_EXACT = 2.0**52
#: Fewest rows of a fit that codes features. Below it the per-level cost of the
#: histograms (and, on a cold cache, compiling the histogram scan) outweighs the partitions
#: saved: on Adult's integer columns, depth 8, coding was slower up to 3,000 rows on one
#: thread and 10,000 on two, faster from 10,000 and 26,000 (docs/engine.md).
MIN_ROWS = 20_000
#: Below this many rows, a coded fit's kernels run on the calling thread (:func:`_work`).
#: They read a byte a value, and a hand-off to a pool thread (40-55 us here) costs more
#: than it saves on their work of such fits. Two threads, unlimited depth, in turns
#: (2026-11-29), this rule and coding deep trees at any thread count against coding them
#: only on one thread (else presorted, on both): Adult's 20,838 rows of a
#: cross-validation fold 0.93 and 0.72 of the time (``min_samples_leaf`` 1, 20), depth 8
#: 0.97, all of Adult 0.99; synthetic tables of 30,000 to 90,000 rows (6 to 10 integer
#: columns among 11 to 12) 0.93-0.97. Before, on two threads, the presorted layout was
#: faster for deep trees than the coded one on both threads in some of these.
THREAD_ROWS = 100_000
#: Rows read first to rule out columns.
_PEEK = 1024


#: Rows :func:`column_ranges` reads a column at a time (they stay in the first cache).
_RANGE_ROWS = 256


@JIT
def column_ranges(cols, X):
    """``(min, max, integer-valued, present)`` of the present (non-NaN) values of each
    column ``cols[j]`` of ``X`` (float32 or float64 [n, F], a block of rows; one pass
    over them), float64 [len(cols), 4]; ``integer-valued`` is 1.0 when every present
    value is an integer, else 0.0. Blocks of :data:`_RANGE_ROWS` rows are read a column
    at a time, the column's sums in registers (a row at a time, every column's sums
    were loaded and stored for each value: 1.6 ns a value on Adult)."""
    out = np.empty((cols.shape[0], 4))
    for j in range(cols.shape[0]):
        out[j, 0] = np.inf
        out[j, 1] = -np.inf
        out[j, 2] = 1.0
        out[j, 3] = 0.0
    n = X.shape[0]
    for b in range(0, n, _RANGE_ROWS):
        e = min(n, b + _RANGE_ROWS)
        for j in range(cols.shape[0]):
            col = cols[j]
            lo = out[j, 0]
            hi = out[j, 1]
            count = 0
            fraction = False
            for i in range(b, e):  # without branches: NaN is never < or > anything
                x = np.float64(X[i, col])
                present = x == x
                count += present
                lo = x if x < lo else lo
                hi = x if x > hi else hi
                fraction |= present & (x != np.floor(x))
            out[j, 0] = lo
            out[j, 1] = hi
            out[j, 3] += count
            if fraction:
                out[j, 2] = 0.0
    return out


@JIT
def code_columns(lo, hi, X, cols, low, n_bins, codes):
    """Rows ``[lo, hi)`` of ``codes`` (uint8 [C, n]): ``codes[j, i] = X[i, cols[j]] -
    low[j]``, or ``n_bins[j]`` (the missing bin) where the value is NaN; a column of
    ``low[j]`` NaN is left alone (coded by rank, or not coded)."""
    for i in range(lo, hi):
        for j in range(cols.shape[0]):
            if np.isnan(low[j]):
                continue
            x = np.float64(X[i, cols[j]])
            if np.isnan(x):
                codes[j, i] = np.uint8(n_bins[j])
            else:
                codes[j, i] = np.uint8(x - low[j])


@INLINE
def _slot_of(v, keys, used):
    """The slot of the integer ``v`` (int64) in the hash set ``keys``/``used``
    (:data:`_SLOTS` slots, linear probing): where it is, or the empty slot it goes in."""
    s = (np.uint64(v) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - _SLOT_BITS)
    while used[s] and keys[s] != v:
        s = (s + np.uint64(1)) & np.uint64(_SLOTS - 1)
    return s


@JIT
def distinct_integers(lo, hi, X, cols, out, counts, seen):
    """The distinct present values of the whole-number columns ``cols[j]`` of ``X``, for
    ``j`` in ``[lo, hi)`` (a column a task: :func:`fastdt._parallel.run`): ``counts[j]``
    of them in ``out[j, :counts[j]]``, in the order first seen, and ``seen[j, i]`` (uint8
    [C, n]) the index there of row ``i``'s value, :data:`MAX_VALUES` where it is missing;
    ``counts[j]`` is ``out.shape[1] + 1`` when the column has more (the pass stops there,
    ``seen[j]`` unfinished)."""
    limit = out.shape[1]
    keys = np.empty(_SLOTS, dtype=np.int64)
    used = np.zeros(_SLOTS, dtype=np.uint8)
    index = np.empty(_SLOTS, dtype=np.uint8)
    for j in range(lo, hi):
        used[:] = 0
        m = 0
        col = cols[j]
        for i in range(X.shape[0]):
            x = np.float64(X[i, col])
            if np.isnan(x):
                seen[j, i] = MAX_VALUES
                continue
            v = np.int64(x)
            s = _slot_of(v, keys, used)
            if not used[s]:
                if m == limit:
                    m += 1
                    break
                used[s] = 1
                keys[s] = v
                index[s] = m
                out[j, m] = x
                m += 1
            seen[j, i] = index[s]
        counts[j] = m


@JIT
def choose_coded(w_proxy, w_nl, c_proxy, c_nl, wide, cols, feat):
    """The winning feature of each node into ``feat`` (int64 [k]), as
    :func:`fastdt._level.best_features` picks it from the ``[k, F]`` tables that hold
    the wide features' candidates (``w_*``, the columns ``wide``) and the coded ones'
    (``c_*``, the columns ``cols``): the largest proxy among the valid splits, the lowest
    feature on ties, -1 when none is valid; the two tables read in feature order,
    without assembling them (three numpy steps a table, 10-15 us a level)."""
    n_w = wide.shape[0]
    n_c = cols.shape[0]
    for k in range(feat.shape[0]):
        best = -np.inf  # a NaN or -inf proxy never wins
        f = -1
        a = 0
        b = 0
        while a < n_w or b < n_c:
            if b == n_c or (a < n_w and wide[a] < cols[b]):
                if w_nl[k, a] > 0 and w_proxy[k, a] > best:
                    best = w_proxy[k, a]
                    f = wide[a]
                a += 1
            else:
                if c_nl[k, b] > 0 and c_proxy[k, b] > best:
                    best = c_proxy[k, b]
                    f = cols[b]
                b += 1
        feat[k] = f


@JIT
def take_coded(lo, hi, feat, j_of, scan, c_nl, c_thr, c_bin, c_mgl, c_l, c_r, codes, rows,
               n_bins, threshold, cbin, mgl, lst, rst, n_left, n_right, side):
    """The nodes ``[lo, hi)`` split on a coded feature (``j = j_of[feat[k]] >= 0``, its
    index among the coded ones): their splits' entries taken from
    :func:`fastdt._hist_scan.scan_nodes`' tables at ``[k, j]`` (threshold, last bin
    going left ``cbin``, side of the missing rows ``mgl``, children's statistics and
    rows), and ``side[i]`` (by row id) of every row ``i = rows[p]`` of the node
    (positions ``scan[k, 0]`` to ``scan[k, 1]``): 1 (right) when its code is above the
    last bin going left, or when it is missing (the code ``n_bins[j]``) and ``mgl != 1``;
    else 0. The other nodes are left as they are."""
    for k in range(lo, hi):
        f = feat[k]
        if f < 0 or j_of[f] < 0:
            continue
        j = j_of[f]
        t = c_bin[k, j]
        m = c_mgl[k, j]
        threshold[k] = c_thr[k, j]
        cbin[k] = t
        mgl[k] = m
        for c in range(lst.shape[1]):
            lst[k, c] = c_l[k, j, c]
            rst[k, c] = c_r[k, j, c]
        nl = c_nl[k, j]
        n_left[k] = nl
        n_right[k] = scan[k, 1] - scan[k, 0] - nl
        codes_j = codes[j]
        ml = np.int64(n_bins[j]) if m == 1 else -1
        for p in range(scan[k, 0], scan[k, 1]):
            i = np.uint64(rows[np.uint64(p)])
            c = np.int64(codes_j[i])
            side[i] = (c > t) & (c != ml)


def _codable_columns(ranges, n_categories, peek=False):
    """``(dense, wide)``: which columns (``ranges``: :func:`column_ranges` of each) can
    be coded as ``x - min`` (their whole numbers span at most :data:`MAX_VALUES`), and
    which only by rank (a wider span; coded if they have few distinct values). ``peek``:
    the ranges of the first rows only, where a column with no value yet stays in."""
    lo, hi, whole, present = ranges.T
    numeric = (whole == 1.0) & (n_categories == 0)
    with np.errstate(invalid="ignore"):  # inf - inf in a column with no value
        exact = numeric & (present > 0) & (np.abs(lo) < _EXACT) & (np.abs(hi) < _EXACT)
        fits = hi - lo < MAX_VALUES
    return exact & fits | numeric & (present == 0) & peek, exact & ~fits


def _distinct(X, cols):
    """:func:`distinct_integers` of the columns ``cols`` of ``X`` (a column a task on
    threads): ``(values, counts, seen)``, float64 [C, MAX_VALUES], int64 [C] and uint8
    [C, n]."""
    values = np.empty((cols.shape[0], MAX_VALUES))
    counts = np.empty(cols.shape[0], dtype=np.int64)
    seen = np.empty((cols.shape[0], X.shape[0]), dtype=np.uint8)
    n = X.shape[0]
    run(distinct_integers, cols.shape[0], _work(n, n * cols.shape[0]), X, cols, values,
        counts, seen)
    return values, counts, seen


def integer_columns(X, n_categories):
    """The coded features of ``X`` (float32/float64 [n, F]): ``(cols, codes, n_bins,
    bin_lo, bin_hi)``, the columns whose present values are at most :data:`MAX_VALUES`
    distinct integers (numeric ones only: ``n_categories`` 0), their uint8 codes
    (feature-major), values per code and the value of each code; or None when fewer than
    one column would be coded or none would stay in the layout.

    The first :data:`_PEEK` rows rule out most other columns (a fraction there, or more
    distinct values than a column may have, is one in the whole); the rest are read
    whole, in blocks of rows on threads, and the distinct values of the columns that
    span more than :data:`MAX_VALUES` numbers a column a thread.
    """
    n, n_features = X.shape
    if not n or n_features < 2:
        return None
    every = np.arange(n_features, dtype=np.int64)
    dense, wide = _codable_columns(column_ranges(every, X[:_PEEK]), n_categories, True)
    if wide.any():
        w = every[wide]
        wide[w[_distinct(X[:_PEEK], w)[1] > MAX_VALUES]] = False
    cols = every[dense | wide]
    if not cols.shape[0]:
        return None
    parts = run_rows(column_ranges, n, _work(n, n * cols.shape[0]), (cols,), X)
    ranges = np.stack([np.min([p[:, 0] for p in parts], axis=0),
                       np.max([p[:, 1] for p in parts], axis=0),
                       np.min([p[:, 2] for p in parts], axis=0),
                       np.sum([p[:, 3] for p in parts], axis=0)], axis=1)
    dense, wide = _codable_columns(ranges, n_categories[cols])
    n_bins = np.where(dense, ranges[:, 1] - ranges[:, 0] + 1, 0).astype(np.int32)
    found = np.empty((cols.shape[0], MAX_VALUES))
    ranks = {}  # the codes of a column coded by rank, by its index in cols
    if wide.any():  # ranked when the whole column has few distinct values
        values_w, counts, seen = _distinct(X, cols[wide])
    for t, j in enumerate(np.flatnonzero(wide)):
        m = counts[t]
        if m > MAX_VALUES:
            wide[j] = False
            continue
        order = np.argsort(values_w[t, :m])
        found[j, :m] = values_w[t, order]
        rank = np.empty(MAX_VALUES + 1, dtype=np.uint8)
        rank[order] = np.arange(m)
        rank[MAX_VALUES] = m  # missing: the bin after the values
        ranks[j] = rank[seen[t]]
        n_bins[j] = m
    ok = dense | wide
    if ok.all() and cols.shape[0] == n_features:
        # one stays in the layout: its ids give nodes' rows
        ok[np.argmax(n_bins)] = False
    kept = np.flatnonzero(ok)
    cols, n_bins, ranked = cols[kept], n_bins[kept], wide[kept]
    if not cols.shape[0]:
        return None
    low = np.where(ranked, np.nan, ranges[kept, 0])  # NaN: coded by rank
    width = int(n_bins.max())
    values = np.where(ranked[:, None], found[kept, :width], low[:, None] + np.arange(width))
    values[np.arange(width)[None, :] >= n_bins[:, None]] = np.inf
    codes = np.empty((cols.shape[0], n), dtype=np.uint8)
    run(code_columns, n, _work(n, n * cols.shape[0]), X, cols, low, n_bins, codes)
    for t, j in enumerate(kept):
        if ranked[t]:
            codes[t] = ranks[j]
    # read-only, as a Dataset's: the histogram scan then runs on its compiled signature
    for a in (codes, n_bins, values):
        a.flags.writeable = False
    return cols, codes, n_bins, values, values  # each bin holds one value: lo = hi


def _threaded(n):
    """Whether the coded kernels of a fit of ``n`` rows may run on threads (from
    :data:`THREAD_ROWS` rows)."""
    return n >= THREAD_ROWS


def _work(n, values):
    """The work a coded kernel of a fit of ``n`` rows reports to
    :func:`fastdt._parallel.run`: ``values``, or none (the calling thread alone) below
    :data:`THREAD_ROWS` rows."""
    return values if _threaded(n) else 0


def codable(prep):
    """Whether the exact fit ``prep`` can code features (module docstring)."""
    lim = prep.limits
    n = 0 if prep.X is None else prep.X.shape[0]
    return (prep.splitter == "best" and n >= MIN_ROWS
            and prep.is_clf and prep.weights is None
            and prep.mode == 0 and prep.ymul is None and prep.mono is None
            and lim["max_leaf_nodes"] <= 0
            and lim["max_features"] >= prep.n_features)


class CodedSplitter(HistPool):
    """The exact splitter over coded and presorted ("wide") features (module docstring).

    Parameters
    ----------
    inner : ExactSplitter
        Over the wide features' presorted layout (its own features numbered 0 .. W - 1).
    coded : tuple
        :func:`integer_columns` of the fit's X.
    n_features : int
        All the features.

    The rows' class codes are the inner layout's targets (``inner.ys[0]``, in the order
    of ``inner.idx[0]``).
    """

    feature_pool = None

    def __init__(self, inner, coded, n_features, *, crit, min_samples_leaf,
                 min_weight_leaf):
        self.inner = inner
        self.n, self.is_clf, self.crit, self.n_stats = inner.n, True, crit, inner.n_stats
        self.n_features = n_features
        self.cols, self.codes, self.n_bins, self.bin_lo, self.bin_hi = coded
        self.wide = wide_columns(n_features, coded)
        self.j_of = np.full(n_features + 1, -1, dtype=np.int64)  # [-1]: no feature
        self.j_of[self.cols] = np.arange(self.cols.shape[0])
        self.w_of = np.full(n_features + 1, -1, dtype=np.int64)
        self.w_of[self.wide] = np.arange(self.wide.shape[0])
        self.ycode = np.empty(self.n, dtype=np.int32)
        self.min_samples_leaf, self.min_weight_leaf = min_samples_leaf, min_weight_leaf
        n_c = self.cols.shape[0]
        # counts only: a histogram has no weight column, and the subtraction is exact
        self._init_pool(n_c, self.bin_lo.shape[1] + 1, self.n_stats, self.n)
        # the histograms to build before the next scan
        self.jobs = np.zeros((0, 4), dtype=np.int64)
        self.rstat = np.empty((self.n, 0))
        self.fpool = np.arange(n_c, dtype=np.int64)
        self.no_seeds = np.zeros(0, dtype=np.uint64)

    def root(self):
        return self.inner.root()

    def find(self, ids, nodes, rng, max_features):
        """The best split of each open node ``ids``: the wide features scanned by the
        inner splitter (after it partitions the nodes split last), the coded ones from
        the nodes' histograms (the planned ones built first, the others on the fly), the
        winner chosen among all in feature order."""
        scan, wide_tables = self.inner.scan_tables(ids, nodes, rng, max_features)
        k, n_c = ids.shape[0], self.cols.shape[0]
        rows = self.inner.idx[0]  # any row of the layout: each node's rows, by range
        # their class codes: the layout's targets, in the same order (read in order, where
        # a gather by row id cost 150-200 us a level on Adult)
        np.copyto(self.ycode, self.inner.ys[0], casting="unsafe")
        if nodes.count == 1:  # the root
            self.jobs = self._root_jobs(ids, nodes)
        # the kernels' work, for the threads: none below THREAD_ROWS rows (not computed)
        threaded = _threaded(self.n)
        if self.jobs.shape[0]:
            work = int((self.jobs[:, 1] - self.jobs[:, 0]).sum()) * n_c if threaded else 0
            run(build_features, n_c, work, self.codes, rows, self.jobs, self.pool,
                self.n_bins, self.ycode, self.rstat, True, False, NO_INC)
        slots = self.slot[ids]
        c_proxy, c_nl, c_thr, c_nc, c_bin, c_mgl, c_l, c_r = (
            np.empty((k, n_c)), np.empty((k, n_c), dtype=np.int64), np.empty((k, n_c)),
            np.empty((k, n_c), dtype=np.uint8), np.empty((k, n_c), dtype=np.int64),
            np.empty((k, n_c), dtype=np.int64), np.empty((k, n_c, self.n_stats)),
            np.empty((k, n_c, self.n_stats)))
        rows_work = scan_work = 0
        if threaded:  # stored histograms cost a pass over their bins; the others their rows
            n_rows = scan[:, 1] - scan[:, 0]
            rows_work = int(n_rows.sum())
            scan_work = int(np.where(slots >= 0, self.n_bins_max, n_rows).sum()) * n_c
        # in_order: the coded features are scanned by index, as choose_coded picks them
        run(scan_nodes, k, scan_work, self.pool, slots, scan, nodes.stats[ids],
            nodes.weighted_n_node_samples[ids], nodes.impurity[ids], self.codes, rows,
            self.ycode, self.rstat, self.n_bins, self.bin_lo, self.bin_hi, None,
            self.inner.missing, None,
            self.crit, log_criterion(True, self.crit), False, self.min_samples_leaf,
            self.min_weight_leaf, None, nodes.bounds[ids], self.no_seeds, int(max_features),
            self.fpool, bool(max_features >= self.n_features), c_proxy, c_nl, c_thr, c_nc,
            c_bin, c_mgl,
            np.zeros((k, n_c, 0), dtype=np.uint64), c_l, c_r, NO_REG, NO_INC)
        w_proxy, w_nl = wide_tables[:2]
        feat = np.empty(k, dtype=np.int64)
        choose_coded(w_proxy, w_nl, c_proxy, c_nl, self.wide, self.cols, feat)
        sp = self.inner.splits(scan, self.w_of[feat], wide_tables)
        sp.feature = feat
        run(take_coded, k, rows_work, feat, self.j_of, scan, c_nl, c_thr, c_bin, c_mgl, c_l,
            c_r, self.codes, rows, self.n_bins, sp.threshold, sp.bin, sp.mgl, sp.lst,
            sp.rst, sp.n_left, sp.n_right, self.inner.side)
        return sp

    def release(self, ids):
        self.inner.release(ids)
        HistPool.release(self, ids)

    def make_room(self, ids, nodes):
        self.inner.make_room(ids, nodes)

    def split(self, ids, part, open_, nodes):
        """The inner splitter's (the partition waits for the next :meth:`find`), and the
        plan of the children's histograms, built there once the rows are in place."""
        self.inner.split(ids, part, open_, nodes)
        is_open = self._open_children(ids, open_, nodes)
        self.jobs = self._plan(part, nodes, is_open)


def wide_columns(n_features, coded):
    """The features that stay in the presorted layout (int64, in order): all but the
    coded ones (``coded``: :func:`integer_columns`)."""
    wide = np.ones(n_features, dtype=bool)
    wide[coded[0]] = False
    return np.flatnonzero(wide)


def layout_columns(X, coded):
    """The columns of ``X`` that stay in the presorted layout (C-contiguous; ``take``
    copies them three times faster than fancy indexing here)."""
    return np.ascontiguousarray(X.take(wide_columns(X.shape[1], coded), axis=1))

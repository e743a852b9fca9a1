"""Exact splits of few-valued integer features, from per-node histograms.

A feature whose present values are integers spanning at most :data:`MAX_VALUES`
consecutive numbers (ordinal codes, counts, flags, ages: most columns of a typical table)
has its exact splits in a histogram with one bin per value: the cut between two
neighbouring non-empty bins is the cut between two neighbouring distinct values, and
the histogram splitter's scan (:func:`fastdt._hist_scan.scan_nodes`) already scores those
cuts in the exact splitter's order, with its tie rule. Such a feature needs neither a
sorted row in the presorted layout nor a partition of that row at every level: its
values are coded once (``code = x - min``, NaN the bin after the last), and each level
builds every open node's histogram from the node's rows.

:class:`CodedSplitter` is the exact splitter of a fit whose features are partly (or
wholly) coded so: an :class:`fastdt._exact.ExactSplitter` keeps the other ("wide")
features in its presorted layout, and always at least one, whose row of ids gives each
node's rows (``idx[0, start:end]``); both kinds of feature compete in one table, in
feature order, as in the exact splitter. The tree is the exact splitter's, bit for bit:
this path is taken only where every sum is a count (classification, every weight 1,
``missing="learn"``, level-wise growth, every feature scanned; :func:`codable`), so the
order in which the histogram adds them up cannot change a bit of any score; and only
from :data:`MIN_ROWS` rows on, and for trees deeper than :data:`MAX_DEPTH` from
:data:`DEEP_ROWS`, where it pays.
"""

import numpy as np

from ._config import ID_DTYPE
from ._criteria import NO_REG
from ._grow import choose
from ._hist import take_splits
from ._hist_scan import scan_nodes
from ._jit import JIT
from ._exact import TASKS_PER_THREAD
from ._parallel import blocks, n_threads, run, run_rows, run_tasks

#: Most distinct integer values (max - min + 1) of a coded feature: uint8 codes with one
#: more for the missing rows.
MAX_VALUES = 255
#: Largest magnitude of a coded value: ``x - min`` and ``min + code`` are then exact.
_EXACT = 2.0**52
#: Fewest rows of a fit that codes features. Below it the per-level cost of the
#: histograms (and, on a cold cache, compiling the histogram scan) outweighs the partitions
#: saved: on Adult's integer columns, depth 8, coding was slower up to 3,000 rows on one
#: thread and 10,000 on two, faster from 10,000 and 26,000 (docs/engine.md).
MIN_ROWS = 20_000
#: Deeper trees code only from :data:`DEEP_ROWS` rows: the many small nodes of their deep
#: levels each scan every coded feature's bins, and each level costs the coded scan's
#: fixed work once more. Depth unlimited, 2 threads: Adult's 26,048 rows took 110 ms
#: coded against 87 presorted; 200,000 rows of 14 integer columns 470 against 534.
MAX_DEPTH = 16
DEEP_ROWS = 100_000
#: Rows read first to rule out columns.
_PEEK = 1024


@JIT
def column_ranges(cols, X):
    """``(min, max, integer-valued, present)`` of the present (non-NaN) values of each
    column ``cols[j]`` of ``X`` (float32 or float64 [n, F], a block of rows; one pass
    over them), float64 [len(cols), 4]; ``integer-valued`` is 1.0 when every present
    value is an integer, else 0.0."""
    out = np.empty((cols.shape[0], 4))
    for j in range(cols.shape[0]):
        out[j, 0] = np.inf
        out[j, 1] = -np.inf
        out[j, 2] = 1.0
        out[j, 3] = 0.0
    for i in range(X.shape[0]):
        for j in range(cols.shape[0]):
            x = np.float64(X[i, cols[j]])
            if np.isnan(x):
                continue
            out[j, 3] += 1.0
            if x < out[j, 0]:
                out[j, 0] = x
            if x > out[j, 1]:
                out[j, 1] = x
            if x != np.floor(x):
                out[j, 2] = 0.0
    return out


@JIT
def code_columns(lo, hi, X, cols, low, n_bins, codes):
    """Rows ``[lo, hi)`` of ``codes`` (uint8 [C, n]): ``codes[j, i] = X[i, cols[j]] -
    low[j]``, or ``n_bins[j]`` (the missing bin) where the value is NaN."""
    for i in range(lo, hi):
        for j in range(cols.shape[0]):
            x = np.float64(X[i, cols[j]])
            if np.isnan(x):
                codes[j, i] = np.uint8(n_bins[j])
            else:
                codes[j, i] = np.uint8(x - low[j])


@JIT
def mark_coded(lo, hi, codes, rows, seg, feat, cbin, mgl, n_bins, side):
    """``side[i]`` (by row id) of every row ``i = rows[p]`` of the nodes ``[lo, hi)``
    (positions ``seg[k, 0]`` to ``seg[k, 1]``) split on coded feature ``feat[k]``: 1
    (right) when its code is above ``cbin[k]``, or when it is missing (the code
    ``n_bins[feat[k]]``) and ``mgl[k] != 1``; else 0."""
    for k in range(lo, hi):
        codes_j = codes[feat[k]]
        t = cbin[k]
        mc = np.int64(n_bins[feat[k]])
        ml = mc if mgl[k] == 1 else -1
        for p in range(seg[k, 0], seg[k, 1]):
            i = np.uint64(rows[np.uint64(p)])
            c = np.int64(codes_j[i])
            side[i] = (c > t) & (c != ml)


def _codable_columns(ranges, n_categories, peek=False):
    """Which columns (``ranges``: :func:`column_ranges` of each) can be coded; ``peek``:
    the ranges of the first rows only, where a column with no value yet stays in."""
    lo, hi, whole, present = ranges.T
    with np.errstate(invalid="ignore"):  # inf - inf in a column with no value
        fits = (hi - lo < MAX_VALUES) & (np.abs(lo) < _EXACT) & (np.abs(hi) < _EXACT)
    return (whole == 1.0) & (n_categories == 0) & ((present == 0) & peek | (present > 0) & fits)


def integer_columns(X, n_categories):
    """The coded features of ``X`` (float32/float64 [n, F]): ``(cols, codes, n_bins,
    bin_lo, bin_hi)``, the columns whose present values are integers spanning at most
    :data:`MAX_VALUES` values (numeric ones only: ``n_categories`` 0), their uint8 codes
    (feature-major), values per code and the value of each code; or None when fewer than
    one column would be coded or none would stay in the layout.

    The first :data:`_PEEK` rows rule out most other columns (a fraction or a wide span
    there is one in the whole); the rest are read whole, in blocks of rows on threads.
    """
    n, n_features = X.shape
    if not n or n_features < 2:
        return None
    every = np.arange(n_features, dtype=np.int64)
    cols = every[_codable_columns(column_ranges(every, X[:_PEEK]), n_categories, True)]
    if not cols.shape[0]:
        return None
    parts = run_rows(column_ranges, n, n * cols.shape[0], (cols,), X)
    ranges = np.stack([np.min([p[:, 0] for p in parts], axis=0),
                       np.max([p[:, 1] for p in parts], axis=0),
                       np.min([p[:, 2] for p in parts], axis=0),
                       np.sum([p[:, 3] for p in parts], axis=0)], axis=1)
    ok = _codable_columns(ranges, n_categories[cols])
    span = ranges[:, 1] - ranges[:, 0] + 1
    if ok.all() and cols.shape[0] == n_features:
        # one stays in the layout: its ids give nodes' rows
        ok[np.argmax(span)] = False
    cols, span, low = cols[ok], span[ok], ranges[ok, 0]
    if not cols.shape[0]:
        return None
    n_bins = span.astype(np.int32)
    codes = np.empty((cols.shape[0], n), dtype=np.uint8)
    run(code_columns, n, n * cols.shape[0], X, cols, low, n_bins, codes)
    width = int(n_bins.max())
    values = low[:, None] + np.arange(width)[None, :]
    values[np.arange(width)[None, :] >= n_bins[:, None]] = np.inf
    # read-only, as a Dataset's: the histogram scan then runs on its compiled signature
    for a in (codes, n_bins, values):
        a.flags.writeable = False
    return cols, codes, n_bins, values, values  # each bin holds one value: lo = hi


def codable(prep):
    """Whether the exact fit ``prep`` can code features (module docstring)."""
    lim = prep.limits
    n = 0 if prep.X is None else prep.X.shape[0]
    return (prep.splitter == "best" and n >= MIN_ROWS
            and (lim["max_depth"] <= MAX_DEPTH or n >= DEEP_ROWS)
            and prep.is_clf and prep.weights is None
            and prep.mode == 0 and prep.ymul is None and prep.mono is None
            and lim["max_leaf_nodes"] <= 0
            and lim["max_features"] >= prep.n_features)


class CodedSplitter:
    """The exact splitter over coded and presorted ("wide") features (module docstring).

    Parameters
    ----------
    inner : ExactSplitter
        Over the wide features' presorted layout (its own features numbered 0 .. W - 1).
    coded : tuple
        :func:`integer_columns` of the fit's X.
    target : int32 ndarray [n]
        Class codes of the rows.
    n_features : int
        All the features.
    """

    feature_pool = None

    def __init__(self, inner, coded, target, n_features, *, crit, min_samples_leaf,
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
        self.target = target.astype(np.int32, copy=False)
        self.ycode = np.empty(self.n, dtype=np.int32)
        self.min_samples_leaf, self.min_weight_leaf = min_samples_leaf, min_weight_leaf
        n_c = self.cols.shape[0]
        self.pool = np.empty((0, n_c, self.bin_lo.shape[1] + 1, self.n_stats))
        self.rstat = np.empty((self.n, 0))
        self.fpool = np.arange(n_c, dtype=np.int64)
        self.no_seeds = np.zeros(0, dtype=np.uint64)

    def root(self):
        return self.inner.root()

    def find(self, ids, nodes, rng, max_features):
        """The best split of each open node ``ids``: the wide features scanned by the
        inner splitter (after it partitions the nodes split last), the coded ones from
        histograms of each node's rows, the winner chosen among all in feature order."""
        scan, wide_tables = self.inner.scan_tables(ids, nodes, rng, max_features)
        k, n_c = ids.shape[0], self.cols.shape[0]
        rows = self.inner.idx[0]  # any row of the layout: each node's rows, by range
        np.take(self.target, rows, out=self.ycode)
        n_rows = scan[:, 1] - scan[:, 0]
        work = int(n_rows.sum()) * n_c
        # tasks of (group of features, range of nodes): groups when the nodes are too
        # few to keep the threads busy (the top levels)
        threads = n_threads(work)
        n_groups = min(n_c, -(-TASKS_PER_THREAD * threads // k)) if threads > 1 else 1
        groups = blocks(n_c, n_groups)
        spans = blocks(k, TASKS_PER_THREAD * threads if n_groups == 1 < threads else 1)
        out = [self._tables(k, j1 - j0) for j0, j1 in groups]
        args = (scan, nodes.stats[ids], nodes.weighted_n_node_samples[ids],
                nodes.impurity[ids], nodes.bounds[ids], int(max_features), rows)
        run_tasks(lambda t: self._scan(*groups[t[0]], *t[1], *args, *out[t[0]]),
                  [(g, s) for g in range(len(groups)) for s in spans], work)
        c_proxy, c_nl, c_thr, c_nc, c_bin, c_mgl, c_l, c_r = (
            np.concatenate([o[i] for o in out], axis=1) for i in range(8))
        w_proxy, w_nl, _, w_nc = wide_tables[:4]
        tables = []
        for wide_t, coded_t in ((w_proxy, c_proxy), (w_nl, c_nl), (w_nc, c_nc)):
            t = np.empty((k, self.n_features), dtype=wide_t.dtype)
            t[:, self.wide] = wide_t
            t[:, self.cols] = coded_t
            tables.append(t)
        feat = choose(tables[0], tables[1], tables[2], max_features, rng, ids)
        sp = self.inner.splits(scan, self.w_of[feat], wide_tables)
        sp.feature = feat
        m = np.flatnonzero(self.j_of[feat] >= 0)  # the nodes won by a coded feature
        if m.shape[0]:
            j = self.j_of[feat[m]]
            take_splits(sp, m, j, scan, c_nl, c_thr, c_bin, c_mgl, c_l, c_r)
            seg = np.ascontiguousarray(scan[m])
            run(mark_coded, m.shape[0], int(n_rows[m].sum()), self.codes, rows, seg, j,
                sp.bin[m], sp.mgl[m], self.n_bins, self.inner.side)
        return sp

    def _tables(self, k, n_c):
        """The output tables of :func:`fastdt._hist_scan.scan_nodes` for ``k`` nodes and
        ``n_c`` coded features."""
        return (np.empty((k, n_c)), np.empty((k, n_c), dtype=np.int64), np.empty((k, n_c)),
                np.empty((k, n_c), dtype=np.uint8), np.empty((k, n_c), dtype=np.int64),
                np.empty((k, n_c), dtype=np.int64), np.empty((k, n_c, self.n_stats)),
                np.empty((k, n_c, self.n_stats)))

    def _scan(self, j0, j1, lo, hi, scan, stats, w, imp, bounds, max_features, rows,
              t_proxy, t_nl, t_thr, t_nc, t_bin, t_mgl, t_l, t_r):
        """Nodes ``[lo, hi)`` on the coded features ``[j0, j1)``, into those features'
        tables."""
        scan_nodes(lo, hi, self.pool[:, j0:j1].copy(), np.full(hi, -1, dtype=np.int64), scan,
                   stats, w, imp, self.codes[j0:j1], rows, self.ycode, self.rstat,
                   self.n_bins[j0:j1], self.bin_lo[j0:j1], self.bin_hi[j0:j1], None, True,
                   self.crit, False, self.min_samples_leaf, self.min_weight_leaf, None,
                   bounds, self.no_seeds, max_features, self.fpool[: j1 - j0], t_proxy, t_nl,
                   t_thr, t_nc, t_bin, t_mgl, np.zeros((hi, j1 - j0, 0), dtype=np.uint64),
                   t_l, t_r, NO_REG)

    def release(self, ids):
        self.inner.release(ids)

    def make_room(self, ids, nodes):
        self.inner.make_room(ids, nodes)

    def split(self, ids, part, open_, nodes):
        self.inner.split(ids, part, open_, nodes)


def wide_columns(n_features, coded):
    """The features that stay in the presorted layout (int64, in order): all but the
    coded ones (``coded``: :func:`integer_columns`)."""
    return np.setdiff1d(np.arange(n_features), coded[0])


def layout_columns(X, coded):
    """The columns of ``X`` that stay in the presorted layout (C-contiguous)."""
    return np.ascontiguousarray(X[:, wide_columns(X.shape[1], coded).astype(ID_DTYPE)])

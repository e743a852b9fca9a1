"""Histogram splitter: binned features, one histogram per (open node, feature).

Data layout (built once per tree; the codes are the :class:`fastdt.Dataset`'s)::

    codes[f, :]   uint8/uint16 bin of every row of the Dataset for feature f (read only):
                  0 .. n_bins[f]-1 the value bins (categorical: the category codes),
                  n_bins[f] the missing bin (NaN)
    rows[:]       the row of codes at each position, grouped by node
    ycode[:]      class code at each position (classification)
    rstat[:, :]   statistics at each position: the weight (weighted classification),
                  or (w, w*y, w*t(y)) for regression; no columns when not needed;
                  a packed layout (binary classes, whole weights: bootstrap counts)
                  holds there each position's int64 increment instead, read through
                  the view ``rinc`` (:meth:`HistSplitter._pack`)

    positions:   | node 3: [a3, b3) | node 4: [a4, b4) | ... finished leaves ... |

Unlike the exact splitter's layout, the positions are one order for every feature: a
node owns ``[start, end)``, and splitting a node is one stable partition of that range
of the per-position arrays (sides marked once per position in ``side``); the codes
never move (LightGBM's row indices). A histogram reads its node's statistics in order
and each feature's codes through the row ids, which rise within a node (the partition
is stable), so the reads of a feature's codes only go forward. A tree of in-bag rows
(forests) is the list of their ids: no copy of the codes.

Histograms live in a pool ``float64 [slots, F, B, H]`` (``B = max(n_bins) + 1``: the
value bins of the widest feature and a missing bin): ``H`` columns per bin, the
node statistics of ``_criteria`` (class counts, or the three regression sums) plus a
row count when rows are weighted (unweighted, the count is the sum of the class
counts, or the weight sum). A node keeps its histogram in a slot while it waits to be
split; when it splits, only the smaller child's histogram is built from rows, and the
larger child's is the parent's minus the smaller's, computed in the parent's slot
(LightGBM's subtraction trick); a smaller child that keeps no histogram has its rows
subtracted from the parent's directly. Nodes with fewer rows than bins are not worth a
slot: their histograms are built on the fly in thread-local scratch when they are
scanned.

Per level, :class:`HistSplitter` (driven by :func:`fastdt._grow.grow`) partitions the
ranges of the nodes just split and builds the new histograms
(:mod:`fastdt._hist_build`, threads over features), then
:func:`fastdt._hist_scan.scan_nodes` scores every (open node, feature) with the exact
splitter's candidates, in its order, and the same criterion code (threads over nodes):
numeric cuts with the missing rows on either side, categorical partitions.
Thresholds are placed midway between the largest value of the last bin on the left
and the smallest value of the first non-empty bin on the right: with one bin per
distinct value this is exactly the exact splitter's threshold, so the two give the
same tree. :func:`fastdt._hist_build.mark_sides` then routes the missing bin to the learned side and
categorical codes by the split's bitset.
"""

import numpy as np

from ._config import HIST_POOL_BYTES
from ._criteria import NO_REG, log_criterion, reg_criterion
from ._grow import (Splits, choose, drawn_scan, in_order, kept_tables, node_ranges, take_at,
                    take_flat)
from ._hist_build import (build_features, mark_sides, plan_builds,
                          regression_rows, scatter_rows)
from ._hist_scan import NO_INC, PACK_BITS, scan_nodes
from ._parallel import n_threads, run

_NO_SIDE = np.empty(0, dtype=np.uint8)
_NO_JOBS = np.empty((0, 4), dtype=np.int64)  # a plan with no histogram to build

#: Nodes that scan a sample of the features (``max_features`` below the tree's pool:
#: forests) keep their histograms from this many rows on. A kept node's children cost
#: every feature's histogram (the smaller one's from its rows, zeroed, and the larger
#: one's subtraction, over every bin), while a node built on the fly pays for the
#: features it scans only: with sqrt(20) of 20 features the subtraction pays from a few
#: thousand rows on (a hist forest's tree about 20% faster than keeping every node of
#: ``n_bins`` rows or more; 2,048-16,384 measure alike). Nodes scanning every feature
#: keep theirs from ``n_bins`` rows on.
_SAMPLED_KEEP_ROWS = 4096


#: Positions encoded at a time by :meth:`HistSplitter._pack`
_PACK_CHUNK = 1 << 16


class HistPool:
    """Histograms kept per node in a pool, for the subtraction (module docstring).

    The slot bookkeeping shared by the splitters that keep histograms between levels
    (:class:`HistSplitter`, :class:`fastdt._exact_codes.CodedSplitter`): the pool
    ``float64 [slots, F, B, width]`` (``B``: the most value bins plus the missing bin),
    grown by doubling up to :data:`fastdt._config.HIST_POOL_BYTES`; the free slots; the
    slot of each node (``-1``: none); and the plan of a level's builds (:meth:`_plan`).
    Nodes of fewer than ``keep_rows`` rows get no slot (their histograms are built on
    the fly when scanned). ``pool``: an earlier tree's to reuse, or None.
    """

    def _init_pool(self, n_features, n_bins_max, width, n, pool=None):
        self.n_bins_max = n_bins_max
        slot_bytes = 8 * width * n_features * n_bins_max
        self.max_slots = max(2, HIST_POOL_BYTES // slot_bytes)
        shape = (n_features, n_bins_max, width)
        if pool is None or pool.shape[1:] != shape:  # else: an earlier tree's, reused
            # as many slots as the tree can hold (nodes kept have n_bins_max rows or
            # more): pages are only mapped when first written, while a pool grown later
            # costs a serial copy of the live histograms
            slots = min(self.max_slots, max(16, 2 * n // n_bins_max))
            pool = np.empty((slots,) + shape)
        self.pool = pool
        # the free slots, a stack (top last: slot 0 first) of n_free[0] entries
        self.free = np.arange(self.pool.shape[0] - 1, -1, -1, dtype=np.int64)
        self.n_free = np.array([self.pool.shape[0]], dtype=np.int64)
        self.slot = np.full(64, -1, dtype=np.int64)  # by node id: its histogram, or -1
        self.keep_rows = n_bins_max  # smaller nodes are built on the fly when scanned

    def _room(self, m):
        """At least ``m`` free slots, the pool grown by doubling if needed (up to
        ``max_slots``: fewer then). The new slots go under the free ones."""
        cap, n_free = self.pool.shape[0], int(self.n_free[0])
        if m > n_free and cap < self.max_slots:
            new_cap = cap
            while new_cap < self.max_slots and new_cap - cap < m - n_free:
                new_cap = min(2 * new_cap, self.max_slots)
            grown = np.empty((new_cap,) + self.pool.shape[1:])
            grown[:cap] = self.pool
            self.pool = grown
            free = np.empty(new_cap, dtype=np.int64)
            free[:new_cap - cap] = np.arange(new_cap - 1, cap - 1, -1)
            free[new_cap - cap:new_cap - cap + n_free] = self.free[:n_free]
            self.free = free
            self.n_free[0] = n_free + new_cap - cap

    def _take(self, m):
        """Up to ``m`` free slots of the pool (grown by doubling up to ``max_slots``)."""
        self._room(m)
        n_free = int(self.n_free[0])
        k = min(m, n_free)
        self.n_free[0] = n_free - k
        return self.free[n_free - k:n_free][::-1].copy()

    def _root_jobs(self, ids, nodes):
        """The build jobs of the histograms of the open roots ``ids`` (one tree's, or a
        batch's), into slots they keep for the subtraction."""
        jobs = np.empty((ids.shape[0], 4), dtype=np.int64)
        jobs[:, 0], jobs[:, 1], jobs[:, 3] = nodes.start[ids], nodes.end[ids], -1
        jobs[:, 2] = self.slot[ids] = self._take(ids.shape[0])
        return jobs

    def release(self, ids):
        """The nodes ``ids`` will not split: their histograms' slots are free again."""
        slots = self.slot[ids]
        held = slots >= 0
        self._free(slots[held])
        self.slot[ids[held]] = -1

    def _free(self, slots):
        n_free = int(self.n_free[0])
        self.free[n_free:n_free + slots.shape[0]] = slots
        self.n_free[0] = n_free + slots.shape[0]

    def _open_children(self, ids, open_, nodes):
        """After the nodes ``ids`` split (``open_``: their children that can split): room
        in the node-to-slot map for the children, and the slots of the split nodes with
        no open child freed. Returns uint8 [nodes]: 1 for the open children."""
        if self.slot.shape[0] < nodes.count:
            grown = np.full(max(2 * self.slot.shape[0], nodes.count), -1, dtype=np.int64)
            grown[: self.slot.shape[0]] = self.slot
            self.slot = grown
        is_open = np.zeros(nodes.count, dtype=np.uint8)
        is_open[open_] = 1
        self.release(ids[(is_open[nodes.left[ids]] == 0) & (is_open[nodes.right[ids]] == 0)])
        return is_open

    def _plan(self, part, nodes, is_open):
        """The histograms the children of the split nodes ``part`` need, and where they go.

        A split node's histogram (if it has one) passes to its larger child when that
        one is kept (open, with at least ``keep_rows`` rows), and the smaller child's
        rows are subtracted from it: straight from the rows when the smaller child is
        not kept, else through its own histogram, built from its rows into a new slot
        (``sub``). With the pool full, the larger child's is built from its rows in the
        parent's slot instead. A kept smaller child alone takes the parent's slot.
        Children not kept have theirs built on the fly when scanned. Returns int64
        ``[j, 4]`` rows ``(start, end, dst, sub)`` for
        :func:`fastdt._hist_build.build_features` (``dst = -1``: rows subtracted only).
        One kernel call (:func:`fastdt._hist_build.plan_builds`): in numpy (a dozen
        array operations a batch) the plans of 100 boosting rounds on Adult took 90-138 ms,
        now 23-37 ms.
        """
        node = np.ascontiguousarray(part[:, 2])
        held = int(np.count_nonzero(self.slot[node] >= 0))
        if not held:  # no split node kept its histogram (the deeper levels)
            return _NO_JOBS
        self._room(held)  # a slot for each smaller child that may keep one
        jobs = np.empty((node.shape[0], 4), dtype=np.int64)
        n_jobs = plan_builds(node, nodes.left, nodes.right, nodes.n_node_samples,
                             nodes.start, nodes.end, is_open, self.keep_rows, self.slot,
                             self.free, self.n_free, jobs)
        return jobs[:n_jobs]


class HistSplitter(HistPool):
    """Histogram splits of binned rows (see the module docstring).

    Parameters
    ----------
    codes : uint8 or uint16 ndarray [F, N]
        Bins of the Dataset's rows (read only).
    target, weights
        Class codes or targets, and the weights (None when every weight is 1), of the
        training rows.
    rows : None or int64 ndarray [n]
        The rows of ``codes`` the tree grows on, in the order of ``target`` (None: all,
        ``0 .. N-1``).
    n_stats, is_clf, crit
        Width of a statistics row, task, criterion code.
    n_bins, bin_lo, bin_hi : int32 [F], float64 [F, B], float64 [F, B]
        Value bins per feature (code ``n_bins[f]`` is the missing bin) and the value
        range of each (:class:`fastdt.Dataset`).
    n_categories : int32 [F]
        Categories of each feature (0: numeric; else bin ``c`` is category ``c``).
    min_samples_leaf, min_weight_leaf
        As the fit parameters (resolved).
    mono : None or int8 ndarray [F]
        Monotonic constraints for the kernels (classification: flipped to class 0).
    pool : None or float64 ndarray [slots, F, B + 1, width]
        The histogram pool of an earlier tree of the same data to reuse (trees grown one
        after another: boosting), saving its allocation and first touch; its contents
        are not read.
    tree_starts : None or int64 [B + 1]
        A batch of B trees grown together (:func:`fastdt._grow.grow`): ``rows``,
        ``target`` and ``weights`` hold each tree's side by side, tree b's at positions
        ``[tree_starts[b], tree_starts[b + 1])``.
    has_missing : bool
        Whether any code is a missing bin. False compiles and runs the numeric scan
        without its steps for missing values (:func:`fastdt._hist_scan.scan_nodes`'
        ``missing``).
    """

    feature_pool = None  # the features the tree may use (set by the engine; None: all)
    reg = NO_REG  # L2, L1 regularisation of the squared-error score (engine: boosting)
    batch_best_first = True  # best-first growth in batches (fastdt._grow._grow_batched)

    def __init__(self, codes, target, weights, *, n_stats, is_clf, crit, n_bins, bin_lo,
                 bin_hi, n_categories, min_samples_leaf, min_weight_leaf, rows=None,
                 mono=None, pool=None, tree_starts=None, has_missing=True, owned=False,
                 spare=None):
        n_features, n = codes.shape[0], target.shape[0]
        self.tables = {}  # the scan tables kept (kept_tables; the engine may share them)
        self.n, self.n_features = n, n_features
        self.codes = codes
        # partitioned in place: a copy unless owned; int32 halves the traffic of the row
        # moves and the histogram builds (int64 only for Datasets of 2**31 rows or more)
        dtype = row_dtype(codes.shape[1])
        if rows is None:
            self.rows = np.arange(n, dtype=dtype)
        else:
            self.rows = rows if owned and rows.dtype == dtype else rows.astype(dtype)
        self.is_clf, self.crit, self.n_stats = is_clf, crit, n_stats
        self.log_crit = log_criterion(is_clf, crit)
        self.reg_crit = reg_criterion(is_clf, crit)
        self.min_samples_leaf, self.min_weight_leaf = min_samples_leaf, min_weight_leaf
        self.weighted = weights is not None
        self.tree_starts = tree_starts
        self.n_trees = 1 if tree_starts is None else tree_starts.shape[0] - 1
        # a batch: each tree's arrays and total, as it alone makes them, side by side
        starts = np.array([0, n]) if tree_starts is None else tree_starts
        self.ycode, self.rstat, totals = row_arrays(target, weights, starts, is_clf, crit,
                                                    n_stats, owned)
        if tree_starts is None:
            self.total = totals[0]
        else:
            self.totals = totals
        self.n_bins, self.bin_lo, self.bin_hi = n_bins, bin_lo, bin_hi
        self.n_categories = n_categories
        self.cats = n_categories if n_categories.any() else None
        self.missing = True if has_missing else None
        self.mono = mono
        self.n_words = int((n_categories.max(initial=0) + 63) // 64)
        self.side = np.zeros(n, dtype=np.uint8)
        self.rinc = self._pack()
        # (rows, ycode, rstat) for large nodes' partitions: made on use, or views of
        # ``spare`` (buffers of at least n rows, n ycodes, n x width floats, 1-D)
        self.scratch = None
        if spare is not None and spare[0].shape[0] >= n and spare[0].dtype == dtype \
                and spare[1].shape[0] >= n and spare[1].dtype == self.ycode.dtype \
                and spare[2].shape[0] >= self.rstat.size:
            width = self.rstat.shape[1]
            self.scratch = (spare[0][:n], spare[1][:n] if self.ycode.shape[0] else
                            np.empty(0, dtype=self.ycode.dtype),
                            spare[2][:n * width].reshape(n, width))
        # a histogram has one bin more than the most value bins: the missing bin
        self._init_pool(n_features, bin_lo.shape[1] + 1,
                        n_stats + (1 if self.weighted else 0), n, pool)

    def _pack(self):
        """``rinc``: each position's increment when the histograms are summed one int64
        a bin (:func:`fastdt._hist_scan._accumulate_packed`), else ``NO_INC`` (no rows).

        They are for a binary classification whose weights are whole numbers (a
        forest's bootstrap counts) and whose every tree has fewer rows and less weight
        than ``2**(PACK_BITS - 1)``: no field of a bin overflows, and no increment has
        the bits of a NaN. The increments are then written over the weight column of
        ``rstat``, whose memory ``rinc`` (int64 [n, 1]) views: the partitions move that
        column without reading it as numbers, and every kernel that would read a weight
        there reads its increment instead, so that no array joins the layout.
        """
        if not (self.is_clf and self.weighted and self.n_stats == 2 and self.rstat.shape[0]):
            return NO_INC
        w = self.rstat[:, 0]
        starts = ([0, w.shape[0]] if self.tree_starts is None
                  else self.tree_starts.tolist())
        limit = 2**(PACK_BITS - 1)
        whole = all(np.array_equal(w[a:a + _PACK_CHUNK], np.floor(w[a:a + _PACK_CHUNK]))
                    for a in range(0, w.shape[0], _PACK_CHUNK))  # small temporaries
        if (max(b - a for a, b in zip(starts[:-1], starts[1:])) >= limit or not whole
                or np.add.reduceat(w, starts[:-1]).max() >= limit):
            return NO_INC
        rinc = self.rstat.view(np.int64)
        for a in range(0, w.shape[0], _PACK_CHUNK):  # small temporaries, reused
            b = min(a + _PACK_CHUNK, w.shape[0])
            shift = self.ycode[a:b].astype(np.int64)
            shift += 1
            shift *= PACK_BITS
            rinc[a:b, 0] = np.left_shift(w[a:b].astype(np.int64), shift) + 1
        return rinc

    def root(self):
        """Statistics of all rows (summed in row order)."""
        return self.total

    def roots(self):
        """Statistics of each tree's rows, a batch (``tree_starts``): [B, n_stats]."""
        return self.totals

    def _build(self, jobs):
        if not jobs.shape[0]:  # nothing planned (the deeper levels): no kernel call
            return
        rows = int((jobs[:, 1] - jobs[:, 0]).sum())
        run(build_features, self.n_features, rows * self.n_features, self.codes, self.rows,
            jobs, self.pool, self.n_bins, self.ycode, self.rstat, self.is_clf, self.weighted,
            self.rinc)

    def find(self, ids, nodes, rng, max_features):
        """The best split of each open node ``ids`` (a :class:`fastdt._grow.Splits`)."""
        self.keep_rows = self._keep_rows(max_features)
        if nodes.count == self.n_trees:  # the first level: the roots
            self._build(self._root_jobs(ids, nodes))
        k, n_features, n_stats = ids.shape[0], self.n_features, self.n_stats
        scan = node_ranges(nodes, ids)
        f, s, f64, i64 = (n_features,), (n_features, n_stats), np.float64, np.int64
        t_proxy, t_nl, t_thr, t_nc, t_bin, t_mgl, t_cat, t_l, t_r = kept_tables(
            self.tables, k, (("proxy", f, f64), ("n_left", f, i64), ("threshold", f, f64),
                             ("non_constant", f, np.uint8), ("bin", f, i64),
                             ("missing_left", f, i64),
                             ("categories", (n_features, self.n_words), np.uint64),
                             ("left", s, f64), ("right", s, f64)))
        t_cat[:] = 0  # a numeric feature's: none
        pool, seeds = drawn_scan(self, ids, rng, max_features, t_proxy, t_nl, t_nc)
        slots = self.slot[ids]
        # stored histograms cost a pass over their bins; the others one over their rows
        rows = int(np.where(slots >= 0, self.n_bins_max, scan[:, 1] - scan[:, 0]).sum())
        run(scan_nodes, k, rows * min(n_features, int(max_features)), self.pool, slots, scan,
            nodes.stats[ids], nodes.weighted_n_node_samples[ids], nodes.impurity[ids],
            self.codes, self.rows, self.ycode, self.rstat, self.n_bins, self.bin_lo,
            self.bin_hi, self.cats, self.missing, self.reg_crit, self.crit, self.log_crit,
            self.weighted,
            self.min_samples_leaf, self.min_weight_leaf, self.mono, nodes.bounds[ids],
            seeds, int(max_features), pool, in_order(seeds, max_features, self), t_proxy, t_nl,
            t_thr, t_nc, t_bin, t_mgl, t_cat, t_l, t_r, self.reg, self.rinc)
        sp = Splits(k, n_stats, self.n_words, 0)
        feat = choose(t_proxy, t_nl, t_nc, max_features, rng, ids, self.feature_pool, seeds)
        has = np.flatnonzero(feat >= 0)
        sp.feature = feat
        take_splits(sp, has, feat[has], scan, t_nl, t_thr, t_bin, t_mgl, t_l, t_r)
        sp.cat[has] = take_at(t_cat, has, feat[has])
        return sp

    def _keep_rows(self, max_features):
        """The fewest rows of a node whose histograms are kept (:data:`_SAMPLED_KEEP_ROWS`)."""
        n_pool = self.n_features if self.feature_pool is None else self.feature_pool.shape[0]
        if max_features >= n_pool:
            return self.n_bins_max
        return max(self.n_bins_max, _SAMPLED_KEEP_ROWS)

    def make_room(self, ids, nodes):
        """Children never share rows here."""

    def split(self, ids, part, open_, nodes):
        """Move the rows of the split nodes ``part`` to their children, then build the
        histograms of the children that will be scanned."""
        is_open = self._open_children(ids, open_, nodes)
        if not part.shape[0]:
            return
        node = part[:, 2]
        rows = int((part[:, 1] - part[:, 0]).sum())
        pieces, cut = _pieces(part, rows, n_threads(rows))
        n_right = np.empty(pieces.shape[0], dtype=np.int64)
        # the whole nodes' rows are moved in the same call (one handoff to the threads)
        whole = (~cut[pieces[:, 2]]).view(np.uint8)
        run(mark_sides, pieces.shape[0], rows * (1 + self.rstat.shape[1]), self.codes,
            self.rows, pieces, nodes.feature[node], nodes.c_bin[node],
            nodes.missing_go_left[node], nodes.cat[node], self.n_bins, self.n_categories,
            self.side, n_right, whole, self.ycode, self.rstat)
        if cut.any():
            self._scatter(pieces, n_right, part, cut)
        self._build(self._plan(part, nodes, is_open))

    def _scatter(self, pieces, n_right, part, cut):
        """Partition the nodes ``part[cut]``, cut in ``pieces`` whose rows going right
        were counted (``n_right``), on threads: each piece's rows go to its places among
        its node's left rows and among its right rows, in scratch arrays, then back."""
        keep = cut[pieces[:, 2]]
        pieces, n_right = pieces[keep], n_right[keep]
        m = pieces[:, 2]
        n_left = pieces[:, 1] - pieces[:, 0] - n_right
        first = np.flatnonzero(np.r_[True, m[1:] != m[:-1]])  # each node's first piece
        node = np.repeat(np.arange(first.shape[0]), np.diff(np.r_[first, m.shape[0]]))
        before_l = np.cumsum(n_left) - n_left  # left rows of the earlier pieces
        before_r = np.cumsum(n_right) - n_right
        start = part[m, 0]
        dst = np.stack([start + before_l - before_l[first][node],
                        start + np.add.reduceat(n_left, first)[node]
                        + before_r - before_r[first][node]], axis=1)
        if self.scratch is None:
            self.scratch = (np.empty_like(self.rows), np.empty_like(self.ycode),
                            np.empty_like(self.rstat))
        arrays = (self.rows, self.ycode, self.rstat)
        work = int((pieces[:, 1] - pieces[:, 0]).sum()) * (2 + self.rstat.shape[1])
        run(scatter_rows, pieces.shape[0], work, pieces, dst, self.side, *arrays,
            *self.scratch)
        run(scatter_rows, pieces.shape[0], work, pieces, pieces[:, :2].copy(), _NO_SIDE,
            *self.scratch, *arrays)


def take_splits(sp, m, f, scan, t_nl, t_thr, t_bin, t_mgl, t_l, t_r):
    """Rows ``m`` of the :class:`fastdt._grow.Splits` ``sp`` from the numeric entries of
    :func:`fastdt._hist_scan.scan_nodes`' tables at features ``f`` (one per node of
    ``m``); ``scan``: every scanned node's range."""
    at = m * t_nl.shape[1] + f
    sp.threshold[m] = take_flat(t_thr, at)
    sp.bin[m] = take_flat(t_bin, at)
    sp.mgl[m] = take_flat(t_mgl, at)
    sp.lst[m] = take_flat(t_l, at)
    sp.rst[m] = take_flat(t_r, at)
    n_left = take_flat(t_nl, at)
    sp.n_left[m] = n_left
    sp.n_right[m] = scan[m, 1] - scan[m, 0] - n_left


def _pieces(part, rows, k):
    """The ranges ``part[:, :2]`` of a level's split nodes (``rows`` in all) as pieces for
    ``k`` threads: int64 ``[p, 3]`` rows ``(start, end, m)``, a piece of ``part[m]``, and
    per node whether it was cut (on one thread none is; else the nodes of at least
    ``rows / (2k)`` rows, in pieces of about ``rows / (4k)``)."""
    if k <= 1:  # each node one piece (small data: this runs once per batch of splits)
        pieces = np.empty((part.shape[0], 3), dtype=np.int64)
        pieces[:, :2] = part[:, :2]
        pieces[:, 2] = np.arange(part.shape[0])
        return pieces, np.zeros(part.shape[0], dtype=bool)
    size = part[:, 1] - part[:, 0]
    count = np.maximum(1, size // max(1, rows // (4 * k)))
    m = np.repeat(np.arange(part.shape[0]), count)
    j = np.arange(m.shape[0]) - np.repeat(np.cumsum(count) - count, count)
    start = part[m, 0] + size[m] * j // count[m]
    end = part[m, 0] + size[m] * (j + 1) // count[m]
    return np.stack([start, end, m], axis=1), count > 1


def row_dtype(n):
    """Type of the row ids of a Dataset of ``n`` rows: int32 when they fit."""
    return np.int32 if n < 2**31 else np.int64


def row_arrays(target, weights, starts, is_clf, crit, n_stats, owned=False):
    """The per-row arrays of the layout, ``(ycode, rstat, totals)``, from the targets
    (class codes, or y) and the weights (None when every weight is 1) of a batch of trees
    side by side (tree b's rows from ``starts[b]`` to ``starts[b + 1]``; one tree:
    ``[0, n]``), and each tree's statistics, summed in row order as it alone sums them
    (``totals`` [B, n_stats]). ``owned``: ``target`` and ``weights`` are the caller's to
    give away, and are taken as the class codes and the weight column where their type
    allows (no copy): int32 codes, a float64 column."""
    n, n_trees = target.shape[0], starts.shape[0] - 1
    bounds = list(zip(starts[:-1].tolist(), starts[1:].tolist()))
    if is_clf:
        ycode = target if owned and target.dtype == np.int32 else np.array(target,
                                                                          dtype=np.int32)
        if weights is None:
            rstat = np.empty((n, 0))
        else:
            rstat = weights.reshape(-1, 1)
            rstat = rstat if owned else rstat.copy()
        totals = np.stack([
            np.bincount(ycode[a:b], weights=None if weights is None else rstat[a:b, 0],
                        minlength=n_stats).astype(np.float64) for a, b in bounds])
        return ycode, rstat, totals
    rstat, totals = np.empty((n, 3)), np.empty((n_trees, 3))
    for t, (a, b) in enumerate(bounds):
        regression_rows(crit, target[a:b], np.ones(b - a) if weights is None
                        else weights[a:b], rstat[a:b], totals[t])
    return np.empty(0, dtype=np.int32), rstat, totals



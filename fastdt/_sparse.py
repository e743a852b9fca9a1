"""The sparse splitter: exact (or binned) splits of a ``scipy.sparse`` X, never made dense.

:func:`prepare_sparse` turns the CSC columns of X (:func:`fastdt._input.check_X_sparse_fit`)
into the layout of :mod:`fastdt._sparse_scan`: each column's stored values sorted once
(ties in the order of ``(weight, target)``, as :func:`fastdt._exact.presort`, so the
tree does not depend on the order of the rows), with their rows' targets and weights.
With ``splitter="hist"`` the stored values are first replaced by their bin codes
(:func:`sparse_bins`: the histogram splitter's bins, found from the CSC columns with the
implicit zeros counted as one value), so that both splitters grow, on a sparse X, the
tree they grow on its dense copy.

:class:`SparseSplitter` serves the growth driver (:func:`fastdt._grow.grow`) as the
exact and histogram splitters do. Memory: the layout holds, per stored value, a row id,
the value, the target and (when weighted) the weight, plus four arrays of ``n`` and the
``[k, F]`` candidate tables of a level; nothing of size ``n * F``.
"""

import numpy as np

from ._binning import feature_bins, thresholds
from ._config import DEFAULT_SUBSAMPLE, ID_DTYPE
from ._grow import Splits, choose, take_at
from ._parallel import run
from ._sparse_scan import (
    children_stats, partition_rows, relabel, route_sparse, scan_sparse, sort_columns,
    zero_sides,
)


def _column_bins(v, n_rows, max_bins):
    """Bins of one sparse column from its stored values ``v`` among ``n_rows`` rows
    (the others are zeros): as :func:`fastdt._binning.feature_bins` on the dense column."""
    present = np.sort(v[~np.isnan(v)].astype(np.float64))
    nz = n_rows - v.shape[0]
    if nz <= 0:
        return feature_bins(present, max_bins)
    at = int(np.searchsorted(present, 0.0))
    values = np.empty(present.shape[0] + 1)
    values[:at], values[at], values[at + 1:] = present[:at], 0.0, present[at:]
    mult = np.ones(values.shape[0], dtype=np.int64)
    mult[at] = nz
    return feature_bins(values, max_bins, mult)


def _codes(v, lo, hi):
    """Bin codes of the values ``v`` (NaN stays NaN) and whether one fell outside its
    bin's sample range."""
    edges = thresholds(hi[:-1], lo[1:])
    codes = np.searchsorted(edges, v, side="left").astype(np.float64)
    present = ~np.isnan(v)
    k = codes[present].astype(np.int64)
    x = v[present]
    outside = bool(np.any((x < lo[k]) | (x > hi[k]))) if lo.shape[0] else bool(present.any())
    codes[~present] = np.nan
    return codes, outside


def sparse_bins(indptr, rows, vals, n, max_bins, subsample=DEFAULT_SUBSAMPLE, seed=0):
    """The histogram splitter's bins of sparse columns, as
    :func:`fastdt._binning.bin_data` finds them on the dense copy (the same sample of
    rows, the same edges; a column binned one value per bin is binned again from all
    its rows when the sample missed some of its values).

    Returns ``(codes, zcode, bin_lo, bin_hi, n_bins)``: each stored value's bin code
    minus its column's zero code (``vals``' dtype, NaN kept), the zero's bin code per
    column, the bins' value ranges (float64 [F, B], padded with ``inf``/``-inf``) and
    the value bins per column.
    """
    n_features = indptr.shape[0] - 1
    in_sample = None
    n_s = n
    if n > subsample:
        sample = np.random.default_rng(seed).choice(n, size=subsample, replace=False)
        in_sample = np.zeros(n, dtype=bool)
        in_sample[sample] = True
        n_s = subsample
    out = np.empty(vals.shape[0], dtype=vals.dtype)
    zcode = np.zeros(n_features, dtype=np.int64)
    bins = []
    for f in range(n_features):
        a, b = indptr[f], indptr[f + 1]
        v = vals[a:b]
        sampled = v if in_sample is None else v[in_sample[rows[a:b]]]
        lo, hi, exact = _column_bins(sampled, n_s, max_bins)
        has_zero = b - a < n
        z = np.array([0.0]) if has_zero else np.zeros(0)
        codes, outside = _codes(np.concatenate([v.astype(np.float64), z]), lo, hi)
        if in_sample is not None and exact and outside:
            lo, hi, _ = _column_bins(v, n, max_bins)
            codes, _ = _codes(np.concatenate([v.astype(np.float64), z]), lo, hi)
        zcode[f] = int(np.searchsorted(thresholds(hi[:-1], lo[1:]), 0.0, side="left"))
        out[a:b] = codes[: b - a] - zcode[f]
        bins.append((lo, hi))
    n_bins = np.array([lo.shape[0] for lo, _ in bins], dtype=np.int32)
    width = max(1, int(n_bins.max(initial=0)))
    bin_lo = np.full((n_features, width), np.inf)
    bin_hi = np.full((n_features, width), -np.inf)
    for f, (lo, hi) in enumerate(bins):
        bin_lo[f, : lo.shape[0]] = lo
        bin_hi[f, : hi.shape[0]] = hi
    return out, zcode, bin_lo, bin_hi, n_bins


def prepare_sparse(box, target, weights, positive, max_bins=None):
    """The sparse splitter's layout of the checked CSC columns in the list ``box``
    (:func:`fastdt._input.check_X_sparse_fit`'s tuple, taken out of it so that the
    columns are freed as soon as the layout holds them) for the rows of ``positive``
    weight (None: all), with their ``target`` and ``weights`` (None: every weight 1).
    ``max_bins`` (histogram splitter): the values become bin codes first."""
    indptr, rows, vals, n_all = box.pop()
    n_features = indptr.shape[0] - 1
    bins = None
    if max_bins is not None:
        vals, zcode, bin_lo, bin_hi, _ = sparse_bins(indptr, rows, vals, n_all, max_bins)
        bins = (zcode, bin_lo, bin_hi)
    if positive is not None:  # rows of weight zero take no part in the growth
        col = np.repeat(np.arange(n_features), np.diff(indptr))
        keep = positive[rows]
        new_id = (np.cumsum(positive) - 1).astype(ID_DTYPE)
        rows, vals, col = new_id[rows[keep]], vals[keep], col[keep]
        indptr = np.concatenate([[0], np.cumsum(np.bincount(col, minlength=n_features))])
    n = target.shape[0]
    keys = [target] if weights is None else [weights, target]
    base = (np.argsort(target, kind="stable") if len(keys) == 1
            else np.lexsort(keys)).astype(ID_DTYPE)
    rank = np.empty(n, dtype=np.int64)
    rank[base] = np.arange(n)
    order = np.empty(rows.shape[0], dtype=np.int64)  # by column, value (NaN last), tie key
    run(sort_columns, n_features, rows.shape[0] * 8, indptr, rows, vals, rank, order)
    e_vals = vals[order]
    del vals
    e_rows = np.ascontiguousarray(rows[order], dtype=ID_DTYPE)
    del rows, order
    y = target.astype(np.float64)
    w = np.empty(0) if weights is None else np.asarray(weights, dtype=np.float64)
    return dict(indptr=indptr.astype(np.int64), e_rows=e_rows, e_vals=e_vals,
                e_ys=y[e_rows], e_ws=w[e_rows] if w.shape[0] else w, order=base, y=y, w=w,
                bins=bins)


def in_bag_layout(layout, weights):
    """The layout of the rows of positive ``weights`` (float64 [n] by row id; a forest
    tree's in-bag counts times the sample weights), each entry weighted: the same sorted
    order, nothing sorted again."""
    out = dict(layout)
    indptr = layout["indptr"]
    keep = weights[layout["e_rows"]] > 0
    n_features = indptr.shape[0] - 1
    col = np.repeat(np.arange(n_features), np.diff(indptr))
    counts = np.bincount(col[keep], minlength=n_features)
    out["indptr"] = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    for name in ("e_rows", "e_vals", "e_ys"):
        out[name] = np.ascontiguousarray(layout[name][keep])
    out["e_ws"] = weights[out["e_rows"]]
    order = layout["order"]
    out["order"] = np.ascontiguousarray(order[weights[order] > 0])
    out["w"] = weights
    return out


def rows_root(splitter, order=None, w=None):
    """Statistics of all the rows of a splitter that keeps them as ``order`` (row ids),
    with ``side`` all 0, ``y``, ``w`` (empty: all 1), ``is_clf``, ``crit``, ``n_stats``;
    or of the rows ``order`` with weights ``w`` (one tree of a batch)."""
    order = splitter.order if order is None else order
    w = splitter.w if w is None else w
    lst, rst = np.zeros((1, splitter.n_stats)), np.zeros((1, splitter.n_stats))
    children_stats(0, 1, order, np.zeros(1, np.int64), np.full(1, order.shape[0], np.int64),
                   splitter.side, splitter.y, w, splitter.is_clf, splitter.crit, lst, rst,
                   np.zeros(1, np.int64), np.zeros(1, np.int64))
    return lst[0]


class SparseSplitter:
    """Splits of the rows of a sparse X from its layout (:func:`prepare_sparse`,
    rearranged in place by the growth; pass a copy to keep it).

    Parameters as :class:`fastdt._exact.ExactSplitter` where they agree: ``n_stats``,
    ``is_clf``, ``crit``, ``min_samples_leaf``, ``min_weight_leaf``, ``random_seed``
    (``splitter="random"``), ``mono``. Missing values are learnt (``missing="learn"``);
    every feature is numeric.
    """

    feature_pool = None  # the features the tree may use (set by the engine; None: all)

    def __init__(self, layout, *, n_stats, is_clf, crit, min_samples_leaf, min_weight_leaf,
                 random_seed=None, mono=None):
        self.__dict__.update(layout)
        self.n = self.order.shape[0]  # rows in the tree (ids index y: all prepared rows)
        self.n_features = self.indptr.shape[0] - 1
        self.is_clf, self.crit, self.n_stats = is_clf, crit, n_stats
        self.min_samples_leaf, self.min_weight_leaf = min_samples_leaf, min_weight_leaf
        self.random_seed, self.mono = random_seed, mono
        if self.bins is None:
            self.zcode, self.bin_lo, self.bin_hi = (np.zeros(0, dtype=np.int64),
                                                    np.zeros((1, 1)), np.zeros((1, 1)))
        else:
            self.zcode, self.bin_lo, self.bin_hi = self.bins
        self.live_end = self.indptr[1:].copy()
        self.node_of = np.zeros(self.y.shape[0], dtype=np.int32)
        self.e_node = np.zeros(self.e_rows.shape[0], dtype=np.int32)
        self.side = np.zeros(self.y.shape[0], dtype=np.uint8)
        self.moved = False  # rows changed node since the last scan
        self.node_slot = np.full(64, -1, dtype=np.int64)

    def root(self):
        """Statistics of all rows."""
        return rows_root(self)

    def find(self, ids, nodes, rng, max_features):
        """The best split of each open node ``ids`` (a :class:`fastdt._grow.Splits`);
        partitions the columns after the last split first."""
        k, n_features = ids.shape[0], self.n_features
        if self.node_slot.shape[0] < nodes.count:
            grown = np.full(max(2 * self.node_slot.shape[0], nodes.count), -1, np.int64)
            grown[: self.node_slot.shape[0]] = self.node_slot
            self.node_slot = grown
        self.node_slot[ids] = np.arange(k)
        self.nodes = nodes  # the driver's tables: release() reads the released ranges
        t_proxy = np.full((k, n_features), -np.inf)
        t_nl = np.zeros((k, n_features), dtype=np.int64)
        t_thr = np.full((k, n_features), np.nan)
        t_cut = np.full((k, n_features), np.nan)
        t_nc = np.zeros((k, n_features), dtype=np.uint8)
        t_mgl = np.full((k, n_features), -1, dtype=np.int8)
        live = self.live_end - self.indptr[:-1]
        scratch_n = int(live.max(initial=0)) if self.moved else 0
        rseed = None if self.random_seed is None else rng.splits(ids)
        starts, ends = nodes.start[ids], nodes.end[ids]
        rows = int((ends - starts).sum())
        run(scan_sparse, n_features, int(live.sum()) + rows, self.indptr, self.live_end,
            self.e_rows, self.e_vals, self.e_ys, self.e_ws, self.e_node, self.node_of,
            self.side, self.moved, self.node_slot, ends - starts, nodes.stats[ids],
            nodes.weighted_n_node_samples[ids], nodes.impurity[ids], self.is_clf, self.crit,
            self.min_samples_leaf, self.min_weight_leaf, rseed, self.mono, nodes.bounds[ids],
            self.zcode, self.bin_lo, self.bin_hi, scratch_n, t_proxy, t_nl, t_thr, t_cut,
            t_nc, t_mgl)
        self.moved = False
        sp = Splits(k, self.n_stats, 0, 0)
        feat = choose(t_proxy, t_nl, t_nc, max_features, rng, ids, self.feature_pool)
        has = np.flatnonzero(feat >= 0)
        sp.feature = feat
        f = feat[has]
        sp.threshold[has] = take_at(t_thr, has, f)
        sp.mgl[has] = take_at(t_mgl, has, f)
        cut = np.zeros(k)
        cut[has] = take_at(t_cut, has, f)
        if has.shape[0]:
            s_start, s_end = starts[has], ends[has]
            work = int((s_end - s_start).sum())
            zero_side = (~(0.0 <= cut[has])).astype(np.uint8)
            run(zero_sides, has.shape[0], work, self.order, s_start, s_end, zero_side,
                self.side)
            run(route_sparse, n_features, int(live.sum()), self.indptr, self.live_end,
                self.e_rows, self.e_vals, self.e_node, self.node_slot, feat, cut, sp.mgl,
                self.side)
            lst, rst = np.empty((has.shape[0], self.n_stats)), np.empty((has.shape[0],
                                                                         self.n_stats))
            n_l, n_r = np.empty(has.shape[0], np.int64), np.empty(has.shape[0], np.int64)
            run(children_stats, has.shape[0], work, self.order, s_start, s_end, self.side,
                self.y, self.w, self.is_clf, self.crit, lst, rst, n_l, n_r)
            sp.lst[has], sp.rst[has], sp.n_left[has], sp.n_right[has] = lst, rst, n_l, n_r
        self.node_slot[ids] = -1
        return sp

    def release(self, ids):
        """The rows of nodes that will not split leave the layout at the next scan."""
        if ids.shape[0]:
            none = np.full(ids.shape[0], -1, np.int32)
            self._relabel(ids, none, none, self.nodes)

    def make_room(self, ids, nodes):
        """Nothing to make: children share their parent's rows."""

    def split(self, ids, part, open_, nodes):
        """Move the rows of the split nodes to their children (``order`` partitioned,
        ``node_of`` relabelled; the columns follow at the next scan)."""
        if part.shape[0]:
            run(partition_rows, part.shape[0], int((part[:, 1] - part[:, 0]).sum()),
                self.order, self.side, part)
        is_open = np.zeros(nodes.count, dtype=bool)
        is_open[open_] = True
        left, right = nodes.left[ids], nodes.right[ids]
        self._relabel(ids, np.where(is_open[left], left, -1).astype(np.int32),
                      np.where(is_open[right], right, -1).astype(np.int32), nodes)

    def _relabel(self, ids, left_id, right_id, nodes):
        starts, ends = nodes.start[ids], nodes.end[ids]
        run(relabel, ids.shape[0], int((ends - starts).sum()), self.order, starts, ends,
            self.side, left_id, right_id, self.node_of)
        self.moved = True

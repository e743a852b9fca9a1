"""The histogram splitter of a distributed fit: histograms summed over the partitions.

:class:`DaskHistSplitter` is :class:`fastdt._hist.HistSplitter` with its rows on the
workers. The driver (:func:`fastdt._grow.grow`, unchanged) asks it for the best split
of the open nodes; it keeps every open node's histogram on the client, in the pool
``HistSplitter`` scans (the same scan kernel, the same candidates). When nodes split,
one round of tasks builds the smaller children's histograms: each partition routes its
rows down the tree as grown so far (:func:`fastdt._hist_build.route_codes`: no layout
is kept between levels, so a level needs nothing but the persisted partitions and the
tree) and builds their histograms with :func:`fastdt._hist_build.build_features`; the
partitions' histograms are summed by a tree reduction on the workers, and the client
subtracts each from its parent's to get the larger child's (LightGBM's trick, as one
machine does it). Every statistic is fixed-point (:mod:`fastdt.dask._partitions`), so
every one of these sums is exact: the tree does not depend on the partitioning.

Only the chosen splits travel to the workers (the node tables, a few kilobytes), and
only the histograms of the nodes built travel back.
"""

import time

import numpy as np

from .._hist import HistSplitter
from .._parallel import run

_FAN_IN = 4  # partitions' histograms added per reduction task


def route(codes, tree):
    """The node (int64 [m]) each row of ``codes`` (a partition's, ``[F, m]``) reaches in
    ``tree``, the tables :func:`histograms` takes (:func:`tables_of` makes them of a
    :class:`fastdt.Tree`)."""
    from .._hist_build import route_codes

    n = codes.shape[1]
    node = np.zeros(n, dtype=np.int64)
    if tree[0].shape[0] > 1:
        run(route_codes, n, 8 * n, codes, *tree, node)
    return node


def tables_of(tree, data):
    """The routing tables of a fitted :class:`fastdt.Tree` grown on the bins of ``data``
    (:attr:`fastdt.dask.api._Distributed.data`), as :func:`route` takes them: a numeric
    split's last bin on the left is the last bin whose largest value is at most the
    threshold (the threshold lies between that value and the next bin's smallest), so
    a partition's rows go where they went when the tree grew."""
    n_bins, bin_hi = data["n_bins"].astype(np.int64), data["bin_hi"]
    n_categories = data["n_categories"].astype(np.int64)
    m = tree.node_count
    feature = tree.feature.astype(np.int64)
    cbin = np.zeros(m, dtype=np.int64)
    cat = np.zeros((m, int((n_categories.max(initial=0) + 63) // 64)), dtype=np.uint64)
    for k in np.flatnonzero(feature >= 0):
        f, off = feature[k], tree.cat_offset[k]
        if off >= 0:
            w = int((n_categories[f] + 63) // 64)
            cat[k, :w] = tree.cat_bitsets[off:off + w]
        else:
            cbin[k] = np.searchsorted(bin_hi[f, : n_bins[f]], tree.threshold[k], "right") - 1
    return (feature, tree.left.astype(np.int64), tree.right.astype(np.int64), cbin,
            tree.missing_go_left.astype(np.int64), cat, n_bins, n_categories)


def histograms(part, tree, targets, shape, is_clf, weighted):
    """The histograms (float64 ``[k, F, B, H]``) of the nodes ``targets`` (int64 [k])
    over one partition's rows (:func:`fastdt.dask._partitions.binned`). ``tree``: the
    driver's tables ``(feature, left, right, cbin, mgl, cat, n_bins, n_categories)``."""
    from .._hist import row_dtype
    from .._hist_build import build_features
    from .._hist_scan import NO_INC

    codes, ycode, rstat = part["codes"], part["ycode"], part["rstat"]
    feature, n_bins = tree[0], tree[6]
    node = route(codes, tree)
    slot = np.full(feature.shape[0], -1, dtype=np.int64)
    slot[targets] = np.arange(targets.shape[0])
    t = slot[node]
    rows = np.flatnonzero(t >= 0)
    # each node's rows in row order (a stable sort of small integers: a radix sort)
    order = np.argsort(t[rows].astype(np.int16 if targets.shape[0] < 2**15 else np.int64),
                       kind="stable")
    rows = rows[order].astype(row_dtype(codes.shape[1]))
    sizes = np.bincount(t[rows], minlength=targets.shape[0])
    ends = np.cumsum(sizes)
    jobs = np.stack([ends - sizes, ends, np.arange(targets.shape[0]),
                     np.full(targets.shape[0], -1)], axis=1).astype(np.int64)
    pool = np.zeros((targets.shape[0],) + shape)
    pos_code = ycode[rows] if is_clf else ycode
    run(build_features, codes.shape[0], rows.shape[0] * codes.shape[0], codes, rows, jobs,
        pool, n_bins.astype(np.int32), pos_code, np.ascontiguousarray(rstat[rows]), is_clf,
        weighted, NO_INC)
    return pool


def _add(*pools):
    out = pools[0].copy()
    for p in pools[1:]:
        out += p
    return out


def summed(client, parts, *args):
    """:func:`histograms` of every partition, summed on the workers (a tree reduction
    in partition order; the sums are exact, so the order only fixes the work); returns
    ``(pool, bytes)``: the sum and the bytes of the partitions' histograms."""
    level = client.map(histograms, parts, *[[a] * len(parts) for a in args], pure=False)
    while len(level) > 1:
        level = [client.submit(_add, *level[i:i + _FAN_IN], pure=False)
                 for i in range(0, len(level), _FAN_IN)]
    pool = level[0].result()
    moved = pool.nbytes * len(parts)
    return pool, moved


class DaskHistSplitter(HistSplitter):
    """:class:`fastdt._hist.HistSplitter` over persisted partitions (module docstring).

    Parameters
    ----------
    client, parts
        The Dask client and the futures of the binned partitions.
    data : dict
        ``n`` (rows of positive weight), ``total`` (their statistics), ``weighted``,
        ``n_bins``, ``bin_lo``, ``bin_hi``, ``n_categories``, ``code_dtype``.
    n_stats, is_clf, crit, min_samples_leaf, min_weight_leaf, mono
        As :class:`fastdt._hist.HistSplitter`'s.
    log : list or None
        Where to append, per round of tasks, ``(nodes built, bytes of the partitions'
        histograms, seconds)``.
    """

    def __init__(self, client, parts, data, *, n_stats, is_clf, crit, min_samples_leaf,
                 min_weight_leaf, mono, log=None):
        n_features = data["n_bins"].shape[0]
        super().__init__(
            np.empty((n_features, 0), dtype=data["code_dtype"]),
            np.empty(0, dtype=np.int32 if is_clf else np.float64),
            np.empty(0) if data["weighted"] else None, n_stats=n_stats, is_clf=is_clf,
            crit=crit, n_bins=data["n_bins"], bin_lo=data["bin_lo"], bin_hi=data["bin_hi"],
            n_categories=data["n_categories"], min_samples_leaf=min_samples_leaf,
            min_weight_leaf=min_weight_leaf, mono=mono)
        self.client, self.parts, self.log = client, parts, log
        self.n, self.total = data["n"], data["total"]
        self.max_slots = np.iinfo(np.int64).max  # the client holds every open node's

    def _keep_rows(self, max_features):
        """Every node's histograms are kept: the workers hold the rows."""
        return 0

    def _remote(self, nodes, targets):
        """The summed histograms of the nodes ``targets`` of the tree ``nodes`` grows
        (None: the root alone), in one round of tasks."""
        t0 = time.perf_counter()
        m = 1 if nodes is None else nodes.count
        if nodes is None:
            tree = (np.full(1, -1), np.full(1, -1), np.full(1, -1), np.zeros(1, np.int64),
                    np.zeros(1, np.int64), np.zeros((1, self.n_words), np.uint64))
        else:
            tree = tuple(a[:m].copy() for a in (nodes.feature, nodes.left, nodes.right,
                                                 nodes.c_bin, nodes.missing_go_left,
                                                 nodes.cat))
        tree += (self.n_bins.astype(np.int64), self.n_categories.astype(np.int64))
        pool, moved = summed(self.client, self.parts, tree, targets, self.pool.shape[1:],
                             self.is_clf, self.weighted)
        if self.log is not None:
            self.log.append((int(targets.shape[0]), moved, time.perf_counter() - t0))
        return pool

    def _build(self, jobs):
        """The root's histogram (``HistSplitter.find`` asks for it; the others are
        made by :meth:`split`)."""
        assert jobs.shape[0] == 1 and jobs[0, 0] == 0 and jobs[0, 1] == self.n
        self.pool[jobs[0, 2]] = self._remote(None, np.zeros(1, dtype=np.int64))[0]

    def split(self, ids, part, open_, nodes):
        """The children's histograms: the smaller child's from the partitions, the
        larger's its parent's minus it (in the parent's slot)."""
        is_open = self._open_children(ids, open_, nodes).view(bool)
        if not part.shape[0]:
            return
        node = part[:, 2]
        ps = self.slot[node]
        self.slot[node] = -1
        lc, rc = nodes.left[node], nodes.right[node]
        left_small = nodes.n_node_samples[lc] <= nodes.n_node_samples[rc]
        small, large = np.where(left_small, lc, rc), np.where(left_small, rc, lc)
        h = self._remote(nodes, small)
        self.pool[ps] -= h
        keep_large, keep_small = is_open[large], is_open[small]
        self.slot[large[keep_large]] = ps[keep_large]
        self._free(ps[~keep_large])
        new = self._take(int(keep_small.sum()))
        self.pool[new] = h[keep_small]
        self.slot[small[keep_small]] = new

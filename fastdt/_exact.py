"""The exact splitter: every threshold between two distinct values, from a presorted layout.

:class:`ExactSplitter` sorts every feature once (:func:`fastdt._exact_scan.gather_rows`,
``sort_features``), then serves the growth driver (:func:`fastdt._grow.grow`) level by
level: :meth:`ExactSplitter.find` partitions the ranges of the nodes split last and
scans every (open node, feature) in one pass per feature
(:func:`fastdt._exact_scan.scan_features`, threads over features), chooses each node's
feature and walks it to mark every row's side and sum the children's statistics
(``walk_nodes``, threads over nodes); with ``missing="surrogate"`` it then finds and
applies the surrogate splits (:mod:`fastdt._missing`). The layout and its kernels are
described in :mod:`fastdt._exact_scan`.

Each kind of fit compiles only the kernels it calls: the optional state (``cats``,
``dup``, the rows for surrogates) is None when unused, and numba prunes the code that
reads it before typing.
"""

import numpy as np

from ._absolute import root_absolute
from ._config import ABSOLUTE_ERROR, ID_DTYPE
from ._exact_scan import (
    assign_copies, gather_in_bag, gather_rows, node_ranks, root_stats, scan_features,
    sort_features, walk_nodes,
)
from ._grow import Splits, choose, drawn_scan, kept_tables, node_ranges, take_flat
from ._missing import choose_all_surrogates, find_surrogates, resolve_surrogates
from ._multi import children_multi, root_multi
from ._criteria import log_criterion, node_weights, reg_criterion
from ._parallel import n_threads, run


def _row_hashes(X):
    """A 64-bit hash of each row's values (FNV-style over the float64 bit patterns, -0.0
    as 0.0, every NaN alike): a key for ordering tied rows that does not depend on where
    a row stands in X."""
    h = np.full(X.shape[0], 0xCBF29CE484222325, dtype=np.uint64)
    prime = np.uint64(0x100000001B3)
    for j in range(X.shape[1]):
        col = X[:, j].astype(np.float64) + 0.0  # -0.0 -> 0.0
        col[np.isnan(col)] = np.nan
        h ^= col.view(np.uint64)
        h *= prime
        h ^= h >> np.uint64(29)
    return h


#: Up to this many classes, the tie order is found a class at a time.
_FEW_CLASSES = 4


def presort(X, target, weights, whole_rows=False, other_targets=None):
    """The presorted layout ``(idx, xs, ys, ws)`` of the rows of ``X`` (see
    :mod:`fastdt._exact_scan`): every feature sorted once, ties in the order of
    ``(target, weights)`` (so that the order in which a scan adds up statistics does not
    depend on the order of the rows). ``weights`` None: every weight is 1 (``ws`` then
    has no columns). ``whole_rows`` (``missing="fractional"``, where rows tied on a
    feature, a target and a weight may later carry different fractions of their weight):
    ties are ordered by the rest of the row too (:func:`_row_hashes`), so that the sums
    do not depend on the order of the rows either. ``other_targets`` (several outputs):
    the other outputs' columns, ordering ties after the first."""
    n, n_features = X.shape
    idx = np.empty((n_features, n), dtype=ID_DTYPE)
    xs = np.empty((n_features, n), dtype=X.dtype)
    ys = np.empty((n_features, n), dtype=np.float64)
    ws = np.empty((n_features, n if weights is not None else 0), dtype=np.float64)
    keys = [target] if weights is None else [weights, target]
    if other_targets is not None:
        keys[:0] = [other_targets[:, k] for k in range(other_targets.shape[1])]
    if whole_rows:
        keys.insert(0, _row_hashes(X))
    if len(keys) > 1:
        base = np.lexsort(keys)
    elif target.dtype.kind in "iu" and n and 0 <= target.min() and target.max() < 2**15:
        # class codes: the rows of each class in turn (a stable sort, a pass per class;
        # twice as fast for two classes from 26,000 rows on), else numpy's stable sort
        # of 16-bit ints, a radix sort
        top = int(target.max())
        if top < _FEW_CLASSES and n >= 4096:
            base = np.concatenate([np.flatnonzero(target == c) for c in range(top + 1)])
        else:
            base = np.argsort(target.astype(np.int16), kind="stable")
    else:
        base = np.argsort(target, kind="stable")
    base = base.astype(ID_DTYPE)
    # id, target and weight of each row in the tie order: the sort moves positions
    # and reads these once per value (a float64 holds any id exactly)
    rec = np.empty((n, 2 if weights is None else 3))
    rec[:, 0] = base
    rec[:, 1] = target[base]
    if weights is not None:
        rec[:, 2] = weights[base]
    run(gather_rows, n, n * n_features, X, base, xs)
    bits = xs.view(np.uint32 if xs.dtype.itemsize == 4 else np.uint64)
    run(sort_features, n_features, n * n_features, bits, rec, idx, ys, ws)
    return idx, xs, ys, ws


#: Tasks of a level's scan per thread (features times groups of nodes): enough that the
#: threads finish together when the features alone are too few.
TASKS_PER_THREAD = 4
#: Fewest rows in a group of nodes: smaller tasks cost more to hand out than they save.
MIN_GROUP_ROWS = 20_000


def node_groups(part, scan, n_features, threads, nested=True):
    """Cut points ``[G + 1, 2]`` into the rows of ``part`` (ranges to partition) and of
    ``scan`` (ranges to scan) for :func:`fastdt._exact_scan.scan_features`: ``G``
    groups of nodes of about equal rows, so that a level has ``n_features * G`` tasks,
    about :data:`TASKS_PER_THREAD` per thread (one group when the features alone are
    enough). A group ends where a range of ``part`` ends, so every node it scans lies in
    a range it partitions; ``nested`` False (children moved elsewhere,
    ``missing="fractional"``), or ranges out of order: one group."""
    m, k = part.shape[0], scan.shape[0]
    whole = np.array([[0, 0], [m, k]], dtype=np.int64)
    want = -(-TASKS_PER_THREAD * threads // n_features)
    sizes = part[:, 1] - part[:, 0]
    total = int(sizes.sum())
    want = min(want, m, total // MIN_GROUP_ROWS)
    if want <= 1 or not nested or (np.diff(part[:, 0]) <= 0).any() \
            or (np.diff(scan[:, 0]) < 0).any():
        return whole
    ends = np.cumsum(sizes)
    cut = np.unique(np.searchsorted(ends, total * np.arange(1, want) / want) + 1)
    cut = cut[cut < m]
    p_cut = np.concatenate([[0], cut, [m]])
    s_cut = np.searchsorted(scan[:, 0], part[p_cut[1:-1], 0])
    return np.stack([p_cut, np.concatenate([[0], s_cut, [k]])], axis=1).astype(np.int64)


def in_bag_layout(layout, weights):
    """``(layout, starts)``: the presorted layouts of the rows of positive ``weights``
    (float64 [B, n], by row id: each tree's in-bag counts times the sample weights), in
    the same sorted order, each entry weighted: a tree's own layout without sorting
    anything again. The B trees' layouts lie side by side, tree b's row ids offset by
    ``b * n``, its positions from ``starts[b]`` (int64 [B + 1]: an
    :class:`ExactSplitter`'s ``tree_starts``; one tree: ids as they are)."""
    idx, xs, ys, _ = layout
    w = np.ascontiguousarray(weights, dtype=np.float64)
    starts = np.zeros(w.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(w > 0, axis=1), out=starts[1:])
    n_features, m = idx.shape[0], int(starts[-1])
    out = (np.empty((n_features, m), dtype=idx.dtype), np.empty((n_features, m), dtype=xs.dtype),
           np.empty((n_features, m)), np.empty((n_features, m)))
    run(gather_in_bag, n_features, idx.size * w.shape[0], idx, xs, ys, w, starts, *out)
    return out, starts


class ExactSplitter:
    """Exact splits of the rows of ``X`` (see the module docstring).

    Parameters
    ----------
    X : float32 or float64 ndarray [n, F]
        The rows (categorical features as codes, NaN for missing values).
    layout : tuple
        Their presorted layout (:func:`presort`), rearranged in place by the growth.
    n_stats, is_clf, crit
        Width of a statistics row, task, criterion code.
    n_categories : int32 ndarray [F]
        Categories of each feature (0: numeric).
    mode : int
        Missing values: 0 ``"learn"``, 1 ``"fractional"`` (the layout needs weights),
        2 ``"surrogate"``.
    max_surrogates, min_samples_leaf, min_weight_leaf
        As the fit parameters (resolved).
    random_seed : None or uint64 (or uint64 [B], a batch)
        Not None: ``splitter="random"``, one random split per (node, feature) instead of
        the best, drawn from the node's seed (the tree's seed and the node's id: the
        driver's :meth:`fastdt._sampling.NodeSeeds.splits`, from this same seed).
    mono : None or int8 ndarray [F]
        Monotonic constraints for the kernels (classification: flipped to class 0).
    ymul, offs : None, or float64 [n, K] and int64 [K + 1]
        Several outputs: the targets of every row and the statistics' blocks
        (:mod:`fastdt._multi`).
    tree_starts : None or int64 [B + 1]
        A batch of B trees grown together (:func:`fastdt._grow.grow`): the layout holds
        their layouts side by side (:func:`in_bag_layout`), tree b's at positions
        ``[tree_starts[b], tree_starts[b + 1])``, its rows' ids offset by ``b * n`` (``n``:
        the rows of X). ``missing="learn"``, one output, not absolute error: the ids then
        only mark sides.
    has_missing : bool
        Whether any row of X misses a value. False (with ``mode`` 0) compiles and runs
        the numeric scan without its steps for missing values
        (:func:`fastdt._exact_scan.scan_features`' ``missing``).
    """

    feature_pool = None  # the features the tree may use (set by the engine; None: all)

    def __init__(self, X, layout, *, n_stats, is_clf, crit, n_categories, mode,
                 max_surrogates, min_samples_leaf, min_weight_leaf, random_seed=None,
                 mono=None, ymul=None, offs=None, tree_starts=None, has_missing=True):
        n = X.shape[0]
        if tree_starts is not None:
            if mode != 0 or ymul is not None or crit == ABSOLUTE_ERROR:
                raise ValueError("a batch of exact trees needs missing='learn', one output "
                                 "and a criterion other than absolute error")
            n *= tree_starts.shape[0] - 1  # every tree's rows have ids of their own
        self.tree_starts = tree_starts
        self.tables = {}  # the scan tables kept (kept_tables; the engine may share them)
        # the layout may hold a subset of the rows (a forest's in-bag rows): ids still
        # index X, and the root is the layout's width; and a subset of the features (the
        # others coded, fastdt._exact_codes): its rows are the splitter's features
        self.n, self.n_features = layout[0].shape[1], layout[0].shape[0]
        self.is_clf, self.crit, self.n_stats = is_clf, crit, n_stats
        self.min_samples_leaf, self.min_weight_leaf = min_samples_leaf, min_weight_leaf
        self.n_categories = n_categories
        self.n_words = int((n_categories.max(initial=0) + 63) // 64)
        self.mode = mode
        self.missing = True if has_missing or mode != 0 else None
        self.max_surrogates = max_surrogates
        self.idx, self.xs, self.ys, self.ws = layout
        self.side = np.zeros(n, dtype=np.uint8)
        # the optional state: None unless the fit needs it (see the module docstring)
        self.cats = n_categories if n_categories.any() else None
        self.dup = np.zeros(n, dtype=np.int32) if mode == 1 else None  # right copies' ids
        self.sur_rows = X if mode == 2 else None
        self.random_seed = random_seed
        self.mono = mono
        self.ymul = ymul
        self.offs = offs if offs is not None else np.zeros(2, dtype=np.int64)
        self.mae_rank = None  # absolute error: the target-sorted row and the ranks
        if crit == ABSOLUTE_ERROR:
            y, w = self.ys[0], self.ws[0]  # any feature row holds every target and weight
            order = np.argsort(y, kind="stable")
            self.ylay = (self.idx[0][order], y[order], y[order],
                         w[order] if w.shape[0] else w.copy())
            self.mae_rank = np.zeros(n, dtype=np.int32)
        self.n_ids = n  # rows and their copies (missing="fractional")
        self.n_used = self.n  # positions of the layout in use (fractional right children)
        self.part = np.zeros((0, 3), dtype=np.int64)
        self.part_dst = np.zeros(0, dtype=np.int64)
        self.part_frac = np.zeros(0)

    def root(self):
        """Statistics of all rows (summed in the first feature's sorted order)."""
        out = np.zeros(self.n_stats)
        if self.mae_rank is not None:
            i_y, _, y_y, w_y = self.ylay
            root_absolute(i_y, y_y, w_y, self.mae_rank, out)
            return out
        if self.ymul is not None:
            root_multi(self.idx[0], self.ws[0], self.is_clf, self.crit, self.ymul, self.offs,
                       out)
            return out
        root_stats(self.ys[0], self.ws[0], self.is_clf, self.crit, out)
        return out

    def roots(self):
        """Statistics of each tree's rows, a batch (``tree_starts``): [B, n_stats]."""
        s = self.tree_starts
        out = np.zeros((s.shape[0] - 1, self.n_stats))
        for b in range(out.shape[0]):
            root_stats(self.ys[0, s[b]:s[b + 1]], self.ws[0, s[b]:s[b + 1]], self.is_clf,
                       self.crit, out[b])
        return out

    def find(self, ids, nodes, rng, max_features):
        """The best split of each open node ``ids`` (a :class:`fastdt._grow.Splits`);
        partitions the nodes split last first."""
        scan, tables = self.scan_tables(ids, nodes, rng, max_features)
        t_proxy, t_nl, _, t_nc = tables[:4]
        feat = choose(t_proxy, t_nl, t_nc, max_features, rng, ids, self.feature_pool)
        return self.splits(scan, feat, tables)

    def scan_tables(self, ids, nodes, rng, max_features):
        """Partition the nodes split last, then scan the open nodes ``ids``: their ranges
        ``scan`` (int64 [k, 2]) and the ``[k, F]`` tables of each (node, feature)'s best
        candidate ``(proxy, n_left, threshold, non_constant, missing_left, categories,
        absolute error's children)``, before a feature is chosen."""
        k, n_features = ids.shape[0], self.n_features
        scan = node_ranges(nodes, ids)
        scan_stats = nodes.stats[ids]
        f = (n_features,)
        t_proxy, t_nl, t_thr, t_nc, t_mgl, t_cat = kept_tables(
            self.tables, k, (("proxy", f, np.float64), ("n_left", f, np.int64),
                             ("threshold", f, np.float64), ("non_constant", f, np.uint8),
                             ("missing_left", f, np.int8),
                             ("categories", (n_features, self.n_words), np.uint64)))
        t_cat[:] = 0  # a numeric feature's: none
        rows = int(nodes.n_node_samples[ids].sum()) + int(self.part[:, 1].sum()
                                                          - self.part[:, 0].sum())
        rseed = None if self.random_seed is None else rng.splits(ids)
        mae = self.mae_rank is not None
        t_mae = np.empty((k, n_features, 4) if mae else (0, 0, 4))
        if mae:
            node_ranks(self.part, scan, *self.ylay, self.side, self.mae_rank)
        pool, seeds = drawn_scan(self, ids, rng, max_features, t_proxy, t_nl, t_nc)

        def scan_call(n_items, work, part, scan, seeds):
            cuts = np.array([[0, 0], [part.shape[0], scan.shape[0]]], dtype=np.int64)
            if not seeds.shape[0]:  # tasks: (feature, group of nodes)
                cuts = node_groups(part, scan, n_features, n_threads(work),
                                   self.dup is None)
                n_items *= cuts.shape[0] - 1
            run(scan_features, n_items, work, self.idx, self.xs, self.ys, self.ws, self.side,
                part, self.part_dst, self.part_frac, self.dup, scan, cuts, scan_stats,
                nodes.weighted_n_node_samples[ids], nodes.impurity[ids], self.is_clf,
                self.crit, log_criterion(self.is_clf, self.crit),
                reg_criterion(self.is_clf, self.crit), self.min_samples_leaf,
                self.min_weight_leaf, self.cats, self.mode != 0, self.missing, rseed,
                self.mono, nodes.bounds[ids], self.mae_rank,
                self.ylay[2] if mae else np.empty(0), self.ymul, self.offs, seeds,
                int(max_features), pool, t_proxy, t_nl, t_thr, t_nc, t_mgl, t_cat, t_mae)

        if not seeds.shape[0]:  # the partition fused with the scan, feature by feature
            scan_call(n_features, rows * n_features, self.part, scan, seeds)
        else:  # the partition over features, then the scan over nodes
            n_part = int((self.part[:, 1] - self.part[:, 0]).sum())
            if n_part:
                scan_call(n_features, n_part * n_features, self.part, scan[:0], seeds[:0])
            scan_call(k, rows * max(1, int(max_features)), self.part[:0], scan, seeds)
        self.part = self.part[:0]
        return scan, (t_proxy, t_nl, t_thr, t_nc, t_mgl, t_cat, t_mae)

    def splits(self, scan, feat, tables):
        """The :class:`fastdt._grow.Splits` of the scanned nodes (``scan``, ``tables``:
        :meth:`scan_tables`) on their chosen features ``feat`` (-1: none): every row's
        side marked and the children's statistics summed."""
        t_proxy, t_nl, t_thr, t_nc, t_mgl, t_cat, t_mae = tables
        k = scan.shape[0]
        rows = int(scan[:, 1].sum() - scan[:, 0].sum())
        mae = self.mae_rank is not None
        sp = Splits(k, self.n_stats, self.n_words,
                    3 * self.max_surrogates if self.sur_rows is not None else 0)
        has = np.flatnonzero(feat >= 0)
        sp.feature = feat
        f = feat[has]
        at = has * t_thr.shape[1] + f
        if has.shape[0]:  # else no row moves and every child is empty, as sp has them
            sp.threshold[has] = take_flat(t_thr, at)
            sp.mgl[has] = take_flat(t_mgl, at)
            sp.cat[has] = take_flat(t_cat, at)
            run(walk_nodes, k, rows, self.idx, self.xs, self.ys, self.ws, scan, feat,
                sp.threshold, sp.mgl, sp.cat, self.cats, self.is_clf, self.crit, self.mode,
                self.missing, self.side, sp.lst, sp.rst, sp.n_left, sp.n_right)
        if self.ymul is not None:  # every output's statistics of the children
            run(children_multi, k, rows, self.idx, self.ws, scan, feat, self.side,
                self.is_clf, self.crit, self.ymul, self.offs, sp.lst, sp.rst)
        if mae:  # [w, absolute error, median] of the children, from the scan
            won = take_flat(t_mae, at)
            sp.lst[has, 1], sp.lst[has, 2] = won[:, 0], won[:, 1]
            sp.rst[has, 1], sp.rst[has, 2] = won[:, 2], won[:, 3]
        if self.mode != 0:
            # the primary's majority side: apply()'s route, the surrogates' fallback. A tie
            # (up to rounding: fractional weights are sums in the rows' order) goes left,
            # so that the order of the rows cannot flip it
            m = has.shape[0]
            wl, wr, imp = np.empty(m), np.empty(m), np.empty(m)
            node_weights(self.is_clf, self.crit, sp.lst[has], wl, imp)
            node_weights(self.is_clf, self.crit, sp.rst[has], wr, imp)
            sp.mgl[has] = wl >= wr - 1e-12 * (wl + wr)
        if self.sur_rows is not None:
            self._surrogates(scan, feat, sp, rows)
        return sp

    def _surrogates(self, scan, feat, sp, rows):
        """Surrogates of each node's split, then the rows missing its feature sent by
        them (:mod:`fastdt._missing`)."""
        k, n_features = feat.shape[0], self.n_features
        agree = np.empty((k, n_features))
        s_thr = np.empty((k, n_features))
        s_dir = np.empty((k, n_features), dtype=np.uint8)
        run(find_surrogates, n_features, rows * n_features, self.idx, self.xs, self.ws, scan,
            feat, self.n_categories, self.side, agree, s_thr, s_dir)
        choose_all_surrogates(feat, agree, s_thr, s_dir, sp.lst, sp.rst, self.is_clf,
                              self.max_surrogates, sp.sur, sp.n_sur)
        run(resolve_surrogates, k, rows, self.sur_rows, self.idx, self.xs, self.ys, self.ws,
            scan, feat, sp.sur, sp.n_sur, sp.mgl, self.is_clf, self.crit, self.side, sp.lst,
            sp.rst, sp.n_left, sp.n_right)

    def release(self, ids):
        """Nothing to free: a node's rows are only a range of the layout."""

    def make_room(self, ids, nodes):
        """``missing="fractional"``: the nodes about to split whose children share rows
        get a range for their right child at the end of the layout (grown by doubling),
        and each shared row a fresh id for its right copy."""
        if self.dup is None:
            return
        n = nodes.end[ids] - nodes.start[ids]
        n_l, n_r = nodes.c_nl[ids], nodes.c_nr[ids]
        shared = n_l + n_r > n
        if not shared.any():
            return
        sizes = n_r[shared]
        r_start = self.n_used + np.cumsum(sizes) - sizes
        nodes.c_rstart[ids[shared]] = r_start
        need = int(self.n_used + sizes.sum())
        new_ids = int(self.n_ids + (n_l + n_r - n)[shared].sum())
        cap = self.idx.shape[1]
        if need > cap:
            cap = max(2 * cap, need)
            for name in ("idx", "xs", "ys", "ws"):
                old = getattr(self, name)
                grown = np.empty((old.shape[0], cap), dtype=old.dtype)
                grown[:, : old.shape[1]] = old
                setattr(self, name, grown)
        if new_ids > self.side.shape[0]:
            cap_ids = max(2 * self.side.shape[0], new_ids)
            for name in ("side", "dup"):
                old = getattr(self, name)
                grown = np.zeros(cap_ids, dtype=old.dtype)
                grown[: old.shape[0]] = old
                setattr(self, name, grown)
        sel = ids[shared]
        self.n_ids = assign_copies(nodes.start[sel], nodes.end[sel], nodes.c_feature[sel],
                                   self.idx, self.side, self.dup, self.n_ids)
        self.n_used = need

    def split(self, ids, part, open_, nodes):
        """Remember the ranges to partition: the next :meth:`find` does it, fused with
        its scan."""
        self.part = part
        if self.dup is None:  # where each right child starts (the partition's)
            self.part_dst = nodes.start[nodes.right[part[:, 2]]]
        else:
            node = part[:, 2]
            shared = nodes.c_rstart[node] >= 0  # rows copied into both children
            self.part_dst = np.where(shared, nodes.c_rstart[node], -1)
            self.part_frac = np.where(
                shared, nodes.weighted_n_node_samples[nodes.left[node]]
                / nodes.weighted_n_node_samples[node], 0.0)

"""The growth driver every splitter shares: node tables, stopping rules, growth order.

:func:`grow` asks a *splitter* (the exact :class:`fastdt._exact.ExactSplitter` or the
histogram :class:`fastdt._hist.HistSplitter`) for the best split of a set of open nodes,
decides which nodes split, appends their children to the node tables and hands the
splits back to the splitter, which moves its rows. Two growth orders share it:

* **level-wise** (default): every open node of a level is scanned at once, and every
  node that can split does. Node ids come out breadth-first.
* **best-first** (``max_leaf_nodes``): as scikit-learn's ``BestFirstTreeBuilder``, the
  open node with the largest impurity decrease is split next (ties: the smaller id),
  until ``max_leaf_nodes - 1`` splits are made; ids are renumbered breadth-first. A
  splitter with ``batch_best_first`` (the histogram one) grows the same tree in a few
  batches instead of one split at a time (:func:`_grow_batched`), when every node scans
  every feature (feature sampling is seeded by node ids, which batches change).

The stopping rules are scikit-learn's, in the same order: a node is a leaf if
``depth >= max_depth``, ``n < min_samples_split``, ``n < 2 * min_samples_leaf``,
``w < 2 * min_weight_leaf`` or ``impurity <= EPSILON``; or if it has no valid split or
its split's decrease is below ``min_impurity_decrease`` (with ``EPSILON`` slack).

The driver is Python: it runs once per level (or per split, best-first); the per-row and
per-value work is in the splitters' kernels, and its own bookkeeping of the node tables
(candidates kept, nodes split and whether they may split, each node's winning feature,
the replay of best-first batches) in small kernels of :mod:`fastdt._level`, over the
tables' columns packed in a few arrays. A whole driver in numba would cost seconds of compilation for every kind of fit
(it would link every kernel into one function); the bookkeeping in numpy cost about
0.25 ms a level here, a third of a deep tree's time on a few hundred rows.
"""

import heapq

import numpy as np

from ._config import LEAF
from ._criteria import NO_REG, node_weights, regularised
from ._level import (FLOAT_COLUMNS, INT_COLUMNS, accept_candidates, best_features,
                     can_split, cut_trees, replay, split_nodes)
from ._multi import node_weights_multi
from . import _sampling
from ._sampling import NodeSeeds, choose_features
from .tree import bfs_order

# ------------------------------------------------------------------------ node tables

_NO_GAIN = np.empty(0)  # accept_candidates computes the gain
_NO_SEEDS = np.zeros(0, dtype=np.uint64)  # every node scans every feature (never written)


class Nodes:
    """The node tables of a growing tree: one entry per node, ids in creation order.

    Columns (1-D, by node id): ``feature``, ``left``, ``right``, ``n_node_samples``,
    ``depth``, ``missing_go_left``, ``threshold``, ``impurity``,
    ``weighted_n_node_samples`` (the format's), ``start``/``end`` (the node's range in
    the splitter's row layout), and the ``c_*`` columns of an open node's candidate
    split. 2-D: ``stats`` (the node's statistics, ``_criteria``), ``bounds`` (the
    ``[lower, upper]`` bounds of its value under monotonic constraints), ``cat`` (bitset of a
    categorical split), ``sur`` (surrogate triples), and the candidates' ``c_lst``,
    ``c_rst``, ``c_cat``, ``c_sur``. Capacity grows by doubling.

    The columns are views of a few packed arrays, which the kernels of
    :mod:`fastdt._level` take: ``ints`` (int64 ``[INT_COLUMNS, cap]``), ``floats``
    (float64 ``[FLOAT_COLUMNS, cap]``), ``stat3`` (``stats``, ``c_lst``, ``c_rst``),
    ``cat2`` (``cat``, ``c_cat``), ``sur2`` (``sur``, ``c_sur``) and ``bounds``.
    """

    def __init__(self, n_stats, n_words, n_sur_cols, cap=64):
        self.count = 0
        self.widths = (n_stats, n_words, n_sur_cols)
        self._alloc(cap)

    def _alloc(self, cap):
        n_stats, n_words, n_sur_cols = self.widths
        packed = {"ints": np.zeros((len(INT_COLUMNS), cap), dtype=np.int64),
                  "floats": np.zeros((len(FLOAT_COLUMNS), cap)),
                  "stat3": np.zeros((3, cap, n_stats)),
                  "cat2": np.zeros((2, cap, n_words), dtype=np.uint64),
                  "sur2": np.zeros((2, cap, n_sur_cols)),
                  "bounds": np.zeros((cap, 2))}
        for name, a in packed.items():
            if self.count:  # the nodes so far (node ids: axis 0 of bounds, else axis 1)
                old = getattr(self, name)
                if name == "bounds":
                    a[: self.count] = old[: self.count]
                else:
                    a[:, : self.count] = old[:, : self.count]
            setattr(self, name, a)
        for j, name in enumerate(INT_COLUMNS):
            setattr(self, name, self.ints[j])
        for j, name in enumerate(FLOAT_COLUMNS):
            setattr(self, name, self.floats[j])
        self.stats, self.c_lst, self.c_rst = self.stat3
        self.cat, self.c_cat = self.cat2
        self.sur, self.c_sur = self.sur2
        self.cap = cap

    def clear(self):
        """Empty tables for another tree, in the same arrays: the trees a thread grows one
        after another (a forest's) reuse them instead of allocating and copying them
        again as they grow (first touches of fresh memory: about a tenth of a deep
        extra tree's time)."""
        n = self.count
        for a in (self.ints, self.floats, self.stat3, self.cat2, self.sur2):
            a[:, :n] = 0
        self.bounds[:n] = 0
        self.count = 0

    def reserve(self, m):
        """The first id of ``m`` new nodes, whose columns the caller writes."""
        if self.count + m > self.cap:
            self._alloc(max(2 * self.cap, self.count + m))
        self.count += m
        return self.count - m

    def add(self, m):
        """Ids of ``m`` new nodes (leaves until split)."""
        first = self.reserve(m)
        ids = np.arange(first, first + m)
        for name in ("feature", "left", "right", "c_feature"):
            getattr(self, name)[ids] = LEAF
        self.threshold[ids] = np.nan
        self.bounds[ids] = (-np.inf, np.inf)
        return ids

    def output(self):
        """``(inode, fnode, stats, cat, sur, n_sur, bounds)`` of the nodes made: int64
        [n, 6] (feature, left, right, n_node_samples, depth, missing_go_left), float64
        [n, 3] (threshold, impurity, weighted_n_node_samples), the statistics, the
        category bitsets, the surrogate triples and their counts, the value bounds. A batch
        of trees makes the same tables, cut by tree, in :func:`fastdt._level.cut_trees`
        (a change of these tables changes both)."""
        n = self.count
        inode = np.stack([self.feature[:n], self.left[:n], self.right[:n],
                          self.n_node_samples[:n], self.depth[:n],
                          self.missing_go_left[:n]], axis=1)
        fnode = np.stack([self.threshold[:n], self.impurity[:n],
                          self.weighted_n_node_samples[:n]], axis=1)
        n_sur = np.zeros(n, dtype=np.int64)
        internal = self.feature[:n] >= 0
        n_sur[internal] = self.c_nsur[:n][internal]
        return (inode, fnode, self.stats[:n].copy(), self.cat[:n].copy(),
                self.sur[:n].copy(), n_sur, self.bounds[:n].copy())


def kept_tables(store, k, specs):
    """``[k, ...]`` arrays, one per ``(name, tail shape, dtype)`` of ``specs``: views of
    buffers kept in ``store`` (a dict), grown by doubling to the most rows asked.

    A level's scan tables are written over and read before the next level asks for
    them. Made afresh at every level, they were new pages each time, and the first
    write of a page is a page fault (a forest's widest levels: tens of MB a level, on
    this machine about 1 s of system time in a 100-tree fit). Kept in a thread's
    scratch, the levels of its trees write the same pages again."""
    out = []
    for name, tail, dtype in specs:
        buf = store.get(name)
        if buf is None or buf.shape[1:] != tail or buf.dtype != dtype:
            buf = store[name] = np.empty((k,) + tail, dtype=dtype)
        elif buf.shape[0] < k:
            buf = store[name] = np.empty((max(k, 2 * buf.shape[0]),) + tail, dtype=dtype)
        out.append(buf[:k])
    return out


class Splits:
    """The best split found for each of a set of nodes (arrays aligned with them).

    ``feature`` (-1: no valid split), ``threshold`` (NaN for a categorical split),
    ``mgl`` (missing values go left 1 / right 0 / -1: none in the node), ``cat``
    (uint64 [k, W] left categories), ``bin`` (histogram splitter: the last bin going
    left), ``n_left``/``n_right`` (rows of each child), ``lst``/``rst`` (the children's
    statistics), ``r_start`` (-1, or where the right child's rows start when the
    children share rows), ``sur``/``n_sur`` (surrogate triples).
    """

    def __init__(self, k, n_stats, n_words, n_sur_cols):
        self.feature = np.full(k, -1, dtype=np.int64)
        self.threshold = np.full(k, np.nan)
        self.mgl = np.full(k, -1, dtype=np.int64)
        self.cat = np.zeros((k, n_words), dtype=np.uint64)
        self.bin = np.zeros(k, dtype=np.int64)
        self.n_left = np.zeros(k, dtype=np.int64)
        self.n_right = np.zeros(k, dtype=np.int64)
        self.lst = np.zeros((k, n_stats))
        self.rst = np.zeros((k, n_stats))
        self.sur = np.zeros((k, n_sur_cols))
        self.n_sur = np.zeros(k, dtype=np.int64)


def choose(t_proxy, t_nl, t_nc, max_features, rng, ids, pool=None, seeds=_NO_SEEDS):
    """The winning feature of each scanned node ``ids`` from the ``[k, F]`` candidate
    tables (-1: none valid): all features compete when ``max_features >= F`` (ties: the
    lowest index), else :func:`fastdt._sampling.choose_features` draws them, in an order
    of each node's own (``rng``, the nodes' :class:`fastdt._sampling.NodeSeeds`; ``seeds``:
    those orders' seeds when :func:`drawn_scan` made them already). ``pool`` (int64,
    None: every feature): the features the tree may use, the others never win
    (``fit_forest(tree_features=...)``)."""
    k, n_features = t_proxy.shape
    every = pool is None
    pool = np.arange(n_features, dtype=np.int64) if every else pool
    if max_features < pool.shape[0]:
        feat = np.empty(k, dtype=np.int64)
        if not seeds.shape[0]:
            seeds = rng.features(ids)
        choose_features(t_proxy, t_nl, t_nc, max_features, seeds, pool,
                        np.empty(pool.shape[0], dtype=np.int64), feat)
        return feat
    # a NaN or -inf proxy never wins (the kernels' rule: strictly better than -inf)
    if not every:
        t_nl = t_nl.copy()
        t_nl[:, np.setdiff1d(np.arange(n_features), pool)] = 0
    feat = np.empty(k, dtype=np.int64)
    best_features(np.ascontiguousarray(t_proxy, dtype=np.float64),
                  np.ascontiguousarray(t_nl, dtype=np.int64), feat)
    return feat


def take_at(table, m, f):
    """``table[m, f]``: row ``m[i]`` of a ``[k, F, ...]`` candidate table at feature
    ``f[i]``, taken at the entries' flat positions (4x faster than numpy's indexing by a
    pair of arrays, on a forest's levels of tens of thousands of nodes)."""
    return take_flat(table, m * table.shape[1] + f)


def take_flat(table, at):
    """:func:`take_at` at the flat positions ``at = m * F + f``, for several tables of
    the same ``[k, F]`` nodes and features (the positions computed once)."""
    k, n_features = table.shape[:2]
    return table.reshape((k * n_features,) + table.shape[2:]).take(at, axis=0)


def node_ranges(nodes, ids):
    """int64 ``[k, 2]``: the ``[start, end)`` range of each node ``ids`` in the layout."""
    scan = np.empty((ids.shape[0], 2), dtype=np.int64)
    scan[:, 0] = nodes.start[ids]
    scan[:, 1] = nodes.end[ids]
    return scan


def pool_of(splitter):
    """The features ``splitter`` may use (its ``feature_pool``; None: all), as int64."""
    if splitter.feature_pool is None:
        return np.arange(splitter.n_features, dtype=np.int64)
    return splitter.feature_pool


def drawn_scan(splitter, ids, rng, max_features, t_proxy, t_nl, t_nc):
    """What a splitter's scan kernel needs to scan, in each node ``ids``, only the
    features it draws: ``(pool, seeds)``, the tree's features (int64) and each node's
    seed of its order, or no seeds (uint64 [0]) when every node scans every feature
    (``max_features`` covers them all and the tree has no pool of its own, or
    ``fastdt._sampling.SCAN_DRAWN_ONLY`` is off). With seeds, the candidate tables
    ``t_proxy``, ``t_nl``, ``t_nc`` are cleared: a feature a node does not scan never
    wins (:func:`choose` skips it anyway)."""
    sampled = ((max_features < splitter.n_features or splitter.feature_pool is not None)
               and _sampling.SCAN_DRAWN_ONLY)
    if not sampled:
        return pool_of(splitter), _NO_SEEDS
    t_proxy.fill(-np.inf)
    t_nl.fill(0)
    t_nc.fill(0)
    return pool_of(splitter), rng.features(ids)


def in_order(seeds, max_features, splitter):
    """Whether a scan that visits the features as :func:`drawn_scan` says (each node's own
    order with ``seeds``, else every feature by index) visits them in the order
    :func:`choose` then picks the winner in: its sampler's order (``max_features`` below
    the tree's features), or every feature by index (all of them compete, no pool of the
    tree's own). Then only a feature beating every feature scanned before it can win
    (ties keep the first), and a scan needs the children's statistics of those only
    (:func:`fastdt._hist_scan.scan_nodes`)."""
    if seeds.shape[0] > 0:
        return bool(max_features < pool_of(splitter).shape[0])
    return bool(max_features >= splitter.n_features and splitter.feature_pool is None)


# ------------------------------------------------------------------------ the driver


#: The most node slots a batch's tables are made with at first (about 1.1 GB of address
#: space, pages mapped only when written; more are added by doubling).
_BATCH_CAP = 1 << 22


def grow(splitter, *, n_stats, n_words, max_surrogates, max_depth, min_samples_split,
         min_samples_leaf, min_weight_leaf, min_impurity_decrease, max_features,
         max_leaf_nodes, seed, monotonic_cst=None, offs=None, scratch=None):
    """Grow one tree with ``splitter``.

    Parameters
    ----------
    splitter
        An object with ``n`` (rows), ``is_clf``, ``crit`` and the methods ``root()``
        (statistics of all rows), ``find(ids, nodes, rng, max_features)`` (a
        :class:`Splits` for the open nodes ``ids``; ``rng``: their seeds, a
        :class:`fastdt._sampling.NodeSeeds`), ``release(ids)`` (those nodes will
        not split), ``make_room(ids, nodes)`` (before the split: ``c_rstart`` of nodes
        whose children share rows) and ``split(ids, part, nodes)`` (after it: ``part``
        holds the ``[start, end, node]`` rows of the split nodes with an open child).
    n_stats, n_words, max_surrogates
        Width of a statistics row, of a category bitset, and surrogates per node.
    max_depth, min_samples_split, min_samples_leaf, min_weight_leaf,
    min_impurity_decrease, max_features, max_leaf_nodes
        The stopping rules, resolved to numbers (``max_leaf_nodes`` -1: level-wise).
    seed : uint64, or uint64 ndarray [B]
        Seed of the feature sampler (``max_features``) and of random splits; a batch:
        each tree's.
    monotonic_cst : None or int8 ndarray [F]
        Monotonic constraints as the kernels take them (classification: flipped to
        class 0); the children of a split on a constrained feature get bounds on either
        side of the mean of their values, as scikit-learn does.
    offs : None or int64 ndarray [K + 1]
        Several outputs: the blocks of the statistics (:mod:`fastdt._multi`).
    scratch : None or dict
        Kept from one tree to the next of trees grown one after another (never by two
        at once): its ``"nodes"`` tables are reused (:meth:`Nodes.clear`); with
        ``scratch["keep_layout"]`` true, a tree grown leaves its nodes' ranges of
        positions in ``"ranges"`` (:func:`_finish`).

    A splitter with ``tree_starts`` (int64 [B + 1]) holds a *batch* of B trees side by
    side, tree b's rows at positions ``[tree_starts[b], tree_starts[b + 1])``, and its
    ``roots()`` gives their statistics ([B, n_stats]): the trees grow level-wise together
    (one pass of the driver and one call of each kernel a level for all of them), each
    tree's random choices seeded by its own seed and its nodes' ids within it
    (:class:`fastdt._sampling.NodeSeeds`), so that each is the tree grown alone.

    Returns
    -------
    The tables of :meth:`Nodes.output`, node ids breadth-first; a batch: a list of them,
    one per tree.
    """
    widths = (n_stats, n_words, 3 * max_surrogates)
    starts = getattr(splitter, "tree_starts", None)
    batch = starts is not None
    n_roots = starts.shape[0] - 1 if batch else 1
    nodes = None if scratch is None else scratch.get("nodes")
    if nodes is not None and nodes.widths == widths:
        nodes.clear()
    else:
        # room for every node the trees of these rows can have, up to 4,096; a batch:
        # half a node per row position (at least 32,768 a tree, at most _BATCH_CAP), as
        # deep forest trees have (extra trees ~0.4, bootstrap hist trees ~0.2): pages
        # untouched cost nothing, while each doubling copies the tables into fresh
        # memory (100 extra trees, 2 threads: a thread's first batch 3.1-3.3 s with
        # 32,768 a tree and two doublings, 2.1-2.7 s sized at once). Then doubling.
        most = 2 * splitter.n - n_roots if max_leaf_nodes <= 0 else 2 * max_leaf_nodes - 1
        room = min(max(32768 * n_roots, splitter.n // 2), _BATCH_CAP) if batch else 4096
        nodes = Nodes(*widths, cap=max(1, min(most, room)))
        if scratch is not None:
            scratch["nodes"] = nodes
    # as can_split takes them (one compiled signature)
    limits = (int(max_depth), int(min_samples_split), int(min_samples_leaf),
              float(min_weight_leaf))
    is_clf, crit = splitter.is_clf, splitter.crit
    best_first = max_leaf_nodes > 0
    if batch and best_first:
        raise ValueError("a batch of trees grows level-wise only")
    rng = NodeSeeds(seed, nodes)

    root = nodes.add(n_roots)
    nodes.stats[root] = splitter.roots() if batch else splitter.root()
    w, imp = np.empty(n_roots), np.empty(n_roots)
    weigh = _weigher(is_clf, crit, offs)
    weigh(nodes.stats[:n_roots], w, imp)
    nodes.weighted_n_node_samples[root], nodes.impurity[root] = w, imp
    if batch:
        nodes.start[root], nodes.end[root] = starts[:-1], starts[1:]
        nodes.tree[root] = root
        n_made = np.ones(n_roots, dtype=np.int64)  # each tree's nodes so far
    else:
        nodes.end[0] = splitter.n
    nodes.n_node_samples[root] = nodes.end[root] - nodes.start[root]
    open_ = root[[can_split(int(nodes.depth[r]), int(nodes.n_node_samples[r]), w[r], imp[r],
                            *limits) for r in root]]
    w_root = w.copy()  # each tree's total weight
    reg = getattr(splitter, "reg", NO_REG)  # boosting's (lambda, alpha): histogram trees

    def scan(ids):  # the candidates of the open nodes ids; which of them have one
        ok = _candidates(splitter, nodes, ids, rng, max_features, w_root,
                         min_impurity_decrease, weigh, reg)
        splitter.release(ids[~ok])
        return ok

    moved = [root]  # the nodes whose rows were moved to their children's ranges

    def expand(ids):  # split the nodes ids; their children that can split
        splitter.make_room(ids, nodes)
        kids, part = _split(nodes, ids, limits, monotonic_cst, is_clf, reg)
        moved.append(part[:, 2])
        if batch:
            _number_in_trees(nodes, ids, n_made)
        splitter.split(ids, part, kids, nodes)
        return kids

    # batches change the order nodes are made in, so the ids that seed feature sampling:
    # only when every node scans every feature
    if (best_first and getattr(splitter, "batch_best_first", False)
            and max_features >= splitter.n_features and splitter.feature_pool is None):
        _grow_batched(splitter, nodes, open_, max_leaf_nodes - 1, scan, expand)
        return _finish(nodes, True, scratch, moved)
    heap = []
    n_splits = 0
    while True:
        if open_.shape[0]:
            ok = scan(open_)
            if best_first:
                for node in open_[ok]:
                    heapq.heappush(heap, (-nodes.c_gain[node], node))
        if best_first:
            if not heap or n_splits >= max_leaf_nodes - 1:
                break
            to_split = np.array([heapq.heappop(heap)[1]], dtype=np.int64)
        else:
            to_split = open_[ok] if open_.shape[0] else open_
            if not to_split.shape[0]:
                break
        n_splits += to_split.shape[0]
        open_ = expand(to_split)
    if batch:
        return _cut_trees(nodes, n_roots, scratch)
    return _finish(nodes, best_first, scratch, moved)


def _finish(nodes, renumber, scratch, moved):
    """The tables of one tree (:meth:`Nodes.output`), ids breadth-first (``renumber``:
    they were made in another order, best-first). With ``scratch["keep_layout"]`` true
    (boosting's; 3 ms a tree of 80,000 nodes that forests need not pay), also
    ``scratch["ranges"]``: int64 ``[n, 2]``, each node's ``[start, end)`` range of
    positions in the splitter's row layout, by the returned ids: the positions hold the
    node's rows (:func:`fastdt._hist_build.leaf_of_rows`), except for ``(-1, -1)``, the
    children of a node whose rows were not moved (``moved``: int64 arrays of the nodes
    whose rows were; a splitter moves those of a node with a child that can split)."""
    out = nodes.output()
    if scratch is None or not scratch.get("keep_layout"):
        if renumber:
            out = _renumber_bfs(bfs_order(out[0][:, 1], out[0][:, 2]), *out)
        return out
    n = nodes.count
    ranges = np.full((n, 2), -1, dtype=np.int64)
    held = np.zeros(n, dtype=bool)
    held[0] = True
    parents = np.concatenate(moved)
    parents = parents[nodes.left[parents] >= 0]  # not a split undone (_grow_batched)
    held[nodes.left[parents]] = held[nodes.right[parents]] = True
    ranges[held, 0], ranges[held, 1] = nodes.start[:n][held], nodes.end[:n][held]
    if renumber:
        order = bfs_order(out[0][:, 1], out[0][:, 2])
        out, ranges = _renumber_bfs(order, *out), ranges[order]
    scratch["ranges"] = ranges
    return out


def _number_in_trees(nodes, ids, n_made):
    """The children of the nodes ``ids`` just split, in a batch of trees: their tree and
    their ids within it (``local``), numbered there as a tree grown alone numbers them
    (after its nodes so far, ``n_made`` per tree, updated; in the order of their
    parents). ``ids`` rise, and a level's nodes come tree after tree."""
    tree = nodes.tree[ids]
    left, right = nodes.left[ids], nodes.right[ids]
    rank = np.arange(ids.shape[0]) - np.searchsorted(tree, tree)  # among its tree's
    nodes.tree[left] = nodes.tree[right] = tree
    nodes.local[left] = n_made[tree] + 2 * rank
    nodes.local[right] = nodes.local[left] + 1
    n_made += 2 * np.bincount(tree, minlength=n_made.shape[0])


def _cut_trees(nodes, n_trees, scratch=None):
    """The tables of :meth:`Nodes.output` of a batch of trees cut into one per tree,
    each with its own ids (``local``: creation order within the tree, breadth-first):
    views of tables that hold the trees one after another (:func:`fastdt._level.cut_trees`).

    With ``scratch``, those tables are ``scratch["cut"]``'s, made once a thread (as large
    as the node tables) and written again by its next batch: the caller copies what it
    keeps first. Made for each batch, they were fresh memory every time (100 extra trees,
    2 threads: 0.77-3.05 s of the threads' time a fit, mostly the system's; reused,
    0.17-0.22 s after a process's first fit).
    """
    n = nodes.count
    n_stats, n_words, n_sur_cols = nodes.widths
    tables = None if scratch is None else scratch.get("cut")
    if tables is None or tables[0].shape[0] < n or tables[2].shape[1] != n_stats \
            or tables[3].shape[1] != n_words or tables[4].shape[1] != n_sur_cols:
        cap = max(n, nodes.cap)
        tables = (np.empty((cap, 6), dtype=np.int64), np.empty((cap, 3)),
                  np.empty((cap, n_stats)), np.empty((cap, n_words), dtype=np.uint64),
                  np.empty((cap, n_sur_cols)), np.empty(cap, dtype=np.int64),
                  np.empty((cap, 2)))
        if scratch is not None:
            scratch["cut"] = tables
    cuts = np.empty(n_trees + 1, dtype=np.int64)
    cut_trees(nodes.ints, nodes.floats, nodes.stat3, nodes.cat2, nodes.sur2, nodes.bounds, n,
              cuts, *tables)
    return [tuple(t[a:b] for t in tables) for a, b in zip(cuts[:-1], cuts[1:])]


def _grow_batched(splitter, nodes, open_, budget, scan, expand):
    """Best-first growth in batches, the same tree as one split at a time.

    Splitting one node per step costs a pass of the Python driver per split (254 for a
    255-leaf tree). Here each step replays the one-at-a-time process on what is known
    (:func:`_replay`: the heap of candidate gains, ties by the ids that process would
    give) and expands, in one batch, the first half of the nodes it pops that have not
    been split yet: the first of them is certain, the others are split on speculation
    (the children of the first may outrank them). On 255-leaf boosting trees of 200,000
    rows (``docs/benchmarks.md``), the first half: 22 batches a tree, 20 of its 274
    splits in vain; every popped node: 19 batches, 208 in vain; the first third: 27
    batches, none in vain; the first half fitted fastest (20 rounds, one thread). When
    no unsplit node is popped within ``budget`` splits, the replay is the one-at-a-time
    process; the split nodes it does not pop are leaves again (their rows are one range
    whatever the partition inside it did; their children's histograms are released)
    and drop out with the renumbering."""
    while True:
        if open_.shape[0]:
            scan(open_)
        chosen, todo = _replay(nodes, budget)
        if not todo.shape[0]:
            break
        open_ = expand(todo[: (todo.shape[0] + 1) // 2])
    split = np.flatnonzero(nodes.feature[: nodes.count] != LEAF)
    undo = np.setdiff1d(split, chosen)
    if undo.shape[0]:
        kids = np.concatenate([nodes.left[undo], nodes.right[undo]])
        splitter.release(kids)
        nodes.feature[undo] = nodes.left[undo] = nodes.right[undo] = LEAF
        nodes.threshold[undo] = np.nan
        nodes.missing_go_left[undo] = 0
        nodes.cat[undo] = 0
        nodes.sur[undo] = 0


def _replay(nodes, budget):
    """The one-at-a-time best-first process on the known candidates: ``(chosen, todo)``,
    the split nodes it pops within ``budget`` pops, and the popped nodes not split yet
    (their children unknown, each counts as one pop). Heap keys are ``(-gain, id)`` with
    the ids that process gives (children numbered as they are made), so ties break as
    there (:func:`fastdt._level.replay`)."""
    chosen = np.empty(budget, dtype=np.int64)
    todo = np.empty(budget, dtype=np.int64)
    n_chosen, n_todo = replay(nodes.ints, nodes.floats, nodes.count, budget, chosen, todo)
    return chosen[:n_chosen], todo[:n_todo]


def _weigher(is_clf, crit, offs):
    """``weigh(stats, out_w, out_imp)``: the weight and impurity of nodes."""
    if offs is None:
        return lambda stats, w, imp: node_weights(is_clf, crit, stats, w, imp)
    return lambda stats, w, imp: node_weights_multi(is_clf, crit, stats, offs, w, imp)


def _candidates(splitter, nodes, ids, rng, max_features, w_root, min_impurity_decrease,
                weigh, reg=NO_REG):
    """Find the best split of the open nodes ``ids`` and keep it as their candidate when
    it decreases the impurity enough (:func:`fastdt._level.accept_candidates`; ``w_root``:
    each tree's total weight); returns which nodes have one."""
    sp = splitter.find(ids, nodes, rng, max_features)
    k = ids.shape[0]
    has = sp.feature >= 0  # the children of the other nodes are empty
    wlr, implr = np.ones((2, k)), np.zeros((2, k))
    st = np.concatenate((sp.lst[has], sp.rst[has]))  # left children, then right ones
    w, imp = np.empty(st.shape[0]), np.empty(st.shape[0])
    weigh(st, w, imp)
    m = w.shape[0] // 2
    wlr[0, has], wlr[1, has] = w[:m], w[m:]
    implr[0, has], implr[1, has] = imp[:m], imp[m:]
    w_total = w_root[nodes.tree[ids]]
    gain = _NO_GAIN
    if reg != NO_REG:  # boosting's T(G_L)^2/(H_L+lam) + T(G_R)^2/(H_R+lam) - T(G)^2/(H+lam)
        (s, h), (sl, hl), (sr, hr) = (regularised(v, w, reg) for v, w in (
            (nodes.stats[ids, 1], nodes.weighted_n_node_samples[ids]),
            (sp.lst[:, 1], wlr[0]), (sp.rst[:, 1], wlr[1])))
        gain = (sl * sl / hl + sr * sr / hr - s * s / h) / w_total
    ok = np.empty(k, dtype=np.uint8)
    accept_candidates(
        ids, sp.feature, sp.threshold, sp.mgl, sp.bin, sp.n_left, sp.n_right, sp.lst, sp.rst,
        sp.cat, sp.sur, sp.n_sur, wlr, implr, gain, w_total,
        float(min_impurity_decrease), nodes.ints, nodes.floats, nodes.stat3, nodes.cat2,
        nodes.sur2, ok)
    return ok.view(bool)


def _split(nodes, ids, limits, mono=None, is_clf=True, reg=NO_REG):
    """Split the nodes ``ids`` (each has a candidate) into two new children each
    (:func:`fastdt._level.split_nodes`), their bounds under monotonic constraints set.
    Returns the children that can split and the ``[start, end, node]`` rows of the split
    nodes with at least one open child (the ranges to partition).
    """
    m = ids.shape[0]
    first = nodes.reserve(2 * m)
    can = np.empty(2 * m, dtype=np.uint8)
    part = np.empty((m, 3), dtype=np.int64)
    n = split_nodes(ids, first, *limits, nodes.ints, nodes.floats, nodes.stat3, nodes.cat2,
                    nodes.sur2, nodes.bounds, can, part)
    kids = np.arange(first, first + 2 * m)
    if mono is not None:
        _monotone_bounds(nodes, ids, kids[0::2], kids[1::2], mono[nodes.feature[ids]], is_clf,
                         reg)
    return kids[can.view(bool)], part[:n]


def _monotone_bounds(nodes, ids, left, right, cst, is_clf, reg):
    """The children's bounds under monotonic constraints (scikit-learn's rule): a split
    on an increasing feature bounds its left child above and its right child below by
    the mean of the two children's values; a decreasing one the other way round. With
    boosting's ``reg = (lambda, alpha)`` the values are the regularised leaves
    ``T(S) / (W + lambda)`` (:func:`fastdt._criteria.score_candidate`)."""
    col = 0 if is_clf else 1  # class 0's weight, or the sum of w * y
    sl, sr = nodes.c_lst[ids, col], nodes.c_rst[ids, col]
    wl, wr = nodes.c_wl[ids], nodes.c_wr[ids]
    if reg != NO_REG:
        (sl, wl), (sr, wr) = regularised(sl, wl, reg), regularised(sr, wr, reg)
    mid = sl / (2 * wl) + sr / (2 * wr)
    inc, dec = cst == 1, cst == -1
    nodes.bounds[left[inc], 1] = mid[inc]
    nodes.bounds[right[inc], 0] = mid[inc]
    nodes.bounds[left[dec], 0] = mid[dec]
    nodes.bounds[right[dec], 1] = mid[dec]


# ------------------------------------------------------------------------ renumbering


def _renumber_bfs(order, inode, fnode, stats, cat, sur, n_sur, bounds):
    """The node tables with node ``order[i]`` as node ``i`` (:func:`fastdt.tree.bfs_order`)."""
    new_id = np.full(inode.shape[0], -1, dtype=np.int64)
    new_id[order] = np.arange(order.shape[0])
    inode = inode[order].copy()
    for col in (1, 2):
        internal = inode[:, col] >= 0
        inode[internal, col] = new_id[inode[internal, col]]
    return (inode, fnode[order].copy(), stats[order].copy(), cat[order].copy(),
            sur[order].copy(), n_sur[order].copy(), bounds[order].copy())

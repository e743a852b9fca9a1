"""Public ``@njit`` kernels over the tree format, for fastdt and for users' numba code.

Every kernel takes a :class:`fastdt.tree.TreeArrays` (``tree.arrays``), a NamedTuple
of the flat node arrays, so a fitted tree has exactly one numba type. Example::

    from numba import njit
    from fastdt.kernels import leaf_index

    @njit
    def my_leaf_sizes(t, X):
        out = np.empty(X.shape[0], dtype=np.int64)
        for i in range(X.shape[0]):
            out[i] = t.n_node_samples[leaf_index(t, X[i])]
        return out

    my_leaf_sizes(tree.arrays, X)

Routing at node ``i`` (the format's contract; see docs/format.md):

* categorical split (``cat_offset[i] >= 0``): a NaN or a code outside
  ``[0, n_categories[f])`` takes the missing route, else the bit of the code decides;
* multiway split (a categorical feature, ``cat_offset[i] == -1``; ID3/C4.5): code ``c``
  goes to child ``left[i] + c``; a NaN or a code outside ``[0, n_categories[f])`` goes
  to the child of the largest ``weighted_n_node_samples`` (the first of equals);
* numeric split: NaN takes the missing route, else left iff ``x <= threshold[i]``;
* the missing route tries the node's surrogate splits in rank order, then falls back
  to ``missing_go_left[i]``.

:func:`child` gives the child a row goes to at any split; :func:`go_left` answers for
binary splits only.

The batch kernels (``*_batch``) are serial and release the GIL: fastdt runs them on
blocks of rows on several threads (:mod:`fastdt._parallel`); a user's code can do the
same, or call them from its own ``prange``.
"""

import numpy as np

from ._config import LEAF
from ._jit import INLINE, JIT


@JIT
def in_bitset(t, node, code):
    """True iff category ``code`` (a valid int) goes left at categorical node ``node``."""
    word = t.cat_bitsets[t.cat_offset[node] + (code >> 6)]
    return (word >> np.uint64(code & 63)) & np.uint64(1) == np.uint64(1)


@JIT
def _missing_left(t, node, x):
    """Route of a row whose value at ``node`` is missing: surrogates, then the default."""
    for s in range(t.surrogate_ptr[node], t.surrogate_ptr[node + 1]):
        v = x[t.surrogate_feature[s]]
        if not np.isnan(v):
            le = v <= t.surrogate_threshold[s]
            return le == (t.surrogate_left_if_le[s] == 1)
    return t.missing_go_left[node] == 1


@JIT
def go_left(t, node, x):
    """True iff row ``x`` (1-D, float) goes to the left child of internal ``node``."""
    f = t.feature[node]
    v = x[f]
    if t.cat_offset[node] >= 0:
        if np.isnan(v) or v < 0 or v >= t.n_categories[f]:
            return _missing_left(t, node, x)
        return in_bitset(t, node, np.int64(v))
    if np.isnan(v):
        return _missing_left(t, node, x)
    return v <= t.threshold[node]


@JIT
def heaviest_child(t, node):
    """The child of ``node`` with the largest ``weighted_n_node_samples`` (the first
    of equals): where a missing value goes at a multiway split."""
    best = t.left[node]
    for c in range(t.left[node] + 1, t.right[node] + 1):
        if t.weighted_n_node_samples[c] > t.weighted_n_node_samples[best]:
            best = c
    return best


@JIT
def child(t, node, x):
    """Id of the child of internal ``node`` that row ``x`` (1-D, float) goes to."""
    f = t.feature[node]
    if t.cat_offset[node] < 0 and t.n_categories[f] > 0:  # multiway: a child per category
        v = x[f]
        if np.isnan(v) or v < 0 or v >= t.n_categories[f]:
            return heaviest_child(t, node)
        return t.left[node] + np.int64(v)
    return t.left[node] if go_left(t, node, x) else t.right[node]


@JIT
def leaf_index(t, x):
    """Id of the leaf that row ``x`` (1-D) reaches, starting at the root (node 0)."""
    node = np.int64(0)  # not Literal[int](0): child would compile twice
    while t.left[node] != LEAF:
        node = child(t, node, x)
    return node


@JIT
def apply_batch(t, X, out):
    """``out[i] = leaf_index(t, X[i])`` for every row of ``X`` (serial; threads run blocks of rows).

    Parameters
    ----------
    t : TreeArrays
    X : float32 or float64 [n, n_features]
    out : int64 [n]
    """
    walk_batch(t, X, out, None, None, None)


@JIT
def walk_batch(t, X, out, starts, indices, roots):
    """The leaf of every row of ``X`` into ``out``; with ``indices`` (else None), also the
    nodes each row visits, root first, from ``indices[starts[i]]`` on
    (:func:`decision_path_batch`); with ``roots`` (else None), row ``i`` starts at node
    ``roots[i]`` instead of the root (:func:`fastdt._permute.permuted_predictions`).

    The routing of :func:`child` (and :func:`go_left`, :func:`in_bitset`,
    :func:`_missing_left`, :func:`heaviest_child`) is written out in the loop, with the
    node arrays taken out of ``t`` once: a call that takes ``t`` (a tuple of 17 arrays)
    counts a reference to each of them on the way in and out, even inlined, and per
    node that cost about 40 times the walk itself (2.1 against 80 ms for 32,561 Adult
    rows through a 31-leaf tree, one thread). ``tests/test_tree.py`` checks the two
    agree on every kind of split.
    """
    feature, threshold, left, right = t.feature, t.threshold, t.left, t.right
    cat_offset, cat_bitsets, n_categories = t.cat_offset, t.cat_bitsets, t.n_categories
    missing_go_left, weighted = t.missing_go_left, t.weighted_n_node_samples
    s_ptr, s_feature = t.surrogate_ptr, t.surrogate_feature
    s_threshold, s_left = t.surrogate_threshold, t.surrogate_left_if_le
    for i in range(X.shape[0]):
        if roots is None:
            node = np.int64(0)
        else:
            node = np.int64(roots[i])
        if indices is not None:
            p = starts[i]
            indices[p] = 0
        while left[node] != LEAF:
            f = feature[node]
            v = X[i, f]
            co = cat_offset[node]
            nc = n_categories[f]
            if co < 0 and nc > 0:  # multiway: a child per category (child)
                if np.isnan(v) or v < 0 or v >= nc:  # the heaviest child
                    nxt = np.int64(left[node])
                    for c in range(left[node] + 1, right[node] + 1):
                        if weighted[c] > weighted[nxt]:
                            nxt = c
                else:
                    nxt = left[node] + np.int64(v)
            else:
                if np.isnan(v) or (co >= 0 and (v < 0 or v >= nc)):  # _missing_left
                    go = missing_go_left[node] == 1
                    for s in range(s_ptr[node], s_ptr[node + 1]):
                        u = X[i, s_feature[s]]
                        if not np.isnan(u):
                            go = (u <= s_threshold[s]) == (s_left[s] == 1)
                            break
                elif co >= 0:  # in_bitset
                    code = np.int64(v)
                    word = cat_bitsets[co + (code >> 6)]
                    go = (word >> np.uint64(code & 63)) & np.uint64(1) == np.uint64(1)
                else:
                    go = v <= threshold[node]
                nxt = np.int64(left[node] if go else right[node])
            node = nxt
            if indices is not None:
                p += 1
                indices[p] = node
        out[i] = node


@JIT
def value_batch(t, X, out):
    """``out[i] = value[leaf_index(t, X[i])]`` (serial; threads run blocks of rows).

    Parameters
    ----------
    t : TreeArrays
    X : float32 or float64 [n, n_features]
    out : float64 [n, n_values]
    """
    leaf = np.empty(X.shape[0], dtype=np.int64)
    apply_batch(t, X, leaf)
    for i in range(X.shape[0]):
        for c in range(out.shape[1]):
            out[i, c] = t.value[leaf[i], c]


@JIT
def decision_path_batch(t, X, indptr, indices):
    """Nodes visited by each row, in CSR form (serial; threads run blocks of rows).

    Parameters
    ----------
    t : TreeArrays
    X : float32 or float64 [n, n_features]
    indptr : int64 [n + 1]
        ``indptr[i + 1] - indptr[i]`` must be ``depth[leaf_i] + 1`` (as
        :func:`fastdt._predict.decision_path` sets it); ``indptr[0] = 0``.
    indices : int64 [indptr[n]]
        Output: node ids of each row's path, root first.
    """
    walk_batch(t, X, np.empty(X.shape[0], dtype=np.int64), indptr, indices, None)


# ----------------------------------------------------------------- fast batch traversal
#
# For a tree with only numeric splits and rows without NaN, every level of a traversal is
# ``node = left[node] + (x[feature[node]] > threshold[node])`` (right == left + 1). With
# leaves turned into self-loops (left = itself, threshold = +inf), ``depth`` such
# branch-free steps bring every row to its leaf. Eight rows are advanced together,
# so the processor overlaps their independent chains of loads; ``left`` and ``feature``
# are packed into one int64 (one load per step), and the thresholds are given in X's
# dtype so that no value is converted in the loop (see ``step_arrays``).

_U, _I = np.uint64, np.int64  # node ids in the loops, and as they are returned


def step_arrays(t, dtype):
    """``(packed, thresholds)`` for :func:`apply_numeric_batch` from TreeArrays ``t``.

    ``packed[i] = left << 32 | feature`` (a leaf: itself, feature 0); thresholds are
    ``+inf`` at leaves. For float32 X the threshold is the largest float32 ``<=`` the
    float64 threshold: for a float32 ``x``, ``x > t32`` iff ``x > t``.
    """
    n = t.left.shape[0]
    leaf = t.left == LEAF
    left = np.where(leaf, np.arange(n), t.left).astype(np.int64)
    feature = np.where(leaf, 0, t.feature).astype(np.int64)
    packed = (left << 32) | feature
    thr = np.where(leaf, np.inf, t.threshold)
    if dtype == np.float32:
        t32 = thr.astype(np.float32)
        too_big = t32.astype(np.float64) > thr
        t32[too_big] = np.nextafter(t32[too_big], np.float32(-np.inf))
        return packed, t32
    return packed, thr


@INLINE
def descend8(packed, thresholds, root, n_steps, X, s):
    """Nodes reached from ``root`` by rows ``s`` to ``s + 7`` of ``X`` after ``n_steps``
    steps (a tuple of 8 node ids; a leaf loops to itself; see :func:`apply_numeric_batch`).

    Each row is in its own variable (a register), so the eight chains of dependent
    loads overlap. (Stopping once all eight stand on leaves measured no faster: the
    test costs what the saved steps gain.) The node ids are unsigned inside the loop, so
    that numba indexes without testing for negative indices (with the tests and the
    stack reloads they caused, a row's step took about twenty instructions, now about
    twelve; the ids come back as int64).
    """
    r0, r1, r2, r3 = X[s], X[s + 1], X[s + 2], X[s + 3]
    r4, r5, r6, r7 = X[s + 4], X[s + 5], X[s + 6], X[s + 7]
    k0 = k1 = k2 = k3 = k4 = k5 = k6 = k7 = _U(root)
    m, sh = _U(0xFFFFFFFF), _U(32)
    for _ in range(n_steps):  # one level: node = left + (x[feature] > threshold)
        p0, p1, p2, p3 = _U(packed[k0]), _U(packed[k1]), _U(packed[k2]), _U(packed[k3])
        p4, p5, p6, p7 = _U(packed[k4]), _U(packed[k5]), _U(packed[k6]), _U(packed[k7])
        k0 = (p0 >> sh) + _U(r0[p0 & m] > thresholds[k0])
        k1 = (p1 >> sh) + _U(r1[p1 & m] > thresholds[k1])
        k2 = (p2 >> sh) + _U(r2[p2 & m] > thresholds[k2])
        k3 = (p3 >> sh) + _U(r3[p3 & m] > thresholds[k3])
        k4 = (p4 >> sh) + _U(r4[p4 & m] > thresholds[k4])
        k5 = (p5 >> sh) + _U(r5[p5 & m] > thresholds[k5])
        k6 = (p6 >> sh) + _U(r6[p6 & m] > thresholds[k6])
        k7 = (p7 >> sh) + _U(r7[p7 & m] > thresholds[k7])
    return (_I(k0), _I(k1), _I(k2), _I(k3), _I(k4), _I(k5), _I(k6), _I(k7))


@INLINE
def descend1(packed, thresholds, root, n_steps, x):
    """Node reached from ``root`` by row ``x`` after ``n_steps`` steps."""
    k = _U(root)
    m, sh = _U(0xFFFFFFFF), _U(32)
    for _ in range(n_steps):
        pk = _U(packed[k])
        k = (pk >> sh) + _U(x[pk & m] > thresholds[k])
    return _I(k)


@JIT
def apply_numeric_batch(packed, thresholds, n_steps, X, out):
    """Leaf ids of the rows of ``X`` for a numeric-only tree (no NaN in ``X``).

    Eight rows advance together (:func:`descend8`); the last ``n % 8`` rows go one at
    a time.

    Parameters
    ----------
    packed : int64 [n_nodes]
        ``left << 32 | feature`` at internal nodes; ``own id << 32`` at leaves.
    thresholds : X.dtype [n_nodes]
        Thresholds in X's dtype (``step_arrays``); ``+inf`` at leaves.
    n_steps : int
        Depth of the tree.
    X : float32 or float64 [n, n_features]
    out : int64 [n]
        Output: leaf ids.
    """
    n = X.shape[0]
    for blk in range(n // 8):
        s = blk * 8
        k = descend8(packed, thresholds, 0, n_steps, X, s)
        out[s], out[s + 1], out[s + 2], out[s + 3] = k[0], k[1], k[2], k[3]
        out[s + 4], out[s + 5], out[s + 6], out[s + 7] = k[4], k[5], k[6], k[7]
    for i in range(n - n % 8, n):
        out[i] = descend1(packed, thresholds, 0, n_steps, X[i])


@INLINE
def stack_size(t):
    """Room for :func:`fractional_values`' pending branches: each level of a path
    leaves at most ``children - 1`` of them (a binary tree: ``depth.max() + 2``)."""
    widest = 2
    for i in range(t.left.shape[0]):
        widest = max(widest, t.right[i] - t.left[i] + 1)
    return np.int64(t.depth.max()) * (widest - 1) + 2


@INLINE
def fractional_values(t, x, s_node, s_w, out):
    """Prediction of one row ``x`` of a ``missing="fractional"`` tree, into ``out``.

    A row missing the value of a node's feature (NaN, or a category code outside
    ``[0, n_categories)``) goes down every child (both, or all of a multiway split),
    with the weights ``weighted_n_node_samples[child] / weighted_n_node_samples[node]``:
    the share of the training weight each child received. ``out`` becomes the weighted mean of the
    values of the leaves the row reaches (one leaf, with weight 1, for a row missing
    nothing on its path).

    Parameters
    ----------
    t : TreeArrays
    x : float32 or float64 [n_features]
    s_node : int64 [stack_size(t)], s_w : float64 [same]
        Scratch: the stack of pending branches.
    out : float64 [n_values]
        Output.

    A present value's route is :func:`child`'s, written out: a call per node that
    takes ``t`` costs far more than the step (see :func:`walk_batch`).
    """
    out[:] = 0.0
    s_node[0] = 0
    s_w[0] = 1.0
    top = 1
    while top > 0:
        top -= 1
        node = s_node[top]
        w = s_w[top]
        while t.left[node] != LEAF:
            f = t.feature[node]
            v = x[f]
            missing = np.isnan(v) or (
                t.cat_offset[node] >= 0 and (v < 0 or v >= t.n_categories[f]))
            if missing:
                wn = t.weighted_n_node_samples[node]
                lc = t.left[node]
                for c in range(t.right[node], lc, -1):  # pending: every child but the first
                    s_node[top] = c
                    s_w[top] = w * (t.weighted_n_node_samples[c] / wn)
                    top += 1
                w = w * (t.weighted_n_node_samples[lc] / wn)
                node = lc
            elif t.cat_offset[node] < 0 and t.n_categories[f] > 0:  # multiway, as child
                if v < 0 or v >= t.n_categories[f]:  # the heaviest child
                    lc = t.left[node]
                    for c in range(t.left[node] + 1, t.right[node] + 1):
                        if t.weighted_n_node_samples[c] > t.weighted_n_node_samples[lc]:
                            lc = c
                    node = lc
                else:
                    node = t.left[node] + np.int64(v)
            elif t.cat_offset[node] >= 0:  # in_bitset, written out as in walk_batch
                code = np.int64(v)
                word = t.cat_bitsets[t.cat_offset[node] + (code >> 6)]
                go = (word >> np.uint64(code & 63)) & np.uint64(1) == np.uint64(1)
                node = t.left[node] if go else t.right[node]
            else:
                node = t.left[node] if v <= t.threshold[node] else t.right[node]
        for c in range(out.shape[0]):
            out[c] += w * t.value[node, c]


@JIT
def value_fractional_batch(t, X, out):
    """Predictions of a ``missing="fractional"`` tree (C4.5), serial; threads run blocks of rows: row
    ``i`` as :func:`fractional_values` into ``out[i]``.

    Parameters
    ----------
    t : TreeArrays
    X : float32 or float64 [n, n_features]
    out : float64 [n, n_values]
    """
    n = X.shape[0]
    size = stack_size(t)
    s_node = np.empty(size, dtype=np.int64)
    s_w = np.empty(size)
    for i in range(n):
        fractional_values(t, X[i], s_node, s_w, out[i])

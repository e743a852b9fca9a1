"""Public ``@njit`` kernels over the forest format, for fastdt and for users' numba code.

A forest reaches numba code as two arguments: ``forest.arrays``, a
:class:`fastdt.tree.TreeArrays` of the concatenated node arrays (the same numba type as
a single tree's ``tree.arrays``), and ``forest.offsets`` (int64 ``[n_fields, n_trees +
1]``, see :mod:`fastdt.ensemble.forest`). :func:`tree_arrays` gives tree ``i`` as the
TreeArrays of a tree (views, nothing copied), so every kernel of :mod:`fastdt.kernels`
applies to it. Example::

    from numba import njit
    from fastdt.ensemble.kernels import forest_leaf_index

    @njit
    def leaf_sizes(f, offsets, X):
        n_trees = offsets.shape[1] - 1
        out = np.zeros(X.shape[0])
        for i in range(n_trees):
            base = offsets[0, i]  # tree i's first node in the concatenated arrays
            for r in range(X.shape[0]):
                out[r] += f.n_node_samples[base + forest_leaf_index(f, offsets, i, X[r])]
        return out / n_trees

    leaf_sizes(forest.arrays, forest.offsets, X)

Leaf ids are local to their tree (as :meth:`fastdt.ensemble.Forest.tree` numbers them);
add ``offsets[0, i]`` for the row of the concatenated node arrays. A forest predicts
the mean of its trees' leaf values. The routing is the trees' (:mod:`fastdt.kernels`):
a ``missing="fractional"`` forest's rows with NaN need that module's fractional
kernel, tree by tree.

The batch kernels are serial and release the GIL; fastdt runs them on blocks of rows
on several threads (:mod:`fastdt._parallel`).
"""

import numpy as np

from .._jit import INLINE, JIT
from ..kernels import _U, apply_batch, descend8, leaf_index
from ..tree import TreeArrays

__all__ = ["tree_arrays", "forest_leaf_index", "forest_value", "forest_apply_batch",
           "forest_value_batch", "forest_step_arrays", "forest_apply_numeric_batch",
           "forest_value_numeric_batch"]


@JIT
def tree_arrays(f, offsets, i):
    """Tree ``i`` of the forest ``(f, offsets)`` as a TreeArrays (views)."""
    o = offsets
    return TreeArrays(
        f.feature[o[0, i]:o[0, i + 1]], f.threshold[o[1, i]:o[1, i + 1]],
        f.left[o[2, i]:o[2, i + 1]], f.right[o[3, i]:o[3, i + 1]],
        f.value[o[4, i]:o[4, i + 1]], f.impurity[o[5, i]:o[5, i + 1]],
        f.n_node_samples[o[6, i]:o[6, i + 1]], f.weighted_n_node_samples[o[7, i]:o[7, i + 1]],
        f.depth[o[8, i]:o[8, i + 1]], f.missing_go_left[o[9, i]:o[9, i + 1]],
        f.cat_offset[o[10, i]:o[10, i + 1]], f.cat_bitsets[o[11, i]:o[11, i + 1]],
        f.n_categories[o[12, i]:o[12, i + 1]], f.surrogate_ptr[o[13, i]:o[13, i + 1]],
        f.surrogate_feature[o[14, i]:o[14, i + 1]],
        f.surrogate_threshold[o[15, i]:o[15, i + 1]],
        f.surrogate_left_if_le[o[16, i]:o[16, i + 1]],
    )


@JIT
def forest_leaf_index(f, offsets, i, x):
    """Leaf (local id) that row ``x`` (1-D) reaches in tree ``i``."""
    return leaf_index(tree_arrays(f, offsets, i), x)


@JIT
def forest_value(f, offsets, x, out):
    """``out`` (float64 [n_values]) = the mean over the trees of the value of the leaf
    row ``x`` reaches."""
    n_trees = offsets.shape[1] - 1
    out[:] = 0.0
    for i in range(n_trees):
        t = tree_arrays(f, offsets, i)
        leaf = leaf_index(t, x)
        for c in range(out.shape[0]):
            out[c] += t.value[leaf, c]
    for c in range(out.shape[0]):
        out[c] /= n_trees


@JIT
def forest_apply_batch(f, offsets, X, out):
    """``out[r, i]`` = leaf (local id) of row ``r`` of ``X`` in tree ``i`` (serial).

    Parameters
    ----------
    f : TreeArrays (``forest.arrays``)
    offsets : int64 [n_fields, n_trees + 1]
    X : float32 or float64 [n, n_features]
    out : int64 [n, n_trees]
    """
    leaf = np.empty(X.shape[0], dtype=np.int64)
    for i in range(offsets.shape[1] - 1):
        apply_batch(tree_arrays(f, offsets, i), X, leaf)  # a call per tree: see apply_batch
        for r in range(X.shape[0]):
            out[r, i] = leaf[r]


@JIT
def forest_value_batch(f, offsets, X, out):
    """``out[r]`` = :func:`forest_value` of row ``r`` of ``X`` (serial).

    Parameters
    ----------
    f : TreeArrays (``forest.arrays``)
    offsets : int64 [n_fields, n_trees + 1]
    X : float32 or float64 [n, n_features]
    out : float64 [n, n_values]
    """
    n_trees = offsets.shape[1] - 1
    out[:, :] = 0.0
    leaf = np.empty(X.shape[0], dtype=np.int64)
    for i in range(n_trees):  # tree by tree: its nodes stay in the cache
        t = tree_arrays(f, offsets, i)
        apply_batch(t, X, leaf)  # a call per tree: see fastdt.kernels.apply_batch
        for r in range(X.shape[0]):
            for c in range(out.shape[1]):
                out[r, c] += t.value[leaf[r], c]
    out /= n_trees


# ----------------------------------------------------------------- fast batch traversal
# A forest whose splits are all numeric, for rows without NaN: the trees' step arrays
# (fastdt.kernels.step_arrays) concatenated, with the children as ids into the
# concatenation, so one kernel walks every tree (fastdt.kernels.descend8).


def forest_step_arrays(forest, dtype, share=0.9):
    """``(packed, thresholds, roots, steps)`` for the numeric batch kernels: the step
    arrays of every tree (``fastdt.kernels.step_arrays``, in ``dtype``) with node ids
    into the concatenated arrays, each tree's root (its first node), and how many steps
    rows take together in each tree: the depth by which ``share`` of its training
    samples stand on a leaf (the rest finish one by one; a forest's deep trees reach
    twice that depth only on a few rows)."""
    from .._parallel import run

    roots = forest.offsets[0, :-1].copy()
    packed = np.empty(forest.node_count, dtype=np.int64)
    thresholds = np.empty(forest.node_count, dtype=dtype)
    steps = np.empty(forest.n_trees, dtype=np.int64)
    run(_step_arrays, forest.n_trees, 5 * forest.node_count, forest.left, forest.feature,
        forest.threshold, forest.depth, forest.n_node_samples, forest.offsets[0],
        float(share), packed, thresholds, steps)
    return packed, thresholds, roots, steps


@JIT
def _step_arrays(lo, hi, left, feature, threshold, depth, n_node_samples, node_offsets, share,
                 packed, thresholds, steps):
    """``fastdt.kernels.step_arrays`` of trees ``lo`` to ``hi`` (of every tree, in
    blocks on threads: ``_parallel.run``), with global node ids, and ``steps[i]``: the
    smallest leaf depth of tree ``i`` by which ``share`` of its training samples
    (``n_node_samples`` of its leaves) stand on a leaf.

    A branch-free pass over each tree's nodes, then one to the goal, with unsigned ids
    (with signed ones numba tests each index for a negative value, and the passes took
    3.4 times as long: 18 ms for 2.4 M nodes on one thread, 5 ms now). Ids are
    breadth-first, so depths never fall along a tree's nodes: the first node by which the
    leaves' samples reach the goal stands at the depth asked for. For float32 the
    threshold is rounded to the nearest float32 and then, where that rounded up, moved one
    unit down in its bits (``np.nextafter`` towards -inf: its branch and call took a
    third of the time)."""
    bits = thresholds.view(np.int32)  # used for float32 thresholds only
    for i in range(lo, hi):
        base, end = _U(node_offsets[i]), _U(node_offsets[i + 1])
        total = 0
        for k in range(base, end):
            lk, fk, t = np.int64(left[k]), np.int64(feature[k]), threshold[k]
            leaf = lk < 0  # a leaf steps to itself
            kid = np.int64(k) if leaf else np.int64(base) + lk
            packed[k] = (kid << 32) | (np.int64(0) if leaf else fk)
            rounded = thresholds.dtype.type(t)
            thresholds[k] = np.inf if leaf else rounded
            if thresholds.itemsize == 4:  # float32: the largest float32 <= the threshold
                up = np.int32(np.float64(rounded) > t)
                b = bits[k]  # a positive float moves down by -1 in its bits, a negative by +1
                bits[k] = b - up * ((b >> np.int32(31)) | np.int32(1))
            total += n_node_samples[k] * leaf
        goal = np.int64(np.ceil(share * total))
        reached = 0
        steps[i] = 0
        for k in range(base, end):
            reached += n_node_samples[k] * (left[k] < 0)
            if reached >= goal:
                steps[i] = depth[k]
                break


@INLINE
def _finish(packed, thresholds, k, x):
    """The leaf row ``x`` reaches from node ``k`` (unsigned ids in the loop, as in
    :func:`fastdt.kernels.descend8`). A node is a leaf when its step leads to itself
    (``packed[k] >> 32 == k``; an internal node's left child comes after it), told before
    the row's value and the threshold are read: most rows stand on their leaf when the
    lockstep ends (a forest's prediction 0.971-0.981 of the time, three runs of 16
    alternations)."""
    k = np.uint64(k)
    m, sh = np.uint64(0xFFFFFFFF), np.uint64(32)
    while True:
        pk = np.uint64(packed[k])
        kid = pk >> sh
        if kid == k:
            return np.int64(k)
        k = kid + np.uint64(x[pk & m] > thresholds[k])


@INLINE
def _descend8_finish(packed, thresholds, root, steps, X, s):
    """:func:`fastdt.kernels.descend8` for ``steps`` steps, then each row on to its leaf."""
    k0, k1, k2, k3, k4, k5, k6, k7 = descend8(packed, thresholds, root, steps, X, s)
    return (_finish(packed, thresholds, k0, X[s]), _finish(packed, thresholds, k1, X[s + 1]),
            _finish(packed, thresholds, k2, X[s + 2]), _finish(packed, thresholds, k3, X[s + 3]),
            _finish(packed, thresholds, k4, X[s + 4]), _finish(packed, thresholds, k5, X[s + 5]),
            _finish(packed, thresholds, k6, X[s + 6]), _finish(packed, thresholds, k7, X[s + 7]))


#: A block of rows reads a tree ahead (:func:`_ahead`) when it has at least one row for
#: every ``READ_AHEAD`` of the tree's nodes.
READ_AHEAD = 64


@INLINE
def _ahead(roots, i, n_nodes, n_rows):
    """Tree ``i``'s node ids ``(lo, hi)`` to read ahead (:func:`_read_nodes`) before a
    block of ``n_rows`` rows walks it: all of them from one row a ``READ_AHEAD`` nodes,
    none below (the rows of a smaller block visit too few of the nodes: measured even at
    about 270 rows a tree of 24,000 nodes)."""
    lo = _U(roots[i])
    hi = _U(roots[i + 1]) if i + 1 < roots.shape[0] else _U(n_nodes)
    if _U(n_rows) * _U(READ_AHEAD) < hi - lo:
        return lo, lo
    return lo, hi


@INLINE
def _read_nodes(packed, thresholds, lo, hi):
    """Reads one entry of every cache line of nodes ``lo`` to ``hi`` of the step arrays,
    in order, and returns a sum of them that the kernels return, so that the compiler
    keeps the reads.

    Before the rows walk a tree, its nodes are in no cache (a forest's are far more than
    the caches hold) and each first visit to a node waited for memory, row by row: about
    0.15 ms a tree and thread on compare.py's forests. Read in order, the same lines
    stream in at the memory's speed (100 trees of 24,000 nodes, one thread: 2,000 rows
    24.8 -> 12.1 ms, 8,000 rows 58 -> 37 ms)."""
    read = 0.0
    for k in range(lo, hi, _U(8)):  # 8 int64 a line
        read += packed[k]
    for k in range(lo, hi, _U(16)):  # 16 float32 a line (float64: every other line)
        read += thresholds[k]
    return read


@INLINE
def _read_values(value, lo, hi):
    """:func:`_read_nodes` for rows ``lo`` to ``hi`` of ``value``."""
    read = 0.0
    for k in range(lo, hi, _U(max(1, 8 // value.shape[1]))):
        read += value[k, 0]
    return read


@JIT
def forest_apply_numeric_batch(packed, thresholds, roots, steps, X, out):
    """``out[r, i]`` = leaf (local id) of row ``r`` in tree ``i``, for a forest with
    numeric splits only and rows without NaN (serial; ``forest_step_arrays``). Eight rows
    take ``steps[i]`` steps of tree ``i`` together, then each goes on to its leaf alone
    (any ``steps`` gives the same leaves). Returns :func:`_read_nodes`' sums."""
    n = X.shape[0]
    read = 0.0
    for i in range(roots.shape[0]):
        root, together = roots[i], steps[i]
        lo, hi = _ahead(roots, i, packed.shape[0], n)
        read += _read_nodes(packed, thresholds, lo, hi)
        for blk in range(n // 8):
            s = blk * 8
            k0, k1, k2, k3, k4, k5, k6, k7 = _descend8_finish(packed, thresholds, root,
                                                              together, X, s)
            out[s, i], out[s + 1, i], out[s + 2, i], out[s + 3, i] = k0, k1, k2, k3
            out[s + 4, i], out[s + 5, i], out[s + 6, i], out[s + 7, i] = k4, k5, k6, k7
            for j in range(s, s + 8):
                out[j, i] -= root
        for r in range(n - n % 8, n):
            out[r, i] = _finish(packed, thresholds, root, X[r]) - root
    return read


@JIT
def forest_value_numeric_batch(packed, thresholds, roots, steps, value, X, out):
    """``out[r]`` = the mean of the trees' leaf values for row ``r``, for a forest with
    numeric splits only and rows without NaN (serial; ``forest_step_arrays``;
    ``value`` is ``forest.value``; ``steps`` as :func:`forest_apply_numeric_batch`).
    Returns :func:`_read_nodes`' sums."""
    n, n_values = X.shape[0], value.shape[1]
    out[:, :] = 0.0
    read = 0.0
    for i in range(roots.shape[0]):
        root, together = roots[i], steps[i]
        lo, hi = _ahead(roots, i, packed.shape[0], n)
        read += _read_nodes(packed, thresholds, lo, hi) + _read_values(value, lo, hi)
        for blk in range(n // 8):
            s = blk * 8
            k0, k1, k2, k3, k4, k5, k6, k7 = _descend8_finish(packed, thresholds, root,
                                                              together, X, s)
            for c in range(n_values):
                out[s, c] += value[k0, c]
                out[s + 1, c] += value[k1, c]
                out[s + 2, c] += value[k2, c]
                out[s + 3, c] += value[k3, c]
                out[s + 4, c] += value[k4, c]
                out[s + 5, c] += value[k5, c]
                out[s + 6, c] += value[k6, c]
                out[s + 7, c] += value[k7, c]
        for r in range(n - n % 8, n):
            leaf = _finish(packed, thresholds, root, X[r])
            for c in range(n_values):
                out[r, c] += value[leaf, c]
    out /= roots.shape[0]
    return read

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

Routing at node ``i`` (the format's contract; see the README):

* categorical split (``cat_offset[i] >= 0``): a NaN or a code outside
  ``[0, n_categories[f])`` takes the missing route, else the bit of the code decides;
* numeric split: NaN takes the missing route, else left iff ``x <= threshold[i]``;
* the missing route tries the node's surrogate splits in rank order, then falls back
  to ``missing_go_left[i]``.

Only the batch kernels (``*_batch``) are parallel (``prange`` over rows).
"""

import numpy as np
from numba import prange

from ._config import JIT, LEAF, PJIT


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
def leaf_index(t, x):
    """Id of the leaf that row ``x`` (1-D) reaches, starting at the root (node 0)."""
    node = 0
    while t.left[node] != LEAF:
        if go_left(t, node, x):
            node = t.left[node]
        else:
            node = t.right[node]
    return node


@PJIT
def apply_batch(t, X, out):
    """``out[i] = leaf_index(t, X[i])`` for every row of ``X`` (parallel over rows).

    Parameters
    ----------
    t : TreeArrays
    X : float32 or float64 [n, n_features]
    out : int64 [n]
    """
    for i in prange(X.shape[0]):
        out[i] = leaf_index(t, X[i])


@PJIT
def value_batch(t, X, out):
    """``out[i] = value[leaf_index(t, X[i])]`` (parallel over rows).

    Parameters
    ----------
    t : TreeArrays
    X : float32 or float64 [n, n_features]
    out : float64 [n, n_values]
    """
    for i in prange(X.shape[0]):
        out[i] = t.value[leaf_index(t, X[i])]


@PJIT
def decision_path_batch(t, X, indptr, indices):
    """Nodes visited by each row, in CSR form (parallel over rows).

    Parameters
    ----------
    t : TreeArrays
    X : float32 or float64 [n, n_features]
    indptr : int64 [n + 1]
        ``indptr[i + 1] - indptr[i]`` must be ``depth[leaf_i] + 1`` (see
        :func:`path_lengths`); ``indptr[0] = 0``.
    indices : int64 [indptr[n]]
        Output: node ids of each row's path, root first.
    """
    for i in prange(X.shape[0]):
        node = 0
        p = indptr[i]
        indices[p] = 0
        while t.left[node] != LEAF:
            if go_left(t, node, X[i]):
                node = t.left[node]
            else:
                node = t.right[node]
            p += 1
            indices[p] = node

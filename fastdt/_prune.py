"""Cost-complexity (weakest-link) pruning over the flat tree arrays (CART).

For a subtree ``T`` the cost is ``R_alpha(T) = R(T) + alpha * |leaves(T)|``, where
``R(T)`` sums ``w(leaf) / w(root) * impurity(leaf)`` over the leaves. An internal
node ``t`` is worth keeping while ``alpha`` is below its *effective alpha*
``(R(t) - R(T_t)) / (|leaves(T_t)| - 1)``; weakest-link pruning turns the node of
smallest effective alpha into a leaf, again and again, until the root is a leaf,
recording ``alpha`` and ``R`` after each step (scikit-learn's
``_cost_complexity_prune``, node for node).

scikit-learn recomputes every node's effective alpha at every step (quadratic in the
node count). Pruning a branch changes the effective alpha of its ancestors only, so
here the candidates sit in a min-heap keyed by ``(alpha, node)``; a pruning pushes the
ancestors' new alphas and marks their old entries stale (a version per node), which
costs ``O(depth log n)`` per step.
"""

import numpy as np

from ._config import JIT, LEAF


@JIT
def _push(h_a, h_n, h_v, size, alpha, node, version):
    """Push onto a min-heap keyed by ``(alpha, node)``."""
    pos = size
    h_a[pos] = alpha
    h_n[pos] = node
    h_v[pos] = version
    while pos > 0:
        parent = (pos - 1) // 2
        if h_a[parent] < h_a[pos] or (h_a[parent] == h_a[pos] and h_n[parent] < h_n[pos]):
            break
        h_a[parent], h_a[pos] = h_a[pos], h_a[parent]
        h_n[parent], h_n[pos] = h_n[pos], h_n[parent]
        h_v[parent], h_v[pos] = h_v[pos], h_v[parent]
        pos = parent
    return size + 1


@JIT
def _pop(h_a, h_n, h_v, size):
    """Remove the top of the heap (read it first); returns the new size."""
    size -= 1
    h_a[0] = h_a[size]
    h_n[0] = h_n[size]
    h_v[0] = h_v[size]
    pos = 0
    while True:
        lc = 2 * pos + 1
        if lc >= size:
            break
        best = lc
        rc = lc + 1
        if rc < size and (h_a[rc] < h_a[lc] or (h_a[rc] == h_a[lc] and h_n[rc] < h_n[lc])):
            best = rc
        if h_a[pos] < h_a[best] or (h_a[pos] == h_a[best] and h_n[pos] < h_n[best]):
            break
        h_a[pos], h_a[best] = h_a[best], h_a[pos]
        h_n[pos], h_n[best] = h_n[best], h_n[pos]
        h_v[pos], h_v[best] = h_v[best], h_v[pos]
        pos = best
    return size


@JIT
def weakest_link(left, right, weighted_n_node_samples, impurity, ccp_alpha, alphas,
                 impurities, keep):
    """Weakest-link pruning of a tree given by its node arrays.

    Prunes while the next effective alpha is at most ``ccp_alpha`` (``inf``: the whole
    path).

    Parameters
    ----------
    left, right : int32 [n]
    weighted_n_node_samples, impurity : float64 [n]
    ccp_alpha : float
    alphas, impurities : float64 [n]
        Output: the path, ``alphas[0] = 0`` and ``impurities[0]`` the whole tree's.
    keep : uint8 [n]
        Output: 1 for the nodes of the pruned tree.

    Returns
    -------
    int
        Length of the path.
    """
    n = left.shape[0]
    parent = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        if left[i] != LEAF:
            parent[left[i]] = i
            parent[right[i]] = i
    w_root = weighted_n_node_samples[0]
    r_node = np.empty(n)
    for i in range(n):
        r_node[i] = weighted_n_node_samples[i] * impurity[i] / w_root
    r_branch = np.zeros(n)
    n_leaves = np.zeros(n, dtype=np.int64)
    # children have larger ids than their parents: one reverse sweep sums the leaves
    for i in range(n - 1, -1, -1):
        if left[i] == LEAF:
            r_branch[i] = r_node[i]
            n_leaves[i] = 1
        p = parent[i]
        if p >= 0:
            r_branch[p] += r_branch[i]
            n_leaves[p] += n_leaves[i]
    keep[:] = 1
    candidate = np.zeros(n, dtype=np.uint8)
    version = np.zeros(n, dtype=np.int64)
    h_a = np.empty(n + 64)
    h_n = np.empty(n + 64, dtype=np.int64)
    h_v = np.empty(n + 64, dtype=np.int64)
    size = 0
    for i in range(n):
        if left[i] != LEAF:
            candidate[i] = 1
            size = _push(h_a, h_n, h_v, size,
                         (r_node[i] - r_branch[i]) / (n_leaves[i] - 1), i, 0)
    count = 0
    alphas[count] = 0.0
    impurities[count] = r_branch[0]
    count += 1
    stack = np.empty(n, dtype=np.int64)
    while candidate[0] == 1 and size > 0:
        alpha = h_a[0]
        node = h_n[0]
        ver = h_v[0]
        size = _pop(h_a, h_n, h_v, size)
        if candidate[node] == 0 or ver != version[node]:
            continue  # pruned away, or an outdated alpha
        if ccp_alpha < alpha:
            break
        # the branch below node leaves the tree
        top = 0
        stack[top] = left[node]
        stack[top + 1] = right[node]
        top = 2
        while top > 0:
            top -= 1
            d = stack[top]
            keep[d] = 0
            candidate[d] = 0
            if left[d] != LEAF:
                stack[top] = left[d]
                stack[top + 1] = right[d]
                top += 2
        candidate[node] = 0
        pruned = n_leaves[node] - 1
        n_leaves[node] = 1
        r_diff = r_node[node] - r_branch[node]
        r_branch[node] = r_node[node]
        a = parent[node]
        while a >= 0:
            n_leaves[a] -= pruned
            r_branch[a] += r_diff
            version[a] += 1
            if size >= h_a.shape[0]:
                h_a2 = np.empty(2 * h_a.shape[0])
                h_n2 = np.empty(2 * h_a.shape[0], dtype=np.int64)
                h_v2 = np.empty(2 * h_a.shape[0], dtype=np.int64)
                h_a2[:size] = h_a[:size]
                h_n2[:size] = h_n[:size]
                h_v2[:size] = h_v[:size]
                h_a, h_n, h_v = h_a2, h_n2, h_v2
            size = _push(h_a, h_n, h_v, size,
                         (r_node[a] - r_branch[a]) / (n_leaves[a] - 1), a, version[a])
            a = parent[a]
        alphas[count] = alpha
        impurities[count] = r_branch[0]
        count += 1
    return count

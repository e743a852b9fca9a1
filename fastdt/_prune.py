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
from ._grow import _heap_pop, _heap_push


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
    h_key = np.empty(n + 64)  # -alpha: the driver's max-heap pops the smallest alpha
    h_ent = np.empty(n + 64, dtype=np.int64)  # node << 32 | version
    size = 0
    for i in range(n):
        if left[i] != LEAF:
            candidate[i] = 1
            size = _heap_push(h_key, h_ent, size,
                              -(r_node[i] - r_branch[i]) / (n_leaves[i] - 1), i << 32)
    count = 0
    alphas[count] = 0.0
    impurities[count] = r_branch[0]
    count += 1
    stack = np.empty(n, dtype=np.int64)
    while candidate[0] == 1 and size > 0:
        alpha = -h_key[0]
        entry, size = _heap_pop(h_key, h_ent, size)
        node = entry >> 32
        if candidate[node] == 0 or entry & 0xFFFFFFFF != version[node]:
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
            if size >= h_key.shape[0]:
                h_key2 = np.empty(2 * h_key.shape[0])
                h_ent2 = np.empty(2 * h_key.shape[0], dtype=np.int64)
                h_key2[:size] = h_key[:size]
                h_ent2[:size] = h_ent[:size]
                h_key, h_ent = h_key2, h_ent2
            size = _heap_push(h_key, h_ent, size,
                              -(r_node[a] - r_branch[a]) / (n_leaves[a] - 1),
                              (a << 32) | version[a])
            a = parent[a]
        alphas[count] = alpha
        impurities[count] = r_branch[0]
        count += 1
    return count

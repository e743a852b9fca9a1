"""Cost-complexity (weakest-link) pruning over the flat tree arrays (CART).

For a subtree ``T`` the cost is ``R_alpha(T) = R(T) + alpha * |leaves(T)|``, where
``R(T)`` sums ``w(leaf) / w(root) * impurity(leaf)`` over the leaves. An internal
node ``t`` is worth keeping while ``alpha`` is below its *effective alpha*
``(R(t) - R(T_t)) / (|leaves(T_t)| - 1)``; weakest-link pruning turns the node of
smallest effective alpha into a leaf, again and again, until the root is a leaf,
recording ``alpha`` and ``R`` after each step (scikit-learn's
``_cost_complexity_prune``, node for node).

scikit-learn recomputes every node's effective alpha at every step (quadratic in the
node count). Pruning a branch changes the effective alpha of its ancestors only, and only upwards
(the pruned branch had the smallest alpha, and taking a part of lower ratio out of a
sum raises the ratio of the rest), so here the candidates sit in a min-heap keyed by
``(alpha, node)`` whose keys are lower bounds: an entry whose node's alpha has risen
is pushed again at its true value when it reaches the top (a version per node marks
the old ones stale). Ties pop the smaller node id first, so the order of prunings is
scikit-learn's exactly.

The loss kernels score held-out rows against every node of their path at once, which
is all that choosing ``alpha`` by cross-validation (:func:`path_losses`) and
reduced-error pruning (:func:`node_losses`) need: no pruned tree is ever built to be
scored. The loss of a row at a node is 0/1 (the node's class is wrong) for
classification and the squared error of the node's value for regression.
"""

import numpy as np

from ._config import LEAF
from ._jit import JIT


@JIT
def _heap_push(h_key, h_node, size, key, node):
    """Push onto a max-heap keyed by ``key``; ties pop the smaller node id first."""
    pos = size
    h_key[pos] = key
    h_node[pos] = node
    while pos > 0:
        parent = (pos - 1) // 2
        if h_key[parent] > h_key[pos] or (
            h_key[parent] == h_key[pos] and h_node[parent] < h_node[pos]
        ):
            break
        h_key[parent], h_key[pos] = h_key[pos], h_key[parent]
        h_node[parent], h_node[pos] = h_node[pos], h_node[parent]
        pos = parent
    return size + 1


@JIT
def _heap_pop(h_key, h_node, size):
    """Pop the top of the heap; returns ``(node, new_size)``."""
    top = h_node[0]
    size -= 1
    h_key[0] = h_key[size]
    h_node[0] = h_node[size]
    pos = 0
    while True:
        lc = 2 * pos + 1
        if lc >= size:
            break
        best = lc
        rc = lc + 1
        if rc < size and (
            h_key[rc] > h_key[lc] or (h_key[rc] == h_key[lc] and h_node[rc] < h_node[lc])
        ):
            best = rc
        if h_key[pos] > h_key[best] or (h_key[pos] == h_key[best] and h_node[pos] < h_node[best]):
            break
        h_key[pos], h_key[best] = h_key[best], h_key[pos]
        h_node[pos], h_node[best] = h_node[best], h_node[pos]
        pos = best
    return top, size


@JIT
def weakest_link(left, right, weighted_n_node_samples, impurity, ccp_alpha, alphas,
                 impurities, keep, step):
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
    step : int64 [n]
        Output: for an internal node turned into a leaf, the number ``k >= 1`` of the
        pruning that did it (the tree after ``k`` prunings is the one of ``alphas[k]``);
        0 for the others.

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
    step[:] = 0
    candidate = np.zeros(n, dtype=np.uint8)
    version = np.zeros(n, dtype=np.int64)
    live = np.empty(n)  # the alpha of each candidate's one valid heap entry
    h_key = np.empty(n + 64)  # -alpha: the driver's max-heap pops the smallest alpha
    h_ent = np.empty(n + 64, dtype=np.int64)  # node << 32 | version
    size = np.int64(0)  # not Literal[int](0): the heap helpers would compile twice
    for i in range(n):
        if left[i] != LEAF:
            candidate[i] = 1
            live[i] = (r_node[i] - r_branch[i]) / (n_leaves[i] - 1)
            size = _heap_push(h_key, h_ent, size, -live[i], i << 32)
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
        current = (r_node[node] - r_branch[node]) / (n_leaves[node] - 1)
        if current > alpha:  # risen since it was pushed: back in at its true place
            version[node] += 1
            live[node] = current
            size = _heap_push(h_key, h_ent, size, -current, (node << 32) | version[node])
            continue
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
        step[node] = count
        pruned = n_leaves[node] - 1
        n_leaves[node] = 1
        r_diff = r_node[node] - r_branch[node]
        r_branch[node] = r_node[node]
        a = parent[node]
        while a >= 0:
            n_leaves[a] -= pruned
            r_branch[a] += r_diff
            # Removing a branch whose alpha is the smallest can only raise an
            # ancestor's alpha (a mediant), so its entry stays a lower bound and is
            # refreshed when popped. Only a rounding-level fall is pushed now.
            current = (r_node[a] - r_branch[a]) / (n_leaves[a] - 1)
            if current < live[a]:
                version[a] += 1
                live[a] = current
                if size >= h_key.shape[0]:
                    h_key2 = np.empty(2 * h_key.shape[0])
                    h_ent2 = np.empty(2 * h_key.shape[0], dtype=np.int64)
                    h_key2[:size] = h_key[:size]
                    h_ent2[:size] = h_ent[:size]
                    h_key, h_ent = h_key2, h_ent2
                size = _heap_push(h_key, h_ent, size, -current, (a << 32) | version[a])
            a = parent[a]
        alphas[count] = alpha
        impurities[count] = r_branch[0]
        count += 1
    return count


@JIT
def _row_loss(node_pred, node, y, is_clf):
    if is_clf:
        return 0.0 if node_pred[node] == y else 1.0
    d = y - node_pred[node]
    return d * d


@JIT
def path_losses(indptr, indices, y, w, node_pred, is_clf, step, out):
    """Weighted loss of some rows after every prefix of a pruning path, in one pass.

    After ``k`` prunings a row is predicted by the shallowest node of its path that
    one of them turned into a leaf (``1 <= step[node] <= k``), else by its leaf. Walking
    the path from the root, a node whose ``step`` is below every ancestor's serves
    ``k`` in ``[step, min ancestors' step)``; a difference array adds its loss there.

    Parameters
    ----------
    indptr, indices : int64 [n + 1], int64 [indptr[n]]
        The rows' paths, root to leaf (:func:`fastdt._predict.decision_path`).
    y, w : float64 [n]
        Targets (class codes for classification) and weights.
    node_pred : float64 [n_nodes]
        Prediction of every node as a leaf (class code or value).
    is_clf : bool
    step : int64 [n_nodes]
        From :func:`weakest_link`.
    out : float64 [n_steps + 1]
        Output: ``out[k]`` the summed weighted loss after ``k`` prunings.
    """
    n_steps = out.shape[0] - 1
    diff = np.zeros(n_steps + 2)
    for i in range(indptr.shape[0] - 1):
        hi = n_steps + 1  # the nodes above serve k >= hi
        for p in range(indptr[i], indptr[i + 1]):
            node = indices[p]
            if p == indptr[i + 1] - 1:  # the leaf
                loss = w[i] * _row_loss(node_pred, node, y[i], is_clf)
                diff[0] += loss
                diff[hi] -= loss
                break
            s = step[node]
            if 0 < s < hi:
                loss = w[i] * _row_loss(node_pred, node, y[i], is_clf)
                diff[s] += loss
                diff[hi] -= loss
                hi = s
    acc = 0.0
    for k in range(n_steps + 1):
        acc += diff[k]
        out[k] = acc


@JIT
def node_losses(indptr, indices, y, w, node_pred, is_clf, out):
    """``out[node]`` = weighted loss of the rows whose path passes ``node``, were ``node``
    a leaf (every node of every path, root to leaf; ``indptr``, ``indices``: the rows'
    paths, :func:`fastdt._predict.decision_path`)."""
    out[:] = 0.0
    for i in range(indptr.shape[0] - 1):
        for p in range(indptr[i], indptr[i + 1]):
            node = indices[p]
            out[node] += w[i] * _row_loss(node_pred, node, y[i], is_clf)


@JIT
def reduced_error(left, leaf_loss, keep):
    """Reduced-error pruning (Quinlan): bottom-up, a branch becomes a leaf when the
    leaf's validation loss is at most the branch's (equal up to a relative ``1e-10``:
    the two sums add the same weights in other orders). ``keep`` (uint8, output) marks
    the nodes of the pruned tree; children have larger ids than their parents."""
    n = left.shape[0]
    branch = np.empty(n)
    keep[:] = 1
    for i in range(n - 1, -1, -1):
        if left[i] == LEAF:
            branch[i] = leaf_loss[i]
        else:
            branch[i] = branch[left[i]] + branch[left[i] + 1]
            if leaf_loss[i] <= branch[i] * (1.0 + 1e-10):
                branch[i] = leaf_loss[i]
                keep[left[i]] = 0
                keep[left[i] + 1] = 0
    # descendants of a pruned node go too (ancestors come first in id order)
    for i in range(n):
        if left[i] != LEAF and keep[i] == 0:
            keep[left[i]] = 0
            keep[left[i] + 1] = 0

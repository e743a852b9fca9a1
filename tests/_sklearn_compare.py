"""Structural comparison of a fastdt Tree with a fitted scikit-learn tree.

scikit-learn numbers nodes depth-first and fastdt breadth-first, so the two trees are
walked in step from their roots.
"""

import numpy as np


def assert_same_tree(tree, sk_tree, *, atol=1e-12, thresholds=True):
    """Same shape, features, thresholds (unless ``thresholds=False``: random splits),
    sample counts, impurities and values."""
    s = sk_tree.tree_ if hasattr(sk_tree, "tree_") else sk_tree
    assert tree.node_count == s.node_count, (tree.node_count, s.node_count)
    stack = [(0, 0)]
    while stack:
        a, b = stack.pop()
        a_leaf = tree.left[a] == -1
        b_leaf = s.children_left[b] == -1
        assert a_leaf == b_leaf, f"node {a}/{b}: leaf mismatch"
        assert tree.n_node_samples[a] == s.n_node_samples[b]
        np.testing.assert_allclose(tree.weighted_n_node_samples[a], s.weighted_n_node_samples[b], rtol=1e-12)
        np.testing.assert_allclose(tree.impurity[a], s.impurity[b], rtol=1e-9, atol=atol)
        np.testing.assert_allclose(tree.value[a], s.value[b].ravel(), rtol=1e-9, atol=atol)
        if not a_leaf:
            assert tree.feature[a] == s.feature[b], f"node {a}: feature {tree.feature[a]} vs {s.feature[b]}"
            assert not thresholds or tree.threshold[a] == s.threshold[b], \
                f"node {a}: {tree.threshold[a]} vs {s.threshold[b]}"
            assert tree.missing_go_left[a] == s.missing_go_to_left[b], f"node {a}: missing side"
            stack.append((tree.left[a], s.children_left[b]))
            stack.append((tree.right[a], s.children_right[b]))

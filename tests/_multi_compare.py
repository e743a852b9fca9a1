"""Several outputs: a fastdt tree against scikit-learn's, walked in step from the roots
(scikit-learn pads each output's class fractions to the largest class count)."""

import numpy as np


def assert_same_multi_tree(tree, sk_tree):
    """Same shape, features, thresholds, sample counts, impurities and every output's
    values; raises ``AssertionError`` naming the first difference."""
    s = sk_tree.tree_
    assert tree.node_count == s.node_count, (tree.node_count, s.node_count)
    off = tree.value_offsets
    stack = [(0, 0)]
    while stack:
        a, b = stack.pop()
        assert (tree.left[a] == -1) == (s.children_left[b] == -1), f"node {a}: leaf mismatch"
        assert tree.n_node_samples[a] == s.n_node_samples[b], f"node {a}: samples"
        np.testing.assert_allclose(tree.impurity[a], s.impurity[b], rtol=1e-9, atol=1e-12)
        for k in range(tree.n_outputs):
            ours = tree.value[a, off[k]:off[k + 1]]
            np.testing.assert_allclose(ours, s.value[b, k, :ours.shape[0]], rtol=1e-9,
                                       atol=1e-12)
        if tree.left[a] != -1:
            assert tree.feature[a] == s.feature[b], f"node {a}: feature {tree.feature[a]} vs {s.feature[b]}"
            assert tree.threshold[a] == s.threshold[b], f"node {a}: threshold"
            stack.append((tree.left[a], s.children_left[b]))
            stack.append((tree.right[a], s.children_right[b]))

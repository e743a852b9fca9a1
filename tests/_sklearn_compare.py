"""Structural comparison of a fastdt Tree with a fitted scikit-learn tree.

scikit-learn numbers nodes depth-first and fastdt breadth-first, so the two trees are
walked in step from their roots.
"""

import numpy as np

import fastdt
from reference import split_score


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


def _rows_at(tree, X, node):
    indptr, indices = fastdt.decision_path(tree, X)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(indptr))
    return np.unique(rows[indices == node])


def assert_same_up_to_ties(tree, sk, X, y, sw, criterion):
    """Walk both trees; a differing split must be an exact tie in score."""
    s = sk.tree_
    w = np.ones(len(y)) if sw is None else sw
    if tree.task == "classification":
        codes = np.searchsorted(tree.classes, y)
        cw = sk.class_weight
        if cw is not None:
            from sklearn.utils.class_weight import compute_sample_weight

            w = w * compute_sample_weight(cw, y)
        n_classes = len(tree.classes)
    else:
        codes, n_classes = y, None
    ties = pure_splits = 0
    stack = [(0, 0)]
    while stack:
        a, b = stack.pop()
        scale = max(1.0, float(np.sum(s.value[b] ** 2)))  # cancellation error ~ eps * y**2
        if tree.left[a] == -1 and s.children_left[b] != -1 and abs(s.impurity[b]) <= 1e-12 * scale:
            # scikit-learn split a pure node (rounding); every leaf below has our value
            below = [b]
            while below:
                c = below.pop()
                if s.children_left[c] == -1:
                    np.testing.assert_allclose(tree.value[a], s.value[c].ravel(), atol=1e-12)
                else:
                    below += [s.children_left[c], s.children_right[c]]
            pure_splits += 1
            continue
        assert (tree.left[a] == -1) == (s.children_left[b] == -1), f"node {a}: leaf mismatch"
        assert tree.n_node_samples[a] == s.n_node_samples[b]
        if tree.left[a] == -1:
            np.testing.assert_allclose(tree.value[a], s.value[b].ravel(), rtol=1e-9, atol=1e-12)
            continue
        if (tree.feature[a] != s.feature[b] or tree.threshold[a] != s.threshold[b]
                or tree.missing_go_left[a] != s.missing_go_to_left[b]):
            rows = _rows_at(tree, X, a)
            Xn, yn, wn = X[rows], codes[rows], w[rows]

            def goes_left(f, t, mgl):
                x = Xn[:, f]
                return np.where(np.isnan(x), bool(mgl), x <= t)

            ours = split_score(criterion, yn, wn, goes_left(
                tree.feature[a], tree.threshold[a], tree.missing_go_left[a]), n_classes)
            theirs = split_score(criterion, yn, wn, goes_left(
                s.feature[b], s.threshold[b], s.missing_go_to_left[b]), n_classes)
            np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
            ties += 1
            continue
        stack.append((tree.left[a], s.children_left[b]))
        stack.append((tree.right[a], s.children_right[b]))
    return ties, pure_splits


def assert_scores_like(name, ours, theirs, n_seeds=5, **params):
    """Test accuracy / R^2 of ``ours`` within noise of ``theirs`` (estimator classes,
    both built with ``params`` and ``random_state=seed``) on scikit-learn's dataset
    ``name``, over ``n_seeds`` train/test splits."""
    from sklearn import datasets
    from sklearn.model_selection import train_test_split

    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    a, b = [], []
    for seed in range(n_seeds):
        Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=seed)
        a.append(ours(random_state=seed, **params).fit(Xtr, ytr).score(Xte, yte))
        b.append(theirs(random_state=seed, **params).fit(Xtr, ytr).score(Xte, yte))
    assert abs(np.mean(a) - np.mean(b)) < 0.03 + 2 * np.std(b) / np.sqrt(n_seeds)

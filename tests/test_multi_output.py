"""Several outputs: y of shape (n, k), one tree whose leaves hold every output."""

import pickle

import numpy as np
import pytest

import fastdt
from fastdt import DecisionTreeClassifier, DecisionTreeRegressor

from _multi_compare import assert_same_multi_tree
from reference import split_score


def _clf_data(n=800, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)).astype(np.float32).astype(np.float64)
    Y = np.column_stack([(X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int),
                         np.digitize(X[:, 1] + X[:, 2], [-1, 0, 1])])
    return X, Y, rng


def _reg_data(n=800, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)).astype(np.float32).astype(np.float64)
    Y = np.column_stack([X[:, 0] + rng.normal(size=n), np.abs(X[:, 1]) * 3,
                         X[:, 2] * X[:, 3]])
    return X, Y, rng


def _rows_at(tree, X, node):
    leaf_path = fastdt.decision_path(tree, X)
    indptr, indices = leaf_path
    rows = np.repeat(np.arange(X.shape[0]), np.diff(indptr))
    return np.unique(rows[indices == node])


def _score(criterion, Y, w, mask, task):
    """The mean over outputs of each output's impurity decrease (scikit-learn's)."""
    out = []
    for k in range(Y.shape[1]):
        if task == "classification":
            codes = np.unique(Y[:, k], return_inverse=True)[1]
            out.append(split_score(criterion, codes, w, mask, int(codes.max()) + 1))
        else:
            out.append(split_score(criterion, Y[:, k], w, mask))
    return float(np.mean(out))


def _same_up_to_ties(tree, sk, X, Y, criterion):
    """Walk both trees; where they split differently, the two splits must score the
    same on the node's rows (a tie, broken by scikit-learn's random feature order).
    Returns whether the trees are equal."""
    try:
        assert_same_multi_tree(tree, sk)
        return True
    except AssertionError:
        pass
    s = sk.tree_
    stack = [(0, 0)]
    while stack:
        a, b = stack.pop()
        assert tree.n_node_samples[a] == s.n_node_samples[b]
        if tree.left[a] == -1 or s.children_left[b] == -1:
            continue
        if tree.feature[a] != s.feature[b] or tree.threshold[a] != s.threshold[b]:
            rows = _rows_at(tree, X, a)
            w = np.ones(rows.shape[0])
            ours = X[rows, tree.feature[a]] <= tree.threshold[a]
            theirs = X[rows, s.feature[b]] <= s.threshold[b]
            np.testing.assert_allclose(_score(criterion, Y[rows], w, ours, tree.task),
                                       _score(criterion, Y[rows], w, theirs, tree.task),
                                       rtol=1e-9, atol=1e-12)
            continue
        stack.append((tree.left[a], s.children_left[b]))
        stack.append((tree.right[a], s.children_right[b]))
    return False


GROWTH = ({"max_depth": 5}, {"min_samples_leaf": 10}, {"max_leaf_nodes": 20, "min_samples_leaf": 5})


def test_classification_same_trees_as_scikit_learn():
    sk = pytest.importorskip("sklearn.tree")
    X, Y, _ = _clf_data()
    same = []
    for criterion in ("gini", "entropy"):
        for growth in GROWTH:
            ours = DecisionTreeClassifier(criterion=criterion, **growth).fit(X, Y)
            theirs = sk.DecisionTreeClassifier(criterion=criterion, random_state=0,
                                               **growth).fit(X, Y)
            equal = _same_up_to_ties(ours.tree_, theirs, X, Y, criterion)
            same.append(equal)
            if equal:
                for p, q in zip(ours.predict_proba(X), theirs.predict_proba(X)):
                    np.testing.assert_array_equal(p, q)
                np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert sum(same) >= len(same) // 2, same


def test_regression_same_trees_as_scikit_learn():
    sk = pytest.importorskip("sklearn.tree")
    X, Y, _ = _reg_data()
    same = []
    for criterion in ("squared_error", "poisson"):
        Yc = np.abs(Y) if criterion == "poisson" else Y
        for growth in GROWTH:
            ours = DecisionTreeRegressor(criterion=criterion, **growth).fit(X, Yc)
            theirs = sk.DecisionTreeRegressor(criterion=criterion, random_state=0,
                                              **growth).fit(X, Yc)
            equal = _same_up_to_ties(ours.tree_, theirs, X, Yc, criterion)
            same.append(equal)
            if equal:
                np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)
                np.testing.assert_allclose(ours.score(X, Yc), theirs.score(X, Yc), rtol=1e-12)
    assert sum(same) >= len(same) // 2, same


def test_outputs_and_attributes():
    X, Y, _ = _clf_data(300)
    labels = np.column_stack([np.where(Y[:, 0] == 1, "yes", "no"), Y[:, 1]]).astype(object)
    labels[:, 1] = labels[:, 1].astype(int)
    clf = DecisionTreeClassifier(max_depth=4).fit(X, labels)
    assert clf.n_outputs_ == 2 and clf.tree_.n_outputs == 2
    assert [list(c) for c in clf.classes_] == [["no", "yes"], [0, 1, 2, 3]]
    assert clf.n_classes_ == [2, 4]
    pred = clf.predict(X)
    assert pred.shape == (300, 2)
    proba = clf.predict_proba(X)
    assert [p.shape for p in proba] == [(300, 2), (300, 4)]
    for p in proba:
        np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_array_equal(pred[:, 0], clf.classes_[0][proba[0].argmax(axis=1)])
    assert 0.5 < clf.score(X, labels) <= 1.0
    log = clf.predict_log_proba(X)
    assert isinstance(log, list) and len(log) == 2
    reg = DecisionTreeRegressor(max_depth=4).fit(*_reg_data(300)[:2])
    assert reg.predict(X).shape == (300, 3)
    assert reg.tree_.value.shape[1] == 3
    # a column vector is still one output
    with pytest.warns(UserWarning, match="column-vector y"):
        one = DecisionTreeRegressor(max_depth=3).fit(X, _reg_data(300)[1][:, :1])
    assert one.n_outputs_ == 1 and one.predict(X).shape == (300,)


def test_save_load_pickle_and_exports(tmp_path):
    X, Y, _ = _clf_data(300)
    tree = fastdt.fit(X, Y, max_depth=3)
    tree.save(tmp_path / "multi.npz")
    back = fastdt.load(tmp_path / "multi.npz")
    assert back == tree and back.n_outputs == 2
    np.testing.assert_array_equal(fastdt.predict(back, X), fastdt.predict(tree, X))
    assert pickle.loads(pickle.dumps(tree)) == tree
    text = fastdt.export_text(tree)
    assert "class: [" in text
    d = fastdt.to_dict(tree)
    assert isinstance(d["tree"]["class"], list) and len(d["tree"]["class"]) == 2
    assert len(d["classes"]) == 2
    reg = fastdt.fit(*_reg_data(300)[:2], max_depth=2)
    assert "value: [" in fastdt.export_text(reg)
    pruned = fastdt.prune(fastdt.fit(X, Y), 0.01)
    assert pruned.n_outputs == 2 and pruned.node_count < fastdt.fit(X, Y).node_count


def test_damaged_metadata_is_refused(tmp_path):
    X, Y, _ = _clf_data(200)
    tree = fastdt.fit(X, Y, max_depth=2)
    tree.classes = tree.classes[:1]
    with pytest.raises(ValueError, match="one array of class labels per output"):
        tree.validate()


def test_class_weight_per_output_as_scikit_learn():
    sk = pytest.importorskip("sklearn.tree")
    X, Y, _ = _clf_data(600, seed=3)
    for cw in ("balanced", [{0: 1.0, 1: 3.0}, {0: 2.0, 1: 1.0, 2: 1.0, 3: 0.5}]):
        ours = DecisionTreeClassifier(max_depth=4, class_weight=cw).fit(X, Y)
        theirs = sk.DecisionTreeClassifier(max_depth=4, class_weight=cw,
                                           random_state=0).fit(X, Y)
        np.testing.assert_allclose(ours.tree_.weighted_n_node_samples[0],
                                   theirs.tree_.weighted_n_node_samples[0], rtol=1e-12)
        assert _same_up_to_ties(ours.tree_, theirs, X, Y, "gini") or True
    with pytest.raises(ValueError, match="list of dicts"):
        fastdt.fit(X, Y, class_weight={0: 1.0})
    with pytest.raises(ValueError, match="one per output"):
        fastdt.fit(X, Y, class_weight=[{0: 1.0}])


def test_missing_values_random_splits_and_threads(on_each_thread_count):
    X, Y, rng = _reg_data(1500)
    X[rng.random(X.shape) < 0.1] = np.nan
    one, many = on_each_thread_count(lambda: [
        fastdt.fit(X, Y, max_depth=6),
        fastdt.fit(X, Y, splitter="random", random_state=0, max_depth=6),
    ])
    for a, b in zip(one, many):
        assert a == b
    pred = fastdt.predict(one[0], X)
    assert pred.shape == (1500, 3) and np.all(np.isfinite(pred))
    leaf = fastdt.apply(one[0], X)
    for node in np.unique(leaf)[:10]:  # leaves hold each output's mean
        np.testing.assert_allclose(one[0].value[node], Y[leaf == node].mean(axis=0),
                                   rtol=1e-9)


@pytest.mark.parametrize("params, match", [
    ({"splitter": "hist"}, "splitter='best' or 'random'"),
    ({"missing": "surrogate"}, "missing='learn' only"),
    ({"criterion": "absolute_error"}, "does not support several outputs"),
    ({"monotonic_cst": [1, 0, 0, 0, 0]}, "not supported with multiple outputs"),
])
def test_refused_combinations(params, match):
    X, Y, _ = _reg_data(100)
    with pytest.raises(ValueError, match=match):
        fastdt.fit(X, Y, **params)


def test_single_output_tools_say_so():
    X, Y, _ = _clf_data(200)
    tree = fastdt.fit(X, Y, max_depth=3)
    for call in (lambda: fastdt.explain(tree, X[:2]),
                 lambda: fastdt.rules.extract(tree),
                 lambda: fastdt.inspection.permutation_importance(tree, X, Y),
                 lambda: fastdt.prune_reduced_error(tree, X, Y),
                 lambda: fastdt.ccp_cv(X, Y, cv=2)):
        with pytest.raises(ValueError, match="this tree has 2"):
            call()


def test_random_splits_route_rows_as_their_thresholds_say():
    X, Y, _ = _clf_data(500, seed=4)
    tree = fastdt.fit(X, Y, splitter="random", random_state=3, max_depth=6)
    counts = np.zeros(tree.node_count, dtype=np.int64)
    for row in X:
        node = 0
        counts[node] += 1
        while tree.feature[node] >= 0:
            node = (tree.left[node] if row[tree.feature[node]] <= tree.threshold[node]
                    else tree.right[node])
            counts[node] += 1
    np.testing.assert_array_equal(counts, tree.n_node_samples)
    leaf = fastdt.apply(tree, X)
    off = tree.value_offsets
    for node in np.unique(leaf):
        rows = leaf == node
        for k in range(2):  # each output's class fractions of the leaf's rows
            codes = np.searchsorted(tree.classes[k], Y[rows, k])
            expect = np.bincount(codes, minlength=off[k + 1] - off[k]) / rows.sum()
            np.testing.assert_allclose(tree.value[node, off[k]:off[k + 1]], expect)

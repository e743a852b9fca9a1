"""Cost-complexity pruning: the path and the pruned trees, against scikit-learn."""

import numpy as np
import pytest

import fastdt

sklearn = pytest.importorskip("sklearn")
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402

from test_sklearn_parity import _random_clf, _random_reg, _with_nan  # noqa: E402


def _pair(task, loader, **params):
    X, y = loader()
    sw = np.random.default_rng(0).uniform(0.5, 1.5, len(y))  # no ties between splits
    cls = DecisionTreeClassifier if task == "classification" else DecisionTreeRegressor
    params = {"min_samples_leaf": 5, **params}
    tree = fastdt.fit(X, y, sample_weight=sw, task=task, **params)
    sk = cls(random_state=0, **params).fit(X, y, sample_weight=sw)
    return X, y, sw, tree, sk, cls, params


def _without_pure_splits(path):
    """scikit-learn's rounding makes it split some pure nodes (zero gain, see
    test_sklearn_parity.py); their prunings come first, at alphas of ~1e-18. fastdt
    never makes those splits: leave them out."""
    alphas, imps = path.ccp_alphas, path.impurities
    keep = np.r_[True, alphas[1:] > 1e-15]
    return alphas[keep], imps[keep]


CASES = [("classification", _random_clf), ("regression", _random_reg),
         ("classification", _with_nan(_random_clf))]


@pytest.mark.parametrize("task,loader", CASES)
def test_path_equals_sklearn(task, loader):
    X, y, sw, tree, sk, _, _ = _pair(task, loader)
    alphas, imps = fastdt.cost_complexity_pruning_path(tree)
    sk_alphas, sk_imps = _without_pure_splits(sk.cost_complexity_pruning_path(X, y, sample_weight=sw))
    np.testing.assert_allclose(alphas, sk_alphas, rtol=0, atol=1e-12)
    np.testing.assert_allclose(imps, sk_imps, rtol=0, atol=1e-12)
    assert alphas[0] == 0.0 and len(alphas) > 20


@pytest.mark.parametrize("task,loader", CASES)
def test_pruned_predictions_equal_sklearn(task, loader):
    X, y, sw, tree, _, cls, params = _pair(task, loader)
    alphas = fastdt.cost_complexity_pruning_path(tree).ccp_alphas
    for alpha in np.quantile(alphas[1:], [0.2, 0.6, 0.9]):
        sk = cls(random_state=0, ccp_alpha=alpha, **params).fit(X, y, sample_weight=sw)
        pruned = fastdt.fit(X, y, sample_weight=sw, task=task, ccp_alpha=alpha, **params)
        assert pruned.n_leaves == sk.get_n_leaves() and pruned.max_depth == sk.get_depth()
        if task == "classification":
            np.testing.assert_allclose(fastdt.predict_proba(pruned, X), sk.predict_proba(X),
                                       atol=1e-12)
        else:
            np.testing.assert_allclose(fastdt.predict(pruned, X), sk.predict(X), rtol=1e-12)


def test_prune_is_a_compact_subtree():
    X, y = _random_clf()
    tree = fastdt.fit(X, y, max_depth=8)
    alphas = fastdt.cost_complexity_pruning_path(tree).ccp_alphas
    small = fastdt.prune(tree, float(alphas[len(alphas) // 2]))
    assert small.node_count < tree.node_count
    small.validate()  # breadth-first ids, children 1, 3, 5, ...
    # every kept node is a node of the original tree, reached by the same rows
    np.testing.assert_array_equal(
        np.sort(np.unique(small.n_node_samples)),
        np.sort(np.unique(small.n_node_samples[np.isin(small.n_node_samples,
                                                         tree.n_node_samples)])))
    assert fastdt.prune(tree, 0.0) == fastdt.prune(tree, 0.0)
    assert fastdt.prune(tree, float(alphas[-1])).node_count == 1
    assert fastdt.prune(tree, 0.0).node_count == tree.node_count


def test_prune_keeps_categories_and_surrogates():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 600
    df = pd.DataFrame({"c": rng.choice(list("abcdef"), n),
                       "x": np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n)),
                       "z": rng.normal(size=n)})
    df["z2"] = df["x"] + 0.1 * rng.normal(size=n)
    y = (df["c"].isin(["a", "c"]) ^ (df["x"] > 0)).to_numpy().astype(int)
    tree = fastdt.fit(df, y, missing="surrogate")
    alphas = fastdt.cost_complexity_pruning_path(tree).ccp_alphas
    small = fastdt.prune(tree, float(alphas[-3]))
    assert 1 < small.node_count < tree.node_count
    assert small.categories == tree.categories and small.surrogate_feature.size > 0
    assert (fastdt.predict(small, df) == y).mean() > 0.9


def test_estimators_and_bad_alpha():
    X, y = _random_reg()
    reg = fastdt.DecisionTreeRegressor(ccp_alpha=0.01).fit(X, y)
    assert reg.get_n_leaves() < fastdt.DecisionTreeRegressor().fit(X, y).get_n_leaves()
    with pytest.raises(ValueError, match="ccp_alpha"):
        fastdt.fit(X, y, ccp_alpha=-1.0)
    with pytest.raises(ValueError, match="ccp_alpha"):
        fastdt.prune(reg.tree_, float("nan"))
    assert fastdt.cost_complexity_pruning_path(reg).ccp_alphas[0] == 0.0  # an estimator


def test_estimator_method_as_sklearn():
    X, y = _random_clf(n=800)
    sw = np.random.default_rng(0).uniform(0.5, 1.5, len(y))  # no ties between splits
    clf = fastdt.DecisionTreeClassifier(min_samples_leaf=3, ccp_alpha=0.05)
    path = clf.cost_complexity_pruning_path(X, y, sample_weight=sw)
    assert not hasattr(clf, "tree_")  # the estimator is left unfitted
    sk = DecisionTreeClassifier(min_samples_leaf=3, random_state=0)
    sk_alphas, sk_imps = _without_pure_splits(
        sk.cost_complexity_pruning_path(X, y, sample_weight=sw))
    np.testing.assert_allclose(path.ccp_alphas, sk_alphas, atol=1e-12)
    np.testing.assert_allclose(path["impurities"], sk_imps, atol=1e-12)


@pytest.mark.parametrize("pattern", [[1, 9, 1, 9, 9, 1, 9, 1],
                                     [3, 7, 3, 7, 7, 3, 7, 3, 3, 7, 3, 7, 7, 3, 7, 3]])
def test_path_with_ties_equals_the_rescanning_loop(pattern):
    """Mirrored class mixes along a feature: many exactly equal effective alphas. The
    heap (lower-bound keys refreshed when popped) prunes in the rescanning loop's
    order, ties to the smaller node id."""
    from reference import weakest_link_path

    a = np.repeat(np.arange(len(pattern)), 10).astype(float)
    y = np.concatenate([np.r_[np.ones(k), np.zeros(10 - k)] for k in pattern]).astype(int)
    X = np.c_[a, np.tile(np.arange(10), len(pattern)) % 2]
    tree = fastdt.fit(X, y)
    alphas, imps = fastdt.cost_complexity_pruning_path(tree)
    ref_alphas, ref_imps = weakest_link_path(tree.left, tree.right,
                                             tree.weighted_n_node_samples, tree.impurity)
    assert len(ref_alphas) >= 10 and len(np.unique(ref_alphas)) <= len(ref_alphas) - 5
    np.testing.assert_array_equal(alphas, ref_alphas)
    np.testing.assert_array_equal(imps, ref_imps)


def test_deep_random_tree_path_equals_the_rescanning_loop():
    """Random labels grow a deep tree whose prunings raise many ancestors' alphas."""
    from reference import weakest_link_path

    rng = np.random.default_rng(7)
    X = rng.normal(size=(1500, 3))
    tree = fastdt.fit(X, rng.integers(0, 2, 1500))
    assert tree.max_depth > 15
    alphas, imps = fastdt.cost_complexity_pruning_path(tree)
    ref_alphas, ref_imps = weakest_link_path(tree.left, tree.right,
                                             tree.weighted_n_node_samples, tree.impurity)
    np.testing.assert_array_equal(alphas, ref_alphas)
    np.testing.assert_array_equal(imps, ref_imps)

"""Forests (fastdt.ensemble): the format, growth from the shared engine, out-of-bag results,
the estimators."""

import pickle
import warnings

import numba
import numpy as np
import pytest

import fastdt
from fastdt import _engine
from fastdt.ensemble import Forest, fit_forest
from fastdt.ensemble.api import in_bag_counts
from fastdt.ensemble.kernels import forest_leaf_index, forest_value, tree_arrays
from fastdt.kernels import leaf_index
from fastdt.tree import FIELDS

from _same_tree import assert_same  # noqa: E402


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 8))
    X[rng.random(X.shape) < 0.05] = np.nan
    z = np.nan_to_num(X)
    y = (z[:, 0] + z[:, 1] * z[:, 2] + 0.3 * rng.normal(size=400) > 0).astype(int)
    yr = 2 * z[:, 0] - z[:, 3] + rng.normal(size=400)
    return X, y, yr


@pytest.mark.parametrize("params", [{}, {"splitter": "hist"}, {"missing": "surrogate"},
                                    {"criterion": "entropy", "max_depth": 4}], ids=str)
def test_tree_grown_on_in_bag_rows_is_the_weighted_fit(data, params):
    """The engine grows a forest tree from the prepared layout restricted to its in-bag
    rows: the tree fit() grows with the counts as sample weights (rows of weight 0 take
    no part; the histogram splitter's bins come from every row in both)."""
    X, y, _ = data
    counts = in_bag_counts(7, X.shape[0], X.shape[0]).astype(float)
    keep = counts > 0
    prep = _engine.prepare(X, y, None, params)
    tree = _engine.assemble(prep, _engine.grow(prep, row_weights=counts))
    assert_same(tree, fastdt.fit(X, y, sample_weight=counts, **params))
    if "splitter" not in params:  # exact splits: the in-bag rows alone give the same
        assert_same(tree, fastdt.fit(X[keep], y[keep], sample_weight=counts[keep], **params))


def test_sparse_in_bag_rows(data):
    sp = pytest.importorskip("scipy.sparse")
    X, y, _ = data
    X = np.where(np.abs(np.nan_to_num(X)) < 0.7, 0.0, X)
    counts = in_bag_counts(3, X.shape[0], X.shape[0]).astype(float)
    keep = counts > 0
    prep = _engine.prepare(sp.csr_matrix(X), y, None, {})
    tree = _engine.assemble(prep, _engine.grow(prep, row_weights=counts))
    assert_same(tree, fastdt.fit(X[keep], y[keep], sample_weight=counts[keep]))


def test_one_tree_without_sampling_is_fit(data):
    X, y, yr = data
    for target in (y, yr):
        forest = fit_forest(X, target, n_estimators=1, bootstrap=False, max_features=None,
                            random_state=0)
        assert forest.n_trees == 1
        assert_same(forest.tree(0), fastdt.fit(X, target))


def test_prediction_is_the_mean_of_the_trees(data):
    X, y, yr = data
    forest = fit_forest(X, y, n_estimators=7, random_state=1)
    mean = np.mean([fastdt.predict_proba(t, X) for t in forest.trees()], axis=0)
    np.testing.assert_allclose(fastdt.predict_proba(forest, X), mean, rtol=1e-12)
    np.testing.assert_array_equal(fastdt.predict(forest, X), forest.classes[mean.argmax(1)])
    leaves = fastdt.apply(forest, X)
    assert leaves.shape == (X.shape[0], 7)
    for i, t in enumerate(forest.trees()):
        np.testing.assert_array_equal(leaves[:, i], fastdt.apply(t, X))
    reg = fit_forest(X, yr, n_estimators=5, random_state=2)
    np.testing.assert_allclose(fastdt.predict(reg, X),
                               np.mean([fastdt.predict(t, X) for t in reg.trees()], axis=0))


@pytest.mark.parametrize("kind", ["numeric", "nan", "categorical", "surrogate", "fractional"])
def test_forest_kernels_route_as_the_trees(data, kind):
    """predict_proba / apply of a forest (its numeric batch kernels, or the general ones
    for NaN, categories and surrogates; fractional trees tree by tree) equal the mean
    and the stack of its trees', on float64 and float32 rows."""
    X, y, _ = data
    params = {}
    if kind == "numeric":
        X = np.nan_to_num(X)
    elif kind == "categorical":
        X = X.copy()
        X[:, 7] = np.floor(np.abs(np.nan_to_num(X[:, 7])) * 3) % 5
        params = {"categorical_features": [7]}
    elif kind in ("surrogate", "fractional"):
        params = {"missing": kind}
    forest = fit_forest(X, y, n_estimators=4, random_state=3, **params)
    for Xp in (X, X.astype(np.float32)):
        mean = np.mean([fastdt.predict_proba(t, Xp) for t in forest.trees()], axis=0)
        np.testing.assert_allclose(fastdt.predict_proba(forest, Xp), mean, rtol=1e-12)
        leaves = np.stack([fastdt.apply(t, Xp) for t in forest.trees()], axis=1)
        np.testing.assert_array_equal(fastdt.apply(forest, Xp), leaves)


def test_numeric_batch_kernels_take_any_lockstep(data):
    """The numeric batch kernels walk ``steps[i]`` steps with eight rows together, then
    each row alone: any number of steps (none, the default share, the tree's depth)
    gives the trees' leaves; the default is the depth 90% of the training samples reach.
    Blocks of many rows read each tree ahead, blocks of few do not, with the same
    results."""
    from fastdt.ensemble.kernels import (
        READ_AHEAD, forest_apply_numeric_batch, forest_step_arrays,
        forest_value_numeric_batch,
    )

    X, y, _ = data
    X = np.nan_to_num(X)  # 400 rows: trees of more than READ_AHEAD nodes
    forest = fit_forest(X, y, n_estimators=5, random_state=1)
    X = X[:203]  # 25 blocks of eight and three rows alone
    packed, thresholds, roots, steps = forest_step_arrays(forest, X.dtype)
    depth = np.maximum.reduceat(forest.depth, roots).astype(np.int64)
    assert (steps <= depth).all() and (steps < depth).any()
    for t, k in zip(forest.trees(), steps):
        leaf = t.left == -1
        size, total = t.n_node_samples[leaf], t.n_node_samples[leaf].sum()
        assert size[t.depth[leaf] <= k].sum() >= 0.9 * total
        assert size[t.depth[leaf] <= k - 1].sum() < 0.9 * total
    leaves = np.stack([fastdt.apply(t, X) for t in forest.trees()], axis=1)
    mean = np.mean([fastdt.predict_proba(t, X) for t in forest.trees()], axis=0)
    for lock in (np.zeros_like(steps), steps, depth):
        out = np.empty_like(leaves)
        forest_apply_numeric_batch(packed, thresholds, roots, lock, X, out)
        np.testing.assert_array_equal(out, leaves)
        values = np.empty_like(mean)
        forest_value_numeric_batch(packed, thresholds, roots, lock, forest.value, X, values)
        np.testing.assert_allclose(values, mean, rtol=1e-12)
    # a block of one row reads no tree ahead (each tree has more than READ_AHEAD nodes),
    # the 203 rows read each tree ahead; the leaves and values are the same either way
    assert (np.diff(forest.offsets[0]) > READ_AHEAD).all()
    for rows, reads in ((slice(0, 1), False), (slice(0, 203), True)):
        out = np.empty_like(leaves[rows])
        read = forest_apply_numeric_batch(packed, thresholds, roots, steps, X[rows], out)
        np.testing.assert_array_equal(out, leaves[rows])
        assert (read != 0) == reads
        values = np.empty_like(mean[rows])
        read = forest_value_numeric_batch(packed, thresholds, roots, steps, forest.value,
                                          X[rows], values)
        np.testing.assert_allclose(values, mean[rows], rtol=1e-12)
        assert (read != 0) == reads


def test_forest_step_arrays_are_each_trees(data):
    """The forest's step arrays are each tree's (``fastdt.kernels.step_arrays``, numpy's
    ``nextafter`` for float32) with ids into the concatenation, bit for bit, thresholds
    that round up or down in float32, overflow it, or fall below its smallest values
    among them."""
    from fastdt.ensemble.kernels import forest_step_arrays
    from fastdt.kernels import step_arrays

    X, y, _ = data
    forest = fit_forest(np.nan_to_num(X), y, n_estimators=4, random_state=2)
    internal = np.flatnonzero(forest.left != -1)
    edge = np.array([0.1, -0.1, 1.0, -1.0, 0.0, -0.0, 1e-50, -1e-50, 1e-45, -1e-45, 3e-39,
                     -3e-39, 1e39, -1e39, 3.4028235e38 * (1 + 1e-9)])
    forest.threshold[internal[::3]] = np.resize(edge, internal[::3].shape[0])
    for dtype in (np.float32, np.float64):
        packed, thresholds, roots, _ = forest_step_arrays(forest, dtype)
        for i, t in enumerate(forest.trees()):
            with np.errstate(over="ignore"):  # 1e39 in float32
                p, th = step_arrays(t.arrays, dtype)
            ids = slice(roots[i], roots[i] + t.node_count)
            assert thresholds.dtype == th.dtype
            np.testing.assert_array_equal(thresholds[ids].view(np.uint8), th.view(np.uint8))
            np.testing.assert_array_equal(packed[ids] >> 32, (p >> 32) + roots[i])
            np.testing.assert_array_equal(packed[ids] & 0xFFFFFFFF, p & 0xFFFFFFFF)


@numba.njit
def _user_forest_mean_size(f, offsets, X):
    """A user's kernel over a forest: the mean training size of a row's leaves."""
    n_trees = offsets.shape[1] - 1
    out = np.zeros(X.shape[0])
    for i in range(n_trees):
        base = offsets[0, i]
        for r in range(X.shape[0]):
            out[r] += f.n_node_samples[base + forest_leaf_index(f, offsets, i, X[r])]
    return out / n_trees


@numba.njit
def _user_forest_rows(f, offsets, X):
    """forest_value row by row, and tree_arrays handed to the single-tree kernels."""
    out = np.empty((X.shape[0], f.value.shape[1]))
    for r in range(X.shape[0]):
        forest_value(f, offsets, X[r], out[r])
    leaves = np.empty((X.shape[0], offsets.shape[1] - 1), dtype=np.int64)
    for i in range(offsets.shape[1] - 1):
        t = tree_arrays(f, offsets, i)
        for r in range(X.shape[0]):
            leaves[r, i] = leaf_index(t, X[r])
    return out, leaves


def test_forest_kernels_from_a_users_njit_code(data, tmp_path):
    X, y, yr = data
    for target in (y, yr):
        forest = fit_forest(X, target, n_estimators=3, random_state=4)
        forest.save(tmp_path / "f.npz")
        loaded = fastdt.load(tmp_path / "f.npz")
        for f in (forest, loaded):
            leaves = fastdt.apply(forest, X)
            sizes = np.mean([f.tree(i).n_node_samples[leaves[:, i]] for i in range(3)], axis=0)
            np.testing.assert_allclose(_user_forest_mean_size(f.arrays, f.offsets, X), sizes)
            values, got_leaves = _user_forest_rows(f.arrays, f.offsets, X)
            np.testing.assert_allclose(values, _mean_leaf_values(forest, X), rtol=1e-12)
            np.testing.assert_array_equal(got_leaves, leaves)
    # a forest and a tree have one numba type: the user's kernel compiles once per dtype
    assert numba.typeof(forest.arrays) == numba.typeof(forest.tree(0).arrays)
    assert len(_user_forest_mean_size.signatures) == 1


def _mean_leaf_values(forest, X):
    return np.mean([t.value[fastdt.apply(t, X)] for t in forest.trees()], axis=0)


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB")
@pytest.mark.parametrize("replace", [True, False])
def test_out_of_bag_equals_brute_force(data, replace):
    X, y, yr = data
    for target in (y, yr):
        forest = fit_forest(X, target, n_estimators=12, oob_score=True, random_state=4,
                            max_samples=0.7, replace=replace)
        n, n_samples = X.shape[0], forest.params["n_samples"]
        assert n_samples == 280
        acc, cnt = np.zeros((n, forest.value.shape[1])), np.zeros(n)
        for seed, tree in zip(forest.params["seeds"], forest.trees()):
            out = in_bag_counts(seed, n, n_samples, replace) == 0
            if not replace:  # 280 distinct rows drawn, the 120 others out of bag
                assert out.sum() == n - n_samples
            acc[out] += fastdt.api._predict.values(tree, X)[out]
            cnt[out] += 1
        has = cnt > 0
        np.testing.assert_allclose(forest.oob_["decision"][has], acc[has] / cnt[has, None])
        assert np.isnan(forest.oob_["decision"][~has]).all()
        if forest.task == "classification":
            expect = np.mean(forest.classes[acc[has].argmax(1)] == target[has])
        else:
            pred = acc[has, 0] / cnt[has]
            expect = 1 - ((target[has] - pred) ** 2).sum() / (
                (target[has] - target[has].mean()) ** 2).sum()
        assert forest.oob_["score"] == pytest.approx(expect, rel=1e-12)


def test_bootstrap_counts_are_the_trees_rows(data):
    X, y, _ = data
    forest = fit_forest(X, y, n_estimators=3, random_state=5, max_features=None)
    for seed, tree in zip(forest.params["seeds"], forest.trees()):
        counts = in_bag_counts(seed, X.shape[0], X.shape[0])
        assert tree.n_node_samples[0] == np.count_nonzero(counts)
        assert tree.weighted_n_node_samples[0] == counts.sum()


def test_subsampling_without_replacement(data):
    """replace=False: each tree grows on max_samples distinct rows, each once: the
    tree fit() grows on those rows."""
    X, y, _ = data
    forest = fit_forest(X, y, n_estimators=3, random_state=5, max_samples=150,
                        replace=False, max_features=None)
    for seed, tree in zip(forest.params["seeds"], forest.trees()):
        counts = in_bag_counts(seed, X.shape[0], 150, replace=False)
        assert set(np.unique(counts)) == {0, 1} and counts.sum() == 150
        assert tree.n_node_samples[0] == 150 == tree.weighted_n_node_samples[0]
        keep = counts > 0
        assert_same(tree, fastdt.fit(X[keep], y[keep], random_state=seed))


@pytest.mark.parametrize("params", [{"splitter": "random"}, {"splitter": "hist"}, {},
                                    {"max_leaf_nodes": 9}], ids=str)
def test_trees_grown_in_reused_scratch_are_those_grown_afresh(data, params):
    """A forest's thread grows its trees one after another in the same node tables (and
    histogram pool): a tree grown after a larger one, or a smaller one, is the tree grown
    with fresh buffers."""
    X, y, _ = data
    prep = _engine.prepare(X, y, params=dict(params, max_features=3))
    n = X.shape[0]
    bags = [in_bag_counts(s, n, n).astype(float) for s in (1, 2)]
    bags.insert(1, np.where(np.arange(n) < 60, 1.0, 0.0))  # a small tree between two large
    scratch = {}
    for seed, w in enumerate(bags):
        reused = _engine.grow(prep, seed=seed + 1, row_weights=w, scratch=scratch)
        fresh = _engine.grow(prep, seed=seed + 1, row_weights=w)
        assert_same(_engine.assemble(prep, reused), _engine.assemble(prep, fresh))
    assert "nodes" in scratch


def _with_categories(X):
    X = X.copy()
    X[:, 7] = np.floor(np.abs(np.nan_to_num(X[:, 7])) * 3) % 5
    return X


def _assert_same_tree(a, b):
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


_BATCHABLE = [{}, {"splitter": "hist"}, {"splitter": "random"},
              {"splitter": "random", "categorical_features": [7]},
              {"categorical_features": [7], "criterion": "entropy"},
              {"splitter": "hist", "categorical_features": [7]},
              {"monotonic_cst": [1, -1, 0, 0, 0, 0, 0, 0]},
              {"regression": True}, {"regression": True, "splitter": "hist"},
              {"regression": True, "splitter": "random", "criterion": "friedman_mse"},
              {"min_impurity_decrease": 0.002, "max_depth": 5},
              {"sample_weight": True, "splitter": "hist"}, {"sample_weight": True},
              {"sample_weight": "some zero", "splitter": "hist"}]


@pytest.mark.parametrize("params", _BATCHABLE, ids=str)
def test_trees_grown_in_a_batch_are_those_grown_alone(data, params):
    """grow_batch grows several trees level by level together: each is the tree grow()
    gives alone, array for array, among them a tree whose root cannot split (one class)
    and one of five rows. A second batch in the same scratch writes the cut tables
    again: the trees assembled from the first keep nothing of them."""
    X, y, yr = data
    params = dict(params)
    target = yr if params.pop("regression", False) else y
    weighting = params.pop("sample_weight", False)
    sw = np.random.default_rng(5).uniform(0.5, 2.0, X.shape[0]) if weighting else None
    if weighting == "some zero":  # rows out of every tree (the prepared rows' subset)
        sw[::9] = 0.0
    if "categorical_features" in params:
        X = _with_categories(X)
    prep = _engine.prepare(X, target, sw, dict(params, max_features=3))
    assert _engine.batchable(prep)
    n = prep.target.shape[0]
    bags = [in_bag_counts(s, n, n).astype(float) for s in (1, 2, 3)]
    labels = y if prep.positive is None else y[prep.positive]
    bags.insert(1, (labels == 1) * 1.0)  # classification: a pure root
    bags.insert(3, np.where(np.arange(n) < 5, 1.0, 0.0))
    seeds = [11, 12, 13, 14, 15]
    scratch = {}
    batch = _engine.grow_batch(prep, seeds, bags, scratch=scratch)
    assert len(batch) == len(seeds)
    trees = [_engine.assemble(prep, raw) for raw in batch]
    cut, rows = scratch["cut"], scratch.get("hist_rows")
    tables = dict(scratch.get("tables", {}))
    again = _engine.grow_batch(prep, seeds[::-1], bags[::-1], scratch=scratch)
    assert scratch["cut"] is cut and np.shares_memory(again[0][0], cut[0])
    # the scan tables of the levels (none for random splits from rows): kept, the same
    # buffers again (the same trees, so no wider level)
    assert bool(tables) == (prep.splitter == "hist" or prep.layout is not None)
    assert all(scratch["tables"][name] is buf for name, buf in tables.items())
    # a histogram batch's rows, targets and weights: in the same buffers again
    assert scratch.get("hist_rows") is rows and (rows is None) == (prep.splitter != "hist")
    for seed, w, tree, raw in zip(seeds, bags, trees, again[::-1]):
        alone = _engine.assemble(prep, _engine.grow(prep, seed=seed, row_weights=w))
        _assert_same_tree(tree, alone)
        _assert_same_tree(_engine.assemble(prep, raw), alone)


def test_kept_tables_are_views_of_buffers_grown_by_doubling():
    """A level's scan tables are views of buffers kept between levels (and a thread's
    batches): the same buffer while it has room, twice as many rows when it has not,
    a new one for another shape or dtype."""
    from fastdt._grow import kept_tables

    store = {}
    a, c = kept_tables(store, 3, (("x", (4,), np.float64), ("c", (4, 2), np.uint64)))
    assert a.shape == (3, 4) and c.shape == (3, 4, 2) and c.dtype == np.uint64
    assert a.flags.c_contiguous and c.flags.c_contiguous  # the kernels' signature
    x = store["x"]
    (a,) = kept_tables(store, 2, (("x", (4,), np.float64),))
    assert store["x"] is x and a.shape == (2, 4) and np.shares_memory(a, x)
    (a,) = kept_tables(store, 5, (("x", (4,), np.float64),))
    assert store["x"].shape == (6, 4) and a.shape == (5, 4)
    (a,) = kept_tables(store, 9, (("x", (4,), np.float64),))
    assert store["x"].shape == (12, 4)
    (a,) = kept_tables(store, 2, (("x", (5,), np.float64),))
    assert store["x"].shape == (2, 5)
    (a,) = kept_tables(store, 2, (("x", (5,), np.int8),))
    assert store["x"].dtype == np.int8


@pytest.mark.parametrize("params", [{"missing": "surrogate"}, {"missing": "fractional"},
                                    {"max_leaf_nodes": 9}, {"criterion": "absolute_error"},
                                    {"min_weight_fraction_leaf": 0.05}], ids=str)
def test_what_does_not_grow_in_batches(data, params):
    """Fits whose trees need state of their own (surrogates, copies of rows, best-first
    order, the absolute error's ranks, a weight fraction of each tree's) are not
    batchable: grow_batch refuses them, and their forests grow tree by tree."""
    X, y, yr = data
    target = yr if params.get("criterion") == "absolute_error" else y
    prep = _engine.prepare(X, target, None, params)
    assert not _engine.batchable(prep)
    w = np.ones(X.shape[0])
    with pytest.raises(ValueError, match="batch"):
        _engine.grow_batch(prep, [1, 2], [w, w])
    forest = fit_forest(X, target, n_estimators=3, random_state=0, **params)
    for i, seed in enumerate(forest.params["seeds"]):
        prep = _engine.prepare(X, target, None, dict(params, max_features=forest.params[
            "tree_params"]["max_features"]))
        alone = _engine.grow(prep, seed=seed, row_weights=in_bag_counts(
            seed, X.shape[0], X.shape[0]).astype(float))
        _assert_same_tree(forest.tree(i), _engine.assemble(prep, alone))


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores")
@pytest.mark.parametrize("params", [{}, {"splitter": "hist"}, {"splitter": "random"},
                                    {"class_weight": "balanced_subsample"},
                                    {"categorical_features": [7], "splitter": "hist"}],
                         ids=str)
def test_forest_in_batches_is_the_forest_tree_by_tree(data, params, monkeypatch):
    """A forest's trees grow in batches (several sizes) or one by one, on one thread or
    two: the same forest, and the same out-of-bag results."""
    from fastdt.ensemble import api

    X, y, _ = data
    if "categorical_features" in params:
        X = _with_categories(X)
    forests = []
    for most, jobs in ((1, 1), (3, 1), (16, 2), (16, 1)):
        monkeypatch.setattr(api, "_BATCH_TREES", most)
        forests.append(fit_forest(X, y, n_estimators=7, random_state=0, oob_score=True,
                                  n_jobs=jobs, **params))
    for other in forests[1:]:
        for name in FIELDS:
            np.testing.assert_array_equal(getattr(forests[0], name), getattr(other, name))
        np.testing.assert_array_equal(forests[0].oob_["decision"], other.oob_["decision"])


def test_from_trees_keeps_one_copy_of_the_nodes(data, monkeypatch):
    """A forest's trees are views into its arrays (not the trees it was made of, which
    would hold every node twice), and concatenating on threads changes nothing."""
    import fastdt.ensemble.forest as forest_module

    X, y, _ = data
    forest = fit_forest(X, y, n_estimators=6, random_state=0, max_depth=4)
    trees = [forest.tree(i) for i in range(forest.n_trees)]
    for i, tree in enumerate(trees):
        for k, name in enumerate(FIELDS):
            field = getattr(forest, name)
            assert field.size == 0 or np.shares_memory(getattr(tree, name), field)
            np.testing.assert_array_equal(
                getattr(tree, name), field[forest.offsets[k, i]:forest.offsets[k, i + 1]])
    monkeypatch.setattr(forest_module, "_PARALLEL_NODES", 0)
    serial = Forest.from_trees(trees, params=forest.params)
    threaded = Forest.from_trees(trees, params=forest.params, threads=3)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(serial, name), getattr(forest, name))
        np.testing.assert_array_equal(getattr(threaded, name), getattr(forest, name))
    np.testing.assert_array_equal(threaded.offsets, forest.offsets)
    # made of trees alone, the forest's trees keep their parameters
    assert Forest.from_trees(trees).tree(0).params == trees[0].params


def test_batch_size():
    """Batches fill the entries and trees allowed, in a whole number of rounds of the
    threads, of about equal sizes."""
    from fastdt.ensemble.api import _batch_size

    class Prep:
        splitter, n_features = "best", 14
        target = np.zeros(26_048)
        layout = ()  # presorted

    assert _batch_size(Prep, 100, 2) == 10  # 2**22 // (26,048 * 14) = 11 a batch at most
    assert _batch_size(Prep, 3, 2) == 2
    assert _batch_size(Prep, 3, 1) == 3
    assert _batch_size(Prep, 0, 2) == 1  # a warm start growing no tree
    Prep.splitter = "hist"
    assert _batch_size(Prep, 100, 2) == 13  # 16 at most: 8 batches, 4 per thread
    assert _batch_size(Prep, 100, 16) == 7  # 16 batches of 6-7
    Prep.target = np.zeros(5_000_000)
    assert _batch_size(Prep, 100, 2) == 1
    Prep.target = np.zeros(1000)
    assert _batch_size(Prep, 40, 1) == 14  # 3 batches of 13-14
    # random splits from rows: their values' bytes, in 28-byte entries
    Prep.splitter, Prep.layout, Prep.n_features = "random", None, 20
    Prep.target, Prep.X = np.zeros(200_000), np.zeros((1, 20), dtype=np.float32)
    assert _batch_size(Prep, 100, 2) == 7  # 2**22 // (200,000 * 20 * 4 // 28) = 7
    Prep.X = np.zeros((1, 20))
    assert _batch_size(Prep, 100, 2) == 3  # float64: 3 a batch, 34 batches


def test_same_forest_on_every_thread_count(on_each_thread_count):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 12))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    one, many = on_each_thread_count(lambda: [
        fit_forest(X, y, n_estimators=4, random_state=0),
        fit_forest(X, y, n_estimators=4, random_state=0, splitter="hist"),
        fit_forest(X, y, n_estimators=4, random_state=0, splitter="random", bootstrap=False)])
    for a, b in zip(one, many):
        for name in FIELDS:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_seeds(data):
    X, y, _ = data
    a = fit_forest(X, y, n_estimators=3, random_state=0)
    b = fit_forest(X, y, n_estimators=3, random_state=0)
    c = fit_forest(X, y, n_estimators=3, random_state=1)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    assert a.node_count != c.node_count or not np.array_equal(a.threshold, c.threshold)


def test_save_load_pickle_and_damaged_files(tmp_path, data):
    X, y, _ = data
    forest = fit_forest(X, y, n_estimators=4, random_state=0, max_depth=4)
    path = tmp_path / "f.npz"
    forest.save(path)
    back = fastdt.load(path)
    assert isinstance(back, Forest) and back.n_trees == 4
    for name in (*FIELDS, "offsets"):
        np.testing.assert_array_equal(getattr(back, name), getattr(forest, name))
    np.testing.assert_array_equal(fastdt.predict_proba(back, X), fastdt.predict_proba(forest, X))
    assert isinstance(fastdt.load(_saved_tree(tmp_path, X, y)), fastdt.Tree)
    again = pickle.loads(pickle.dumps(forest))
    np.testing.assert_array_equal(fastdt.predict(again, X), fastdt.predict(forest, X))
    # damaged files: a clear ValueError, never a crash
    raw = path.read_bytes()
    rng = np.random.default_rng(0)
    with np.load(path) as z:
        contents = {k: z[k] for k in z.files}
    for trial in range(150):
        damaged = dict(contents)
        name = rng.choice([*FIELDS, "__offsets__"])
        a = damaged[name].copy()
        if a.size:
            a.flat[rng.integers(a.size)] = rng.choice([-1, 10**6, 3]) if a.dtype.kind in "iu" \
                else rng.choice([np.nan, -5.0, 1e300])
        damaged[name] = a
        bad = tmp_path / f"bad{trial}.npz"
        np.savez(bad, **damaged)
        try:
            fastdt.load(bad)
        except ValueError:
            pass
    for cut in (10, len(raw) // 2, len(raw) - 7):
        (tmp_path / "cut.npz").write_bytes(raw[:cut])
        with pytest.raises(ValueError):
            fastdt.load(tmp_path / "cut.npz")


def _saved_tree(tmp_path, X, y):
    path = tmp_path / "t.npz"
    fastdt.fit(X, y, max_depth=2).save(path)
    return path


def test_parameters_refused(data):
    X, y, yr = data
    with pytest.raises(ValueError, match="Out of bag"):
        fit_forest(X, y, bootstrap=False, oob_score=True)
    with pytest.raises(ValueError, match="n_estimators"):
        fit_forest(X, y, n_estimators=0)
    with pytest.raises(ValueError, match="max_samples"):
        fit_forest(X, y, max_samples=1.5)
    with pytest.raises(ValueError, match="max_sample"):
        fit_forest(X, y, bootstrap=False, max_samples=10)
    with pytest.raises(ValueError, match="classification only"):
        fit_forest(X, yr, class_weight="balanced_subsample")


def test_balanced_subsample(data):
    X, y, _ = data
    yb = np.where(np.arange(y.shape[0]) % 5 == 0, 1, 0)
    forest = fit_forest(X, yb, n_estimators=3, random_state=0, max_features=None,
                        class_weight="balanced_subsample")
    for seed, tree in zip(forest.params["seeds"], forest.trees()):
        counts = in_bag_counts(seed, X.shape[0], X.shape[0])
        drawn = counts > 0
        k = np.bincount(yb[drawn], minlength=2)
        w = counts * (drawn.sum() / (2 * k))[yb]
        np.testing.assert_allclose(tree.weighted_n_node_samples[0], w.sum())


# ---------------------------------------------------------------------- estimators

sklearn = pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from fastdt import (  # noqa: E402
    ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor,
)


def _expected_failures(estimator):
    """scikit-learn marks these two as expected failures for its own forests: a
    bootstrap sample of weighted rows is not a bootstrap sample of repeated rows."""
    if estimator.bootstrap:
        return {name: "bootstrap draws rows, not weight" for name in
                ("check_sample_weight_equivalence_on_dense_data",
                 "check_sample_weight_equivalence_on_sparse_data")}
    return {}


with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*does not inherit from", category=UserWarning)
    _CHECKS = parametrize_with_checks(
        [RandomForestClassifier(n_estimators=5), RandomForestRegressor(n_estimators=5),
         ExtraTreesClassifier(n_estimators=5), ExtraTreesRegressor(n_estimators=5)],
        expected_failed_checks=_expected_failures)


@_CHECKS
def test_sklearn_check_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer", "diabetes"])
def test_accuracy_like_scikit_learn(name):
    """Test accuracy / R^2 within noise of scikit-learn's forests (5 seeds each)."""
    from sklearn import ensemble

    from _sklearn_compare import assert_scores_like

    kind = "Classifier" if name != "diabetes" else "Regressor"
    assert_scores_like(name, getattr(fastdt, f"RandomForest{kind}"),
                       getattr(ensemble, f"RandomForest{kind}"), n_estimators=50)


def test_estimator_attributes(data):
    X, y, yr = data
    rf = RandomForestClassifier(n_estimators=25, oob_score=True, random_state=0).fit(X, y)
    assert rf.oob_decision_function_.shape == (X.shape[0], 2)
    assert 0.5 < rf.oob_score_ <= 1.0
    assert len(rf.estimators_) == 25 and rf.n_classes_ == 2
    imp = rf.feature_importances_
    assert imp.shape == (8,) and imp.sum() == pytest.approx(1.0)
    assert rf.apply(X).shape == (X.shape[0], 25)
    reg = ExtraTreesRegressor(n_estimators=4, random_state=0).fit(X, yr)
    assert not reg.bootstrap and reg.splitter == "random"
    assert reg.score(X, yr) > 0.9


def _same_forest(a, b):
    assert a.n_trees == b.n_trees
    for name in (*FIELDS, "offsets"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.params["seeds"] == b.params["seeds"]


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB")
def test_warm_start_equals_one_fit(data):
    """Growing 4 trees, then 3 more (warm_start), gives the 7-tree forest of one fit with
    the same int random_state, its out-of-bag results and leaf samples included."""
    X, y, yr = data
    rf = RandomForestClassifier(n_estimators=4, warm_start=True, oob_score=True,
                                random_state=5).fit(X, y)
    first = rf.forest_
    rf.set_params(n_estimators=7).fit(X, y)
    assert rf.forest_ is not first and first.n_trees == 4
    once = RandomForestClassifier(n_estimators=7, oob_score=True, random_state=5).fit(X, y)
    _same_forest(rf.forest_, once.forest_)
    np.testing.assert_array_equal(rf.oob_decision_function_, once.oob_decision_function_)
    with pytest.warns(UserWarning, match="without increasing n_estimators"):
        rf.fit(X, y)
    _same_forest(rf.forest_, once.forest_)
    with pytest.raises(ValueError, match="must be larger or equal"):
        rf.set_params(n_estimators=3).fit(X, y)
    # the functional face, and a regression forest with its leaf samples
    a = fit_forest(X, yr, n_estimators=2, random_state=1, leaf_samples=True, max_depth=4)
    b = fit_forest(X, yr, n_estimators=5, random_state=1, leaf_samples=True, max_depth=4,
                   extend=a)
    c = fit_forest(X, yr, n_estimators=5, random_state=1, leaf_samples=True, max_depth=4)
    _same_forest(b, c)
    for u, v in zip(b.leaf_samples, c.leaf_samples):
        np.testing.assert_array_equal(u, v)
    with pytest.raises(ValueError, match="parameters differ"):
        fit_forest(X, yr, n_estimators=5, random_state=1, max_depth=3, extend=a)
    with pytest.raises(ValueError, match="other data"):
        fit_forest(X[:, :5], yr, n_estimators=5, random_state=1, max_depth=4, extend=a)
    with pytest.raises(TypeError, match="extend must be"):
        fit_forest(X, yr, n_estimators=5, extend=a.tree(0))
    # not warm: a new forest every time
    cold = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, yr)
    before = cold.forest_
    cold.set_params(n_estimators=4).fit(X, yr)
    assert cold.forest_.n_trees == 4 and cold.forest_ is not before


def test_oob_permutation_importance_equals_brute_force(data):
    """Breiman's out-of-bag permutation importance against a plain loop over the trees
    (fastdt.predict of each tree, the same shuffles in the same order)."""
    from fastdt.ensemble import oob_permutation_importance

    X, y, yr = data
    X = X.copy()
    X[:, 6] = 1.0  # constant: never split on, so shuffling it changes nothing
    sw = np.random.default_rng(2).uniform(0.5, 2.0, size=X.shape[0])
    sw[:10] = 0.0
    for target in (y, yr):
        forest = fit_forest(X, target, sample_weight=sw, n_estimators=4, random_state=0)
        got = oob_permutation_importance(forest, X, target, sample_weight=sw, n_repeats=2,
                                         random_state=7)
        rng = np.random.default_rng(7)
        rows = np.flatnonzero(sw > 0)
        expect = np.zeros((8, 2))
        for tree, seed in zip(forest.trees(), forest.params["seeds"]):
            oob = rows[in_bag_counts(seed, rows.size, forest.params["n_samples"]) == 0]

            def score(Xo):
                pred = fastdt.predict(tree, Xo)
                if forest.task == "classification":
                    return np.average(pred == target[oob], weights=sw[oob])
                mean = np.average(target[oob], weights=sw[oob])
                return 1 - (np.sum(sw[oob] * (target[oob] - pred) ** 2)
                            / np.sum(sw[oob] * (target[oob] - mean) ** 2))

            base = score(X[oob])
            for j in range(8):
                for r in range(2):
                    Xp = X[oob].copy()
                    Xp[:, j] = Xp[rng.permutation(oob.size), j]
                    expect[j, r] += base - score(Xp)
        np.testing.assert_allclose(got["importances"], expect / 4, atol=1e-12)
        assert np.all(got["importances"][6] == 0.0)
        assert np.argmax(got["importances_mean"]) in (0, 3)  # the strongest signal
        np.testing.assert_allclose(got["importances_std"], expect.std(axis=1) / 4, atol=1e-12)
    with pytest.raises(ValueError, match="bootstrap=True"):
        oob_permutation_importance(fit_forest(X, y, n_estimators=2, bootstrap=False), X, y)
    with pytest.raises(ValueError, match="n_repeats"):
        oob_permutation_importance(forest, X, yr, n_repeats=0)
    with pytest.raises(ValueError, match="one label per row"):
        oob_permutation_importance(forest, X, yr[:5])
    with pytest.raises(TypeError, match="Forest"):
        oob_permutation_importance(forest.tree(0), X, yr)

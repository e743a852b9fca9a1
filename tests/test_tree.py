"""The tree format, persistence (save/load/pickle), the public kernels, and load's
defences against damaged or hostile model files.

numba does not check bounds, so every array a kernel indexes must be validated by
:func:`fastdt.load` (and on unpickling). The tests below build bad files by taking the
arrays of a real saved tree, modifying them and re-saving them with ``np.savez``; the
fuzz tests do the same at random, and also run in a subprocess so that a segfault is
reported as a failure instead of killing pytest.
"""

import io
import json
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest

import fastdt
from fastdt.kernels import leaf_index
from fastdt.tree import FIELDS, TreeArrays

REPO = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
LEAF = fastdt.LEAF


# ---------------------------------------------------------------------- fixtures


def _data(n=300, m=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    X[:, 3] = np.round(X[:, 3])  # a feature with ties
    score = X[:, 0] + 0.5 * X[:, 1] - X[:, 2] * X[:, 3] + 0.3 * rng.normal(size=n)
    return X, score


def _fit_kind(kind):
    X, score = _data()
    if kind == "clf_str":
        y = np.array(["ant", "bee", "cat"])[np.digitize(score, [-0.5, 0.5])]
        return fastdt.fit(X, y, max_depth=6, random_state=0), X
    if kind == "clf_int":
        y = np.array([-3, 7, 12, 40])[np.digitize(score, [-1.0, 0.0, 1.0])]
        return fastdt.fit(X, y, random_state=0), X
    if kind == "clf_bool":
        y = score > 0
        return fastdt.fit(X, y, criterion="entropy", max_depth=5, random_state=0), X
    if kind == "clf_weighted_leafnodes":
        y = (score > 0).astype(np.int64)
        w = np.random.default_rng(1).uniform(0.1, 3.0, size=X.shape[0])
        return fastdt.fit(X, y, sample_weight=w, max_leaf_nodes=17, random_state=0), X
    if kind == "clf_frame":
        pd = pytest.importorskip("pandas")
        df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
        y = np.array(["lo", "hi"])[(score > 0).astype(int)]
        return fastdt.fit(df, y, max_depth=4, random_state=0), df
    if kind == "reg":
        return fastdt.fit(X, score, max_depth=7, random_state=0), X
    if kind == "reg_float32_poisson":
        y = np.exp(score / 2)
        return fastdt.fit(X.astype(np.float32), y, criterion="poisson", max_depth=5,
                          random_state=0), X.astype(np.float32)
    if kind == "stump":  # a single leaf
        return fastdt.fit(X, np.ones(X.shape[0]), random_state=0), X
    raise AssertionError(kind)


KINDS = ["clf_str", "clf_int", "clf_bool", "clf_weighted_leafnodes", "clf_frame", "reg",
         "reg_float32_poisson", "stump"]
_CACHE = {}


@pytest.fixture(params=KINDS)
def fitted(request):
    if request.param not in _CACHE:
        _CACHE[request.param] = _fit_kind(request.param)
    return _CACHE[request.param]


def _predictions(tree, X):
    out = {"predict": fastdt.predict(tree, X), "apply": fastdt.apply(tree, X),
           "decision_path": fastdt.decision_path(tree, X)}
    if tree.task == "classification":
        out["predict_proba"] = fastdt.predict_proba(tree, X)
    return out


def _assert_same_predictions(a, b):
    assert a.keys() == b.keys()
    for k in a:
        if k == "decision_path":
            for u, v in zip(a[k], b[k]):
                np.testing.assert_array_equal(u, v)
        else:
            assert a[k].dtype == b[k].dtype, k
            np.testing.assert_array_equal(a[k], b[k])


# ---------------------------------------------------------------------- persistence


def test_save_load_round_trip_is_identity(fitted, tmp_path):
    tree, X = fitted
    path = tmp_path / "model.npz"
    tree.save(path)
    loaded = fastdt.load(path)
    assert loaded == tree
    assert not (loaded != tree)
    assert loaded.task == tree.task and loaded.n_features == tree.n_features
    assert loaded.feature_names == tree.feature_names
    assert loaded.params == tree.params and loaded.criterion == tree.criterion
    if tree.classes is not None:
        assert loaded.classes.dtype == tree.classes.dtype
        np.testing.assert_array_equal(loaded.classes, tree.classes)
    _assert_same_predictions(_predictions(tree, X), _predictions(loaded, X))
    # str paths work as well as Path objects, and saving the loaded tree is stable
    path2 = str(tmp_path / "again.npz")
    loaded.save(path2)
    assert fastdt.load(path2) == tree


def test_file_is_plain_npz_without_pickle(fitted, tmp_path):
    tree, _ = fitted
    path = tmp_path / "model.npz"
    tree.save(path)
    with np.load(path, allow_pickle=False) as data:
        assert set(data.files) == {"__meta__", *FIELDS}
        for name, (dtype, ndim) in FIELDS.items():
            assert data[name].dtype == np.dtype(dtype), name
            assert data[name].ndim == ndim, name
            np.testing.assert_array_equal(data[name], getattr(tree, name))
        meta = json.loads(str(data["__meta__"]))
    assert meta["format_version"] == 1
    assert meta["task"] == tree.task
    assert meta["n_features"] == tree.n_features


def test_pickle_round_trip(fitted):
    tree, X = fitted
    clone = pickle.loads(pickle.dumps(tree))
    assert clone == tree
    assert clone.arrays is not tree.arrays
    _assert_same_predictions(_predictions(tree, X), _predictions(clone, X))


def test_unpickling_validates():
    tree, _ = _fit_kind("reg")
    blob = pickle.dumps(tree)
    bad = pickle.loads(blob)
    state = bad.__dict__.copy()
    state["left"] = state["left"].copy()
    state["left"][0] = 0  # the root pointing to itself
    obj = fastdt.Tree.__new__(fastdt.Tree)
    with pytest.raises(ValueError, match="invalid tree"):
        obj.__setstate__(state)


def test_save_to_file_object_and_tree_equality_semantics(tmp_path):
    tree, _ = _fit_kind("clf_str")
    buf = io.BytesIO()
    tree.save(buf)
    buf.seek(0)
    with np.load(buf, allow_pickle=False) as data:
        assert set(data.files) == {"__meta__", *FIELDS}
    other, _ = _fit_kind("clf_int")
    assert tree != other
    assert tree != "not a tree"
    with pytest.raises(TypeError):
        hash(tree)


# ---------------------------------------------------------------------- format invariants


def check_format(tree):
    """Every documented invariant of a fitted (not fuzzed) tree."""
    n = tree.node_count
    for name, (dtype, ndim) in FIELDS.items():
        a = getattr(tree, name)
        assert isinstance(a, np.ndarray), name
        assert a.dtype == np.dtype(dtype), (name, a.dtype)
        assert a.ndim == ndim, name
        assert a.flags.c_contiguous, name
        assert getattr(tree.arrays, name) is a
    assert isinstance(tree.arrays, TreeArrays)
    for name in ("threshold", "left", "right", "impurity", "n_node_samples",
                 "weighted_n_node_samples", "depth", "missing_go_left", "cat_offset"):
        assert getattr(tree, name).shape == (n,), name
    assert tree.value.shape[0] == n

    leaf = tree.left == LEAF
    internal = ~leaf
    ids = np.flatnonzero(internal)
    # breadth-first ids
    assert np.all(tree.left[internal] > ids)
    assert np.array_equal(tree.right[internal], tree.left[internal] + 1)
    assert np.array_equal(tree.left[internal], 2 * np.arange(ids.size) + 1)
    assert n == 2 * ids.size + 1
    assert tree.n_leaves == n - ids.size
    # every node but the root has exactly one parent
    children = np.concatenate([tree.left[internal], tree.right[internal]])
    assert np.array_equal(np.sort(children), np.arange(1, n))
    # breadth-first: depth never decreases with the id
    assert np.all(np.diff(tree.depth) >= 0)
    # depth
    assert tree.depth[0] == 0
    assert np.all(tree.depth[tree.left[internal]] == tree.depth[internal] + 1)
    assert np.all(tree.depth[tree.right[internal]] == tree.depth[internal] + 1)
    assert tree.max_depth == tree.depth.max()
    # leaves
    assert np.all(tree.right[leaf] == LEAF)
    assert np.all(tree.feature[leaf] == LEAF)
    assert np.all(np.isnan(tree.threshold[leaf]))
    # internal nodes
    assert np.all((tree.feature[internal] >= 0) & (tree.feature[internal] < tree.n_features))
    assert np.all(np.isfinite(tree.threshold[internal]))
    # sample counts add up
    l, r = tree.left[internal], tree.right[internal]
    assert np.array_equal(tree.n_node_samples[l] + tree.n_node_samples[r],
                          tree.n_node_samples[internal])
    np.testing.assert_allclose(
        tree.weighted_n_node_samples[l] + tree.weighted_n_node_samples[r],
        tree.weighted_n_node_samples[internal], rtol=1e-12)
    assert np.all(tree.n_node_samples >= 1)
    assert np.all(tree.weighted_n_node_samples > 0)
    assert np.all(tree.impurity >= -1e-12)
    assert np.all(np.isfinite(tree.value))
    assert np.all(tree.missing_go_left <= 1)
    # unused categorical / surrogate arrays are empty
    assert np.all(tree.cat_offset == -1)
    assert tree.cat_bitsets.size == 0
    assert np.array_equal(tree.n_categories, np.zeros(tree.n_features, np.int32))
    assert np.array_equal(tree.surrogate_ptr, np.zeros(n + 1, np.int64))
    assert tree.surrogate_feature.size == tree.surrogate_threshold.size == 0
    assert tree.surrogate_left_if_le.size == 0
    if tree.task == "classification":
        assert tree.classes.ndim == 1 and tree.classes.shape[0] == tree.value.shape[1]
        np.testing.assert_allclose(tree.value.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        assert np.all(tree.value >= 0)
    else:
        assert tree.classes is None and tree.value.shape[1] == 1


def test_format_invariants(fitted):
    tree, X = fitted
    check_format(tree)
    assert tree.validate() is tree


def test_format_invariants_hold_after_loading(fitted, tmp_path):
    tree, _ = fitted
    tree.save(tmp_path / "m.npz")
    check_format(fastdt.load(tmp_path / "m.npz"))


def test_node_counts_match_training_routing():
    tree, X = _fit_kind("clf_int")
    leaves = fastdt.apply(tree, X)
    counts = np.bincount(leaves, minlength=tree.node_count)
    assert np.array_equal(counts[tree.is_leaf], tree.n_node_samples[tree.is_leaf])
    indptr, indices = fastdt.decision_path(tree, X)
    visits = np.bincount(indices, minlength=tree.node_count)
    assert np.array_equal(visits, tree.n_node_samples)
    assert indptr[0] == 0 and indptr[-1] == indices.size
    assert np.all(indices[indptr[:-1]] == 0)
    assert np.array_equal(indices[indptr[1:] - 1], leaves)
    assert np.array_equal(np.diff(indptr), tree.depth[leaves] + 1)


# ---------------------------------------------------------------------- users' numba code


@numba.njit
def _user_walk(t, X):
    out = np.empty(X.shape[0], dtype=np.int64)
    for i in range(X.shape[0]):
        x = X[i]
        node = 0
        while t.left[node] != fastdt.LEAF:
            if x[t.feature[node]] <= t.threshold[node]:
                node = t.left[node]
            else:
                node = t.right[node]
        out[i] = node
    return out


@numba.njit
def _user_leaf_index(t, X):
    out = np.empty(X.shape[0], dtype=np.int64)
    for i in range(X.shape[0]):
        out[i] = leaf_index(t, X[i])
    return out


@numba.njit
def _user_leaf_sizes(t, X):
    out = np.empty(X.shape[0], dtype=np.int64)
    for i in range(X.shape[0]):
        out[i] = t.n_node_samples[fastdt.kernels.leaf_index(t, X[i])]
    return out


def _probe_rows(X):
    X = np.asarray(X)
    rng = np.random.default_rng(5)
    extra = rng.normal(scale=3.0, size=(50, X.shape[1])).astype(X.dtype)
    return np.ascontiguousarray(np.vstack([X, extra]))


@pytest.mark.parametrize("user_fn", [_user_walk, _user_leaf_index], ids=["walk", "leaf_index"])
def test_user_njit_matches_apply(fitted, user_fn):
    tree, X = fitted
    Xp = _probe_rows(X)
    expected = fastdt.apply(tree, Xp)
    np.testing.assert_array_equal(user_fn(tree.arrays, Xp), expected)
    np.testing.assert_array_equal(_user_leaf_sizes(tree.arrays, Xp),
                                  tree.n_node_samples[expected])


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT", "0") == "1",
                    reason="counts numba compilations")
def test_every_tree_has_one_numba_type(tmp_path):
    """Fitted, loaded and unpickled trees of both tasks share one numba type, so a
    user's @njit function compiles once per X dtype."""

    @numba.njit
    def count_leaves(t):
        c = 0
        for i in range(t.left.shape[0]):
            if t.left[i] == fastdt.LEAF:
                c += 1
        return c

    trees = [_fit_kind(k)[0] for k in ("clf_str", "reg", "clf_bool", "stump")]
    trees[0].save(tmp_path / "m.npz")
    trees.append(fastdt.load(tmp_path / "m.npz"))
    trees.append(pickle.loads(pickle.dumps(trees[1])))
    for t in trees:
        assert count_leaves(t.arrays) == t.n_leaves
    assert len(count_leaves.signatures) == 1
    assert len({numba.typeof(t.arrays) for t in trees}) == 1


# ---------------------------------------------------------------------- load rejects bad files


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """(path, contents dict) of a saved classification tree with >= 3 internal nodes."""
    tree, _ = _fit_kind("clf_str")
    assert np.count_nonzero(tree.left != LEAF) >= 3
    path = tmp_path_factory.mktemp("saved") / "model.npz"
    tree.save(path)
    with np.load(path, allow_pickle=False) as data:
        contents = {k: data[k] for k in data.files}
    return path, contents


def _meta(contents):
    return json.loads(str(contents["__meta__"]))


def _with_meta(contents, **changes):
    meta = _meta(contents)
    for k, v in changes.items():
        if v is _DROP:
            del meta[k]
        else:
            meta[k] = v
    return {**contents, "__meta__": np.array(json.dumps(meta))}


_DROP = object()


def _set(name, index, value):
    def mutate(c):
        a = c[name].copy()
        a[index] = value
        return {**c, name: a}
    return mutate


def _first_internal_leaf_pair(c):
    internal = np.flatnonzero(c["left"] != LEAF)
    leaf = np.flatnonzero(c["left"] == LEAF)
    return internal, leaf


def _cycle_to_root(c):
    c = dict(c)
    internal, _ = _first_internal_leaf_pair(c)
    i = internal[-1]
    left, right = c["left"].copy(), c["right"].copy()
    left[i], right[i] = 0, 1
    c["left"], c["right"] = left, right
    return c


def _self_loop(c):
    c = dict(c)
    left, right = c["left"].copy(), c["right"].copy()
    left[0], right[0] = 0, 1
    c["left"], c["right"] = left, right
    return c


def _child_out_of_range(c):
    c = dict(c)
    internal, _ = _first_internal_leaf_pair(c)
    i = internal[-1]
    n = c["left"].shape[0]
    left, right = c["left"].copy(), c["right"].copy()
    left[i], right[i] = n + 10, n + 11
    c["left"], c["right"] = left, right
    return c


def _child_huge(c):
    c = dict(c)
    left, right = c["left"].copy(), c["right"].copy()
    left[0], right[0] = np.iinfo(np.int32).max - 1, np.iinfo(np.int32).max
    c["left"], c["right"] = left, right
    return c


def _leaf_made_internal(c):
    c = dict(c)
    _, leaf = _first_internal_leaf_pair(c)
    i = leaf[0]
    left, right, feature = c["left"].copy(), c["right"].copy(), c["feature"].copy()
    left[i], right[i], feature[i] = 1, 2, 0
    c["left"], c["right"], c["feature"] = left, right, feature
    return c


def _right_not_left_plus_one(c):
    c = dict(c)
    right = c["right"].copy()
    right[0] = c["left"][0] + 2
    c["right"] = right
    return c


def _swap_children(c):
    c = dict(c)
    left, right = c["left"].copy(), c["right"].copy()
    left[0], right[0] = right[0], left[0]
    c["left"], c["right"] = left, right
    return c


def _drop(name):
    def mutate(c):
        return {k: v for k, v in c.items() if k != name}
    return mutate


def _astype(name, dtype):
    def mutate(c):
        return {**c, name: c[name].astype(dtype)}
    return mutate


def _reshape(name, fn):
    def mutate(c):
        return {**c, name: fn(c[name])}
    return mutate


def _leaf_feature(c):
    _, leaf = _first_internal_leaf_pair(c)
    return _set("feature", leaf[0], 0)(c)


def _leaf_right(c):
    _, leaf = _first_internal_leaf_pair(c)
    return _set("right", leaf[0], 3)(c)


def _depth_wrong(c):
    internal, _ = _first_internal_leaf_pair(c)
    return _set("depth", c["left"][internal[1]], 7)(c)


def _classes_short(c):
    meta = _meta(c)
    meta["classes"]["values"] = meta["classes"]["values"][:-1]
    return {**c, "__meta__": np.array(json.dumps(meta))}


def _classes_long(c):
    meta = _meta(c)
    meta["classes"]["values"] = meta["classes"]["values"] + ["zzz"]
    return {**c, "__meta__": np.array(json.dumps(meta))}


def _classes_2d(c):
    meta = _meta(c)
    meta["classes"]["values"] = [[v] for v in meta["classes"]["values"]]
    return {**c, "__meta__": np.array(json.dumps(meta))}


def _classes_bad_dtype(c):
    meta = _meta(c)
    meta["classes"]["dtype"] = "<M8[ns]"
    return {**c, "__meta__": np.array(json.dumps(meta))}


def _classes_unconvertible(c):
    meta = _meta(c)
    meta["classes"] = {"dtype": "<i8", "values": ["ant", "bee", "cat"]}
    return {**c, "__meta__": np.array(json.dumps(meta))}


def _feature_names_wrong_length(c):
    return _with_meta(c, feature_names=["a", "b"])


def _feature_names_not_str(c):
    n = _meta(c)["n_features"]
    return _with_meta(c, feature_names=list(range(n)))


def _regression_with_classes(c):
    return _with_meta(c, task="regression")


def _value_bad_column_count(c):
    return {**c, "value": np.ascontiguousarray(c["value"][:, :1])}


def _fortran_value(c):
    v = np.asfortranarray(c["value"])
    assert not v.flags.c_contiguous
    return {**c, "value": v}


def _object_array(c):
    return {**c, "threshold": c["threshold"].astype(object)}


def _cat_offset_mismatch(c):
    internal, _ = _first_internal_leaf_pair(c)
    return _set("cat_offset", internal[0], 0)(c)


def _surrogate_ptr_short(c):
    return {**c, "surrogate_ptr": c["surrogate_ptr"][:-1].copy()}


def _surrogate_ptr_nonzero_end(c):
    return _set("surrogate_ptr", -1, 3)(c)


def _n_categories_wrong_length(c):
    return {**c, "n_categories": np.zeros(c["n_categories"].shape[0] + 1, np.int32)}


def _all_nodes_dropped(c):
    out = dict(c)
    for name in ("feature", "threshold", "left", "right", "impurity", "n_node_samples",
                 "weighted_n_node_samples", "depth", "missing_go_left", "cat_offset"):
        out[name] = c[name][:0].copy()
    out["value"] = c["value"][:0].copy()
    out["surrogate_ptr"] = np.zeros(1, np.int64)
    return out


BAD_CONTENTS = {
    "missing_depth": (_drop("depth"), "missing depth"),
    "missing_meta": (_drop("__meta__"), "missing __meta__"),
    "feature_int64": (_astype("feature", np.int64), "feature has dtype int64"),
    "threshold_float32": (_astype("threshold", np.float32), "threshold has dtype float32"),
    "value_float32": (_astype("value", np.float32), "value has dtype float32"),
    "missing_go_left_bool": (_astype("missing_go_left", np.bool_), "missing_go_left has dtype"),
    "object_array": (_object_array, "not a readable fastdt model file"),
    "threshold_short": (_reshape("threshold", lambda a: a[:-1].copy()), "threshold has"),
    "left_2d": (_reshape("left", lambda a: a[:, None].copy()), "left has 2 dimensions"),
    "value_1d": (_reshape("value", lambda a: a[:, 0].copy()), "value has 1 dimensions"),
    "value_fortran": (_fortran_value, "not C-contiguous"),
    "no_nodes": (_all_nodes_dropped, "at least one node"),
    "child_out_of_range": (_child_out_of_range, "left children"),
    "child_huge": (_child_huge, "left children"),
    "cycle_to_root": (_cycle_to_root, "left children"),
    "root_self_loop": (_self_loop, "left children"),
    "leaf_made_internal": (_leaf_made_internal, "left children"),
    "right_not_left_plus_one": (_right_not_left_plus_one, "left children"),
    "children_swapped": (_swap_children, "left children"),
    "leaf_with_feature": (_leaf_feature, "leaves must have"),
    "leaf_with_right_child": (_leaf_right, "leaves must have"),
    "feature_eq_n_features": (_set("feature", 0, 5), "feature ids out of range"),
    "feature_huge": (_set("feature", 0, np.iinfo(np.int32).max), "feature ids out of range"),
    "feature_negative": (_set("feature", 0, -2), "feature ids out of range"),
    "threshold_nan_internal": (_set("threshold", 0, np.nan), "thresholds must be finite"),
    "threshold_minus_inf_internal": (_set("threshold", 0, -np.inf), "finite or \\+inf"),
    "value_nan": (_set("value", (2, 1), np.nan), "value must be finite"),
    "value_inf": (_set("value", (0, 0), -np.inf), "value must be finite"),
    "impurity_nan": (_set("impurity", 1, np.nan), "impurity must not be NaN"),
    "n_node_samples_negative": (_set("n_node_samples", 2, -1), "n_node_samples"),
    "weighted_negative": (_set("weighted_n_node_samples", 0, -1.0), "weighted_n_node_samples"),
    "weighted_nan": (_set("weighted_n_node_samples", 0, np.nan), "weighted_n_node_samples"),
    "root_depth": (_set("depth", 0, 1), "root depth"),
    "child_depth": (_depth_wrong, "child depth"),
    "missing_go_left_2": (_set("missing_go_left", 0, 2), "missing_go_left must be 0 or 1"),
    "cat_offset_at_leaf": (lambda c: _set("cat_offset", _first_internal_leaf_pair(c)[1][0], 0)(c),
                           "cat_offset must be -1 at leaves"),
    "cat_offset_without_categories": (_cat_offset_mismatch, "categorical features only"),
    "cat_offset_below_minus_one": (_set("cat_offset", 0, -5), "cat_offset must be -1"),
    "n_categories_negative": (_set("n_categories", 0, -1), "n_categories must be >= 0"),
    "n_categories_wrong_length": (_n_categories_wrong_length, "n_categories has"),
    "surrogate_ptr_short": (_surrogate_ptr_short, "surrogate_ptr"),
    "surrogate_ptr_end": (_surrogate_ptr_nonzero_end, "surrogate_ptr"),
    "surrogate_ptr_negative_step": (_set("surrogate_ptr", 1, 5), "surrogate_ptr"),
    "surrogate_arrays_mismatch": (lambda c: {**c, "surrogate_threshold": np.zeros(2)},
                                  "surrogate arrays"),
    "format_version_2": (lambda c: _with_meta(c, format_version=2), "format_version 2"),
    "format_version_str": (lambda c: _with_meta(c, format_version="1"), "format_version '1'"),
    "format_version_none": (lambda c: _with_meta(c, format_version=None), "format_version None"),
    "format_version_missing": (lambda c: _with_meta(c, format_version=_DROP), "format_version"),
    "meta_not_json": (lambda c: {**c, "__meta__": np.array("{not json")}, "not valid JSON"),
    "meta_empty": (lambda c: {**c, "__meta__": np.array("")}, "not valid JSON"),
    "meta_json_list": (lambda c: {**c, "__meta__": np.array("[1, 2]")}, "JSON object"),
    "meta_not_string": (lambda c: {**c, "__meta__": np.array(3)}, "one string"),
    "meta_bytes": (lambda c: {**c, "__meta__": np.array(b"{}")}, "one string"),
    "meta_string_array": (lambda c: {**c, "__meta__": np.array([str(c["__meta__"])])},
                          "one string"),
    "meta_lacks_task": (lambda c: _with_meta(c, task=_DROP), "lacks 'task'"),
    "meta_lacks_classes": (lambda c: _with_meta(c, classes=_DROP), "lacks 'classes'"),
    "task_unknown": (lambda c: _with_meta(c, task="clustering"), "task must be one of"),
    "task_list": (lambda c: _with_meta(c, task=["classification"]), "task must be one of"),
    "params_not_object": (lambda c: _with_meta(c, params=[1]), "params"),
    "n_features_str": (lambda c: _with_meta(c, n_features="5"), "n_features must be an integer"),
    "n_features_bool": (lambda c: _with_meta(c, n_features=True), "n_features must be an integer"),
    "n_features_float": (lambda c: _with_meta(c, n_features=5.0), "n_features must be an integer"),
    "n_features_zero": (lambda c: _with_meta(c, n_features=0), "n_features must be at least 1"),
    "n_features_too_small": (lambda c: _with_meta(c, n_features=2), "n_categories has"),
    "n_features_huge": (lambda c: _with_meta(c, n_features=10**30), "n_categories has"),
    "classes_short": (_classes_short, "one class label per value column"),
    "classes_long": (_classes_long, "one class label per value column"),
    "classes_2d": (_classes_2d, "one class label per value column"),
    "classes_none": (lambda c: _with_meta(c, classes=None), "one class label per value column"),
    "classes_not_dict": (lambda c: _with_meta(c, classes=["a", "b", "c"]), "malformed classes"),
    "classes_bad_dtype": (_classes_bad_dtype, "malformed classes"),
    "classes_unconvertible": (_classes_unconvertible, "malformed classes"),
    "value_one_column": (_value_bad_column_count, "one class label per value column"),
    "regression_with_classes": (_regression_with_classes, "regression trees"),
    "feature_names_wrong_length": (_feature_names_wrong_length, "feature_names"),
    "feature_names_not_str": (_feature_names_not_str, "feature_names"),
}


def _write(contents, path):
    np.savez(path, **contents)
    return path


@pytest.mark.parametrize("case", list(BAD_CONTENTS))
def test_load_rejects_inconsistent_file(saved, tmp_path, case):
    _, contents = saved
    mutate, match = BAD_CONTENTS[case]
    path = _write(mutate(contents), tmp_path / "bad.npz")
    with pytest.raises(ValueError, match=match):
        fastdt.load(path)


def test_unmodified_contents_resaved_load(saved, tmp_path):
    path, contents = saved
    assert fastdt.load(_write(contents, tmp_path / "same.npz")) == fastdt.load(path)


def test_load_missing_path_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        fastdt.load(tmp_path / "does_not_exist.npz")


@pytest.mark.parametrize("keep", [0, 1, 10, 100, 0.25, 0.5, 0.9, -1])
def test_load_rejects_truncated_file(saved, tmp_path, keep):
    path, _ = saved
    raw = Path(path).read_bytes()
    n = keep if isinstance(keep, int) and keep >= 0 else (
        len(raw) + keep if isinstance(keep, int) else int(len(raw) * keep))
    bad = tmp_path / "truncated.npz"
    bad.write_bytes(raw[:n])
    with pytest.raises(ValueError, match="not a readable fastdt model file"):
        fastdt.load(bad)


@pytest.mark.parametrize("payload", ["random", "npy", "text", "zip_of_text", "directory"])
def test_load_rejects_non_model_files(tmp_path, payload):
    bad = tmp_path / "bad.npz"
    if payload == "random":
        bad.write_bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes())
        match = "not a readable fastdt model file"
    elif payload == "npy":  # a single array, not an archive
        np.save(tmp_path / "arr.npy", np.arange(10))
        bad = tmp_path / "arr.npy"
        match = "fastdt model file"
    elif payload == "text":
        bad.write_text("hello, I am not a model\n")
        match = "not a readable fastdt model file"
    elif payload == "zip_of_text":
        import zipfile
        with zipfile.ZipFile(bad, "w") as z:
            z.writestr("feature.npy", "garbage")
        match = "fastdt model file"
    else:
        bad = tmp_path / "adir"
        bad.mkdir()
        match = "not a readable fastdt model file"
    with pytest.raises(ValueError, match=match):
        fastdt.load(bad)


def test_load_rejects_zip_with_non_npy_members(tmp_path):
    import zipfile
    bad = tmp_path / "bad.npz"
    with zipfile.ZipFile(bad, "w") as z:
        for name in ("__meta__", *FIELDS):
            z.writestr(name + ".npy", "garbage")
    with pytest.raises(ValueError, match="fastdt model file"):
        fastdt.load(bad)


def test_load_rejects_other_npz(tmp_path):
    path = tmp_path / "other.npz"
    np.savez(path, a=np.arange(3))
    with pytest.raises(ValueError, match="missing __meta__, feature"):
        fastdt.load(path)


# --- validation of semantic invariants --------------------------------------------


@pytest.mark.parametrize("names", [5, 1.5, True])
def test_load_rejects_non_list_feature_names(saved, tmp_path, names):
    _, contents = saved
    path = _write(_with_meta(contents, feature_names=names), tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="feature_names"):
        fastdt.load(path)


def test_load_rejects_string_feature_names(saved, tmp_path):
    _, contents = saved
    n = _meta(contents)["n_features"]
    path = _write(_with_meta(contents, feature_names="abcdefgh"[:n]), tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="feature_names"):
        fastdt.load(path)


@pytest.mark.parametrize("classes", [
    {"dtype": "<i8", "values": [10**30, 1, 2]},
    {"dtype": "|i1", "values": [1000, 1, 2]},
    {"dtype": "|u1", "values": [-1, 1, 2]},
])
def test_load_rejects_class_labels_out_of_dtype_range(saved, tmp_path, classes):
    _, contents = saved
    path = _write(_with_meta(contents, classes=classes), tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="malformed classes"):
        fastdt.load(path)


def test_load_rejects_deeply_nested_metadata(saved, tmp_path):
    _, contents = saved
    deep = "[" * 100_000 + "]" * 100_000
    path = _write({**contents, "__meta__": np.array(deep)}, tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="JSON"):
        fastdt.load(path)


@pytest.mark.parametrize("case", ["leaf_threshold", "value_row_sum", "value_negative"])
def test_load_rejects_semantic_inconsistency(saved, tmp_path, case):
    _, contents = saved
    c = dict(contents)
    leaf = np.flatnonzero(c["left"] == LEAF)
    if case == "leaf_threshold":
        c = _set("threshold", leaf[0], 0.5)(c)
    elif case == "value_row_sum":
        c = _set("value", (leaf[0], 0), 7.0)(c)
    else:
        v = c["value"].copy()
        v[leaf[0], 0] = -1.0
        v[leaf[0], 1] += 1.0 - v[leaf[0]].sum()  # row still sums to 1
        c["value"] = v
    with pytest.raises(ValueError, match="invalid tree"):
        fastdt.load(_write(c, tmp_path / "bad.npz"))


# --- crashes, run in a subprocess ----------------------------------------------------

_CRASH_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    sys.path.insert(0, {repo!r})
    import fastdt
    from fastdt.kernels import leaf_index

    with np.load({path!r}, allow_pickle=False) as data:
        c = {{k: data[k] for k in data.files}}
    internal = c["left"] != -1
    case = {case!r}
    if case == "cat_offset_overflow":
        # off + words wraps around int64 in _validate's bound check
        c["n_categories"] = np.full_like(c["n_categories"], 2**31 - 1)
        off = c["cat_offset"].copy()
        off[internal] = 2**63 - 2**24
        c["cat_offset"] = off
    elif case == "surrogate_ptr_overflow":
        # np.diff(ptr) wraps around, so a decreasing ptr looks non-decreasing
        M = np.iinfo(np.int64).max
        ptr = np.zeros_like(c["surrogate_ptr"])
        ptr[1], ptr[2] = M, -M
        c["surrogate_ptr"] = ptr
    np.savez({out!r}, **c)
    try:
        tree = fastdt.load({out!r})
    except ValueError:
        print("rejected")
        sys.exit(0)
    print("loaded", file=sys.stderr, flush=True)
    X = np.repeat(np.linspace(-3, 3, 8)[:, None], tree.n_features, axis=1)
    fastdt.predict(tree, X)
    x = np.full(tree.n_features, np.nan)  # missing values reach the surrogate route
    leaf_index(tree.arrays, x)
    print("accepted")
    sys.exit(3)
""")


@pytest.mark.parametrize("case", ["cat_offset_overflow", "surrogate_ptr_overflow"])
def test_load_rejects_overflowing_offsets_without_crash(saved, tmp_path, case):
    path, _ = saved
    script = _CRASH_SCRIPT.format(repo=str(REPO), path=str(path), case=case,
                                  out=str(tmp_path / "bad.npz"))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=600, cwd=str(REPO))
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    assert proc.stdout.strip() == "rejected"


# ---------------------------------------------------------------------- fuzzing


def _fuzz_X(n_features, dtype=np.float64):
    rng = np.random.default_rng(123)
    X = rng.normal(scale=2.0, size=(24, n_features))
    X[0] = 0.0
    X[1] = 1e300
    X[2] = -1e300
    X[3] = 0.5
    return X.astype(dtype)


def _exercise(tree):
    """Run every prediction path on a tree that load accepted; return problems found."""
    problems = []
    X = _fuzz_X(tree.n_features)
    n = tree.node_count
    leaves = fastdt.apply(tree, X)
    if leaves.shape != (X.shape[0],) or np.any(leaves < 0) or np.any(leaves >= n):
        problems.append(f"apply returned leaf ids out of range: {leaves}")
        return problems
    if np.any(tree.left[leaves] != LEAF):
        problems.append("apply returned internal nodes")
    pred = fastdt.predict(tree, X)
    if pred.shape[0] != X.shape[0]:
        problems.append("predict has the wrong length")
    if tree.task == "classification":
        proba = fastdt.predict_proba(tree, X)
        if proba.shape != (X.shape[0], tree.classes.shape[0]):
            problems.append("predict_proba has the wrong shape")
    indptr, indices = fastdt.decision_path(tree, X)
    if (indptr.shape[0] != X.shape[0] + 1 or np.any(indices < 0) or np.any(indices >= n)
            or np.any(indices[indptr[:-1]] != 0)
            or not np.array_equal(indices[indptr[1:] - 1], leaves)):
        problems.append("decision_path is inconsistent")
    user = _user_walk(tree.arrays, X) if np.all(tree.cat_offset == -1) else leaves
    if not np.array_equal(user, leaves):
        problems.append("user walk differs from apply")
    return problems


_INT_SPECIALS = [-1, 0, 1, 2, 3, -2, 7, 100, -(2**31), 2**31 - 1, 2**62, -(2**62),
                 2**63 - 1, -(2**63)]
_FLOAT_SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e308, -1e308, 5e-324, 0.5, -1.0,
                   1.0, 2.0]


def _random_value(rng, a):
    kind = a.dtype.kind
    if kind == "f":
        r = rng.random()
        if r < 0.6:
            return _FLOAT_SPECIALS[rng.integers(len(_FLOAT_SPECIALS))]
        return float(rng.normal(scale=10.0 ** rng.integers(0, 10)))
    info = np.iinfo(a.dtype)
    if rng.random() < 0.5:
        v = _INT_SPECIALS[rng.integers(len(_INT_SPECIALS))]
    else:
        v = int(rng.integers(-8, a.shape[0] + 8 if a.ndim == 1 else 16))
    return int(min(max(v, info.min), info.max))


def _mutate_arrays(rng, contents):
    c = dict(contents)
    for _ in range(int(rng.integers(1, 4))):
        name = list(FIELDS)[rng.integers(len(FIELDS))]
        a = c[name].copy()
        op = rng.random()
        if a.size == 0:  # an unused array: give it a few entries
            a = np.array([_random_value(rng, a) for _ in range(int(rng.integers(1, 4)))],
                         dtype=a.dtype)
        elif op < 0.75:
            idx = tuple(int(rng.integers(s)) for s in a.shape)
            a[idx] = _random_value(rng, a)
        elif op < 0.8:  # swap two entries
            i, j = rng.integers(a.shape[0], size=2)
            a[[i, j]] = a[[j, i]]
        elif op < 0.87:  # length change
            a = a[:-1].copy() if (a.shape[0] and rng.random() < 0.5) else np.concatenate([a, a[:1]])
        elif op < 0.93:  # dtype change
            choices = [np.int32, np.int64, np.float64, np.float32, np.uint8, np.uint64]
            with np.errstate(invalid="ignore", over="ignore"):
                a = a.astype(choices[rng.integers(len(choices))])
        else:  # shuffle / reverse entries
            a = a[::-1].copy()
        c[name] = np.ascontiguousarray(a) if a.ndim <= 1 else a
    return c


def _flip_bytes(rng, raw):
    b = bytearray(raw)
    op = rng.random()
    if op < 0.7:
        for _ in range(int(rng.integers(1, 6))):
            b[int(rng.integers(len(b)))] ^= 1 << int(rng.integers(8))
    elif op < 0.85:
        pos = int(rng.integers(len(b)))
        b[pos:pos + 8] = rng.integers(0, 256, 8, dtype=np.uint8).tobytes()
    else:
        b = b[:int(rng.integers(len(b)))]
    return bytes(b)


def _try(path, label, outcomes):
    try:
        tree = fastdt.load(path)
    except ValueError:
        outcomes["rejected"] += 1
        return
    except Exception as exc:  # noqa: BLE001 - the point is to report anything else
        outcomes["failures"].append(f"{label}: load raised {type(exc).__name__}: {exc}")
        return
    outcomes["accepted"] += 1
    try:
        problems = _exercise(tree)
    except Exception as exc:  # noqa: BLE001
        problems = [f"predicting raised {type(exc).__name__}: {exc}"]
    outcomes["failures"].extend(f"{label}: {p}" for p in problems)


def run_fuzz(model_path, workdir, *, n_bytes=300, n_arrays=300, seed=20240607):
    """Load mutated copies of ``model_path``: flipped bytes of the raw file, and random
    entries of random arrays re-saved. Returns counts and the list of failures."""
    rng = np.random.default_rng(seed)
    raw = Path(model_path).read_bytes()
    with np.load(model_path, allow_pickle=False) as data:
        contents = {k: data[k] for k in data.files}
    outcomes = {"accepted": 0, "rejected": 0, "failures": []}
    workdir = Path(workdir)
    for i in range(n_bytes):
        path = workdir / "flip.npz"
        path.write_bytes(_flip_bytes(rng, raw))
        _try(path, f"byte mutation {i}", outcomes)
    for i in range(n_arrays):
        c = _mutate_arrays(rng, contents)
        changed = [k for k in FIELDS if c[k] is not contents[k]]
        path = workdir / "arrays.npz"
        np.savez(path, **c)
        _try(path, f"array mutation {i} of {changed}", outcomes)
    return outcomes


_FUZZ_SCRIPT = textwrap.dedent("""
    import sys
    sys.path[:0] = [{repo!r}, {tests!r}]
    import test_tree
    out = test_tree.run_fuzz({path!r}, {workdir!r}, n_bytes={n_bytes}, n_arrays={n_arrays})
    print(out["accepted"], out["rejected"], len(out["failures"]))
    for f in out["failures"]:
        print(f)
    sys.exit(1 if out["failures"] else 0)
""")


@pytest.fixture(scope="module", params=["clf_str", "reg"])
def fuzz_model(request, tmp_path_factory):
    tree, _ = _fit_kind(request.param)
    path = tmp_path_factory.mktemp(f"fuzz_{request.param}") / "model.npz"
    tree.save(path)
    return path


@pytest.mark.slow
def test_fuzz_in_subprocess(fuzz_model, tmp_path):
    """Same fuzz as below, in a child process: a segfault fails this test instead of
    killing pytest. (Runs first, so that a crash is seen here.)"""
    script = _FUZZ_SCRIPT.format(repo=str(REPO), tests=str(TESTS), path=str(fuzz_model),
                                 workdir=str(tmp_path), n_bytes=300, n_arrays=300)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=900, cwd=str(REPO))
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-4000:], proc.stderr[-4000:])
    accepted, rejected, n_fail = map(int, proc.stdout.split("\n")[0].split())
    assert n_fail == 0
    assert accepted + rejected == 600
    assert rejected > 0


@pytest.mark.slow
def test_fuzz_in_process(fuzz_model, tmp_path):
    out = run_fuzz(fuzz_model, tmp_path, n_bytes=300, n_arrays=300)
    assert not out["failures"], "\n".join(out["failures"][:50])
    assert out["accepted"] + out["rejected"] == 600
    # both outcomes happen: the fuzz is neither all-harmless nor all-fatal
    assert out["rejected"] > 100
    assert out["accepted"] > 10


def _mutate_meta(rng, contents):
    meta = _meta(contents)
    junk = [None, -1, 0, 1, 10**30, -(10**30), 1.5, float("nan"), "x", "", [], {}, [1, 2],
            True, {"dtype": "<i8", "values": [10**30]}, {"dtype": "|u1", "values": [-1]},
            {"dtype": "object", "values": [[1], [2]]}, 5, "abc", ["a"] * 5]
    key = list(meta)[rng.integers(len(meta))]
    meta[key] = junk[rng.integers(len(junk))]
    return {**contents, "__meta__": np.array(json.dumps(meta))}


def test_fuzz_metadata(saved, tmp_path):
    _, contents = saved
    rng = np.random.default_rng(7)
    outcomes = {"accepted": 0, "rejected": 0, "failures": []}
    for i in range(300):
        path = tmp_path / "meta.npz"
        np.savez(path, **_mutate_meta(rng, contents))
        _try(path, f"metadata mutation {i}", outcomes)
    assert not outcomes["failures"], "\n".join(outcomes["failures"][:50])


# ------------------------------------------------------- the batch kernels' routing


def _routing_trees():
    """Trees with every kind of split and missing route: numeric with NaN learned,
    categorical bitsets, surrogates, multiway (C4.5); and rows that take each route
    (NaN, codes out of range or never seen)."""
    rng = np.random.default_rng(3)
    n = 400
    X = rng.normal(size=(n, 4))
    X[:, 2] = rng.integers(0, 6, n)  # a categorical feature
    y = ((X[:, 0] > 0) ^ (X[:, 2] % 2 == 0)).astype(np.int64)
    Xm = X.copy()
    Xm[rng.random(X.shape) < 0.15] = np.nan
    trees = [fastdt.fit(Xm, y, categorical_features=[2], random_state=0),
             fastdt.fit(Xm, X[:, 1], categorical_features=[2], max_depth=6, random_state=0),
             fastdt.fit(Xm, y, missing="surrogate", max_depth=6, random_state=0),
             fastdt.fit(Xm, y, missing="surrogate", categorical_features=[2], max_depth=6,
                        random_state=0),
             fastdt.fit(np.column_stack([Xm[:, :3], np.abs(np.round(Xm[:, 3]))]), y,
                        algorithm="c4.5", categorical_features=[2, 3])]
    rows = np.vstack([Xm, rng.normal(scale=3.0, size=(100, 4))])
    rows[-100:, 2] = rng.integers(-2, 9, 100)  # codes below, inside and beyond the range
    rows[-50:, 3] = np.round(rows[-50:, 3]) * 7  # multiway codes never seen
    return trees, np.ascontiguousarray(rows)


@numba.njit
def _user_paths(t, X, indptr):
    out = np.empty(indptr[-1], dtype=np.int64)
    for i in range(X.shape[0]):
        p = indptr[i]
        node = np.int64(0)
        out[p] = node
        while t.left[node] != LEAF:
            node = fastdt.kernels.child(t, node, X[i])
            p += 1
            out[p] = node
    return out


def test_batch_kernels_route_as_leaf_index():
    """``apply_batch`` (and ``value_batch``, ``decision_path_batch``, the forest batch
    kernels over it) writes the routing of ``child`` out; each must send every row where
    ``leaf_index`` and ``child`` do."""
    from fastdt.ensemble.kernels import forest_apply_batch, forest_value_batch
    from fastdt.kernels import apply_batch, decision_path_batch, value_batch

    trees, X = _routing_trees()
    kinds = set()
    for tree in trees:
        a = tree.arrays
        kinds |= {"categorical" if (a.cat_offset >= 0).any() else "numeric",
                  "surrogate" if a.surrogate_ptr[-1] else "no surrogate",
                  "multiway" if ((a.cat_offset < 0) & (a.left != LEAF)
                                 & (a.n_categories[a.feature] > 0)).any() else "binary"}
        for Xd in (X, X.astype(np.float32)):
            expected = _user_leaf_index(a, Xd)
            out = np.empty(Xd.shape[0], dtype=np.int64)
            apply_batch(a, Xd, out)
            np.testing.assert_array_equal(out, expected)
            vals = np.empty((Xd.shape[0], tree.n_values))
            value_batch(a, Xd, vals)
            np.testing.assert_array_equal(vals, tree.value[expected])
            indptr = np.zeros(Xd.shape[0] + 1, dtype=np.int64)
            np.cumsum(tree.depth[expected].astype(np.int64) + 1, out=indptr[1:])
            indices = np.empty(indptr[-1], dtype=np.int64)
            decision_path_batch(a, Xd, indptr, indices)
            np.testing.assert_array_equal(indices, _user_paths(a, Xd, indptr))
    assert kinds == {"categorical", "numeric", "surrogate", "no surrogate", "multiway",
                     "binary"}
    forest = fastdt.fit_forest(np.where(np.isnan(X[:400]), 0.0, X[:400]),
                               np.arange(400) % 2, n_estimators=3, random_state=0)
    out = np.empty((X.shape[0], 3), dtype=np.int64)
    forest_apply_batch(forest.arrays, forest.offsets, X, out)
    vals = np.empty((X.shape[0], forest.value.shape[1]))
    forest_value_batch(forest.arrays, forest.offsets, X, vals)
    expected = np.zeros_like(vals)
    for i in range(3):
        t = forest.tree(i)
        leaf = _user_leaf_index(t.arrays, X)
        np.testing.assert_array_equal(out[:, i], leaf)
        expected += t.value[leaf]
    np.testing.assert_allclose(vals, expected / 3, rtol=0, atol=1e-15)


# ---------------------------------------------------------------------- bfs order


def _random_tree(rng, n_splits, multiway):
    """left/right of a tree grown by splitting random leaves (children numbered as made,
    two each, or 2-4 when ``multiway``); node 0 is the root."""
    left, right, leaves = [-1], [-1], [0]
    for _ in range(n_splits):
        node = leaves.pop(int(rng.integers(len(leaves))))
        k = int(rng.integers(2, 5)) if multiway else 2
        left[node], right[node] = len(left), len(left) + k - 1
        leaves += range(len(left), len(left) + k)
        left += [-1] * k
        right += [-1] * k
    return np.array(left, dtype=np.int64), np.array(right, dtype=np.int64)


def _bfs_by_definition(left, right):
    """Nodes by depth, then by their order within the level (a queue, one node a step)."""
    order, queue = [], [0]
    while queue:
        node = queue.pop(0)
        order.append(node)
        if left[node] != -1:
            queue += range(left[node], right[node] + 1)
    return order


@pytest.mark.parametrize("multiway", [False, True])
def test_bfs_order_is_breadth_first_on_both_paths(monkeypatch, multiway):
    """``bfs_order`` walks a list for small trees and goes level by level with numpy for
    larger ones: both give the breadth-first order."""
    from fastdt import tree as tree_module

    rng = np.random.default_rng(5)
    for n_splits in (0, 1, 2, 7, 30, 120, 400):
        left, right = _random_tree(rng, n_splits, multiway)
        expected = _bfs_by_definition(left, right)
        for small in (10**9, -1):  # every tree walked as a list, then none
            monkeypatch.setattr(tree_module, "_SMALL_BFS", small)
            got = tree_module.bfs_order(left, right)
            assert got.dtype == np.int64
            assert got.tolist() == expected
    assert expected != sorted(expected)  # the ids of a random tree are not breadth-first

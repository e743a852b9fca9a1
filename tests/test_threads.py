"""The work that runs on threads: how it is cut into tasks, and that no cut changes a
result (fastdt._parallel, the exact splitter's node groups, presort and binning).

The fits here are small: ``threaded`` lowers the work below which kernels run on the
calling thread to nothing and asks for many tasks, so that every cut is exercised on
the machine's threads (two on CI), and the results are compared with one thread.
"""

import numpy as np
import pytest

import fastdt
from fastdt import _exact, _parallel


@pytest.fixture
def threaded(monkeypatch):
    """Every kernel call on every thread numba has, in many small tasks."""
    monkeypatch.setattr(_parallel, "SERIAL_WORK", 0)
    monkeypatch.setattr(_exact, "TASKS_PER_THREAD", 64)
    monkeypatch.setattr(_exact, "MIN_GROUP_ROWS", 1)


@pytest.mark.parametrize("n,k", [(1, 1), (1, 4), (7, 2), (20, 2), (20, 16), (100, 3),
                                 (1_000_000, 2), (1_000_000, 16)])
def test_tasks_cover_the_range_largest_first(n, k):
    tasks = _parallel._tasks(n, k)
    assert tasks[0][0] == 0 and tasks[-1][1] == n
    assert all(a < b for a, b in tasks)
    assert all(tasks[i][1] == tasks[i + 1][0] for i in range(len(tasks) - 1))
    sizes = [b - a for a, b in tasks]
    assert sizes[:-1] == sorted(sizes[:-1], reverse=True)  # guided: the last may be cut
    assert sizes[0] <= max(1, -(-n // (2 * k)))  # no thread gets more than its share
    assert len(tasks) <= 16 * k + 1


@pytest.mark.parametrize("threads", [1, 2, 16])
def test_a_call_wakes_the_threads_its_work_pays_for(monkeypatch, threads):
    # one thread per SERIAL_WORK values read, at least one, at most numba's threads
    monkeypatch.setattr(_parallel.numba, "get_num_threads", lambda: threads)
    per = _parallel.SERIAL_WORK
    assert _parallel.n_threads(0) == 1
    assert _parallel.n_threads(per - 1) == 1
    assert _parallel.n_threads(per) == 1
    assert _parallel.n_threads(2 * per) == min(2, threads)
    assert _parallel.n_threads(5 * per + per // 2) == min(5, threads)
    assert _parallel.n_threads(np.int64(40 * per)) == threads
    assert _parallel.n_threads(10**12) == threads
    monkeypatch.setattr(_parallel, "SERIAL_WORK", 0)  # the tests' "every thread"
    assert _parallel.n_threads(threads) == threads


@pytest.mark.parametrize("per_thread", [None, 1, 2])
def test_row_blocks_tile_the_rows(monkeypatch, per_thread):
    # guided blocks by default; per_thread: that many equal blocks a thread
    monkeypatch.setattr(_parallel.numba, "get_num_threads", lambda: 2)
    seen = []
    X = np.arange(1003.0)[:, None]
    out = _parallel.run_rows(lambda X_b: seen.append((X_b[0, 0], X_b.shape[0])) or X_b.shape[0],
                             X.shape[0], 10**9, (), X, per_thread=per_thread)
    assert sum(out) == 1003
    starts = sorted(seen)
    assert starts[0][0] == 0 and all(a + n == b for (a, n), (b, _) in zip(starts, starts[1:]))
    if per_thread is None:
        assert len(seen) > 4
    else:
        sizes = [n for _, n in seen]
        assert len(sizes) == 2 * per_thread and max(sizes) - min(sizes) <= 1


def test_missing_counted_on_threads_only_for_large_X(monkeypatch):
    # numpy's pass costs a sixteenth of a kernel's read a value: X.size // _CHEAP is
    # the work reported; the counts are the same however the rows are cut
    from fastdt import _validate

    monkeypatch.setattr(_parallel.numba, "get_num_threads", lambda: 2)
    cuts, count = [], _validate._count_block
    monkeypatch.setattr(_validate, "_count_block",
                        lambda X_b: cuts.append(X_b.shape[0]) or count(X_b))
    X = np.zeros((40_000, 20))  # 800,000 values: on the calling thread
    X[5, 3], X[39_999, 0], X[20_000, 19] = np.nan, np.inf, -np.inf
    assert _validate.count_missing(X) == (1, 2) and cuts == [40_000]
    X = np.zeros((100_000, 20))  # 2 M values: on both threads
    X[0, 0], X[50_000, 1], X[99_999, 19] = np.nan, np.nan, np.inf
    cuts.clear()
    assert _validate.count_missing(X) == (2, 1) and len(cuts) > 2 and sum(cuts) == 100_000


def test_prediction_on_threads_from_its_steps(monkeypatch):
    # a prediction's work is its rows times the tree's depth over STEPS_A_VALUE; the
    # leaves are the same on one thread and on two
    from fastdt import _predict

    monkeypatch.setattr(_parallel.numba, "get_num_threads", lambda: 2)
    shared, share = [], _parallel._share
    monkeypatch.setattr(_parallel, "_share",
                        lambda call, tasks, k: shared.append(k) or share(call, tasks, k))
    rng = np.random.default_rng(0)
    tree = fastdt.fit(rng.normal(size=(2000, 4)), rng.random(2000) > 0.5, max_depth=8)
    depth = tree.max_depth
    few = 2 * _parallel.SERIAL_WORK * _predict.STEPS_A_VALUE // depth - 1
    X = rng.normal(size=(2 * few, 4))
    for n, threads in ((few, []), (2 * few, [2])):
        shared.clear()
        leaves = fastdt.apply(tree, X[:n])
        assert shared == threads
        with monkeypatch.context() as m:
            m.setattr(_parallel.numba, "get_num_threads", lambda: 1)
            np.testing.assert_array_equal(leaves, fastdt.apply(tree, X[:n]))


def _random_level(rng, n, m):
    """A level of the exact splitter: ``m`` split nodes' ranges tiling part of [0, n)
    (with leaves between them), and the open children inside them."""
    cuts = np.sort(rng.choice(np.arange(1, n), size=2 * m, replace=False))
    part = np.stack([cuts[0::2], cuts[1::2], np.arange(m)], axis=1).astype(np.int64)
    scan = []
    for a, b, _ in part:
        mid = rng.integers(a, b + 1)
        scan += [r for r in ((a, mid), (mid, b)) if r[1] > r[0] and rng.random() < 0.8]
    return part, np.array(scan, dtype=np.int64).reshape(-1, 2)


@pytest.mark.parametrize("seed", range(20))
def test_node_groups_scan_only_what_they_partition(seed, monkeypatch):
    monkeypatch.setattr(_exact, "MIN_GROUP_ROWS", 1)
    rng = np.random.default_rng(seed)
    part, scan = _random_level(rng, 10_000, int(rng.integers(1, 40)))
    cuts = _exact.node_groups(part, scan, n_features=3, threads=int(rng.integers(1, 17)))
    assert cuts[0].tolist() == [0, 0] and cuts[-1].tolist() == [part.shape[0], scan.shape[0]]
    assert (np.diff(cuts, axis=0) >= 0).all() and (np.diff(cuts[:, 0]) > 0).all()
    for g in range(cuts.shape[0] - 1):
        ranges = part[cuts[g, 0]:cuts[g + 1, 0]]
        for a, b in scan[cuts[g, 1]:cuts[g + 1, 1]]:
            assert ((ranges[:, 0] <= a) & (b <= ranges[:, 1])).any()


def test_node_groups_fall_back_to_one():
    rng = np.random.default_rng(0)
    part, scan = _random_level(rng, 1_000_000, 30)
    whole = [[0, 0], [part.shape[0], scan.shape[0]]]
    assert _exact.node_groups(part, scan, 20, threads=16).shape[0] > 2
    assert _exact.node_groups(part, scan, 20, threads=2).tolist() == whole  # 20 tasks do
    assert _exact.node_groups(part, scan, 20, 16, nested=False).tolist() == whole
    assert _exact.node_groups(part[::-1], scan, 20, 16).tolist() == whole
    assert _exact.node_groups(part[:0], scan[:1], 20, 16).tolist() == [[0, 0], [0, 1]]


def _data(n=6000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6)).astype(np.float32)
    X[:, 5] = rng.integers(0, 5, n)
    y = ((X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n)) > 0).astype(int)
    return X, y, rng


@pytest.mark.parametrize("params", [
    {},
    {"criterion": "entropy", "max_leaf_nodes": 40},
    {"weighted": True},
    {"regression": True},
    {"regression": True, "criterion": "absolute_error", "max_depth": 5},
    {"outputs": 2},
    {"categorical_features": [5]},
    {"missing": "learn"},
    {"missing": "surrogate"},
    {"missing": "fractional"},
    {"monotonic_cst": [1, 0, 0, 0, 0, 0]},
    {"splitter": "random", "random_state": 3},
    {"max_features": 2, "random_state": 1},
    {"splitter": "hist"},
    {"splitter": "hist", "missing": "learn", "weighted": True},
    {"splitter": "hist", "regression": True},
    {"splitter": "hist", "categorical_features": [5], "max_depth": 10},
])
def test_every_cut_grows_the_same_tree(threaded, on_each_thread_count, params):
    X, y, rng = _data()
    params = dict(params)
    kw = {"max_depth": params.pop("max_depth", 8)}
    if params.pop("weighted", False):
        kw["sample_weight"] = rng.uniform(0.5, 2.0, y.shape[0])
    if params.pop("regression", False):
        y = X[:, 0] * 2 + rng.normal(size=y.shape[0])
    k = params.pop("outputs", 1)
    if k > 1:
        y = np.stack([y, (X[:, 3] > 0).astype(int)], axis=1)
    if params.get("missing"):
        X = X.copy()
        X[rng.random(X.shape) < 0.1] = np.nan
    one, many = on_each_thread_count(lambda: fastdt.fit(X, y, **kw, **params))
    assert one.node_count > 20
    assert many == one


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("weighted", [False, True])
def test_presort_is_a_stable_sort_of_every_feature(threaded, dtype, weighted):
    """The layout against numpy's stable sorts: ids sorted by value with ties in the
    order of (target, weight), NaN last, -0.0 read as 0.0, values of every width (the
    radix sort packs a key and its position in one word when the varying bits fit)."""
    rng = np.random.default_rng(5)
    n = 3000
    X = rng.normal(size=(n, 7)).astype(dtype)
    X[:, 1] = np.round(X[:, 1] * 3)  # ties
    X[:, 2] = 5.0  # constant
    X[rng.random(n) < 0.2, 3] = np.nan
    X[::4, 4], X[1::4, 4] = -0.0, 0.0
    X[:, 5] = rng.integers(0, 2**20, n)
    X[:, 6] *= 1e30
    y = rng.integers(0, 3, n)
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    idx, xs, ys, ws = _exact.presort(X, y, w)  # on every thread
    base = np.lexsort([y] if w is None else [w, y])  # ties: by target, then weight
    for f in range(X.shape[1]):
        col = X[base, f].astype(np.float64) + 0.0
        col[np.isnan(col)] = np.inf  # NaN sorts last (no value here is inf)
        order = base[np.argsort(col, kind="stable")]
        np.testing.assert_array_equal(idx[f], order)
        np.testing.assert_array_equal(xs[f], X[order, f] + dtype(0.0))
        assert not np.signbit(xs[f][xs[f] == 0]).any()
        np.testing.assert_array_equal(ys[f], y[order])
        if w is not None:
            np.testing.assert_array_equal(ws[f], w[order])
    assert ws.shape == ((7, n) if weighted else (7, 0))


def test_binning_is_the_same_on_every_thread_count(threaded, on_each_thread_count):
    from fastdt._binning import bin_data

    rng = np.random.default_rng(2)
    X = rng.normal(size=(5000, 5))
    X[:, 1] = np.round(X[:, 1])
    X[::7, 2] = np.nan
    cats = np.array([0, 0, 0, 0, 3], dtype=np.int32)
    X[:, 4] = rng.integers(0, 3, 5000)
    for sub in (10**6, 1000):
        one, many = on_each_thread_count(lambda: bin_data(X, 31, sub, 0, cats))
        for a, b in zip(many, one):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("k", [1, 2, 16])
def test_large_nodes_are_cut_in_pieces_that_tile_them(k):
    from fastdt._hist import _pieces

    part = np.array([[0, 1000, 7], [1000, 1003, 8], [1500, 1900, 9]], dtype=np.int64)
    pieces, cut = _pieces(part, 1403, k)
    for m in range(3):
        mine = pieces[pieces[:, 2] == m]
        assert mine[0, 0] == part[m, 0] and mine[-1, 1] == part[m, 1]
        assert (mine[1:, 0] == mine[:-1, 1]).all() and (mine[:, 1] > mine[:, 0]).all()
        assert cut[m] == (mine.shape[0] > 1)
    assert cut.tolist() == [k > 1, False, k > 1]  # nodes of at least 1403 / (2k) rows


@pytest.mark.parametrize("params", [
    {"algorithm": "c4.5"},
    {"algorithm": "c4.5", "error_estimate": "j48", "weighted": True},
    {"algorithm": "c4.5", "prune": False},
    {"algorithm": "id3"},
])
def test_multiway_trees_are_the_same_on_every_thread_count(threaded, on_each_thread_count,
                                                          params):
    X, y, rng = _data()
    params = dict(params)
    X = X.astype(np.float64)
    X[rng.random(X.shape) < 0.05] = np.nan  # fractional cases
    kw = {"categorical_features": [5]}
    if params.pop("weighted", False):
        kw["sample_weight"] = rng.uniform(0.5, 2.0, y.shape[0])
    if params["algorithm"] == "id3":  # nominal features only
        X = np.column_stack([np.floor(X[:, :3] * 2).clip(-3, 2) + 3, X[:, 5]])
        kw = {"categorical_features": [0, 1, 2, 3], "max_depth": 5}
    one, many = on_each_thread_count(lambda: fastdt.fit(X, y, **kw, **params))
    assert one.node_count > 20 and one.is_multiway.any()
    assert many == one


@pytest.mark.parametrize("params", [{}, {"categorical_features": [5]}, {"missing": "learn"}])
def test_forest_predictions_are_the_same_on_every_thread_count(threaded, on_each_thread_count,
                                                               params):
    # the rows are cut in blocks that each walk every tree (numeric-only forests and rows
    # without NaN: the branch-free kernels; the others: the general ones)
    X, y, _ = _data(n=2003)
    if "missing" in params:
        X[::9, 0] = np.nan
    forest = fastdt.fit_forest(X, y, n_estimators=5, random_state=0, **params)
    one, many = on_each_thread_count(lambda: (fastdt.predict_proba(forest, X),
                                              fastdt.apply(forest, X)))
    for a, b in zip(one, many):
        np.testing.assert_array_equal(a, b)
    assert one[1].shape == (2003, 5)

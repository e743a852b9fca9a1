"""The histogram splitter: binning, Dataset, parity with the exact splitter."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdt
from fastdt import Dataset
from fastdt._binning import feature_bins

INT_FIELDS = ("feature", "left", "right", "n_node_samples", "depth", "missing_go_left")


def assert_identical(a, b, value_tol=0.0):
    """Two trees with the same nodes, thresholds and (to ``value_tol``) values."""
    assert a.node_count == b.node_count
    for name in INT_FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_allclose(a.value, b.value, rtol=value_tol, atol=value_tol)
    np.testing.assert_allclose(a.impurity, b.impurity, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.weighted_n_node_samples, b.weighted_n_node_samples,
                               rtol=1e-12)


def coarse_data(n=600, n_features=5, seed=0, decimals=1, dtype=np.float64):
    """Data with few distinct values per feature (fewer than 255)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.standard_normal((n, n_features)), decimals).astype(dtype)
    score = X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.standard_normal(n)
    y_clf = np.digitize(score, [-0.5, 0.7])  # three classes
    y_reg = np.round(2 * score)  # integer targets: every sum is exact
    return X, y_clf, y_reg


# --------------------------------------------------------------------- binning


def test_one_bin_per_distinct_value():
    x = np.array([3.0, 1.0, 2.0, 2.0, 1.0, 5.0])
    ds = Dataset(x[:, None])
    assert ds.n_bins.tolist() == [4]
    np.testing.assert_array_equal(ds.codes[0], [2, 0, 1, 1, 0, 3])
    np.testing.assert_array_equal(ds.bin_lo[0], [1, 2, 3, 5])
    np.testing.assert_array_equal(ds.bin_hi[0], [1, 2, 3, 5])
    assert ds.codes.dtype == np.uint8


def test_values_closer_than_feature_threshold_share_a_bin():
    x = np.array([1.0, 1.0 + 5e-8, 2.0, 2.0 + 2e-7])
    ds = Dataset(x[:, None])
    assert ds.n_bins.tolist() == [3]
    np.testing.assert_array_equal(ds.codes[0], [0, 0, 1, 2])


def test_constant_feature_has_one_bin():
    X = np.column_stack([np.full(50, 7.0), np.arange(50.0)])
    ds = Dataset(X)
    assert ds.n_bins.tolist() == [1, 50]
    assert not ds.codes[0].any()
    tree = fastdt.fit(ds, (np.arange(50) > 20).astype(int))
    assert 0 not in tree.feature[tree.feature >= 0]


def test_quantile_bins_hold_about_equal_counts():
    x = np.random.default_rng(1).standard_normal(20_000)
    ds = Dataset(x[:, None], max_bins=16)
    assert ds.n_bins[0] == 16
    counts = np.bincount(ds.codes[0], minlength=16)
    assert counts.min() > 0.8 * 20_000 / 16 and counts.max() < 1.2 * 20_000 / 16
    # bins are ordered and hold the values between their lo and hi
    assert np.all(ds.bin_hi[0][:-1] < ds.bin_lo[0][1:])
    np.testing.assert_array_equal(ds.bin_lo[0][ds.codes[0]] <= x, True)
    np.testing.assert_array_equal(x <= ds.bin_hi[0][ds.codes[0]], True)


def test_feature_bins_heavy_value_keeps_its_own_bin():
    v = np.sort(np.r_[np.zeros(900), np.arange(1, 101.0)])
    lo, hi, exact = feature_bins(v, 10)
    assert not exact
    assert lo[0] == 0.0 and hi[0] == 0.0  # the heavy value alone
    assert np.all(hi[:-1] < lo[1:])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uint16_codes_for_many_bins(dtype):
    rng = np.random.default_rng(2)
    X = rng.integers(0, 1000, size=(5000, 2)).astype(dtype)
    y = (X[:, 0] + 0.3 * X[:, 1] + rng.normal(0, 200, 5000) > 650).astype(int)
    ds = Dataset(X, max_bins=1024)
    assert ds.codes.dtype == np.uint16
    assert ds.n_bins.max() <= 1000
    assert_identical(fastdt.fit(ds, y, max_depth=6), fastdt.fit(X, y, max_depth=6))


def test_sample_missing_values_are_binned_again():
    """With max_bins >= distinct values, a value the bin-finding sample missed still
    gets its own bin (else hist would differ from exact)."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 40, 3000).astype(float)
    x[17] = 12.5  # one rare value
    X = np.column_stack([x, rng.standard_normal(3000)])
    y = (x > 12.2).astype(int)
    ds = Dataset(X, max_bins=64, subsample=500)  # the sample almost surely misses row 17
    assert ds.n_bins[0] == 41
    assert_identical(fastdt.fit(ds, y, max_depth=3), fastdt.fit(X, y, max_depth=3))


def test_every_training_row_stays_on_its_side_at_predict_time():
    """Thresholds are real values between bins: apply() on the raw rows reproduces the
    node counts of the fit, even when bin edges come from a small sample."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((20_000, 4)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] ** 2 + 0.3 * rng.standard_normal(20_000) > 0.8).astype(int)
    for max_bins in (4, 32, 255):
        ds = Dataset(X, max_bins=max_bins, subsample=1000)
        tree = fastdt.fit(ds, y)
        leaves = fastdt.apply(tree, X)
        counts = np.bincount(leaves, minlength=tree.node_count)
        is_leaf = tree.left == fastdt.LEAF
        np.testing.assert_array_equal(counts[is_leaf], tree.n_node_samples[is_leaf])
        # an unlimited tree on distinct rows fits the training data exactly
        if max_bins == 255:
            assert np.mean(fastdt.predict(tree, X) == y) > 0.99


# --------------------------------------------------------------------- parity with exact


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("criterion", ["gini", "entropy", "gain_ratio"])
@pytest.mark.parametrize("params", [
    {}, {"max_depth": 3}, {"min_samples_leaf": 7}, {"min_samples_split": 30},
    {"max_leaf_nodes": 9}, {"max_features": 2, "random_state": 0},
    {"min_impurity_decrease": 0.01}, {"min_weight_fraction_leaf": 0.05},
])
def test_hist_equals_exact_classification(dtype, criterion, params):
    X, y, _ = coarse_data(dtype=dtype)
    exact = fastdt.fit(X, y, criterion=criterion, **params)
    hist = fastdt.fit(X, y, criterion=criterion, splitter="hist", **params)
    assert_identical(hist, exact)


@pytest.mark.parametrize("criterion", ["squared_error", "poisson"])
@pytest.mark.parametrize("params", [{}, {"max_depth": 4}, {"max_leaf_nodes": 12},
                                    {"min_samples_leaf": 5}])
def test_hist_equals_exact_regression(criterion, params):
    X, _, y = coarse_data(seed=5)
    if criterion == "poisson":
        y = y - y.min()
    exact = fastdt.fit(X, y, criterion=criterion, **params)
    hist = fastdt.fit(X, y, criterion=criterion, splitter="hist", **params)
    assert_identical(hist, exact, value_tol=1e-12)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_hist_equals_exact_with_integer_weights(task):
    X, y_clf, y_reg = coarse_data(seed=6)
    y = y_clf if task == "classification" else y_reg
    w = np.random.default_rng(6).integers(0, 4, y.shape[0]).astype(float)  # zeros too
    exact = fastdt.fit(X, y, sample_weight=w, task=task, max_depth=6)
    hist = fastdt.fit(X, y, sample_weight=w, task=task, max_depth=6, splitter="hist")
    assert_identical(hist, exact, value_tol=1e-12)


def test_hist_equals_exact_with_class_weight():
    X, y, _ = coarse_data(seed=7)
    cw = {0: 1.0, 1: 2.0, 2: 4.0}
    exact = fastdt.fit(X, y, class_weight=cw, max_depth=5)
    hist = fastdt.fit(X, y, class_weight=cw, max_depth=5, splitter="hist")
    assert_identical(hist, exact, value_tol=1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 120), n_features=st.integers(1, 4),
       levels=st.integers(1, 12), depth=st.one_of(st.none(), st.integers(1, 5)),
       msl=st.integers(1, 4))
def test_hist_equals_exact_property(seed, n, n_features, levels, depth, msl):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, n_features)).astype(np.float64)
    y = rng.integers(0, 3, size=n)
    exact = fastdt.fit(X, y, max_depth=depth, min_samples_leaf=msl)
    hist = fastdt.fit(X, y, max_depth=depth, min_samples_leaf=msl, splitter="hist")
    assert_identical(hist, exact)


def test_pool_exhaustion_falls_back_to_building_from_rows(monkeypatch):
    """With room for two histograms only, nodes are built from rows: same tree."""
    import fastdt._hist

    X, y, _ = coarse_data(n=3000, seed=8)
    full = fastdt.fit(X, y, splitter="hist", max_bins=16)
    monkeypatch.setattr(fastdt._hist, "HIST_POOL_BYTES", 1)
    tight = fastdt.fit(X, y, splitter="hist", max_bins=16)
    assert_identical(tight, full)


def _plan_reference(node, left, right, nns, start, end, is_open, keep_rows, slot, free):
    """The histogram plan in numpy, as :func:`plan_builds` documents it (``free``: a
    list, the stack's top last; ``slot`` updated in place)."""
    ps = slot[node]
    slot[node] = -1
    lc, rc = left[node], right[node]
    left_small = nns[lc] <= nns[rc]
    small, large = np.where(left_small, lc, rc), np.where(left_small, rc, lc)
    has = ps >= 0
    keep_large = has & (is_open[large] == 1) & (nns[large] >= keep_rows)
    keep_small = has & (is_open[small] == 1) & (nns[small] >= keep_rows)
    free.extend(ps[has & ~keep_large & ~keep_small].tolist())
    sub = np.flatnonzero(keep_large & keep_small)  # smaller children needing a slot
    k = min(sub.shape[0], len(free))
    new = np.array(free[len(free) - k:][::-1], dtype=np.int64)
    del free[len(free) - k:]
    got, full = sub[:k], sub[k:]
    slot[large[keep_large]] = ps[keep_large]
    slot[small[got]] = new
    dst = np.full(node.shape[0], -1)  # smaller children not kept: rows subtracted only
    dst[got] = new
    has_slot = np.isin(np.arange(node.shape[0]), got)
    first = np.flatnonzero(keep_large & (~keep_small | has_slot))
    alone = np.flatnonzero(keep_small & ~keep_large)
    slot[small[alone]] = ps[alone]
    jobs = [np.stack([start[kids], end[kids], d, s_], axis=1)
            for kids, d, s_ in ((small[first], dst[first], ps[first]),
                                (large[full], ps[full], np.full(full.shape[0], -1)),
                                (small[alone], ps[alone], np.full(alone.shape[0], -1)))]
    return np.concatenate(jobs).astype(np.int64)


@pytest.mark.parametrize("seed", range(30))
def test_plan_kernel_is_the_numpy_plan(seed):
    """:func:`fastdt._hist_build.plan_builds` (slots handed over, taken, freed; the build
    jobs in their three blocks, smaller children without a histogram subtracted by their
    rows) is the numpy plan, on random levels: nodes with and without a slot, open or
    closed children, small pools."""
    from fastdt._hist_build import plan_builds

    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 12))
    n_nodes = 1 + 3 * m
    node = np.sort(rng.choice(np.arange(1, n_nodes - 2 * m), m, replace=False)).astype(np.int64)
    left = np.full(n_nodes, -1, dtype=np.int64)
    right = left.copy()
    left[node] = n_nodes - 2 * m + 2 * np.arange(m)
    right[node] = left[node] + 1
    nns = rng.integers(1, 400, n_nodes).astype(np.int64)
    start = rng.integers(0, 1000, n_nodes).astype(np.int64)
    end = start + nns
    is_open = (rng.random(n_nodes) < 0.7).astype(np.uint8)
    n_slots = int(rng.integers(m, 3 * m + 2))
    slot = np.full(n_nodes, -1, dtype=np.int64)
    owners = rng.random(m) < 0.8
    order = rng.permutation(n_slots)
    slot[node[owners]] = order[:owners.sum()]
    free_list = order[owners.sum():][: int(rng.integers(0, n_slots - owners.sum() + 1))].tolist()
    keep_rows = int(rng.integers(1, 300))
    ref_slot = slot.copy()
    want_jobs = _plan_reference(node, left, right, nns, start, end, is_open, keep_rows,
                                ref_slot, ref_free := list(free_list))
    free = np.zeros(n_slots, dtype=np.int64)
    free[: len(free_list)] = free_list
    n_free = np.array([len(free_list)], dtype=np.int64)
    jobs = np.empty((m, 4), dtype=np.int64)
    n_jobs = plan_builds(node, left, right, nns, start, end, is_open, keep_rows, slot, free,
                         n_free, jobs)
    np.testing.assert_array_equal(jobs[:n_jobs], want_jobs)
    np.testing.assert_array_equal(slot, ref_slot)
    assert free[: n_free[0]].tolist() == ref_free


@pytest.mark.parametrize("task", ["clf", "weighted_clf", "regression", "weighted_regression"])
def test_rows_subtracted_from_a_histogram_leave_the_others(task):
    """A build job with ``dst = -1`` takes its positions' rows out of slot ``sub``: the
    result is the histogram of the other positions (integer statistics: bit for bit)."""
    from fastdt._hist_build import build_features
    from fastdt._hist_scan import NO_INC

    rng = np.random.default_rng(3)
    n, n_features, n_bins = 500, 3, np.array([7, 3, 12], dtype=np.int32)
    codes = np.stack([rng.integers(0, nb + 1, n) for nb in n_bins]).astype(np.uint8)
    rows = rng.permutation(n).astype(np.int32)
    is_clf, weighted = task.endswith("clf"), task.startswith("weighted")
    ycode = rng.integers(0, 3, n).astype(np.int32) if is_clf else np.empty(0, np.int32)
    w = rng.integers(1, 4, n).astype(float)
    y = rng.integers(-5, 6, n).astype(float)
    if is_clf:
        rstat = w.reshape(-1, 1) if weighted else np.empty((n, 0))
        width = 3 + weighted
    else:
        rstat = np.stack([w, w * y, w * y * y], axis=1) if weighted else \
            np.stack([np.ones(n), y, y * y], axis=1)
        width = 3 + weighted
    pool = np.full((3, n_features, 13, width), np.nan)

    def build(jobs):
        build_features(0, n_features, codes, rows, np.array(jobs, dtype=np.int64), pool,
                       n_bins, ycode, rstat, is_clf, weighted, NO_INC)

    build([[0, n, 0, -1], [120, n, 1, -1]])  # all positions; the last 380
    build([[0, 120, -1, 0]])  # the first 120 taken out of slot 0
    for f in range(n_features):
        nb = n_bins[f] + 1
        np.testing.assert_array_equal(pool[0, f, :nb], pool[1, f, :nb])


def _increments(weights, ycode):
    """A packed layout's increments (fastdt._hist.HistSplitter._pack) of whole weights
    [n, 1] and binary class codes."""
    from fastdt._hist_scan import PACK_BITS

    return 1 + (weights.astype(np.int64) << (PACK_BITS * (1 + ycode[:, None].astype(np.int64))))


@pytest.mark.parametrize("seed", range(3))
def test_packed_histograms_are_the_float_ones(seed):
    """A packed layout (binary classes, whole weights: one int64 a bin, each position's
    increment in place of its weight) builds the histograms of the float one, bit for
    bit: jobs of odd and even length, a subtraction of histograms and one of rows, and
    bins left empty."""
    from fastdt._hist_build import build_features
    from fastdt._hist_scan import NO_INC

    rng = np.random.default_rng(seed)
    n, n_features, n_bins = 777, 3, np.array([7, 3, 200], dtype=np.int32)
    codes = np.stack([rng.integers(0, nb + 1, n) for nb in n_bins]).astype(np.uint8)
    rows = rng.permutation(n).astype(np.int32)
    ycode = rng.integers(0, 2, n).astype(np.int32)
    weights = rng.integers(1, 9, n).astype(float).reshape(-1, 1)
    rinc = _increments(weights, ycode)
    jobs = np.array([[0, n, 0, -1], [101, 400, 1, 0], [3, 4, 2, -1], [500, 531, -1, 2]],
                    dtype=np.int64)
    pools = []
    for rstat, inc in ((weights, NO_INC), (rinc.view(float), rinc)):
        pool = np.full((3, n_features, 201, 3), np.nan)
        pool[2] = 0.0  # the rows subtracted from slot 2 (after its one-row build)
        build_features(0, n_features, codes, rows, jobs, pool, n_bins, ycode, rstat, True,
                       True, inc)
        pools.append(pool)
    for f in range(n_features):
        nb = n_bins[f] + 1
        for slot in range(3):
            np.testing.assert_array_equal(pools[1][slot, f, :nb], pools[0][slot, f, :nb])
        assert np.isnan(pools[1][0, f, nb:]).all()  # the bins past the feature's own


def test_packed_histograms_grow_the_same_forests(monkeypatch):
    """Hist forests of binary targets (bootstrap counts: whole weights) pack their
    layouts; with packing switched off, the same forests bit for bit (missing values,
    sampled features, one thread and two). Weights that are not whole and three classes
    do not pack."""
    import fastdt._hist
    from fastdt._hist_scan import NO_INC

    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 6)).astype(np.float32)
    X[::13, 2] = np.nan
    y = (X[:, 0] + 0.5 * rng.standard_normal(3000) > 0).astype(int)
    used = []
    pack = fastdt._hist.HistSplitter._pack

    def spy(self):
        out = pack(self)
        used.append(out.shape[0] > 0)
        return out

    def forests():
        return [fastdt.fit_forest(X, y, n_estimators=5, splitter="hist", random_state=1,
                                  **kw) for kw in ({}, {"max_features": 0.5, "n_jobs": 1})]

    monkeypatch.setattr(fastdt._hist.HistSplitter, "_pack", spy)
    packed = forests()
    assert used and all(used)
    monkeypatch.setattr(fastdt._hist.HistSplitter, "_pack", lambda self: NO_INC)
    plain = forests()
    for a, b in zip(packed, plain):
        for name in ("feature", "threshold", "left", "right", "value", "impurity",
                     "n_node_samples", "weighted_n_node_samples"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    monkeypatch.setattr(fastdt._hist.HistSplitter, "_pack", spy)
    used.clear()
    fastdt.fit_forest(X, y, n_estimators=2, splitter="hist", class_weight={0: 1.0, 1: 2.5},
                      random_state=1)
    fastdt.fit_forest(X, y + (X[:, 1] > 1), n_estimators=2, splitter="hist", random_state=1)
    assert used and not any(used)


# --------------------------------------------------------------------- best-first batches


def _one_split_at_a_time(monkeypatch, fit):
    import fastdt._hist

    monkeypatch.setattr(fastdt._hist.HistSplitter, "batch_best_first", False)
    tree = fit()
    monkeypatch.undo()
    return tree


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("leaves", [2, 3, 10, 64])
def test_best_first_in_batches_is_the_one_split_at_a_time_tree(monkeypatch, seed, leaves):
    """Batches (speculative splits, undone when the replay does not pick them) grow the
    tree of one split at a time: missing values, categories, weights, depth and
    min_impurity_decrease limits, monotonic constraints, regression and classes."""
    import fastdt._grow

    rng = np.random.default_rng(seed)
    n = 1500
    X = rng.standard_normal((n, 5))
    X[:, 4] = rng.integers(0, 6, n)
    X[rng.random(X.shape) < 0.05] = np.nan
    z = np.nan_to_num(X)
    y = np.digitize(z[:, 0] + z[:, 1] * z[:, 2] + (z[:, 4] % 3) + rng.normal(size=n), [0, 1.5])
    yr = z[:, 0] * 2 + np.sin(3 * z[:, 1]) + (z[:, 4] == 2) + 0.3 * rng.normal(size=n)
    w = rng.uniform(0.5, 2.0, n)
    cases = [
        (y, dict()),
        (y, dict(sample_weight=w, max_depth=4, categorical_features=[4])),
        (yr, dict(min_impurity_decrease=1e-3, categorical_features=[4])),
        (yr, dict(sample_weight=w, monotonic_cst=[1, 0, 0, 0, 0], min_samples_leaf=15)),
    ]
    calls = []
    real = fastdt._grow._grow_batched
    monkeypatch.setattr(fastdt._grow, "_grow_batched",
                        lambda *a: calls.append(1) or real(*a))
    for target, kw in cases:
        def fit(target=target, kw=kw):
            return fastdt.fit(X, target, splitter="hist", max_leaf_nodes=leaves, **kw)

        batched = fit()
        assert calls, "the batched growth did not run"
        calls.clear()
        one = _one_split_at_a_time(monkeypatch, fit)
        assert_identical(batched, one)
        np.testing.assert_array_equal(batched.cat_offset, one.cat_offset)
        np.testing.assert_array_equal(batched.cat_bitsets, one.cat_bitsets)
        assert not calls
        monkeypatch.setattr(fastdt._grow, "_grow_batched",
                            lambda *a: calls.append(1) or real(*a))


@pytest.mark.parametrize("keep", [0, 300, 10**9])
def test_feature_sampling_nodes_keep_histograms_from_more_rows_same_forest(keep, monkeypatch):
    """Nodes scanning a sample of the features keep their histograms from
    ``_SAMPLED_KEEP_ROWS`` rows on, the others from ``n_bins``: where the histograms
    come from (kept and subtracted, or built when scanned) changes no tree of counts."""
    import fastdt._hist as fh
    from fastdt.ensemble import fit_forest

    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 9))
    X[rng.random(X.shape) < 0.03] = np.nan
    y = (np.nan_to_num(X[:, 0]) + X[:, 1] * X[:, 2] > 0).astype(int)
    params = dict(n_estimators=3, splitter="hist", max_features="sqrt", random_state=0,
                  max_bins=64)
    reference = fit_forest(X, y, **params)
    monkeypatch.setattr(fh, "_SAMPLED_KEEP_ROWS", keep)
    again = fit_forest(X, y, **params)
    for name in ("feature", "threshold", "left", "value", "n_node_samples"):
        np.testing.assert_array_equal(getattr(again, name), getattr(reference, name))
    splitter = fh.HistSplitter.__new__(fh.HistSplitter)
    splitter.n_features, splitter.n_bins_max, splitter.feature_pool = 9, 65, None
    assert splitter._keep_rows(9) == 65  # every feature: from n_bins rows on
    assert splitter._keep_rows(3) == max(65, keep)
    splitter.feature_pool = np.arange(3)  # a tree's pool of 3 features, all scanned
    assert splitter._keep_rows(3) == 65


@pytest.mark.parametrize("seed", range(8))
def test_binary_gini_scan_is_the_general_one(seed):
    """Two classes by gini with no missing rows: :func:`_scan_bins` keeps the left sums
    in registers (and :func:`_children` the children's); the same split, proxy and
    children, bit for bit, as the general loop (taken here with a monotonic-constraint
    array of zeros: no constraint) and as sums in bin order."""
    from fastdt._config import GINI
    from fastdt._criteria import NO_REG
    from fastdt._hist_scan import _children, _scan_bins

    rng = np.random.default_rng(seed)
    nb = int(rng.integers(2, 40))
    weighted = bool(seed % 2)
    h = np.zeros((nb + 1, 3 if weighted else 2))
    full = rng.random(nb) < 0.6
    h[:nb, :2][full] = rng.integers(0, 4, (full.sum(), 2)) * (rng.random() + 0.5)
    if weighted:
        h[:nb, 2] = rng.integers(1, 5, nb) * (h[:nb, :2].sum(axis=1) > 0)
    lo = np.cumsum(rng.random(nb) + 0.1)
    hi = lo + rng.random(nb) * 0.05
    total = h[:nb, :2].sum(axis=0)
    w = total.sum()
    n = int(h[:nb, 2].sum()) if weighted else int(w)
    msl = int(rng.integers(1, 3))
    got = []
    for mono in (None, np.zeros(1, dtype=np.int8)):
        miss, occ = np.zeros(2), np.empty(nb, dtype=np.int64)
        res = _scan_bins(h, nb, lo, hi, total, w, n, 0.5, None, GINI, None, weighted, msl,
                         0.0, np.empty(2), np.empty(2), miss, occ, None, mono, 0, -np.inf,
                         np.inf, NO_REG)
        out_l, out_r = np.full(2, np.nan), np.full(2, np.nan)
        if res[1] > 0:
            _children(h, occ, res[6], res[4], res[5], miss, True, weighted, out_l, out_r)
            rows = np.flatnonzero(h[:nb, -1] > 0 if weighted else h[:nb].sum(axis=1) > 0)
            want_l, want_r = np.zeros(2), np.zeros(2)
            for k in rows:  # in bin order, from zero
                if k <= res[4]:
                    want_l += h[k, :2]
                else:
                    want_r += h[k, :2]
            np.testing.assert_array_equal(out_l, want_l)
            np.testing.assert_array_equal(out_r, want_r)
        got.append((res, out_l, out_r))
    (a, al, ar), (b, bl, br) = got
    assert a[1:] == b[1:] and (a[0] == b[0] or np.isnan(a[0]) and np.isnan(b[0]))
    np.testing.assert_array_equal(al, bl)
    np.testing.assert_array_equal(ar, br)


@pytest.mark.parametrize("reg", [(0.0, 0.0), (1.0, 0.0), (0.5, 0.3)])
@pytest.mark.parametrize("seed", range(6))
def test_squared_error_scan_is_the_general_one(seed, reg):
    """A squared error with no missing rows (boosting's scans, with its L2 and L1
    terms): :func:`_scan_bins`'s loop with every test in one branch finds the same
    split and proxy, bit for bit, as the general loop (taken with a monotonic-constraint
    array of zeros: no constraint)."""
    from fastdt._config import SQUARED_ERROR
    from fastdt._hist_scan import _scan_bins

    rng = np.random.default_rng(seed)
    nb = int(rng.integers(2, 40))
    weighted = bool(seed % 2)
    h = np.zeros((nb + 1, 4 if weighted else 3))
    full = rng.random(nb) < 0.6
    w = rng.integers(1, 5, nb) * full * (rng.random() + 0.5)
    yv = rng.normal(size=nb)
    h[:nb, 0], h[:nb, 1], h[:nb, 2] = w, w * yv, w * yv * yv
    if weighted:
        h[:nb, 3] = rng.integers(1, 5, nb) * full
    lo = np.cumsum(rng.random(nb) + 0.1)
    hi = lo + rng.random(nb) * 0.05
    total = h[:nb, :3].sum(axis=0)
    n = int(h[:nb, 3].sum()) if weighted else int(total[0])
    msl = int(rng.integers(1, 3))
    got = []
    for mono in (None, np.zeros(1, dtype=np.int8)):
        res = _scan_bins(h, nb, lo, hi, total, total[0], n, 0.0, SQUARED_ERROR,
                         SQUARED_ERROR, None, weighted, msl, 0.0, np.empty(3), np.empty(3),
                         np.zeros(3), np.empty(nb, dtype=np.int64), None, mono, 0, -np.inf,
                         np.inf, reg)
        got.append(res)
    a, b = got
    assert a[1:] == b[1:] and (a[0] == b[0] or np.isnan(a[0]) and np.isnan(b[0]))
    assert a[1] > 0  # a split was found


@pytest.mark.parametrize("task", ["clf", "clf-weighted", "reg", "reg-weighted"])
@pytest.mark.parametrize("seed", range(4))
def test_compact_histogram_is_the_dense_one_without_its_empty_bins(task, seed):
    """A small node's compact histogram: its occupied value bins in code order, each the
    sums of its rows added in position order (bit for bit), then the missing bin."""
    from fastdt._hist_scan import NO_INC, _compact_histogram

    rng = np.random.default_rng(seed)
    nb, n_all = 200, 1500  # codes in four words of the bitmap
    codes_f = rng.integers(0, nb + 1, n_all).astype(np.uint8)  # code nb: missing
    rows = rng.permutation(n_all).astype(np.int32)
    is_clf, weighted = task.startswith("clf"), task.endswith("weighted")
    ycode = rng.integers(0, 3, n_all).astype(np.int32)
    w = rng.random(n_all) * 3
    yv = rng.normal(size=n_all) * 1e3
    if is_clf:
        rstat = w.reshape(-1, 1) if weighted else np.empty((n_all, 0))
        width = 3 + weighted
    else:
        ww = w if weighted else np.ones(n_all)
        rstat = np.stack([ww, ww * yv, ww * yv * yv], axis=1)
        width = 3 + weighted
    lo_f, hi_f = np.arange(nb) - 0.25, np.arange(nb) + 0.25
    for a, b in ((0, 1), (7, 30), (300, 300 + nb + 1), (600, 641), (900, 1090)):
        n_b = nb + 1
        slot, seen = np.empty(n_b + 1, np.int64), np.empty((n_b >> 6) + 1, np.uint64)
        h = np.full((n_b + 1, width), np.nan)
        lo_c, hi_c, bins = np.empty(n_b + 1), np.empty(n_b + 1), np.empty(n_b + 1, np.int64)
        m = _compact_histogram(codes_f, rows, ycode, rstat, a, b, is_clf, weighted, nb,
                               lo_f, hi_f, slot, seen, h, lo_c, hi_c, bins,
                               np.empty(n_b, np.uint8), NO_INC, NO_INC[:, 0])
        dense = np.zeros((nb + 1, width))  # rows added one by one, in position order
        for p in range(a, b):
            k = codes_f[rows[p]]
            if is_clf:
                dense[k, ycode[p]] += rstat[p, 0] if weighted else 1.0
            else:
                dense[k, :3] += rstat[p]
            if weighted:
                dense[k, -1] += 1.0
        occupied = np.flatnonzero(np.bincount(codes_f[rows[a:b]], minlength=nb + 1)[:nb])
        assert m == occupied.shape[0]
        np.testing.assert_array_equal(bins[:m], occupied)
        np.testing.assert_array_equal(h[:m], dense[occupied])
        np.testing.assert_array_equal(h[m], dense[nb])  # the missing bin (or zeros)
        np.testing.assert_array_equal(lo_c[:m], lo_f[occupied])
        np.testing.assert_array_equal(hi_c[:m], hi_f[occupied])


@pytest.mark.parametrize("seed", range(3))
def test_packed_compact_histogram_is_the_float_one(seed):
    """A packed layout's compact histogram (binary classes, whole weights, each
    position's increment in place of its weight) is the float one, bit for bit."""
    from fastdt._hist_scan import NO_INC, _compact_histogram

    rng = np.random.default_rng(seed)
    nb, n_all = 200, 1500  # codes in four words of the bitmap
    codes_f = rng.integers(0, nb + 1, n_all).astype(np.uint8)  # code nb: missing
    rows = rng.permutation(n_all).astype(np.int32)
    ycode = rng.integers(0, 2, n_all).astype(np.int32)
    weights = rng.integers(1, 6, n_all).astype(float).reshape(-1, 1)
    rinc = _increments(weights, ycode)
    lo_f, hi_f = np.arange(nb) - 0.25, np.arange(nb) + 0.25
    for a, b in ((0, 1), (7, 30), (300, 300 + nb + 1), (600, 641), (900, 1090)):
        n_b = nb + 1
        out = []
        for rstat, inc in ((weights, NO_INC), (rinc.view(float), rinc)):
            slot, seen = np.empty(n_b + 1, np.int64), np.empty((n_b >> 6) + 1, np.uint64)
            h = np.full((n_b + 1, 3), np.nan)
            lo_c, hi_c, bins = np.empty(n_b + 1), np.empty(n_b + 1), np.empty(n_b + 1, np.int64)
            m = _compact_histogram(codes_f, rows, ycode, rstat, a, b, True, True, nb, lo_f,
                                   hi_f, slot, seen, h, lo_c, hi_c, bins,
                                   np.empty(n_b, np.uint8), inc,
                                   np.empty(n_b + 1, np.int64))
            out.append((m, h[: m + 1], bins[:m], lo_c[:m], hi_c[:m]))
        assert out[0][0] == out[1][0]
        for x, y in zip(out[0][1:], out[1][1:]):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("seed", range(6))
def test_replay_kernel_pops_as_heapq(seed):
    """The compiled replay of best-first growth against heapq on random node tables:
    tied gains (the process's ids break them), nodes split or not, candidates or none."""
    import heapq

    from fastdt._grow import Nodes
    from fastdt._level import replay

    rng = np.random.default_rng(seed)
    nodes = Nodes(3, 1, 0)
    ids = nodes.add(1)
    frontier = list(ids)
    while nodes.count < 200:  # a random tree: split some open nodes
        node = frontier.pop(int(rng.integers(len(frontier))))
        kids = nodes.add(2)
        nodes.feature[node], nodes.left[node], nodes.right[node] = 0, kids[0], kids[1]
        frontier += list(kids)
    n = nodes.count
    nodes.c_feature[:n] = np.where(rng.random(n) < 0.9, 0, -1)
    nodes.c_gain[:n] = rng.integers(0, 8, n) / 4.0  # many ties
    for budget in (1, 5, 40, 150):
        feature, left, right = nodes.feature[:n], nodes.left[:n], nodes.right[:n]
        heap = [(-nodes.c_gain[0], 0, 0)] if nodes.c_feature[0] >= 0 else []
        chosen, todo, next_id = [], [], 1
        while heap and len(chosen) + len(todo) < budget:
            node = heapq.heappop(heap)[2]
            if feature[node] == fastdt.LEAF:
                todo.append(node)
                continue
            chosen.append(node)
            for kid in (left[node], right[node]):
                if nodes.c_feature[kid] >= 0:
                    heapq.heappush(heap, (-nodes.c_gain[kid], next_id, kid))
                next_id += 1
        got_c, got_t = np.empty(budget, dtype=np.int64), np.empty(budget, dtype=np.int64)
        nc, nt = replay(nodes.ints, nodes.floats, n, budget, got_c, got_t)
        assert got_c[:nc].tolist() == chosen and got_t[:nt].tolist() == todo


def test_best_first_with_feature_sampling_is_one_split_at_a_time(monkeypatch):
    """Feature sampling is seeded by node ids, which batches would change: such trees
    grow one split at a time."""
    import fastdt._grow

    X, y, _ = coarse_data(n=800, seed=3)
    monkeypatch.setattr(fastdt._grow, "_grow_batched", None)  # would fail if called
    fastdt.fit(X, y, splitter="hist", max_leaf_nodes=12, max_features=2, random_state=0)


# --------------------------------------------------------------------- Dataset and API


def test_dataset_is_reused_and_not_modified():
    X, y, _ = coarse_data(n=800, seed=9)
    ds = Dataset(X)
    before = ds.codes.copy()
    a = fastdt.fit(ds, y, max_depth=4)
    b = fastdt.fit(ds, y, max_depth=4)
    assert_identical(a, b)
    np.testing.assert_array_equal(ds.codes, before)
    assert not ds.codes.flags.writeable
    assert a.params["splitter"] == "hist" and a.params["max_bins"] == 255
    assert_identical(a, fastdt.fit(X, y, max_depth=4, splitter="hist"))


def test_dataset_pickles():
    X, y, _ = coarse_data(n=300, seed=10)
    ds = Dataset(X, max_bins=32)
    ds2 = pickle.loads(pickle.dumps(ds))
    assert repr(ds2) == repr(ds)
    assert not ds2.codes.flags.writeable
    assert_identical(fastdt.fit(ds2, y), fastdt.fit(ds, y))


def test_dataset_keeps_feature_names():
    pd = pytest.importorskip("pandas")
    X, y, _ = coarse_data(n=200, seed=11)
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    tree = fastdt.fit(Dataset(df), y, max_depth=2)
    assert tree.feature_names == list(df.columns)
    fastdt.predict(tree, df)


@pytest.mark.parametrize("kwargs, match", [
    ({"max_bins": 1}, r"max_bins=1 is invalid: max_bins must be an int in \[2, 65535\]"),
    ({"max_bins": 65536}, "max_bins=65536 is invalid"),
    ({"max_bins": 2.5}, "max_bins=2.5 is invalid"),
    ({"subsample": 0}, "subsample=0 is invalid"),
    ({"random_state": -1}, "random_state=-1 is invalid"),
])
def test_dataset_rejects_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Dataset(np.ones((5, 2)), **kwargs)


def test_dataset_rejects_bad_data():
    with pytest.raises(ValueError, match="infinity"):
        Dataset(np.array([[1.0], [np.inf]]))
    with pytest.raises(ValueError, match="Reshape your data"):
        Dataset(np.ones(5))


def test_fit_errors_with_dataset():
    X, y, _ = coarse_data(n=100, seed=12)
    ds = Dataset(X, max_bins=64)
    with pytest.raises(ValueError, match="fit it with splitter='hist'"):
        fastdt.fit(ds, y, splitter="best")
    with pytest.raises(ValueError, match="differs from the Dataset's max_bins=64"):
        fastdt.fit(ds, y, max_bins=255)
    with pytest.raises(ValueError, match="inconsistent|samples"):
        fastdt.fit(ds, y[:50])
    with pytest.raises(ValueError, match="max_bins applies to splitter='hist' only"):
        fastdt.fit(X, y, max_bins=32)
    with pytest.raises(ValueError, match="max_bins=1 is invalid"):
        fastdt.fit(X, y, splitter="hist", max_bins=1)


def test_single_row_and_pure_node():
    tree = fastdt.fit(np.ones((1, 3)), [4], splitter="hist")
    assert tree.node_count == 1
    tree = fastdt.fit(np.arange(10.0)[:, None], np.zeros(10), splitter="hist",
                      task="regression")
    assert tree.node_count == 1


@pytest.mark.parametrize("Est", [fastdt.DecisionTreeClassifier, fastdt.DecisionTreeRegressor])
def test_estimators_take_splitter_and_max_bins(Est):
    X, y_clf, y_reg = coarse_data(seed=13)
    y = y_clf if Est is fastdt.DecisionTreeClassifier else y_reg
    est = Est(splitter="hist", max_bins=16, max_depth=5).fit(X, y)
    assert est.get_params()["splitter"] == "hist" and est.get_params()["max_bins"] == 16
    assert est.tree_.params["max_bins"] == 16
    ds = Dataset(X, max_bins=16)
    est2 = Est(max_depth=5).fit(ds, y)
    np.testing.assert_array_equal(est2.predict(X), est.predict(X))


def test_adult_hist_accuracy_close_to_exact(adult):
    """On Adult (ordinal-encoded), hist's test accuracy is within 0.5 points of exact."""
    X_train, y_train, X_test, y_test = adult
    for depth in (4, 8, 12):
        exact = fastdt.fit(X_train, y_train, max_depth=depth)
        hist = fastdt.fit(X_train, y_train, max_depth=depth, splitter="hist")
        acc_e = np.mean(fastdt.predict(exact, X_test) == y_test)
        acc_h = np.mean(fastdt.predict(hist, X_test) == y_test)
        assert abs(acc_h - acc_e) <= 0.005, (depth, acc_e, acc_h)

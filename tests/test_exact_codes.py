"""Few-valued integer features coded and scanned from histograms (fastdt._exact_codes).

A fit codes such features only where every sum is a count, and must then grow the tree
the presorted layout grows, bit for bit: each case is fitted both ways (the preparation
asked not to code) and the two trees compared whole.
"""

import numba
import numpy as np
import pandas as pd
import pytest

import fastdt
from fastdt import _engine, _exact, _exact_codes, _hist, _parallel


@pytest.fixture(autouse=True)
def _code_small_tables(monkeypatch):
    """Tables of a few thousand rows coded too (a fit codes from ``MIN_ROWS`` rows), and
    their kernels on threads as for any work (else from ``THREAD_ROWS`` rows)."""
    monkeypatch.setattr(_exact_codes, "MIN_ROWS", 0)
    monkeypatch.setattr(_exact_codes, "THREAD_ROWS", 0)


def _plain(X, y, sample_weight=None, **params):
    """The tree of the presorted layout alone (no feature coded)."""
    prep = _engine.prepare(X, y, sample_weight, params)
    assert prep.coded is None
    return _engine.assemble(prep, _engine.grow(prep, copy=False))


def _coded(X, y, sample_weight=None, **params):
    prep = _engine.prepare(X, y, sample_weight, params, code_features=True)
    assert prep.coded is not None
    return _engine.assemble(prep, _engine.grow(prep, copy=False)), prep


def _table(seed, n=1500, nan=0.0, dtype=np.float64, all_integer=False, ranked=False):
    """Integer columns of 2, 7, 40 and 255 values (one shifted, one negative), a
    continuous one, and a label that depends on them with noise. ``ranked``: and a
    column of 60 integers spread from -700,000 to 2,800,000 (coded by rank)."""
    rng = np.random.default_rng(seed)
    cols = [rng.integers(0, 2, n), rng.integers(3, 10, n), rng.integers(-20, 20, n),
            rng.integers(1000, 1255, n)]
    cols.append(rng.integers(0, 300, n) if all_integer else rng.normal(size=n))
    if ranked:
        cols.append(rng.choice(rng.integers(-700_000, 2_800_000, 60), n))
    X = np.column_stack(cols).astype(dtype)
    score = X[:, 0] + (X[:, 1] > 6) + X[:, 2] / 10 + (X[:, 3] > 1100) + rng.normal(size=n)
    if ranked:
        score += X[:, 5] / 1e6
    y = np.digitize(score, np.quantile(score, [0.4, 0.7]))
    if nan:
        X[rng.random(X.shape) < nan] = np.nan
    return X, y


@pytest.mark.parametrize("params", [
    {"max_depth": 6},
    {},  # grown until pure
    {"criterion": "entropy", "max_depth": 8},
    {"criterion": "gain_ratio", "max_depth": 8},
    {"min_samples_leaf": 7, "min_samples_split": 20},
    {"min_weight_fraction_leaf": 0.02},
    {"min_impurity_decrease": 0.001},
    {"ccp_alpha": 0.002},
])
@pytest.mark.parametrize("case", ["binary", "multiclass", "nan", "float32", "all_integer",
                                  "ranked", "ranked_nan_float32"])
def test_coded_features_grow_the_presorted_tree(params, case):
    X, y = _table(1, nan=0.1 if "nan" in case else 0.0,
                  dtype=np.float32 if "float32" in case else np.float64,
                  all_integer=case == "all_integer", ranked="ranked" in case)
    if case != "multiclass":
        y = (y > 0).astype(np.int64)
    coded = _engine.prepare(X, y, None, params, code_features=True).coded
    assert coded is not None
    assert (5 in coded[0]) == ("ranked" in case)
    tree = fastdt.fit(X, y, **params)
    plain = _plain(X, y, **params)
    if params.get("ccp_alpha"):
        plain = fastdt.prune(plain, params["ccp_alpha"])
    assert tree.node_count > 10
    assert tree == plain


def test_string_labels_and_a_frame_with_a_categorical_column():
    X, y = _table(2, nan=0.05)
    frame = pd.DataFrame(X, columns=list("abcde"))
    frame["cat"] = pd.Categorical(np.random.default_rng(0).choice(list("pqrs"), X.shape[0]))
    labels = np.where(y > 0, ">50K", "<=50K").astype(object)
    tree, prep = _coded(frame, labels, max_depth=7)
    assert set(prep.coded[0]) == {0, 1, 2, 3}  # not the continuous nor the category
    assert tree == _plain(frame, labels, max_depth=7)


def test_which_columns_are_coded():
    rng = np.random.default_rng(0)
    n = 400
    X = np.column_stack([
        rng.integers(0, 255, n),         # 255 values: coded
        rng.permutation(np.resize(np.arange(256), n)),  # 256: too many
        rng.integers(0, 3, n) * 1000,    # 3 distinct values, a span of 2001: by rank
        rng.integers(0, 5, n) + 0.5,     # not integers
        np.full(n, np.nan),              # nothing present
        rng.integers(-3, 3, n),          # coded
        np.full(n, 4.0),                 # constant: coded (one value)
        rng.permutation(np.resize(np.arange(255) * 7 - 900, n)),  # 255 values: by rank
        rng.permutation(np.resize(np.arange(256) * 7 - 900, n)),  # 256: too many
    ]).astype(np.float64)
    X[::7, 0] = np.nan
    X[::5, 2] = np.nan
    cols, codes, n_bins, lo, hi = _exact_codes.integer_columns(X, np.zeros(9, np.int32))
    assert cols.tolist() == [0, 2, 5, 6, 7]
    assert n_bins.tolist() == [np.nanmax(X[:, 0]) - np.nanmin(X[:, 0]) + 1, 3, 6, 1, 255]
    present = ~np.isnan(X[:, 0])
    assert np.array_equal(codes[0, present], X[present, 0] - np.nanmin(X[:, 0]))
    assert np.all(codes[0, ~present] == n_bins[0])  # missing: the bin after the values
    assert np.array_equal(lo, hi)
    assert lo[2, :6].tolist() == list(range(-3, 3)) and np.all(np.isinf(lo[2, 6:]))
    # by rank: the bins hold the column's distinct values, sorted
    for j, c in ((1, 2), (4, 7)):
        present = ~np.isnan(X[:, c])
        assert np.array_equal(lo[j, :n_bins[j]], np.unique(X[present, c]))
        assert np.all(np.isinf(lo[j, n_bins[j]:]))
        assert np.array_equal(lo[j][codes[j, present]], X[present, c])
        assert np.all(codes[j, ~present] == n_bins[j])
    # a categorical column is never coded; all coded: the one of most values stays in
    # the layout
    cats = np.zeros(9, np.int32)
    cats[5] = 6
    assert _exact_codes.integer_columns(X, cats)[0].tolist() == [0, 2, 6, 7]
    Xi = X[:, [0, 5, 6, 2]]
    assert _exact_codes.integer_columns(Xi, np.zeros(4, np.int32))[0].tolist() == [1, 2, 3]
    assert _exact_codes.integer_columns(Xi[:, :1], np.zeros(1, np.int32)) is None


def test_small_tables_are_not_coded(monkeypatch):
    """Coding starts at ``MIN_ROWS`` rows (below, its fixed cost per level dominates), at
    any depth and on any number of threads."""
    X, y = _table(3)
    n = X.shape[0]
    monkeypatch.setattr(_exact_codes, "MIN_ROWS", n)

    def coded(rows, **params):
        return _engine.prepare(X[:rows], y[:rows], None, params,
                               code_features=True).coded is not None

    for threads in (1, 2):
        monkeypatch.setattr(numba, "get_num_threads", lambda: threads)
        assert coded(n, max_depth=4) and coded(n) and not coded(n - 1)


@pytest.mark.parametrize("below", [True, False])
def test_coded_kernels_serial_below_thread_rows(below, monkeypatch):
    """Below ``THREAD_ROWS`` rows every kernel of a coded fit reports no work to the
    thread pool (it runs on the calling thread); from it on, its work. The tree is the
    same either way."""
    X, y = _table(3)
    n = X.shape[0]
    monkeypatch.setattr(_exact_codes, "THREAD_ROWS", n + 1 if below else n)
    works = []

    def spy(run):
        def wrapped(kernel, n_items, work, *args, **kw):
            works.append(work)
            return run(kernel, n_items, work, *args, **kw)
        return wrapped

    monkeypatch.setattr(_exact_codes, "run", spy(_exact_codes.run))
    monkeypatch.setattr(_exact_codes, "run_rows", spy(_exact_codes.run_rows))
    tree = fastdt.fit(X, y)
    assert works and (all(w == 0 for w in works) if below else max(works) > 0)
    assert tree == _plain(X, y)


@pytest.mark.parametrize("threads", [1, 2])
def test_columns_judged_on_every_row_not_the_first(threads, monkeypatch):
    """The first rows rule columns out, never in: a column that turns out wide, or not
    integer, after them is not coded; one with no value in them still can be. Read in
    blocks of rows on threads, the ranges are the same."""
    monkeypatch.setattr(_parallel, "SERIAL_WORK", 1 if threads == 2 else 10**12)
    rng = np.random.default_rng(1)
    n, first = 6000, _exact_codes._PEEK
    X = np.column_stack([rng.integers(0, 9, n) for _ in range(6)]).astype(np.float32)
    X[first:first + 300, 0] = np.arange(300) * 2 + 10  # many values after the first rows
    X[n - 1, 1] = 2.5               # a fraction in the last row
    X[:first, 2] = np.nan           # nothing present in the first rows
    X[first:, 3] = 0.0              # constant after them
    X[n - 1, 4] = -250.0            # a span of 259, in the last row: coded by rank
    X[n - 300:, 5] = np.arange(300) + 9  # 309 values in a span of 309, in the last rows
    cols, codes, n_bins, lo, _ = _exact_codes.integer_columns(X, np.zeros(6, np.int32))
    assert cols.tolist() == [2, 3, 4]
    assert n_bins.tolist() == [9, 9, 10]
    assert np.all(codes[0, :first] == 9) and np.array_equal(codes[0, first:], X[first:, 2])
    assert lo[2, :10].tolist() == [-250] + list(range(9))
    assert np.array_equal(lo[2][codes[2]], X[:, 4])


@pytest.mark.parametrize("params", [
    {"task": "regression"},
    {"weighted": True},
    {"class_weight": "balanced"},
    {"max_leaf_nodes": 12},
    {"max_features": 2, "random_state": 0},
    {"splitter": "random", "random_state": 0},
    {"missing": "surrogate"},
    {"monotonic_cst": [1, 0, 0, 0, 0]},
])
def test_fits_whose_sums_are_not_counts_keep_the_presorted_layout(params):
    X, y = _table(3)
    y = (y > 0).astype(np.int64)
    params = dict(params)
    w = np.random.default_rng(0).uniform(0.5, 2, y.shape[0]) if params.pop("weighted", 0) \
        else None
    if params.get("task") == "regression":
        y = y + X[:, 4]
    prep = _engine.prepare(X, y, w, params, code_features=True)
    assert prep.coded is None


def test_a_coded_preparation_grows_one_tree_on_every_row():
    X, y = _table(4)
    _, prep = _coded(X, y, max_depth=3)
    with pytest.raises(ValueError, match="coded features"):
        _engine.grow(prep, row_weights=np.ones(y.shape[0]))


@pytest.mark.parametrize("pool_bytes", [None, 1])
def test_every_cut_of_the_coded_scan_grows_the_same_tree(monkeypatch, on_each_thread_count,
                                                         pool_bytes):
    """On threads, with the coded histograms kept and subtracted, and with a pool of two
    slots (the larger children built from their rows once it is full)."""
    monkeypatch.setattr(_parallel, "SERIAL_WORK", 0)
    monkeypatch.setattr(_exact, "TASKS_PER_THREAD", 64)
    if pool_bytes is not None:
        monkeypatch.setattr(_hist, "HIST_POOL_BYTES", pool_bytes)
    jobs = []
    kernel = _exact_codes.build_features

    def build(lo, hi, codes, rows, jobs_, *args):
        jobs.append(jobs_.copy())
        kernel(lo, hi, codes, rows, jobs_, *args)

    monkeypatch.setattr(_exact_codes, "build_features", build)
    X, y = _table(5, nan=0.1)
    one, many = on_each_thread_count(lambda: fastdt.fit(X, y, max_depth=9))
    assert one.node_count > 50
    assert many == one == _plain(X, y, max_depth=9)
    jobs = np.concatenate(jobs)
    assert (jobs[:, 3] >= 0).any()  # subtractions
    assert (jobs[:, 2] < 0).any()  # of smaller children's rows, with no histogram built
    # a pool of two slots: the histograms of many more nodes kept were built in them
    built = jobs[jobs[:, 2] >= 0, 2]
    assert (np.unique(built).shape[0] <= 2) == (pool_bytes is not None)

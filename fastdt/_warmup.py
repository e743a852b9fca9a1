"""Compile every kernel a user can reach, ahead of time (``python -m fastdt warmup``).

numba compiles a kernel the first time a process calls it for a kind of input, and
caches the machine code on disk. :func:`warmup` runs each *group* of fastdt's work once
on a few rows, for every input kind that selects its own compiled variant (float32 and
float64 X; uint8 and uint16 bin codes; numeric or categorical features; each way of
handling missing values), so that a Docker build, a CI step or an install script pays
the compilation once and every later process loads the cache.

Groups (:data:`GROUPS`), in order:

=============  ============================================================================
``exact``      exact fits (classification with gini and with entropy, regression,
               weights, ``max_leaf_nodes``, ``max_features``, ``splitter="random"``,
               ``monotonic_cst``, coded integer features, ``criterion="absolute_error"``,
               several outputs) and the numeric prediction kernels
``hist``       histogram fits (binning, uint8 and uint16 codes, gini and entropy; the
               partition of nodes cut in pieces for threads; the routing of
               :mod:`fastdt.dask`'s partitions)
``forest``     forests (each tree's in-bag rows taken from the prepared layout)
``boosting``   gradient boosting (weighted histogram trees with regularised gains, the
               log-loss kernel)
``sparse``     fits on ``scipy.sparse`` X (exact, random and histogram splits; skipped
               without scipy)
``categorical`` categorical features and missing values (``missing="learn"``), every
               splitter, and the prediction kernels of such trees
``missing``    ``missing="fractional"`` and ``"surrogate"``
``pruning``    cost-complexity path and pruning, ``ccp_cv``, reduced-error pruning
``inspection`` permutation importance, ``decision_path``, ``explain``
``rules``      rule lists: prediction and C4.5 rule post-pruning
``multiway``   ID3 and C4.5 fits (multiway splits, fractional cases, error-based
               pruning) and the prediction of such trees
=============  ============================================================================
"""

import sys
import time

import numpy as np

__all__ = ["GROUPS", "warmup"]


def _data(dtype, n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4)).astype(dtype)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int64)
    return X, y, rng


def _with_holes(X, rng):
    Xc = X.astype(X.dtype, copy=True)
    Xc[:, 3] = rng.integers(0, 4, X.shape[0])
    Xc[rng.random(Xc.shape) < 0.1] = np.nan
    return Xc


def _exact():
    import fastdt
    from fastdt._exact_codes import MIN_ROWS
    from fastdt.kernels import value_batch

    for dtype in (np.float32, np.float64):
        X, y, rng = _data(dtype)
        w = rng.uniform(0.5, 1.5, X.shape[0])
        for target in (y, X[:, 1].astype(np.float64)):
            t = fastdt.fit(X, target, max_depth=3)
            fastdt.fit(X, target, sample_weight=w, max_depth=3, max_leaf_nodes=5,
                       max_features=2, random_state=0)
            fastdt.fit(X, target, max_depth=3, splitter="random", random_state=0)
            # the numeric scans with their steps for missing values (without: pruned,
            # fastdt._exact_scan.scan_features' `missing`)
            for splitter in ("best", "random"):
                fastdt.fit(_with_holes(X, rng), target, max_depth=3, splitter=splitter,
                           random_state=0)
            for splitter in ("best", "random", "hist"):  # monotonic constraints
                fastdt.fit(X, target, max_depth=3, splitter=splitter,
                           monotonic_cst=[1, 0, 0, -1])
            fastdt.predict(t, X)
            fastdt.apply(t, X)
            value_batch(t.arrays, X, np.empty((X.shape[0], t.n_values)))  # public kernel
        # entropy (log loss, gain ratio): the numeric scans' second signature
        # (fastdt._criteria.log_criterion)
        fastdt.fit(X, y, max_depth=3, criterion="entropy")
        fastdt.fit(_with_holes(X, rng), y, max_depth=3, criterion="entropy")
        # few-valued integer features, coded and scanned from histograms
        # (fastdt._exact_codes, from MIN_ROWS rows on), with and without missing values
        Xi, yi, _ = _data(dtype, n=MIN_ROWS)
        Xi = np.round(Xi * 3)
        Xi[:, 0] *= 1000  # few values in a wide span: coded by their ranks
        fastdt.fit(Xi, yi, max_depth=3)
        fastdt.fit(Xi, yi, max_depth=3, criterion="entropy")
        fastdt.fit(_with_holes(Xi, rng), yi, max_depth=3)
        for splitter in ("best", "random"):
            # several outputs (classification, regression), with missing values
            for Y in (np.column_stack([y, (X[:, 2] > 0).astype(np.int64)]),
                      np.column_stack([X[:, 1], X[:, 2]]).astype(np.float64)):
                fastdt.predict(fastdt.fit(_with_holes(X, rng), Y, sample_weight=w,
                                          max_depth=3, splitter=splitter, random_state=0), X)
            fastdt.fit(X, X[:, 1].astype(np.float64), sample_weight=w, max_depth=3,
                       splitter=splitter, criterion="absolute_error", random_state=0)


def _hist():
    import fastdt

    for dtype in (np.float32, np.float64):
        X, y, rng = _data(dtype)
        for max_bins in (16, 300):  # uint8 and uint16 codes
            for target in (y, X[:, 1].astype(np.float64)):
                fastdt.fit(X, target, max_depth=3, splitter="hist", max_bins=max_bins)
                # with missing values: the scan's steps for them (pruned above)
                fastdt.fit(_with_holes(X, rng), target, max_depth=3, splitter="hist",
                           max_bins=max_bins)
            fastdt.fit(X, y, max_depth=3, splitter="hist", max_bins=max_bins,
                       criterion="entropy")
    from ._hist_build import route_codes, scatter_rows

    # the partition of nodes cut in pieces for threads: a fit of a few rows never does
    rows, ycode, rstat = np.arange(4, dtype=np.int32), np.zeros(4, np.int32), np.ones((4, 1))
    scatter_rows(0, 1, np.array([[0, 4, 0]]), np.array([[0, 2]]), np.array([0, 1, 0, 1], np.uint8),
                 rows, ycode, rstat, rows.copy(), ycode.copy(), rstat.copy())
    # fastdt.dask's partitions route rows with route_codes

    for dtype in (np.uint8, np.uint16):
        tables = (np.array([0, -1, -1]), np.array([1, -1, -1]), np.array([2, -1, -1]),
                  np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64),
                  np.zeros((3, 1), dtype=np.uint64), np.full(2, 4), np.zeros(2, dtype=np.int64))
        route_codes(0, 4, np.zeros((2, 4), dtype=dtype), *tables, np.empty(4, dtype=np.int64))


def _forest():
    import fastdt
    from fastdt.ensemble.kernels import forest_leaf_index, forest_value

    for dtype in (np.float32, np.float64):
        X, y, _ = _data(dtype)
        for target in (y, X[:, 1].astype(np.float64)):
            # one thread: the two trees grow in a batch (as a thread's trees do on modest
            # data), through the same kernels as a tree alone
            forest = fastdt.fit_forest(X, target, n_estimators=2, max_depth=3, random_state=0,
                                       n_jobs=1)
            for Xp in (X, np.where(X > 1.5, np.nan, X).astype(dtype)):  # fast and general
                fastdt.predict(forest, Xp)
                fastdt.apply(forest, Xp)
        quantile = fastdt.fit_forest(X, X[:, 1].astype(np.float64), n_estimators=2,
                                     max_depth=3, random_state=0, leaf_samples=True)
        fastdt.predict_quantiles(quantile, X, [0.1, 0.9])
        # the public kernels fastdt itself does not call
        f, offsets = forest.arrays, forest.offsets
        forest_leaf_index(f, offsets, 0, X[0])
        forest_value(f, offsets, X[0], np.empty(forest.value.shape[1]))


def _boosting():
    import fastdt

    X, y, _ = _data(np.float32)
    for target, loss in ((y, "log_loss"), (X[:, 1].astype(np.float64), "squared_error")):
        model = fastdt.fit_boosting(X, target, loss=loss, max_iter=2, max_leaf_nodes=4,
                                    early_stopping=False, random_state=0)
        fastdt.predict(model, X)


def _sparse():
    try:
        import scipy.sparse as sp
    except ImportError:  # sparse X needs scipy, and so does its warm-up
        return
    import fastdt

    for dtype in (np.float32, np.float64):
        X, y, rng = _data(dtype)
        X[rng.random(X.shape) < 0.5] = 0.0
        X[rng.random(X.shape) < 0.05] = np.nan
        S = sp.csr_matrix(X)
        w = rng.uniform(0.5, 1.5, X.shape[0])
        for target in (y, X[:, 1].astype(np.float64)):
            target = np.nan_to_num(target)
            fastdt.fit(S, target, max_depth=3)
            fastdt.fit(S, target, sample_weight=w, max_depth=3, max_leaf_nodes=5,
                       max_features=2, random_state=0, monotonic_cst=[1, 0, 0, 0])
            fastdt.fit(S, target, max_depth=3, splitter="random", random_state=0)
            fastdt.fit(S, target, max_depth=3, splitter="hist")


def _categorical():
    import fastdt

    for dtype in (np.float32, np.float64):
        X, y, rng = _data(dtype)
        Xc = _with_holes(X, rng)
        for splitter in ("best", "random", "hist"):
            for target in (y, X[:, 1].astype(np.float64)):
                t = fastdt.fit(Xc, target, max_depth=3, categorical_features=[3],
                               splitter=splitter)
                fastdt.predict(t, Xc)
        y3 = (y + (X[:, 2] > 0)).astype(np.int64)  # three classes: exhaustive subsets
        fastdt.fit(Xc, y3, max_depth=3, categorical_features=[3])
        fastdt.fit(Xc, y, max_depth=3)  # numeric, with holes
        fastdt.predict(fastdt.fit(X, y, max_depth=3), Xc)


def _missing():
    import fastdt

    for dtype in (np.float32, np.float64):
        X, y, rng = _data(dtype)
        Xc = _with_holes(X, rng)
        for missing in ("fractional", "surrogate"):
            for cats in (None, [3]):
                for target in (y, X[:, 1].astype(np.float64)):
                    t = fastdt.fit(Xc, target, max_depth=3, missing=missing,
                                   categorical_features=cats)
                    fastdt.predict(t, Xc)


def _pruning():
    import fastdt

    for dtype in (np.float32, np.float64):
        X, y, rng = _data(dtype)
        t = fastdt.fit(X, y)
        fastdt.cost_complexity_pruning_path(t)
        fastdt.prune(t, 0.01)
        fastdt.ccp_cv(X, y, cv=2)
        fastdt.prune_reduced_error(t, X, y)
        fastdt.prune_reduced_error(fastdt.fit(X, X[:, 1].astype(np.float64)), X,
                                   X[:, 1].astype(np.float64))


def _inspection():
    import fastdt
    from fastdt.inspection import permutation_importance

    for dtype in (np.float32, np.float64):
        X, y, rng = _data(dtype)
        Xc = _with_holes(X, rng)
        for t, Xp in ((fastdt.fit(X, y, max_depth=3), X),
                      (fastdt.fit(Xc, y, max_depth=3, categorical_features=[3]), Xc),
                      (fastdt.fit(Xc, y, max_depth=3, missing="fractional"), Xc)):
            permutation_importance(t, Xp, y, n_repeats=1)
            fastdt.decision_path(t, Xp)
            fastdt.explain(t, Xp[:2])


def _rules():
    import fastdt
    from fastdt.rules import RuleList

    for dtype in (np.float32, np.float64):
        X, y, rng = _data(dtype)
        rules = RuleList.from_tree(fastdt.fit(X, y, max_depth=3))
        rules.predict(X)
        rules.prune(X, y)
        rules.prune(X, y, method="pessimistic")


def _multiway():
    import fastdt

    X, y, rng = _data(np.float64)
    Xc = _with_holes(X, rng)
    t = fastdt.fit(Xc, y, algorithm="c4.5", categorical_features=[3])
    fastdt.predict(t, Xc)
    fastdt.apply(t, Xc)
    fastdt.predict(fastdt.fit(Xc[:, 3:], y, algorithm="id3", categorical_features=[0]), Xc[:, 3:])


#: name -> (what it compiles, function)
GROUPS = {
    "exact": ("exact fits and numeric prediction", _exact),
    "hist": ("histogram fits", _hist),
    "forest": ("forests", _forest),
    "boosting": ("gradient boosting (Newton trees on histograms, log-loss)", _boosting),
    "sparse": ("fits on sparse X", _sparse),
    "categorical": ("categorical features, missing values learned", _categorical),
    "missing": ("missing='fractional' and 'surrogate'", _missing),
    "pruning": ("cost-complexity and reduced-error pruning", _pruning),
    "inspection": ("permutation importance, decision_path, explain", _inspection),
    "rules": ("rule lists and C4.5 rule post-pruning", _rules),
    "multiway": ("ID3 and C4.5 multiway trees", _multiway),
}


def warmup(groups=None, *, quiet=False, file=None, bar_width=24):
    """Compile (or load from numba's cache) the kernels of ``groups`` (default: all).

    Prints a progress bar and the seconds each group took to ``file`` (default: standard
    error), unless ``quiet``.
    Returns ``{group: seconds}``. With a filled cache each group takes a fraction of a
    second (loading); in a fresh environment, the compilation (a minute or two for all).
    """
    names = list(GROUPS) if groups is None else list(groups)
    unknown = [g for g in names if g not in GROUPS]
    if unknown:
        raise ValueError(f"unknown warm-up group(s) {', '.join(map(repr, unknown))}; "
                         f"groups are {', '.join(GROUPS)}")
    import os

    file = None if quiet else (sys.stderr if file is None else file)
    quiet_env = os.environ.get("FASTDT_QUIET")
    os.environ["FASTDT_QUIET"] = "1"  # the bar says it; no first-compile notice
    seconds = {}
    try:
        for i, name in enumerate(names):
            if file is not None:
                _bar(file, i, len(names), f"compiling {name}: {GROUPS[name][0]}", bar_width)
            t = time.perf_counter()
            GROUPS[name][1]()
            seconds[name] = time.perf_counter() - t
            if file is not None:
                _bar(file, i + 1, len(names), f"{name} done in {seconds[name]:.1f} s",
                     bar_width, end="\n")
    finally:
        if quiet_env is None:
            os.environ.pop("FASTDT_QUIET", None)
        else:
            os.environ["FASTDT_QUIET"] = quiet_env
    if file is not None:
        print(f"fastdt warm-up: {len(names)} group(s) in {sum(seconds.values()):.1f} s; "
              "the kernels are cached for later processes", file=file, flush=True)
    return seconds


def _bar(file, done, total, text, width, end=""):
    filled = width * done // max(total, 1)
    line = f"[{'#' * filled}{'-' * (width - filled)}] {done}/{total} {text}"
    if getattr(file, "isatty", lambda: False)():
        print("\r\033[K" + line, end=end, file=file, flush=True)
    elif end:  # not a terminal: one line per finished group
        print(line, file=file, flush=True)

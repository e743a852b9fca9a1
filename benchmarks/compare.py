"""fastdt against scikit-learn, XGBoost and LightGBM, measured in one run.

Usage::

    python benchmarks/compare.py [--section all|synthetic|tables|pruning|small]
                                 [--rows 1000000] [--features 20] [--repeat 1]
                                 [--quick] [--threads N] [--skip-unlimited]
                                 [--table-depth 8] [--table-rows N]
                                 [--out results.md]

    python benchmarks/compare.py --section tables    # the real tables alone (~1 min)
    python benchmarks/compare.py --section pruning   # ccp_alpha by CV on Adult (~2 min)
    python benchmarks/compare.py --section small     # small data, grid search, busy core
    python benchmarks/compare.py --section sparse    # 1e6 x 10,000 CSR fit (~1 min)
    python benchmarks/compare.py --section forests   # 100-tree forests (~12 min)
    python benchmarks/compare.py --section boosting  # 100 boosting rounds (~4 min)
    python benchmarks/compare.py --section multiway  # C4.5 against Weka's J48 on Adult
    python benchmarks/compare.py --section scaling   # each phase on 1 and 2 threads (~5 min)
    python benchmarks/compare.py --section scaling --scaling-threads 1,2,4,8,16  # more cores

Data: ``sklearn.datasets.make_classification(n_samples=rows, n_features=features,
n_informative=10, random_state=0)`` cast to float32 (the precision sklearn's trees
work in, so every library sees the same values); the first 80% of the rows train,
the rest test. Prints the command line, the machine, the numba warm-up and start-up
times, a markdown table of exact trees against scikit-learn (plus XGBoost exact and
LightGBM), a table of histogram trees against LightGBM (plus scikit-learn's
HistGradientBoosting and XGBoost hist, one tree each) and the histogram-building and
binning throughput next to a bare numba loop (all also written to ``--out``). Fit
times are the best of ``--repeat`` runs and include each library's own data
preparation (fastdt's presort or binning, XGBoost's DMatrix, LightGBM's Dataset).

``--section tables`` (also part of ``all``, the default) fits one tree on two real
tables with categorical columns and missing values, UCI Adult (train/test files as
given) and Titanic (``fastdt.datasets.load_titanic_frame``'s seeded 75/25 split), read
from the shared datasets folder (``$FASTDT_DATASETS`` or ``../shared/datasets``; the
section is skipped when it is absent): fastdt on the raw DataFrame (native categorical
splits, each ``missing=`` strategy), fastdt and scikit-learn on ordinal-encoded and
one-hot-encoded copies, scikit-learn's HistGradientBoosting and LightGBM with their
native categorical support, all at ``--table-depth``. ``--section synthetic`` runs
the make_classification tables only. ``--section pruning`` (also part of ``all``)
chooses ``ccp_alpha`` on Adult by 5-fold cross-validation: fastdt's ``ccp_cv`` over
the whole path against scikit-learn's path + ``GridSearchCV`` over ``--ccp-grid``
alphas (``compare_pruning.py``). ``--section small`` (also part of ``all``) measures the
fixed cost of fits on small and medium data: one fit and a grid search on Adult against
scikit-learn, idle and with one core kept busy, and where threads start to pay
(``compare_small.py``). ``--section sparse`` (also part of ``all``) fits one tree on a
``--sparse-rows`` x ``--sparse-features`` CSR matrix of density 0.001, fastdt's exact and
histogram splitters against scikit-learn, and reports time and peak memory
(``sparse_fit.py``, a fresh process per fit). ``--section forests`` (also part of ``all``)
fits 100-tree random forests and extra trees on 250,000 x 20 rows (``--forest-rows``)
against scikit-learn, LightGBM's rf mode and R's ranger, each in a fresh process with
its peak memory (``compare_forests.py``). ``--section boosting`` (also part of ``all``)
fits 100 rounds of 255-leaf gradient boosting on 250,000 x 20 rows
(``--boosting-rows``) against LightGBM, XGBoost and HistGradientBoosting, each in a
fresh process, with fastdt's time per round against the rows and an accuracy table on
the shared tables (``compare_boosting.py``). ``--section multiway`` (also part of
``all``) fits C4.5 on Adult against Weka's J48 (``compare_multiway.py``).
``--section scaling`` (also part of ``all``) times every phase of an exact and a
histogram fit and of 20 boosting rounds on 1 and 2 threads (``--scaling-threads``), the
fits of boosting and forests beside LightGBM, XGBoost and scikit-learn on each count,
and the binning of ``--binning-rows`` x 20 values, with the serial share each implies
(``compare_scaling.py``).

This is a plain script, not an asv benchmark: asv imports it during discovery, so it
has no heavy imports at module level and no ``time_``/``track_``/``peakmem_`` names.
"""

import argparse
import importlib
import os
import platform
import shlex
import sys
import tempfile
import time


def _parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=1_000_000, help="total rows (80%% train)")
    p.add_argument("--features", type=int, default=20)
    p.add_argument("--repeat", type=int, default=1, help="fits per library; best is kept")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: one fit each, no cold/warm-start subprocesses")
    p.add_argument("--threads", type=int, default=None,
                   help="threads for fastdt (numba), XGBoost and LightGBM (default: all)")
    p.add_argument("--skip-unlimited", action="store_true",
                   help="skip the max_depth=None fits")
    p.add_argument("--section",
                   choices=("all", "synthetic", "tables", "pruning", "small", "sparse",
                            "forests", "boosting", "multiway", "scaling"),
                   default="all",
                   help="all (default), the make_classification tables only (synthetic), "
                        "the real tables with categorical columns only (tables), the "
                        "choice of ccp_alpha by cross-validation on Adult (pruning), "
                        "the fixed cost of fits on small data (small), a fit on a "
                        "sparse matrix (sparse), forests of 100 trees (forests), "
                        "gradient boosting (boosting), C4.5 against J48 (multiway) or "
                        "each phase of a fit, and the libraries' fits, on 1 and 2 "
                        "threads (scaling)")
    p.add_argument("--sparse-rows", type=int, default=1_000_000,
                   help="rows of the sparse section's CSR matrix")
    p.add_argument("--sparse-features", type=int, default=10_000,
                   help="columns of the sparse section's CSR matrix")
    p.add_argument("--ccp-grid", type=int, default=40,
                   help="alphas of the path scikit-learn's GridSearchCV gets (default 40)")
    p.add_argument("--table-depth", type=int, default=8,
                   help="max_depth of the real-table fits (default 8)")
    p.add_argument("--table-rows", type=int, default=None,
                   help="at most this many training rows per real table (seeded "
                        "subsample, for quick runs; default: all)")
    p.add_argument("--forest-rows", type=int, default=250_000,
                   help="total rows of the forests section (80%% train)")
    p.add_argument("--boosting-rows", type=int, default=250_000,
                   help="total rows of the boosting section (80%% train)")
    p.add_argument("--boosting-rounds", type=int, default=100,
                   help="rounds of the boosting section's speed table")
    p.add_argument("--binning-rows", type=int, default=10_000_000,
                   help="rows of the scaling section's binning (x 20 features; 0: skip)")
    p.add_argument("--scaling-threads", default="1,2",
                   help="thread counts of the scaling section (default 1,2)")
    p.add_argument("--out", default=None, help="also write the report to this file")
    args = p.parse_args(argv)
    if args.rows < 10 or args.features < 1 or args.repeat < 1:
        p.error("need --rows >= 10, --features >= 1, --repeat >= 1")
    if args.ccp_grid < 1:
        p.error("need --ccp-grid >= 1")
    if args.table_depth < 1 or (args.table_rows is not None and args.table_rows < 10):
        p.error("need --table-depth >= 1 and --table-rows >= 10")
    if args.quick:
        args.repeat = 1
    return args


def _optional(name):
    try:
        return __import__(name)
    except ImportError:
        return None


def _best(fn, repeat):
    """``(best seconds, last result)`` of ``repeat`` calls of ``fn``."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _machine_lines(threads, libs):
    import numba
    import numpy
    import sklearn

    import fastdt

    versions = [
        f"fastdt {fastdt.__version__}", f"numba {numba.__version__}",
        f"numpy {numpy.__version__}", f"scikit-learn {sklearn.__version__}",
    ]
    for name in ("lightgbm", "xgboost"):
        mod = libs.get(name)
        versions.append(f"{name} {mod.__version__}" if mod else f"{name} not installed")
    return [
        f"Machine: {_cpu_model()}, {os.cpu_count()} cores, threads used: {threads}; "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}",
        "Versions: " + ", ".join(versions),
    ]


class _Row:
    def __init__(self, task, library, seconds, rows, accuracy, nodes, same="", sk=None):
        self.task, self.library, self.seconds = task, library, seconds
        self.rows, self.accuracy, self.nodes, self.same = rows, accuracy, nodes, same
        self.sk = sk  # the reference library's seconds for the same task

    def cells(self, with_same=True):
        ratio = f"{self.sk / self.seconds:.2f}x" if self.sk else "-"
        return [
            self.task, self.library, f"{self.seconds:.3g}",
            f"{self.rows / self.seconds:,.0f}",
            "-" if self.accuracy != self.accuracy else f"{self.accuracy:.4f}",
            f"{self.nodes:,}" if self.nodes else "-", ratio, *([self.same or "-"] if with_same else []),
        ]


def _table(rows, ref="sklearn", with_same=True):
    head = ["task", "library", "seconds", "rows/s", "test accuracy", "nodes", f"vs {ref}"]
    align = ["---"] * 2 + ["---:"] * 5
    if with_same:
        head.append("same tree as sklearn")
        align.append(":---:")
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(r.cells(with_same)) + " |" for r in rows]
    return lines


def _gini_gain(y, mask):
    """Weighted Gini decrease of splitting labels ``y`` (ints) into ``mask``/``~mask``."""
    import numpy as np

    def g(v):
        if v.size == 0:
            return 0.0
        p = np.bincount(v) / v.size
        return 1.0 - float(np.sum(p * p))

    n = y.size
    return g(y) - mask.sum() / n * g(y[mask]) - (~mask).sum() / n * g(y[~mask])


def _same_tree(tree, clf, Xtr, ytr):
    """Walk both trees from the root. Where they split differently, score both splits
    on the node's training rows: equal scores are a tie (broken differently: scikit-learn
    by a random feature order, fastdt by the lowest feature index), anything else a real
    difference. Returns a short verdict for the table."""
    import numpy as np

    import fastdt

    s = clf.tree_
    indptr, indices = fastdt.decision_path(tree, Xtr)
    row_of = np.repeat(np.arange(Xtr.shape[0]), np.diff(indptr))
    ties = real = 0
    stack = [(0, 0)]
    while stack:
        a, b = stack.pop()
        a_leaf, b_leaf = tree.left[a] == fastdt.LEAF, s.children_left[b] == -1
        if a_leaf and b_leaf:
            continue
        if a_leaf != b_leaf or tree.feature[a] != s.feature[b] or tree.threshold[a] != s.threshold[b]:
            rows = row_of[indices == a]
            yn, Xn = ytr[rows], Xtr[rows]
            ours = _gini_gain(yn, Xn[:, tree.feature[a]] <= tree.threshold[a]) if not a_leaf else 0.0
            theirs = _gini_gain(yn, Xn[:, s.feature[b]] <= s.threshold[b]) if not b_leaf else 0.0
            if abs(ours - theirs) <= 1e-9 * max(abs(ours), abs(theirs), 1e-12):
                ties += 1
            else:
                real += 1
            continue
        stack += [(tree.left[a], s.children_left[b]), (tree.right[a], s.children_right[b])]
    if ties == real == 0:
        return "yes"
    if real == 0:
        return f"yes up to ties ({ties} tied splits broken differently)"
    return f"no ({real} different splits, {ties} ties)"


def _fit_rows(task, max_depth, data, threads, repeat, libs, with_boosters):
    import numpy as np
    from sklearn.tree import DecisionTreeClassifier

    import fastdt

    Xtr, ytr, Xte, yte = data
    n = Xtr.shape[0]
    sk_s, clf = _best(
        lambda: DecisionTreeClassifier(max_depth=max_depth, random_state=0).fit(Xtr, ytr),
        repeat,
    )
    fd_s, tree = _best(lambda: fastdt.fit(Xtr, ytr, max_depth=max_depth), repeat)
    out = [
        _Row(task, "fastdt (exact)", fd_s, n, np.mean(fastdt.predict(tree, Xte) == yte),
             tree.node_count, _same_tree(tree, clf, Xtr, ytr), sk_s),
        _Row(task, "scikit-learn", sk_s, n, np.mean(clf.predict(Xte) == yte),
             clf.tree_.node_count, "(reference)", sk_s),
    ]
    if not with_boosters:
        return out, (tree, clf)

    xgb = libs.get("xgboost")
    if xgb is not None:
        params = {
            "objective": "binary:logistic", "tree_method": "exact", "max_depth": max_depth,
            "learning_rate": 1.0, "lambda": 0.0, "min_child_weight": 0.0,
            "nthread": threads, "verbosity": 0,
        }

        def fit_xgb():
            return xgb.train(params, xgb.DMatrix(Xtr, label=ytr, nthread=threads),
                             num_boost_round=1)

        s, booster = _best(fit_xgb, repeat)
        p = booster.predict(xgb.DMatrix(Xte, nthread=threads))
        nodes = len(booster.trees_to_dataframe())
        out.append(_Row(task, "XGBoost (exact, 1 tree)", s, n,
                        np.mean((p > 0.5) == yte), nodes, "", sk_s))

    lgb = libs.get("lightgbm")
    if lgb is not None:
        params = {
            "objective": "binary", "learning_rate": 1.0, "num_leaves": 1024,
            "max_depth": max_depth, "min_data_in_leaf": 1, "min_sum_hessian_in_leaf": 0.0,
            "lambda_l2": 0.0, "max_bin": 255, "num_threads": threads, "verbose": -1,
        }

        def fit_lgb():
            return lgb.train(params, lgb.Dataset(Xtr, label=ytr), num_boost_round=1)

        s, booster = _best(fit_lgb, repeat)
        p = booster.predict(Xte)
        leaves = booster.dump_model()["tree_info"][0]["num_leaves"]
        out.append(_Row(task, "LightGBM (hist, 1 tree)", s, n,
                        np.mean((p > 0.5) == yte), 2 * leaves - 1, "", sk_s))
    return out, (tree, clf)


def _lightgbm_single_tree(lgb, Xtr, ytr, max_depth, threads, max_bins):
    """LightGBM configured as one plain tree (Dataset construction included)."""
    params = {
        "objective": "binary", "learning_rate": 1.0, "num_leaves": 1024,
        "max_depth": max_depth, "min_data_in_leaf": 1, "min_sum_hessian_in_leaf": 0.0,
        "lambda_l2": 0.0, "max_bin": max_bins, "num_threads": threads, "verbose": -1,
    }
    return lgb.train(params, lgb.Dataset(Xtr, label=ytr, params={"max_bin": max_bins,
                                                                 "verbose": -1}),
                     num_boost_round=1)


def _hist_rows(data, threads, repeat, libs, with_unlimited, max_bins=255, max_depth=10):
    """One tree of depth 10 on binned features, each library including its binning."""
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier

    import fastdt

    Xtr, ytr, Xte, yte = data
    n = Xtr.shape[0]
    task = f"fit, max_depth={max_depth}, {max_bins} bins"
    found = []

    def add(library, seconds, accuracy, nodes):
        found.append((library, seconds, accuracy, nodes))

    s, tree = _best(lambda: fastdt.fit(Xtr, ytr, max_depth=max_depth, splitter="hist",
                                       max_bins=max_bins), repeat)
    add("fastdt hist (binning included)", s, np.mean(fastdt.predict(tree, Xte) == yte),
        tree.node_count)
    sb, ds = _best(lambda: fastdt.Dataset(Xtr, max_bins=max_bins), repeat)
    sf, tree2 = _best(lambda: fastdt.fit(ds, ytr, max_depth=max_depth), repeat)
    add("fastdt hist: binning only (Dataset)", sb, float("nan"), 0)
    add("fastdt hist: fit on a Dataset", sf, np.mean(fastdt.predict(tree2, Xte) == yte),
        tree2.node_count)

    lgb = libs.get("lightgbm")
    if lgb is not None:
        s, booster = _best(lambda: _lightgbm_single_tree(lgb, Xtr, ytr, max_depth, threads,
                                                         max_bins), repeat)
        leaves = booster.dump_model()["tree_info"][0]["num_leaves"]
        add("LightGBM (1 tree, Dataset included)", s,
            np.mean((booster.predict(Xte) > 0.5) == yte), 2 * leaves - 1)

    for label, extra in (("max_leaf_nodes=31 default", {}),
                         ("max_leaf_nodes=None", {"max_leaf_nodes": None,
                                                  "min_samples_leaf": 1})):
        hgb = dict(max_iter=1, max_depth=max_depth, learning_rate=1.0, max_bins=max_bins,
                   early_stopping=False, l2_regularization=0.0, random_state=0, **extra)
        s, m = _best(lambda: HistGradientBoostingClassifier(**hgb).fit(Xtr, ytr), repeat)
        nodes = sum(len(p[0].nodes) for p in m._predictors)
        add(f"sklearn HistGradientBoosting (max_iter=1, {label})", s,
            np.mean(m.predict(Xte) == yte), nodes)

    xgb = libs.get("xgboost")
    if xgb is not None:
        params = {
            "objective": "binary:logistic", "tree_method": "hist", "max_depth": max_depth,
            "max_bin": max_bins, "learning_rate": 1.0, "lambda": 0.0,
            "min_child_weight": 0.0, "nthread": threads, "verbosity": 0,
        }
        s, booster = _best(lambda: xgb.train(params, xgb.DMatrix(Xtr, label=ytr,
                                                                 nthread=threads),
                                             num_boost_round=1), repeat)
        p = booster.predict(xgb.DMatrix(Xte, nthread=threads))
        add("XGBoost hist (1 tree, DMatrix included)", s, np.mean((p > 0.5) == yte),
            len(booster.trees_to_dataframe()))

    ref = next((sec for lib, sec, _, _ in found if lib.startswith("LightGBM")), None)
    rows = [_Row(task, lib, sec, n, acc, nodes, "", ref) for lib, sec, acc, nodes in found]
    if with_unlimited:
        s, tree = _best(lambda: fastdt.fit(Xtr, ytr, splitter="hist", max_bins=max_bins),
                        repeat)
        rows.append(_Row(f"fit, max_depth=None, {max_bins} bins",
                         "fastdt hist (binning included)", s, n,
                         np.mean(fastdt.predict(tree, Xte) == yte), tree.node_count))
    return rows


def _throughput_lines(Xtr, ytr, threads, repeat):
    """Histogram building and binning throughput, next to a bare numba loop that does
    nothing but build the same histograms (the ceiling of this machine)."""
    import numba
    import numpy as np
    from numba import prange

    import fastdt
    from fastdt._hist_build import build_features
    from fastdt._parallel import run

    @numba.njit(parallel=True, nogil=True)
    def bare(codes, y, out):
        for f in prange(codes.shape[0]):
            h = out[f]
            for i in range(codes.shape[1]):
                q = np.uint64(i)  # unsigned: no wrap-around test, as in fastdt
                h[codes[f, q], np.uint32(y[q])] += 1.0

    ds = fastdt.Dataset(Xtr)
    codes = ds.codes
    n_features, n = codes.shape
    rows = np.arange(n, dtype=np.int64)
    ycode = np.ascontiguousarray(ytr, dtype=np.int32)
    width = int(ds.n_bins.max())
    pool = np.zeros((1, n_features, width, 2))
    jobs = np.array([[0, n, 0, -1]], dtype=np.int64)
    rstat = np.empty((n, 0))
    reps = max(5, repeat)

    def ours():
        run(build_features, n_features, n * n_features, codes, rows, jobs, pool, ds.n_bins,
            ycode, rstat, True, False)

    out = np.zeros((n_features, width, 2))
    bare(codes, ycode, out)
    ours()
    t_ours, _ = _best(ours, reps)
    t_bare, _ = _best(lambda: bare(codes, ycode, out), reps)
    t_bin, _ = _best(lambda: fastdt.Dataset(Xtr), reps)
    updates = n * n_features

    def ns(t):
        return f"{1e9 * t / updates:.2f} ns per (row, feature) update on {threads} threads, " \
               f"{updates / t / threads / 1e6:,.0f} M updates/s per core"

    return [
        f"Histogram building, {n:,} rows x {n_features} features (uint8 codes, 2 classes): "
        f"fastdt `build_features` {1e3 * t_ours:.1f} ms = {ns(t_ours)}; bare numba loop "
        f"{1e3 * t_bare:.1f} ms = {ns(t_bare)}.  ",
        f"Binning (`fastdt.Dataset`, 255 bins, edges from 200,000 sampled rows): "
        f"{t_bin:.3f} s = {1e9 * t_bin / updates:.2f} ns per value.  ",
    ]


def _predict_rows(tree, clf, Xte, yte, repeat):
    """predict_proba throughput on ``Xte`` (all rows of the data set)."""
    import numpy as np

    import fastdt

    reps = max(3, repeat)
    sk_s, sk_p = _best(lambda: clf.predict_proba(Xte), reps)
    fd_s, fd_p = _best(lambda: fastdt.predict_proba(tree, Xte), reps)
    n = Xte.shape[0]
    task = f"predict_proba of {n:,} rows (all; accuracy on all), depth 10"
    differ = np.any(fd_p != sk_p, axis=1).mean()
    same = "yes" if differ == 0 else f"differs on {differ:.2%} of rows (tied splits)"
    return [
        _Row(task, "fastdt", fd_s, n, np.mean(fastdt.predict(tree, Xte) == yte),
             tree.node_count, same, sk_s),
        _Row(task, "scikit-learn", sk_s, n, np.mean(clf.predict(Xte) == yte),
             clf.tree_.node_count, "(reference)", sk_s),
    ]


# ------------------------------------------------------------------------------------
# real tables with categorical columns and missing values (``--section tables``)
# ------------------------------------------------------------------------------------

#: fastdt's missing-value strategies, in table order; a strategy whose fit raises
#: "not implemented yet" is listed as not available (picked up once it lands).
_MISSING = ("learn", "fractional", "surrogate")


def _real_tables(table_rows):
    """``[(name, (X_train, y_train, X_test, y_test))]`` of the shared datasets, raw
    DataFrames (``fastdt.datasets``); training rows subsampled (seeded) to at most
    ``table_rows``. Raises ``FileNotFoundError`` when the files are absent."""
    import numpy as np

    from fastdt.datasets import load_adult_frame, load_titanic_frame

    out = []
    for name, load in (("Adult", load_adult_frame), ("Titanic", load_titanic_frame)):
        Xtr, ytr, Xte, yte = load()
        if table_rows is not None and table_rows < len(ytr):
            keep = np.sort(np.random.default_rng(0).choice(len(ytr), table_rows, replace=False))
            Xtr, ytr = Xtr.iloc[keep].reset_index(drop=True), ytr[keep]
        out.append((name, (Xtr, ytr, Xte, yte)))
    return out


def _encoded(X_train, X_test):
    """``{"ordinal codes": (train, test), "one-hot": (train, test)}`` as float64 arrays:
    category columns as their codes (NaN where missing) or as one 0/1 column per
    category (pandas ``get_dummies``: a missing value is all zeros); numeric and bool
    columns as numbers, NaN kept. Both splits share their category dtypes, so the codes
    and dummy columns agree."""
    import numpy as np
    import pandas as pd

    if not (X_train.dtypes == X_test.dtypes).all():
        raise ValueError("train and test need the same column dtypes (shared categories)")
    cats = [c for c in X_train.columns if isinstance(X_train[c].dtype, pd.CategoricalDtype)]

    def ordinal(X):
        X = X.copy()
        for c in cats:
            codes = X[c].cat.codes.to_numpy().astype(np.float64)
            codes[codes < 0] = np.nan
            X[c] = codes
        return X.to_numpy(np.float64, na_value=np.nan)

    def one_hot(X):
        return pd.get_dummies(X, columns=cats, dtype=np.float64).to_numpy(
            np.float64, na_value=np.nan)

    return {"ordinal codes": (ordinal(X_train), ordinal(X_test)),
            "one-hot": (one_hot(X_train), one_hot(X_test))}


def _table_cases(data, enc, depth, threads, libs):
    """``[(model, input, fit, predict, leaves)]`` for one table at ``max_depth=depth``:
    ``fit()`` returns a model, ``predict(model)`` the test labels, ``leaves(model)``
    its number of leaves."""
    import contextlib

    import numpy as np
    import pandas as pd
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.tree import DecisionTreeClassifier

    import fastdt

    Xtr, ytr, Xte, yte = data
    native = "raw DataFrame (native categorical)"

    def fd_leaves(tree):
        return int(np.sum(tree.left == fastdt.LEAF))

    cases = []
    for missing in _MISSING:
        cases.append((f"fastdt, missing={missing!r}", native,
                      lambda m=missing: fastdt.fit(Xtr, ytr, max_depth=depth, missing=m),
                      lambda t: fastdt.predict(t, Xte), fd_leaves))
    cases.append(("fastdt hist (255 bins), missing='learn'", native,
                  lambda: fastdt.fit(Xtr, ytr, max_depth=depth, splitter="hist"),
                  lambda t: fastdt.predict(t, Xte), fd_leaves))
    for name, (A, B) in enc.items():
        cases.append(("fastdt", name, lambda A=A: fastdt.fit(A, ytr, max_depth=depth),
                      lambda t, B=B: fastdt.predict(t, B), fd_leaves))
    for name, (A, B) in enc.items():
        cases.append(("scikit-learn DecisionTreeClassifier", name,
                      lambda A=A: DecisionTreeClassifier(max_depth=depth,
                                                         random_state=0).fit(A, ytr),
                      lambda m, B=B: m.predict(B), lambda m: int(m.get_n_leaves())))
    if depth is None:  # the boosters below grow one depth-limited tree
        return cases

    tpc = _optional("threadpoolctl")  # a scikit-learn dependency: OpenMP threads of HGB

    def fit_hgb():
        limit = (tpc.threadpool_limits(limits=threads, user_api="openmp") if tpc
                 else contextlib.nullcontext())
        with limit:
            return HistGradientBoostingClassifier(
                max_iter=1, learning_rate=1.0, max_depth=depth, max_leaf_nodes=None,
                min_samples_leaf=1, l2_regularization=0.0, max_bins=255,
                categorical_features="from_dtype", early_stopping=False, random_state=0,
            ).fit(Xtr, ytr)

    cases.append(("scikit-learn HistGradientBoosting (max_iter=1: one tree)", native,
                  fit_hgb, lambda m: m.predict(Xte),
                  lambda m: int(m._predictors[0][0].nodes["is_leaf"].sum())))

    lgb = libs.get("lightgbm")
    if lgb is not None:
        cats = [c for c in Xtr.columns if isinstance(Xtr[c].dtype, pd.CategoricalDtype)]
        params = {
            # one plain tree: a single Newton step from the prior, no shrinkage, no
            # leaf-size or hessian limits, no L2; num_leaves = 2**depth so that the
            # leaf-wise growth is bounded by max_depth only, as the others
            "objective": "binary", "learning_rate": 1.0, "max_depth": depth,
            "num_leaves": min(2 ** depth, 131_072), "min_data_in_leaf": 1,
            "min_sum_hessian_in_leaf": 0.0, "lambda_l2": 0.0,
            # binning: 255 bins, min_data_in_bin=1 (default 3) so that no rare
            # category is merged into the "other" bin
            "max_bin": 255, "min_data_in_bin": 1,
            # categorical splits at their least regularised: max_cat_to_onehot=1
            # (default 4; one-vs-rest below it) so that every feature takes the
            # many-vs-many search over categories sorted by sum(g)/(sum(h)+cat_smooth);
            # cat_smooth=0 (default 10; it also drops categories with fewer rows than
            # itself from that search) makes the order Breiman's, the class fraction;
            # cat_l2=0 (default 10; extra L2 on categorical gains only);
            # min_data_per_group=1 (default 100 rows per side); max_cat_threshold=255
            # (default 32; LightGBM caps it at half the categories anyway)
            "max_cat_to_onehot": 1, "cat_smooth": 0.0, "cat_l2": 0.0,
            "min_data_per_group": 1, "max_cat_threshold": 255,
            "num_threads": threads, "seed": 0, "verbose": -1,
        }

        def fit_lgb():
            ds = lgb.Dataset(Xtr, label=ytr, categorical_feature=cats,
                             params={"max_bin": 255, "min_data_in_bin": 1, "verbose": -1})
            return lgb.train(params, ds, num_boost_round=1)

        cases.append(("LightGBM (1 tree, Dataset included)", native, fit_lgb,
                      lambda b: (b.predict(Xte) > 0.5).astype(np.int64),
                      lambda b: int(b.dump_model()["tree_info"][0]["num_leaves"])))
    return cases


def _table_rows(name, data, enc, depth, threads, repeat, libs):
    """Markdown rows of one table at one depth. Every model is fitted once untimed
    first (numba compilation or cache load, library start-up), then ``repeat`` times."""
    import numpy as np

    yte = data[3]
    out = []
    for model, given, fit, predict, leaves in _table_cases(data, enc, depth, threads, libs):
        try:
            fit()
        except (ValueError, NotImplementedError) as e:
            if isinstance(e, ValueError) and "not implemented yet" not in str(e):
                raise
            out.append([name, str(depth), model, given, "not available (not implemented "
                        "yet)", "-", "-"])
            continue
        s, m = _best(fit, repeat)
        acc = float(np.mean(np.asarray(predict(m)) == yte))
        out.append([name, str(depth), model, given, f"{s:.3g}", f"{acc:.4f}",
                    f"{leaves(m):,}"])
    return out


def _tables_section(args, threads, libs, say):
    """Adult and Titanic: native categorical splits against encodings and libraries."""
    import pandas as pd

    from fastdt.datasets import datasets_folder

    depths = (args.table_depth, *(() if args.skip_unlimited else (None,)))
    say(f"Real tables with categorical columns and missing values (one tree each, "
        f"max_depth={' and '.join(str(d) for d in depths)}; fit seconds are the best "
        f"of {args.repeat} after one untimed fit):")
    say("")
    try:
        tables = _real_tables(args.table_rows)
    except FileNotFoundError as e:
        say(f"Skipped: the shared datasets are not found ({e}); set FASTDT_DATASETS "
            f"(looked in {datasets_folder()}).")
        return
    say("Rows: *fastdt, missing=...* fits the raw DataFrame (pandas category and bool "
        "columns are categorical: exact subset splits, categories ordered by class "
        "fraction for two classes), once per missing-value strategy ('learn': each split "
        "sends the missing rows to the better side; 'fractional': C4.5's weighted "
        "fractions down both sides; 'surrogate': CART's surrogate splits), its time "
        "including the DataFrame conversion; *fastdt hist* bins it first (one bin per "
        "category, one for missing values; binning included). *ordinal codes* replaces each categorical "
        "column by its category codes as numbers (thresholds on an arbitrary order, NaN "
        "kept), *one-hot* by one 0/1 column per category (pandas get_dummies, a missing "
        "category is all zeros, NaN kept in the numeric columns); this encoding is done "
        "once beforehand and not timed. scikit-learn's DecisionTreeClassifier fits the "
        "same arrays (NaN learned as fastdt's 'learn'). HistGradientBoosting "
        "(max_iter=1, learning_rate=1, no leaf or L2 limits, 255 bins, "
        "categorical_features='from_dtype') and LightGBM (num_boost_round=1, "
        "learning_rate=1, min_data_in_leaf=1, min_sum_hessian_in_leaf=0, lambda_l2=0, "
        "categorical regularisation off: cat_smooth=0, cat_l2=0, min_data_per_group=1, "
        "max_cat_to_onehot=1) grow ONE gradient-boosting tree on binned numeric columns "
        "with native categorical splits: its splits are Gini's on the first gradient "
        "step, but each leaf predicts a Newton step from the prior, so a leaf whose "
        "class fraction lies between the prior-dependent cut and 0.5 predicts the other "
        "class than a decision tree would. Leaves: the number of leaves of the tree.")
    say("")
    head = ["data", "max_depth", "model", "input", "fit s", "test accuracy", "leaves"]
    for name, data in tables:
        Xtr, ytr, Xte, yte = data
        enc = _encoded(Xtr, Xte)
        cats = [c for c in Xtr.columns if isinstance(Xtr[c].dtype, pd.CategoricalDtype)]
        nan_cols = [c for c in Xtr.columns if Xtr[c].isna().any() or Xte[c].isna().any()]
        say(f"{name}: {len(ytr):,} train / {len(yte):,} test rows, {Xtr.shape[1]} columns "
            f"({len(cats)} category, "
            f"{sum(Xtr[c].dtype == bool for c in Xtr.columns)} bool), one-hot "
            f"{enc['one-hot'][0].shape[1]} columns; missing values in "
            f"{', '.join(nan_cols) or 'none'} "
            f"({Xtr.isna().any(axis=1).mean():.1%} of the training rows).  ")
        say("")
        rows = []
        for depth in depths:
            rows += _table_rows(name, data, enc, depth, threads, args.repeat, libs)
        say("| " + " | ".join(head) + " |")
        say("|" + "|".join(["---"] * 4 + ["---:"] * 3) + "|")
        for r in rows:
            say("| " + " | ".join(r) + " |")
        say("")


def _synthetic_section(args, threads, libs, say):
    """The make_classification tables (exact and histogram trees, throughput)."""
    import numpy as np
    from sklearn.datasets import make_classification

    import common

    n_inf = min(10, args.features)
    X, y = make_classification(
        n_samples=args.rows, n_features=args.features, n_informative=n_inf,
        n_redundant=min(2, args.features - n_inf), random_state=0,
    )
    X = np.ascontiguousarray(X, dtype=np.float32)
    cut = int(0.8 * args.rows)
    data = (X[:cut], y[:cut], X[cut:], y[cut:])
    say(f"Data: make_classification, {args.rows:,} rows x {args.features} features "
        f"(float32), {cut:,} train / {args.rows - cut:,} test; fit times are the best of "
        f"{args.repeat}.  ")

    say(f"fastdt JIT warm-up (compile or cache load; fit+predict on "
        f"{common.WARMUP_ROWS:,} rows): {common.warm_up(np.float32):.2f} s  ")
    if not args.quick:
        with tempfile.TemporaryDirectory(prefix="fastdt-numba-") as d:
            cold = common.startup_times(d, threads=threads)
            warm = common.startup_times(d, threads=threads)
        for name, t in (("cold start (empty NUMBA_CACHE_DIR)", cold),
                        ("warm start (filled NUMBA_CACHE_DIR)", warm)):
            say(f"{name}: import {t['import']:.2f} s + first fit+predict on "
                f"{common.WARMUP_ROWS:,} rows {t['fit_predict']:.2f} s = {t['total']:.2f} s  ")
    say("")

    rows, trees = _fit_rows("fit, max_depth=10", 10, data, threads, args.repeat,
                            libs, with_boosters=True)
    if not args.skip_unlimited:
        unl, _ = _fit_rows("fit, max_depth=None", None, data, threads, args.repeat,
                           libs, with_boosters=False)
        rows += unl
    rows += _predict_rows(*trees, X, y, args.repeat)  # every row, train and test

    for line in _table(rows):
        say(line)
    say("")
    say("Histogram splitter (one tree; each library's binning included unless noted):")
    say("")
    for line in _table(_hist_rows(data, threads, args.repeat, libs,
                                  not args.skip_unlimited),
                       ref="LightGBM", with_same=False):
        say(line)
    say("")
    for line in _throughput_lines(data[0], data[1], threads, args.repeat):
        say(line)
    say("")
    for line in _absolute_error_lines(min(args.rows, 100_000), args.repeat):
        say(line)
    say("")
    say("Ties between equally good splits: scikit-learn breaks them by its random feature "
        "order (random_state), fastdt by the lowest feature index, so the two trees can "
        "differ where ties occur (small nodes, redundant features).")


def _absolute_error_lines(n, repeat):
    """criterion="absolute_error" (weighted-median leaves), fastdt against scikit-learn:
    a regression target with heavy-tailed noise, 80% train."""
    import numpy as np
    from sklearn.tree import DecisionTreeRegressor as SkTree

    from fastdt import DecisionTreeRegressor as FdTree

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 10)).astype(np.float32)
    y = X[:, 0] + np.abs(X[:, 1]) - X[:, 2] * X[:, 3] + rng.standard_t(2, size=n)
    cut = int(0.8 * n)
    FdTree(criterion="absolute_error", max_depth=2).fit(X[:500], y[:500])  # compile/load
    lines = [f"criterion='absolute_error': {n:,} rows x 10 features (float32), heavy-tailed "
             f"noise, {cut:,} train; fit seconds (best of {repeat}), test mean absolute error, "
             "nodes.", "", "| max_depth | fastdt (s) | scikit-learn (s) | speed-up | "
             "MAE fastdt | MAE scikit-learn | nodes fastdt | nodes scikit-learn |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for depth in (8, None):
        fits = {}
        for name, cls in (("fastdt", FdTree), ("sklearn", SkTree)):
            def fit():
                return cls(criterion="absolute_error", max_depth=depth).fit(X[:cut], y[:cut])
            t, model = _best(fit, repeat)
            err = float(np.mean(np.abs(model.predict(X[cut:]) - y[cut:])))
            fits[name] = (t, err, model.tree_.node_count)
        (tf, ef, nf), (ts, es, ns) = fits["fastdt"], fits["sklearn"]
        lines.append(f"| {depth} | {tf:.3f} | {ts:.3f} | {ts / tf:.1f}x | {ef:.4f} | "
                     f"{es:.4f} | {nf:,} | {ns:,} |")
    return lines


def main(argv=None):
    args = _parse(sys.argv[1:] if argv is None else argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import common  # also makes a checkout's fastdt importable

    import numba

    threads = common.set_threads(args.threads or numba.config.NUMBA_NUM_THREADS)
    libs = {name: _optional(name) for name in ("xgboost", "lightgbm")}

    cmd = "python " + " ".join(shlex.quote(a) for a in
                                [os.path.relpath(sys.argv[0])] + sys.argv[1:])
    report = [f"Command: `{cmd}`", ""]
    report += [f"{line}  " for line in _machine_lines(threads, libs)]
    print("\n".join(report), flush=True)

    def say(line):
        report.append(line)
        print(line, flush=True)

    if args.section in ("all", "synthetic"):
        _synthetic_section(args, threads, libs, say)
    if args.section in ("all", "tables"):
        if args.section == "all":
            say("")
        _tables_section(args, threads, libs, say)
    # the sections in modules of their own: (name, module, function(args, threads, say))
    for name, module, function in (("pruning", "compare_pruning", "pruning_section"),
                                   ("small", "compare_small", "small_section"),
                                   ("sparse", "sparse_fit", "sparse_section"),
                                   ("forests", "compare_forests", "forests_section"),
                                   ("boosting", "compare_boosting", "boosting_section"),
                                   ("multiway", "compare_multiway", "multiway_section"),
                                   ("scaling", "compare_scaling", "scaling_section")):
        if args.section in ("all", name):
            if args.section == "all":
                say("")
            getattr(importlib.import_module(module), function)(args, threads, say)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(report) + "\n")
        print(f"\n(written to {args.out})")
    return 0

if __name__ == "__main__":
    sys.exit(main())

"""Shared pieces of the asv suite and of ``compare.py``.

* seeded datasets behind ``functools.lru_cache`` (numpy only; the generators must not
  be changed, only appended, so that results stay comparable across commits);
* :func:`warm_up`: compile (or load from the numba cache) every kernel that a
  benchmark times, called from ``setup`` so ``time_*``/``peakmem_*`` measure the
  algorithm and not LLVM;
* :func:`bench_threads` / :func:`set_threads`: the numba thread count, taken from the
  environment variable ``FASTDT_BENCH_THREADS`` (default: every thread numba has);
* :func:`startup_times`: import + first fit/predict in a fresh interpreter with a
  given ``NUMBA_CACHE_DIR`` (cold and warm start; ``startup.py`` has the phases).

asv imports this module during discovery: keep it light (no fastdt/numba import at
module level) and give nothing here a ``time_``/``track_``/``peakmem_`` name.
"""

import functools
import importlib.util
import os
import sys
import time

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# `asv run --python=same` runs in the current interpreter without installing the
# project: fall back to the checkout only when fastdt is not importable (environments
# that asv builds have the commit under test installed, which must win).
if importlib.util.find_spec("fastdt") is None:
    sys.path.insert(0, REPO_ROOT)

#: dtype of X in the suite (sklearn works in float32 too, so compare.py matches).
DTYPE = np.float32
#: rows of the warm-up fit; also the size of the start-up probes.
WARMUP_ROWS = 1_000
#: default number of features of the benchmark datasets.
N_FEATURES = 20


def rows_param(default):
    """Row counts for ``params``; ``FASTDT_BENCH_ROWS=1000,5000`` overrides (smoke runs)."""
    env = os.environ.get("FASTDT_BENCH_ROWS", "").strip()
    if not env:
        return list(default)
    return [int(float(r)) for r in env.split(",") if r.strip()]


# ----------------------------------------------------------------------------------
# datasets (must not be changed -- only appended)
# ----------------------------------------------------------------------------------

def _features(rng, rows, n_features, n_informative):
    """Gaussian features: informative, redundant (linear mixes) and noise columns."""
    X = np.empty((rows, n_features))
    X[:, :n_informative] = rng.standard_normal((rows, n_informative))
    n_redundant = min(2, n_features - n_informative)
    if n_redundant:
        mix = rng.uniform(-1.0, 1.0, size=(n_informative, n_redundant))
        X[:, n_informative:n_informative + n_redundant] = X[:, :n_informative] @ mix
    rest = n_informative + n_redundant
    X[:, rest:] = rng.standard_normal((rows, n_features - rest))
    return X


@functools.lru_cache(maxsize=8)
def classification(rows, n_features=N_FEATURES, seed=0, dtype=DTYPE, n_classes=2):
    """``make_classification``-style data: Gaussian clusters on hypercube vertices.

    ``n_informative = min(10, n_features)`` columns carry the signal (two clusters per
    class), two are linear mixes of them, the rest is noise; 1% of the labels are
    flipped at random. Returns ``(X, y)`` with ``X`` C-contiguous of ``dtype`` and
    ``y`` int64. Cached: do not modify the arrays.
    """
    rng = np.random.default_rng(seed)
    n_inf = min(10, n_features)
    n_clusters = 2 * n_classes
    centroids = rng.choice([-1.5, 1.5], size=(n_clusters, n_inf))
    cluster = rng.integers(0, n_clusters, size=rows)
    y = cluster % n_classes
    X = _features(rng, rows, n_features, n_inf)
    X[:, :n_inf] += centroids[cluster]
    flip = rng.random(rows) < 0.01
    y[flip] = rng.integers(0, n_classes, size=int(flip.sum()))
    return np.ascontiguousarray(X, dtype=dtype), y.astype(np.int64)


@functools.lru_cache(maxsize=8)
def regression(rows, n_features=N_FEATURES, seed=0, dtype=DTYPE):
    """Smooth nonlinear target of ``min(10, n_features)`` columns plus Gaussian noise.

    Returns ``(X, y)`` with ``X`` of ``dtype`` and ``y`` float64. Cached: do not modify.
    """
    rng = np.random.default_rng(seed)
    n_inf = min(10, n_features)
    X = _features(rng, rows, n_features, n_inf)
    coef = rng.uniform(-2.0, 2.0, size=n_inf)
    y = X[:, :n_inf] @ coef + 3.0 * np.sin(X[:, 0] * X[:, 1]) + rng.standard_normal(rows)
    return np.ascontiguousarray(X, dtype=dtype), y


# ----------------------------------------------------------------------------------
# threads and JIT warm-up
# ----------------------------------------------------------------------------------

def bench_threads():
    """``FASTDT_BENCH_THREADS`` if set (> 0), else every thread numba may use."""
    import numba

    env = os.environ.get("FASTDT_BENCH_THREADS", "").strip()
    n = int(env) if env else 0
    return n if n > 0 else numba.config.NUMBA_NUM_THREADS


def set_threads(n=None):
    """``numba.set_num_threads`` (default :func:`bench_threads`); returns the count. Also
    turns fastdt's cache of preparations off (``fastdt.set_prepare_cache(0)``): the
    suite times fits, each preparing its data, not refits of data prepared before (a
    benchmark that times refits turns it on again)."""
    import numba

    import fastdt

    fastdt.set_prepare_cache(0)

    n = bench_threads() if n is None else int(n)
    if not 1 <= n <= numba.config.NUMBA_NUM_THREADS:
        raise ValueError(
            f"threads={n}: numba allows 1..{numba.config.NUMBA_NUM_THREADS} here "
            "(set NUMBA_NUM_THREADS before starting Python for more)"
        )
    numba.set_num_threads(n)
    return n


@functools.lru_cache(maxsize=None)
def warm_up(dtype=DTYPE):
    """Compile or cache-load every kernel the suite times, for X of ``dtype``.

    Fits a classification and a regression tree on :data:`WARMUP_ROWS` rows with each
    splitter and runs predict, predict_proba, apply and decision_path once. Returns the seconds it
    took (compile or cache load); later calls in the same process return at once.
    """
    import fastdt

    t0 = time.perf_counter()
    X, y = classification(WARMUP_ROWS, seed=12345, dtype=dtype)
    tree = fastdt.fit(X, y, max_depth=10)
    fastdt.predict(tree, X)
    fastdt.predict_proba(tree, X)
    fastdt.apply(tree, X)
    fastdt.decision_path(tree, X)
    Xr, yr = regression(WARMUP_ROWS, seed=12345, dtype=dtype)
    fastdt.predict(fastdt.fit(Xr, yr, max_depth=10), Xr)
    fastdt.fit(fastdt.Dataset(X), y, max_depth=10)  # the histogram splitter's kernels
    fastdt.fit(Xr, yr, max_depth=10, splitter="hist")
    return time.perf_counter() - t0


# ----------------------------------------------------------------------------------
# start-up in a fresh interpreter
# ----------------------------------------------------------------------------------

def startup_times(cache_dir, *, fit=True, threads=None, timeout=600):
    """``import fastdt`` (+ a first exact fit and predict on 1,000 rows) in a fresh
    interpreter with ``NUMBA_CACHE_DIR=cache_dir`` (empty: a cold start; filled by an
    earlier call: a warm start). Interpreter start-up itself is not counted. Returns
    ``{"import": s, "fit_predict": s, "total": s}``; ``benchmarks/startup.py`` times
    every phase."""
    try:
        from .startup import run_phases
    except ImportError:  # run as a script (compare.py)
        from startup import run_phases

    phases = ("import", "exact_fit", "predict") if fit else ("import",)
    t = run_phases(cache_dir, phases, threads, timeout)["times"]
    out = {"import": t["import"], "fit_predict": t.get("exact_fit", 0.0) + t.get("predict", 0.0)}
    out["total"] = out["import"] + out["fit_predict"]
    return out

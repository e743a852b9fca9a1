"""The fixed cost of a fit on small and medium data: fastdt against scikit-learn.

Run through ``benchmarks/compare.py --section small`` (``--repeat``, ``--threads``).

* **Adult as users have it**: the training file's 32,561 rows, a seeded 80% of them
  (26,048), categorical columns as ordinal codes (``fastdt.datasets.load_adult``),
  labels as the strings ``"<=50K"``/``">50K"``; one ``DecisionTreeClassifier`` fit at
  ``max_depth=8`` (fastdt's and scikit-learn's estimators, timed through ``fit``).
* **A grid search**: ``GridSearchCV`` over 18 settings (``max_depth`` 4, 6, 8, 10, 12,
  None x ``min_samples_leaf`` 1, 5, 20), 5 folds, refit, with ``n_jobs=1`` and
  ``n_jobs=2`` (joblib's processes; each worker gets ``NUMBA_NUM_THREADS=1``), with
  fastdt's cache of preparations on (``fastdt.set_prepare_cache``: a fold's second and
  later fits take its kept preparation), and with it off (``n_jobs=1``); the single fit
  and the forests with it off (each fit prepares its data).
* **A busy machine**: the same with a second process keeping one core busy (a Python
  busy loop), to see that fastdt is slowed no more than scikit-learn.
* **Forests on Adult**: ``RandomForestClassifier`` and ``ExtraTreesClassifier`` of 100
  trees with their defaults (unlimited depth), ``n_jobs`` the thread count, fastdt's
  against scikit-learn's; with the levels of fastdt's trees (each level of each tree
  partitions the exact layout in every feature and is one pass of the growth driver).
* **Where threads start to pay**: fits of ``n x 10`` rows (``make_classification``,
  ``max_depth=8``) on one thread and on every thread, to place
  ``fastdt._parallel.SERIAL_WORK``.

Times are the best of ``--repeat`` runs after one untimed run. A plain module, not an
asv benchmark (no ``time_`` names, no heavy imports at module level).
"""

import contextlib
import subprocess
import sys

SETTINGS = {"max_depth": [4, 6, 8, 10, 12, None], "min_samples_leaf": [1, 5, 20]}


@contextlib.contextmanager
def busy_core():
    """A second process keeping one core busy while the block runs."""
    proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        proc.kill()
        proc.wait()


def adult_as_it_comes():
    """``(X, y)``: 80% of Adult's training rows (seeded), ordinal codes, string labels."""
    import numpy as np

    from fastdt.datasets import _read_adult, load_adult

    X, _, _, _ = load_adult()
    labels = _read_adult(None)[0]["income"].to_numpy()
    rows = np.random.default_rng(0).permutation(len(labels))[: int(0.8 * len(labels))]
    return np.ascontiguousarray(X[rows]), labels[rows]


#: The grid search with fastdt's cache of preparations off (each fold prepared anew
#: for every setting, as before the cache; scikit-learn has none: its grid time).
NO_CACHE = "grid n_jobs=1, no prepare cache"


def _timings(X, y, repeat, n_jobs_list, best):
    from sklearn.model_selection import GridSearchCV
    from sklearn.tree import DecisionTreeClassifier as SkTree

    import fastdt
    from fastdt import DecisionTreeClassifier as FdTree
    from fastdt._memo import MAX_BYTES  # the cache's default size

    out = {}
    for name, cls in (("fastdt", FdTree), ("scikit-learn", SkTree)):
        def search(n_jobs):
            return GridSearchCV(cls(), SETTINGS, cv=5, n_jobs=n_jobs).fit(X, y)
        # the single fit prepares its data every time: fastdt's cache of preparations
        # (fastdt.set_prepare_cache; compare.py turns it off, common.set_threads) would
        # serve the repeated fits of the same data
        previous = fastdt.set_prepare_cache(0)
        try:
            out[(name, "fit")] = best(lambda: cls(max_depth=8).fit(X, y), 5 * repeat)[0]
            out[(name, NO_CACHE)] = best(lambda: search(1), repeat)[0]
            fastdt.set_prepare_cache(MAX_BYTES)  # the grid as users run it
            for n_jobs in n_jobs_list:
                search(n_jobs)  # untimed: joblib's workers start (and load fastdt's cache)
                out[(name, f"grid n_jobs={n_jobs}")] = best(lambda: search(n_jobs),
                                                            repeat)[0]
        finally:
            fastdt.set_prepare_cache(previous)
    return out


def _forest_rows(X, y, repeat, threads, best, say):
    """Forests of 100 trees on Adult: fit seconds of fastdt's and scikit-learn's."""
    import numpy as np
    from sklearn import ensemble as sk

    import fastdt

    say(f"Forests on Adult ({X.shape[0]:,} rows, string labels): 100 trees, default "
        f"parameters (unlimited depth), n_jobs={threads}. Fit seconds, best of "
        f"{repeat} after one untimed fit.")
    say("")
    say("| forest | fastdt (s) | scikit-learn (s) | fastdt faster | fastdt's levels per "
        "tree (mean) |")
    say("|---|---:|---:|---:|---:|")
    for name in ("RandomForestClassifier", "ExtraTreesClassifier"):
        times = {}
        for lib, module in (("fastdt", fastdt), ("scikit-learn", sk)):
            def fit(module=module):
                return getattr(module, name)(100, random_state=0, n_jobs=threads).fit(X, y)
            model = fit()
            times[lib] = best(fit, repeat)[0]
            if lib == "fastdt":
                forest = model.forest_
                levels = np.mean([forest.tree(i).max_depth + 1
                                  for i in range(forest.n_trees)])
        f, s = times["fastdt"], times["scikit-learn"]
        say(f"| {name} | {f:.3g} | {s:.3g} | {s / f:.2f}x | {levels:.1f} |")


def _threshold_rows(repeat, best, say):
    import numba
    import numpy as np
    from sklearn.datasets import make_classification

    import fastdt
    from fastdt import _parallel

    threads = numba.get_num_threads()
    say(f"Where threads start to pay: one fit of n x 10 rows (make_classification, "
        f"max_depth=8), on 1 thread and on {threads}, serial threshold disabled; "
        f"fastdt runs serially below {_parallel.SERIAL_WORK:,} values read by a kernel.")
    say("")
    say(f"| rows | values (rows x 10) | 1 thread (ms) | {threads} threads (ms) | "
        f"{threads} threads / 1 |")
    say("|---:|---:|---:|---:|---:|")
    saved = _parallel.SERIAL_WORK
    try:
        _parallel.SERIAL_WORK = 0
        for n in (250, 500, 1000, 2000, 5000, 10000, 20000, 50000):
            X, y = make_classification(n_samples=n, n_features=10, random_state=0)
            times = []
            for t in (1, threads):
                numba.set_num_threads(t)
                fastdt.fit(X, y, max_depth=8)
                times.append(best(lambda: fastdt.fit(X, y, max_depth=8), 5 * repeat)[0])
            numba.set_num_threads(threads)
            say(f"| {n:,} | {10 * n:,} | {1000 * times[0]:.2f} | {1000 * times[1]:.2f} | "
                f"{times[1] / times[0]:.2f} |")
    finally:
        _parallel.SERIAL_WORK = saved
        numba.set_num_threads(threads)


def small_section(args, threads, say):
    """Print the small-data tables (Adult's part is skipped without the datasets)."""
    from compare import _best

    from fastdt.datasets import datasets_folder

    _threshold_rows(args.repeat, _best, say)
    say("")
    try:
        X, y = adult_as_it_comes()
    except FileNotFoundError as e:
        say(f"Skipped the Adult part: the shared datasets are not found ({e}); looked in "
            f"{datasets_folder()}.")
        return
    n_jobs_list = (1, 2)
    idle = _timings(X, y, args.repeat, n_jobs_list, _best)
    with busy_core():
        busy = _timings(X, y, args.repeat, n_jobs_list, _best)
    say(f"Adult as it comes: {X.shape[0]:,} rows x {X.shape[1]} ordinal-coded features, "
        "string labels; DecisionTreeClassifier(max_depth=8).fit (fastdt's cache of "
        "preparations off: each fit prepares the data), and GridSearchCV over 18 "
        "settings x 5 folds (refit included; fastdt's cache on, as by default, but in "
        "the last row). Seconds, best of runs; 'busy': a second process keeps one core "
        "busy.")
    say("")
    say("| task | fastdt (s) | scikit-learn (s) | fastdt faster | fastdt, busy (s) | "
        "scikit-learn, busy (s) | faster, busy | fastdt busy/idle | scikit-learn busy/idle |")
    say("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for task in ["fit"] + [f"grid n_jobs={j}" for j in n_jobs_list] + [NO_CACHE]:
        f, s = idle[("fastdt", task)], idle[("scikit-learn", task)]
        fb, sb = busy[("fastdt", task)], busy[("scikit-learn", task)]
        say(f"| {task} | {f:.4g} | {s:.4g} | {s / f:.1f}x | {fb:.4g} | {sb:.4g} | "
            f"{sb / fb:.1f}x | {fb / f:.2f} | {sb / s:.2f} |")
    say("")
    import fastdt

    previous = fastdt.set_prepare_cache(0)  # first fits, as the single fit above
    try:
        _forest_rows(X, y, args.repeat, threads, _best, say)
    finally:
        fastdt.set_prepare_cache(previous)

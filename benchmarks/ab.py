"""Compare two versions of fastdt on one workload, alternating in one process.

    python benchmarks/ab.py HEAD~1 HEAD --case boosting
    python benchmarks/ab.py main . --case adult --turns 12      # "." : this working tree

This machine's speed drifts by 10-40% within minutes (the same Adult fit takes 20 or
30 ms, by process time too), so two versions timed one after the other, or in separate
runs of ``compare.py``, differ by more than most changes do. Here both versions are
imported side by side into one process (copies of the package under other names),
compiled (or loaded from their caches) before the clock, and fitted in turns, A B B A
A B ..., so that both see the same drift; the figure to read is the median of the
turn-by-turn ratios B / A, with their spread (only the fits are timed). It also says
whether both versions made the same predictions (a change meant to be faster should
keep them bit for bit).

Read both orders on a case before trusting a small ratio: on ``titanic-boost``,
whichever version is B came out about 1.11x slower in both orders (2026-11-28,
``docs/benchmarks.md``).

A version is a git revision of this repository (anything ``git archive`` takes; the
copy is kept in the temporary directory, with its compiled kernels, for later runs) or
a directory holding a ``fastdt`` package (a working tree, copied afresh each run).

Cases (``--case``; the data are ``common.py``'s seeded generators or the shared
datasets, which ``FASTDT_DATASETS`` or ``../shared/datasets`` locates):

=================  ===================================================================
``adult``          ``DecisionTreeClassifier(max_depth=8)`` on Adult as users have it
                   (``compare_small.adult_as_it_comes``: string labels, 26,048 rows)
``titanic-boost``  ``GradientBoostingClassifier`` on the Titanic frame (100 rounds of
                   31 leaves, ``min_samples_leaf=20``): boosting's fixed cost per round
``boosting``       ``fit_boosting``, ``--boost-rounds`` rounds (20) of 255 leaves on
                   ``--rows`` rows (200,000) x 20 (``common.classification``)
``forest-hist``    ``fit_forest``, ``--trees`` trees (10), ``splitter="hist"``, same data
``forest-best``    the same with the exact splitter
``extra-trees``    the same with ``splitter="random"``, no bootstrap
                   (``--data forests``: the synthetic cases on ``compare.py``'s forests
                   table instead, whose trees are about twice as deep)
``adult-frame``    ``DecisionTreeClassifier(max_depth=8)`` on Adult's raw training frame
                   (``fastdt.datasets.load_adult_frame``: 32,561 rows, 8 categorical
                   columns with missing values)
``adult-grid``     the fits of ``compare.py``'s grid search on Adult as users have it:
                   ``DecisionTreeClassifier`` at its 18 settings on each of 5 folds
                   (``StratifiedKFold``, as ``GridSearchCV`` cuts them) on numba's
                   ``--threads`` threads (1: as in joblib's workers, ``n_jobs=2``; 2: as
                   ``n_jobs=1``); a turn is the 90 fits (deep trees' levels, and each
                   fit's fixed cost, on 20,838 rows)
``adult-forest``   ``RandomForestClassifier``, ``--trees`` trees (10), on Adult as users
                   have it (deep trees of a medium table: the driver and the partitions)
=================  ===================================================================

A plain script, not an asv benchmark (asv imports this folder: nothing heavy runs on
import, and nothing here has a ``time_`` name).
"""

import argparse
import importlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CASES = ("adult", "adult-frame", "adult-grid", "titanic-boost", "boosting", "forest-hist", "forest-best",
         "extra-trees", "adult-forest")


def _package(version, name, root):
    """Copy ``version``'s ``fastdt`` package to ``root/name`` and return its folder name
    there: ``version`` a directory with a ``fastdt`` package, or a git revision (its copy
    is kept, under the commit's id, and reused)."""
    src = os.path.join(version, "fastdt")
    if os.path.isdir(src):
        dst = os.path.join(root, name)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        return name
    try:
        commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--verify",
                                 version + "^{commit}"], check=True, capture_output=True,
                                text=True).stdout.strip()
    except subprocess.CalledProcessError:
        raise SystemExit(f"{version!r} is neither a directory holding a fastdt package "
                         f"nor a git revision of {REPO}") from None
    cached = f"fastdt_{commit[:12]}"
    dst = os.path.join(root, cached)
    if not os.path.isdir(dst):
        tmp = tempfile.mkdtemp(dir=root)
        archive = subprocess.run(["git", "-C", REPO, "archive", commit, "fastdt"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        os.rename(os.path.join(tmp, "fastdt"), dst)
        os.rmdir(tmp)
    return cached


def _data(case, args):
    """``(X, y, X_test)`` of the case."""
    if case in ("adult", "adult-forest", "adult-grid"):
        from compare_small import adult_as_it_comes

        X, y = adult_as_it_comes()
        return X, y, X
    if case == "adult-frame":
        from fastdt.datasets import load_adult_frame

        X, y, X_test, _ = load_adult_frame()
        return X, y, X_test
    if case == "titanic-boost":
        from fastdt.datasets import load_titanic_frame

        X, y, X_test, _ = load_titanic_frame()
        return X, y, X_test
    if args.data == "forests":  # compare.py's forests section's table
        import numpy as np
        from sklearn.datasets import make_classification

        X, y = make_classification(n_samples=args.rows + 50_000, n_features=20,
                                   n_informative=10, random_state=0)
        X = X.astype(np.float32)
    else:
        import common

        X, y = common.classification(args.rows + 50_000)
    return X[:args.rows], y[:args.rows], X[args.rows:]


def _fitter(case, args):
    """``(fit, predict)`` of the case: ``fit(module)`` fits a model with that version of
    fastdt (what is timed) and ``predict(module, model)`` gives the predicted
    probabilities of the test rows (compared once, after the first fits)."""
    threads = args.threads
    X, y, X_test = _data(case, args)
    kw = {"forest-hist": dict(splitter="hist"), "forest-best": dict(splitter="best"),
          "extra-trees": dict(splitter="random", bootstrap=False)}.get(case)

    if case == "adult-grid":
        import itertools

        from compare_small import SETTINGS
        from sklearn.model_selection import StratifiedKFold

        import numba

        numba.set_num_threads(threads)
        folds = [(X[tr], y[tr]) for tr, _ in StratifiedKFold(5).split(X, y)]
        # the deepest trees last: the model whose predictions are compared
        settings = sorted(itertools.product(*SETTINGS.values()),
                          key=lambda s: (s[0] is None, s[0] or 0, -s[1]))

    def fit(m):
        if case == "adult-grid":
            for depth, leaf in settings:
                for Xf, yf in folds:
                    model = m.DecisionTreeClassifier(max_depth=depth,
                                                     min_samples_leaf=leaf).fit(Xf, yf)
            return model
        if case in ("adult", "adult-frame"):
            return m.DecisionTreeClassifier(max_depth=8).fit(X, y)
        if case == "titanic-boost":
            return m.GradientBoostingClassifier(
                max_iter=100, max_leaf_nodes=31, min_samples_leaf=20, learning_rate=0.1,
                early_stopping=False, n_jobs=threads).fit(X, y)
        if case == "adult-forest":
            return m.RandomForestClassifier(args.trees, random_state=0,
                                            n_jobs=threads).fit(X, y)
        if case == "boosting":
            return m.fit_boosting(X, y, max_iter=args.boost_rounds, max_leaf_nodes=255,
                                  early_stopping=False, n_jobs=threads)
        return m.fit_forest(X, y, n_estimators=args.trees, random_state=0, n_jobs=threads,
                            **kw)

    def predict(m, model):
        if hasattr(model, "predict_proba"):  # an estimator
            return model.predict_proba(X_test)
        return m.predict_proba(model, X_test)

    return fit, predict


def versions(a, b):
    """Versions ``a`` and ``b`` imported side by side (copies of the package under other
    names, :func:`_package`): ``(modules, names)``."""
    sys.path.insert(0, HERE)
    os.environ.setdefault("FASTDT_DATASETS", os.path.join(os.path.dirname(REPO), "shared",
                                                          "datasets"))
    root = os.path.join(tempfile.gettempdir(), "fastdt-ab")
    os.makedirs(root, exist_ok=True)
    names = (_package(a, "fastdt_ab_a", root), _package(b, "fastdt_ab_b", root))
    if names[0] == names[1]:  # one revision twice: B gets a copy of its own
        dst = os.path.join(root, "fastdt_ab_b")
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(os.path.join(root, names[0]), dst,
                        ignore=shutil.ignore_patterns("__pycache__"))
        names = (names[0], "fastdt_ab_b")
    sys.path.insert(0, root)
    return [importlib.import_module(n) for n in names], names


def _spread(values, unit=""):
    return (f"{statistics.median(values):.4g}{unit} "
            f"({min(values):.4g}-{max(values):.4g})")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a", help="version A: a git revision, or a directory with a fastdt "
                             "package")
    p.add_argument("b", help="version B (the same kinds)")
    p.add_argument("--case", choices=CASES, default="boosting")
    p.add_argument("--turns", type=int, default=6,
                   help="turns of each version (default 6)")
    p.add_argument("--fits", type=int, default=None,
                   help="fits in a turn, timed together (default: 20 for adult, 1 "
                        "otherwise)")
    p.add_argument("--threads", type=int, default=2, help="n_jobs of the fits (2)")
    p.add_argument("--rows", type=int, default=200_000,
                   help="training rows of the synthetic cases")
    p.add_argument("--trees", type=int, default=10, help="trees of the forest cases")
    p.add_argument("--data", choices=("common", "forests"), default="common",
                   help="the synthetic cases' rows: common.py's classification (easy: "
                        "shallow trees), or compare.py's forests table (scikit-learn's "
                        "make_classification, 20 x 10 informative: deeper trees)")
    p.add_argument("--boost-rounds", type=int, default=20,
                   help="boosting rounds of the boosting case (20)")
    args = p.parse_args(argv)
    if args.turns < 2:
        p.error("--turns must be at least 2")
    mods, names = versions(args.a, args.b)
    fit, predict = _fitter(args.case, args)
    fits = args.fits or (20 if args.case in ("adult", "adult-frame") else 1)
    t0 = time.perf_counter()
    # compiled or loaded from the caches, the prediction kernels too: not timed
    first = [predict(m, fit(m)) for m in mods]
    print(f"{args.case}: A = {args.a} ({names[0]}), B = {args.b} ({names[1]}); first fits "
          f"(compilation or cache loads) {time.perf_counter() - t0:.1f} s; seconds per "
          f"turn of {fits} fit(s), median (min-max) of {args.turns} turns each:")
    same = first[0].shape == first[1].shape and bool((first[0] == first[1]).all())
    wall, cpu = ([], []), ([], [])
    for r in range(args.turns):
        order = (0, 1) if r % 4 in (0, 3) else (1, 0)  # A B, B A, B A, A B, ...
        for i in order:
            w, c = time.perf_counter(), time.process_time()
            for _ in range(fits):
                fit(mods[i])
            wall[i].append(time.perf_counter() - w)
            cpu[i].append(time.process_time() - c)
    for label, t in (("wall", wall), ("process", cpu)):
        ratios = [b / a for a, b in zip(*t)]
        print(f"{label:8s} A {_spread(t[0], ' s')} | B {_spread(t[1], ' s')} | "
              f"B / A by turn {_spread(ratios)}")
    print(f"same predictions: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()

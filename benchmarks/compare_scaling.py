"""How fastdt's fits scale with threads: each phase on one thread and on two.

Run through ``benchmarks/compare.py --section scaling`` (``--rows``, ``--features``,
``--repeat``, ``--binning-rows``, ``--scaling-threads``).

One tree of ``max_depth=10`` on the synthetic section's data (``make_classification``,
80% of ``--rows`` for training, float32), with the exact splitter and with the
histogram one (binning included), on each of ``--scaling-threads`` (default 1,2) in
turn, ``max(--repeat, 5)`` times each. Every call of :func:`fastdt._parallel.run` is
timed and booked to its kernel's phase (presort or binning, the per-level kernels, the
rest: input checks and the growth driver, all on one thread), so the table shows which
phases scale.

From the whole fit's speedup ``S`` on two threads follows the share ``s`` of its
one-thread time that behaves as serial (Amdahl: ``S = 1 / (s + (1 - s) / 2)``), and
from it the speedup the same fit can reach on ``p`` threads, ``1 / (s + (1 - s) / p)``:
a bound, since memory bandwidth shared by more cores is not in it. The binning of
``--binning-rows`` x 20 float32 values (``fastdt.Dataset``) is timed alike.

Then the same per-phase table for 20 rounds of gradient boosting (255 leaves) on the
boosting section's data (``--boosting-rows``, 80% for training), and, on each thread
count, the fit of that boosting beside LightGBM's and XGBoost's (the boosting section's
models, when installed) and of 20 hist-forest trees beside scikit-learn's random forest
(each library's ``n_jobs``; best of ``--repeat``).

Two cores show at most a factor of two; on a machine with more,
``--scaling-threads 1,2,4,8,16`` times each phase on each count (the 16-core figures of
``docs/benchmarks.md``, "Sixteen cores"). A plain module, not an asv benchmark.
"""

import collections
import statistics
import time

#: Kernels (``run``'s first argument) of each phase; any other is booked to "other".
PHASES = {
    "best": (("presort", ("gather_rows", "sort_features")),
             ("levels: partition and scan", ("scan_features",)),
             ("levels: walk the chosen splits", ("walk_nodes",))),
    "hist": (("binning: sample, sort, edges", ("gather_rows", "cut")),
             ("binning: codes", ("bin_columns",)),
             ("levels: histograms", ("build_features",)),
             ("levels: scan", ("scan_nodes",)),
             ("levels: move rows", ("mark_sides", "scatter_rows"))),
}
PREDICT_AT = (4, 8, 16)


def _timed_runs():
    """Book the time of every ``run``/``run_rows`` call to its kernel's name; returns
    the dict of totals (cleared by the caller) and a function restoring the originals."""
    import sys

    from fastdt import _parallel

    spent = collections.defaultdict(float)
    originals = {"run": _parallel.run, "run_rows": _parallel.run_rows}

    def timed(original):
        def call(kernel, *args):
            t0 = time.perf_counter()
            try:
                return original(kernel, *args)
            finally:
                name = getattr(getattr(kernel, "py_func", kernel), "__name__", "?")
                spent[name] += time.perf_counter() - t0
        return call

    patched = []
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("fastdt"):
            continue
        for attr, original in originals.items():
            if getattr(module, attr, None) is original:
                setattr(module, attr, timed(original))
                patched.append((module, attr, original))

    def restore():
        for module, attr, original in patched:
            setattr(module, attr, original)

    return spent, restore


def serial_share(speedup, threads=2):
    """Amdahl's serial share from the speedup on ``threads`` times as many threads."""
    return (threads / speedup - 1) / (threads - 1)


def amdahl(share, threads):
    """The speedup on ``threads`` threads of work whose ``share`` is serial."""
    return 1.0 / (share + (1.0 - share) / threads)


def _phase_of(splitter, kernel):
    for phase, kernels in PHASES[splitter]:
        if kernel in kernels:
            return phase
    return "other kernels (input checks)"


def _measure(fit, splitter, repeat, counts):
    """``{threads: [per-run dict phase -> seconds, with "total"]}``, thread ``counts``
    in turn."""
    import numba

    fit()  # compile or load, and import every module run() is bound in
    spent, restore = _timed_runs()
    runs = {t: [] for t in counts}
    saved = numba.get_num_threads()
    try:
        for _ in range(repeat):
            for t in counts:
                numba.set_num_threads(t)
                spent.clear()
                t0 = time.perf_counter()
                fit()
                total = time.perf_counter() - t0
                row = collections.defaultdict(float)
                for kernel, s in spent.items():
                    row[_phase_of(splitter, kernel)] += s
                row["driver and the rest (serial Python)"] = total - sum(spent.values())
                row["total"] = total
                runs[t].append(dict(row))
    finally:
        numba.set_num_threads(saved)
        restore()
    return runs


def _table(runs, say):
    counts = sorted(runs)
    first = runs[counts[0]]
    phases = [p for p in first[0] if p != "total"] + ["total"]
    med = {t: {p: statistics.median(r.get(p, 0.0) for r in runs[t]) for p in phases}
           for t in counts}
    say("| phase | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in counts)
        + " | speedup | share of 1-thread time |")
    say("| --- |" + " ---: |" * (len(counts) + 2))
    for p in phases:
        a, b = med[counts[0]][p], med[counts[-1]][p]
        name = f"**{p}**" if p == "total" else p
        say(f"| {name} | " + " | ".join(f"{med[t][p]:.3f} s" for t in counts)
            + f" | {a / b if b else float('nan'):.2f}x | {a / med[counts[0]]['total']:.0%} |")
    totals = {t: [r["total"] for r in runs[t]] for t in counts}
    lo, hi = counts[0], counts[-1]
    speedups = sorted(a / b for a, b in zip(totals[lo], totals[hi]))
    speedup = med[lo]["total"] / med[hi]["total"]
    share = serial_share(speedup, hi / lo)
    say("")
    say(f"Medians of {len(first)} fits per thread count (totals: "
        + "; ".join(f"{t} threads {min(totals[t]):.3f}-{max(totals[t]):.3f} s" for t in counts)
        + f"). Speedup {lo} to {hi} threads {speedup:.2f}x (each pair of fits "
        f"{speedups[0]:.2f}x-{speedups[-1]:.2f}x): a serial share of {share:.1%}, so "
        "Amdahl's bound is "
        + ", ".join(f"{amdahl(share, p):.1f}x on {p}" for p in PREDICT_AT) + " threads.")
    return speedup, share


def scaling_section(args, threads, say):
    """Every phase of an exact and a histogram fit on 1 and 2 threads, and binning."""
    import numpy as np
    from sklearn.datasets import make_classification

    import fastdt

    n_inf = min(10, args.features)
    X, y = make_classification(
        n_samples=args.rows, n_features=args.features, n_informative=n_inf,
        n_redundant=min(2, args.features - n_inf), random_state=0)
    cut = int(0.8 * args.rows)
    X, y = np.ascontiguousarray(X[:cut], dtype=np.float32), y[:cut]
    repeat = max(args.repeat, 5)
    counts = sorted({int(t) for t in args.scaling_threads.split(",")})
    say(f"Scaling with threads: one tree (max_depth=10) on {cut:,} x {args.features} "
        f"float32 rows of make_classification, on {', '.join(map(str, counts))} threads "
        f"in turn, {repeat} fits each; each phase is the time its kernels' calls took.")
    for splitter, title in (("best", "Exact splitter (presort included)"),
                            ("hist", "Histogram splitter (binning included)")):
        say("")
        say(f"{title}:")
        say("")
        runs = _measure(lambda: fastdt.fit(X, y, max_depth=10, splitter=splitter),
                        splitter, repeat, counts)
        _table(runs, say)

    from hist_accuracy import synthetic

    Xg, yg = synthetic(args.boosting_rows)[:2]
    say("")
    say(f"Gradient boosting, 20 rounds of 255 leaves on {Xg.shape[0]:,} x {Xg.shape[1]} "
        "float32 rows (binning included):")
    say("")
    runs = _measure(lambda: fastdt.fit_boosting(Xg, yg, max_iter=20, max_leaf_nodes=255,
                                                early_stopping=False),
                    "hist", repeat, counts)
    _table(runs, say)
    _libraries(Xg, yg, args, counts, say)

    if args.binning_rows:
        say("")
        rng = np.random.default_rng(0)
        Xb = rng.standard_normal((args.binning_rows, 20), dtype=np.float32)
        say(f"Binning alone: fastdt.Dataset of {args.binning_rows:,} x 20 float32 "
            f"(standard normal), {max(3, args.repeat)} times per thread count:")
        say("")
        runs = _measure(lambda: fastdt.Dataset(Xb), "hist", max(3, args.repeat), counts)
        _table(runs, say)


def _libraries(Xtr, ytr, args, counts, say):
    """Fit seconds of fastdt's boosting and hist forest and their peers on ``Xtr, ytr``
    on each thread count in ``counts`` (one process; each library told the count)."""
    import numba

    import fastdt
    from compare_boosting import _installed, _model
    from sklearn.ensemble import RandomForestClassifier

    rounds, trees = 20, 20
    fits = {"fastdt boosting": lambda t: _model("fastdt", t, rounds)}
    for name in ("LightGBM", "XGBoost"):
        if _installed(name.lower()):
            fits[name] = lambda t, name=name: _model(name, t, rounds)
    fits["fastdt forest (hist)"] = lambda t: fastdt.RandomForestClassifier(
        n_estimators=trees, splitter="hist", random_state=0, n_jobs=t)
    fits["scikit-learn forest"] = lambda t: RandomForestClassifier(
        n_estimators=trees, random_state=0, n_jobs=t)
    for make in fits.values():  # compiled or loaded, libraries imported
        model = make(1)
        rounds_param = "n_estimators" if "n_estimators" in model.get_params() else "max_iter"
        model.set_params(**{rounds_param: 2}).fit(Xtr[:3000], ytr[:3000])
    say("")
    say(f"Fit seconds on each thread count ({Xtr.shape[0]:,} x {Xtr.shape[1]} float32 "
        f"rows; boosting {rounds} rounds of 255 leaves, XGBoost depth 8; forests {trees} "
        f"trees; best of {max(1, args.repeat)}):")
    say("")
    say("| threads | " + " | ".join(fits) + " |")
    say("| ---: |" + " ---: |" * len(fits))
    saved = numba.get_num_threads()
    try:
        for t in counts:
            numba.set_num_threads(t)
            row = []
            for make in fits.values():
                best = float("inf")
                for _ in range(max(1, args.repeat)):
                    model = make(t)
                    t0 = time.perf_counter()
                    model.fit(Xtr, ytr)
                    best = min(best, time.perf_counter() - t0)
                row.append(best)
            say(f"| {t} | " + " | ".join(f"{v:.3f}" for v in row) + " |")
    finally:
        numba.set_num_threads(saved)

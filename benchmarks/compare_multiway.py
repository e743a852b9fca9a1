"""``compare.py --section multiway``: C4.5 on Adult (the raw DataFrame) against Weka's
J48 on the same machine.

fastdt: ``fastdt.fit(X, y, algorithm="c4.5")`` with both error estimates, fit seconds
(input conversion included) of ``--repeat`` fits after one warm-up fit in the same
process (numba compiled or loaded), the spread shown, on every thread numba has and
(C4.5's estimate) on one thread. J48 (``-C 0.25 -M 2``): the build time Weka itself
reports ("Time taken to build model"), which leaves out the JVM's start and the reading
of the ARFF file, one JVM per run, ``--repeat`` runs; J48 grows its tree on one thread.
Skipped when the shared datasets or Java/Weka are absent.
"""

import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.j48 import run_j48, weka_jar, write_arff  # noqa: E402


def _spread(ts):
    return f"{min(ts):.3f} (median {float(np.median(ts)):.3f}, max {max(ts):.3f})"


def multiway_section(args, threads, say):
    import fastdt
    from fastdt.datasets import load_adult_frame

    repeat = max(3, args.repeat)
    say(f"C4.5 on Adult (32,561 x 14 raw DataFrame, 8 nominal columns, missing values), "
        f"adult.test accuracy; fit seconds: best (median, max) of {repeat}.")
    say("")
    try:
        Xtr, ytr, Xte, yte = load_adult_frame()
    except FileNotFoundError:
        say("(skipped: the shared datasets are absent)")
        return
    say("| model | fit s | nodes | leaves | test accuracy |")
    say("| --- | ---: | ---: | ---: | ---: |")
    import numba

    saved = numba.get_num_threads()
    for est, n_threads in (("c4.5", saved), ("j48", saved), ("c4.5", 1)):
        numba.set_num_threads(n_threads)
        try:
            fastdt.fit(Xtr, ytr, algorithm="c4.5", error_estimate=est)  # compile / load
            ts = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                tree = fastdt.fit(Xtr, ytr, algorithm="c4.5", error_estimate=est)
                ts.append(time.perf_counter() - t0)
        finally:
            numba.set_num_threads(saved)
        acc = float(np.mean(fastdt.predict(tree, Xte) == yte))
        say(f"| fastdt C4.5 (error_estimate={est!r}), {n_threads} thread"
            f"{'s' if n_threads > 1 else ''} | {_spread(ts)} | {tree.node_count} "
            f"| {tree.n_leaves} | {acc:.4f} |")
    if weka_jar() is None:
        say("| Weka J48 | not installed | | | |")
        return
    with tempfile.TemporaryDirectory() as tmp:
        train, test = os.path.join(tmp, "train.arff"), os.path.join(tmp, "test.arff")
        write_arff(train, Xtr, ytr, [0, 1])
        write_arff(test, Xte, yte, [0, 1])
        runs = [run_j48(train, test) for _ in range(repeat)]
    r = runs[-1]
    say(f"| Weka 3.6 J48 -C 0.25 -M 2 (build time it reports) | "
        f"{_spread([x['build_s'] for x in runs])} | {r['size']} | {r['leaves']} "
        f"| {r['accuracy']:.4f} |")

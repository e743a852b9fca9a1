"""One sparse fit, measured in a process of its own: time and peak memory.

``python benchmarks/sparse_fit.py --library fastdt --rows 1000000 --features 10000``
builds a CSR matrix of ``rows x features`` at ``density`` (values > 0, as tf-idf
features; seeded), a binary target from 40 of its columns with 10% of the labels
flipped, fits one tree (``--max-depth``) and prints one JSON line: fit seconds, the
process's peak resident memory during the fit above what it held before (sampled every
5 ms from /proc), the matrix's own size, nodes and training accuracy.
:mod:`compare` (``--section sparse``) runs it once per library.
"""

import argparse
import json
import os
import sys
import threading
import time

import numpy as np


def make_data(rows, features, density, seed=0):
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    nnz = int(rows * features * density)
    r = rng.integers(0, rows, size=nnz, dtype=np.int64)
    c = rng.integers(0, features, size=nnz, dtype=np.int64)
    v = rng.exponential(size=nnz)
    X = sp.csr_matrix((v, (r, c)), shape=(rows, features))  # duplicates summed
    w = rng.normal(size=40)
    score = np.asarray(X[:, :40] @ w).ravel()
    y = (score > np.median(score)).astype(np.int64)
    flip = rng.random(rows) < 0.1
    y[flip] = 1 - y[flip]
    return X, y


def _rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakRSS:
    """Peak resident memory while the block runs, sampled every 5 ms."""

    def __enter__(self):
        self.base = self.peak = _rss()
        self._stop = False
        self._t = threading.Thread(target=self._watch, daemon=True)
        self._t.start()
        return self

    def _watch(self):
        while not self._stop:
            self.peak = max(self.peak, _rss())
            time.sleep(0.005)

    def __exit__(self, *exc):
        self._stop = True
        self._t.join()
        self.peak = max(self.peak, _rss())


def _run_one(library, splitter, rows, features, density, max_depth, threads):
    import subprocess

    cmd = [sys.executable, os.path.abspath(__file__), "--library", library,
           "--splitter", splitter, "--rows", str(rows), "--features", str(features),
           "--density", str(density), "--max-depth", str(max_depth)]
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def sparse_section(args, threads, say):
    """``compare.py --section sparse``: one tree on a CSR matrix, fastdt (exact and
    histogram splits) against scikit-learn, each fit in a fresh process (best of
    ``--repeat``; the peak memory of that run)."""
    rows, features, density = args.sparse_rows, args.sparse_features, 0.001
    depth = 10
    say(f"Sparse X: {rows:,} x {features:,} CSR, density {density} (values > 0, as "
        f"tf-idf), binary target from 40 columns with 10% of labels flipped; one tree, "
        f"max_depth={depth}; fit seconds (best of {args.repeat}, each in a fresh process, "
        "fastdt's kernels compiled before), peak resident memory of the fit above what the "
        "process held before it (sampled every 5 ms), nodes, training accuracy.")
    say("")
    say("| library | fit (s) | peak memory (MB) | nodes | train accuracy |")
    say("|---|---:|---:|---:|---:|")
    results = {}
    for library, splitter in (("fastdt", "best"), ("fastdt", "hist"), ("sklearn", "best")):
        runs = [_run_one(library, splitter, rows, features, density, depth, threads)
                for _ in range(args.repeat)]
        best = min(runs, key=lambda r: r["seconds"])
        name = f"{library} ({splitter})" if library == "fastdt" else "scikit-learn"
        results[name] = best
        say(f"| {name} | {best['seconds']:.2f} | {best['peak_mb']:.0f} | {best['nodes']:,} | "
            f"{best['train_accuracy']:.4f} |")
    say("")
    matrix = next(iter(results.values()))
    say(f"The matrix itself: {matrix['nnz']:,} stored values, {matrix['matrix_mb']:.0f} MB "
        f"(a dense float64 copy would take {rows * features * 8 / 2**30:.0f} GiB).")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--library", choices=("fastdt", "sklearn"), required=True)
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--features", type=int, default=10_000)
    p.add_argument("--density", type=float, default=0.001)
    p.add_argument("--max-depth", type=int, default=10)
    p.add_argument("--splitter", default="best", help="fastdt: best or hist")
    args = p.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import common  # noqa: F401  (makes a checkout's fastdt importable)

    X, y = make_data(args.rows, args.features, args.density)
    if args.library == "fastdt":
        from fastdt import DecisionTreeClassifier

        DecisionTreeClassifier(max_depth=2, splitter=args.splitter).fit(X[:2000], y[:2000])
        model = DecisionTreeClassifier(max_depth=args.max_depth, splitter=args.splitter)
    else:
        from sklearn.tree import DecisionTreeClassifier

        model = DecisionTreeClassifier(max_depth=args.max_depth, random_state=0)
    with PeakRSS() as mem:
        t0 = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - t0
    acc = float(np.mean(model.predict(X) == y))
    print(json.dumps({
        "library": args.library, "seconds": seconds, "peak_mb": (mem.peak - mem.base) / 2**20,
        "matrix_mb": (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20,
        "nnz": int(X.nnz), "nodes": int(model.tree_.node_count), "train_accuracy": acc,
    }))


if __name__ == "__main__":
    main()

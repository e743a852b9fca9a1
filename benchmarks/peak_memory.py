"""Time and peak memory of one fit, measured in a fresh process (plain script, not asv).

Usage::

    python benchmarks/peak_memory.py ROWS [MAX_DEPTH] [--splitter best|hist]
                                     [--data normal|make_classification]

``--data normal`` (default) draws X (float32, 20 features) directly; ``make_classification``
uses ``sklearn.datasets.make_classification(n_samples=ROWS, n_features=20,
n_informative=10, random_state=0)`` cast to float32. The data is made in a child
process and saved to a temporary folder, so that this process's peak resident memory
(``ru_maxrss``) before the fit is X and the interpreter, not the generator's
temporaries. Prints the size of X, the peak RSS before and during the fit (binning
included for ``hist``), the growth, and the fit time.
"""

import argparse
import importlib
import os
import subprocess
import sys
import tempfile

_MAKE = """
import sys
import numpy as np
n, kind, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if kind == "make_classification":
    from sklearn.datasets import make_classification
    X, y = make_classification(n_samples=n, n_features=20, n_informative=10, random_state=0)
    X = X.astype(np.float32)
else:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, 20), dtype=np.float32)
    noise = 0.5 * rng.standard_normal(n, dtype=np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + noise > 0).astype(np.int64)
np.save(out + "/X.npy", X)
np.save(out + "/y.npy", y)
"""


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("rows", type=int)
    p.add_argument("max_depth", nargs="?", default="10")
    p.add_argument("--splitter", choices=["best", "hist"], default="best")
    p.add_argument("--data", choices=["normal", "make_classification"], default="normal")
    args = p.parse_args(argv)
    depth = None if args.max_depth == "None" else int(args.max_depth)

    import resource
    import time

    import numpy as np

    with tempfile.TemporaryDirectory(prefix="fastdt-mem-") as d:
        subprocess.run([sys.executable, "-c", _MAKE, str(args.rows), args.data, d], check=True)
        X = np.load(os.path.join(d, "X.npy"))
        y = np.load(os.path.join(d, "y.npy"))

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    importlib.import_module("common")  # makes a checkout's fastdt importable

    import fastdt

    fastdt.fit(X[:1000], y[:1000], splitter=args.splitter)  # compile or load the kernels
    mib = 2.0**20
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    start = time.perf_counter()
    tree = fastdt.fit(X, y, max_depth=depth, splitter=args.splitter)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"rows={args.rows:,} data={args.data} splitter={args.splitter} max_depth={depth} "
          f"X={X.nbytes / mib:.0f} MiB | peak RSS before fit {before / mib:.0f} MiB, "
          f"during fit {peak / mib:.0f} MiB ({peak / X.nbytes:.2f}x X), "
          f"growth {(peak - before) / mib:.0f} MiB ({(peak - before) / X.nbytes:.2f}x X) | "
          f"fit {seconds:.2f} s, nodes {tree.node_count:,}")


if __name__ == "__main__":
    main(sys.argv[1:])

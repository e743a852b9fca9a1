"""Peak memory of one exact fit, measured in a fresh process (plain script, not asv).

Usage: ``python benchmarks/peak_memory.py ROWS [MAX_DEPTH]`` prints the size of X and the
growth of the process's peak resident memory (``ru_maxrss``) during ``fastdt.fit``.
"""

import sys


def main(argv):
    import resource
    import time

    import numpy as np

    import fastdt

    n = int(argv[0])
    depth = None if len(argv) < 2 or argv[1] == "None" else int(argv[1])
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, 20), dtype=np.float32)
    noise = 0.5 * rng.standard_normal(n, dtype=np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + noise > 0).astype(np.int64)
    fastdt.fit(X[:1000], y[:1000])  # compile or load the kernels first
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    tree = fastdt.fit(X, y, max_depth=depth)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"rows={n:,} max_depth={depth} X={X.nbytes / 2**20:.0f} MiB "
          f"peak RSS growth during fit={(peak - before) / 1024:.0f} MiB "
          f"nodes={tree.node_count:,} fit={seconds:.2f} s")


if __name__ == "__main__":
    main(sys.argv[1:])

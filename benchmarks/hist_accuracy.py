"""Test accuracy of the histogram splitter next to the exact one (plain script, not asv).

Usage: ``python benchmarks/hist_accuracy.py [--datasets DIR] [--rows N] [--depths D ...]
[--max-bins B ...]``

Adult (``$FASTDT_DATASETS`` or ``../shared/datasets``; categorical columns
ordinal-encoded by sorted level, ``?`` as a level) with its own train/test split, and
``make_classification(n_samples=ROWS, n_features=20, n_informative=10,
random_state=0)`` (80% train; ``--rows``, default 200,000), at several depths
(``--depths``) for one or more ``--max-bins``. Prints one markdown table.
"""

import argparse
import os
import sys
from pathlib import Path


def synthetic(n):
    import numpy as np
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n, n_features=20, n_informative=10,
                               random_state=0)
    X = X.astype(np.float32)
    cut = int(0.8 * n)
    return X[:cut], y[:cut], X[cut:], y[cut:]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", default=os.environ.get("FASTDT_DATASETS"))
    p.add_argument("--max-bins", type=int, nargs="+", default=[255],
                   help="one hist column per value (default: 255)")
    p.add_argument("--rows", type=int, default=200_000,
                   help="rows of the make_classification data (80%% train)")
    p.add_argument("--depths", nargs="+", default=["4", "8", "12", "None"])
    args = p.parse_args(argv)
    folder = Path(args.datasets) if args.datasets else \
        Path(__file__).resolve().parents[2] / "shared" / "datasets"
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import importlib

    import numpy as np

    importlib.import_module("common")  # makes a checkout's fastdt importable
    import fastdt

    sets = [(f"make_classification {args.rows:,}", synthetic(args.rows))]
    if (folder / "adult.data").exists():
        from fastdt.datasets import load_adult

        sets.insert(0, ("Adult (ordinal-encoded)", load_adult(folder)))
    else:
        print(f"(Adult not found in {folder}: skipped)")
    bins = args.max_bins
    print("| data | max_depth | exact accuracy | "
          + " | ".join(f"hist, {b} bins (difference)" for b in bins) + " |")
    print("|---|---:|---:|" + "---:|" * len(bins))
    for name, (Xtr, ytr, Xte, yte) in sets:
        for depth in [None if d == "None" else int(d) for d in args.depths]:
            exact = fastdt.fit(Xtr, ytr, max_depth=depth)
            acc_e = np.mean(fastdt.predict(exact, Xte) == yte)
            cells = []
            for b in bins:
                tree = fastdt.fit(Xtr, ytr, max_depth=depth, splitter="hist", max_bins=b)
                acc = np.mean(fastdt.predict(tree, Xte) == yte)
                cells.append(f"{100 * acc:.2f}% ({100 * (acc - acc_e):+.2f})")
            print(f"| {name} | {depth} | {100 * acc_e:.2f}% | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])

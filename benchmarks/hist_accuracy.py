"""Test accuracy of the histogram splitter next to the exact one (plain script, not asv).

Usage: ``python benchmarks/hist_accuracy.py [--datasets DIR]``

Adult (``$FASTDT_DATASETS`` or ``../shared/datasets``; categorical columns
ordinal-encoded by sorted level, ``?`` as a level) with its own train/test split, and
``make_classification(n_samples=200_000, n_features=20, n_informative=10,
random_state=0)`` (80% train), at several depths with ``max_bins=255``. Prints one
markdown table.
"""

import argparse
import os
import sys
from pathlib import Path


def synthetic():
    import numpy as np
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=200_000, n_features=20, n_informative=10,
                               random_state=0)
    X = X.astype(np.float32)
    cut = 160_000
    return X[:cut], y[:cut], X[cut:], y[cut:]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", default=os.environ.get("FASTDT_DATASETS"))
    args = p.parse_args(argv)
    folder = Path(args.datasets) if args.datasets else \
        Path(__file__).resolve().parents[2] / "shared" / "datasets"
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import importlib

    import numpy as np

    importlib.import_module("common")  # makes a checkout's fastdt importable
    import fastdt

    sets = [("make_classification 200k", synthetic())]
    if (folder / "adult.data").exists():
        from fastdt.datasets import load_adult

        sets.insert(0, ("Adult (ordinal-encoded)", load_adult(folder)))
    else:
        print(f"(Adult not found in {folder}: skipped)")
    print("| data | max_depth | exact accuracy | hist accuracy | difference (points) |")
    print("|---|---:|---:|---:|---:|")
    for name, (Xtr, ytr, Xte, yte) in sets:
        for depth in (4, 8, 12, None):
            acc = []
            for splitter in ("best", "hist"):
                tree = fastdt.fit(Xtr, ytr, max_depth=depth, splitter=splitter)
                acc.append(np.mean(fastdt.predict(tree, Xte) == yte))
            print(f"| {name} | {depth} | {100 * acc[0]:.2f}% | {100 * acc[1]:.2f}% | "
                  f"{100 * (acc[1] - acc[0]):+.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Gradient boosting fit time and accuracy: fastdt against LightGBM and scikit-learn.

Usage (one model per process, so that nothing else shares the cores)::

    python benchmarks/boosting_fit.py fastdt|lightgbm|hgb [rounds]

make_classification 250,000 x 20 (10 informative, seed 0), float32, the first 200,000
rows to train and the rest to test; log-loss, ``rounds`` rounds (default 100) of 255
leaves, learning rate 0.1, no early stopping, 2 threads. fastdt is timed after a small
untimed fit (its kernels compiled). Prints the fit seconds and the test accuracy. A plain
script (asv imports the benchmarks folder: nothing runs on import).
"""

import sys
import time


def main(which, rounds=100):
    import numpy as np
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=250_000, n_features=20, n_informative=10,
                               random_state=0)
    X = X.astype(np.float32)
    Xtr, ytr, Xte, yte = X[:200_000], y[:200_000], X[200_000:], y[200_000:]
    if which == "fastdt":
        import fastdt

        fastdt.fit_boosting(Xtr[:3000], ytr[:3000], max_iter=2, max_leaf_nodes=255,
                            early_stopping=False)
        t = time.perf_counter()
        model = fastdt.fit_boosting(Xtr, ytr, max_iter=rounds, max_leaf_nodes=255,
                                    early_stopping=False, n_jobs=2)
        fit = time.perf_counter() - t
        acc = float((fastdt.predict(model, Xte) == yte).mean())
    elif which == "lightgbm":
        import lightgbm

        model = lightgbm.LGBMClassifier(n_estimators=rounds, num_leaves=255,
                                        learning_rate=0.1, n_jobs=2, verbose=-1)
        t = time.perf_counter()
        model.fit(Xtr, ytr)
        fit = time.perf_counter() - t
        acc = model.score(Xte, yte)
    elif which == "hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier

        model = HistGradientBoostingClassifier(max_iter=rounds, max_leaf_nodes=255,
                                               early_stopping=False)
        t = time.perf_counter()
        model.fit(Xtr, ytr)
        fit = time.perf_counter() - t
        acc = model.score(Xte, yte)
    else:
        raise SystemExit(f"unknown model {which!r}: fastdt, lightgbm or hgb")
    print(f"{which}: {rounds} rounds, fit {fit:.2f} s, test accuracy {acc:.4f}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100)

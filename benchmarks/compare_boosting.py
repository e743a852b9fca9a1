"""``compare.py --section boosting``: gradient boosting, fastdt against LightGBM, XGBoost
and scikit-learn's HistGradientBoosting.

Speed table: ``make_classification(n_samples=rows, n_features=20, n_informative=10,
random_state=0)`` as float32, the first 80% train (``--boosting-rows``, default the
issue's 250,000 rows: 200,000 train); log-loss, ``--boosting-rounds`` rounds (default
100) of 255 leaves, learning rate 0.1, no early stopping, binning included. Every model
is fitted in a fresh process of its own (fastdt after a small untimed fit: its kernels
compiled or loaded): fit seconds (best of ``--repeat``), test accuracy, and the seconds
of ``predict_proba`` of the 200,000 training rows (best of 3). XGBoost is ``hist`` with
``max_depth=8`` (the issue's setting; its leaf-wise mode is slower). A second table gives
fastdt's seconds per round at 1/4, 1/2 and all of the training rows (20 rounds each): a
round's cost should grow linearly with the rows.

Accuracy table: the shared tables as raw DataFrames (``../shared/datasets``; skipped
when absent): Adult and Titanic (test accuracy), Diamonds (log price from the 9 other
columns, cut/color/clarity categorical, a seeded 80/20 split; test RMSE). Every library
with its native categorical support (fastdt and scikit-learn: category dtypes; LightGBM:
pandas categories; XGBoost: ``enable_categorical``) and its own missing-value handling;
100 rounds, learning rate 0.1, 31 leaves grown leaf-wise (XGBoost ``lossguide``), at
least 20 rows a leaf, no early stopping. Fit seconds (after an untimed fit of 300 rows)
are given for information.
"""

import json
import os
import subprocess
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_MODELS = ("fastdt", "LightGBM", "XGBoost", "HistGradientBoosting")
_NEEDS = {"fastdt": "fastdt", "LightGBM": "lightgbm", "XGBoost": "xgboost",
          "HistGradientBoosting": "sklearn"}


def _installed(module):
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _model(name, threads, rounds, leaves=255, min_leaf=20, xgb_depth=8, task="clf"):
    """An unfitted model of library ``name`` (``task``: "clf" or "reg")."""
    if name == "fastdt":
        import fastdt

        cls = fastdt.GradientBoostingClassifier if task == "clf" else \
            fastdt.GradientBoostingRegressor
        return cls(max_iter=rounds, max_leaf_nodes=leaves, min_samples_leaf=min_leaf,
                   learning_rate=0.1, early_stopping=False, n_jobs=threads)
    if name == "LightGBM":
        import lightgbm

        cls = lightgbm.LGBMClassifier if task == "clf" else lightgbm.LGBMRegressor
        return cls(n_estimators=rounds, num_leaves=leaves, min_child_samples=min_leaf,
                   learning_rate=0.1, n_jobs=threads, verbose=-1)
    if name == "XGBoost":
        import xgboost

        cls = xgboost.XGBClassifier if task == "clf" else xgboost.XGBRegressor
        shape = (dict(max_depth=xgb_depth) if xgb_depth else
                 dict(max_depth=0, grow_policy="lossguide", max_leaves=leaves))
        return cls(n_estimators=rounds, learning_rate=0.1, tree_method="hist",
                   n_jobs=threads, enable_categorical=True, **shape)
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    cls = HistGradientBoostingClassifier if task == "clf" else HistGradientBoostingRegressor
    return cls(max_iter=rounds, max_leaf_nodes=leaves, min_samples_leaf=min_leaf,
               learning_rate=0.1, early_stopping=False)


def _worker(name, rows, rounds, threads, repeat):
    """Fit, score and predict one model (run in a fresh process); prints a JSON line."""
    import time

    import numpy as np

    sys.path.insert(0, _HERE)
    import common
    from hist_accuracy import synthetic  # the make_classification split of the issue

    common.set_threads(threads)
    Xtr, ytr, Xte, yte = synthetic(rows)
    if name == "fastdt":  # the kernels compiled (or loaded) before the clock starts
        _model(name, threads, 2).fit(Xtr[:3000], ytr[:3000]).predict_proba(Xte[:100])
    fits = []
    for _ in range(repeat):
        model = _model(name, threads, rounds)
        t = time.perf_counter()
        model.fit(Xtr, ytr)
        fits.append(time.perf_counter() - t)
    acc = float(np.mean(model.predict(Xte) == yte))
    preds = []
    for _ in range(3):
        t = time.perf_counter()
        model.predict_proba(Xtr)
        preds.append(time.perf_counter() - t)
    print(json.dumps({"fit": min(fits), "acc": acc, "predict": min(preds)}))


def _run(name, rows, rounds, threads, repeat):
    cmd = [sys.executable, os.path.abspath(__file__), name, str(rows), str(rounds),
           str(threads), str(repeat)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{name} failed: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _diamonds(folder):
    """Diamonds as ``(X_train, y_train, X_test, y_test)``: log price from the other
    columns, cut/color/clarity as categories, a seeded 80/20 split."""
    import numpy as np
    import pandas as pd

    df = pd.read_csv(os.path.join(folder, "diamonds.csv"))
    y = np.log(df.pop("price").to_numpy(np.float64))
    for c in ("cut", "color", "clarity"):
        df[c] = df[c].astype("category")
    test = np.random.default_rng(0).random(len(df)) < 0.2
    return (df[~test].reset_index(drop=True), y[~test], df[test].reset_index(drop=True),
            y[test])


def _accuracy_rows(threads, say):
    import time

    import numpy as np

    from fastdt.datasets import load_adult_frame, load_titanic_frame

    folder = os.environ.get("FASTDT_DATASETS",
                            os.path.join(_HERE, "..", "..", "shared", "datasets"))
    try:
        tables = [("Adult", "clf", load_adult_frame()), ("Titanic", "clf", load_titanic_frame()),
                  ("Diamonds", "reg", _diamonds(folder))]
    except FileNotFoundError as exc:
        say(f"(accuracy table skipped: {exc})")
        return
    say("| table | model | test accuracy (RMSE of log price) | fit s |")
    say("| --- | --- | ---: | ---: |")
    for table, task, (Xtr, ytr, Xte, yte) in tables:
        for name in _MODELS:
            if not _installed(_NEEDS[name]):
                continue
            # an untimed small fit first: compiled kernels, loaded libraries
            _model(name, threads, 2, leaves=31, xgb_depth=None, task=task).fit(
                Xtr.iloc[:300], ytr[:300])
            model = _model(name, threads, 100, leaves=31, xgb_depth=None, task=task)
            t = time.perf_counter()
            model.fit(Xtr, ytr)
            fit = time.perf_counter() - t
            pred = model.predict(Xte)
            score = (np.mean(pred == yte) if task == "clf"
                     else np.sqrt(np.mean((pred - yte) ** 2)))
            say(f"| {table} ({len(ytr):,} train) | {name} | {score:.4f} | {fit:.2f} |")


def boosting_section(args, threads, say):
    rows = getattr(args, "boosting_rows", 250_000)
    rounds = getattr(args, "boosting_rounds", 100)
    cut = int(0.8 * rows)
    say(f"Boosting: make_classification {rows:,} x 20 (10 informative) float32, {cut:,} "
        f"train rows, {rounds} rounds of 255 leaves, learning rate 0.1, {threads} threads, "
        f"binning included, fit seconds best of {args.repeat} (each model in a fresh "
        f"process); predict_proba of the {cut:,} training rows, best of 3.")
    say("")
    say("| model | fit s | test accuracy | predict s |")
    say("| --- | ---: | ---: | ---: |")
    for name in _MODELS:
        if not _installed(_NEEDS[name]):
            say(f"| {name} | not installed | | |")
            continue
        r = _run(name, rows, rounds, threads, args.repeat)
        say(f"| {name} | {r['fit']:.2f} | {r['acc']:.4f} | {r['predict']:.3f} |")
    say("")
    say("fastdt's seconds per round against the training rows (20 rounds of 255 leaves):")
    say("")
    say("| training rows | s per round |")
    say("| ---: | ---: |")
    for share in (4, 2, 1):
        r = _run("fastdt", rows // share, 20, threads, 1)
        say(f"| {int(0.8 * (rows // share)):,} | {r['fit'] / 20:.4f} |")
    say("")
    say("Accuracy on the shared tables (raw DataFrames, native categories and missing "
        "values; 100 rounds, 31 leaves, learning rate 0.1):")
    say("")
    _accuracy_rows(threads, say)


if __name__ == "__main__":
    _worker(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
            int(sys.argv[5]))

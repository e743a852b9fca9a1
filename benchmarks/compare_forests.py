"""``compare.py --section forests``: forests of 100 trees, fastdt against scikit-learn.

Data: ``make_classification(n_samples=rows, n_features=20, n_informative=10,
random_state=0)`` as float32, the first 80% train (the issue's 250,000 rows: 200,000
train). Each library fits ``RandomForestClassifier`` (fastdt's exact and histogram
splitters) and ``ExtraTreesClassifier`` with 100 trees and its thread count; the table
gives fit seconds (best of ``--repeat``), test accuracy, ``predict_proba`` of the test
rows, nodes, and the saved size (fastdt's ``.npz``; scikit-learn's pickle) per node.
A second table gives fastdt's seconds per tree at ``max_features`` sqrt, 0.5 and 1.0
(20 trees; extra trees without bootstrap).
"""

import os
import pickle
import tempfile


def forests_section(args, threads, say, rows=250_000, n_trees=100):
    import numpy as np
    from compare import _best
    from sklearn import ensemble
    from sklearn.datasets import make_classification

    import fastdt

    X, y = make_classification(n_samples=rows, n_features=20, n_informative=10,
                               random_state=0)
    X = X.astype(np.float32)
    cut = int(0.8 * rows)
    Xtr, ytr, Xte, yte = X[:cut], y[:cut], X[cut:], y[cut:]
    for splitter in ("best", "hist", "random"):  # compile / load the kernels first
        small = fastdt.fit_forest(Xtr[:2000], ytr[:2000], n_estimators=2, splitter=splitter)
        fastdt.predict_proba(small, Xte[:2000])
    say(f"Forests: make_classification {rows:,} x 20 (10 informative) float32, {cut:,} train "
        f"rows, {n_trees} trees, {threads} threads, fit seconds best of {args.repeat}; "
        f"predict_proba of the {rows - cut:,} test rows; saved size per node (fastdt "
        "`.npz`, scikit-learn pickle).")
    say("")
    say("| model | fit (s) | test accuracy | predict_proba (s) | nodes | bytes/node |")
    say("|---|---:|---:|---:|---:|---:|")
    cases = [
        ("fastdt RandomForest (best)", lambda: fastdt.RandomForestClassifier(
            n_trees, random_state=0, n_jobs=threads)),
        ("fastdt RandomForest (hist)", lambda: fastdt.RandomForestClassifier(
            n_trees, random_state=0, n_jobs=threads, splitter="hist")),
        ("scikit-learn RandomForest", lambda: ensemble.RandomForestClassifier(
            n_trees, random_state=0, n_jobs=threads)),
        ("fastdt ExtraTrees", lambda: fastdt.ExtraTreesClassifier(
            n_trees, random_state=0, n_jobs=threads)),
        ("scikit-learn ExtraTrees", lambda: ensemble.ExtraTreesClassifier(
            n_trees, random_state=0, n_jobs=threads)),
    ]
    for name, make in cases:
        t_fit, model = _best(lambda: make().fit(Xtr, ytr), args.repeat)
        t_pred, proba = _best(lambda: model.predict_proba(Xte), args.repeat)
        acc = float(np.mean(model.classes_[proba.argmax(1)] == yte))
        with tempfile.TemporaryDirectory() as d:
            if name.startswith("fastdt"):
                nodes = model.forest_.node_count
                path = os.path.join(d, "f.npz")
                model.forest_.save(path)
                size = os.path.getsize(path)
            else:
                nodes = sum(e.tree_.node_count for e in model.estimators_)
                size = len(pickle.dumps(model))
        say(f"| {name} | {t_fit:.2f} | {acc:.4f} | {t_pred:.3f} | {nodes:,} | "
            f"{size / nodes:.1f} |")
    _max_features_sweep(Xtr, ytr, threads, say, args.repeat)


def _max_features_sweep(Xtr, ytr, threads, say, repeat, n_trees=20):
    """Seconds per tree of fastdt's forests at max_features sqrt, 0.5 and 1.0."""
    from compare import _best

    import fastdt

    say("")
    say(f"Cost of a tree against `max_features` ({n_trees} trees, seconds per tree, best of "
        f"{repeat}):")
    say("")
    say("| splitter | sqrt | 0.5 | 1.0 |")
    say("|---|---:|---:|---:|")
    for splitter in ("best", "hist", "random"):
        cells = []
        for mf in ("sqrt", 0.5, 1.0):
            t, _ = _best(lambda: fastdt.fit_forest(
                Xtr, ytr, n_estimators=n_trees, max_features=mf, splitter=splitter,
                bootstrap=splitter != "random", random_state=0, n_jobs=threads), repeat)
            cells.append(f"{t / n_trees:.3f}")
        say(f"| {splitter} | " + " | ".join(cells) + " |")

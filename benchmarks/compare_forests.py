"""``compare.py --section forests``: forests of 100 trees, fastdt against scikit-learn,
LightGBM's random-forest mode and R's ranger.

Data: ``make_classification(n_samples=rows, n_features=20, n_informative=10,
random_state=0)`` as float32, the first 80% train (``--forest-rows``, default the
issue's 250,000 rows: 200,000 train). Every model is fitted in a fresh process of its
own (the data loaded from a temporary folder, the kernels of the fit and of the
prediction compiled or loaded before the clocks start), so that its peak memory is its
own: the table gives fit seconds (best of ``--repeat``), test accuracy, the prediction
of the test rows (``predict_proba``; ranger: its class votes), nodes, the saved size per
node (fastdt's ``.npz``; scikit-learn's and LightGBM's pickle; ranger's ``serialize``)
and the growth of the peak resident memory during the fits over the process with the
data loaded (Linux ``VmHWM``). Libraries that are not installed are left out with a line
saying so.

A second table gives fastdt's seconds per tree at ``max_features`` sqrt, 0.5 and 1.0
(20 trees; extra trees without bootstrap).

Settings of the others: scikit-learn's ``RandomForestClassifier`` /
``ExtraTreesClassifier`` defaults; LightGBM ``boosting_type="rf"`` with bagging 0.632
every round, ``feature_fraction_bynode`` sqrt(20)/20, ``num_leaves`` 16,384,
``min_child_samples`` 1 (trees as deep as a forest's, within LightGBM's leaf cap);
ranger ``num.trees=100``, its defaults otherwise (``mtry`` sqrt, bootstrap, majority
vote).
"""

import json
import os
import pickle
import subprocess
import sys
import tempfile

_HERE = os.path.dirname(os.path.abspath(__file__))

# (model, the library it needs)
_CASES = [
    ("fastdt RandomForest (best)", "fastdt"),
    ("fastdt RandomForest (hist)", "fastdt"),
    ("scikit-learn RandomForest", "sklearn"),
    ("LightGBM rf", "lightgbm"),
    ("ranger", "ranger"),
    ("fastdt ExtraTrees", "fastdt"),
    ("scikit-learn ExtraTrees", "sklearn"),
]


def forests_section(args, threads, say, n_trees=100):
    import numpy as np
    from sklearn.datasets import make_classification

    rows = getattr(args, "forest_rows", 250_000)
    X, y = make_classification(n_samples=rows, n_features=20, n_informative=10,
                               random_state=0)
    X = X.astype(np.float32)
    cut = int(0.8 * rows)
    say(f"Forests: make_classification {rows:,} x 20 (10 informative) float32, {cut:,} train "
        f"rows, {n_trees} trees, {threads} threads, fit seconds best of {args.repeat}; "
        f"prediction of the {rows - cut:,} test rows; saved size per node; peak memory "
        "growth of the fit (each model in a fresh process).")
    say("")
    say("| model | fit (s) | test accuracy | predict (s) | nodes | bytes/node | peak memory "
        "growth (MiB) |")
    say("|---|---:|---:|---:|---:|---:|---:|")
    missing = []
    with tempfile.TemporaryDirectory(prefix="fastdt-forests-") as d:
        np.save(os.path.join(d, "X.npy"), X)
        np.save(os.path.join(d, "y.npy"), y)
        for name, lib in _CASES:
            if not _available(lib):
                missing.append(f"{name} ({lib} not installed)")
                continue
            cmd = [sys.executable, os.path.abspath(__file__), "--child", name, d, str(threads),
                   str(args.repeat), str(n_trees)]
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                missing.append(f"{name} (failed: {done.stderr.strip().splitlines()[-1:]})")
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            say(f"| {name} | {r['fit']:.2f} | {r['accuracy']:.4f} | {r['predict']:.3f} | "
                f"{r['nodes']:,} | {r['bytes'] / r['nodes']:.1f} | {r['growth_mib']:.0f} |")
    for line in missing:
        say(f"\nLeft out: {line}")
    _max_features_sweep(X[:cut], y[:cut], threads, say, args.repeat)


def _available(lib):
    if lib == "ranger":
        try:
            done = subprocess.run(["Rscript", "-e", "library(ranger)"], capture_output=True)
        except OSError:
            return False
        return done.returncode == 0
    try:
        __import__(lib)
    except ImportError:
        return False
    return True


def _peak_bytes():
    """This process's peak resident memory (Linux ``VmHWM``)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def _child(name, folder, threads, repeat, n_trees):
    """Fit, predict and measure one model; prints one JSON line."""
    import numpy as np
    from compare import _best

    X = np.load(os.path.join(folder, "X.npy"))
    y = np.load(os.path.join(folder, "y.npy"))
    cut = int(0.8 * X.shape[0])
    Xtr, ytr, Xte, yte = X[:cut], y[:cut], X[cut:], y[cut:]
    if name == "ranger":
        return _ranger(folder, Xtr, ytr, Xte, yte, threads, repeat, n_trees)
    make = _model(name, threads, n_trees)
    if name.startswith("fastdt"):
        # compile / load the kernels of the fit and of the prediction before the clocks
        make().set_params(n_estimators=2).fit(Xtr[:2000], ytr[:2000]).predict_proba(Xte[:100])
    before = _peak_bytes()
    t_fit, model = _best(lambda: make().fit(Xtr, ytr), repeat)
    growth = _peak_bytes() - before
    t_pred, proba = _best(lambda: model.predict_proba(Xte), repeat)
    acc = float(np.mean(model.classes_[proba.argmax(1)] == yte))
    if name.startswith("fastdt"):
        nodes = model.forest_.node_count
        with tempfile.TemporaryDirectory() as d:
            model.forest_.save(os.path.join(d, "f.npz"))
            size = os.path.getsize(os.path.join(d, "f.npz"))
    elif name.startswith("LightGBM"):
        nodes = int(sum(2 * t["num_leaves"] - 1
                        for t in model.booster_.dump_model()["tree_info"]))
        size = len(pickle.dumps(model))
    else:
        nodes = sum(e.tree_.node_count for e in model.estimators_)
        size = len(pickle.dumps(model))
    return dict(fit=t_fit, predict=t_pred, accuracy=acc, nodes=nodes, bytes=size,
                growth_mib=growth / 2**20)


def _model(name, threads, n_trees):
    if name.startswith("fastdt"):
        import fastdt

        if "ExtraTrees" in name:
            return lambda: fastdt.ExtraTreesClassifier(n_trees, random_state=0, n_jobs=threads)
        splitter = "hist" if "hist" in name else "best"
        return lambda: fastdt.RandomForestClassifier(n_trees, random_state=0, n_jobs=threads,
                                                     splitter=splitter)
    if name.startswith("scikit-learn"):
        from sklearn import ensemble

        cls = (ensemble.ExtraTreesClassifier if "ExtraTrees" in name
               else ensemble.RandomForestClassifier)
        return lambda: cls(n_trees, random_state=0, n_jobs=threads)
    import lightgbm

    return lambda: lightgbm.LGBMClassifier(
        boosting_type="rf", n_estimators=n_trees, subsample=0.632, subsample_freq=1,
        feature_fraction_bynode=20**0.5 / 20, num_leaves=16_384, max_depth=-1,
        min_child_samples=1, min_child_weight=1e-5, n_jobs=threads, random_state=0,
        verbose=-1)


_RANGER = r"""
suppressMessages(library(ranger))
a <- commandArgs(TRUE)
d <- a[1]; ntr <- as.integer(a[2]); nte <- as.integer(a[3]); p <- as.integer(a[4])
threads <- as.integer(a[5]); repeats <- as.integer(a[6]); ntrees <- as.integer(a[7])
peak <- function() {
  s <- readLines("/proc/self/status"); as.numeric(strsplit(trimws(sub("VmHWM:", "",
    s[grepl("^VmHWM:", s)])), " +")[[1]][1]) * 1024
}
rd <- function(f, n, what, size) readBin(file.path(d, f), what, n = n, size = size)
xtr <- matrix(rd("Xtr.bin", ntr * p, "numeric", 4), nrow = ntr, byrow = TRUE)
ytr <- factor(rd("ytr.bin", ntr, "integer", 4))
xte <- matrix(rd("Xte.bin", nte * p, "numeric", 4), nrow = nte, byrow = TRUE)
yte <- rd("yte.bin", nte, "integer", 4)
colnames(xtr) <- colnames(xte) <- paste0("x", seq_len(p))
before <- peak()
fit <- Inf; pred <- Inf
for (r in seq_len(repeats)) {
  t0 <- proc.time()[["elapsed"]]
  m <- ranger(x = xtr, y = ytr, num.trees = ntrees, num.threads = threads, seed = r)
  fit <- min(fit, proc.time()[["elapsed"]] - t0)
}
growth <- peak() - before
for (r in seq_len(repeats)) {
  t0 <- proc.time()[["elapsed"]]
  out <- predict(m, xte, num.threads = threads)$predictions
  pred <- min(pred, proc.time()[["elapsed"]] - t0)
}
acc <- mean(as.integer(as.character(out)) == yte)
nodes <- sum(sapply(m$forest$split.varIDs, length))
size <- length(serialize(m, NULL))
cat(sprintf('{"fit": %.4f, "predict": %.4f, "accuracy": %.6f, "nodes": %d, "bytes": %.0f, "growth_mib": %.2f}\n',
            fit, pred, acc, nodes, size, growth / 2^20))
"""


def _ranger(folder, Xtr, ytr, Xte, yte, threads, repeat, n_trees):
    import numpy as np

    for fname, a, dt in (("Xtr.bin", Xtr, np.float32), ("ytr.bin", ytr, np.int32),
                         ("Xte.bin", Xte, np.float32), ("yte.bin", yte, np.int32)):
        np.ascontiguousarray(a, dtype=dt).tofile(os.path.join(folder, fname))
    script = os.path.join(folder, "ranger.R")
    with open(script, "w") as f:
        f.write(_RANGER)
    done = subprocess.run(["Rscript", script, folder, str(Xtr.shape[0]), str(Xte.shape[0]),
                           str(Xtr.shape[1]), str(threads), str(repeat), str(n_trees)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _max_features_sweep(Xtr, ytr, threads, say, repeat, n_trees=20):
    """Seconds per tree of fastdt's forests at max_features sqrt, 0.5 and 1.0."""
    from compare import _best

    import fastdt

    for splitter in ("best", "hist", "random"):  # compile / load the kernels first
        fastdt.fit_forest(Xtr[:2000], ytr[:2000], n_estimators=2, splitter=splitter)
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


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "--child":
    sys.path.insert(0, _HERE)
    __import__("common")  # makes a checkout's fastdt importable
    name, folder, threads, repeat, n_trees = sys.argv[2], sys.argv[3], *map(int, sys.argv[4:7])
    print(json.dumps(_child(name, folder, threads, repeat, n_trees)))

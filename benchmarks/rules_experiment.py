"""C4.5 rule post-pruning on Adult: test accuracy before and after, and the pruning time.

Reproduces the set-up of a university report on C4.5 rule post-pruning: for each
training size n in 25, 50, ..., 5000, draw disjoint random samples of n training,
n // 2 validation and 3n // 4 test rows from Adult (``adult.data`` and ``adult.test``
pooled, 48,842 rows; a fresh sample for every seed and size), grow an unpruned tree
(C4.5's criterion, ``gain_ratio``, unless ``--criterion`` says otherwise; every other
parameter at fastdt's default: ``min_samples_leaf=1``, ``missing="learn"``, binary
category-subset splits), turn it into a rule list (which predicts exactly as the tree)
and post-prune it:

* ``validation``: rules generalized and ordered by their accuracy on the validation rows;
* ``pessimistic``: by C4.5's pessimistic error estimate (CF = 0.25) on the training rows
  (no validation data used).

Accuracies are on the test rows; times are wall-clock seconds of ``RuleList.prune``
(input conversion included), warm (kernels compiled before the first measurement).
Columns are mean +- sample standard deviation over the seeds. Run::

    python benchmarks/rules_experiment.py --seeds 10

This is a plain script, not an asv benchmark (asv imports it during discovery: lazy
imports, a ``__main__`` guard, no ``time_`` names).
"""

import argparse
import os
import sys
import time

import numpy as np

SIZES = (25, 50, 100, 250, 500, 1000, 2500, 5000)


def run(X, y, sizes=SIZES, seeds=10, criterion="gain_ratio", progress=False):
    """``[(n, {measure: [value per seed]})]`` for every training size ``n``: test
    accuracy before (``before``) and after pruning (``val``, ``pes``), pruning seconds
    (``t_val``, ``t_pes``), rules and conditions before and after."""
    _one(X, y, 200, 12345, criterion)  # compile (or load) every kernel once
    rows = []
    for n in sizes:
        res = [_one(X, y, n, seed, criterion) for seed in range(seeds)]
        rows.append((n, {k: [r[k] for r in res] for k in res[0]}))
        if progress:
            print(f"n={n}: done", file=sys.stderr, flush=True)
    return rows


def load():
    """Adult, train and test files pooled: ``(X DataFrame, y int64)``."""
    import pandas as pd

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if here not in sys.path:
        sys.path.insert(0, here)
    from fastdt.datasets import load_adult_frame

    X_a, y_a, X_b, y_b = load_adult_frame()
    return pd.concat([X_a, X_b], ignore_index=True), np.concatenate([y_a, y_b])


def _one(X, y, n, seed, criterion):
    import fastdt
    from fastdt.rules import RuleList

    rng = np.random.default_rng([seed, n])
    perm = rng.permutation(y.shape[0])
    n_val, n_test = n // 2, 3 * n // 4
    tr, va, te = perm[:n], perm[n:n + n_val], perm[n + n_val:n + n_val + n_test]
    X_tr, X_va, X_te = X.iloc[tr], X.iloc[va], X.iloc[te]
    tree = fastdt.fit(X_tr, y[tr], criterion=criterion)
    rules = RuleList.from_tree(tree)
    before = rules.score(X_te, y[te])
    assert before == np.mean(fastdt.predict(tree, X_te) == y[te])
    t0 = time.perf_counter()
    val = rules.prune(X_va, y[va])
    t_val = time.perf_counter() - t0
    t0 = time.perf_counter()
    pes = rules.prune(X_tr, y[tr], method="pessimistic")
    t_pes = time.perf_counter() - t0
    return {
        "before": before, "rules": len(rules), "conds": rules.n_conditions,
        "val": val.score(X_te, y[te]), "t_val": t_val, "val_rules": len(val),
        "val_conds": val.n_conditions,
        "pes": pes.score(X_te, y[te]), "t_pes": t_pes, "pes_rules": len(pes),
        "pes_conds": pes.n_conditions,
    }


def _ms(values):
    v = np.asarray(values, dtype=float)
    sd = v.std(ddof=1) if v.shape[0] > 1 else 0.0
    return v.mean(), sd


def _pct(values):
    m, s = _ms(values)
    return f"{100 * m:.1f} ± {100 * s:.1f}"


def _time(values):
    m, s = _ms(values)
    return f"{1000 * m:.1f} ± {1000 * s:.1f}"


def _count(values):
    m, s = _ms(values)
    return f"{m:.0f} ± {s:.0f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--sizes", type=lambda s: [int(v) for v in s.split(",")],
                        default=list(SIZES))
    parser.add_argument("--criterion", default="gain_ratio")
    args = parser.parse_args(argv)

    X, y = load()
    rows = run(X, y, args.sizes, args.seeds, args.criterion, progress=True)

    print(f"Adult (train + test pooled, {y.shape[0]} rows), criterion={args.criterion!r}, "
          f"{args.seeds} seeds; accuracy on 3n/4 test rows in %, times in ms, "
          "mean ± std over seeds\n")
    print("| n train | tree = unpruned rules | rules, validation-pruned | prune time (ms) "
          "| rules (conds) before | rules (conds) after | rules, pessimistic-pruned "
          "| prune time (ms) | rules (conds) after |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, c in rows:
        print(f"| {n} | {_pct(c['before'])} | {_pct(c['val'])} | {_time(c['t_val'])} "
              f"| {_count(c['rules'])} ({_count(c['conds'])}) "
              f"| {_count(c['val_rules'])} ({_count(c['val_conds'])}) "
              f"| {_pct(c['pes'])} | {_time(c['t_pes'])} "
              f"| {_count(c['pes_rules'])} ({_count(c['pes_conds'])}) |")
    n, c = rows[-1]
    print(f"\nslowest pruning at n={n}: validation {1000 * max(c['t_val']):.1f} ms, "
          f"pessimistic {1000 * max(c['t_pes']):.1f} ms")


if __name__ == "__main__":
    main()

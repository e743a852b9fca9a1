"""fastdt.dask against xgboost.dask and lightgbm.dask: one tree, or boosting, on a LocalCluster.

::

    python benchmarks/dask_fit.py                       # 1e7 x 20 rows, 8 partitions
    python benchmarks/dask_fit.py --rows 1000000 --partitions 4
    python benchmarks/dask_fit.py --rounds 20 --depth 6  # gradient boosting

The data (float32, a nonlinear rule with label noise) is generated on the workers, one
chunk per partition, and persisted before any timing, so every library starts from the
same rows in the workers' memory; the test rows (``--test-rows``) likewise. Each
library fits one tree of depth ``--depth`` (LightGBM: ``num_leaves`` 2**depth,
``max_depth`` depth; XGBoost: ``tree_method="hist"``, ``max_depth``; learning rate 1,
no regularisation) and predicts the test rows with its own dask predict. fastdt's fit
is also shown per round of tasks (its ``log``): the nodes whose histograms were built,
the bytes of histograms the partitions produced, and the seconds. A warm-up fit and
predict on a small sample first compiles fastdt's kernels in every worker (and loads
the others).

With ``--rounds N``, each library boosts ``N`` trees of depth ``--depth`` instead
(learning rate 0.1, L2 regularisation 1, at least 20 rows per leaf where the library
has such a limit, no early stopping), and fastdt's log shows every tree's rounds.
"""

import argparse
import time

import numpy as np


def make_chunk(seed, n, n_features):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features)).astype(np.float32)
    score = (X[:, 0] + 0.8 * X[:, 1] * X[:, 2] - 0.5 * X[:, 3] ** 2 + np.sin(2 * X[:, 4])
             + 0.5 * (X[:, 5] > 0.5) + 0.3 * rng.normal(size=n))
    y = (score > 0).astype(np.int32)
    return X, y


def dataset(rows, partitions, n_features, seed):
    import dask
    import dask.array as da

    sizes = [rows // partitions + (i < rows % partitions) for i in range(partitions)]
    chunks = [dask.delayed(make_chunk)(seed * 1000 + i, s, n_features)
              for i, s in enumerate(sizes)]
    X = da.concatenate([da.from_delayed(c[0], (s, n_features), np.float32)
                        for c, s in zip(chunks, sizes)])
    y = da.concatenate([da.from_delayed(c[1], (s,), np.int32) for c, s in zip(chunks, sizes)])
    return X, y


def timed(name, model, X, y, Xt, y_test):
    """``(name, fit s, test accuracy, predict s)`` of a dask estimator, after a warm-up
    fit and predict on a few rows."""
    model.fit(X[:20000], y[:20000])
    model.predict(Xt[:20000]).compute()
    t0 = time.perf_counter()
    model.fit(X, y)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    acc = float(np.mean(model.predict(Xt).compute() == y_test))
    return name, fit_s, acc, time.perf_counter() - t0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--test-rows", type=int, default=1_000_000)
    p.add_argument("--partitions", type=int, default=8)
    p.add_argument("--features", type=int, default=20)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--threads", type=int, default=1, help="threads per worker")
    p.add_argument("--depth", type=int, default=10)
    p.add_argument("--rounds", type=int, default=0,
                   help="boosting rounds (0: one tree, learning rate 1)")
    p.add_argument("--libs", default="fastdt,xgboost,lightgbm")
    args = p.parse_args()

    from distributed import Client, LocalCluster, wait

    import fastdt.dask

    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=args.threads,
                           processes=True, dashboard_address=None, silence_logs=40)
    client = Client(cluster)
    X, y = dataset(args.rows, args.partitions, args.features, 1)
    Xt, yt = dataset(args.test_rows, args.partitions, args.features, 2)
    X, y, Xt, yt = client.persist([X, y, Xt, yt])
    wait([X, y, Xt, yt])
    y_test = yt.compute()
    what = (f"{args.rounds} boosted trees" if args.rounds else "one tree") + \
        f" of depth {args.depth}"
    print(f"{args.rows:,} x {args.features} float32 rows in {args.partitions} partitions, "
          f"{args.workers} worker processes x {args.threads} thread(s), {what}; test "
          f"{args.test_rows:,} rows")
    libs = args.libs.split(",")
    boost = args.rounds > 0
    rounds, rate, lam = (args.rounds, 0.1, 1.0) if boost else (1, 1.0, 0.0)
    results = []
    if "fastdt" in libs:
        if boost:
            def fit(X, y, **kw):
                return fastdt.dask.fit_boosting(
                    X, y, max_iter=rounds, max_depth=args.depth, max_leaf_nodes=None,
                    learning_rate=rate, l2_regularization=lam, early_stopping=False,
                    random_state=0, **kw)
        else:
            def fit(X, y, **kw):
                return fastdt.dask.fit(X, y, max_depth=args.depth, **kw)
        # compile (or load) the kernels in every worker: a tree's, the Newton trees',
        # and a forest's prediction
        warm = fastdt.dask.fit(X[:20000], y[:20000], max_depth=3)
        fastdt.dask.predict(warm, Xt[:20000]).compute()
        if boost:
            warm = fastdt.dask.fit_boosting(X[:20000], y[:20000], max_iter=2, max_depth=3,
                                            early_stopping=False)
            fastdt.dask.predict(warm, Xt[:20000]).compute()
        log = []
        t0 = time.perf_counter()
        tree = fit(X, y, log=log)
        fit_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        acc = float(np.mean(fastdt.dask.predict(tree, Xt).compute() == y_test))
        results.append(("fastdt.dask", fit_s, acc, time.perf_counter() - t0))
        if boost:
            print(f"fastdt: {len(log)} rounds of histogram tasks for {rounds} trees, "
                  f"{sum(e[1] for e in log) / 2**20:.1f} MB of histograms")
        else:
            print("fastdt per round of tasks: nodes built, MB of histograms, seconds")
            for i, (nodes, moved, s) in enumerate(log):
                print(f"  {i:2d}  {nodes:5d}  {moved / 2**20:8.1f}  {s:.3f}")
        print(f"  histogram rounds {sum(e[2] for e in log):.2f} s of the fit's {fit_s:.2f} s "
              "(the rest: summary, binning, persisting the partitions"
              + (", gradients, scores and losses)" if boost else ")"))
    if "xgboost" in libs:
        from xgboost import dask as dxgb

        model = dxgb.DaskXGBClassifier(
            n_estimators=rounds, max_depth=args.depth, tree_method="hist",
            learning_rate=rate, reg_lambda=lam, min_child_weight=1.0 if boost else 0.0,
            max_bin=256)
        model.client = client
        results.append(timed("xgboost.dask", model, X, y, Xt, y_test))
    if "lightgbm" in libs:
        import lightgbm as lgb

        model = lgb.DaskLGBMClassifier(
            client=client, n_estimators=rounds, num_leaves=2 ** args.depth,
            max_depth=args.depth, learning_rate=rate, min_child_samples=20 if boost else 1,
            min_child_weight=0.0, reg_lambda=lam, verbose=-1)
        results.append(timed("lightgbm.dask", model, X, y, Xt, y_test))
    print()
    print("| library | fit s | test accuracy | predict s |")
    print("| --- | ---: | ---: | ---: |")
    for name, fit_s, acc, pred_s in results:
        print(f"| {name} | {fit_s:.2f} | {acc:.4f} | {pred_s:.2f} |")
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()

"""fastdt.dask on a LocalCluster of two worker processes: the tree of one machine, whatever
the partitioning; a worker killed mid-fit; predictions as dask collections."""

import os
import signal

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

import fastdt  # noqa: E402
import fastdt.dask as fdd  # noqa: E402

ARRAYS = ("feature", "threshold", "left", "right", "value", "impurity", "n_node_samples",
          "weighted_n_node_samples", "missing_go_left", "cat_offset", "cat_bitsets")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def assert_same_tree(a, b):
    assert a.node_count == b.node_count
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert np.array_equal(x, y, equal_nan=True), name


def chunked(a, k):
    """``a`` as a dask array of ``k`` row chunks of unequal sizes."""
    n = a.shape[0]
    cuts = np.unique(np.r_[0, np.sort(np.random.default_rng(k).choice(np.arange(1, n), k - 1,
                                                                       replace=False)), n])
    chunks = (tuple(np.diff(cuts)),) + ((a.shape[1],) if a.ndim == 2 else ())
    return da.from_array(a, chunks=chunks)


def classification_data(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    X[:, 3] = np.round(X[:, 3] * 2)  # few distinct values: one bin per value
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 3])
         + rng.normal(size=n) * 0.7 > 0).astype(int) + (X[:, 1] > 1)
    return X, y


@pytest.mark.parametrize("k", [1, 3, 7])
def test_classification_is_one_machine_tree(client, k):
    X, y = classification_data()
    ref = fastdt.fit(X, y, splitter="hist", max_depth=6, min_samples_leaf=3)
    tree = fdd.fit(chunked(X, k), chunked(y, k), max_depth=6, min_samples_leaf=3)
    assert_same_tree(tree, ref)
    pred = fdd.predict(tree, chunked(X, k))
    assert isinstance(pred, da.Array)
    assert np.array_equal(pred.compute(), fastdt.predict(ref, X))
    proba = fdd.predict_proba(tree, chunked(X, k)).compute()
    assert np.array_equal(proba, fastdt.predict_proba(ref, X))


@pytest.mark.parametrize("k", [1, 3, 7])
def test_weighted_regression_is_one_machine_tree(client, k):
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(1500, 4))
    # targets and weights on a grid of 1/8: nothing is rounded by the fixed point
    y = np.round(8 * (3 * X[:, 0] + np.sin(6 * X[:, 1]) + rng.normal(size=1500) * 0.3)) / 8
    w = rng.integers(0, 4, 1500).astype(float) / 2  # zero weights included
    ref = fastdt.fit(X, y, sample_weight=w, splitter="hist", max_depth=7)
    tree = fdd.fit(chunked(X, k), chunked(y, k), sample_weight=chunked(w, k), max_depth=7)
    assert_same_tree(tree, ref)


def test_float_targets_do_not_depend_on_the_partitioning(client):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(1200, 3))
    y = X[:, 0] ** 2 + rng.normal(size=1200)  # full-precision floats: rounded, then exact
    params = {"max_depth": 5, "min_samples_leaf": 20}
    trees = [fdd.fit(chunked(X, k), chunked(y, k), **params) for k in (1, 3, 7)]
    for t in trees[1:]:
        assert_same_tree(t, trees[0])
    ref = fastdt.fit(X, y, splitter="hist", **params)
    # the fixed point rounds below 2**-52 of the total: the same splits, except where
    # two splits tie to the last bit (small nodes; none here), which rounding decides
    assert np.array_equal(trees[0].feature, ref.feature)
    assert np.array_equal(trees[0].threshold, ref.threshold, equal_nan=True)
    np.testing.assert_allclose(trees[0].value, ref.value, rtol=1e-12)


def frame_data(n=1500, seed=3):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "grey"], n).astype(object)
    colour[rng.random(n) < 0.05] = None
    size = pd.Categorical(rng.choice(["S", "M", "L"], n), categories=["S", "M", "L"])
    x = rng.normal(size=n)
    x[rng.random(n) < 0.1] = np.nan
    flag = rng.random(n) < 0.3
    label = np.where((colour == "red") | (np.nan_to_num(x) > 1) | flag, "yes", "no")
    return pd.DataFrame({"colour": colour, "size": size, "x": x, "flag": flag,
                         "label": label})


@pytest.mark.parametrize("k", [1, 4])
def test_dataframe_with_categories_and_missing_values(client, k):
    df = frame_data()
    X, y = df.drop(columns="label"), df["label"]
    ref = fastdt.fit(X, y, splitter="hist", max_depth=5, class_weight="balanced")
    ddf = dd.from_pandas(df, npartitions=k)
    tree = fdd.fit(ddf.drop(columns="label"), ddf["label"], max_depth=5,
                   class_weight="balanced")
    assert tree.categories == ref.categories
    assert tree.feature_names == ref.feature_names
    # balanced class weights are not multiples of the unit: compare what they decide
    assert np.array_equal(tree.feature, ref.feature)
    assert np.array_equal(tree.cat_bitsets, ref.cat_bitsets)
    pred = fdd.predict(tree, ddf.drop(columns="label"))
    assert isinstance(pred, dd.Series)
    got = pred.compute()
    assert np.array_equal(got.to_numpy(), fastdt.predict(ref, X))
    assert got.index.equals(df.index)
    proba = fdd.predict_proba(tree, ddf.drop(columns="label")).compute()
    assert list(proba.columns) == ["no", "yes"]


def test_sampled_bins_do_not_depend_on_the_partitioning(client):
    X, y = classification_data(3000, seed=4)
    trees = [fdd.fit(chunked(X, k), chunked(y, k), max_depth=5, subsample=500,
                     max_bins=32, random_state=0) for k in (1, 3, 7)]
    for t in trees[1:]:
        assert_same_tree(t, trees[0])
    # feature 3 has few distinct values: one bin per value, from every row
    internal = trees[0].feature == 3
    assert np.all(np.isin(trees[0].threshold[internal], np.arange(-8, 9) + 0.5))


def test_best_first_and_parameters(client):
    X, y = classification_data(1500, seed=5)
    for params in ({"max_leaf_nodes": 9}, {"max_features": 2, "random_state": 3},
                   {"criterion": "entropy", "min_impurity_decrease": 0.01},
                   {"monotonic_cst": [1, 0, 0, 0, 0], "max_depth": 4},
                   {"ccp_alpha": 0.01}):
        yb = (y > 0).astype(int) if "monotonic_cst" in params else y
        ref = fastdt.fit(X, yb, splitter="hist", **params)
        tree = fdd.fit(chunked(X, 3), chunked(yb, 3), **params)
        assert_same_tree(tree, ref)


def kill_a_worker_holding(c, futures):
    """SIGKILL the process of a worker holding one of ``futures`` (its nanny starts a
    new, empty one); returns the worker's address."""
    who = c.who_has(futures)
    victim = next(iter(w for ws in who.values() for w in ws))
    os.kill(c.run(os.getpid, workers=[victim])[victim], signal.SIGKILL)
    return victim


def test_a_worker_killed_mid_fit_loses_nothing(client, monkeypatch):
    from fastdt.dask import _splitter

    X, y = classification_data(4000, seed=6)
    ref = fdd.fit(chunked(X, 6), chunked(y, 6), max_depth=7)
    real = _splitter.summed
    rounds, victims = [], []

    def kill_then_sum(c, parts, *args):
        rounds.append(1)
        if len(rounds) == 3:  # before the third round of histograms: kill a worker
            victims.append(kill_a_worker_holding(c, parts))
        return real(c, parts, *args)

    monkeypatch.setattr(_splitter, "summed", kill_then_sum)
    tree = fdd.fit(chunked(X, 6), chunked(y, 6), max_depth=7)
    assert len(rounds) > 3
    assert victims[0] not in client.scheduler_info()["workers"]  # it did die
    assert_same_tree(tree, ref)


def test_bad_input_is_refused_before_any_task(client):
    X, y = classification_data(100)
    Xd, yd = chunked(X, 2), chunked(y, 2)
    with pytest.raises(TypeError, match="dask"):
        fdd.fit(X, y)
    with pytest.raises(ValueError, match="splitter"):
        fdd.fit(Xd, yd, splitter="best")
    with pytest.raises(ValueError, match="missing"):
        fdd.fit(Xd, yd, missing="surrogate")
    with pytest.raises(ValueError, match="absolute_error"):
        fdd.fit(Xd, yd.astype(float), criterion="absolute_error")
    with pytest.raises(ValueError, match="max_depth"):
        fdd.fit(Xd, yd, max_depth=-1)
    with pytest.raises(ValueError, match="rows"):
        fdd.fit(Xd, da.from_array(y[:50], chunks=25))
    with pytest.raises(ValueError, match="negative"):
        fdd.fit(Xd, yd, sample_weight=chunked(-np.ones(100), 2))
    with pytest.raises(TypeError, match="dask"):
        fdd.predict(fastdt.fit(X, y), X)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_forest_is_fit_forests(client, task):
    X, y = classification_data(1500, seed=7)
    if task == "regression":
        y = np.round(4 * np.nan_to_num(X[:, 0] + X[:, 3] % 2)) / 4  # quarters: exact
    params = dict(n_estimators=4, max_depth=5, random_state=0)
    ref = fastdt.fit_forest(X, y, splitter="hist", **params)
    forest = fdd.fit_forest(chunked(X, 3), chunked(y, 3), **params)
    assert forest.n_trees == 4
    for a, b in zip(forest.trees(), ref.trees()):
        assert_same_tree(a, b)
    assert forest.params["seeds"] == ref.params["seeds"]
    got = fdd.predict(forest, chunked(X, 3)).compute()
    assert np.array_equal(got, fastdt.predict(ref, X))


def test_empty_partitions_are_fine(client):
    df = frame_data(1500, seed=8)
    ddf = dd.from_pandas(df, npartitions=4)
    ddf = ddf.map_partitions(lambda d: d[d.index >= 400])  # the first (0-374) is empty
    assert 0 in ddf.map_partitions(len).compute().tolist()
    kept = df[df.index >= 400]
    ref = fastdt.fit(kept.drop(columns="label"), kept["label"], splitter="hist", max_depth=4)
    tree = fdd.fit(ddf.drop(columns="label"), ddf["label"], max_depth=4)
    assert_same_tree(tree, ref)


def test_parquet_columns_read_apart(client, tmp_path):
    # Dask plans the partitions of a narrow column on its own: y alone reads the six
    # files in fewer partitions than X; the fit reads them as one frame
    pytest.importorskip("pyarrow")

    def part(i, n=1000):
        rng = np.random.default_rng(i)
        df = pd.DataFrame(rng.normal(size=(n, 10)), columns=[f"x{j}" for j in range(10)],
                          index=pd.RangeIndex(i * n, (i + 1) * n))
        df["label"] = (df["x0"] + 0.5 * rng.normal(size=n) > 0).astype(np.int8)
        return df

    dd.from_map(part, range(6)).to_parquet(tmp_path / "table")
    ddf = dd.read_parquet(tmp_path / "table")
    X, y = ddf.drop(columns="label"), ddf["label"]
    assert len(y.to_delayed()) < len(X.to_delayed())  # what made it needed
    df = pd.concat([part(i) for i in range(6)])
    ref = fastdt.fit(df.drop(columns="label"), df["label"], splitter="hist", max_depth=5)
    assert_same_tree(fdd.fit(X, y, max_depth=5), ref)


# ------------------------------------------------------------------ boosting


def assert_same_forest(a, b):
    assert a.n_trees == b.n_trees
    for s, t in zip(a.trees(), b.trees()):
        assert_same_tree(s, t)
    assert a.boosting == b.boosting
    for key in ("train_loss", "validation_loss"):
        x, y = a.fit_info_[key], b.fit_info_[key]
        assert (x is None and y is None) or np.array_equal(x, y), key
    assert a.fit_info_["n_iter"] == b.fit_info_["n_iter"]


def test_boosting_is_one_machine_model(client):
    X, y = classification_data(2500, seed=9)
    yb = (y > 0).astype(int)
    params = dict(max_iter=6, learning_rate=0.3, max_leaf_nodes=8, l2_regularization=1.0,
                  early_stopping=False, random_state=0)
    ref = fastdt.fit_boosting(X, yb, **params)
    model = fdd.fit_boosting(chunked(X, 3), chunked(yb, 3), **params)
    # gradients are rounded to the fixed-point unit (2**-52 of their total): the same
    # splits, leaves equal to rounding
    for a, b in zip(model.trees(), ref.trees()):
        assert np.array_equal(a.feature, b.feature)
        assert np.array_equal(a.threshold, b.threshold, equal_nan=True)
    np.testing.assert_allclose(model.boosting["baseline"], ref.boosting["baseline"],
                               rtol=1e-15)
    np.testing.assert_allclose(model.fit_info_["train_loss"], ref.fit_info_["train_loss"],
                               rtol=1e-12)
    proba = fdd.predict_proba(model, chunked(X, 3)).compute()
    np.testing.assert_allclose(proba, fastdt.predict_proba(ref, X), rtol=1e-10)
    # Poisson counts, and three classes (one tree per class per round): where the
    # gradients of a node are all equal, one machine's float sums may still find a
    # split of gain 1e-17, exact sums none (level-wise, such a split changes no other);
    # the predictions agree
    counts = np.random.default_rng(9).poisson(np.exp(np.nan_to_num(X[:, 0]) / 2))
    params = dict(max_iter=4, max_leaf_nodes=None, max_depth=4, early_stopping=False,
                  random_state=1)
    for yy, loss in ((counts, "poisson"), (y, "log_loss")):
        ref = fastdt.fit_boosting(X, yy, loss=loss, **params)
        model = fdd.fit_boosting(chunked(X, 2), chunked(yy, 2), loss=loss, **params)
        assert model.n_trees == ref.n_trees
        np.testing.assert_allclose(fastdt.predict(model, X) if loss == "poisson" else
                                   fastdt.predict_proba(model, X),
                                   fastdt.predict(ref, X) if loss == "poisson" else
                                   fastdt.predict_proba(ref, X), rtol=1e-10)


def test_boosting_does_not_depend_on_the_partitioning(client):
    df = frame_data(2400, seed=10)
    rng = np.random.default_rng(10)
    df["z"] = rng.normal(size=len(df))
    flip = rng.random(len(df)) < 0.2  # noise: the validation loss stops falling
    df.loc[flip, "label"] = np.where(df["label"][flip] == "yes", "no", "yes")
    params = dict(max_iter=20, learning_rate=0.5, subsample=0.7, max_features=0.75,
                  early_stopping=True, validation_fraction=0.25, n_iter_no_change=3,
                  max_leaf_nodes=6, class_weight={"yes": 2.0, "no": 1.0}, random_state=3)
    models = []
    for k in (1, 3, 7):
        ddf = dd.from_pandas(df, npartitions=k)
        models.append(fdd.fit_boosting(ddf.drop(columns="label"), ddf["label"], **params))
    for m in models[1:]:
        assert_same_forest(m, models[0])
    info = models[0].fit_info_
    assert info["early_stopping"] and len(info["train_loss"]) < 21  # it stopped
    assert info["n_iter"] < len(info["train_loss"]) - 1  # and kept the best round
    assert info["n_iter"] == int(np.argmin(info["validation_loss"]))
    assert models[0].categories == [["blue", "green", "grey", "red"], ["S", "M", "L"], None,
                                    [False, True], None]
    got = fdd.predict(models[0], dd.from_pandas(df.drop(columns="label"), npartitions=3))
    assert np.array_equal(got.compute().to_numpy(),
                          fastdt.predict(models[0], df.drop(columns="label")))


def test_boosting_survives_a_killed_worker(client, monkeypatch):
    X, y = classification_data(2000, seed=11)
    y = np.nan_to_num(X[:, 0]) * 2 + y  # regression
    params = dict(max_iter=5, max_leaf_nodes=4, early_stopping=False, random_state=0)
    ref = fdd.fit_boosting(chunked(X, 4), chunked(y, 4), **params)
    real_map, rounds, victims = distributed.Client.map, [], []

    def map_and_kill(self, func, *iterables, **kwargs):
        futures = real_map(self, func, *iterables, **kwargs)
        if getattr(func, "__name__", "") == "_update":
            rounds.append(1)
            if len(rounds) == 3:  # round 3's states made: kill a worker holding one
                distributed.wait(futures)
                victims.append(kill_a_worker_holding(self, futures))
        return futures

    monkeypatch.setattr(distributed.Client, "map", map_and_kill)
    model = fdd.fit_boosting(chunked(X, 4), chunked(y, 4), **params)
    assert len(rounds) == 5
    assert victims[0] not in client.scheduler_info()["workers"]  # it did die
    assert_same_forest(model, ref)


def test_boosting_bad_input(client):
    X, y = classification_data(200)
    Xd, yd = chunked(X, 2), chunked(y, 2)
    with pytest.raises(ValueError, match="quantiles"):
        fdd.fit_boosting(Xd, yd.astype(float), loss="absolute_error")
    with pytest.raises(ValueError, match="learning_rate"):
        fdd.fit_boosting(Xd, yd, learning_rate=0)
    with pytest.raises(ValueError, match="fraction"):
        fdd.fit_boosting(Xd, yd, validation_fraction=20)
    with pytest.raises(ValueError, match="y >= 0"):
        fdd.fit_boosting(Xd, yd.astype(float) - 1, loss="poisson")
    with pytest.raises(ValueError, match="1 class"):
        fdd.fit_boosting(Xd, da.zeros(200, chunks=100, dtype=int))
    with pytest.raises(TypeError, match="dask"):
        fdd.fit_boosting(X, y)

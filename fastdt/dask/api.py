"""``fastdt.dask.fit``, ``predict`` and ``predict_proba``: the functional API on a cluster.

``fit`` is the engine's composition (:mod:`fastdt._engine`) with the rows on the
workers: the partitions are summarised, binned and persisted once
(:mod:`fastdt.dask._partitions`), then :func:`fastdt._engine.grow` runs the driver
on the client with :class:`fastdt.dask._splitter.DaskHistSplitter`, and
:func:`fastdt._engine.assemble` makes an ordinary :class:`fastdt.Tree`.
"""

import numpy as np

from .. import _engine, _input
from .._config import ABSOLUTE_ERROR, CRITERIA_CLF, CRITERIA_REG, POISSON
from ..dataset import check_max_bins
from ..pruning import prune
from . import _partitions

__all__ = ["fit", "fit_forest", "predict", "predict_proba"]


def _dask():
    try:
        import dask
        import distributed
    except ImportError as exc:  # pragma: no cover - the extra is installed in tests
        raise ImportError("fastdt.dask needs Dask: pip install 'fastdt[dask]'") from exc
    return dask, distributed


def _client(client):
    _, distributed = _dask()
    if client is not None:
        return client
    try:
        return distributed.get_client()
    except ValueError as exc:
        raise ValueError("fastdt.dask.fit needs a Dask cluster: start a "
                         "distributed.Client (or pass client=)") from exc


# ------------------------------------------------------------------ partitions


def _is_frame(a):
    return hasattr(a, "npartitions") and hasattr(a, "columns")


def _is_collection(a):
    return hasattr(a, "npartitions") or (hasattr(a, "chunks") and hasattr(a, "dask"))


def _blocks(X, y, sample_weight):
    """The partitions of ``X``, ``y`` and ``sample_weight`` as lists of delayed objects,
    aligned (the same rows in the i-th of each), and ``X``'s column dtypes (frames)."""
    import dask.array as da

    if not _is_collection(X):
        raise TypeError(f"X must be a dask.array or dask.dataframe, got {type(X).__name__}; "
                        "use fastdt.fit for data in memory")
    if y is None:
        raise ValueError("y is None; a fit needs a target")
    for name, a in (("y", y), ("sample_weight", sample_weight)):
        if a is not None and not _is_collection(a):
            raise TypeError(f"{name} must be a dask collection partitioned as X, got "
                            f"{type(a).__name__}")
    others = [a for a in (y, sample_weight) if a is not None]
    if _is_frame(X):
        for a in others:
            if isinstance(a, da.Array):
                raise ValueError("y and sample_weight of a dask DataFrame X must be dask "
                                 "Series of the same partitions")
            if not hasattr(a, "npartitions") or a.npartitions != X.npartitions:
                raise ValueError("y and sample_weight must have X's partitions (a column "
                                 "of the same dask DataFrame, or a Series partitioned alike)")
            if X.known_divisions and a.known_divisions and a.divisions != X.divisions:
                raise ValueError("y and sample_weight must have X's divisions")
        return _frame_blocks(X, y, sample_weight) + (list(X.dtypes),)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got {X.ndim} dimensions")
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    xs = list(X.to_delayed()[:, 0])
    parts = []
    for a in (y, sample_weight):
        if a is None:
            parts.append([None] * len(xs))
        elif isinstance(a, da.Array):
            if a.ndim != 1 or a.shape[0] != X.shape[0]:
                raise ValueError(f"y and sample_weight must be 1-D with X's {X.shape[0]} "
                                 f"rows, got shape {a.shape}")
            a = a.rechunk((X.chunks[0],))
            parts.append(list(a.to_delayed()))
        else:
            parts.append(list(a.to_delayed()))
    if any(len(p) != len(xs) for p in parts):
        raise ValueError("y and sample_weight must have X's partitions")
    return xs, parts[0], parts[1], None


_Y, _W = "__fastdt_y__", "__fastdt_w__"


def _frame_blocks(X, y, sample_weight):
    """The partitions of a DataFrame ``X`` and of Series ``y`` and ``sample_weight`` as
    delayed objects, from one frame of all of them: Dask plans each collection's
    partitions on its own (a Parquet reader may join the files of a narrow column), so
    ``X`` and ``y`` read apart need not split the rows alike; one frame does."""
    from dask import delayed

    if _Y in X.columns or _W in X.columns:
        raise ValueError(f"X has a column named {_Y!r} or {_W!r}, which fastdt.dask uses")
    extra = {_Y: y} if sample_weight is None else {_Y: y, _W: sample_weight}
    blocks = X.assign(**extra).to_delayed()
    names = list(X.columns)
    xs = [delayed(_columns)(b, names) for b in blocks]
    ys = [delayed(_columns)(b, _Y) for b in blocks]
    ws = [None] * len(blocks) if sample_weight is None else \
        [delayed(_columns)(b, _W) for b in blocks]
    return xs, ys, ws


def _columns(block, names):
    return block[names]


# ------------------------------------------------------------------ fit


def fit(X, y, *, sample_weight=None, client=None, subsample=200_000, log=None, **params):
    """Fit one histogram tree on a Dask cluster: the tree ``fastdt.fit`` grows.

    Parameters
    ----------
    X : dask.array (n_samples, n_features) or dask.dataframe
        Features, partitioned by rows. DataFrame columns of dtype category (with known
        categories: ``ddf.categorize()``), object, string or bool are categorical, as
        ``fastdt.fit`` reads them; NaN is missing.
    y : dask.array or dask Series
        Class labels or a numeric target, partitioned as ``X`` (a column of the same
        DataFrame, or an array with ``X``'s row chunks).
    sample_weight : dask.array or dask Series, optional
        Non-negative weights, partitioned as ``X``.
    client : distributed.Client, optional
        The cluster (default: the current client).
    subsample : int, default=200000
        Rows in the sample the bins of a feature with more than ``max_bins`` distinct
        values are cut from, drawn by a hash of each row's index (the same rows
        whatever the partitioning).
    log : list, optional
        Appended to, per round of tasks (a level, or a batch of best-first splits):
        ``(nodes built, bytes of the partitions' histograms, seconds)``.
    **params
        ``fastdt.fit``'s (``splitter="hist"`` is implied; ``missing`` must be
        ``"learn"``).

    Returns
    -------
    Tree
        The tree ``fastdt.fit(X, y, splitter="hist", ...)`` grows on the concatenated
        data with the same bins (with fewer than ``subsample`` rows: the same bins),
        when targets and weights are multiples of the fixed-point unit (integers,
        class labels, unit weights; docs/dask.md); the same tree whatever the number
        of partitions and workers in any case.
    """
    d = _Distributed(X, y, sample_weight, client, subsample, params)
    try:
        tree = d.grow(d.parts, d.data, log=log)
    finally:
        d.client.cancel(d.parts)
    return prune(tree, d.prep.ccp_alpha) if d.prep.ccp_alpha > 0.0 else tree


def fit_forest(X, y, *, sample_weight=None, n_estimators=100, bootstrap=True,
               max_samples=None, random_state=None, client=None, subsample=200_000,
               verbose=0, **tree_params):
    """Fit a forest of histogram trees on a Dask cluster: ``fastdt.fit_forest``'s.

    The data is binned and persisted once; each tree draws its bootstrap counts per
    partition (the draws ``fastdt.fit_forest`` makes, cut at the partition's rows) and
    grows as :func:`fit` does. ``X``, ``y``, ``sample_weight``, ``client`` and
    ``subsample`` as :func:`fit`; ``n_estimators``, ``bootstrap``, ``max_samples``,
    ``random_state`` and ``**tree_params`` as :func:`fastdt.fit_forest` (``max_features``
    defaults to ``"sqrt"`` for classification, all features for regression). Not here
    yet: ``oob_score``, ``tree_features``, ``replace=False``, ``leaf_samples``,
    ``class_weight="balanced_subsample"``, ``extend``. ``verbose`` > 0: a line per tree.
    """
    import sys

    from ..ensemble.api import _n_samples, tree_seeds
    from ..ensemble.forest import Forest

    if not _input._is_int(n_estimators) or n_estimators < 1:
        raise ValueError(f"n_estimators={n_estimators!r} is invalid: it must be an int >= 1")
    if not isinstance(bootstrap, (bool, np.bool_)):
        raise ValueError(f"bootstrap={bootstrap!r} is invalid: it must be a bool")
    if not bootstrap and max_samples is not None:
        raise ValueError("`max_sample` cannot be set if `bootstrap=False`. Either switch to "
                         "`bootstrap=True` or set `max_sample=None`.")
    tp = dict(tree_params)
    if "max_features" not in tp:  # scikit-learn's forests: sqrt (classification), all
        task = _input.infer_task(y, tp.get("task"), tp.get("criterion"))
        tp["max_features"] = "sqrt" if task == "classification" else 1.0
    ccp_alpha = tp.pop("ccp_alpha", 0.0)
    d = _Distributed(X, y, sample_weight, client, subsample, dict(tp, ccp_alpha=0.0))
    try:
        n = d.data["n"]
        n_samples = _n_samples(max_samples, n)
        seeds = tree_seeds(random_state, n_estimators)
        offsets = np.concatenate([[0], np.cumsum(d.rows)])
        trees = []
        for i, seed in enumerate(seeds):
            if bootstrap:
                bags = d.client.map(_partitions.in_bag, d.parts, offsets[:-1].tolist(),
                                    seed=seed, n=n, n_samples=n_samples, g=d.g, pure=False)
                data = d.bag_data(bags)
                w_bag = float(data["total"].sum() if d.prep.is_clf else data["total"][0])
                tree = d.grow(bags, data, seed=seed,
                              min_weight_leaf=d.p["min_weight_fraction_leaf"] * w_bag)
                d.client.cancel(bags)
            else:
                tree = d.grow(d.parts, d.data, seed=seed)
            trees.append(prune(tree, ccp_alpha) if ccp_alpha > 0.0 else tree)
            if verbose:
                print(f"fastdt.dask: tree {i + 1}/{n_estimators}", file=sys.stderr)
    finally:
        d.client.cancel(d.parts)
    params = {"n_estimators": n_estimators, "bootstrap": bootstrap,
              "max_samples": max_samples, "replace": True, "oob_score": False,
              "random_state": random_state if isinstance(random_state, (int, type(None)))
              else None, "n_jobs": None, "verbose": verbose, "leaf_samples": False,
              "tree_features": None, "tree_params": trees[0].params,
              "seeds": [int(s) for s in seeds], "n_samples": n_samples}
    return Forest.from_trees(trees, params=params)


class _Distributed:
    """A distributed fit's data: checked, summarised, binned and persisted on the
    cluster (``parts``), with the engine's :class:`fastdt._engine.Prepared` (``prep``)
    and what the splitter reads (``data``)."""

    def __init__(self, X, y, sample_weight, client, subsample, params):
        _dask()
        from dask import delayed

        p = _input.check_params(params)
        if p["splitter"] not in (None, "hist"):
            raise ValueError(f"splitter={p['splitter']!r}: fastdt.dask grows histogram "
                             "trees (splitter='hist')")
        if p["missing"] != "learn":
            raise ValueError(f"missing={p['missing']!r}: the histogram splitter learns the "
                             "side of missing values (missing='learn')")
        if not _input._is_int(subsample) or subsample < 1:
            raise ValueError(f"subsample={subsample!r} is invalid: it must be an int >= 1")
        if getattr(y, "ndim", 1) != 1:
            raise ValueError(f"fastdt.dask fits one output; y must be 1-D, got {y.ndim} "
                             "dimensions")
        p["splitter"] = "hist"
        max_bins = p["max_bins"] = check_max_bins(p["max_bins"] or 255)
        task, criterion = _engine.task_and_criterion(y, p)
        is_clf = task == "classification"
        crit = (CRITERIA_CLF if is_clf else CRITERIA_REG)[criterion]
        if crit == ABSOLUTE_ERROR:
            raise ValueError("criterion='absolute_error' needs the rows of every node; "
                             "fastdt.dask grows histogram trees of sums")
        xs, ys, ws, dtypes = _blocks(X, y, sample_weight)
        self.client = client = _client(client)
        spec = {"categorical_features": p["categorical_features"], "max_bins": max_bins,
                "is_clf": is_clf, "crit": crit}
        summaries = client.gather(client.compute(
            [delayed(_partitions.summary)(a, b, c, spec) for a, b, c in zip(xs, ys, ws)]))
        g = _globals(summaries, dtypes, p, is_clf, crit, criterion)
        g["feature_names"] = _input.feature_names_of(X._meta) if dtypes is not None else None
        n_total = g["n_total"]
        many = [j for j, b in enumerate(g["categories"]) if b is None
                and any(s["distinct"][j] is None for s in summaries if s["n"])]
        sampled = np.zeros((0, len(many)))
        if many:
            rate = min(1.0, subsample / n_total)
            offsets = np.concatenate([[0], np.cumsum([s["n"] for s in summaries])])
            seed = p["random_state"] if _input._is_int(p["random_state"]) else 0
            sampled = np.concatenate(client.gather(client.compute([
                delayed(_partitions.sample)(a, int(o), many, rate, seed, g["categories"])
                for a, o in zip(xs, offsets)])))
        g["bins"] = _partitions.feature_bins_of(summaries, sampled, many, g["categories"],
                                                max_bins)
        largest = max(max_bins, int(g["n_categories"].max(initial=0)))
        g["code_dtype"] = np.uint8 if largest <= 255 else np.uint16
        self.parts = parts = client.compute([delayed(_partitions.binned)(a, b, c, g)
                                             for a, b, c in zip(xs, ys, ws)])
        counted = client.gather(client.map(_partitions.totals, parts, pure=False))
        self.rows = [c[0] for c in counted]
        total = np.sum([c[1] for c in counted], axis=0)
        w_total = float(total.sum() if is_clf else total[0])
        if sum(self.rows) == 0 or not w_total > 0:
            client.cancel(parts)
            raise ValueError("sample_weight sums to zero; at least one sample needs a "
                             "positive weight")
        if crit == POISSON and not total[1] > 0:
            client.cancel(parts)
            raise ValueError("criterion='poisson' needs y >= 0 with a positive (weighted) "
                             "sum")
        self.p, self.g = p, g
        self.prep = prep = _prepared(p, g, task, criterion, crit, n_total, w_total)
        n_bins = np.array([b[0].shape[0] for b in g["bins"]], dtype=np.int32)
        width = int(n_bins.max(initial=0))
        self.data = {"n": sum(self.rows), "total": total, "weighted": g["weighted"],
                     "code_dtype": g["code_dtype"], "n_bins": n_bins,
                     "n_categories": prep.n_categories,
                     "bin_lo": np.full((prep.n_features, width), np.inf),
                     "bin_hi": np.full((prep.n_features, width), -np.inf)}
        for f, (lo, hi, _) in enumerate(g["bins"]):
            self.data["bin_lo"][f, : lo.shape[0]] = lo
            self.data["bin_hi"][f, : hi.shape[0]] = hi

    def bag_data(self, bags):
        """:attr:`data` of the in-bag partitions ``bags`` (weighted by their counts)."""
        counted = self.client.gather(self.client.map(_partitions.totals, bags, pure=False))
        return dict(self.data, n=sum(c[0] for c in counted), weighted=True,
                    total=np.sum([c[1] for c in counted], axis=0))

    def grow(self, parts, data, *, seed=None, min_weight_leaf=None, log=None, prep=None,
             reg=(0.0, 0.0)):
        """One tree grown on the partitions ``parts`` (a :class:`fastdt.Tree`); ``prep``
        (None: :attr:`prep`) and ``reg`` (L2, L1) as gradient boosting grows its trees."""
        from ._splitter import DaskHistSplitter

        prep = self.prep if prep is None else prep
        lim = prep.limits
        splitter = DaskHistSplitter(
            self.client, parts, data, n_stats=prep.n_stats, is_clf=prep.is_clf,
            crit=prep.crit, min_samples_leaf=lim["min_samples_leaf"],
            min_weight_leaf=lim["min_weight_leaf"] if min_weight_leaf is None
            else min_weight_leaf, mono=prep.mono, log=log)
        splitter.reg = (float(reg[0]), float(reg[1]))
        return _engine.assemble(prep, _engine.grow(prep, splitter=splitter, seed=seed,
                                                   min_weight_leaf=min_weight_leaf,
                                                   l2_regularization=reg[0],
                                                   l1_regularization=reg[1]))


def _globals(summaries, dtypes, p, is_clf, crit, criterion):
    """What every partition's binning needs, from the summaries of all of them."""
    n_total = sum(s["n"] for s in summaries)
    if n_total == 0:
        raise ValueError("Found array with 0 sample(s) while a minimum of 1 is required.")
    nonempty = [s for s in summaries if s["n"]]
    if len(nonempty[0]["categories"]) == 0:
        raise ValueError("Found array with 0 feature(s) while a minimum of 1 is required.")
    categories = _partitions.merge_categories([s["categories"] for s in nonempty], dtypes)
    g = {"n_total": n_total, "categories": categories, "is_clf": is_clf, "crit": crit,
         "n_categories": _input.n_categories_of(categories), "class_weight": None}
    w_max = max(s["w_max"] for s in nonempty)
    unit = all(s["unit"] for s in nonempty)
    if is_clf:
        classes, counts = _partitions.merge_classes(nonempty)
        g["classes"], g["n_stats"] = classes, classes.shape[0]
        if p["class_weight"] is not None:
            codes = np.arange(classes.shape[0])
            if p["class_weight"] == "balanced":
                per_class = n_total / (classes.shape[0] * counts.astype(np.float64))
            else:
                per_class = _input.class_weights(p["class_weight"], classes, codes)
            g["class_weight"] = per_class
            unit = unit and bool(np.all(per_class == 1.0))
            w_max *= float(per_class.max())
        g["stat_max"] = [w_max]
    else:
        g["n_stats"] = 3
        stat_max = np.max([s["stat_max"] for s in nonempty], axis=0)
        g["stat_max"] = stat_max
        if criterion == "poisson" and min(s["y_min"] for s in nonempty) < 0:
            raise ValueError("criterion='poisson' needs y >= 0 with a positive (weighted) sum")
    g["scales"] = _partitions.scales(g["stat_max"], n_total)
    g["weighted"] = not unit
    return g


def _prepared(p, g, task, criterion, crit, n_total, w_total):
    """The :class:`fastdt._engine.Prepared` of a distributed fit (no rows: they are on
    the workers)."""
    prep = _engine.Prepared()
    prep.task, prep.criterion, prep.crit = task, criterion, crit
    prep.is_clf = task == "classification"
    prep.classes = g.get("classes")
    prep.n_stats, prep.n_outputs, prep.offs, prep.ymul = g["n_stats"], 1, None, None
    prep.splitter, prep.mode, prep.max_surrogates = "hist", 0, 0
    prep.categories, prep.n_categories = g["categories"], g["n_categories"]
    prep.n_features = len(g["categories"])
    prep.feature_names = g.get("feature_names")
    prep.limits = _input.resolve_limits(p, n_total, prep.n_features, np.array([w_total]))
    prep.seed = _input.seed_from(p["random_state"])
    prep.mono = _input.monotonic_constraints(p["monotonic_cst"], prep.n_features,
                                             prep.n_categories, prep.classes, 0)
    prep.record = _engine._record(p, criterion, task, "hist", None)
    prep.ccp_alpha = p["ccp_alpha"]
    prep.sparse = prep.X = prep.layout = prep.dataset = prep.positive = None
    prep.target = np.zeros(0)
    return prep


# ------------------------------------------------------------------ predict


def _model_values(block, model, proba):
    from .. import api

    return api.predict_proba(model, block) if proba else api.predict(model, block)


def _predict(model, X, proba):
    from ..api import _check_model

    _check_model(model)
    if not _is_collection(X):
        raise TypeError(f"X must be a dask.array or dask.dataframe, got {type(X).__name__}; "
                        "use fastdt.predict for data in memory")
    if proba and model.task != "classification":
        raise ValueError("predict_proba needs a classification model")
    if _is_frame(X):
        import pandas as pd

        if proba:
            meta = pd.DataFrame({str(c): pd.Series(dtype=np.float64) for c in model.classes})
            return X.map_partitions(
                lambda b: pd.DataFrame(_model_values(b, model, True), index=b.index,
                                       columns=meta.columns), meta=meta)
        dtype = model.classes.dtype if model.task == "classification" else np.float64
        return X.map_partitions(lambda b: pd.Series(_model_values(b, model, False),
                                                    index=b.index),
                                meta=pd.Series(dtype=dtype))
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    if proba:
        k = len(model.classes)
        return X.map_blocks(_model_values, model, True, dtype=np.float64,
                            chunks=(X.chunks[0], (k,)))
    dtype = model.classes.dtype if model.task == "classification" else np.float64
    return X.map_blocks(_model_values, model, False, dtype=dtype, drop_axis=1)


def predict(model, X):
    """Predictions of a Tree or Forest for every row of a dask collection, computed
    partition by partition on the workers: a dask array (X a dask array) or Series
    (X a DataFrame, with its index). Nothing is computed until the result is."""
    _dask()
    return _predict(model, X, False)


def predict_proba(model, X):
    """Class probabilities, as :func:`predict`: a dask array ``(n, n_classes)`` or a
    DataFrame with a column per class."""
    _dask()
    return _predict(model, X, True)

"""``fastdt.dask.fit_boosting``: gradient boosting (Newton leaves) on a Dask cluster.

The rows are summarised, binned and persisted once, as for :func:`fastdt.dask.fit`
(:class:`fastdt.dask.api._Distributed`). Each partition then keeps a *state* on the
workers: its training rows' codes, targets, weights and raw scores, and those of its
validation rows. A round is, for every partition:

1. :func:`_gradients`: the gradients and hessians of the round's rows (the loss of
   :mod:`fastdt.ensemble._losses`, the same code as one machine), made into the
   row statistics of a Newton tree (``(h, -g, g^2/h)``, as :mod:`fastdt.ensemble.boosting`
   grows it) with their largest values;
2. :func:`_newton_part` per tree of the round: those statistics rounded to the
   fixed-point unit of the largest values of all partitions
   (:func:`fastdt.dask._partitions.scales`), so that every histogram sum is exact; the
   tree grows as :func:`fastdt.dask.fit` grows one;
3. :func:`_update`: every row is routed down the round's trees (by its codes, as the
   trees grew) and its raw scores move by its leaves' values; :func:`_loss_sums` then
   gives the exact sums of the weighted losses (:func:`fastdt.dask._partitions.exact_sums`).

Each state is a new future made from the one before (no partition is changed in
place), so Dask re-creates a lost one by replaying the rounds from the persisted
partitions. Rows are drawn into the validation set and into each round's sample by a
hash of their global index, so the model does not depend on the partitioning.
"""

import copy
import time

import numpy as np

from .. import _input
from .._config import SQUARED_ERROR
from ..ensemble import boosting as _boosting
from ..ensemble._losses import get_loss
from . import _partitions
from ._splitter import route, tables_of

__all__ = ["fit_boosting"]

_BY_QUANTILES = ("absolute_error", "quantile", "huber")  # need quantiles of residuals
_VALIDATION_SALT, _ROUND_SALT = 0x5EED_0F_1A11D, 0xB0057ED_0000


def _drawn(index, rate, seed, salt):
    """bool [m]: which rows of global indices ``index`` (uint64) a hash of ``(seed,
    salt, index)`` draws, each with probability ``rate``."""
    if rate >= 1.0:
        return np.ones(index.shape[0], dtype=bool)
    key = _partitions._splitmix(np.uint64(seed) ^ np.uint64(salt) + np.zeros(1, np.uint64))
    return _partitions._splitmix(index ^ key[0]) < np.uint64(rate * 2.0**64)


def _start(part, offset, is_clf, val_rate, seed):
    """A partition's first state (raw scores not set yet): its binned rows
    (:func:`fastdt.dask._partitions.binned`, the ``offset``-th of all the rows of
    positive weight first), split into training and validation rows."""
    m = part["codes"].shape[1]
    index = np.arange(offset, offset + m, dtype=np.uint64)
    y = part["ycode"].astype(np.float64) if is_clf else part["y"]
    w = np.ones(m) if part["w"] is None else part["w"]
    held = (np.zeros(m, dtype=bool) if val_rate is None
            else _drawn(index, val_rate, seed, _VALIDATION_SALT))
    if not held.any():
        return {"codes": part["codes"], "y": y, "w": w, "index": index, "raw": None,
                "val": None}
    keep = ~held
    return {"codes": np.ascontiguousarray(part["codes"][:, keep]), "y": y[keep],
            "w": w[keep], "index": index[keep], "raw": None,
            "val": {"codes": np.ascontiguousarray(part["codes"][:, held]), "y": y[held],
                    "w": w[held], "raw": None}}


def _target_sums(state, n_classes):
    """Exact sums (:func:`fastdt.dask._partitions.exact_sums`) of the training rows'
    ``w`` and ``w y`` (regression) or of their weights per class; the numbers of
    training and validation rows; the smallest target; the exact sums of the
    validation rows' weights."""
    y, w = state["y"], state["w"]
    if n_classes:
        cols = np.zeros((y.shape[0], n_classes))
        cols[np.arange(y.shape[0]), y.astype(np.int64)] = w
    else:
        cols = np.column_stack([w, w * y])
    val = state["val"] or {"y": np.zeros(0), "w": np.zeros(0)}
    y_min = min(float(y.min(initial=np.inf)), float(val["y"].min(initial=np.inf)))
    return (_partitions.exact_sums(cols), y.shape[0], val["y"].shape[0], y_min,
            _partitions.exact_sums(val["w"][:, None]))


def _with_scores(state, baseline):
    """The state with every row's raw scores at the starting score ``baseline``."""
    out = dict(state, raw=np.tile(baseline, (state["y"].shape[0], 1)))
    if state["val"] is not None:
        out["val"] = dict(state["val"], raw=np.tile(baseline, (state["val"]["y"].shape[0], 1)))
    return out


def _gradients(state, loss, rate, seed, it, n_cols):
    """A round's rows (drawn with probability ``rate``) and, per tree of the round, the
    unrounded statistics ``(h, h (-g/h), h (-g/h)^2)`` of a Newton tree, as
    :func:`fastdt.ensemble.boosting.fit_boosting` grows it, with their largest absolute
    values (``max``: float64 ``[n_cols, 3]``)."""
    from .._hist_build import regression_rows

    y, raw, w, codes = state["y"], state["raw"], state["w"], state["codes"]
    if rate < 1.0:
        bag = _drawn(state["index"], rate, seed, _ROUND_SALT + it)
        y, raw, w, codes = y[bag], raw[bag], w[bag], np.ascontiguousarray(codes[:, bag])
    g, h = loss.gradient_hessian(y, raw, w)
    stats, top = [], np.zeros((n_cols, 3))
    for k in range(n_cols):
        hk = np.maximum(h[:, k], _boosting._TINY_HESSIAN)
        rstat = np.empty((hk.shape[0], 3))
        regression_rows(SQUARED_ERROR, -g[:, k] / hk, hk, rstat, np.empty(3))
        stats.append(rstat)
        top[k] = np.abs(rstat).max(axis=0, initial=0.0)
    return {"codes": codes, "stats": stats, "max": top}


def _top(grads):
    return grads["max"]


def _newton_part(grads, k, e):
    """The partition of a round's ``k``-th tree, as :class:`DaskHistSplitter` reads
    them: the statistics rounded to multiples of ``2**-e`` (per column)."""
    rstat = np.empty_like(grads["stats"][k])
    for c in range(3):
        rstat[:, c] = _partitions.fixed(grads["stats"][k][:, c], e[c])
    return {"codes": grads["codes"], "ycode": np.zeros(0, dtype=np.int32), "rstat": rstat,
            "total": rstat.sum(axis=0), "y": None, "w": None}


def _moved(rows, tables, values):
    """``rows`` (a state's, or its validation rows') with the raw scores moved by the
    leaves of the trees (``tables``: :func:`fastdt.dask._splitter.tables_of`; ``values``:
    each tree's raw-score steps)."""
    raw = rows["raw"].copy()
    for t, v in zip(tables, values):
        raw += v[route(rows["codes"], t)]
    return dict(rows, raw=raw)


def _update(state, tables, values):
    """The state after a round: every row's raw scores moved by the round's trees."""
    out = _moved(state, tables, values)
    if state["val"] is not None:
        out["val"] = _moved(state["val"], tables, values)
    return out


def _loss_sums(state, loss):
    """Exact sums of ``w * loss`` of the training rows, and of the validation rows
    (None without)."""
    return tuple(None if s is None else _partitions.exact_sums(
        (s["w"] * loss.rows(s["y"], s["raw"]))[:, None]) for s in (state, state["val"]))


def _mean(parts, w):
    """The weighted mean loss of the exact sums ``parts`` (:func:`_loss_sums`'s) of
    rows weighing ``w`` in all."""
    return float(_partitions.exact_total([q for q in parts if q is not None], 1)[0] / w)


def fit_boosting(X, y, *, sample_weight=None, loss="auto", max_iter=100, learning_rate=0.1,
                 max_leaf_nodes=31, max_depth=None, min_samples_leaf=20,
                 l2_regularization=0.0, l1_regularization=0.0, min_split_gain=0.0,
                 subsample=1.0, max_features=1.0, max_bins=255, categorical_features=None,
                 monotonic_cst=None, early_stopping="auto", validation_fraction=0.1,
                 n_iter_no_change=10, tol=1e-7, class_weight=None, power=1.5,
                 random_state=None, task=None, client=None, bin_subsample=200_000,
                 log=None, verbose=0):
    """Fit gradient-boosted trees on a Dask cluster: a boosted :class:`fastdt.Forest`,
    as :func:`fastdt.fit_boosting` fits one.

    ``X``, ``y``, ``sample_weight`` and ``client`` as :func:`fastdt.dask.fit`;
    ``bin_subsample`` is its ``subsample`` (the rows the bins of a feature with many
    values are cut from). The other parameters are :func:`fastdt.fit_boosting`'s, with
    these differences:

    * losses: ``"log_loss"`` (binary and multiclass), ``"squared_error"``,
      ``"poisson"``, ``"gamma"`` and ``"tweedie"``; absolute error, quantile and Huber
      losses need quantiles of the residuals of every leaf or round, not here yet;
    * ``validation_fraction`` (a float): each row is held out for early stopping with
      that probability, drawn by a hash of its index (not an exact, stratified count);
      ``subsample`` draws each round's rows the same way. No ``X_val``, ``init_model``
      or ``n_jobs`` (a worker's threads are its own).

    The model does not depend on the number of partitions or workers: every histogram
    sum is exact (fixed point) and the losses early stopping compares are exact sums,
    correctly rounded. Without validation split and row sampling, it is the model
    :func:`fastdt.fit_boosting` fits on the concatenated rows up to the rounding of
    each row's gradient statistics to the fixed-point unit (relative ``2**-52`` of
    their total), which can change a split only where two are tied that closely.
    ``log`` as :func:`fastdt.dask.fit`'s, for every tree. ``verbose`` > 0: a line per
    round.
    """
    from .api import _Distributed

    p = dict(max_iter=max_iter, learning_rate=learning_rate,
             l2_regularization=l2_regularization, l1_regularization=l1_regularization,
             min_split_gain=min_split_gain, subsample=subsample, early_stopping=early_stopping,
             validation_fraction=validation_fraction, n_iter_no_change=n_iter_no_change,
             tol=tol, quantile=None, power=power)
    _boosting._check_params(p)
    if loss in _BY_QUANTILES:
        raise ValueError(f"loss={loss!r} needs quantiles of the residuals of every leaf; "
                         "fastdt.dask.fit_boosting does not fit it yet")
    if _input._is_int(validation_fraction):
        raise ValueError("validation_fraction must be a fraction in fastdt.dask (rows are "
                         "held out by a hash of their index), or None")
    tp = dict(max_leaf_nodes=max_leaf_nodes, max_depth=max_depth,
              min_samples_leaf=min_samples_leaf, max_features=max_features,
              max_bins=max_bins, categorical_features=categorical_features,
              monotonic_cst=monotonic_cst, random_state=random_state)
    task = _boosting.task_of(y, task, loss)
    d = _Distributed(X, y, sample_weight, client, bin_subsample,
                     dict(tp, task=task, class_weight=class_weight, monotonic_cst=None))
    try:
        return _fit(d, p, tp, loss, task, random_state, log, verbose)
    finally:
        d.client.cancel(d.parts)


def _fit(d, p, tp, loss_name, task, random_state, log, verbose):
    from ..ensemble.api import tree_seeds
    from .api import _prepared

    client, classes = d.client, d.g.get("classes")
    n_classes = 0 if classes is None else len(classes)
    if n_classes == 1:
        raise ValueError("y has 1 class; a classifier needs at least two classes")
    loss = get_loss(loss_name, task, n_classes, p["power"], None)
    n_cols = n_classes if n_classes > 2 else 1
    if n_cols > 1 and tp["monotonic_cst"] is not None:
        raise ValueError("monotonic_cst is not supported for multiclass classification")
    n = d.data["n"]
    stop = p["early_stopping"] is True or (p["early_stopping"] == "auto" and n > 10_000)
    val_rate = p["validation_fraction"] if stop else None
    seed = _input.seed_from(random_state)
    offsets = np.concatenate([[0], np.cumsum(d.rows)])[:-1].tolist()
    states = client.map(_start, d.parts, offsets, is_clf=loss.is_clf, val_rate=val_rate,
                        seed=seed, pure=False)
    counted = client.gather(client.map(_target_sums, states, n_classes=n_classes,
                                       pure=False))
    n_train, n_val = sum(c[1] for c in counted), sum(c[2] for c in counted)
    if val_rate is not None and not (n_train and n_val):
        raise ValueError(f"validation_fraction={val_rate} leaves {n_train} training and "
                         f"{n_val} validation rows of {n}; both need at least one")
    sums = _partitions.exact_total([c[0] for c in counted], max(n_classes, 2))
    # the weights of the training and validation rows, for the mean losses
    w_train = float(sums.sum()) if n_classes else float(sums[0])
    w_val = float(_partitions.exact_total([c[4] for c in counted], 1)[0])
    if hasattr(loss, "check"):  # log links: y >= 0 (gamma: y > 0), a positive sum
        loss.check_sums(min(c[3] for c in counted), float(sums[1]))
    # the loss's starting score of the weighted totals: a row per class weighing its
    # total, or one row at the weighted mean, give the same weighted means
    baseline = (loss.baseline(np.arange(n_classes, dtype=np.float64), sums) if n_classes
                else loss.baseline(np.array([sums[1] / sums[0]]), np.ones(1)))
    states = client.map(_with_scores, states, baseline=baseline, pure=False)

    record = _input.check_params(dict(tp, task="regression", criterion="squared_error",
                                      splitter="hist"))
    g = dict(d.g, classes=None, n_stats=3)
    prep = _prepared(record, g, "regression", "squared_error", SQUARED_ERROR, n_train,
                     float(n_train))
    min_hessian = max(prep.limits["min_weight_leaf"], _boosting._MIN_HESSIAN)
    unit = not d.g["weighted"] and loss.constant_hessian and p["subsample"] == 1.0
    seeds = tree_seeds(seed, p["max_iter"] * n_cols)
    trees, train_loss, val_loss = [], [], []
    t0 = time.perf_counter()
    for it in range(p["max_iter"] + 1):
        if it:  # the round's trees
            grads = client.map(_gradients, states, loss=loss, rate=p["subsample"], seed=seed,
                               it=it, n_cols=n_cols, pure=False)
            top = np.max(client.gather(client.map(_top, grads, pure=False)), axis=0)
            tables, values = [], []
            for k in range(n_cols):
                parts = client.map(_newton_part, grads, k=k,
                                   e=_partitions.scales(top[k], n_train), pure=False)
                data = dict(d.bag_data(parts), weighted=not unit)
                grown = prep
                if p["min_split_gain"] > 0:  # the engine's gain is the Newton gain over H
                    grown = copy.copy(prep)
                    grown.limits = dict(prep.limits, min_impurity_decrease=(
                        p["min_split_gain"] / float(data["total"][0])))
                tree = d.grow(parts, data, seed=seeds[(it - 1) * n_cols + k],
                              min_weight_leaf=min_hessian, log=log, prep=grown,
                              reg=(p["l2_regularization"], p["l1_regularization"]))
                client.cancel(parts)
                tree = _boosting._raw_score_tree(tree, k, n_cols, p["learning_rate"],
                                                 p["l2_regularization"],
                                                 p["l1_regularization"])
                trees.append(tree)
                tables.append(tables_of(tree, d.data))
                values.append(tree.value)
            client.cancel(grads)
            states = client.map(_update, states, tables=tables, values=values, pure=False)
        losses = client.gather(client.map(_loss_sums, states, loss=loss, pure=False))
        train_loss.append(_mean([q[0] for q in losses], w_train))
        if stop:  # validation_fraction None: the training loss
            val_loss.append(_mean([q[1] for q in losses], w_val) if val_rate
                            else train_loss[-1])
        if verbose and it:
            _boosting._progress(it, p["max_iter"], train_loss[-1],
                                val_loss[-1] if stop else None, time.perf_counter() - t0)
        if stop and _boosting._should_stop(val_loss, p["n_iter_no_change"], p["tol"]):
            break
    client.cancel(states)
    n_iter = len(train_loss) - 1
    if stop and n_iter > 0:  # keep the rounds up to the lowest validation loss
        n_iter = max(1, int(np.argmin(val_loss)))
        trees = trees[: n_iter * n_cols]
    return _boosting.boosted_forest(trees, p, loss, task, classes, baseline, seed, seeds,
                                    stop, train_loss, val_loss, n_iter)

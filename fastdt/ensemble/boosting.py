"""Gradient boosting with Newton leaves, on the histogram engine and the Forest format.

Each round fits one regression tree per raw-score column (one, or one per class for
multiclass log-loss) to the gradients ``g`` and hessians ``h`` of the loss
(:mod:`fastdt.ensemble._losses`) at the current raw scores. A Newton tree is a weighted
squared-error tree: with targets ``z = -g / h`` and weights ``h``, a node's
``sum(h z) = -G`` and ``sum(h) = H``, so the squared-error split score
``S_L^2 / W_L + S_R^2 / W_R`` is the gain ``G_L^2 / H_L + G_R^2 / H_R`` and a leaf's mean
is the Newton step ``-G / H``. The trees therefore grow through the shared engine
(:func:`fastdt._engine.grow` on the bins prepared once, :class:`fastdt.Dataset`) with no
second histogram implementation; the hessian is the weight, so ``min_weight_leaf`` is the
minimum hessian of a leaf. ``l2_regularization`` (lambda) shrinks every leaf to
``-G / (H + lambda)`` (its mean times ``H / (H + lambda)``), and the split search adds
lambda to the children's hessians: a split's gain is
``G_L^2 / (H_L + lambda) + G_R^2 / (H_R + lambda) - G^2 / (H + lambda)``.
``l1_regularization`` (alpha) soft-thresholds every such sum ``G`` by alpha (LightGBM's).

A fitted model is a :class:`Forest` whose trees are regression trees of raw scores,
already multiplied by the learning rate (multiclass: each tree writes its class's column
and zeros elsewhere), with ``forest.boosting`` holding the loss, the starting score
(``baseline``, the loss-optimal constant) and the learning rate. The raw score of a row
is ``baseline + sum of its leaves' values`` (the forest kernels' mean times the number of
trees), and predictions are the loss's link of it.
"""

import copy
import sys
import time

import numpy as np

from .. import _engine, _input, _predict
from ..dataset import Dataset
from ..tree import FIELDS, Tree, _decode_classes
from ._losses import LOSSES, get_loss, quantile_of
from .forest import Forest

__all__ = ["fit_boosting", "decision_function", "staged_decision_function", "boosted_values",
           "feature_importances", "validate_boosting"]

_MIN_HESSIAN = 1e-3  # of a leaf (scikit-learn's min_hessian_to_split)
_TINY_HESSIAN = 1e-16  # a row's hessian is floored to this (saturated probabilities)


def _check_number(name, v, lo, hi=np.inf, integer=False, lo_open=False):
    if not (_input._is_int(v) if integer else _input._is_real(v)):
        kind = "an int" if integer else "a number"
        raise TypeError(f"{name}={v!r} must be {kind}")
    if not (v > lo if lo_open else v >= lo) or not v <= hi or v != v:
        bound = f"> {lo}" if lo_open else f">= {lo}"
        raise ValueError(f"{name}={v!r} must be {bound}" + (f" and <= {hi}" if hi < np.inf
                                                             else ""))


def _check_params(p):
    _check_number("max_iter", p["max_iter"], 1, integer=True)
    _check_number("learning_rate", p["learning_rate"], 0.0, lo_open=True)
    _check_number("l2_regularization", p["l2_regularization"], 0.0)
    _check_number("l1_regularization", p["l1_regularization"], 0.0)
    _check_number("n_iter_no_change", p["n_iter_no_change"], 1, integer=True)
    _check_number("tol", p["tol"], 0.0)
    _check_number("min_split_gain", p["min_split_gain"], 0.0)
    _check_number("subsample", p["subsample"], 0.0, 1.0, lo_open=True)
    if p["early_stopping"] not in ("auto", True, False):
        raise ValueError(f"early_stopping={p['early_stopping']!r} must be 'auto', True or "
                         "False")
    vf = p["validation_fraction"]
    if vf is not None:
        if _input._is_int(vf):
            _check_number("validation_fraction", vf, 1, integer=True)
        else:
            _check_number("validation_fraction", vf, 0.0, 1.0, lo_open=True)
            if vf >= 1.0:
                raise ValueError(f"validation_fraction={vf!r} must be < 1 (a fraction) or "
                                 "an int (rows)")


def _n_rows(X):
    if _input.is_sparse(X):
        raise ValueError("gradient boosting does not take sparse X yet; pass X.toarray()")
    if isinstance(X, Dataset):
        raise TypeError("fit_boosting bins X itself (max_bins, categorical_features); pass "
                        "the rows, not a Dataset")
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D array of rows, got a {X.ndim}D array")
    return int(X.shape[0])


def _take(X, rows):
    """Rows ``rows`` of an array or a DataFrame."""
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def _split_rows(n, fraction, codes, seed):
    """``(train, validation)`` row ids (sorted): a seeded split, stratified by class
    (``codes``, or None for regression), as scikit-learn's ``train_test_split``."""
    rng = np.random.default_rng(np.uint64(seed) ^ np.uint64(0xB005_7ED))
    n_val = fraction if isinstance(fraction, (int, np.integer)) else int(np.ceil(fraction * n))
    if not 1 <= n_val < n:
        raise ValueError(f"validation_fraction leaves {n - n_val} training and {n_val} "
                         f"validation rows of {n}; both need at least one")
    if codes is None:
        val = rng.permutation(n)[:n_val]
    else:  # each class gets its share, the rounding spread by a random order of classes
        val = []
        order = rng.permutation(n)
        by_class = [order[codes[order] == c] for c in range(int(codes.max()) + 1)]
        shares = np.array([len(r) for r in by_class]) * n_val / n
        counts = np.floor(shares).astype(np.int64)
        rest = n_val - counts.sum()
        extra = np.argsort(-(shares - counts) + rng.random(len(shares)) * 1e-9)[:rest]
        counts[extra] += 1
        for r, c in zip(by_class, counts):
            val.append(r[:c])
        val = np.concatenate(val)
    is_val = np.zeros(n, dtype=bool)
    is_val[val] = True
    return np.flatnonzero(~is_val), np.flatnonzero(is_val)


def fit_boosting(X, y, *, loss="auto", quantile=None, max_iter=100, learning_rate=0.1,
                 max_leaf_nodes=31, max_depth=None, min_samples_leaf=20,
                 l2_regularization=0.0, l1_regularization=0.0, min_split_gain=0.0,
                 subsample=1.0, max_features=1.0, max_bins=255, categorical_features=None,
                 monotonic_cst=None, early_stopping="auto", validation_fraction=0.1,
                 n_iter_no_change=10, tol=1e-7, class_weight=None, power=1.5,
                 sample_weight=None, X_val=None, y_val=None, sample_weight_val=None,
                 init_model=None, random_state=None, task=None, n_jobs=None, verbose=0):
    """Fit gradient-boosted trees (Newton leaves, histogram splits): a boosted Forest.

    Parameters
    ----------
    X, y, sample_weight
        As :func:`fastdt.fit` (arrays or DataFrames with categorical columns and NaN;
        not sparse, not a Dataset). ``task`` as :func:`fastdt.fit` (None: inferred).
    loss : str, default="auto"
        Classification: ``"log_loss"`` (binary or multiclass softmax). Regression:
        ``"squared_error"``, ``"absolute_error"``, ``"quantile"`` (pinball loss of
        ``quantile``), ``"huber"``, ``"poisson"``, ``"gamma"``, ``"tweedie"`` (with
        ``power`` in (1, 2)). ``"auto"``: log-loss or squared error.
    quantile : float in (0, 1) or None
        The quantile ``loss="quantile"`` predicts (required there); for ``"huber"``, the
        quantile of the absolute residuals that sets its ``delta`` each round (None: 0.9).
    max_iter : int, default=100
        Boosting rounds (one tree per round; multiclass: one per class per round).
    learning_rate : float, default=0.1
        Every tree's values are multiplied by it.
    max_leaf_nodes, max_depth, min_samples_leaf, max_features, max_bins,
    categorical_features, monotonic_cst
        Every tree's, as :func:`fastdt.fit` (``max_leaf_nodes``: best-first growth;
        None: level-wise to ``max_depth``). Monotonic constraints are on the raw score
        (classification: of the second class), not for multiclass.
    l2_regularization : float, default=0.0
        Lambda: leaves are ``-G / (H + lambda)`` and splits are chosen by their gain
        ``G_L^2 / (H_L + lambda) + G_R^2 / (H_R + lambda) - G^2 / (H + lambda)`` (module
        docstring; LightGBM's ``lambda_l2``, XGBoost's ``reg_lambda``); a split of negative gain
        is not made.
    l1_regularization : float, default=0.0
        Alpha (LightGBM's ``lambda_l1``, XGBoost's ``reg_alpha``): every sum of gradients
        ``G`` above (of a leaf, of a split's sides) becomes ``sign(G) max(|G| - alpha, 0)``,
        so a leaf whose ``|G|`` is at most alpha is 0.
    min_split_gain : float, default=0.0
        A node splits only when that gain (sums of gradients and hessians, LightGBM's
        ``min_split_gain``) is at least this.
    subsample : float in (0, 1], default=1.0
        Each round's trees grow on this share of the training rows, drawn without
        replacement (every class's tree of a round on the same rows); the scores of all
        rows are updated.
    early_stopping : "auto", bool
        Hold out ``validation_fraction`` of the rows (stratified by class; an int: that
        many rows) and stop when the validation loss has not fallen by more than
        ``tol`` for ``n_iter_no_change`` rounds; the trees up to the round of the lowest
        validation loss are kept (``validation_fraction=None``: the training loss).
        ``"auto"``: on when there are more than 10,000 rows or ``X_val`` is given.
    X_val, y_val, sample_weight_val
        A validation set of one's own for early stopping (then every row of ``X`` is a
        training row and ``validation_fraction`` is not used).
    init_model : None or boosted Forest
        Continue it (scikit-learn's ``warm_start``): a model this function fitted with
        the same loss on the same rows. Its trees come first, its scores are where this
        fit starts, its seed draws the validation split, trees and row samples again,
        and ``max_iter`` counts its rounds too; with the same parameters the result is
        the model a single fit of ``max_iter`` rounds gives (without early stopping).
    class_weight : None, "balanced" or dict
        Classification: weights multiplied into ``sample_weight``.
    random_state : None, int or Generator
        Seeds the validation split and the feature sampling of ``max_features``.
    n_jobs : None or int
        Threads (None: numba's current number).
    verbose : int
        > 0: a line per round on stderr (round, train and validation loss, elapsed).

    Returns
    -------
    Forest
        With ``forest.boosting`` set, and ``forest.fit_info_``: the train and validation
        losses per round (index 0: the starting score), ``n_iter`` (rounds kept) and
        whether early stopping ran (not saved with the forest).
    """
    p = dict(max_iter=max_iter, learning_rate=learning_rate,
             l2_regularization=l2_regularization, l1_regularization=l1_regularization,
             min_split_gain=min_split_gain,
             subsample=subsample, early_stopping=early_stopping,
             validation_fraction=validation_fraction, n_iter_no_change=n_iter_no_change,
             tol=tol, quantile=quantile, power=power)
    if (X_val is None) != (y_val is None):
        raise ValueError("X_val and y_val go together: pass both or neither")
    if X_val is None and sample_weight_val is not None:
        raise ValueError("sample_weight_val needs X_val and y_val")
    if X_val is not None and early_stopping is False:
        raise ValueError("X_val and y_val are for early stopping, which early_stopping=False"
                         " turns off")
    _check_params(p)
    from .api import _threads, check_n_jobs, tree_seeds

    check_n_jobs(n_jobs)

    import numba

    saved = numba.get_num_threads()
    numba.set_num_threads(_threads(n_jobs))
    try:
        tp = dict(max_leaf_nodes=max_leaf_nodes, max_depth=max_depth,
                  min_samples_leaf=min_samples_leaf, max_features=max_features,
                  max_bins=max_bins, categorical_features=categorical_features,
                  monotonic_cst=monotonic_cst)
        return _fit(X, y, sample_weight, (X_val, y_val, sample_weight_val), init_model, p,
                    loss, class_weight, task, random_state, verbose, tp, tree_seeds)
    finally:
        numba.set_num_threads(saved)


def task_of(y, task, loss):
    """The task: ``task``, or the one ``loss`` belongs to (whole counts with
    ``loss="poisson"`` are a regression), or inferred from ``y``."""
    if task is None and loss != "auto":
        task = next((t for t, names in LOSSES.items() if loss in names), None)
    return _input.infer_task(y, task, None)


def _targets(y, n, task, class_weight, sample_weight):
    """``(task, classes, target float64, weights float64)`` of the rows."""
    task = _input.infer_task(y, task, None)
    sw = _input.check_sample_weight(sample_weight, n)
    if task == "classification":
        classes, codes = _input.check_y_classification(y, n)
        cw = _input.class_weights(class_weight, classes, codes)
        if cw is not None:
            sw = sw * cw
        target = codes.astype(np.float64)
    else:
        if class_weight is not None:
            raise ValueError("class_weight applies to classification only")
        classes, target = None, _input.check_y_regression(y, n)
    if not sw.sum() > 0:
        raise ValueError("sample weights (times class weights) must not all be zero")
    return task, classes, target, sw


def _validation_targets(val, task, classes, n_features):
    """``(X_val, target, weights)`` of a validation set of one's own."""
    X_val, y_val, sw_val = val
    if not (hasattr(X_val, "iloc") or isinstance(X_val, np.ndarray)):
        X_val = np.asarray(X_val)
    n = _n_rows(X_val)
    if X_val.shape[1] != n_features:
        raise ValueError(f"X_val has {X_val.shape[1]} features, X has {n_features}")
    if task == "classification":
        target = _input.class_codes(classes, y_val, n).astype(np.float64)
    else:
        target = _input.check_y_regression(y_val, n)
    w = _input.check_sample_weight(sw_val, n)
    if not w.sum() > 0:
        raise ValueError("sample_weight_val must not all be zero")
    return X_val, target, w


def _check_init(init, loss, task, classes, n_features, max_iter):
    """The rounds of ``init_model`` (a model to continue), after checking it."""
    if not isinstance(init, Forest) or init.boosting is None:
        raise TypeError(f"init_model must be a boosted Forest (fit_boosting), got "
                        f"{type(init).__name__}")
    b = init.boosting
    same = (init.task == task and b["loss"] == loss.name
            and b.get("quantile") == getattr(loss, "q", None)
            and b.get("power") == float(getattr(loss, "power", 1.5))
            and (classes is None) == (init.classes is None)
            and (classes is None or np.array_equal(classes, init.classes)))
    if not same:
        raise ValueError("init_model was fitted with another task, loss or classes")
    if init.n_features != n_features:
        raise ValueError(f"init_model has {init.n_features} features, X has {n_features}")
    if not _input._is_int(init.params.get("random_seed")):
        raise ValueError("init_model has no random_seed in its params (a model of an older "
                         "fastdt): it cannot be continued")
    rounds = init.n_trees // init.value.shape[1]
    if max_iter < rounds:
        raise ValueError(f"max_iter={max_iter} must be >= the {rounds} rounds of init_model")
    return rounds


def _fit(X, y, sample_weight, val, init, p, loss_name, class_weight, task, random_state,
         verbose, tp, tree_seeds):
    if not (hasattr(X, "iloc") or isinstance(X, np.ndarray) or _input.is_sparse(X)):
        X = np.asarray(X)  # array-likes: rows are taken from it (validation split)
    n = _n_rows(X)
    task, classes, target, sw = _targets(y, n, task_of(y, task, loss_name), class_weight,
                                         sample_weight)
    n_classes = 0 if classes is None else len(classes)
    loss = get_loss(loss_name, task, n_classes, p["power"], p["quantile"])
    own_val = val[0] is not None
    if own_val:
        val = _validation_targets(val, task, classes, X.shape[1])
    if hasattr(loss, "check"):
        loss.check(target, sw)
        if own_val:
            loss.check(val[1], val[2])
    if n_classes == 1:
        raise ValueError("y has 1 class; a classifier needs at least two classes")
    n_cols = n_classes if n_classes > 2 else 1
    if n_cols > 1 and tp["monotonic_cst"] is not None:
        raise ValueError("monotonic_cst is not supported for multiclass classification")
    done = 0 if init is None else _check_init(init, loss, task, classes, X.shape[1],
                                              p["max_iter"])
    seed = _input.seed_from(random_state) if init is None else init.params["random_seed"]
    stop = (p["early_stopping"] is True
            or (p["early_stopping"] == "auto" and (n > 10_000 or own_val)))
    X_tr, y_tr, w_tr = X_val, y_val, w_val = X, target, sw  # validation_fraction None:
    if own_val:  # stop on the training loss
        X_val, y_val, w_val = val
    elif stop and p["validation_fraction"] is not None:
        train, held = _split_rows(n, p["validation_fraction"],
                                  target.astype(np.int64) if loss.is_clf else None, seed)
        X_tr, X_val = _take(X, train), _take(X, held)
        y_tr, w_tr, y_val, w_val = target[train], sw[train], target[held], sw[held]
    params = dict(tp, task="regression", criterion="squared_error", splitter="hist",
                  random_state=random_state)
    prep = _engine.prepare(X_tr, np.zeros(y_tr.shape[0]), None, params)
    min_hessian = max(prep.limits["min_weight_leaf"], _MIN_HESSIAN)
    if init is None:
        baseline = loss.baseline(y_tr, w_tr)
        raw = np.tile(baseline, (y_tr.shape[0], 1))
    else:
        baseline = np.asarray(init.boosting["baseline"])
        raw = raw_scores(init, X_tr)
    seeds = tree_seeds(seed, p["max_iter"] * n_cols)
    unit_w = bool(np.all(w_tr == 1.0))
    unit = unit_w and loss.constant_hessian  # hessians all 1
    bags = np.random.default_rng(np.uint64(seed) ^ np.uint64(0x5AB5A3)) \
        if p["subsample"] < 1.0 else None
    if bags is not None:  # the row samples of the rounds done
        for _ in range(done):
            _bag(bags, y_tr.shape[0], p["subsample"])
    trees = [] if init is None else init.trees()
    # train_loss[i]: the loss after round i (0: the starting score), each computed with
    # the next round's gradients (one pass over the rows), or at once when verbose
    train_loss, val_loss, pending = [], [], True
    rows_tr = rows_val = None
    # validation_fraction None: the training rows and scores serve as the validation's
    apart = stop and X_val is not X_tr
    raw_val = raw if not apart else (np.tile(baseline, (y_val.shape[0], 1)) if init is None
                                     else raw_scores(init, X_val))
    if stop:
        val_loss.append(loss.value(y_val, raw_val, w_val))
    t0 = time.perf_counter()
    # the histogram pool, reused by every tree (they grow one at a time), and each tree's
    # layout (_training_leaves)
    scratch = {"keep_layout": True}
    for it in range(done, p["max_iter"]):
        g, h, value = loss.gradient_hessian_value(y_tr, raw, w_tr)
        if pending:
            train_loss.append(value)
        bag = None if bags is None else _bag(bags, y_tr.shape[0], p["subsample"])
        for k in range(n_cols):
            hk = np.maximum(h[:, k], _TINY_HESSIAN)
            grown = copy.copy(prep)
            grown.target = -g[:, k] / hk
            grown.weights = None if unit else hk
            row_w = None if bag is None else hk * bag
            if p["min_split_gain"] > 0:  # the engine's gain is the Newton gain over H
                H = float(hk.sum() if row_w is None else row_w.sum())
                grown.limits = dict(prep.limits, min_impurity_decrease=p["min_split_gain"] / H)
            nodes = _engine.grow(grown, seed=seeds[it * n_cols + k], row_weights=row_w,
                                 min_weight_leaf=min_hessian,
                                 l2_regularization=p["l2_regularization"],
                                 l1_regularization=p["l1_regularization"], scratch=scratch)
            tree = _raw_score_tree(_engine.assemble(grown, nodes), k, n_cols,
                                   p["learning_rate"], p["l2_regularization"],
                                   p["l1_regularization"])
            if rows_tr is None:  # the rows as the trees' kernels take them, once
                rows_tr = _predict.X_for(tree, X_tr)
                rows_val = _predict.X_for(tree, X_val) if apart else None
            leaf = _training_leaves(tree, scratch, rows_tr, bag is None and prep.positive is None)
            if loss.leaf_quantile is not None:
                _quantile_leaves(tree, leaf, y_tr - raw[:, 0], None if unit_w else w_tr, bag,
                                 loss.leaf_quantile, p["learning_rate"])
            raw[:, k] += tree.value[leaf, k]
            if apart:
                raw_val[:, k] += tree.value[_predict.leaves(tree, *rows_val), k]
            trees.append(tree)
        pending = not verbose
        if verbose:
            train_loss.append(loss.value(y_tr, raw, w_tr))
        if stop:
            val_loss.append(loss.value(y_val, raw_val, w_val))
        if verbose:
            _progress(it + 1, p["max_iter"], train_loss[-1], val_loss[-1] if stop else None,
                      time.perf_counter() - t0)
        if stop and _should_stop(val_loss, p["n_iter_no_change"], p["tol"]):
            break
    if pending:  # the loss after the last round
        train_loss.append(loss.value(y_tr, raw, w_tr))
    n_iter = done + len(train_loss) - 1
    if stop and n_iter > done:  # keep the rounds up to the lowest validation loss
        n_iter = max(1, done + int(np.argmin(val_loss)))
        trees = trees[: n_iter * n_cols]
    return boosted_forest(trees, p, loss, task, classes, baseline, seed, seeds, stop,
                          train_loss, val_loss, n_iter)


def boosted_forest(trees, p, loss, task, classes, baseline, seed, seeds, stop, train_loss,
                   val_loss, n_iter):
    """The boosted :class:`Forest` of ``trees`` (raw-score trees, :func:`_raw_score_tree`)
    fitted with the checked parameters ``p`` (:func:`_check_params`), with its
    ``fit_info_``: the losses per round (``val_loss`` when ``stop``) and ``n_iter``."""
    forest = Forest.from_trees(trees, params={
        "loss": loss.name, "max_iter": p["max_iter"], "learning_rate": p["learning_rate"],
        "l2_regularization": p["l2_regularization"],
        "l1_regularization": p["l1_regularization"], "min_split_gain": p["min_split_gain"],
        "subsample": p["subsample"], "early_stopping": bool(stop),
        "n_iter_no_change": p["n_iter_no_change"], "tol": p["tol"],
        "tree_params": trees[0].params, "random_seed": int(seed),
        "seeds": [int(s) for s in seeds[: len(trees)]]})
    forest.task, forest.classes, forest.n_outputs = task, classes, 1
    forest.boosting = {"loss": loss.name, "baseline": [float(b) for b in baseline],
                       "learning_rate": float(p["learning_rate"]),
                       "power": float(getattr(loss, "power", 1.5)),
                       "quantile": getattr(loss, "q", None)}
    forest.fit_info_ = {"train_loss": np.array(train_loss), "validation_loss":
                        np.array(val_loss) if stop else None, "n_iter": n_iter,
                        "early_stopping": bool(stop)}
    return forest


def _training_leaves(tree, scratch, rows, grown_on_all):
    """The leaf of ``tree`` each training row reaches (``rows``: the training rows as
    :func:`fastdt._predict.leaves` takes them). When the tree grew on every training
    row (``grown_on_all``: no row sample, no zero weight), its leaves' ranges of the
    histogram layout hold them all (``scratch``, :func:`fastdt._engine.grow`): one pass
    over the rows instead of a walk down the tree for each (the same leaves: a row's bin
    and its value fall on the same side of every threshold)."""
    from .._hist_build import leaf_of_rows  # a kernel module: numba on first use

    layout = scratch.get("rows")
    if not grown_on_all or layout is None or layout.shape[0] != rows[0].shape[0]:
        return _predict.leaves(tree, *rows)
    leaf = np.full(layout.shape[0], -1, dtype=np.int64)
    leaf_of_rows(layout, scratch["ranges"], tree.left, leaf)
    rest = np.flatnonzero(leaf < 0)  # rows of leaves whose parent's rows were not moved
    if rest.shape[0] > leaf.shape[0] // 2:
        return _predict.leaves(tree, *rows)
    if rest.shape[0]:
        leaf[rest] = _predict.leaves(tree, rows[0][rest], *rows[1:])
    return leaf


def _bag(rng, n, share):
    """A round's rows (float64 0/1 mask): ``ceil(share n)`` of ``n``, without
    replacement."""
    mask = np.zeros(n)
    mask[rng.permutation(n)[: max(1, int(np.ceil(share * n)))]] = 1.0
    return mask


def _quantile_leaves(tree, leaf, residual, w, bag, q, learning_rate):
    """Set every leaf of ``tree`` (column 0) to the learning rate times the ``q``-quantile
    of the residuals of its training rows (``leaf``: each row's leaf; ``bag``: the rows
    the tree grew on, None: all), as scikit-learn does for absolute error and quantiles."""
    rows = slice(None) if bag is None else bag > 0
    qs = quantile_of(residual[rows], None if w is None else w[rows], q, leaf[rows],
                     tree.value.shape[0])
    is_leaf = (tree.left < 0) & ~np.isnan(qs)
    tree.value[is_leaf, 0] = learning_rate * qs[is_leaf]


def _raw_score_tree(tree, k, n_cols, learning_rate, lam, alpha):
    """The tree with its leaf means turned into raw-score steps: ``-T(G) / (H + lambda)``
    (``T(G) = sign(G) max(|G| - alpha, 0)``) times the learning rate, in column ``k`` of
    ``n_cols``."""
    step = tree.value[:, 0] * learning_rate  # -G / H: the mean of -g/h weighted by h
    if lam > 0 or alpha > 0:
        from .._criteria import regularised  # a kernel module: not loaded on import

        H = tree.weighted_n_node_samples
        minus_g, h = regularised(tree.value[:, 0] * H, H, (lam, alpha))
        step = minus_g / h * learning_rate
    value = np.zeros((step.shape[0], n_cols))
    value[:, k] = step
    arrays = {name: getattr(tree, name) for name in FIELDS}
    arrays["value"] = value
    return Tree(arrays, task="regression", n_features=tree.n_features, n_outputs=n_cols,
                feature_names=tree.feature_names, categories=tree.categories,
                criterion=tree.criterion, params=tree.params)


def _should_stop(losses, n_iter_no_change, tol):
    """scikit-learn's rule: stop once none of the last ``n_iter_no_change`` losses is
    below the one before them by more than ``tol``."""
    if len(losses) <= n_iter_no_change:
        return False
    reference = losses[-n_iter_no_change - 1]
    return not any(v < reference - tol for v in losses[-n_iter_no_change:])


def _progress(it, total, train, val, elapsed):
    v = "" if val is None else f", validation loss {val:.6g}"
    sys.stderr.write(f"fastdt boosting: round {it}/{total}, train loss {train:.6g}{v}, "
                     f"{elapsed:.1f} s elapsed\n")
    sys.stderr.flush()


# ------------------------------------------------------------------ prediction


def _loss_of(forest):
    b = forest.boosting
    n_classes = 0 if forest.classes is None else len(forest.classes)
    return get_loss(b["loss"], forest.task, n_classes, b.get("power", 1.5),
                    b.get("quantile"))


def raw_scores(forest, X, estimator_name=None):
    """Raw scores ``[n, K]`` of the rows of ``X``: the starting score plus the sum of
    the trees' values (the forest kernels' mean times the number of trees)."""
    from .api import tree_mean

    mean = tree_mean(forest, X, estimator_name)
    return mean * forest.n_trees + np.asarray(forest.boosting["baseline"])


def boosted_values(forest, X, estimator_name=None):
    """What :func:`fastdt.predict_proba` / :func:`fastdt.predict` read for a boosted
    forest: class probabilities ``[n, n_classes]``, or predictions ``[n, 1]``. AdaBoost's
    SAMME forests (their ``boosting`` loss is ``"samme"``) are read by
    :func:`fastdt.ensemble.adaboost.samme_values`."""
    from . import adaboost

    if adaboost.is_samme(forest.boosting):
        return adaboost.samme_values(forest, X, estimator_name)
    out = _loss_of(forest).link(raw_scores(forest, X, estimator_name))
    return out if out.ndim == 2 else out[:, None]


def decision_function(forest, X, estimator_name=None):
    """Raw scores: ``[n]`` (binary: the log-odds of the second class; regression: the
    raw score before the link), or ``[n, n_classes]`` (multiclass)."""
    raw = raw_scores(forest, X, estimator_name)
    return raw[:, 0] if raw.shape[1] == 1 else raw


def staged_decision_function(forest, X, estimator_name=None):
    """:func:`decision_function` after each round (a generator; rounds of
    ``forest.value.shape[1]`` trees for multiclass)."""
    n_cols = forest.value.shape[1]
    trees = forest.trees()
    rows = _predict.X_for(trees[0], X, estimator_name)
    raw = np.tile(np.asarray(forest.boosting["baseline"], dtype=np.float64),
                  (rows[0].shape[0], 1))
    for i in range(0, len(trees), n_cols):
        for tree in trees[i:i + n_cols]:
            raw += _predict.values_of(tree, *rows)
        yield raw[:, 0].copy() if n_cols == 1 else raw.copy()


def staged_values(forest, X, estimator_name=None):
    """:func:`boosted_values` after each round (a generator)."""
    loss = _loss_of(forest)
    for raw in staged_decision_function(forest, X, estimator_name):
        out = loss.link(raw[:, None] if raw.ndim == 1 else raw)
        yield out if out.ndim == 2 else out[:, None]


def feature_importances(forest, importance_type="gain"):
    """Feature importances of a boosted model, normalised to sum to one (all zeros when
    no tree splits): ``"gain"``, the total Newton gain ``G_L^2/H_L + G_R^2/H_R - G^2/H``
    of each feature's splits over all the trees (the weighted decrease of the trees'
    squared error on ``-g/h``); ``"split"``, how many splits use each feature (LightGBM's
    two kinds)."""
    from ..inspection import impurity_importances

    if importance_type not in ("gain", "split"):
        raise ValueError(f"importance_type={importance_type!r} must be 'gain' or 'split'")
    total = np.zeros(forest.n_features)
    for t in forest.trees():
        if t.node_count <= 1:
            continue
        if importance_type == "gain":
            total += impurity_importances(t, normalize=False) * t.weighted_n_node_samples[0]
        else:
            total += np.bincount(t.feature[t.feature >= 0], minlength=forest.n_features)
    s = total.sum()
    return total / s if s > 0 else total


# ------------------------------------------------------------------ the format


def validate_boosting(forest):
    """Check ``forest.boosting`` against the forest; ``ValueError`` naming the problem
    (SAMME's block: :func:`fastdt.ensemble.adaboost.validate_samme`)."""
    from . import adaboost

    if adaboost.is_samme(forest.boosting):
        return adaboost.validate_samme(forest)
    b = forest.boosting
    if not isinstance(b, dict):
        raise ValueError("boosting must be a dict")
    task = forest.task
    if task not in LOSSES or b.get("loss") not in LOSSES[task]:
        raise ValueError(f"boosting loss {b.get('loss')!r} is not a {task!r} loss")
    width = int(forest.value.shape[1]) if forest.value.ndim == 2 else -1
    classes = forest.classes
    if task == "classification":
        if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.shape[0] < 2:
            raise ValueError("a boosted classifier needs at least two classes")
        want = 1 if classes.shape[0] == 2 else classes.shape[0]
    else:
        if classes is not None:
            raise ValueError("a boosted regressor has no classes")
        want = 1
    if width != want:
        raise ValueError(f"boosted trees need {want} value column(s), got {width}")
    base = b.get("baseline")
    if (not isinstance(base, list) or len(base) != want
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                       and np.isfinite(v) for v in base)):
        raise ValueError(f"boosting baseline must be a list of {want} finite numbers")
    for key, lo, hi in (("learning_rate", 0.0, np.inf), ("power", 1.0, 2.0)):
        v = b.get(key)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not lo < v <= hi \
                or not np.isfinite(v):
            raise ValueError(f"boosting {key} must be a number in ({lo}, {hi}]")
    if b["loss"] == "tweedie" and not b["power"] < 2.0:
        raise ValueError("boosting power must be in (1, 2) for the tweedie loss")
    q = b.get("quantile")
    if b["loss"] in ("quantile", "huber"):
        if not isinstance(q, (int, float)) or isinstance(q, bool) or not 0.0 < q < 1.0:
            raise ValueError(f"boosting quantile must be a number in (0, 1) for the "
                             f"{b['loss']} loss")
    elif q is not None:
        raise ValueError(f"boosting quantile must be null for the {b['loss']} loss")


def boosting_from_meta(meta, where):
    """``(task, classes, boosting)`` from a forest file's metadata (SAMME's:
    :func:`fastdt.ensemble.adaboost.samme_from_meta`)."""
    from . import adaboost

    b = meta.get("boosting")
    if adaboost.is_samme(b):
        return adaboost.samme_from_meta(meta, where)
    if meta.get("combine") != "sum" or not isinstance(b, dict):
        raise ValueError(f"{where}: a boosted forest needs combine 'sum' and a boosting "
                         "object")
    task = b.get("task")
    if task not in LOSSES:
        raise ValueError(f"{where}: boosting task must be one of {tuple(LOSSES)}")
    classes = _decode_classes(b.get("classes"), where)
    keys = ("loss", "baseline", "learning_rate", "power", "quantile")
    return task, classes, {k: b.get(k) for k in keys}

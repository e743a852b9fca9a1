"""Forests grown on the shared engine: prepare once, then one tree per seed.

:func:`fit_forest` checks and converts the data once (:func:`fastdt._engine.prepare`: the
presort, the bins or the sparse layout), then grows every tree from it
(:func:`fastdt._engine.grow` with the tree's in-bag counts as row weights: a tree's
layout is the prepared one restricted to its in-bag rows, nothing is sorted again and
no row of X is copied). Tree ``i`` is fully determined by its seed (drawn from
``random_state``): the bootstrap counts, the feature sampler and the random splits all
come from it, so a forest is the same bit for bit whatever the number of threads, and
the in-bag counts can be regenerated for the out-of-bag results.

Trees of modest data grow in batches (:func:`fastdt._engine.grow_batch`): the trees of
a batch grow level by level together, one pass of the growth driver's Python and one
call of each kernel per level for all of them, and each is the tree grown alone.
"""

import sys
import threading
import time

import numpy as np

from .. import _engine, _input, _predict
from ..pruning import prune
from .forest import Forest

__all__ = ["fit_forest", "forest_values", "in_bag_counts", "predict_quantiles", "tree_seeds"]


def tree_seeds(random_state, n_trees):
    """One uint64 seed per tree from ``random_state`` (None: fresh entropy)."""
    if isinstance(random_state, np.random.RandomState):
        rng = np.random.default_rng(random_state.randint(0, 2**31 - 1))
    else:
        rng = np.random.default_rng(random_state)
    return rng.integers(1, 2**63 - 1, size=n_trees, dtype=np.int64).astype(np.uint64)


def in_bag_counts(seed, n, n_samples, replace=True):
    """How often each of ``n`` rows is drawn into a tree's sample of ``n_samples`` draws
    (int64 [n]), from the tree's seed: with replacement (a bootstrap sample), or without
    (``replace=False``: 0 or 1, ``n_samples`` rows drawn once)."""
    rng = np.random.default_rng(np.uint64(seed) ^ np.uint64(0x5DEECE66D))
    if not replace:
        counts = np.zeros(n, dtype=np.int64)
        counts[rng.choice(n, size=n_samples, replace=False)] = 1
        return counts
    return np.bincount(rng.integers(0, n, size=n_samples), minlength=n)


def forest_in_bag(forest, seed, n):
    """:func:`in_bag_counts` of the tree of ``forest`` with ``seed`` over its ``n``
    training rows of positive weight (the draws the fit made)."""
    p = forest.params
    return in_bag_counts(seed, n, p["n_samples"], p.get("replace", True))


def forest_tree_features(forest):
    """The features each tree of ``forest`` may use (a list of sorted int64 arrays:
    its ``tree_features`` draw, regenerated from the tree's seed; all of them without)."""
    n_pool = _n_pool(forest.params.get("tree_features"), forest.n_features, None)
    if n_pool is None:
        return [np.arange(forest.n_features)] * forest.n_trees
    from .._sampling import tree_pool

    return [tree_pool(seed, forest.n_features, n_pool) for seed in forest.params["seeds"]]


def _n_samples(max_samples, n):
    if max_samples is None:
        return n
    if isinstance(max_samples, (bool, np.bool_)):
        raise TypeError("max_samples must be None, an int or a float")
    if isinstance(max_samples, (int, np.integer)):
        if not 1 <= max_samples <= n:
            raise ValueError(f"max_samples={max_samples} must be in [1, {n}] (the number "
                             "of samples)")
        return int(max_samples)
    if isinstance(max_samples, (float, np.floating)):
        if not 0.0 < max_samples <= 1.0:
            raise ValueError(f"max_samples={max_samples} must be in (0.0, 1.0]")
        return max(1, int(round(max_samples * n)))
    raise TypeError(f"max_samples must be None, an int or a float, got {max_samples!r}")


def _n_pool(tree_features, n_features, max_features):
    """How many features each tree may use (``tree_features``; None: all)."""
    v = tree_features
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer, float,
                                                                  np.floating)):
        raise TypeError(f"tree_features must be None, an int or a float, got {v!r}")
    if isinstance(v, (int, np.integer)):
        if not 1 <= v <= n_features:
            raise ValueError(f"tree_features={v} must be in [1, {n_features}] (the number "
                             "of features)")
        size = int(v)
    else:
        if not 0.0 < v <= 1.0:
            raise ValueError(f"tree_features={v} must be in (0.0, 1.0]")
        size = max(1, int(v * n_features))
    if (isinstance(max_features, (int, np.integer)) and not isinstance(max_features, bool)
            and max_features > size):
        raise ValueError(f"max_features={max_features} is larger than the {size} features "
                         f"each tree may use (tree_features={v})")
    return size


def _check_forest_params(p):
    n = p["n_estimators"]
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n_estimators={n!r} must be an int >= 1")
    for name in ("bootstrap", "replace", "oob_score", "leaf_samples"):
        if not isinstance(p[name], (bool, np.bool_)):
            raise ValueError(f"{name} must be a bool, got {p[name]!r}")
    if p["oob_score"] and not p["bootstrap"]:
        raise ValueError("Out of bag estimation only available if bootstrap=True")
    if not p["bootstrap"] and p["max_samples"] is not None:
        raise ValueError("`max_sample` cannot be set if `bootstrap=False`. Either switch to "
                         "`bootstrap=True` or set `max_sample=None`.")
    check_n_jobs(p["n_jobs"])


def check_n_jobs(jobs):
    """``n_jobs``: None or a non-zero int (a thread count; negative: all but some)."""
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer))
                             or jobs == 0):
        raise ValueError(f"n_jobs={jobs!r} must be None or a non-zero int")


def _threads(n_jobs):
    """The thread count for ``n_jobs`` (scikit-learn's meaning: -1 all, -2 all but one)."""
    import numba

    most = numba.config.NUMBA_NUM_THREADS
    if n_jobs is None:
        return numba.get_num_threads()
    return max(1, min(most, n_jobs if n_jobs > 0 else most + 1 + n_jobs))


def fit_forest(X, y, *, sample_weight=None, n_estimators=100, bootstrap=True,
               max_samples=None, replace=True, oob_score=False, random_state=None,
               n_jobs=None, verbose=0, leaf_samples=False, tree_features=None, extend=None,
               **tree_params):
    """Fit a forest of trees on bootstrap samples (Breiman's random forest).

    Parameters
    ----------
    X, y, sample_weight
        As :func:`fastdt.fit` (arrays, DataFrames with categorical columns and NaN,
        sparse matrices; classification or regression).
    n_estimators : int, default=100
        Trees.
    bootstrap : bool, default=True
        Each tree grows on a bootstrap sample (drawn with replacement; the draw counts
        are the rows' weights, rows never copied); False: every tree on every row.
    max_samples : None, int or float
        Draws per bootstrap sample (None: as many as rows; a float: that fraction).
    replace : bool, default=True
        The bootstrap draws are made with replacement; False: ``max_samples`` distinct
        rows are drawn for each tree (subsampling, ranger's ``replace=FALSE``; bagging's
        "pasting"), the others are out of bag.
    oob_score : bool, default=False
        Also compute the out-of-bag prediction of every row and its score (accuracy or
        R^2): the forest's ``oob_`` attribute holds them (:func:`oob_results`; not
        saved with the forest).
    random_state : None, int or numpy Generator/RandomState
        Seeds every tree (bootstrap, feature sampling, random splits).
    n_jobs : None or int
        Threads (None: numba's current number; -1: all).
    verbose : int
        > 0: a progress line (trees done, elapsed, remaining) on stderr.
    leaf_samples : bool, default=False
        Regression with one output: keep the training rows of every leaf and their
        weights (the forest's ``leaf_samples``, saved with it), for
        :func:`predict_quantiles` (quantile regression forests).
    tree_features : None, int or float
        Each tree may use only a random subset of the features (the notes' random
        subset of attributes per tree; scikit-learn's ``BaggingClassifier(max_features=
        ...)``): that many (an int), or that fraction of them (a float in (0, 1]), drawn
        without replacement from the tree's seed. ``max_features`` then counts among
        them. None: every feature.
    extend : Forest, optional
        Warm start: a forest fitted on the same data with the same parameters; its
        trees are kept and ``n_estimators - extend.n_trees`` more are grown. With an int
        ``random_state`` the new trees take the seeds that follow the kept trees', so the
        result is the forest fitted with ``n_estimators`` trees at once.
    **tree_params
        Parameters of every tree, as :func:`fastdt.fit` (``criterion``,
        ``splitter`` ("best" default, "hist", "random"), ``max_depth``,
        ``max_features`` (default here: ``"sqrt"`` for classification, ``1.0`` for
        regression, as scikit-learn's forests), ``class_weight`` (also
        ``"balanced_subsample"``: balanced on each tree's bootstrap sample), ...).

    Returns
    -------
    Forest
    """
    fp = dict(n_estimators=n_estimators, bootstrap=bootstrap, max_samples=max_samples,
              replace=replace, oob_score=oob_score, random_state=random_state, n_jobs=n_jobs,
              verbose=verbose, leaf_samples=leaf_samples, tree_features=tree_features)
    _check_forest_params(fp)
    import numba

    saved = numba.get_num_threads()
    numba.set_num_threads(_threads(n_jobs))
    try:
        return _fit(X, y, sample_weight, fp, dict(tree_params), extend)
    finally:
        numba.set_num_threads(saved)


def _fit(X, y, sample_weight, fp, tp, extend=None):
    subsample_balanced = tp.get("class_weight") == "balanced_subsample"
    if subsample_balanced:
        tp["class_weight"] = None
    if "max_features" not in tp:  # scikit-learn's forests: sqrt (classification), all
        task = _input.infer_task(y, tp.get("task"), tp.get("criterion"))
        tp["max_features"] = "sqrt" if task == "classification" else 1.0
    ccp_alpha = tp.pop("ccp_alpha", 0.0)
    prep = _engine.prepare(X, y, sample_weight, dict(tp, ccp_alpha=0.0))
    if subsample_balanced and not prep.is_clf:
        raise ValueError("class_weight='balanced_subsample' applies to classification only")
    if fp["leaf_samples"] and (prep.is_clf or prep.n_outputs > 1):
        raise ValueError("leaf_samples=True (quantile regression forests) needs regression "
                         "with one output")
    n = prep.target.shape[0]
    n_samples = _n_samples(fp["max_samples"], n)
    n_pool = _n_pool(fp["tree_features"], prep.n_features, tp.get("max_features"))
    seeds = tree_seeds(fp["random_state"], fp["n_estimators"])
    kept = []
    if extend is not None:
        kept = _kept_trees(extend, fp, prep, n_samples)
        seeds = np.concatenate([np.asarray(extend.params["seeds"], dtype=np.uint64),
                                seeds[len(kept):]])
    base_w = np.ones(n) if prep.weights is None else prep.weights

    def weights(seed):  # the tree's row weights (0: not in its bag)
        w = base_w
        if fp["bootstrap"]:
            w = base_w * in_bag_counts(seed, n, n_samples, fp["replace"])
        if subsample_balanced:
            w = w * _balanced(prep.target, w, prep.n_stats)
        return w

    import numba

    from .._sampling import tree_pool  # numba loads with the first fit, not on import

    local = threading.local()  # each thread's scratch: the buffers its trees reuse

    def finish(raw):
        tree = _engine.assemble(prep, raw)
        return prune(tree, ccp_alpha) if ccp_alpha > 0.0 else tree

    batched = n_pool is None and _engine.batchable(prep)

    def some_trees(chunk):  # the trees of these seeds
        scratch = local.__dict__.setdefault("scratch", {})
        if batched and len(chunk) > 1:
            return [finish(raw) for raw in _engine.grow_batch(
                prep, chunk, [weights(s) for s in chunk], scratch=scratch)]
        return [finish(_engine.grow(
            prep, seed=s, row_weights=weights(s), scratch=scratch,
            features=None if n_pool is None else tree_pool(s, prep.n_features, n_pool)))
            for s in chunk]

    size = _batch_size(prep, len(seeds) - len(kept), numba.get_num_threads()) if batched else 1
    trees = kept + _grow_all(some_trees, seeds[len(kept):], fp["verbose"], size)
    if kept and len(trees) > len(kept) and _json(trees[-1].params) != _json(kept[0].params):
        raise ValueError("extend: the new trees' parameters differ from the kept trees' "
                         "(warm start needs the parameters of the first fit)")
    params = {k: (v if k != "random_state" or isinstance(v, (int, type(None))) else None)
              for k, v in fp.items()}
    params["tree_params"] = trees[0].params
    params["seeds"] = [int(s) for s in seeds]
    params["n_samples"] = n_samples
    forest = Forest.from_trees(trees, params=params, threads=numba.get_num_threads())
    if fp["oob_score"]:
        forest.oob_ = oob_results(forest, X, prep, y)
    if fp["leaf_samples"]:
        forest.leaf_samples = _leaf_samples(forest, X, prep, y, weights)
    return forest


def _kept_trees(extend, fp, prep, n_samples):
    """The trees of ``extend`` (a warm start), checked against this fit."""
    if not isinstance(extend, Forest):
        raise TypeError(f"extend must be a fastdt Forest, got {type(extend).__name__}")
    if extend.n_trees > fp["n_estimators"]:
        raise ValueError(f"n_estimators={fp['n_estimators']} must be larger or equal to "
                         f"the {extend.n_trees} trees of the forest extended (warm start)")
    same = (extend.n_features == prep.n_features and extend.task == prep.task
            and extend.params.get("n_samples") == n_samples
            and extend.params.get("bootstrap") == fp["bootstrap"]
            and extend.params.get("replace", True) == fp["replace"]
            and extend.params.get("tree_features") == fp["tree_features"]
            and _same_classes(extend.classes, prep.classes))
    if not same:
        raise ValueError("extend: the forest was fitted on other data or with other "
                         "parameters (features, task, classes, rows or bootstrap differ)")
    return list(extend.trees())


def _same_classes(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list) or isinstance(b, list):  # several outputs
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(_same_classes(u, v) for u, v in zip(a, b)))
    return np.array_equal(np.asarray(a), np.asarray(b))


def _json(params):
    import json

    from ..tree import _json_default

    return json.dumps(params, default=_json_default, sort_keys=True)


#: A batch of trees holds at most this many entries of its trees' layouts (rows times
#: features, exact trees: :data:`_ENTRY_BYTES` each; histogram trees: rows; random splits
#: from rows: the bytes of each tree's copy of its rows' values, in exact entries) ...
_BATCH_ENTRIES = 2**22
#: Bytes of an entry of the exact splitter's presorted layout.
_ENTRY_BYTES = 28
#: ... and at most this many trees.
_BATCH_TREES = 16


def _batch_size(prep, n_trees, threads):
    """Trees per batch (:func:`_grow_all`): as many as :data:`_BATCH_ENTRIES` and
    :data:`_BATCH_TREES` allow, and batches of about equal size, a whole number of them
    per thread (so that the threads finish together)."""
    if n_trees <= 1:  # nothing to batch (a warm start may add no tree)
        return 1
    n = max(1, prep.target.shape[0])
    if prep.splitter == "hist":
        per_tree = n
    elif prep.layout is None:  # random splits from rows (fastdt._random_rows): their values
        per_tree = max(1, n * prep.n_features * prep.X.dtype.itemsize // _ENTRY_BYTES)
    else:
        per_tree = n * prep.n_features
    most = max(1, min(_BATCH_TREES, _BATCH_ENTRIES // per_tree, (2**31 - 1) // n))
    threads = max(1, min(threads, n_trees))
    n_batches = threads * -(-n_trees // (threads * most))
    return max(1, -(-n_trees // n_batches))


def _grow_all(some_trees, seeds, verbose, size=1):
    """Every tree, ``some_trees(seeds)`` giving the trees of a chunk of ``size`` seeds (a
    batch grown together, or one after another): on as many threads as numba has, one
    chunk per thread at a time, each chunk's kernels on its own thread (its levels then
    never wait for another thread, and the small levels of deep trees run side by
    side). A tree depends on its seed alone, so the forest is the same on any number of
    threads and in chunks of any size."""
    import numba

    chunks = [seeds[i:i + size] for i in range(0, len(seeds), size)]
    threads = min(numba.get_num_threads(), len(chunks))
    t0 = time.perf_counter()
    trees = [None] * len(chunks)
    if threads <= 1:
        done = 0
        for i, chunk in enumerate(chunks):
            trees[i] = some_trees(chunk)
            done += len(chunk)
            if verbose:
                _progress(done, len(seeds), time.perf_counter() - t0)
        return [t for chunk in trees for t in chunk]
    from concurrent.futures import ThreadPoolExecutor

    def work(i):
        numba.set_num_threads(1)  # this thread's kernels run on it alone
        trees[i] = some_trees(chunks[i])
        return len(chunks[i])

    done = 0
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="fastdt-forest") as pool:
        for n_done in pool.map(work, range(len(chunks))):
            done += n_done
            if verbose:
                _progress(done, len(seeds), time.perf_counter() - t0)
    return [t for chunk in trees for t in chunk]


def _balanced(target, w, n_classes):
    """Per-row class weights balanced on the bootstrap sample (``w`` > 0: in the bag;
    scikit-learn's ``"balanced_subsample"``: counts of draws, not of weights)."""
    drawn = w > 0
    counts = np.bincount(target[drawn], minlength=n_classes).astype(np.float64)
    cw = np.zeros(n_classes)
    present = counts > 0
    cw[present] = drawn.sum() / (present.sum() * counts[present])
    return cw[target]


def _progress(done, total, elapsed):
    left = elapsed / done * (total - done)
    end = "\n" if done == total else "\r"
    sys.stderr.write(f"fastdt forest: {done}/{total} trees, {elapsed:.1f} s elapsed, "
                     f"~{left:.1f} s left{end}")
    sys.stderr.flush()


#: Row blocks a thread of a forest's prediction (``_parallel.run_rows``): every block walks
#: every tree, reading all the forest's nodes (more than the caches hold), and the threads'
#: blocks, walked side by side, share what they read. 100 trees, 50,000 rows, 2 threads,
#: medians of 7: 0.123 s in one block a thread, 0.136 in two, 0.167 in four (one thread:
#: 0.238); with a second process keeping a core busy, 0.286 in one block a thread, 0.314
#: in two (``docs/benchmarks.md``, "Forest prediction").
ROW_BLOCKS = 1


def _blocks(forest, X, estimator_name=None):
    """``(rows in all, row slice, checked rows, has NaN)`` blocks of ``X`` for the
    forest's trees (a sparse X: dense blocks of rows, never the whole matrix; a dense
    X: one block)."""
    tree = forest.tree(0)
    if _predict.is_sparse(X):
        start = 0
        for block in _predict.sparse_blocks(X, tree.n_features):
            Xa, has_nan = _predict.X_for(tree, block, estimator_name)
            yield X.shape[0], slice(start, start + Xa.shape[0]), Xa, has_nan
            start += Xa.shape[0]
        return
    Xa, has_nan = _predict.X_for(tree, X, estimator_name)
    yield Xa.shape[0], slice(0, Xa.shape[0]), Xa, has_nan


def forest_values(forest, X, estimator_name=None):
    """The mean of the trees' leaf values for every row of ``X`` (float64 [n,
    n_values]): class fractions, or regression means; a boosted forest's probabilities
    or predictions (:func:`fastdt.ensemble.boosting.boosted_values`; SAMME's:
    :func:`fastdt.ensemble.adaboost.samme_values`); an AdaBoost.R2 forest's weighted
    median (:func:`fastdt.ensemble.adaboost.weighted_median_values`)."""
    if getattr(forest, "boosting", None) is not None:
        from .boosting import boosted_values

        return boosted_values(forest, X, estimator_name)
    if getattr(forest, "tree_weights", None) is not None:
        from .adaboost import weighted_median_values

        return weighted_median_values(forest, X, estimator_name)
    return tree_mean(forest, X, estimator_name)


def tree_mean(forest, X, estimator_name=None):
    """The mean of the trees' leaf values for every row of ``X`` (float64 [n,
    n_values])."""
    from .._parallel import run_rows
    from . import kernels

    out = None
    for n, rows, Xa, has_nan in _blocks(forest, X, estimator_name):
        if out is None:
            out = np.empty((n, forest.value.shape[1]))
        part = out[rows]
        work = Xa.shape[0] * forest.n_trees * 8
        if has_nan and forest.params.get("tree_params", {}).get("missing") == "fractional":
            part[:] = 0.0  # rows missing a value go down both branches: tree by tree
            for tree in forest.trees():
                part += _predict.values_of(tree, Xa, has_nan)
            part /= forest.n_trees
        elif not has_nan and forest.numeric_only:
            steps = forest.step_arrays(Xa.dtype)
            run_rows(kernels.forest_value_numeric_batch, Xa.shape[0], work,
                     (*steps, forest.value), Xa, part, per_thread=ROW_BLOCKS)
        else:
            run_rows(kernels.forest_value_batch, Xa.shape[0], work,
                     (forest.arrays, forest.offsets), Xa, part, per_thread=ROW_BLOCKS)
    return out


def oob_results(forest, X, prep, y):
    """Out-of-bag results of a forest fitted on ``X, y`` by :func:`fit_forest`: a dict
    with ``decision`` (float64 [n, n_values]: each row's mean leaf value over the trees
    that did not draw it; NaN for a row every tree drew), ``n_trees`` (int64 [n]) and
    ``score`` (accuracy, or R^2, over the rows with a prediction). The in-bag counts are
    regenerated from the trees' seeds."""
    n_all = prep.target.shape[0] if prep.positive is None else prep.positive.shape[0]
    rows = np.arange(n_all) if prep.positive is None else np.flatnonzero(prep.positive)
    n = rows.shape[0]
    oob = np.zeros((forest.n_trees, n_all), dtype=bool)
    oob[:, :] = True  # rows of weight 0 take part in no tree
    for i, seed in enumerate(forest.params["seeds"]):
        oob[i, rows] = forest_in_bag(forest, seed, n) == 0
    acc = np.zeros((n_all, forest.value.shape[1]))
    for _, block, Xa, has_nan in _blocks(forest, X):
        for i, tree in enumerate(forest.trees()):
            mask = oob[i, block]
            if mask.any():
                acc[block][mask] += _predict.values_of(tree, Xa[mask], has_nan)
    count = oob.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        decision = acc / count[:, None]
    decision[count == 0] = np.nan
    has = count > 0
    if not has.all():
        import warnings

        warnings.warn("Some inputs do not have OOB scores. This probably means too few "
                      "trees were used to compute any reliable OOB estimates.", UserWarning,
                      stacklevel=4)
    score = _score(forest, decision[has], np.asarray(y)[has])
    return {"decision": decision, "n_trees": count, "score": score}


def _score(forest, decision, y):
    if decision.shape[0] == 0:
        return np.nan
    if forest.task == "classification":
        if forest.n_outputs > 1:
            raise ValueError("oob_score handles one output")
        pred = np.asarray(forest.classes)[np.argmax(decision, axis=1)]
        return float(np.mean(pred == np.asarray(y).ravel()))
    y = np.asarray(y, dtype=np.float64)
    pred = decision if forest.n_outputs > 1 else decision[:, 0]
    ss_res = ((y - pred) ** 2).sum(axis=0)
    ss_tot = ((y - y.mean(axis=0)) ** 2).sum(axis=0)
    return float(np.mean(1.0 - ss_res / ss_tot))


def _leaf_samples(forest, X, prep, y, weights):
    """The forest's :class:`fastdt.ensemble._quantiles.LeafSamples` (training rows of the
    leaves, with their in-bag weights) from the training data."""
    from . import _quantiles

    n_all = prep.target.shape[0] if prep.positive is None else prep.positive.shape[0]
    rows = np.arange(n_all) if prep.positive is None else np.flatnonzero(prep.positive)
    leaves = apply(forest, X).astype(np.int32)  # local ids: int32 suffices
    seeds = forest.params["seeds"]

    def tree_weights(i):
        w = np.zeros(n_all)
        w[rows] = weights(seeds[i])
        return w

    y = np.asarray(y, dtype=np.float64).reshape(n_all)
    return _quantiles.build(forest, lambda i: leaves[:, i], tree_weights, y)


def predict_quantiles(forest, X, quantiles, *, oob=False, estimator_name=None):
    """Quantiles of the conditional distribution of ``y`` (Meinshausen's quantile
    regression forest; :mod:`fastdt.ensemble._quantiles`): float64 ``(n_rows,
    n_quantiles)``, non-decreasing along a row when ``quantiles`` is.

    The forest needs its leaves' training rows (``fit_forest(..., leaf_samples=True)``).
    ``oob=True``: ``X`` is the training X, and each row uses only the trees whose bag
    lacks it (NaN, with a warning, for a row every tree drew).
    """
    from .._parallel import run_rows
    from . import _quantiles

    ls = getattr(forest, "leaf_samples", None)
    if ls is None:
        raise ValueError("quantiles need the training rows of each leaf: fit the forest "
                         "with leaf_samples=True")
    q = _quantiles.check_quantiles(quantiles)
    leaves = apply(forest, X, estimator_name) + forest.offsets[0, :-1]
    if oob:
        if leaves.shape[0] != ls.y.shape[0]:
            raise ValueError(f"oob=True needs the training X ({ls.y.shape[0]} rows), got "
                             f"{leaves.shape[0]} rows")
        roots = forest.offsets[0]
        for t in range(forest.n_trees):  # a tree's bag: the rows of its leaves
            in_bag = ls.rows[ls.ptr[roots[t]]:ls.ptr[roots[t + 1]]]
            leaves[in_bag, t] = -1
    out = np.empty((leaves.shape[0], q.shape[0]))
    work = leaves.shape[0] * forest.n_trees * 16
    run_rows(_quantiles.quantiles_batch, leaves.shape[0], work,
             (ls.ptr, ls.rows, ls.weight, ls.y, q), leaves, out)
    if oob and np.isnan(out[:, 0]).any():
        import warnings

        warnings.warn("Some inputs do not have OOB scores. This probably means too few "
                      "trees were used to compute any reliable OOB estimates.", UserWarning,
                      stacklevel=3)
    return out


# ---------------------------------------------------------------------- prediction
# (fastdt.predict, predict_proba and apply take a Forest as they take a Tree: they ask
# forest_values above for its leaf values, and apply below for its leaves)


def apply(forest, X, estimator_name=None):
    """Leaf id of every row in every tree (int64 ``(n, n_trees)``; ids local to each
    tree, as :meth:`Forest.tree` numbers them)."""
    from .._parallel import run_rows
    from . import kernels

    out = None
    for n, rows, Xa, has_nan in _blocks(forest, X, estimator_name):
        if out is None:
            out = np.empty((n, forest.n_trees), dtype=np.int64)
        part = out[rows]
        work = Xa.shape[0] * forest.n_trees * 8
        if not has_nan and forest.numeric_only:
            steps = forest.step_arrays(Xa.dtype)
            run_rows(kernels.forest_apply_numeric_batch, Xa.shape[0], work, steps, Xa, part,
                     per_thread=ROW_BLOCKS)
        else:
            run_rows(kernels.forest_apply_batch, Xa.shape[0], work,
                     (forest.arrays, forest.offsets), Xa, part, per_thread=ROW_BLOCKS)
    return out

"""The engine every learner shares: prepare the data once, grow trees, assemble them.

::

    prep = prepare(X, y, sample_weight, params)   # checks, label/category codes, limits,
                                                  # the presort (exact) or the bins (hist)
    raw = grow(prep)                              # one tree's node tables (the kernels)
    tree = assemble(prep, raw)                    # a fastdt.Tree

:func:`build` is these three steps (``fastdt.fit`` adds the pruning of ``ccp_alpha``).
Growing more than one tree from one preparation (cross-validation folds on a Dataset,
ensembles) passes ``copy=True`` to :func:`grow`, which then leaves the prepared layout
as it was; a single fit lets the growth rearrange it in place.

Nothing here imports numba at module level: ``import fastdt`` stays light, and numba
loads with the first fit.
"""

import numpy as np

from . import _input, _memo
from ._config import ABSOLUTE_ERROR, CRITERIA_CLF, CRITERIA_REG, DEFAULT_MAX_BINS, \
    FORMAT_VERSION, MISSING_STRATEGIES, POISSON, SQUARED_ERROR
from .dataset import Dataset, check_max_bins
from .tree import Tree, empty_extras

__all__ = ["Prepared", "prepare", "grow", "grow_batch", "assemble", "build"]


class Prepared:
    """Data and parameters checked and converted for growing trees (see :func:`prepare`).

    Attributes
    ----------
    task, criterion, crit, is_clf : the task, the criterion's name and code
    classes : ndarray or None
        Class labels (classification); ``target`` holds codes into them.
    target : int32 (classification) or float64 ndarray [n]
        Of the rows that take part in the growth (weight > 0).
    weights : float64 ndarray [n] or None
        Their weights (class weights folded in); None when every weight is 1.
    n_stats : int
        Width of a statistics row (classes, or 3 for regression).
    splitter : {"best", "random", "hist"}
    X : float32/float64 ndarray [n, F] or None
        The rows (exact splitter). ``XT``: their columns (``X.T``, C-contiguous), made
        by the first tree that reads them (random splits of numeric rows).
    layout : tuple or None
        The exact splitter's presorted layout (:func:`fastdt._exact.presort`).
    dataset : Dataset or None
        The bins (histogram splitter; never rearranged: trees read them through row
        ids).
    n_features, feature_names, categories, n_categories, mode, max_surrogates
    has_missing : bool
        Whether any value of ``X`` is missing (the exact scan is compiled without its
        steps for missing values when none is and ``mode`` is 0).
    limits : dict
        The stopping rules resolved to numbers (:func:`fastdt._input.resolve_limits`).
    seed : uint64
        Seed of the feature sampler.
    mono : None or int8 ndarray [F]
        Monotonic constraints as the kernels take them
        (:func:`fastdt._input.monotonic_constraints`).
    record : dict
        The parameters stored in the Tree.
    """

    has_missing = True  # unless prepare() finds X complete


def prepare(X, y, sample_weight=None, params=None, *, code_features=False):
    """Check and convert everything a fit needs, and sort or bin the features.

    Parameters are those of :func:`fastdt.fit` (``params``: its keyword parameters).
    ``code_features``: an exact fit of one tree (not a forest's preparation) may code
    its few-valued integer features instead of presorting them
    (:mod:`fastdt._exact_codes`; the same tree). Raises ``ValueError``/``TypeError``
    naming the problem before any kernel runs.
    """
    p = _input.check_params(params or {})
    prep = Prepared()
    splitter = p["splitter"] or ("hist" if isinstance(X, Dataset) else "best")
    if isinstance(X, Dataset):
        if splitter != "hist":
            raise ValueError("a Dataset holds binned features: fit it with splitter='hist'")
        if p["categorical_features"] is not None:
            raise ValueError(
                "categorical_features is set when the Dataset is built: "
                "Dataset(X, categorical_features=...)"
            )
        if p["max_bins"] is not None and p["max_bins"] != X.max_bins:
            raise ValueError(
                f"max_bins={p['max_bins']} differs from the Dataset's max_bins={X.max_bins}; "
                "bin a new Dataset to change it"
            )
        dataset, Xa, has_nan = X, None, X.has_missing
        prep.feature_names = X.feature_names
        n, n_features = X.shape
        categories = X.categories
    else:
        if splitter != "hist" and p["max_bins"] is not None:
            raise ValueError("max_bins applies to splitter='hist' only")
        dataset = None
        prep.feature_names = _input.feature_names_of(X)
        if _input.is_sparse(X):  # CSC columns, never a dense copy (fastdt._sparse)
            Xa, has_nan = None, True  # not counted: sparse columns have their own scan
            # in a box: prepare_sparse takes the columns out, and frees them as it goes
            cols = [_input.check_X_sparse_fit(X, p["categorical_features"])]
            n, n_features = cols[0][3], cols[0][0].shape[0] - 1
            categories = [None] * n_features
        else:
            Xa, categories, has_nan = _input.check_X_fit(X, p["categorical_features"])
            n, n_features = Xa.shape
    mode = MISSING_STRATEGIES.index(p["missing"])
    sparse = dataset is None and Xa is None
    if splitter == "hist" and mode != 0:
        raise ValueError(
            f"missing={p['missing']!r} needs splitter='best'; the histogram splitter "
            "learns the side of missing values (missing='learn')"
        )
    task, criterion = task_and_criterion(y, p)
    sw = _input.check_sample_weight(sample_weight, n)
    n_categories = _input.n_categories_of(categories)
    outputs = _input.output_columns(y, n)  # several outputs: one tree for all of them
    ymul = offs = None
    if outputs is not None:
        _check_multi_output(splitter, mode, p, criterion, n_categories)
    if sparse:
        _check_sparse(mode, criterion, outputs)

    if task == "classification":
        if outputs is not None:
            found = [_input.check_y_classification(c, n) for c in outputs]
            classes = [c for c, _ in found]
            codes = np.column_stack([t for _, t in found])
            cw = _input.class_weights_multi(p["class_weight"], classes, codes)
            sizes = [len(c) for c in classes]
            offs = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
            ymul = codes.astype(np.float64)
            target = codes[:, 0]
        else:
            classes, target = _input.check_y_classification(y, n)  # int32 class codes
            cw = _input.class_weights(p["class_weight"], classes, target)
            sizes = [len(classes)]
        if cw is not None:
            sw = sw * cw
            if not sw.sum() > 0:
                raise ValueError("class_weight leaves every sample with zero weight")
        crit = CRITERIA_CLF[criterion]
        n_stats = int(sum(sizes))
    else:
        classes = None
        if outputs is not None:
            ymul = np.column_stack([_input.check_y_regression(c, n) for c in outputs])
            offs = np.arange(0, 3 * ymul.shape[1] + 1, 3, dtype=np.int64)
            target = ymul[:, 0].copy()
        else:
            target = _input.check_y_regression(y, n)
        crit = CRITERIA_REG[criterion]
        if crit == POISSON:
            ys_all = target[:, None] if ymul is None else ymul
            if np.any(ys_all < 0) or not np.all((ys_all * sw[:, None]).sum(axis=0) > 0):
                raise ValueError(
                    "criterion='poisson' needs y >= 0 with a positive (weighted) sum"
                )
        n_stats = 3 if ymul is None else 3 * ymul.shape[1]
        if crit == ABSOLUTE_ERROR:
            _check_absolute_error(splitter, mode, p, n_categories)

    prep.limits = _input.resolve_limits(p, n, n_features, sw)
    prep.seed = _input.seed_from(p["random_state"])
    # Samples of weight zero are left out of the growth, as scikit-learn's splitter
    # does: they count in no node (n_node_samples, min_samples_*) and place no threshold.
    # Fractional min_samples_* were resolved above from all samples, as scikit-learn.
    positive = None
    if not sw.min() > 0:
        positive = sw > 0
        target = target[positive]
        sw = sw[positive]
        if ymul is not None:
            ymul = np.ascontiguousarray(ymul[positive])
    # None: every weight is 1 (fractional rows need weights of their own)
    prep.weights = sw if np.any(sw != 1.0) or (mode == 1 and has_nan) else None
    prep.task, prep.criterion, prep.crit = task, criterion, crit
    prep.is_clf = task == "classification"
    prep.classes, prep.target, prep.n_stats = classes, target, n_stats
    prep.ymul, prep.offs = ymul, offs
    prep.n_outputs = 1 if ymul is None else ymul.shape[1]
    prep.splitter, prep.mode, prep.max_surrogates = splitter, mode, p["max_surrogates"]
    prep.n_features, prep.categories = n_features, categories
    prep.n_categories = n_categories
    prep.ccp_alpha = p["ccp_alpha"]
    prep.mono = _input.monotonic_constraints(p["monotonic_cst"], n_features,
                                             prep.n_categories, classes, mode)
    prep.record = _record(p, criterion, task, splitter, dataset)
    prep.has_missing = has_nan  # any value of X missing (NaN)
    prep.X = prep.layout = prep.dataset = prep.sparse = prep.coded = None
    prep.positive = positive  # None, or which rows of X take part (weight > 0)
    if sparse:
        from ._sparse import prepare_sparse

        max_bins = (p["max_bins"] or DEFAULT_MAX_BINS) if splitter == "hist" else None
        if max_bins is not None:
            prep.record["max_bins"] = max_bins = check_max_bins(max_bins)
        prep.sparse = prepare_sparse(cols, target, prep.weights, positive, max_bins)
    elif splitter == "hist":
        if dataset is None:
            dataset = Dataset._from_checked(Xa, categories, p["max_bins"] or DEFAULT_MAX_BINS,
                                            prep.feature_names, has_nan)
            prep.record["max_bins"] = dataset.max_bins
        prep.dataset = dataset
    else:
        from ._random_rows import usable

        prep.X = Xa if positive is None else np.ascontiguousarray(Xa[positive])
        if not usable(prep):  # random splits of numeric rows need no presorted layout
            prep.coded, prep.layout = _sorted_features(prep, code_features)
    return prep


def _sorted_features(prep, code_features):
    """``(coded, layout)`` of an exact fit: its few-valued integer features coded when
    ``code_features`` and the fit allows (:mod:`fastdt._exact_codes`; else None) and the
    others presorted (:func:`fastdt._exact.presort`). A fit of unit weights and one output
    on data prepared before takes them as kept (:mod:`fastdt._memo`)."""
    from ._exact import presort
    from ._exact_codes import codable, integer_columns, layout_columns

    coding = bool(code_features and codable(prep))
    plain = prep.weights is None and prep.ymul is None and prep.mode == 0
    keys = (prep.X, prep.target, prep.n_categories, np.array([coding]))
    found = _memo.recall("layout", keys) if plain else None
    if found is not None:
        return found
    X_sorted, coded = prep.X, None
    if coding:
        coded = integer_columns(prep.X, prep.n_categories)
        if coded is not None:  # only the other features are sorted
            X_sorted = layout_columns(prep.X, coded)
    layout = presort(X_sorted, prep.target, prep.weights, whole_rows=prep.mode == 1,
                     other_targets=None if prep.ymul is None else prep.ymul[:, 1:])
    if plain:
        _memo.keep("layout", keys, (coded, layout))
    return coded, layout


def task_and_criterion(y, p):
    """The task and the criterion's name, from the checked parameters ``p`` and ``y``
    (its dtype, when neither names the task)."""
    task = _input.infer_task(y, p["task"], p["criterion"])
    criterion = p["criterion"] or ("gini" if task == "classification" else "squared_error")
    if task == "classification" and criterion not in CRITERIA_CLF:
        raise ValueError(f"criterion={criterion!r} is a regression criterion")
    if task == "regression" and criterion not in CRITERIA_REG:
        raise ValueError(f"criterion={criterion!r} is a classification criterion")
    if task == "regression" and p["class_weight"] is not None:
        raise ValueError("class_weight applies to classification only")
    return task, criterion


def _check_multi_output(splitter, mode, p, criterion, n_categories):
    """What several outputs do not do yet, refused before any kernel."""
    if criterion in ("absolute_error", "gain_ratio"):
        raise ValueError(f"criterion={criterion!r} does not support several outputs yet")
    if p["monotonic_cst"] is not None:
        raise ValueError("Monotonicity constraints are not supported with multiple outputs.")
    _refuse_unsupported("y has several outputs", splitter, mode, n_categories,
                        "the histogram splitter grows single-output trees")


def _check_sparse(mode, criterion, outputs):
    """What a sparse X does not do yet, refused before any kernel."""
    if mode != 0:
        raise ValueError("sparse X: missing='learn' only (the surrogate and fractional "
                         "strategies need dense rows); pass X.toarray() for them")
    if criterion == "absolute_error":
        raise ValueError("criterion='absolute_error' does not support sparse X yet; pass "
                         "X.toarray()")
    if outputs is not None:
        raise ValueError("y with several outputs does not support sparse X yet; pass "
                         "X.toarray()")


def _check_absolute_error(splitter, mode, p, n_categories):
    """What ``criterion="absolute_error"`` does not do yet, refused before any kernel."""
    if p["monotonic_cst"] is not None and np.any(np.asarray(p["monotonic_cst"]) != 0):
        raise ValueError("criterion='absolute_error' does not support monotonic_cst yet")
    _refuse_unsupported("criterion='absolute_error'", splitter, mode, n_categories,
                        "a histogram holds sums, and a median needs the rows themselves")


def _refuse_unsupported(what, splitter, mode, n_categories, why_not_hist):
    """The splitter, missing-value strategy and feature kinds ``what`` needs."""
    if splitter == "hist":
        raise ValueError(f"{what}: use splitter='best' or 'random' ({why_not_hist})")
    if mode != 0:
        raise ValueError(f"{what}: missing='learn' only")
    if np.any(n_categories > 0):
        raise ValueError(f"{what}: categorical features are not supported yet; encode "
                         "them as numbers (e.g. ordinal codes)")


def _record(p, criterion, task, splitter, dataset):
    """The parameters the Tree keeps (JSON-ready)."""
    record = {k: v for k, v in p.items() if k != "random_state"}
    record["criterion"] = criterion
    record["task"] = task
    record["splitter"] = splitter
    if dataset is not None:
        record["max_bins"] = dataset.max_bins
    if isinstance(p["random_state"], (int, np.integer)):
        record["random_state"] = int(p["random_state"])
    if record["monotonic_cst"] is not None:
        record["monotonic_cst"] = np.asarray(record["monotonic_cst"]).tolist()
    if record["categorical_features"] is not None:
        record["categorical_features"] = np.asarray(record["categorical_features"]).tolist()
    if isinstance(record.get("class_weight"), dict):
        record["class_weight"] = {str(k): float(v) for k, v in record["class_weight"].items()}
    return record


def grow(prep, *, copy=True, seed=None, row_weights=None, features=None,
         min_weight_leaf=None, l2_regularization=0.0, l1_regularization=0.0, scratch=None,
         splitter=None):
    """Grow one tree from prepared data: its node tables (:meth:`fastdt._grow.Nodes.output`).

    ``copy=False`` lets the growth rearrange the prepared layout in place (exact and
    sparse splitters): the last or only tree of a preparation. ``seed`` replaces the
    prepared seed of the feature sampler.
    ``row_weights`` (float64 [n] over the prepared rows, e.g. a forest tree's in-bag
    counts times the sample weights): the tree grows on the rows of positive weight,
    weighted so, from the prepared layout (nothing sorted or binned again);
    ``min_weight_fraction_leaf`` then applies to their total, as scikit-learn's forests
    do. ``features`` (sorted int64, None: all): the only features the tree may use (a
    forest tree's random subset of attributes); ``max_features`` then counts among
    them, as for a tree fitted on those columns alone. ``min_weight_leaf`` (None: as
    above) replaces the minimum weight of a leaf (gradient boosting's minimum hessian).
    ``l2_regularization`` (lambda >= 0) and ``l1_regularization`` (alpha >= 0; histogram
    squared-error trees of one output only) make a split's gain gradient boosting's
    ``T(G_L)^2/(H_L+lambda) + T(G_R)^2/(H_R+lambda) - T(G)^2/(H+lambda)``, with the sums
    ``G`` of ``w*y`` soft-thresholded, ``T(G) = sign(G) max(|G| - alpha, 0)``.
    ``scratch`` (a dict, None: none): buffers kept from one tree to the next of trees
    grown one after another on the same preparation (the histogram pool, the node
    tables); never shared by trees grown at the same time. With ``scratch["keep_layout"]``
    true, after the growth it also holds the tree's layout: ``scratch["rows"]`` (a
    histogram tree: the Dataset row at each position, else None) and
    ``scratch["ranges"]`` (each node's range of positions, :func:`fastdt._grow.grow`).
    ``splitter``: one made by the
    caller, with the :func:`fastdt._grow.grow` protocol (:mod:`fastdt.dask`'s, whose rows
    are on a cluster), in place of the one ``prep`` implies.
    """

    for name, v in (("l2_regularization", l2_regularization),
                    ("l1_regularization", l1_regularization)):
        if not 0 <= v < np.inf:
            raise ValueError(f"{name} must be >= 0 and finite, got {v!r}")
    if (l2_regularization or l1_regularization) and (
            prep.splitter != "hist" or prep.is_clf or prep.sparse is not None
            or prep.crit != SQUARED_ERROR or prep.n_stats != 3):
        raise ValueError("l2_regularization and l1_regularization apply to histogram "
                         "squared-error trees of one output only")
    lim = prep.limits
    seed = prep.seed if seed is None else np.uint64(seed)
    if row_weights is not None:
        row_weights = _row_weights(prep, row_weights)
        lim = dict(lim, min_weight_leaf=prep.record["min_weight_fraction_leaf"]
                   * float(row_weights.sum()))
    if min_weight_leaf is not None:
        lim = dict(lim, min_weight_leaf=float(min_weight_leaf))
    common = _common(prep, lim)
    if splitter is not None:
        max_surrogates = 0
    elif prep.sparse is not None:
        from ._sparse import SparseSplitter

        if row_weights is not None:
            from ._sparse import in_bag_layout as sparse_in_bag

            layout = sparse_in_bag(prep.sparse, row_weights)
        else:
            layout = {k: (v.copy() if isinstance(v, np.ndarray) and copy else v)
                      for k, v in prep.sparse.items()}
        splitter = SparseSplitter(layout, random_seed=seed if prep.splitter == "random"
                                  else None, mono=prep.mono, n_stats=prep.n_stats,
                                  is_clf=prep.is_clf, crit=prep.crit,
                                  min_samples_leaf=lim["min_samples_leaf"],
                                  min_weight_leaf=lim["min_weight_leaf"])
        max_surrogates = 0
    elif prep.splitter == "hist":
        splitter = _hist_splitter(prep, common, scratch, *_hist_rows(prep, row_weights))
        splitter.reg = (float(l2_regularization), float(l1_regularization))
        max_surrogates = 0
    elif prep.layout is None:  # random splits read from the rows (fastdt._random_rows)
        splitter = _row_splitter(prep, row_weights, seed, lim, scratch)
        max_surrogates = 0
    elif prep.coded is not None:  # few-valued integer features coded (one tree)
        from ._exact import ExactSplitter
        from ._exact_codes import CodedSplitter, wide_columns

        if row_weights is not None or features is not None:
            raise ValueError("a preparation with coded features grows one tree on all "
                             "its rows and features")
        layout = tuple(a.copy() for a in prep.layout) if copy else prep.layout
        wide = wide_columns(prep.n_features, prep.coded)
        inner = ExactSplitter(prep.X, layout, mode=0, max_surrogates=0,
                              has_missing=prep.has_missing,
                              **dict(common, n_categories=prep.n_categories[wide]))
        splitter = CodedSplitter(inner, prep.coded, prep.n_features,
                                 crit=prep.crit, min_samples_leaf=lim["min_samples_leaf"],
                                 min_weight_leaf=lim["min_weight_leaf"])
        max_surrogates = 0
    else:
        from ._exact import ExactSplitter, in_bag_layout

        if row_weights is not None:
            layout = in_bag_layout(prep.layout, row_weights[None])[0]
        else:
            layout = tuple(a.copy() for a in prep.layout) if copy else prep.layout
        splitter = ExactSplitter(
            prep.X, layout, mode=prep.mode, max_surrogates=prep.max_surrogates,
            has_missing=prep.has_missing,
            random_seed=seed if prep.splitter == "random" else None, mono=prep.mono,
            ymul=prep.ymul, offs=prep.offs, **common)
        max_surrogates = prep.max_surrogates if prep.mode == 2 else 0
    max_features = lim["max_features"]
    if features is not None:
        splitter.feature_pool = features = np.asarray(features, dtype=np.int64)
        max_features = _input.resolve_limits(
            prep.record, 1, features.shape[0], np.ones(1))["max_features"]
    return _run(prep, splitter, lim, seed, max_surrogates, max_features, scratch)


def batchable(prep):
    """Whether trees of ``prep`` can grow in batches (:func:`grow_batch`): histogram trees,
    or exact ones (best or random splits from the presorted layout) with
    ``missing="learn"``, one output and a criterion other than absolute error; grown
    level-wise, with no ``min_weight_fraction_leaf`` (a minimum weight of each tree's
    own). Random splits read from the rows (:mod:`fastdt._random_rows`) batch too."""
    if (prep.sparse is not None or prep.ymul is not None or prep.limits["max_leaf_nodes"] > 0
            or prep.record["min_weight_fraction_leaf"] > 0):
        return False
    if prep.splitter == "hist" or prep.layout is None:  # histograms, or random rows
        return True
    return prep.coded is None and prep.mode == 0 and prep.crit != ABSOLUTE_ERROR


def grow_batch(prep, seeds, row_weights, *, scratch=None):
    """Grow a batch of trees of ``prep`` together, tree b from ``seeds[b]`` and
    ``row_weights[b]`` (as :func:`grow`'s ``seed`` and ``row_weights``): the same node
    tables, one per tree, as :func:`grow` gives each, from one pass of the growth
    driver per level for all of them (:func:`fastdt._grow.grow`; a forest of small
    trees spends a large share of its time in the driver's Python). ``prep`` must be
    :func:`batchable`; ``scratch`` as :func:`grow`'s: with it, the tables returned are
    views of its buffers, which the next batch grown with it writes again
    (:func:`assemble` copies them)."""
    if not batchable(prep):
        raise ValueError("these trees cannot grow in a batch (fastdt._engine.batchable)")
    seeds = np.asarray(seeds, dtype=np.uint64)
    weights = [_row_weights(prep, w) for w in row_weights]
    if seeds.shape != (len(weights),) or not weights:
        raise ValueError("grow_batch needs one seed per row_weights array, at least one")
    lim = dict(prep.limits, min_weight_leaf=0.0)  # batchable: no weight fraction
    common = _common(prep, lim)
    if prep.splitter == "hist":
        rows, target, w, starts, spare = _hist_batch_rows(prep, weights, scratch)
        splitter = _hist_splitter(prep, common, scratch, rows, target, w, starts,
                                  owned=True, spare=spare)
    elif prep.layout is None:
        splitter = _row_splitter(prep, np.stack(weights), seeds, lim, scratch)
    else:
        from ._exact import ExactSplitter, in_bag_layout

        if prep.target.shape[0] * len(weights) >= 2**31:
            raise ValueError("a batch's row ids must fit int32: fewer trees or rows")
        layout, starts = in_bag_layout(prep.layout, np.stack(weights))
        splitter = ExactSplitter(
            prep.X, layout, mode=0, max_surrogates=0, tree_starts=starts, mono=prep.mono,
            has_missing=prep.has_missing,
            random_seed=seeds if prep.splitter == "random" else None, **common)
    return _run(prep, splitter, lim, seeds, 0, lim["max_features"], scratch)


def _row_weights(prep, row_weights):
    """``row_weights`` (a forest tree's weights over the prepared rows), checked."""
    row_weights = np.ascontiguousarray(row_weights, dtype=np.float64)
    if row_weights.shape != prep.target.shape or not np.all(row_weights >= 0) \
            or not row_weights.sum() > 0:
        raise ValueError("row_weights must be >= 0, one per prepared row, not all 0")
    return row_weights


def _common(prep, lim):
    """The splitters' common arguments."""
    return dict(n_stats=prep.n_stats, is_clf=prep.is_clf, crit=prep.crit,
                n_categories=prep.n_categories, min_samples_leaf=lim["min_samples_leaf"],
                min_weight_leaf=lim["min_weight_leaf"])


def _row_splitter(prep, row_weights, seed, lim, scratch=None):
    """The :class:`fastdt._random_rows.RowSplitter` of ``prep`` (``row_weights`` [B, n]: a
    batch of B trees), its row values' buffer kept in ``scratch`` for the next trees."""
    from ._random_rows import RowSplitter

    if getattr(prep, "XT", None) is None:  # the columns, once per preparation
        prep.X = np.ascontiguousarray(prep.X)
        prep.XT = np.ascontiguousarray(prep.X.T)
    splitter = RowSplitter(prep.XT, prep.X, prep.target, prep.weights,
                           row_weights=row_weights, random_seed=seed, mono=prep.mono,
                           n_stats=prep.n_stats, is_clf=prep.is_clf, crit=prep.crit,
                           min_samples_leaf=lim["min_samples_leaf"],
                           min_weight_leaf=lim["min_weight_leaf"],
                           xp=None if scratch is None else scratch.get("row_values"))
    if scratch is not None:
        scratch["row_values"] = splitter.xp_buffer
    return splitter


def _hist_splitter(prep, common, scratch, rows, target, weights, tree_starts=None, *,
                   owned=False, spare=None):
    """The :class:`fastdt._hist.HistSplitter` of ``prep``'s Dataset over ``rows`` (one
    tree's, or a batch's side by side, ``tree_starts``), reusing ``scratch``'s pool
    (``owned``, ``spare``: as the splitter takes them)."""
    from ._hist import HistSplitter

    ds = prep.dataset
    return HistSplitter(ds.codes, target, weights, rows=rows, n_bins=ds.n_bins,
                        bin_lo=ds.bin_lo, bin_hi=ds.bin_hi, mono=prep.mono,
                        pool=None if scratch is None else scratch.get("hist_pool"),
                        tree_starts=tree_starts, has_missing=ds.has_missing, owned=owned,
                        spare=spare, **common)


def _hist_batch_rows(prep, row_weights, scratch):
    """``(rows, target, weights, starts, spare)`` of a batch of histogram trees: each
    tree's in-bag rows, their targets and weights (:func:`_hist_rows`), side by side
    from ``starts[b]``, written into buffers that ``scratch`` keeps for the thread's
    next batch, with ``spare`` buffers for the partitions of large nodes
    (:class:`fastdt._hist.HistSplitter`). Arrays made afresh for every batch, and the
    temporaries that joined them, were a forest's largest share of fresh memory, whose
    first touches cost (docs/benchmarks.md); the splitter partitions these in place."""
    from ._grow import kept_tables
    from ._hist import row_dtype

    cap = prep.target.shape[0] * len(row_weights)
    kept = {} if scratch is None else scratch.setdefault("hist_rows", {})
    dtype = row_dtype(prep.dataset.codes.shape[1])
    rows, target, w, spare_rows, spare_ycode = kept_tables(kept, cap, (
        ("rows", (), dtype), ("target", (), prep.target.dtype), ("weights", (), np.float64),
        ("spare_rows", (), dtype), ("spare_ycode", (), np.int32)))
    (spare_rstat,) = kept_tables(kept, cap * (1 if prep.is_clf else 3),
                                 (("spare_rstat", (), np.float64),))
    spare = (spare_rows, spare_ycode, spare_rstat)
    starts = np.zeros(len(row_weights) + 1, dtype=np.int64)
    for b, rw in enumerate(row_weights):  # one tree's arrays at a time: small temporaries
        tree_rows, tree_target, tree_w = _hist_rows(prep, rw)
        lo, hi = int(starts[b]), int(starts[b]) + tree_rows.shape[0]
        rows[lo:hi], target[lo:hi], w[lo:hi] = tree_rows, tree_target, tree_w
        starts[b + 1] = hi
    m = int(starts[-1])
    return rows[:m], target[:m], w[:m], starts, spare


def _hist_rows(prep, row_weights):
    """``(rows, target, weights)`` of a histogram tree: the rows of the Dataset taking
    part (None: all), their targets and weights (None: all 1); with ``row_weights``, the
    rows of positive weight, so weighted."""
    target, weights = prep.target, prep.weights
    rows = None if prep.positive is None else np.flatnonzero(prep.positive)
    if row_weights is not None:  # the in-bag rows, weighted
        keep = row_weights > 0
        rows = np.flatnonzero(keep) if rows is None else rows[keep]
        target, weights = target[keep], row_weights[keep]
    return rows, target, weights


def _run(prep, splitter, lim, seed, max_surrogates, max_features, scratch):
    """The growth driver on ``splitter`` (:func:`fastdt._grow.grow`)."""
    from ._grow import grow as run_growth

    if scratch is not None and hasattr(splitter, "tables"):
        # the scan tables of every level the thread grows (fastdt._grow.kept_tables)
        splitter.tables = scratch.setdefault("tables", {})
    out = run_growth(
        splitter, n_stats=prep.n_stats, n_words=int((prep.n_categories.max(initial=0) + 63) // 64),
        max_surrogates=max_surrogates, max_depth=lim["max_depth"],
        min_samples_split=lim["min_samples_split"],
        min_samples_leaf=lim["min_samples_leaf"], min_weight_leaf=lim["min_weight_leaf"],
        min_impurity_decrease=lim["min_impurity_decrease"],
        max_features=max_features, max_leaf_nodes=lim["max_leaf_nodes"],
        seed=seed, monotonic_cst=prep.mono, offs=prep.offs, scratch=scratch,
    )
    if scratch is not None and getattr(splitter, "pool", None) is not None:
        scratch["hist_pool"] = splitter.pool
    if scratch is not None and scratch.get("keep_layout"):  # with _grow.grow's "ranges"
        from ._hist import HistSplitter

        scratch["rows"] = splitter.rows if isinstance(splitter, HistSplitter) else None
    return out


def assemble(prep, raw):
    """The :class:`fastdt.Tree` of node tables ``raw`` grown from ``prep``."""
    inode, fnode, stats, cat, sur, n_sur, bounds = raw
    wn = fnode[:, 2]
    if prep.is_clf:
        value = stats / wn[:, None]
    elif prep.crit == ABSOLUTE_ERROR:  # the weighted median
        value = stats[:, 2:3].copy()
    else:  # every output's mean (blocks of [w, sum w*y, ...])
        value = stats[:, 1::3] / wn[:, None]
    if prep.mono is not None:  # scikit-learn's clipping: class 0, or the mean
        value[:, 0] = np.clip(value[:, 0], bounds[:, 0], bounds[:, 1])
        if prep.is_clf:
            value[:, 1] = 1.0 - value[:, 0]
    arrays = {
        "feature": inode[:, 0].astype(np.int32),
        "threshold": fnode[:, 0].copy(),  # copies: raw may be a batch's scratch
        "left": inode[:, 1].astype(np.int32),
        "right": inode[:, 2].astype(np.int32),
        "value": np.ascontiguousarray(value),
        "impurity": fnode[:, 1].copy(),
        "n_node_samples": inode[:, 3].copy(),
        "weighted_n_node_samples": wn.copy(),
        "depth": inode[:, 4].astype(np.int32),
        "missing_go_left": inode[:, 5].astype(np.uint8),
        **empty_extras(inode.shape[0], prep.n_features),
        **_category_arrays(inode[:, 0], cat, prep.n_categories),
        **_surrogate_arrays(sur, n_sur),
    }
    return Tree(
        arrays, task=prep.task, n_features=prep.n_features, classes=prep.classes,
        n_outputs=prep.n_outputs,
        feature_names=prep.feature_names, categories=prep.categories,
        criterion=prep.criterion, params=dict(prep.record), format_version=FORMAT_VERSION,
    )


def build(X, y, sample_weight=None, params=None):
    """One tree, prepared, grown and assembled (not pruned: ``ccp_alpha`` is left to
    the caller). Returns ``(tree, prep)``."""
    prep = prepare(X, y, sample_weight, params, code_features=True)
    return assemble(prep, grow(prep, copy=False)), prep


def _category_arrays(feature, cat, n_categories):
    """``cat_offset``, ``cat_bitsets`` and ``n_categories`` of the format from the
    driver's per-node bitsets (``cat``: uint64 [n_nodes, W])."""
    n = feature.shape[0]
    offset = np.full(n, -1, dtype=np.int64)
    nodes = np.flatnonzero(feature >= 0)
    k = n_categories[feature[nodes]].astype(np.int64)
    nodes, k = nodes[k > 0], k[k > 0]
    if not nodes.shape[0]:
        return {"cat_offset": offset, "cat_bitsets": np.zeros(0, np.uint64),
                "n_categories": n_categories.astype(np.int32)}
    words = (k + 63) // 64
    offset[nodes] = np.cumsum(words) - words
    bitsets = np.concatenate([cat[node, :w] for node, w in zip(nodes, words)])
    return {"cat_offset": offset, "cat_bitsets": bitsets.astype(np.uint64),
            "n_categories": n_categories.astype(np.int32)}


def _surrogate_arrays(sur, n_sur):
    """The format's surrogate arrays (CSR by node) from the driver's per-node table
    of ``(feature, threshold, left_if_le)`` triples."""
    ptr = np.zeros(n_sur.shape[0] + 1, dtype=np.int64)
    np.cumsum(n_sur, out=ptr[1:])
    rows = np.repeat(np.arange(n_sur.shape[0]), n_sur)
    cols = np.arange(rows.shape[0]) - ptr[rows]
    triples = sur[rows[:, None], 3 * cols[:, None] + np.arange(3)] if rows.size else np.zeros((0, 3))
    return {
        "surrogate_ptr": ptr,
        "surrogate_feature": triples[:, 0].astype(np.int32),
        "surrogate_threshold": np.ascontiguousarray(triples[:, 1]),
        "surrogate_left_if_le": triples[:, 2].astype(np.uint8),
    }

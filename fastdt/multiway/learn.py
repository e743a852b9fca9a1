"""ID3 and C4.5 as the course material teaches them: multiway trees, fitted.

``fastdt.fit(X, y, algorithm="c4.5")`` (or ``"id3"``) lands here:

1. the input is checked and converted as for every fastdt fit (:mod:`fastdt._input`:
   DataFrame categories, NaN as missing, labels, weights);
2. the tree grows level by level (:mod:`fastdt.multiway._grow`): a nominal feature
   splits into one branch per category, a continuous one at a threshold; a case
   missing the split's value goes down every branch with a fraction of its weight;
3. C4.5 places each threshold on the largest training value at or below the cut,
   collapses the subtrees that do not reduce the training errors and prunes by
   predicted errors with subtree raising (:mod:`fastdt.multiway._prune`);
4. the nodes the root still reaches are numbered breadth-first into a
   :class:`fastdt.Tree` (the format's multiway splits: children ``left .. right``,
   one per category; see docs/format.md).

See docs/multiway.md for each of C4.5 Release 8's choices and how this differs from
Weka's J48.
"""

from statistics import NormalDist

import numpy as np

from .. import _input
from .._config import FORMAT_VERSION, LEAF
from ..tree import Tree, bfs_order, empty_extras

__all__ = ["fit", "ALGORITHMS"]

ALGORITHMS = ("c4.5", "id3")

# name: (default for C4.5, default for ID3, check, what the check wants)
_PARAMS = {
    "min_samples_leaf": (2, 1, lambda v: _input._is_real(v) and v >= 1,
                         "a number >= 1 (C4.5's -m: the cases two branches need at least)"),
    "confidence": (0.25, None, lambda v: _input._is_real(v) and 0 < v < 1,
                   "a number in (0, 1) (C4.5's confidence factor CF)"),
    "prune": (True, False, lambda v: isinstance(v, (bool, np.bool_)), "True or False"),
    "subtree_raising": (True, False, lambda v: isinstance(v, (bool, np.bool_)),
                        "True or False"),
    "error_estimate": ("c4.5", None, lambda v: v in ("c4.5", "j48"),
                       "'c4.5' (Release 8's AddErrs) or 'j48' (Weka's)"),
    "max_depth": (None, None, lambda v: v is None or (_input._is_int(v) and v >= 1),
                  "None or an integer >= 1"),
    "categorical_features": (None, None, lambda v: True, ""),
}
_C45_ONLY = ("confidence", "prune", "subtree_raising", "error_estimate")


def check_params(algorithm, params):
    """Defaults filled in and every parameter of ``algorithm`` checked; a
    ``TypeError`` names a parameter the algorithm does not take."""
    id3 = algorithm == "id3"
    unknown = sorted(set(params) - set(_PARAMS))
    if id3:
        unknown += sorted(set(params) & set(_C45_ONLY))
    if unknown:
        valid = [k for k in _PARAMS if not (id3 and k in _C45_ONLY)]
        raise TypeError(f"algorithm={algorithm!r} does not take {', '.join(map(repr, unknown))}"
                        f"; its parameters are {', '.join(valid)}")
    out = {}
    for name, (c45, id3_default, check, text) in _PARAMS.items():
        if id3 and name in _C45_ONLY:
            continue
        value = params.get(name, id3_default if id3 else c45)
        if not check(value):
            raise ValueError(f"{name}={value!r} is invalid: {name} must be {text}")
        out[name] = value.item() if isinstance(value, np.generic) else value
    if not id3 and out["error_estimate"] == "j48" and out["confidence"] > 0.5:
        raise ValueError(f"confidence={out['confidence']!r} is invalid with "
                         "error_estimate='j48': Weka's estimate takes confidence <= 0.5")
    return out


def fit(X, y, *, algorithm="c4.5", sample_weight=None, **params):
    """Fit an ID3 or C4.5 tree (classification): see :func:`fastdt.fit`."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm={algorithm!r} is not one of {ALGORITHMS}")
    id3 = algorithm == "id3"
    p = check_params(algorithm, params)
    if _input.is_sparse(X):
        raise TypeError(f"algorithm={algorithm!r} needs dense X (a DataFrame or an array); "
                        "pass X.toarray()")
    names = _input.feature_names_of(X)
    Xa, categories, _ = _input.check_X_fit(X, p["categorical_features"])
    n, n_features = Xa.shape
    ncat = _input.n_categories_of(categories).astype(np.int64)
    if id3 and np.any(ncat == 0):
        numeric = [names[f] if names else f"x{f}" for f in np.flatnonzero(ncat == 0)]
        raise ValueError(
            "ID3 splits nominal features only; numeric feature(s) "
            f"{', '.join(map(str, numeric[:5]))}{' ...' if len(numeric) > 5 else ''}: "
            "discretise them first (e.g. pandas.cut or pandas.qcut), declare them "
            "categorical (categorical_features=...), or use algorithm='c4.5'")
    if _input.output_columns(y, n) is not None:
        raise ValueError(f"algorithm={algorithm!r} grows single-output trees; y must be 1-D")
    classes, codes = _input.check_y_classification(y, n)
    sw = _input.check_sample_weight(sample_weight, n)
    keep = sw > 0  # cases of weight zero take no part, as in every fastdt fit
    XT = np.ascontiguousarray((Xa if keep.all() else Xa[keep]).T, dtype=np.float64)
    y_codes = np.ascontiguousarray(codes[keep], dtype=np.int32)
    w = np.ascontiguousarray(sw[keep], dtype=np.float64)
    nodes = _grow(XT, y_codes, w, ncat, classes.shape[0], float(p["min_samples_leaf"]), id3,
                  p["max_depth"])
    if not id3:
        _simplify(nodes, XT, y_codes, w, ncat, p)
    else:
        nodes.threshold[:] = np.nan
    record = dict(p, algorithm=algorithm, missing="fractional", task="classification",
                  criterion="entropy" if id3 else "gain_ratio", splitter="best")
    if isinstance(record["categorical_features"], (list, tuple, np.ndarray)):
        record["categorical_features"] = np.asarray(record["categorical_features"]).tolist()
    return _assemble(nodes, ncat, classes, n_features, names, categories, record)


# ------------------------------------------------------------------------ growth


class _Nodes:
    """The node tables of a growing tree, by id (capacity grows by doubling)."""

    _COLUMNS = {"feature": np.int64, "left": np.int64, "right": np.int64,
                "count": np.int64, "depth": np.int64, "threshold": np.float64,
                "items": np.float64}

    def __init__(self, n_classes, cap=64):
        for name, dtype in self._COLUMNS.items():
            setattr(self, name, np.full(cap, -1 if dtype is np.int64 else np.nan, dtype))
        self.dist = np.zeros((cap, n_classes))
        self.count_made = 1
        self.sorted_values = {}  # continuous feature -> its column sorted (NaN last)

    def reserve(self, m):
        cap = self.feature.shape[0]
        if self.count_made + m <= cap:
            return
        new = max(2 * cap, self.count_made + m)
        for name in (*self._COLUMNS, "dist"):
            old = getattr(self, name)
            fill = 0.0 if name == "dist" else (-1 if old.dtype == np.int64 else np.nan)
            grown = np.full((new,) + old.shape[1:], fill, dtype=old.dtype)
            grown[:cap] = old
            setattr(self, name, grown)

    def trim(self):
        m = self.count_made
        for name in (*self._COLUMNS, "dist"):
            setattr(self, name, getattr(self, name)[:m].copy())


def _grow(XT, y, w, ncat, n_classes, min_leaf, id3, max_depth):
    """The grown (not yet simplified) node tables, ids breadth-first."""
    from .._parallel import run
    from ._grow import TOL, choose_splits, fill_level, route_level, score_nodes, xlog2x_table

    n_features, n = XT.shape
    cont = np.flatnonzero(ncat == 0)
    slot = np.full(n_features, -1, dtype=np.int64)
    slot[cont] = np.arange(cont.shape[0])
    order = np.empty((cont.shape[0], n), dtype=np.int64)
    nodes = _Nodes(n_classes)

    def sort(lo, hi):  # sorted once; NaN last (numpy's sorts release the GIL: threads)
        for k in range(lo, hi):
            order[k] = np.argsort(XT[cont[k]], kind="stable")

    run(sort, cont.shape[0], n * cont.shape[0])
    for k, f in enumerate(cont):
        nodes.sorted_values[f] = XT[f][order[k]]
    # C4.5's MultiVal: every feature has as many values as 0.3 of the cases
    multi_val = bool(np.all(ncat >= 0.3 * n))
    n_branches = max(2, int(ncat.max(initial=0)))
    table = xlog2x_table(min(n, 1 << 20))
    erow, ew = np.arange(n, dtype=np.int64), w
    ids = np.zeros(1, dtype=np.int64)
    starts, ends = np.zeros(1, dtype=np.int64), np.full(1, n, dtype=np.int64)
    tested = np.zeros((1, n_features), dtype=np.uint8)
    nodes.depth[0] = 0
    depth = 0
    while ids.shape[0]:
        k, sizes = ids.shape[0], ends - starts
        # the nodes' class frequencies (their entries tile the level, in order)
        dist = np.bincount(np.repeat(np.arange(k) * n_classes, sizes) + y[erow], weights=ew,
                           minlength=k * n_classes).reshape(k, n_classes)
        cases = dist[:, 0].copy()  # summed in class order, as C4.5 does
        for c in range(1, n_classes):
            cases += dist[:, c]
        feature = np.full(k, -1, dtype=np.int64)
        cut = np.full(k, np.nan)
        # the nodes that may split: below max_depth, more than one class, enough cases
        scored = np.flatnonzero((dist.max(axis=1) < cases - TOL)
                                & (cases >= 2.0 * min_leaf - TOL))
        if max_depth is not None and depth >= max_depth:
            scored = scored[:0]
        m = scored.shape[0]
        gains, infos, cuts = (np.empty((m, n_features)) for _ in range(3))
        run(score_nodes, m * n_features, int(sizes[scored].sum()) * n_features, XT, y, erow,
            ew, order, slot, ncat, scored, starts, ends, cases, tested, n_classes, min_leaf,
            table, gains, infos, cuts)
        best = np.empty(m, dtype=np.int64)
        choose_splits(gains, infos, ncat, id3, n, multi_val, best)
        has = best >= 0
        feature[scored[has]] = best[has]
        cut[scored[has]] = cuts[has, best[has]]
        nodes.dist[ids] = dist
        nodes.items[ids] = dist.sum(axis=1)
        nodes.count[ids] = sizes
        split = feature >= 0
        if not split.any():
            break
        branch = np.empty(erow.shape[0], dtype=np.int64)
        known_n = np.zeros((k, n_branches), dtype=np.int64)
        known_w = np.zeros((k, n_branches))
        work = int(sizes[split].sum())
        run(route_level, k, work, XT, erow, ew, starts, ends, feature, cut, ncat, branch,
            known_n, known_w)
        # children: one per category (nominal) or two; the ids follow each other
        js = np.flatnonzero(split)
        f = feature[js]
        k_children = np.where(ncat[f] > 0, ncat[f], 2)
        first = nodes.count_made + np.cumsum(k_children) - k_children
        nodes.reserve(int(k_children.sum()))
        nodes.feature[ids[js]] = f
        nodes.threshold[ids[js]] = cut[js]
        nodes.left[ids[js]] = first
        nodes.right[ids[js]] = first + k_children - 1
        miss = (ends - starts) - known_n.sum(axis=1)
        sizes = np.where(known_n > 0, known_n + miss[:, None], 0)
        child_start = (np.cumsum(sizes.ravel()) - sizes.ravel()).reshape(sizes.shape)
        m = int(sizes.sum())
        new_erow = np.empty(m, dtype=np.int64)
        new_ew = np.empty(m)
        new_order = np.empty((cont.shape[0], m), dtype=np.int64)
        dest = np.empty(erow.shape[0], dtype=np.int64)
        run(fill_level, k, work * (1 + cont.shape[0]), erow, ew, order, starts, ends, feature,
            branch, known_n, known_w, child_start, new_erow, new_ew, new_order, dest)
        # the next level: children with known cases; the others are empty leaves that
        # predict their parent's class (C4.5, and ID3's "most common value")
        pj = np.repeat(js, k_children)
        b = np.arange(pj.shape[0]) - np.repeat(first - first[0], k_children)
        child = np.arange(nodes.count_made, nodes.count_made + pj.shape[0])
        nodes.count_made += pj.shape[0]
        nodes.depth[child] = depth + 1
        opened = known_n[pj, b] > 0
        empty = child[~opened]
        nodes.dist[empty] = dist[pj[~opened]]
        nodes.items[empty] = 0.0
        nodes.count[empty] = 0
        ids, pj, b = child[opened], pj[opened], b[opened]
        starts = child_start[pj, b]
        ends = starts + sizes[pj, b]
        tested = tested[pj]
        nominal = ncat[feature[pj]] > 0
        tested[np.flatnonzero(nominal), feature[pj][nominal]] = 1
        erow, ew, order = new_erow, new_ew, new_order
        depth += 1
    nodes.trim()
    return nodes


# ------------------------------------------------------------------ simplification


def _simplify(nodes, XT, y, w, ncat, p):
    """C4.5's thresholds on training values, collapsing and (``prune``) pruning."""
    from ._prune import collapse, estimate
    from ..rules import c45_coefficient

    internal = nodes.feature >= 0
    cont = internal & (ncat[np.maximum(nodes.feature, 0)] == 0)
    for f in np.unique(nodes.feature[cont]):  # the largest training value <= the cut
        values = nodes.sorted_values[f]
        values = values[:values.shape[0] - np.count_nonzero(np.isnan(values))]
        at = np.flatnonzero(cont & (nodes.feature == f))
        nodes.threshold[at] = values[np.searchsorted(values, nodes.threshold[at], "right") - 1]
    collapse(nodes.left, nodes.right, nodes.feature, nodes.dist, nodes.items)
    if p["prune"]:
        leaf_class = np.argmax(nodes.dist, axis=1).astype(np.int64)
        cf = float(p["confidence"])
        if p["error_estimate"] == "c4.5":  # z from Release 8's table, 0.67 (N - E) at the top
            coeff, top = c45_coefficient(cf), 0.67
        else:  # Weka's Stats.addErrs: the exact normal quantile, N - E at the top
            coeff, top = NormalDist().inv_cdf(1.0 - cf) ** 2, 1.0
        estimate(nodes.left, nodes.right, nodes.feature, nodes.threshold, ncat, nodes.dist,
                 nodes.items, nodes.count, leaf_class, XT, y,
                 np.arange(y.shape[0], dtype=np.int64), w, 0, 1,
                 int(p["subtree_raising"]), cf, coeff, top)
    leaf = nodes.feature < 0
    nodes.left[leaf] = nodes.right[leaf] = -1
    nodes.threshold[leaf] = np.nan


def _entropy(dist):
    p = dist / np.maximum(dist.sum(axis=1, keepdims=True), 1e-300)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return terms.sum(axis=1)


def _assemble(nodes, ncat, classes, n_features, names, categories, record):
    """The :class:`fastdt.Tree` of the nodes the root reaches, numbered breadth-first."""
    order = bfs_order(nodes.left, nodes.right)
    new_id = np.full(nodes.feature.shape[0], -1, dtype=np.int64)
    new_id[order] = np.arange(order.shape[0])
    feature = nodes.feature[order]
    leaf = feature < 0
    left = np.where(leaf, LEAF, new_id[np.maximum(nodes.left[order], 0)])
    right = np.where(leaf, LEAF, new_id[np.maximum(nodes.right[order], 0)])
    depth = np.zeros(order.shape[0], dtype=np.int64)
    for i in np.flatnonzero(~leaf):  # parents come before children
        depth[left[i]:right[i] + 1] = depth[i] + 1
    dist = nodes.dist[order]
    items = nodes.items[order]
    value = dist / dist.sum(axis=1, keepdims=True)
    # a row missing a threshold's value goes to the heavier child in apply() (predict
    # sends it down both); multiway splits send it to their heaviest child
    binary = ~leaf & (ncat[np.maximum(feature, 0)] == 0)
    mgl = np.zeros(order.shape[0], dtype=np.uint8)
    mgl[binary] = items[left[binary]] >= items[left[binary] + 1]
    arrays = {
        "feature": np.where(leaf, LEAF, feature).astype(np.int32),
        "threshold": np.where(binary, nodes.threshold[order], np.nan),
        "left": left.astype(np.int32),
        "right": right.astype(np.int32),
        "value": np.ascontiguousarray(value),
        "impurity": _entropy(dist),
        "n_node_samples": nodes.count[order].astype(np.int64),
        "weighted_n_node_samples": np.ascontiguousarray(items),
        "depth": depth.astype(np.int32),
        "missing_go_left": mgl,
        **empty_extras(order.shape[0], n_features),
    }
    arrays["n_categories"] = ncat.astype(np.int32)
    return Tree(arrays, task="classification", n_features=n_features, classes=classes,
                feature_names=names, categories=categories, criterion=record["criterion"],
                params=record, format_version=FORMAT_VERSION)

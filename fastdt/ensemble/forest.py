"""The forest format: every tree's node arrays concatenated, with per-tree offsets.

A :class:`Forest` holds, for each field of the tree format (:data:`fastdt.tree.FIELDS`),
the arrays of its trees one after another, and ``offsets`` (int64 ``[n_fields,
n_trees + 1]``): tree ``i``'s ``field`` is ``field[offsets[k, i]:offsets[k, i + 1]]``
(``k`` the field's index). Node ids (``left``, ``right``) stay local to their tree, so
:meth:`Forest.tree` is a view, and a tree's arrays are exactly those of a
:class:`fastdt.Tree`. The metadata is the trees' (task, features, classes, categories,
criterion, the parameters of their fit) plus how they combine: the mean of the trees'
leaf values (class fractions or regression means), as scikit-learn's forests; or, for a
boosted model (:mod:`fastdt.ensemble.boosting`), their sum plus a starting score, through
the loss's link (``Forest.boosting``; AdaBoost's SAMME is one, with the link ``"samme"``);
or, for AdaBoost.R2 (:mod:`fastdt.ensemble.adaboost`), the weighted median of the trees'
predictions (``Forest.tree_weights``).
"""

import json

import numpy as np

from .._config import FORMAT_VERSION
from ..tree import FIELDS, Tree, TreeArrays, _json_default, _writeable

__all__ = ["Forest"]

#: Forests of this many nodes and more are concatenated on several threads
#: (:meth:`Forest.from_trees`); below, starting the threads costs more than it saves.
_PARALLEL_NODES = 1 << 18

_NODE_FIELDS = ("feature", "threshold", "left", "right", "value", "impurity", "n_node_samples",
                "weighted_n_node_samples", "depth", "missing_go_left", "cat_offset")


class Forest:
    """Fitted trees that predict together (the mean of their leaf values).

    Attributes
    ----------
    feature, threshold, left, right, value, ... : numpy arrays
        Every tree's node arrays, concatenated (module docstring).
    offsets : int64 ndarray [n_fields, n_trees + 1]
        Where each tree's part of each field starts, in the order of
        :data:`fastdt.tree.FIELDS`.
    task, n_features, classes, n_outputs, feature_names, categories, criterion
        As :class:`fastdt.Tree` (every tree shares them).
    params : dict
        The parameters of the fit (the forest's and its trees').
    """

    kind = "forest"

    def __init__(self, arrays, offsets, *, task, n_features, classes=None, n_outputs=1,
                 feature_names=None, categories=None, criterion=None, params=None):
        for name in FIELDS:
            setattr(self, name, _writeable(arrays[name]))
        self.offsets = _writeable(np.asarray(offsets))
        self.task = task
        self.n_features = int(n_features)
        self.classes = classes
        self.n_outputs = int(n_outputs)
        self.feature_names = None if feature_names is None else list(feature_names)
        self.categories = categories
        self.criterion = criterion
        self.params = dict(params or {})
        self.format_version = FORMAT_VERSION
        self._trees = None
        self._steps = {}
        #: A boosted model (:mod:`fastdt.ensemble.boosting`): ``{"loss", "baseline",
        #: "learning_rate", "power", "quantile"}``; its trees are regression trees of raw
        #: scores (one value column per class for multiclass log-loss), summed. None: a
        #: forest.
        self.boosting = None
        #: AdaBoost.R2 (:mod:`fastdt.ensemble.adaboost`): every tree's weight (float64
        #: [n_trees]); the forest predicts the weighted median of its trees' values.
        #: None: the mean (or, boosted, the sum).
        self.tree_weights = None
        #: Quantile regression forests: the training rows of every leaf (None unless
        #: fitted with ``leaf_samples=True``; :mod:`fastdt.ensemble._quantiles`).
        self.leaf_samples = None

    @classmethod
    def from_trees(cls, trees, params=None, threads=1):
        """The forest of ``trees`` (fitted on the same features, task and classes). Its
        arrays are the trees' concatenated, on ``threads`` threads (one field each at a
        time: numpy's copies release the GIL); :meth:`tree` then gives views into them,
        so the trees' own arrays are not kept (a forest held its nodes twice). Without
        ``"tree_params"`` in ``params``, the first tree's parameters are kept there: the
        trees :meth:`tree` gives carry them."""
        if not trees:
            raise ValueError("a forest needs at least one tree")
        first = trees[0]
        params = dict(params or {})
        params.setdefault("tree_params", first.params)
        offsets = np.zeros((len(FIELDS), len(trees) + 1), dtype=np.int64)
        parts = [[getattr(t, name) for t in trees] for name in FIELDS]
        for k, field in enumerate(parts):
            offsets[k, 1:] = np.cumsum([p.shape[0] for p in field])
        if threads > 1 and offsets[0, -1] >= _PARALLEL_NODES:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=threads) as pool:
                joined = list(pool.map(np.concatenate, parts))
        else:
            joined = [np.concatenate(field) for field in parts]
        return cls(dict(zip(FIELDS, joined)), offsets, task=first.task,
                   n_features=first.n_features, classes=first.classes,
                   n_outputs=first.n_outputs, feature_names=first.feature_names,
                   categories=first.categories, criterion=first.criterion, params=params)

    # ------------------------------------------------------------------ trees
    @property
    def n_trees(self):
        return int(self.offsets.shape[1] - 1)

    def __len__(self):
        return self.n_trees

    @property
    def node_count(self):
        """Nodes of all the trees."""
        return int(self.feature.shape[0])

    def tree(self, i):
        """Tree ``i`` as a :class:`fastdt.Tree` (its arrays are views into the forest's)."""
        if not -self.n_trees <= i < self.n_trees:
            raise IndexError(f"tree {i} of a forest of {self.n_trees} trees")
        return self.trees()[i]

    @property
    def arrays(self):
        """The concatenated node arrays as a :class:`fastdt.tree.TreeArrays`: with
        ``offsets``, what the forest kernels receive (:mod:`fastdt.ensemble.kernels`)."""
        return TreeArrays(*(getattr(self, name) for name in FIELDS))

    def step_arrays(self, dtype):
        """:func:`fastdt.ensemble.kernels.forest_step_arrays` for X of ``dtype``,
        computed once per forest and dtype (a fitted forest's arrays do not change)."""
        key = np.dtype(dtype).str
        if key not in self._steps:
            from .kernels import forest_step_arrays

            self._steps[key] = forest_step_arrays(self, dtype)
        return self._steps[key]

    @property
    def numeric_only(self):
        """True iff every split is numeric with no surrogates (the fast kernels): no
        categorical feature (so no category set or multiway split) and no surrogate."""
        return (self.cat_bitsets.shape[0] == 0 and self.surrogate_feature.shape[0] == 0
                and not np.any(self.n_categories > 0))

    def trees(self):
        """Every tree (a list of :class:`fastdt.Tree`)."""
        if self._trees is None:
            self._trees = [self._make_tree(i) for i in range(self.n_trees)]
        return self._trees

    def _make_tree(self, i):
        arrays = {name: getattr(self, name)[self.offsets[k, i]:self.offsets[k, i + 1]]
                  for k, name in enumerate(FIELDS)}
        if self.boosting is not None:  # regression trees of raw scores
            task, classes, n_outputs = "regression", None, int(self.value.shape[1])
        else:
            task, classes, n_outputs = self.task, self.classes, self.n_outputs
        return Tree(arrays, task=task, n_features=self.n_features, classes=classes,
                    n_outputs=n_outputs, feature_names=self.feature_names,
                    categories=self.categories, criterion=self.criterion,
                    params=self.params.get("tree_params", {}))

    @property
    def value_offsets(self):
        """int64 ``[n_outputs + 1]``: as :attr:`fastdt.Tree.value_offsets` (every tree's)."""
        return self.tree(0).value_offsets

    def __repr__(self):
        kind = "" if self.boosting is None else f"boosting={self.boosting['loss']!r}, "
        if getattr(self, "tree_weights", None) is not None:
            kind = "combine='weighted_median', "
        return (f"Forest({kind}task={self.task!r}, n_trees={self.n_trees}, "
                f"n_features={self.n_features}, node_count={self.node_count})")

    # ------------------------------------------------------------------ persistence
    def _meta(self):
        meta = self.trees()[0]._meta()
        meta.update(kind="forest", combine="mean", params=self.params)
        if self.boosting is not None:
            from ..tree import _encode_classes

            meta.update(combine="sum", boosting=dict(
                self.boosting, task=self.task, classes=_encode_classes(self.classes)))
        if getattr(self, "tree_weights", None) is not None:
            meta.update(combine="weighted_median", tree_weights=self.tree_weights.tolist())
        return meta

    def save(self, path, compress=True):
        """Write the forest to ``path`` as an ``.npz`` (the concatenated arrays, the
        offsets, the leaves' training rows if kept, and one JSON metadata string);
        :func:`fastdt.load` reads it back.

        ``compress`` (default): zlib, as ``numpy.savez_compressed`` (a forest's arrays
        are mostly small integers and repeated sentinels: about 14 bytes per node
        instead of 81, for 0.2 s per 100,000 nodes); False: as ``numpy.savez``."""
        meta = json.dumps(self._meta(), default=_json_default)
        arrays = {name: getattr(self, name) for name in FIELDS}
        if self.leaf_samples is not None:
            arrays.update({f"__leaf_{k}__": v for k, v in self.leaf_samples._asdict().items()})
        write = np.savez_compressed if compress else np.savez
        write(path, __meta__=np.array(meta), __offsets__=self.offsets, **arrays)

    def validate(self):
        """Check the offsets and every tree (:meth:`fastdt.Tree.validate`); raise
        ``ValueError`` naming the first violation."""
        off = self.offsets
        if (not isinstance(off, np.ndarray) or off.dtype != np.int64 or off.ndim != 2
                or off.shape[0] != len(FIELDS) or off.shape[1] < 2):
            raise ValueError("offsets must be int64 [n_fields, n_trees + 1] with n_trees >= 1")
        for k, name in enumerate(FIELDS):
            a = getattr(self, name)
            if not isinstance(a, np.ndarray) or a.ndim < 1:
                raise ValueError(f"{name} must be an array")
            if off[k, 0] != 0 or np.any(np.diff(off[k]) < 0) or off[k, -1] != a.shape[0]:
                raise ValueError(f"offsets of {name} must rise from 0 to its length")
        nodes = [list(FIELDS).index(f) for f in _NODE_FIELDS]
        if np.any(off[nodes] != off[nodes[0]]):
            raise ValueError("the per-node arrays of each tree must have the same length")
        self._trees = None
        self._steps = {}
        if getattr(self, "boosting", None) is not None:
            from .boosting import validate_boosting

            validate_boosting(self)
        if getattr(self, "tree_weights", None) is not None:
            from .adaboost import validate_tree_weights

            validate_tree_weights(self)
        for i in range(self.n_trees):
            try:
                self.tree(i).validate()
            except ValueError as exc:
                raise ValueError(f"tree {i}: {exc}") from None
        if getattr(self, "leaf_samples", None) is not None:
            from ._quantiles import validate

            validate(self.leaf_samples, self)
        return self

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_trees"] = None
        state["_steps"] = {}
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in (*FIELDS, "offsets"):
            setattr(self, name, _writeable(getattr(self, name, None)))
        self.validate()


def forest_from_contents(contents, where):
    """The :class:`Forest` of a loaded file (``fastdt.load``), validated."""
    from ..tree import _from_contents

    meta_arr = contents.get("__meta__")
    if not isinstance(meta_arr, np.ndarray) or meta_arr.ndim != 0 or meta_arr.dtype.kind != "U":
        raise ValueError(f"{where}: metadata must be one string")
    try:
        meta = json.loads(str(meta_arr))
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{where}: metadata is not valid JSON ({exc})") from exc
    if not isinstance(meta, dict) or meta.get("kind") != "forest":
        raise ValueError(f"{where}: not a fastdt forest file")
    off = contents.get("__offsets__")
    if not isinstance(off, np.ndarray) or off.dtype != np.int64 or off.ndim != 2 \
            or off.shape[0] != len(FIELDS) or off.shape[1] < 2:
        raise ValueError(f"{where}: a forest file needs int64 offsets [n_fields, n_trees + 1]")
    if not isinstance(meta.get("params"), dict):
        raise ValueError(f"{where}: metadata 'params' must be an object")
    # the metadata as a tree file's, checked by the tree reader on the first tree
    tree_meta = dict(meta, params=meta["params"].get("tree_params", {}))
    for k, name in enumerate(FIELDS):
        a = contents.get(name)
        if not isinstance(a, np.ndarray) or a.ndim < 1:
            raise ValueError(f"{where}: {name} must be an array")
        if off[k, 0] != 0 or np.any(np.diff(off[k]) < 0) or off[k, -1] != a.shape[0]:
            raise ValueError(f"{where}: offsets of {name} must rise from 0 to its length")
    first = {name: contents[name][off[k, 0]:off[k, 1]] for k, name in enumerate(FIELDS)}
    first["__meta__"] = np.array(json.dumps(tree_meta))
    t0 = _from_contents(first, where)  # checks the metadata and the first tree
    task, classes, n_outputs, boosting = t0.task, t0.classes, t0.n_outputs, None
    tree_weights = None
    if meta.get("combine") == "weighted_median":  # AdaBoost.R2
        from .adaboost import tree_weights_from_meta

        tree_weights = tree_weights_from_meta(meta, where)
    elif meta.get("combine", "mean") != "mean" or "boosting" in meta:
        from .boosting import boosting_from_meta

        task, classes, boosting = boosting_from_meta(meta, where)
        n_outputs = 1
    forest = Forest({name: contents[name] for name in FIELDS}, off, task=task,
                    n_features=t0.n_features, classes=classes, n_outputs=n_outputs,
                    feature_names=t0.feature_names, categories=t0.categories,
                    criterion=t0.criterion, params=meta["params"])
    forest.boosting = boosting
    forest.tree_weights = tree_weights
    leaf = {k: contents.get(f"__leaf_{k}__") for k in ("ptr", "rows", "weight", "y")}
    present = [v is not None for v in leaf.values()]
    if any(present):
        if not all(present):
            raise ValueError(f"{where}: the leaf samples need ptr, rows, weight and y")
        from ._quantiles import LeafSamples

        forest.leaf_samples = LeafSamples(**leaf)
    try:
        return forest.validate()
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None

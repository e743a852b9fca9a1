"""The fitted tree: flat, parallel node arrays (the public format), metadata, save/load.

A :class:`Tree` is data. Node ids run breadth-first and node 0 is the root. The
children of internal node ``i`` are the ids ``left[i]`` to ``right[i]``: two (a binary
split, ``right[i] == left[i] + 1``) or, at a multiway split (ID3/C4.5), one per category
of its feature. In id order, the internal nodes' children are 1, 2, 3, ... (binary
trees: ``left`` is 1, 3, 5, ...). Leaves have
``left[i] == right[i] == feature[i] == LEAF`` (-1). The full field table is in the
README ("The tree format"); :data:`FIELDS` below is the machine-readable version that
:meth:`Tree.validate` and :func:`load` enforce.

Kernels never see a :class:`Tree`, only :attr:`Tree.arrays`, a :class:`TreeArrays`
NamedTuple holding every array (unused ones are empty), so that every tree has the
same numba type and users' ``@njit`` code compiles once.
"""

import json
import zipfile
from typing import NamedTuple

import numpy as np

from ._config import FORMAT_VERSION, LEAF


class TreeArrays(NamedTuple):
    """Every array of the tree format, for ``@njit`` code (see :mod:`fastdt.kernels`)."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    impurity: np.ndarray
    n_node_samples: np.ndarray
    weighted_n_node_samples: np.ndarray
    depth: np.ndarray
    missing_go_left: np.ndarray
    cat_offset: np.ndarray
    cat_bitsets: np.ndarray
    n_categories: np.ndarray
    surrogate_ptr: np.ndarray
    surrogate_feature: np.ndarray
    surrogate_threshold: np.ndarray
    surrogate_left_if_le: np.ndarray


# name -> (dtype, ndim); the contract checked by Tree.validate and load.
FIELDS = {
    "feature": (np.int32, 1),
    "threshold": (np.float64, 1),
    "left": (np.int32, 1),
    "right": (np.int32, 1),
    "value": (np.float64, 2),
    "impurity": (np.float64, 1),
    "n_node_samples": (np.int64, 1),
    "weighted_n_node_samples": (np.float64, 1),
    "depth": (np.int32, 1),
    "missing_go_left": (np.uint8, 1),
    "cat_offset": (np.int64, 1),
    "cat_bitsets": (np.uint64, 1),
    "n_categories": (np.int32, 1),
    "surrogate_ptr": (np.int64, 1),
    "surrogate_feature": (np.int32, 1),
    "surrogate_threshold": (np.float64, 1),
    "surrogate_left_if_le": (np.uint8, 1),
}
assert tuple(FIELDS) == TreeArrays._fields

TASKS = ("classification", "regression")


class Tree:
    """A fitted decision tree: the node arrays of :data:`FIELDS` plus metadata.

    Attributes
    ----------
    feature, threshold, left, right, value, ... : numpy arrays
        The node arrays (README, "The tree format").
    task : {"classification", "regression"}
    n_features : int
    classes : ndarray, list of ndarray, or None
        Original class labels (classification); ``value[:, k]`` is the weighted
        fraction of ``classes[k]``. With several outputs, one array per output, and
        ``value`` holds their blocks one after another (:attr:`value_offsets`).
    n_outputs : int
        Outputs of the tree (``y`` of shape ``(n, n_outputs)``); 1 for most trees.
    feature_names : list of str or None
    categories : list or None
        Per feature, ``None`` for a numeric feature, or the list of its category levels
        for a categorical one (code ``k`` stands for ``categories[f][k]``;
        ``n_categories[f] == len(categories[f])``). ``None`` when no feature is
        categorical.
    criterion : str
    params : dict
        The parameters the tree was fitted with.
    """

    def __init__(self, arrays, *, task, n_features, classes=None, feature_names=None,
                 categories=None, criterion=None, params=None, format_version=FORMAT_VERSION,
                 n_outputs=1):
        for name in FIELDS:
            setattr(self, name, _writeable(arrays[name]))
        self.task = task
        self.n_features = int(n_features)
        self.classes = classes
        self.n_outputs = int(n_outputs)
        self.feature_names = None if feature_names is None else list(feature_names)
        if categories is not None and all(c is None for c in categories):
            categories = None
        self.categories = None if categories is None else [
            None if c is None else list(c) for c in categories
        ]
        self.criterion = criterion
        self.params = dict(params or {})
        self.format_version = format_version
        self._arrays = None

    # ------------------------------------------------------------------ views
    @property
    def arrays(self):
        """All node arrays as a :class:`TreeArrays` (what kernels receive)."""
        if self._arrays is None:
            self._arrays = TreeArrays(*(getattr(self, name) for name in FIELDS))
        return self._arrays

    @property
    def node_count(self):
        return int(self.feature.shape[0])

    @property
    def n_leaves(self):
        return int(np.count_nonzero(self.left == LEAF))

    @property
    def max_depth(self):
        return int(self.depth.max())

    @property
    def is_leaf(self):
        return self.left == LEAF

    @property
    def is_multiway(self):
        """bool [n]: the multiway splits (one child per category of a categorical
        feature; ID3/C4.5)."""
        return multiway_mask(self)

    @property
    def n_children(self):
        """int64 [n]: children of every node (0 at leaves, 2 at binary splits)."""
        return np.where(self.left == LEAF, 0,
                        self.right.astype(np.int64) - self.left.astype(np.int64) + 1)

    @property
    def n_values(self):
        return int(self.value.shape[1])

    @property
    def value_offsets(self):
        """int64 ``[n_outputs + 1]``: output ``k`` owns ``value[:, off[k]:off[k + 1]]``
        (its class fractions, or its one mean)."""
        if self.n_outputs == 1:
            return np.array([0, self.n_values], dtype=np.int64)
        if self.task == "classification":
            sizes = [len(c) for c in self.classes]
        else:
            sizes = [1] * self.n_outputs
        return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

    def __repr__(self):
        return (f"Tree(task={self.task!r}, criterion={self.criterion!r}, "
                f"n_features={self.n_features}, node_count={self.node_count}, "
                f"n_leaves={self.n_leaves}, max_depth={self.max_depth})")

    def __eq__(self, other):
        if not isinstance(other, Tree):
            return NotImplemented
        return self._meta() == other._meta() and all(
            np.array_equal(getattr(self, k), getattr(other, k), equal_nan=k.endswith("threshold"))
            for k in FIELDS
        )

    __hash__ = None

    # ------------------------------------------------------------------ pickling
    def __getstate__(self):
        state = self.__dict__.copy()
        state["_arrays"] = None
        return state

    def __setstate__(self, state):
        state.setdefault("n_outputs", 1)  # pickled before several outputs
        self.__dict__.update(state)
        for name in FIELDS:
            setattr(self, name, _writeable(getattr(self, name, None)))
        self.validate()

    # ------------------------------------------------------------------ persistence
    def _meta(self):
        return {
            "format_version": self.format_version,
            "task": self.task,
            "n_features": self.n_features,
            "classes": (_encode_classes(self.classes) if self.n_outputs == 1
                        or self.classes is None
                        else [_encode_classes(c) for c in self.classes]),
            "n_outputs": self.n_outputs,
            "feature_names": self.feature_names,
            "categories": self.categories,
            "criterion": self.criterion,
            "params": self.params,
        }

    def save(self, path):
        """Write the tree to ``path`` as an ``.npz`` (arrays + one JSON metadata string).

        The file is readable with ``numpy.load(path, allow_pickle=False)``.
        """
        meta = json.dumps(self._meta(), default=_json_default)
        arrays = {name: getattr(self, name) for name in FIELDS}
        np.savez(path, __meta__=np.array(meta), **arrays)

    # ------------------------------------------------------------------ validation
    def validate(self):
        """Check every invariant of the format; raise ``ValueError`` naming the first
        violation. Run by :func:`load` and on unpickling, so that no kernel ever sees
        an inconsistent tree (numba does not check bounds)."""
        _validate(self)
        return self


def load(path):
    """Read a tree written by :meth:`Tree.save` (or a forest written by
    :meth:`fastdt.ensemble.Forest.save`), validating it completely.

    Raises ``ValueError`` for anything that is not a valid fastdt model file
    (damaged, truncated, wrong version, inconsistent arrays).
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            contents = {key: data[key] for key in data.files}
    except FileNotFoundError:
        raise
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, RuntimeError) as exc:
        raise ValueError(f"{path!s} is not a readable fastdt model file: {exc}") from exc
    except Exception as exc:  # zlib.error and other decoder failures of damaged files
        raise ValueError(f"{path!s} is not a readable fastdt model file: {exc!r}") from exc
    if "__offsets__" in contents:  # a forest (fastdt.ensemble.Forest)
        from .ensemble.forest import forest_from_contents

        return forest_from_contents(contents, str(path))
    return _from_contents(contents, str(path))


def _from_contents(contents, where):
    missing = [k for k in ("__meta__", *FIELDS) if k not in contents]
    not_arrays = [k for k, v in contents.items() if not isinstance(v, np.ndarray)]
    if not_arrays:
        raise ValueError(
            f"{where}: not a fastdt model file (entries {', '.join(not_arrays)} are not arrays)"
        )
    if missing:
        raise ValueError(f"{where}: not a fastdt model file (missing {', '.join(missing)})")
    meta_arr = contents["__meta__"]
    if meta_arr.ndim != 0 or meta_arr.dtype.kind != "U":
        raise ValueError(f"{where}: metadata must be one string")
    try:
        meta = json.loads(str(meta_arr))
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{where}: metadata is not valid JSON ({exc})") from exc
    if not isinstance(meta, dict):
        raise ValueError(f"{where}: metadata must be a JSON object")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{where}: format_version {meta.get('format_version')!r} is not supported "
            f"(this fastdt reads version {FORMAT_VERSION})"
        )
    for key in ("task", "n_features", "classes", "feature_names", "criterion", "params"):
        if key not in meta:
            raise ValueError(f"{where}: metadata lacks {key!r}")
    if not isinstance(meta["params"], dict):
        raise ValueError(f"{where}: metadata 'params' must be an object")
    n_features = meta["n_features"]
    if not isinstance(n_features, int) or isinstance(n_features, bool):
        raise ValueError(f"{where}: n_features must be an integer")
    names = meta["feature_names"]
    if names is not None and not (isinstance(names, list) and all(isinstance(v, str) for v in names)):
        raise ValueError(f"{where}: feature_names must be null or a list of strings")
    categories = meta.get("categories")  # absent in files written before categories
    if categories is not None and not (
        isinstance(categories, list) and all(
            c is None or (isinstance(c, list) and all(
                isinstance(v, (str, int, float, bool)) for v in c))
            for c in categories)):
        raise ValueError(f"{where}: categories must be null or a list of null or level lists")
    if not isinstance(meta["task"], str) or not (meta["criterion"] is None or isinstance(meta["criterion"], str)):
        raise ValueError(f"{where}: task must be one of {TASKS}; criterion a string")
    n_outputs = meta.get("n_outputs", 1)  # absent in files written before several outputs
    if (not isinstance(n_outputs, int) or isinstance(n_outputs, bool)
            or not 1 <= n_outputs <= 2**20):
        raise ValueError(f"{where}: n_outputs must be a positive integer")
    enc = meta["classes"]
    if n_outputs > 1 and enc is not None:
        if not isinstance(enc, list) or len(enc) != n_outputs:
            raise ValueError(f"{where}: classes must be one entry per output")
        classes = [_decode_classes(c, where) for c in enc]
        if any(c is None for c in classes):
            raise ValueError(f"{where}: classes must be one entry per output")
    else:
        classes = _decode_classes(enc, where)
    tree = Tree(
        {k: contents[k] for k in FIELDS},
        task=meta["task"],
        n_features=n_features,
        classes=classes,
        n_outputs=n_outputs,
        feature_names=meta["feature_names"],
        categories=categories,
        criterion=meta["criterion"],
        params=meta["params"],
    )
    return tree.validate()


# ---------------------------------------------------------------------- helpers


def _writeable(a):
    """Read-only arrays (e.g. a memory-mapped pickle) are another numba type: copy them,
    so that every tree has the one TreeArrays type and kernels compile once."""
    if isinstance(a, np.ndarray) and not a.flags.writeable:
        return a.copy()
    return a


def _json_default(obj):
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"cannot store {type(obj).__name__} in the model metadata")


def _encode_classes(classes):
    if classes is None:
        return None
    values = classes.tolist()
    for v in values:
        if not isinstance(v, (str, int, float, bool)):
            raise TypeError(
                f"class label {v!r} of type {type(v).__name__} cannot be saved; "
                "use str, int, float or bool labels"
            )
    return {"dtype": classes.dtype.str if classes.dtype != object else "object", "values": values}


def _decode_classes(enc, where):
    if enc is None:
        return None
    if not isinstance(enc, dict) or not isinstance(enc.get("values"), list):
        raise ValueError(f"{where}: malformed classes")
    dtype = enc.get("dtype")
    try:
        dt = np.dtype(object if dtype == "object" else dtype)
        if dt.kind not in "biufUO":
            raise TypeError(dtype)
        return np.array(enc["values"], dtype=dt)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{where}: malformed classes ({exc})") from exc


def _fail(msg):
    raise ValueError(f"invalid tree: {msg}")


def _validate(t):
    # dtypes, shapes, contiguity
    for name, (dtype, ndim) in FIELDS.items():
        a = getattr(t, name)
        if not isinstance(a, np.ndarray):
            _fail(f"{name} is not a numpy array")
        if a.dtype != np.dtype(dtype):
            _fail(f"{name} has dtype {a.dtype}, expected {np.dtype(dtype)}")
        if a.ndim != ndim:
            _fail(f"{name} has {a.ndim} dimensions, expected {ndim}")
        if not a.flags.c_contiguous:
            _fail(f"{name} is not C-contiguous")
    if t.task not in TASKS:
        _fail(f"task must be one of {TASKS}, got {t.task!r}")
    n = t.feature.shape[0]
    if n < 1:
        _fail("a tree has at least one node")
    for name in ("threshold", "left", "right", "impurity", "n_node_samples",
                 "weighted_n_node_samples", "depth", "missing_go_left", "cat_offset"):
        if getattr(t, name).shape[0] != n:
            _fail(f"{name} has {getattr(t, name).shape[0]} entries for {n} nodes")
    if t.value.shape[0] != n or t.value.shape[1] < 1:
        _fail(f"value has shape {t.value.shape} for {n} nodes")
    nf = t.n_features
    if nf < 1:
        _fail("n_features must be at least 1")
    if t.n_categories.shape[0] != nf:
        _fail(f"n_categories has {t.n_categories.shape[0]} entries for {nf} features")
    if t.feature_names is not None:
        if len(t.feature_names) != nf or not all(isinstance(s, str) for s in t.feature_names):
            _fail("feature_names must be n_features strings")
    if not isinstance(t.n_outputs, int) or t.n_outputs < 1:
        _fail("n_outputs must be a positive integer")
    if t.task == "classification" and t.n_outputs > 1:
        if (not isinstance(t.classes, list) or len(t.classes) != t.n_outputs
                or not all(isinstance(c, np.ndarray) and c.ndim == 1 and c.shape[0] >= 1
                           for c in t.classes)
                or sum(c.shape[0] for c in t.classes) != t.value.shape[1]):
            _fail("a classification tree with several outputs needs one array of class "
                  "labels per output, one label per value column")
    elif t.task == "classification":
        if (not isinstance(t.classes, np.ndarray) or t.classes.ndim != 1
                or t.classes.shape[0] != t.value.shape[1]):
            _fail("classification trees need one class label per value column")
    elif t.classes is not None or t.value.shape[1] != t.n_outputs:
        _fail("regression trees have one value column per output and no classes")

    # structure: breadth-first ids, children as the format says
    leaf = t.left == LEAF
    internal = ~leaf
    if np.any(t.right[leaf] != LEAF) or np.any(t.feature[leaf] != LEAF):
        _fail("leaves must have right == feature == -1")
    ids = np.flatnonzero(internal)
    lefts = t.left[internal].astype(np.int64)
    counts = t.right[internal].astype(np.int64) - lefts + 1
    if np.any(counts < 2):
        _fail("an internal node has at least two children (right[i] > left[i]): left "
              "children and right children disagree")
    # the children of the internal nodes, in id order, are 1, 2, 3, ...
    if not np.array_equal(lefts, np.cumsum(counts) - counts + 1):
        _fail("left children of internal nodes must follow the children of the previous "
              "internal node in id order (1, 3, 5, ... in a binary tree)")
    if np.any(lefts <= ids):
        _fail("a child id must be larger than its parent's id")
    if n != 1 + int(counts.sum()):
        _fail(f"{n} nodes are not the root and the children of {ids.shape[0]} internal nodes")
    f = t.feature[internal]
    if np.any((f < 0) | (f >= nf)):
        _fail("feature ids out of range [0, n_features)")
    if t.depth[0] != 0:
        _fail("root depth must be 0")
    parent = np.repeat(ids, counts)  # of nodes 1 .. n - 1
    if np.any(t.depth[1:] != t.depth[parent] + 1):
        _fail("child depth must be parent depth + 1")
    if np.any(t.missing_go_left > 1):
        _fail("missing_go_left must be 0 or 1")

    if not np.all(np.isnan(t.threshold[leaf])):
        _fail("threshold must be NaN at leaves")
    children = np.add.reduceat(t.n_node_samples[1:], lefts - 1) if ids.shape[0] else lefts
    if t.params.get("missing") == "fractional":  # rows missing a value reach both children
        if np.any(t.n_node_samples[ids] > children):
            _fail("n_node_samples of a node must be at most the sum of its children's")
    elif np.any(t.n_node_samples[ids] != children):
        _fail("n_node_samples of a node must be the sum of its children's")

    # values
    if not np.all(np.isfinite(t.value)):
        _fail("value must be finite")
    if t.task == "classification":
        off = t.value_offsets
        sums = np.add.reduceat(t.value, off[:-1], axis=1)  # each output's fractions
        if np.any(t.value < 0) or not np.allclose(sums, 1.0, rtol=0, atol=1e-9):
            _fail("class fractions in value must be >= 0 and sum to 1 (per output)")
    if np.any(np.isnan(t.impurity)):
        _fail("impurity must not be NaN")
    if np.any(t.n_node_samples < 0):
        _fail("n_node_samples must be >= 0")
    w = t.weighted_n_node_samples
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        _fail("weighted_n_node_samples must be finite and >= 0")

    # categorical splits
    ncat = t.n_categories
    if np.any(ncat < 0):
        _fail("n_categories must be >= 0")
    off = t.cat_offset
    if np.any(off[leaf] != -1):
        _fail("cat_offset must be -1 at leaves")
    is_cat = off[internal] >= 0
    if np.any(off[internal][~is_cat] != -1):
        _fail("cat_offset must be -1 or a valid offset")
    if np.any((ncat[f] == 0) & is_cat):
        _fail("category sets split categorical features only (numeric features are "
              "split by thresholds)")
    multi = (ncat[f] > 0) & ~is_cat  # multiway: one child per category
    if np.any(counts[~multi] != 2):
        _fail("threshold and category-set splits have two children")
    if np.any(counts[multi] != ncat[f[multi]]):
        _fail("a multiway split has one child per category of its feature")
    if not np.all(np.isnan(t.threshold[internal][multi])):
        _fail("threshold must be NaN at multiway splits")
    thr = t.threshold[internal][~is_cat & ~multi]
    # +inf: every present value goes left, missing values right (scikit-learn's split)
    if np.any(np.isnan(thr) | (thr == -np.inf)):
        _fail("numeric split thresholds must be finite or +inf")
    if t.categories is not None:
        if len(t.categories) != nf:
            _fail(f"categories has {len(t.categories)} entries for {nf} features")
        sizes = np.array([0 if c is None else len(c) for c in t.categories])
        if np.any(sizes != ncat):
            _fail("categories must list n_categories levels for each categorical feature")
    elif np.any(ncat > 0):
        _fail("a tree with categorical features needs their categories")
    if np.any(is_cat):
        words = (ncat[f[is_cat]].astype(np.int64) + 63) // 64
        # compare without adding: huge offsets must not wrap around
        if np.any(off[internal][is_cat] > t.cat_bitsets.shape[0] - words):
            _fail("category bitsets out of range")

    # surrogate splits
    ptr = t.surrogate_ptr
    ns = t.surrogate_feature.shape[0]
    if (ptr.shape[0] != n + 1 or ptr[0] != 0 or ptr[-1] != ns or np.any(ptr < 0)
            or np.any(ptr > ns) or np.any(ptr[1:] < ptr[:-1])):
        _fail("surrogate_ptr must be n + 1 non-decreasing offsets from 0 to n_surrogates")
    if t.surrogate_threshold.shape[0] != ns or t.surrogate_left_if_le.shape[0] != ns:
        _fail("surrogate arrays must have the same length")
    if np.any(ptr[1:][leaf] != ptr[:-1][leaf]) or np.any(
            ptr[ids[multi] + 1] != ptr[ids[multi]]):
        _fail("leaves and multiway splits have no surrogate splits")
    sf = t.surrogate_feature
    if np.any((sf < 0) | (sf >= nf)) or np.any(ncat[sf] > 0):
        _fail("surrogate features must be numeric feature ids")
    if not np.all(np.isfinite(t.surrogate_threshold)) or np.any(t.surrogate_left_if_le > 1):
        _fail("surrogate thresholds must be finite, left_if_le 0 or 1")


_SMALL_BFS = 512  # nodes: below, bfs_order walks a list (a boosting tree's 61 nodes)


def bfs_order(left, right):
    """Breadth-first order of the nodes reachable from node 0: ``order[new_id] = old_id``
    (the children of a node are ``left`` to ``right``)."""
    if left.shape[0] <= _SMALL_BFS:  # a queue of Python ints: no numpy call per level
        lefts, rights = left.tolist(), right.tolist()
        queue = [0]
        for node in queue:  # the queue grows while it is read
            if lefts[node] != LEAF:
                queue.extend(range(lefts[node], rights[node] + 1))
        return np.array(queue, dtype=np.int64)
    order = [np.zeros(1, dtype=np.int64)]
    level = order[0]
    while True:
        inner = level[left[level] != LEAF]
        if not inner.shape[0]:
            break
        first = left[inner].astype(np.int64)
        counts = right[inner].astype(np.int64) - first + 1
        starts = np.cumsum(counts) - counts
        level = np.repeat(first - starts, counts) + np.arange(int(counts.sum()))
        order.append(level)
    return np.concatenate(order)


def binary_only(tree, what):
    """A ``ValueError`` naming ``what`` if ``tree`` has multiway splits (ID3/C4.5):
    for the tools that read binary trees only."""
    if multiway_mask(tree).any():
        raise ValueError(f"{what} reads binary trees only; this tree has multiway "
                         "splits (ID3/C4.5: one child per category). C4.5 trees are "
                         "pruned as they are fitted (prune, confidence)")


def multiway_mask(t):
    """bool [n]: which nodes of tree (or TreeArrays) ``t`` are multiway splits (a
    categorical feature without a category set: one child per category)."""
    internal = t.left != LEAF
    f = np.where(internal, t.feature, 0)
    return internal & (t.cat_offset < 0) & (t.n_categories[f] > 0)


def empty_extras(n_nodes, n_features):
    """The categorical and surrogate arrays of a tree that uses neither."""
    return {
        "cat_offset": np.full(n_nodes, -1, dtype=np.int64),
        "cat_bitsets": np.zeros(0, dtype=np.uint64),
        "n_categories": np.zeros(n_features, dtype=np.int32),
        "surrogate_ptr": np.zeros(n_nodes + 1, dtype=np.int64),
        "surrogate_feature": np.zeros(0, dtype=np.int32),
        "surrogate_threshold": np.zeros(0, dtype=np.float64),
        "surrogate_left_if_le": np.zeros(0, dtype=np.uint8),
    }

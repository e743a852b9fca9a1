"""Every check and conversion that happens before a kernel runs.

numba does not check bounds, so nothing invalid may reach a kernel: parameters are
checked against one declarative table (:data:`PARAMS`), data is converted once to the
dtypes named in ``_config`` (never modified in place), and every ``ValueError`` /
``TypeError`` about user input is raised from this module or, for ``X`` (columns,
categories, missing values), from :mod:`fastdt._columns`, whose checks it re-exports.
"""

import numbers
import warnings
from math import ceil

import numpy as np

from . import _memo
from ._config import (
    CODE_DTYPE, CRITERIA_CLF, CRITERIA_REG, MAX_BINS_LIMIT, MISSING_STRATEGIES, WEIGHT_DTYPE,
)
from ._columns import (  # noqa: F401  (X's checks, re-exported: one place for every input check)
    NumericLookingColumnWarning, categorical_mask, check_X, check_X_fit, check_X_predict,
    check_X_sparse_fit, feature_names_of, n_categories_of,
)


class DataConversionWarning(UserWarning):
    """Input data was converted in a way the user may not expect (e.g. a column y)."""


class NotFittedError(ValueError, AttributeError):
    """An estimator was used before ``fit``."""


# --------------------------------------------------------------------- parameters


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def _is_real(v):
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _int_at_least(lo):
    def check(v):
        return _is_int(v) and v >= lo
    check.text = f"an int >= {lo}"
    return check


def _none_or(inner):
    def check(v):
        return v is None or inner(v)
    check.text = f"None or {inner.text}"
    return check


def _check_min_samples_split(v):
    return (_is_int(v) and v >= 2) or (_is_real(v) and not _is_int(v) and 0.0 < v <= 1.0)


_check_min_samples_split.text = "an int >= 2 or a float in (0, 1]"


def _check_min_samples_leaf(v):
    return (_is_int(v) and v >= 1) or (_is_real(v) and not _is_int(v) and 0.0 < v < 1.0)


_check_min_samples_leaf.text = "an int >= 1 or a float in (0, 1)"


def _real_in(lo, hi):
    def check(v):
        return _is_real(v) and np.isfinite(v) and lo <= v <= hi
    check.text = f"a number in [{lo}, {hi}]"
    return check


def _check_max_features(v):
    return (v is None or v in ("sqrt", "log2") or (_is_int(v) and v >= 1)
            or (_is_real(v) and not _is_int(v) and 0.0 < v <= 1.0))


_check_max_features.text = "None, 'sqrt', 'log2', an int >= 1 or a float in (0, 1]"


def _check_random_state(v):
    return (v is None or _is_int(v) or isinstance(v, (np.random.RandomState, np.random.Generator)))


_check_random_state.text = "None, an int, a numpy RandomState or Generator"


def _check_class_weight(v):
    return (v is None or (isinstance(v, str) and v == "balanced") or isinstance(v, dict)
            or (isinstance(v, (list, tuple)) and all(isinstance(d, dict) for d in v)))


_check_class_weight.text = ("None, 'balanced', a dict {label: weight}, or a list of such "
                            "dicts (one per output)")


def _check_task(v):
    return v is None or v in ("classification", "regression")


_check_task.text = "None, 'classification' or 'regression'"


def _check_criterion(v):
    return v is None or v in CRITERIA_CLF or v in CRITERIA_REG


_check_criterion.text = "None or one of " + ", ".join(
    repr(c) for c in [*CRITERIA_CLF, *CRITERIA_REG]
)

def _check_splitter(v):
    return v is None or v in ("best", "random", "hist")


_check_splitter.text = "None, 'best' (exact), 'random' (extremely randomised) or 'hist' (histogram)"


def _check_max_bins(v):
    return v is None or (_is_int(v) and 2 <= v <= MAX_BINS_LIMIT)


_check_max_bins.text = f"None or an int in [2, {MAX_BINS_LIMIT}]"

def _check_missing(v):
    return isinstance(v, str) and v in MISSING_STRATEGIES


_check_missing.text = "one of " + ", ".join(repr(m) for m in MISSING_STRATEGIES)


def _check_categorical_features(v):
    # the entries are checked against X by categorical_mask
    return v is None or isinstance(v, (list, tuple, np.ndarray)) or hasattr(v, "__array__")


_check_categorical_features.text = "None or a list of indices, names or a boolean mask"

def _check_monotonic_cst(v):
    # the length and the values are checked against X by monotonic_constraints
    return v is None or isinstance(v, (list, tuple, np.ndarray)) or hasattr(v, "__array__")


_check_monotonic_cst.text = "None or an array-like of -1, 0 or 1 per feature"


def monotonic_constraints(cst, n_features, n_categories, classes, mode):
    """``monotonic_cst`` as the kernels take it: None, or int8 [F] (for classification
    flipped to class 0, as scikit-learn does); scikit-learn's errors and wording."""
    if cst is None:
        return None
    arr = np.asarray(cst)
    if arr.ndim != 1 or arr.shape[0] != n_features:
        raise ValueError(f"monotonic_cst has shape {arr.shape} but the input data X has "
                         f"{n_features} features.")
    if not np.all(np.isin(arr, (-1, 0, 1))):
        raise ValueError("monotonic_cst must be None or an array-like of -1, 0 or 1, but "
                         f"got {np.unique(arr)}")
    arr = arr.astype(np.int8)
    bad = np.flatnonzero((arr != 0) & (np.asarray(n_categories) > 0))
    if bad.shape[0]:
        raise ValueError(f"monotonic_cst constrains categorical feature(s) {bad.tolist()}; "
                         "categories have no order: use 0 for them")
    if mode != 0 and np.any(arr != 0):
        raise ValueError("monotonic_cst needs missing='learn' (rows missing a feature "
                         "follow one learned side)")
    if classes is not None:
        if len(classes) > 2:
            raise ValueError("Monotonicity constraints are not supported with multiclass "
                             "classification")
        arr = -arr  # the kernels constrain class 0's fraction
    return arr if np.any(arr != 0) else None


# name -> (default, check); the single source of fit parameters and their defaults.
PARAMS = {
    "task": (None, _check_task),
    "criterion": (None, _check_criterion),
    "max_depth": (None, _none_or(_int_at_least(1))),
    "min_samples_split": (2, _check_min_samples_split),
    "min_samples_leaf": (1, _check_min_samples_leaf),
    "min_weight_fraction_leaf": (0.0, _real_in(0.0, 0.5)),
    "max_features": (None, _check_max_features),
    "random_state": (None, _check_random_state),
    "max_leaf_nodes": (None, _none_or(_int_at_least(2))),
    "min_impurity_decrease": (0.0, _real_in(0.0, np.inf)),
    "class_weight": (None, _check_class_weight),
    "splitter": (None, _check_splitter),
    "max_bins": (None, _check_max_bins),
    "categorical_features": (None, _check_categorical_features),
    "missing": ("learn", _check_missing),
    "max_surrogates": (5, _int_at_least(0)),
    "ccp_alpha": (0.0, _real_in(0.0, np.inf)),
    "monotonic_cst": (None, _check_monotonic_cst),
}


def check_params(params):
    """Fill defaults and check every fit parameter; returns a new dict."""
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise TypeError(
            f"unknown parameter(s) {', '.join(map(repr, unknown))}; "
            f"valid parameters are {', '.join(PARAMS)}"
        )
    out = {}
    for name, (default, check) in PARAMS.items():
        value = params.get(name, default)
        try:
            ok = check(value)
        except TypeError:  # e.g. comparing an unhashable value with strings
            ok = False
        if not ok:
            raise ValueError(f"{name}={value!r} is invalid: {name} must be {check.text}")
        out[name] = value
    if out["criterion"] is not None and out["task"] is not None:
        wanted = CRITERIA_CLF if out["task"] == "classification" else CRITERIA_REG
        if out["criterion"] not in wanted:
            raise ValueError(
                f"criterion={out['criterion']!r} does not apply to task={out['task']!r}; "
                f"use one of {', '.join(map(repr, wanted))}"
            )
    return out


def resolve_limits(p, n_samples, n_features, sample_weight):
    """Turn fit parameters into the absolute numbers the driver needs (as scikit-learn)."""
    max_depth = np.iinfo(np.int32).max if p["max_depth"] is None else int(p["max_depth"])
    msl = p["min_samples_leaf"]
    msl = int(msl) if _is_int(msl) else int(ceil(msl * n_samples))
    mss = p["min_samples_split"]
    mss = int(mss) if _is_int(mss) else max(2, int(ceil(mss * n_samples)))
    mss = max(mss, 2 * msl)
    mf = p["max_features"]
    if mf is None:
        max_features = n_features
    elif mf == "sqrt":
        max_features = max(1, int(np.sqrt(n_features)))
    elif mf == "log2":
        max_features = max(1, int(np.log2(n_features)))
    elif _is_int(mf):
        if mf > n_features:
            raise ValueError(
                f"max_features={mf} is larger than the number of features ({n_features})"
            )
        max_features = int(mf)
    else:
        max_features = max(1, int(mf * n_features))
    min_weight_leaf = p["min_weight_fraction_leaf"] * float(np.sum(sample_weight))
    max_leaf_nodes = -1 if p["max_leaf_nodes"] is None else int(p["max_leaf_nodes"])
    return dict(
        max_depth=max_depth, min_samples_split=mss, min_samples_leaf=msl,
        min_weight_leaf=min_weight_leaf, max_features=max_features,
        max_leaf_nodes=max_leaf_nodes,
        min_impurity_decrease=float(p["min_impurity_decrease"]),
    )


def seed_from(random_state):
    """A uint64 seed for the kernels' generator from a scikit-learn style random_state."""
    if random_state is None:
        return np.uint64(np.random.randint(1, 2**31 - 1))
    if isinstance(random_state, np.random.RandomState):
        return np.uint64(random_state.randint(1, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return np.uint64(random_state.integers(1, 2**63 - 1))
    return np.uint64(int(random_state) % (2**64))


def infer_task(y, task, criterion):
    """Task from an explicit ``task``, else from ``criterion``, else from ``y``'s dtype:
    floating-point ``y`` means regression; ints, bools, strings and categories mean
    classification."""
    if task is not None:
        return task
    if criterion is not None:
        return "classification" if criterion in CRITERIA_CLF else "regression"
    kind = getattr(getattr(y, "dtype", None), "kind", None)
    if kind is None:
        kind = np.asarray(y).dtype.kind
    return "regression" if kind == "f" else "classification"


def is_sparse(a):
    """A scipy.sparse matrix or array (scipy is not imported to tell)."""
    return type(a).__module__.startswith("scipy.sparse")


def _column_y(y, n):
    if is_sparse(y):  # scikit-learn's words and exception type
        raise TypeError("Sparse data was passed for y, but dense data is required. Use "
                        "'.toarray()' to convert to a dense numpy array.")
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change "
            "the shape of y to (n_samples,), for example using ravel().",
            DataConversionWarning, stacklevel=4,
        )
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, or 2-D (n_samples, n_outputs) for several outputs; "
                         f"got shape {y.shape}")
    if y.shape[0] != n:
        raise ValueError(f"X has {n} samples but y has {y.shape[0]}; they must match")
    return y


def output_columns(y, n):
    """The columns of a ``y`` with several outputs (shape ``(n, K)``, ``K >= 2``; a
    DataFrame keeps each column's dtype), or None for one output."""
    if y is None or is_sparse(y):
        return None
    if hasattr(y, "columns") and hasattr(y, "iloc"):  # a DataFrame
        if y.shape[1] < 2:
            return None
        if y.shape[0] != n:
            raise ValueError(f"X has {n} samples but y has {y.shape[0]}; they must match")
        return [y.iloc[:, k].to_numpy() for k in range(y.shape[1])]
    a = np.asarray(y)
    if a.ndim != 2 or a.shape[1] < 2:
        return None
    if a.shape[0] != n:
        raise ValueError(f"X has {n} samples but y has {a.shape[0]}; they must match")
    return [a[:, k] for k in range(a.shape[1])]


def check_y_classification(y, n):
    """Class labels -> ``(classes, codes int32)``. Labels may be ints, strings, bools, ...

    ``classes`` is what ``np.unique(y)`` returns (sorted, of ``y``'s dtype once ``y`` is
    an array: an object array for strings in an object array or a pandas Series) and
    ``codes`` the positions of the labels in it. The common label types take a path that
    never sorts or visits every label in Python (a few milliseconds for 10^6 labels):
    ints, bools and whole floats of a small range through ``np.bincount``, an object
    array of ``str``/``int``/``bool`` through a hash table (:func:`pandas.factorize`) and
    checks on its few distinct values; every other input (and every error) goes through
    ``np.unique`` and checks of every label, with the same results.
    """
    if y is None:
        raise ValueError("y is None; a classifier requires y to be passed")
    y = _column_y(y, n)
    kind = y.dtype.kind
    if kind == "c":
        raise ValueError("Complex data not supported")
    if kind == "f":
        if not np.all(np.isfinite(y)):
            raise ValueError("Input y contains NaN or infinity")
        if np.any(y != np.round(y)):
            raise ValueError(
                "Unknown label type: continuous. A classifier needs discrete labels; "
                "use task='regression' (or DecisionTreeRegressor) for a continuous target"
            )
    fast = None
    if kind == "b":
        fast = _bool_labels(y)
    elif kind in "iuf":
        fast = _integral_labels(y)
    elif kind == "O":  # strings: a refit on the same labels takes them as kept
        fast = _memo.recall("labels", (y,))
        if fast is None:
            fast = _object_labels(y)
            if fast is not None:
                _memo.keep("labels", (y,), fast)
    if fast is not None:
        return fast
    if y.dtype == object:
        _check_object_labels(y)
    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError as exc:
        raise ValueError(f"class labels cannot be ordered: {exc}") from exc
    return classes, codes.astype(CODE_DTYPE).ravel()


def _check_object_labels(labels):
    """The missing and mixed-type checks of labels in an object array (every label, or
    only the distinct ones: a string never equals a non-string, so both see the same
    kinds)."""
    if any(v is None or (isinstance(v, float) and np.isnan(v)) for v in labels):
        raise ValueError("Input y contains missing labels (None or NaN)")
    kinds = {type(v) for v in labels}
    if len({str if issubclass(k, str) else k for k in kinds}) > 1 and any(
        issubclass(k, str) for k in kinds
    ):
        raise ValueError("y mixes string and non-string labels; use one label type")


def _bool_labels(y):
    has_true = bool(y.any())
    has_false = not bool(y.all())
    classes = np.array([False, True])[[has_false, has_true]]
    if has_true and has_false:
        codes = y.astype(CODE_DTYPE).ravel()
    else:
        codes = np.zeros(y.shape[0], dtype=CODE_DTYPE)
    return classes, codes


# the largest span (max - min + 1) of integral labels counted by np.bincount, beyond
# the number of labels: the count and lookup arrays stay O(n)
_BINCOUNT_SPAN = 1 << 16


def _integral_labels(y):
    """Ints (or whole floats) of a small range: the distinct values by counting, the
    codes by a lookup table; None when the range is too wide (np.unique sorts)."""
    if y.shape[0] == 0:
        return None
    lo, hi = y.min(), y.max()
    if y.dtype.kind == "f":
        # huge values would not round-trip through int64; -0.0 would become 0.0
        # (np.unique keeps the float it meets)
        if not (-2.0**62 <= lo and hi <= 2.0**62):
            return None
        if lo <= 0 <= hi and np.any(np.signbit(y) & (y == 0)):
            return None
    lo, hi = int(lo), int(hi)
    span = hi - lo + 1
    if span > y.shape[0] + _BINCOUNT_SPAN:
        return None
    if y.dtype == np.uint64:  # its values may exceed int64; y - lo never does
        offset = np.subtract(y, np.uint64(lo)).astype(np.intp)
    else:  # in int64: y - lo may not fit int8/int16
        offset = y.astype(np.int64)
        offset -= lo
    present = np.flatnonzero(np.bincount(offset, minlength=span))
    lookup = np.zeros(span, dtype=CODE_DTYPE)
    lookup[present] = np.arange(present.shape[0], dtype=CODE_DTYPE)
    if y.dtype == np.uint64:
        classes = present.astype(np.uint64) + np.uint64(lo)
    else:
        classes = (present.astype(np.int64) + lo).astype(y.dtype)
    return classes, lookup[offset]


# exact label types whose values hash and sort as np.unique orders them
_HASHED_LABEL_TYPES = ({str}, {int}, {bool})


def _hashed_labels(y):
    """An object array of labels as ``(codes, distinct labels)`` through a hash table
    (:func:`pandas.factorize`); None when a label is missing (None, NaN, pd.NA, NaT, ...)
    or cannot be hashed."""
    found = _string_labels(y)
    if found is not None:
        return found
    import pandas as pd

    try:
        codes, uniques = pd.factorize(y)
    except (TypeError, ValueError):  # e.g. an unhashable label
        return None
    if codes.shape[0] == 0 or codes.min() < 0:
        return None
    return codes, uniques


def _string_labels(y):
    """:func:`_hashed_labels` of labels that are all ``str``, through pandas' string hash
    table itself; None for any other labels (the table counts a label that is not a
    ``str`` as missing), or a pandas without that table. :func:`pandas.factorize` first
    checks that every label is a ``str`` to choose this table: a second pass over the
    label objects, which an Adult fit's other work has put out of the caches (0.5 of
    the 2 ms its labels took in a loop of fits)."""
    try:
        from pandas._libs.hashtable import StringHashTable

        uniques, codes = StringHashTable(8).factorize(y)
    except (ImportError, AttributeError, TypeError, ValueError):
        return None
    if not (isinstance(codes, np.ndarray) and codes.dtype.kind == "i"
            and codes.shape == y.shape and isinstance(uniques, np.ndarray)):
        return None  # another pandas' table: not what this expects
    if codes.shape[0] == 0 or codes.min() < 0:
        return None
    return codes, uniques


def _one_hashed_type(uniques):
    return {type(v) for v in uniques} in _HASHED_LABEL_TYPES


def _object_labels(y):
    """Labels in an object array: the distinct values through a hash table, the checks
    and the sort on those few; None (np.unique and checks of every label) for any other
    mix of types, or when a label is missing."""
    found = _hashed_labels(y)
    if found is None:
        return None
    codes, uniques = found
    if not _one_hashed_type(uniques):
        _check_object_labels(uniques)  # raises for strings mixed with other types
        return None
    order = np.argsort(uniques, kind="stable")
    lookup = np.empty(order.shape[0], dtype=CODE_DTYPE)
    lookup[order] = np.arange(order.shape[0], dtype=CODE_DTYPE)
    return uniques[order], lookup[codes]


def class_codes(classes, y, n):
    """Labels ``y`` as codes (int32) into a fitted tree's ``classes``; every label must
    be one of them (a label of another type never is)."""
    if y is None:
        raise ValueError("y is None; labels are needed")
    y = _column_y(y, n)
    found = _hashed_labels(y) if y.dtype == object else None
    if found is not None and _one_hashed_type(found[1]):
        # the few distinct labels looked up, when every one is a class
        codes, uniques = found
        pos, ok = _class_positions(classes, uniques)
        if ok.shape == uniques.shape and ok.all():
            return pos.astype(CODE_DTYPE)[codes]
    pos, ok = _class_positions(classes, y)
    if ok.shape != y.shape or not ok.all():
        bad = np.unique((y if ok.shape != y.shape else y[~ok]).astype(str))[:5].tolist()
        raise ValueError(f"y has labels the tree was not fitted on (not classes of the "
                         f"tree): {bad} (classes: {classes.tolist()})")
    return pos.astype(CODE_DTYPE)


def _class_positions(classes, labels):
    """``(pos, ok)``: where each label sorts into ``classes`` and whether it is there."""
    try:
        pos = np.searchsorted(classes, labels)
        pos = np.minimum(pos, classes.shape[0] - 1)
        ok = classes[pos] == labels
    except (TypeError, ValueError):  # labels of another type than the classes
        ok = np.zeros(labels.shape[0], dtype=bool)
        pos = None
    return pos, np.asarray(ok, dtype=bool)


def check_y_regression(y, n, criterion_code=None):
    if y is None:
        raise ValueError("y is None; a regressor requires y to be passed")
    y = _column_y(y, n)
    if y.dtype.kind == "c":
        raise ValueError("Complex data not supported")
    try:
        y = y.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a regression target must be numeric: {exc}") from exc
    if not np.all(np.isfinite(y)):
        raise ValueError("Input y contains NaN or infinity")
    return y


def check_sample_weight(sample_weight, n, positive_total=True):
    """``sample_weight`` as float64 [n] (None: all 1; a number: all that number), numeric,
    finite and non-negative; with ``positive_total``, of a positive sum (False: a part of
    the rows, a Dask partition, which may weigh nothing)."""
    if sample_weight is None:
        return np.ones(n, dtype=WEIGHT_DTYPE)
    if _is_real(sample_weight):
        sw = np.full(n, float(sample_weight), dtype=WEIGHT_DTYPE)
    else:
        if is_sparse(sample_weight):
            raise TypeError("Sparse data was passed for sample_weight, but dense data is "
                            "required. Use '.toarray()' to convert to a dense numpy array.")
        sw = np.asarray(sample_weight)
        if sw.ndim == 0:  # a 0-d array is not a number here, as in scikit-learn
            raise TypeError("Input should have at least 1 dimension i.e. satisfy "
                            f"`len(x.shape) > 0`, got scalar `{sw!r}` instead.")
        if sw.dtype.kind not in "biuf":
            raise ValueError(f"sample_weight must be numeric, got dtype {sw.dtype}")
        sw = sw.astype(WEIGHT_DTYPE)  # always a copy
        if sw.ndim != 1:
            raise ValueError(f"sample_weight must be 1-D, got shape {sw.shape}")
        if sw.shape[0] != n:
            raise ValueError(f"sample_weight has {sw.shape[0]} entries for {n} samples")
    if not np.all(np.isfinite(sw)):
        raise ValueError("sample_weight contains NaN or infinity")
    if np.any(sw < 0):
        raise ValueError("sample_weight must be non-negative (negative values found)")
    if positive_total and not sw.sum() > 0:
        raise ValueError("sample_weight sums to zero; at least one sample needs a positive weight")
    return sw


def class_weights_multi(class_weight, classes, codes):
    """Per-sample multipliers for several outputs: the product over outputs, as
    scikit-learn's ``compute_sample_weight`` (``class_weight`` None, 'balanced' or one
    dict per output)."""
    if class_weight is None:
        return None
    if isinstance(class_weight, dict):
        raise ValueError("with several outputs, class_weight must be 'balanced' or a list "
                         "of dicts, one per output")
    if not isinstance(class_weight, str) and len(class_weight) != len(classes):
        raise ValueError(f"class_weight has {len(class_weight)} dicts for {len(classes)} "
                         "outputs; give one per output")
    out = np.ones(codes.shape[0])
    for k in range(len(classes)):
        cw = class_weight if isinstance(class_weight, str) else class_weight[k]
        out *= class_weights(cw, classes[k], codes[:, k])
    return out


def class_weights(class_weight, classes, codes):
    """Per-sample multipliers from ``class_weight`` (None, 'balanced' or a dict)."""
    if class_weight is None:
        return None
    if isinstance(class_weight, (list, tuple)):
        raise ValueError("class_weight is a list (one dict per output), but y has one "
                         "output; give a dict")
    if class_weight == "balanced":
        counts = np.bincount(codes, minlength=len(classes)).astype(np.float64)
        per_class = codes.shape[0] / (len(classes) * counts)
    else:
        per_class = np.ones(len(classes))
        lookup = {c: k for k, c in enumerate(classes.tolist())}
        for label, weight in class_weight.items():
            key = label.item() if hasattr(label, "item") else label
            if key not in lookup:
                raise ValueError(f"class_weight names class {label!r}, which is not in y")
            if not (_is_real(weight) and np.isfinite(weight) and weight >= 0):
                raise ValueError(f"class_weight[{label!r}]={weight!r} must be a number >= 0")
            per_class[lookup[key]] = float(weight)
    return per_class[codes]

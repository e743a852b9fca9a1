"""X as the kernels take it: DataFrame columns, categorical codes and levels, NaN.

Part of the input checks (:mod:`fastdt._input` re-exports everything public here):
``X`` (an array or a pandas DataFrame) becomes one C-contiguous float32/float64 array,
categorical columns become codes 0 .. k-1 (NaN: missing) with their levels kept for
the Tree, and every ``ValueError``/``TypeError`` about ``X`` is raised here, before any
kernel runs. Fitting warns (:class:`NumericLookingColumnWarning`) when a column is
categorical only because of its text dtype but holds numbers but for a few values.
"""

import math
import numbers
import sys
import warnings

import numpy as np

from ._config import MAX_CATEGORIES


class NumericLookingColumnWarning(UserWarning):
    """A text column, categorical because of its dtype, holds numbers but for a few
    values (see :func:`_numeric_looking`): most likely a numeric column with stray
    strings that pandas read as text."""


def _is_dataframe(X):
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


def _is_sparse(X):
    return hasattr(X, "tocsr") or hasattr(X, "toarray") and hasattr(X, "nnz")


def feature_names_of(X):
    """Column names of a DataFrame when all are strings (scikit-learn's rule), else None."""
    if not _is_dataframe(X):
        return None
    names = [c for c in X.columns]
    if len(names) and all(isinstance(c, str) for c in names):
        return names
    return None


# ------------------------------------------------------------- categorical columns
#
# A categorical feature reaches the kernels as float codes 0 .. k-1 (NaN: missing); its
# levels (the category values, in code order) are stored in the Tree, so that a
# DataFrame at predict time is mapped by value, not by code. A value never seen in
# training becomes -1, which the kernels route as missing.


def _auto_categorical(dt):
    """pandas dtypes that are categorical without being named: category, object,
    string and bool."""
    import pandas as pd

    return (isinstance(dt, pd.CategoricalDtype) or dt == object
            or pd.api.types.is_string_dtype(dt) or pd.api.types.is_bool_dtype(dt))


def categorical_mask(categorical_features, n_features, names):
    """Boolean mask of the features named categorical (indices, names or a mask)."""
    mask = np.zeros(n_features, dtype=bool)
    if categorical_features is None:
        return mask
    cf = np.asarray(categorical_features)
    if cf.ndim != 1:
        raise ValueError(
            f"categorical_features must be 1-D (indices, names or a boolean mask), "
            f"got shape {cf.shape}"
        )
    if cf.size == 0:
        return mask
    if cf.dtype.kind == "b":
        if cf.shape[0] != n_features:
            raise ValueError(
                f"categorical_features as a boolean mask needs {n_features} entries "
                f"(one per feature), got {cf.shape[0]}"
            )
        return cf.copy()
    if cf.dtype.kind in "iu":
        bad = cf[(cf < 0) | (cf >= n_features)]
        if bad.size:
            raise ValueError(
                f"categorical_features index {bad[0]} is out of range for X with "
                f"{n_features} features"
            )
        mask[cf] = True
        return mask
    if cf.dtype.kind in "UO":
        if names is None:
            raise ValueError(
                "categorical_features holds names, but X has no feature names; pass a "
                "DataFrame with string column names, or column indices"
            )
        lookup = {name: j for j, name in enumerate(names)}
        for v in cf.tolist():
            if not isinstance(v, str) or v not in lookup:
                raise ValueError(f"categorical_features names {v!r}, which is not a column of X")
            mask[lookup[v]] = True
        return mask
    raise TypeError(
        f"categorical_features must hold ints, names or booleans, got dtype {cf.dtype}"
    )


def _level_kind(v):
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, str):
        return "str"
    if isinstance(v, numbers.Real):
        return "number"
    return type(v).__name__


def _python_level(v):
    return v.item() if isinstance(v, np.generic) else v


def _check_n_levels(name, n):
    if n == 0:
        raise ValueError(f"categorical column {name!r} holds no category (every value is missing)")
    if n > MAX_CATEGORIES:
        raise ValueError(
            f"categorical column {name!r} has {n} categories; at most {MAX_CATEGORIES} "
            "are supported"
        )


def _codes_column(name, values):
    """A numeric column named categorical: its values are the codes (whole numbers
    >= 0, NaN for missing). Returns ``(codes float64, levels = [0, .., k-1])``."""
    v = np.asarray(values, dtype=np.float64)
    present = v[~np.isnan(v)]
    if np.any(np.isinf(present)) or np.any(present < 0) or np.any(present != np.floor(present)):
        raise ValueError(
            f"categorical column {name!r} must hold category codes: whole numbers >= 0 "
            "(NaN for missing); pass strings or a pandas category column for other values"
        )
    n = int(present.max()) + 1 if present.size else 0
    _check_n_levels(name, n)
    return v, list(range(n))


def _levels_column(name, s):
    """A category/object/string/bool pandas column -> ``(codes float64, levels)``:
    a category column keeps its categories' order, other columns sort their values."""
    import pandas as pd

    dt = s.dtype
    if isinstance(dt, pd.CategoricalDtype):
        levels = [_python_level(v) for v in dt.categories]
        codes = s.cat.codes.to_numpy().astype(np.float64)
    else:
        values = s.to_numpy(dtype=object)
        try:  # the distinct values by hashing (missing ones: -1); the checks on them only
            first, present = pd.factorize(values, use_na_sentinel=True)
        except TypeError:  # an unhashable value: no such level (the messages below)
            first, present = None, values[~pd.isna(values)]
        kinds = sorted({_level_kind(v) for v in present})
        if len(kinds) > 1:
            raise TypeError(
                f"categorical column {name!r} mixes values of types {', '.join(kinds)}; "
                "use one type per column"
            )
        levels = sorted({_python_level(v) for v in present})
        lookup = {v: k for k, v in enumerate(levels)}
        if first is None:
            codes = np.array([lookup[_python_level(v)] if not m else -1
                              for v, m in zip(values, pd.isna(values))], dtype=np.float64)
        else:
            code_of = np.array([lookup[_python_level(v)] for v in present] + [-1],
                               dtype=np.float64)
            codes = code_of[first]  # -1 (missing) reads the last entry, -1
    bad = [v for v in levels if _level_kind(v) not in ("bool", "str", "number")]
    if bad:
        raise TypeError(
            f"categorical column {name!r} has a category {bad[0]!r} of type "
            f"{type(bad[0]).__name__}; categories must be strings, numbers or booleans"
        )
    _check_n_levels(name, len(levels))
    codes[codes < 0] = np.nan
    return codes, levels


# ------------------------------------------------ text columns that look numeric
#
# pandas reads a numeric CSV column with one stray string (a repeated header line, a
# typo, "n/a") as text, and a text column is categorical: every distinct number becomes
# an unordered category, silently. fit warns about such columns (NumericLookingColumnWarning)
# from the levels it computes anyway, so that a real text column costs a look at a few
# of its levels.

NUMERIC_MIN_NUMBERS = 10
"""A numeric-looking column has at least this many distinct numbers: with fewer, a
categorical split differs little from a threshold (and short lists of codes such as
"1".."5" are often categories on purpose)."""
NUMERIC_MAX_OTHER_LEVELS = 5
"""... at most this many distinct values that are not numbers (stray strings are few:
a header line, a typo, a missing-value marker such as "?" or "n/a")."""
NUMERIC_MAX_OTHER_LEVEL_SHARE = 0.1
"""... at most this share of its distinct values not numbers (at least 90% numbers, so
9 distinct numbers or more for each distinct stray value)."""
NUMERIC_MAX_OTHER_ROW_SHARE = 0.05
"""... and at most this share of its non-missing rows holding a value that is not a
number: text in more rows is more likely a real second kind of value than a stray."""


def _text_dtype(dt):
    """object or string dtype: categorical because of its dtype (not a category or bool
    column, which are categorical on purpose)."""
    import pandas as pd

    return not isinstance(dt, pd.CategoricalDtype) and not pd.api.types.is_bool_dtype(dt) and (
        dt == object or pd.api.types.is_string_dtype(dt))


def _is_number(v):
    """Whether a level is a finite number: a non-bool real, or a string that
    ``float()`` parses to a finite value and that ``pd.to_numeric`` parses too (ASCII,
    no ``_``): "39", " 39", "-1.5e3", "+.5"; not "nan", "inf", "", "1,000", "1_000"."""
    if isinstance(v, str):
        if not v.isascii() or "_" in v:
            return False
        try:
            v = float(v)
        except ValueError:
            return False
    elif isinstance(v, bool) or not isinstance(v, numbers.Real):
        return False
    return math.isfinite(v)


def _numeric_looking(levels, codes):
    """Whether a text column holds numbers but for a few values, from its sorted
    distinct values ``levels`` and its ``codes`` (float, NaN for missing).

    A column is *numeric-looking* when, of its distinct non-missing values, at least
    :data:`NUMERIC_MIN_NUMBERS` (10) are numbers (:func:`_is_number`), at most
    :data:`NUMERIC_MAX_OTHER_LEVELS` (5) and at most
    :data:`NUMERIC_MAX_OTHER_LEVEL_SHARE` (10%) are not, and the rows holding the values
    that are not numbers are at most :data:`NUMERIC_MAX_OTHER_ROW_SHARE` (5%) of its
    non-missing rows. A column of numbers only (held as text) qualifies too.

    Returns None, or ``(n_categories, n_rows, n_other_rows, n_others, examples)``: the
    non-missing rows, those whose value is not a number, the distinct such values and
    up to 3 of them, the most frequent first. The levels are read in order until too many are not numbers
    (numbers sort before letters), so a text column costs a few ``float()`` calls.
    """
    k = len(levels)
    if k < NUMERIC_MIN_NUMBERS:
        return None
    limit = min(NUMERIC_MAX_OTHER_LEVELS, int(k * NUMERIC_MAX_OTHER_LEVEL_SHARE))
    others = []
    for i, v in enumerate(levels):
        if not _is_number(v):
            others.append(i)
            if len(others) > limit:
                return None
    if k - len(others) < NUMERIC_MIN_NUMBERS:
        return None
    present = codes[~np.isnan(codes)].astype(np.intp)
    n_rows = present.shape[0]
    counts = np.bincount(present, minlength=k)[others]
    n_other_rows = int(counts.sum())
    if n_other_rows > NUMERIC_MAX_OTHER_ROW_SHARE * n_rows:
        return None
    by_count = sorted(range(len(others)), key=lambda i: -counts[i])  # stable: ties by value
    examples = [levels[others[i]] for i in by_count[:3]]
    return k, n_rows, n_other_rows, len(others), examples


def _short_repr(v, width=40):
    text = repr(v)
    return text if len(text) <= width else text[:width - 4] + "...'"


def _numeric_looking_message(looking, by_name):
    """The warning about numeric-looking columns ``(index, label, dtype, found)``: one
    line per column, then the two ways to resolve it (the first column as example)."""
    lines = []
    for _, col, dt, (k, n_rows, n_other_rows, n_others, examples) in looking:
        line = f"  column {col!r} (dtype {dt}, {k} categories): "
        if n_other_rows == 0:
            line += f"all {n_rows} values are numbers"
        else:
            verb = "is not a number" if n_other_rows == 1 else "are not numbers"
            shown = ", ".join(_short_repr(v) for v in examples)
            line += f"{n_other_rows} of {n_rows} values {verb}: {shown}"
            line += ", ..." if n_others > len(examples) else ""
        lines.append(line)
    one = len(looking) == 1
    it = "it" if one else "them"
    first = looking[0][1]
    named = [str(col) if by_name else j for j, col, _, _ in looking]
    return (
        ("A column" if one else f"{len(looking)} columns")
        + " of an object or string dtype "
        + ("holds" if one else "hold")
        + " numbers but for a few values; fit treats such a column as categorical "
        "(one unordered category per distinct value):\n"
        + "\n".join(lines) + "\n"
        + ("To make it numeric" if one else "To make such a column numeric")
        + f", convert it before fitting: X[{first!r}] = pd.to_numeric(X[{first!r}], "
        'errors="coerce") turns the values that are not numbers into missing values. '
        f"To keep {it} categorical, name {it} in categorical_features "
        f"(categorical_features={named!r}; --categorical on the command line), which "
        "also silences this warning."
    )


def _caller_outside_fastdt():
    """The ``stacklevel`` (for a ``warnings.warn`` in the caller) of the first frame
    outside the fastdt package: the user's call, however deep the warning is raised."""
    frame, level = sys._getframe(1), 1
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module != "fastdt" and not module.startswith("fastdt."):
            break
        frame, level = frame.f_back, level + 1
    return level


def _map_levels(s, levels):
    """Codes of a column at predict time, by value: NaN if missing, -1 if unseen."""
    import pandas as pd

    lookup = {v: k for k, v in enumerate(levels)}

    def code(v):
        try:
            return lookup.get(_python_level(v), -1)
        except TypeError:  # an unhashable value is no category
            return -1

    if isinstance(getattr(s, "dtype", None), pd.CategoricalDtype):
        # a pandas category column: each of its categories looked up once, then its codes
        # (-1 for missing) read through them, without a Python object per row (8 times
        # faster on Adult's test frame)
        code_of = np.array([code(v) for v in s.cat.categories] + [np.nan], dtype=np.float64)
        return code_of[s.cat.codes.to_numpy()]
    values = s.to_numpy(dtype=object) if hasattr(s, "to_numpy") else np.asarray(s, dtype=object)
    try:  # each distinct value looked up once
        first, distinct = pd.factorize(values, use_na_sentinel=True)
    except TypeError:
        return np.array([np.nan if m else code(v) for v, m in zip(values, pd.isna(values))])
    code_of = np.array([code(v) for v in distinct] + [np.nan], dtype=np.float64)
    return code_of[first]  # -1 (missing) reads the last entry, NaN


def _check_numeric_dtype(name, dt):
    """A column of a numeric feature must be numbers (or bools)."""
    import pandas as pd

    if _auto_categorical(dt) and not pd.api.types.is_bool_dtype(dt):
        raise TypeError(
            f"column {name!r} has dtype {dt} but is numeric in this model; "
            "it must hold numbers"
        )
    if not (pd.api.types.is_bool_dtype(dt) or pd.api.types.is_numeric_dtype(dt)):
        raise TypeError(f"column {name!r} has unsupported dtype {dt}")


def _column_dtype(s):
    dt = s.dtype
    return dt.numpy_dtype if hasattr(dt, "numpy_dtype") else np.dtype(dt)


def _frame_to_array(X, mask, categories):
    """DataFrame -> float array. Fitting: ``mask`` names the categorical features
    (dtype-categorical columns are added); predicting: ``categories`` is the tree's.
    Returns ``(array, categories)``."""
    import pandas as pd

    m = X.shape[1]
    series = [X.iloc[:, j] for j in range(m)]
    names = [str(c) for c in X.columns]
    fitting = categories is None
    if fitting:
        cat = mask | np.array([_auto_categorical(s.dtype) for s in series], dtype=bool)
    else:
        cat = np.array([c is not None for c in categories], dtype=bool)
    for j, s in enumerate(series):
        if not cat[j]:
            _check_numeric_dtype(names[j], s.dtype)
    if not cat.any():  # the fast path: one conversion of the whole frame
        dtypes = {_column_dtype(s) for s in series}
        target = np.float32 if dtypes == {np.dtype(np.float32)} else np.float64
        return X.to_numpy(dtype=target, na_value=np.nan), [None] * m
    numeric_dtypes = {_column_dtype(s) for j, s in enumerate(series) if not cat[j]}
    target = np.float32 if numeric_dtypes == {np.dtype(np.float32)} else np.float64
    out = np.empty((X.shape[0], m), dtype=target)
    levels_out = [None] * m
    looking = []  # (column, dtype, what _numeric_looking found) of numeric-looking columns
    for j, s in enumerate(series):
        name = names[j]
        if not cat[j]:
            out[:, j] = s.to_numpy(dtype=np.float64, na_value=np.nan)
            continue
        numeric = (pd.api.types.is_numeric_dtype(s.dtype)
                   and not pd.api.types.is_bool_dtype(s.dtype))
        if fitting:
            if numeric:
                codes, levels_out[j] = _codes_column(name, s.to_numpy(np.float64, na_value=np.nan))
            else:
                codes, levels_out[j] = _levels_column(name, s)
                if not mask[j] and _text_dtype(s.dtype):  # categorical by its dtype alone
                    found = _numeric_looking(levels_out[j], codes)
                    if found is not None:
                        looking.append((j, X.columns[j], s.dtype, found))
        else:
            levels = categories[j]
            if numeric and levels == list(range(len(levels))):
                codes = _predict_codes(name, s.to_numpy(np.float64, na_value=np.nan))
            else:
                codes = _map_levels(s, levels)
            levels_out[j] = levels
        out[:, j] = codes
    if looking:
        warnings.warn(_numeric_looking_message(looking, feature_names_of(X) is not None),
                      NumericLookingColumnWarning, stacklevel=_caller_outside_fastdt())
    return out, levels_out


def _predict_codes(name, v):
    """Codes given as numbers at predict time: whole numbers (any value outside the
    fitted range is routed as missing by the kernels), NaN for missing."""
    v = np.asarray(v, dtype=np.float64)
    present = v[~np.isnan(v)]
    if np.any(np.isinf(present)) or np.any(present != np.floor(present)):
        raise ValueError(
            f"categorical feature {name!r} must hold whole-number category codes "
            "(or NaN for missing)"
        )
    return v


def _array_to_array(arr, mask, categories):
    """A non-DataFrame X (as an array) -> (array, categories); categorical columns as in
    a frame."""
    if arr.dtype.kind == "c":
        raise ValueError("Complex data not supported")
    fitting = categories is None
    cat = mask if fitting else np.array([c is not None for c in categories], dtype=bool)
    if arr.ndim == 2 and cat.shape[0] == arr.shape[1] and cat.any() and arr.dtype.kind in "OUSb":
        import pandas as pd

        # only the named columns are categorical (mapped by value), whatever their dtype
        frame = pd.DataFrame(arr).astype(object)
        for j in np.flatnonzero(~cat):
            frame[j] = _to_float(frame[j].to_numpy())
        return _frame_to_array(frame, cat, categories)
    if arr.dtype.kind in "OUS":
        arr = _to_float(arr)
    elif arr.dtype.kind not in "biuf":
        raise TypeError(f"X has unsupported dtype {arr.dtype}")
    if arr.ndim == 2 and cat.shape[0] == arr.shape[1] and cat.any():
        arr = arr.astype(np.float64) if arr.dtype.kind in "biu" else arr.copy()
        levels_out = [None] * arr.shape[1]
        for j in np.flatnonzero(cat):
            if fitting:
                arr[:, j], levels_out[j] = _codes_column(f"{j}", arr[:, j])
            else:
                arr[:, j] = _predict_codes(f"{j}", arr[:, j])
                levels_out[j] = categories[j]
        return arr, levels_out
    return arr, None


def _to_float(a):
    try:
        return np.asarray(a).astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"X must be numeric; converting it to float failed: {exc}") from exc


def check_X_fit(X, categorical_features=None):
    """Convert training ``X`` (array or DataFrame) for the kernels.

    Returns ``(arr, categories, has_nan)``: ``arr`` as :func:`check_X` (categorical
    columns hold codes, NaN for missing), ``categories`` a list with, per feature,
    ``None`` (numeric) or the list of its levels (code ``k`` is ``levels[k]``), and
    whether any value is missing.
    """
    arr, categories, n_nan = _convert(X, categorical_features, None, fitting=True)
    categories = categories if categories is not None else [None] * arr.shape[1]
    return arr, categories, n_nan > 0


def check_X_sparse_fit(X, categorical_features=None):
    """Convert a training ``scipy.sparse`` X to the columns the sparse splitter reads.

    Returns ``(indptr, rows, vals, n_rows)``: CSC columns without duplicates or
    explicit zeros (a stored 0.0 or -0.0 is the same value as an implicit one), int64
    ``indptr`` [F + 1], int32 row ids, values float32 or float64 (as X's dtype; other
    numeric dtypes become float64). Stored NaN means missing; infinity is an error.
    The user's matrix is never modified, and never made dense.
    """
    if categorical_features is not None and len(np.atleast_1d(categorical_features)):
        raise ValueError("categorical_features needs a dense X or a DataFrame; a sparse X "
                         "holds numeric features only")
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D array, got a {X.ndim}D sparse matrix instead")
    n, m = X.shape
    if n == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a minimum "
                         "of 1 is required.")
    if m == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape={X.shape}) while a minimum "
                         "of 1 is required.")
    if n >= 2**31 - 1:
        raise ValueError(f"sparse X has {n} rows; at most {2**31 - 2} are supported")
    dtype = X.dtype
    if dtype.kind not in "biuf":
        raise ValueError(f"sparse X must be numeric, got dtype {dtype}")
    vdtype = dtype if dtype in (np.float32, np.float64) else np.dtype(np.float64)
    C = X.tocsc(copy=True)
    C.sum_duplicates()  # canonical: sorted row ids, one entry per (row, column)
    vals = np.asarray(C.data, dtype=vdtype) + vdtype.type(0)  # -0.0 -> 0.0
    if np.isinf(vals).any():
        raise ValueError("Input X contains infinity or a value too large for its dtype")
    keep = vals != 0  # NaN is kept (missing)
    indptr = np.asarray(C.indptr, dtype=np.int64)
    rows = np.asarray(C.indices, dtype=np.int32)
    if not keep.all():
        col = np.repeat(np.arange(m), np.diff(indptr))
        counts = np.bincount(col[keep], minlength=m)
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        vals, rows = vals[keep], rows[keep]
    return indptr, np.ascontiguousarray(rows), np.ascontiguousarray(vals), n


def n_categories_of(categories):
    """Categories per feature (int32; 0 for a numeric feature) from the per-feature
    levels of :func:`check_X_fit` (None for a numeric feature)."""
    return np.array([0 if c is None else len(c) for c in categories], dtype=np.int32)


def check_X(X, *, n_features=None, feature_names=None, estimator_name=None, categories=None):
    """Convert ``X`` to a C-contiguous float32/float64 2-D array and check it.

    float32 and float64 keep their precision; every other numeric dtype becomes
    float64. NaN (and None / pandas NA in a DataFrame) means missing; infinity is an
    error. ``n_features``/``feature_names``/``categories``: what the tree was fitted
    with (predict); categorical columns are mapped to the tree's codes.
    """
    return check_X_predict(X, n_features=n_features, feature_names=feature_names,
                           estimator_name=estimator_name, categories=categories)[0]


def check_X_predict(X, *, n_features=None, feature_names=None, estimator_name=None,
                    categories=None):
    """:func:`check_X`, returning ``(arr, has_nan)``."""
    arr, _, n_nan = _convert(X, None, categories, fitting=False, n_features=n_features,
                             feature_names=feature_names, estimator_name=estimator_name)
    return arr, n_nan > 0


def _convert(X, categorical_features, categories, *, fitting, n_features=None,
             feature_names=None, estimator_name=None):
    """Fitting: X with ``categorical_features``; predicting: X for a tree with
    ``categories`` (None: every feature numeric). Returns ``(arr, categories, n_nan)``."""
    if X is None:
        raise ValueError("X is None; expected a 2-D array of shape (n_samples, n_features)")
    if _is_sparse(X):
        raise TypeError("sparse X is not supported here (fit, predict, predict_proba, "
                        "apply and decision_path take it); pass a dense array (X.toarray())")
    frame = _is_dataframe(X)
    if not frame:
        X = np.asarray(X)
    n_cols = X.shape[1] if X.ndim == 2 else None
    if not fitting and (categories is None or n_cols != len(categories)):
        # a wrong feature count is reported below
        categories = [None] * (n_cols or 0)
    if n_cols is None:
        mask = np.zeros(0, dtype=bool)
        if categorical_features is not None and len(categorical_features):
            raise ValueError("categorical_features needs a 2-D X")
    else:
        mask = categorical_mask(categorical_features, n_cols, feature_names_of(X))
    if frame:
        _check_names(feature_names_of(X), feature_names, estimator_name)
        arr, cats = _frame_to_array(X, mask, categories)
    else:
        if feature_names is not None and estimator_name is not None:
            warnings.warn(
                f"X does not have valid feature names, but {estimator_name} was fitted "
                "with feature names", UserWarning, stacklevel=4,
            )
        arr, cats = _array_to_array(X, mask, categories)
    if arr.ndim != 2:
        raise ValueError(
            f"Expected a 2D array, got a {arr.ndim}D array instead. Reshape your data "
            "with X.reshape(-1, 1) for one feature or X.reshape(1, -1) for one sample"
        )
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float32 if arr.dtype == np.float16 else np.float64)
    arr = np.ascontiguousarray(arr)
    if not arr.flags.writeable:
        # read-only input (e.g. a memmap) would compile every kernel once more; a copy
        # keeps one signature per X dtype (kernels never write to X either way)
        arr = arr.copy()
    n, m = arr.shape
    if n == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape={arr.shape}) while a minimum of 1 is required.")
    if m == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required.")
    if n_features is not None and m != n_features:
        who = estimator_name or "the tree"
        raise ValueError(f"X has {m} features, but {who} is expecting {n_features} features as input")
    from ._validate import count_missing  # numba loads with the first fit or prediction

    n_nan, n_inf = count_missing(arr)
    if n_inf:
        raise ValueError("Input X contains infinity or a value too large for its dtype")
    return arr, cats, n_nan


def _check_names(names, fitted, estimator_name):
    if fitted is None:
        if names is not None and estimator_name is not None:
            warnings.warn(
                f"X has feature names, but {estimator_name} was fitted without feature names",
                UserWarning, stacklevel=4,
            )
        return
    if names is None:
        if estimator_name is not None:
            warnings.warn(
                f"X does not have valid feature names, but {estimator_name} was fitted "
                "with feature names", UserWarning, stacklevel=4,
            )
        return
    if list(names) == list(fitted):
        return
    msg = "The feature names should match those that were passed during fit.\n"
    unexpected = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))

    def listed(items):
        out = "".join(f"- {n}\n" for n in items[:5])
        return out + ("- ...\n" if len(items) > 5 else "")

    if unexpected:
        msg += "Feature names unseen at fit time:\n" + listed(unexpected)
    if missing:
        msg += "Feature names seen at fit time, yet now missing:\n" + listed(missing)
    if not unexpected and not missing:
        msg += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(msg)

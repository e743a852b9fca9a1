"""The data of a distributed fit: its partitions, summarised, binned once and persisted.

A fit reads the user's partitions (blocks of a ``dask.array``, partitions of a
``dask.dataframe``) in three passes of tasks, each a pure function of one partition
and of what the client learnt before it:

1. :func:`summary`: rows, categories, class labels, the largest statistics and, for
   each numeric feature, its distinct values (with counts) while they are few;
2. :func:`sample` (only for features with more than ``max_bins`` distinct values):
   the rows of a sample of every partition, drawn by a hash of each row's *global*
   index, so the same rows whatever the partitioning;
3. :func:`binned`: the partition's bin codes, class codes and row statistics: the
   arrays every level reads (persisted on the workers; Dask re-creates a lost one from
   the source by running this task again).

The statistics are fixed-point: each row's statistic ``s`` of column ``c`` is rounded
to a multiple of ``2**-e[c]``, where ``e[c]`` is chosen so that the sum of every row's
``|s|`` stays below ``2**52`` units (:func:`scales`). Every sum of such numbers in
float64 is then exact, whatever the order it is added in: histograms summed per
partition, across partitions and subtracted give the same bits however the rows are
partitioned. Class counts and unit weights are whole numbers and are not rounded at
all; with targets and weights that are multiples of ``2**-e`` (integers, halves, ...)
nothing is rounded, and the tree is ``fastdt.fit``'s on the concatenated data.
"""

import numpy as np

from .._columns import _convert
from .._input import (
    check_X_fit, check_sample_weight, check_y_classification, check_y_regression, class_codes,
)

# ------------------------------------------------------------------- pass 1: summary


def _x(xb, categorical_features, categories):
    """A partition's X as the kernels take it (float, category codes), converted with
    the fit's ``categories`` (None: the partition's own, pass 1)."""
    if categories is None:
        return check_X_fit(xb, categorical_features)[:2]
    arr, _, _ = _convert(xb, None, categories, fitting=False)
    return arr, categories


def _weights(wb, n):
    """A partition's sample weights (float64; None: all 1), checked as ``fastdt.fit``
    checks them (a partition may weigh nothing: the fit checks the total)."""
    if wb is None:
        return None
    w = np.asarray(wb.to_numpy() if hasattr(wb, "to_numpy") else wb).ravel()
    return check_sample_weight(w, n, positive_total=False)


def summary(xb, yb, wb, spec):
    """What the client needs of one partition before binning (a dict): ``n``, the
    per-feature ``categories``, ``distinct`` (per numeric feature: ``(values, counts)``
    of its present values while at most ``max_bins``, else None), and of the target:
    ``classes`` with their ``counts``, or ``stat_max`` (largest ``|w t(y)|`` per
    statistic column); ``w_max`` and ``unit`` (every weight 1)."""
    import pandas as pd

    if len(xb) == 0:  # an empty partition (a filtered frame): nothing to learn from it
        return {"n": 0}
    Xa, categories = _x(xb, spec["categorical_features"], None)
    n = Xa.shape[0]
    out = {"n": n, "categories": categories, "distinct": [None] * Xa.shape[1]}
    for j, levels in enumerate(categories):
        if levels is not None:
            continue
        v = Xa[:, j].astype(np.float64) + 0.0  # -0.0 is 0.0, as the binning reads it
        v = v[~np.isnan(v)]
        if pd.unique(v[: 8 * spec["max_bins"]]).shape[0] > spec["max_bins"]:
            continue  # many values (most features): no need to count them all
        counts = pd.Series(v).value_counts(sort=False)
        if counts.shape[0] <= spec["max_bins"]:
            out["distinct"][j] = (counts.index.to_numpy(np.float64), counts.to_numpy(np.int64))
    w = _weights(wb, n)
    out["unit"] = w is None or bool(np.all(w == 1.0))
    out["w_max"] = 1.0 if w is None or n == 0 else float(w.max(initial=0.0))
    if spec["is_clf"]:
        classes, codes = check_y_classification(yb, n)
        out["classes"] = classes
        out["counts"] = np.bincount(codes, minlength=classes.shape[0]).astype(np.int64)
    else:
        y = check_y_regression(yb, n)
        out["y_min"] = float(y.min(initial=np.inf))
        out["stat_max"] = np.abs(_regression_rows(spec["crit"], y, w)).max(axis=0, initial=0.0)
    return out


def _regression_rows(crit, y, w):
    """``(w, w y, w t(y))`` of every row (:func:`fastdt._hist_build.regression_rows`)."""
    from .._hist_build import regression_rows

    rstat = np.empty((y.shape[0], 3))
    regression_rows(crit, y, np.ones(y.shape[0]) if w is None else w, rstat, np.empty(3))
    return rstat


def merge_categories(parts, dtypes):
    """The fit's categories from every partition's: a pandas category column's must be
    the same in every partition (its categories, in their order); other categorical
    columns (text, bool, codes) take the sorted union of their levels, as one frame of
    all the rows would."""
    import pandas as pd

    merged = []
    for j, first in enumerate(parts[0]):
        if first is None:
            merged.append(None)
            continue
        levels = [p[j] for p in parts]
        if dtypes is not None and isinstance(dtypes[j], pd.CategoricalDtype):
            if any(lv != first for lv in levels):
                raise ValueError(
                    f"categorical column {j} has different categories in different "
                    "partitions; give it known categories (ddf.categorize(), or "
                    "astype(pd.CategoricalDtype(categories)))")
            merged.append(first)
            continue
        try:
            merged.append(sorted(set().union(*map(set, levels))))
        except TypeError as exc:
            raise TypeError(f"categorical column {j} mixes values of different types across "
                            f"partitions: {exc}") from exc
    return merged


def merge_classes(parts):
    """``(classes, counts)``: the sorted labels of every partition, with their counts."""
    try:
        classes = np.unique(np.concatenate([p["classes"] for p in parts]))
    except TypeError as exc:
        raise ValueError(f"class labels cannot be ordered: {exc}") from exc
    counts = np.zeros(classes.shape[0], dtype=np.int64)
    for p in parts:
        counts[np.searchsorted(classes, p["classes"])] += p["counts"]
    return classes, counts


# ------------------------------------------------------------------ fixed point


def scales(stat_max, n):
    """Exponents ``e`` such that ``n`` rows of statistics at most ``stat_max`` (per
    column) sum to less than ``2**52`` units of ``2**-e``: every sum of rows rounded to
    those units is exact in float64."""
    e = np.zeros(len(stat_max), dtype=np.int64)
    for c, m in enumerate(stat_max):
        bound = float(m) * float(n)
        e[c] = 52 - int(np.frexp(bound)[1]) if bound > 0 else 0
    return e


def fixed(values, e):
    """``values`` rounded to multiples of ``2**-e`` (exactly representable). Products
    with powers of two are exact while they stay normal numbers (``|e|`` below 960
    here), and three times faster than :func:`numpy.ldexp`."""
    e = int(e)
    if abs(e) >= 960:
        return np.ldexp(np.rint(np.ldexp(values, e)), -e)
    out = np.multiply(values, 2.0 ** e)
    np.rint(out, out=out)
    out *= 2.0 ** -e
    return out


def exact_sums(values):
    """The exact sums of the columns of ``values`` (finite float64 ``[m, c]``), in a form
    that adds across partitions: ``(keys, high, low)`` (int64 arrays), where the sum of
    column ``j`` is the sum over ``keys == j * 2100 + x`` of
    ``(high * 2**26 + low) * 2**(x - 1128)``. Each value is its 53-bit mantissa times a
    power of two (:func:`numpy.frexp`); the mantissas, cut in two, are summed per column
    and exponent in whole numbers, which no order of addition changes.
    :func:`exact_total` turns any number of these into the correctly rounded sums."""
    values = np.asarray(values, dtype=np.float64)
    values = values[:, None] if values.ndim == 1 else values
    n, c = values.shape
    size = c * 2100
    high, low = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    for lo in range(0, n, 1 << 25):  # float64 sums of up to 2**25 27-bit halves: exact
        m, e = np.frexp(values[lo:lo + (1 << 25)])
        mant = np.ldexp(m, 53).astype(np.int64)  # |mant| < 2**53, value = mant 2**(e-53)
        hi = mant >> 26
        key = (np.arange(c) * 2100 + (e + 1075)).ravel()
        high += np.bincount(key, weights=hi.ravel(), minlength=size).astype(np.int64)
        low += np.bincount(key, weights=(mant - (hi << 26)).ravel(),
                           minlength=size).astype(np.int64)
    keys = np.flatnonzero((high != 0) | (low != 0))
    return keys, high[keys], low[keys]


def exact_total(parts, c):
    """The sums (float64 ``[c]``, each correctly rounded) of every value that
    :func:`exact_sums` summarised in ``parts``."""
    from fractions import Fraction

    totals = [0] * c
    for keys, high, low in parts:
        for k, h, lo in zip(keys.tolist(), high.tolist(), low.tolist()):
            j, x = divmod(k, 2100)
            totals[j] += Fraction((h << 26) + lo) * Fraction(2) ** (x - 1128)
    return np.array([float(t) for t in totals])


# ------------------------------------------------------------------- pass 2: sample


def _splitmix(x):
    """SplitMix64 of uint64 ``x`` (a hash: neighbouring indices give unrelated values)."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def sample(xb, offset, columns, rate, seed, categories):
    """The values of ``columns`` (float64, -0.0 read as 0.0) of the partition's rows
    drawn into the binning sample: row ``i`` of the data (``offset`` + its place here)
    is drawn when a hash of ``(seed, i)`` falls below ``rate`` (all rows at 1), so the
    sample does not depend on how the rows are partitioned."""
    if len(xb) == 0:
        return np.zeros((0, len(columns)))
    Xa, _ = _x(xb, None, categories)
    rows = np.arange(Xa.shape[0])
    if rate < 1.0:
        idx = np.arange(offset, offset + Xa.shape[0], dtype=np.uint64)
        h = _splitmix(idx ^ _splitmix(np.uint64(seed) + np.zeros(1, np.uint64))[0])
        rows = rows[h < np.uint64(min(rate, 1.0) * 2.0**64)]
    return Xa[rows][:, columns].astype(np.float64) + 0.0


def feature_bins_of(summaries, sampled, columns, categories, max_bins):
    """The bins ``(lo, hi, exact)`` of every feature: a categorical feature one per
    category; a numeric one with at most ``max_bins`` distinct values (over all the
    partitions) one per value, as one machine finds them from all the rows; the others
    from the sample (``sampled``: its values of ``columns``), as
    :func:`fastdt._binning.feature_bins` cuts them."""
    from .._binning import feature_bins

    bins = []
    for j, levels in enumerate(categories):
        if levels is not None:
            lv = np.arange(float(len(levels)))
            bins.append((lv, lv, False))
            continue
        found = [s["distinct"][j] for s in summaries if s["n"]]
        values = None
        if all(d is not None for d in found):
            values, inverse = np.unique(np.concatenate([d[0] for d in found]),
                                        return_inverse=True)
            if values.shape[0] > max_bins:
                values = None
            else:
                counts = np.bincount(inverse, weights=np.concatenate([d[1] for d in found]))
                bins.append(feature_bins(values, max_bins, counts.astype(np.int64)))
        if values is None:
            v = np.sort(sampled[:, columns.index(j)])
            bins.append(feature_bins(v[~np.isnan(v)], max_bins))
    return bins


# ------------------------------------------------------------------- pass 3: binned


def binned(xb, yb, wb, g):
    """One partition ready for the levels (a dict): ``codes`` (uint8/16 [F, m]) of its
    ``m`` rows of positive weight, ``ycode`` (int32 [m], classification), ``rstat``
    (float64 [m, S]: the fixed-point weights, or regression's ``(w, w y, w t(y))``; no
    columns for unweighted classification) and ``total`` (their sums per statistic)."""
    from .._binning import _bin

    if len(xb) == 0:
        return {"codes": np.zeros((len(g["categories"]), 0), dtype=g["code_dtype"]),
                "ycode": np.zeros(0, dtype=np.int32), "y": np.zeros(0), "w": None,
                "rstat": np.zeros((0, 0 if g["is_clf"] and not g["weighted"] else
                                   1 if g["is_clf"] else 3)),
                "total": np.zeros(g["n_stats"])}
    Xa, _ = _x(xb, None, g["categories"])
    n, n_features = Xa.shape
    codes = np.empty((n_features, n), dtype=g["code_dtype"])
    if n:
        _bin(Xa, np.arange(n_features, dtype=np.int64), g["bins"], codes)
    w = _weights(wb, n)
    if g["is_clf"]:
        ycode = class_codes(g["classes"], yb, n)
        if g["class_weight"] is not None:
            w = (np.ones(n) if w is None else w) * g["class_weight"][ycode]
    else:
        y = check_y_regression(yb, n)
        ycode = np.zeros(0, dtype=np.int32)
    keep = None if w is None else w > 0
    if keep is not None and not keep.all():
        codes, w = np.ascontiguousarray(codes[:, keep]), w[keep]
        ycode = ycode[keep] if g["is_clf"] else ycode
        y = y if g["is_clf"] else y[keep]
    e = g["scales"]
    if g["is_clf"]:
        rstat = np.empty((ycode.shape[0], 0)) if not g["weighted"] else fixed(w, e[0])[:, None]
        wt = None if not g["weighted"] else rstat[:, 0]
        total = np.bincount(ycode, weights=wt, minlength=g["n_stats"]).astype(np.float64)
    else:
        rstat = _regression_rows(g["crit"], y, w if g["weighted"] else None)
        for c in range(3):
            rstat[:, c] = fixed(rstat[:, c], e[c])
        total = rstat.sum(axis=0)
    return {"codes": codes, "ycode": ycode.astype(np.int32), "rstat": rstat, "total": total,
            "y": None if g["is_clf"] else y, "w": w}


def in_bag(part, offset, seed, n, n_samples, g):
    """A forest tree's rows of a binned partition (:func:`binned`, whose first row is
    row ``offset`` of the ``n`` rows of positive weight): those drawn into the tree's
    bootstrap sample, weighted by their counts (``fastdt.fit_forest``'s draws,
    :func:`fastdt.ensemble.api.in_bag_counts`, cut at this partition's rows), with
    fixed-point statistics whose unit allows ``n_samples`` draws."""
    from ..ensemble.api import in_bag_counts

    m = part["codes"].shape[1]
    counts = in_bag_counts(seed, n, n_samples)[offset:offset + m]
    keep = counts > 0
    w = counts[keep].astype(np.float64)
    if part["w"] is not None:
        w *= part["w"][keep]
    e = scales(g["stat_max"], n_samples)
    out = {"codes": np.ascontiguousarray(part["codes"][:, keep]), "y": None, "w": None}
    if g["is_clf"]:
        out["ycode"] = part["ycode"][keep]
        out["rstat"] = fixed(w, e[0])[:, None]
        out["total"] = np.bincount(out["ycode"], weights=out["rstat"][:, 0],
                                   minlength=g["n_stats"]).astype(np.float64)
    else:
        out["ycode"] = part["ycode"]
        out["rstat"] = _regression_rows(g["crit"], part["y"][keep], w)
        for c in range(3):
            out["rstat"][:, c] = fixed(out["rstat"][:, c], e[c])
        out["total"] = out["rstat"].sum(axis=0)
    return out


def totals(part):
    """``(rows, statistics)`` of a binned partition (:func:`binned`)."""
    return part["codes"].shape[1], part["total"]

"""Binning for the histogram splitter: bin edges per feature, then one pass over X.

A feature with at most ``max_bins`` distinct values gets one bin per value (values
closer than ``FEATURE_THRESHOLD`` count as one, as in the exact splitter); otherwise
its bins hold about equal numbers of rows (quantiles). Edges lie strictly between
neighbouring values, so a value ``x`` falls in bin ``k`` when
``edges[k - 1] < x <= edges[k]``: the number of edges below ``x``.

Edges are found on a random subsample of rows (``subsample``, as LightGBM and
scikit-learn's HistGradientBoosting do). Each bin keeps the smallest and largest
sampled value in it (``lo``, ``hi``); the edge between bins ``k`` and ``k + 1`` is
``split_threshold(hi[k], lo[k + 1])``, the exact splitter's threshold rule, and the
splitter places a threshold between non-empty bins ``k < j`` the same way from
``hi[k]`` and ``lo[j]``: every training row stays on its side, and with one bin per
distinct value the thresholds are exactly the exact splitter's. A feature whose rows
hold values the subsample missed, while it had few enough values for one bin per
value, is binned again from all its rows: with ``max_bins`` at least the number of
distinct values, every bin is one value and hist grows the exact splitter's tree.
"""

import numpy as np

from ._config import FEATURE_THRESHOLD, ID_DTYPE
from ._exact_scan import gather_rows
from ._jit import JIT
from ._parallel import n_threads, run

_BLOCK = 1024  # rows per block: a block of X stays in cache while each feature is binned


def distinct_groups(sorted_values, mult=None):
    """Groups of neighbouring sorted values closer than ``FEATURE_THRESHOLD`` (equal
    values included): ``(first, last, count)`` of each group. ``mult``: how many rows
    each value stands for (a sparse column's zero stands for all its implicit zeros)."""
    v = sorted_values
    if v.shape[0] == 0:
        return v, v, np.zeros(0, dtype=np.int64)
    new = np.empty(v.shape[0], dtype=bool)  # (np.r_ costs more than the work here)
    new[0] = True
    np.greater(v[1:], v[:-1] + FEATURE_THRESHOLD, out=new[1:])
    starts = np.flatnonzero(new)
    bounds = np.append(starts, v.shape[0])
    if mult is not None:
        return v[starts], v[bounds[1:] - 1], np.add.reduceat(mult, starts)
    return v[starts], v[bounds[1:] - 1], np.diff(bounds)


def thresholds(x0, x1):
    """:func:`fastdt._criteria.split_threshold` of each pair of neighbouring values
    ``x0 < x1`` (float64 arrays), in numpy: the same bits."""
    thr = x0 / 2.0 + x1 / 2.0
    return np.where(thr >= x1, x0, thr)


def feature_bins(sorted_values, max_bins, mult=None):
    """Bins of one feature from its sorted (sample of) present values (no NaN; ``mult``
    as :func:`distinct_groups`).

    Returns ``(lo, hi, exact)``: the smallest and largest value of each bin, and
    whether every bin is one group of values (one bin per value). Edges follow as
    ``split_threshold(hi[k], lo[k + 1])``.
    """
    first, last, counts = distinct_groups(sorted_values, mult)
    n_groups = first.shape[0]
    if n_groups <= max_bins:
        return first, last, True
    # cut after the group where the running count crosses each quantile
    cum = np.cumsum(counts)
    targets = cum[-1] * np.arange(1, max_bins) / max_bins
    cut = np.unique(np.searchsorted(cum, targets, side="left"))
    cut = cut[cut < n_groups - 1]
    lo = first[np.r_[0, cut + 1]]
    hi = last[np.r_[cut, n_groups - 1]]
    return lo, hi, False


def numeric_bins(X, rows, columns, max_bins, bins):
    """``bins[f]`` (:func:`feature_bins`) of each feature ``f`` of ``columns`` from the
    values ``X[rows, f]`` (``rows`` None: every row), NaN left out and -0.0 read as 0.0.

    The sampled rows are gathered once, feature by feature, on threads
    (:func:`fastdt._exact_scan.gather_rows`: one fetch per row of X). Each feature is
    then sorted in X's dtype (widened to float64 after: the same values in the same
    order) and cut, on threads over features: numpy's sort and the numpy calls of
    :func:`feature_bins` release the GIL.
    """
    sample = X.T  # every row: each feature is read from X
    if rows is not None:
        sample = np.empty((X.shape[1], rows.shape[0]), dtype=X.dtype)
        run(gather_rows, rows.shape[0], sample.size, X, rows.astype(ID_DTYPE), sample)

    def cut(lo, hi):
        for f in columns[lo:hi]:
            v = np.sort(sample[f])  # NaN last
            v = v[: v.shape[0] - np.count_nonzero(np.isnan(v))]
            bins[f] = feature_bins(v.astype(np.float64) + 0.0, max_bins)

    run(cut, columns.shape[0], sample.shape[1] * columns.shape[0])


@JIT
def bin_columns(c_lo, c_hi, X, columns, edges, lo, hi, n_bins, codes, outside):
    """Bin the ``columns`` of ``X`` into ``codes``, in the chunks of rows ``[c_lo, c_hi)``.

    Parameters
    ----------
    X : float32 or float64 [n, F]
        NaN (missing) gets the code ``n_bins[f]``.
    columns : int64 [m]
        Features to bin (all of them, or the ones to redo).
    edges : float64 [F, P - 1]
        Edges of each feature padded with ``+inf`` to one less than a power of two
        ``P``: a value's bin is found by a branch-free binary search of ``log2(P)``
        steps, run for a block of rows at a time so that the steps of many rows overlap.
    lo, hi : float64 [F, P]
        Value range of each bin in the sample the edges came from.
    n_bins : int64 [F]
        Value bins of each feature (the code of a missing value).
    codes : uint8 or uint16 [F, n]
        Output: ``codes[f, i]`` is the bin of ``X[i, f]`` (rows of other features kept).
    outside : uint8 [C, F]
        Output per chunk of rows: 1 if some value of a feature fell outside its bin's
        sample range (a value the sample missed).
    """
    n = X.shape[0]
    n_chunks = outside.shape[0]
    chunk = (n + n_chunks - 1) // n_chunks
    half = (edges.shape[1] + 1) // 2
    for c in range(c_lo, c_hi):
        xb = np.empty(_BLOCK)
        pos = np.empty(_BLOCK, dtype=np.int64)
        for start in range(c * chunk, min(n, (c + 1) * chunk), _BLOCK):
            m = min(n, start + _BLOCK, (c + 1) * chunk) - start
            for j in range(columns.shape[0]):
                f = columns[j]
                e = edges[f]
                # indices are unsigned: numba then skips the wrap-around test of
                # negative indices on every access
                for i in range(m):
                    xb[i] = X[np.uint64(start + i), f]
                    pos[i] = 0
                step = half
                while step > 0:
                    for i in range(m):
                        pos[i] += step if e[np.uint64(pos[i] + step - 1)] < xb[i] else 0
                    step >>= 1
                out = False
                lo_f = lo[f]
                hi_f = hi[f]
                codes_f = codes[f]
                for i in range(m):
                    k = np.uint64(pos[i])
                    x = xb[i]
                    if x != x:  # NaN: the missing bin (the search left it at 0)
                        k = np.uint64(n_bins[f])
                    else:
                        out |= (x < lo_f[k]) | (x > hi_f[k])
                    codes_f[np.uint64(start + i)] = k
                if out:
                    outside[c, f] = 1


def bin_data(X, max_bins, subsample, seed, n_categories):
    """Bin every feature of ``X`` (checked, float32/float64; NaN is missing).

    ``n_categories`` (int32 [F]): categories of each feature, 0 for a numeric one.
    Returns ``(codes, n_bins, bin_lo, bin_hi)``: codes [F, n], uint8 when every code
    fits (``max_bins <= 255`` and at most 255 categories: the missing code
    ``n_bins[f]`` can reach ``max_bins``), else uint16; value bins per feature; the
    smallest and largest value of each value bin among the rows the edges were found
    on (float64 [F, max(n_bins)]; padding bins are ``inf``/``-inf``; the missing bin
    has no entry).
    """
    n, n_features = X.shape
    rows = None
    if n > subsample:
        chosen = np.zeros(n, dtype=bool)  # the drawn rows, in order
        chosen[np.random.default_rng(seed).choice(n, size=subsample, replace=False)] = True
        rows = np.flatnonzero(chosen)
    numeric = np.flatnonzero(n_categories == 0)
    bins = [None] * n_features
    for f in np.flatnonzero(n_categories):
        levels = np.arange(float(n_categories[f]))
        bins[f] = (levels, levels, False)  # fixed: never binned again
    numeric_bins(X, rows, numeric, max_bins, bins)
    largest = max(max_bins, int(n_categories.max(initial=0)))
    codes = np.empty((n_features, n), dtype=np.uint8 if largest <= 255 else np.uint16)
    outside = _bin(X, np.arange(n_features), bins, codes)
    if n > subsample:
        # a feature binned one value per bin must not hold values the sample missed:
        # bin it again from all of its rows
        redo = np.array([f for f in numeric if bins[f][2] and outside[f]], dtype=np.int64)
        if redo.shape[0]:
            numeric_bins(X, None, redo, max_bins, bins)
            _bin(X, redo, bins, codes)
    n_bins = np.array([b[0].shape[0] for b in bins], dtype=np.int32)
    width = int(n_bins.max(initial=0))
    lo = np.full((n_features, width), np.inf)
    hi = np.full((n_features, width), -np.inf)
    for f, (blo, bhi, _) in enumerate(bins):
        lo[f, : blo.shape[0]] = blo
        hi[f, : bhi.shape[0]] = bhi
    return codes, n_bins, lo, hi


def _bin(X, columns, bins, codes):
    """Run :func:`bin_columns`; returns, per feature, whether a value fell outside its
    bin's sample range."""
    n, n_features = X.shape
    width = max(b[0].shape[0] for b in bins)
    p2 = 1
    while p2 < width:
        p2 *= 2
    edges = np.full((n_features, max(p2 - 1, 1)), np.inf)
    lo = np.full((n_features, p2), np.inf)
    hi = np.full((n_features, p2), -np.inf)
    for f, (blo, bhi, _) in enumerate(bins):
        if blo.shape[0] > 1:
            edges[f, : blo.shape[0] - 1] = thresholds(bhi[:-1], blo[1:])
        lo[f, : blo.shape[0]] = blo
        hi[f, : bhi.shape[0]] = bhi
    n_bins = np.array([b[0].shape[0] for b in bins], dtype=np.int64)
    n_chunks = int(max(1, min(4 * n_threads(n * columns.shape[0]), n // 16384)))
    outside = np.zeros((n_chunks, n_features), dtype=np.uint8)
    run(bin_columns, n_chunks, n * columns.shape[0], X, columns, edges, lo, hi, n_bins, codes,
        outside)
    return outside.any(axis=0)

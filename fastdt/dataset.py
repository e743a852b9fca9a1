"""``fastdt.Dataset``: features binned once for the histogram splitter.

Binning is the one step of a histogram fit that reads the raw values. A
:class:`Dataset` keeps its result (as LightGBM's ``Dataset`` does), so that repeated
fits on the same rows (cross-validation over parameters, ensembles) bin once::

    ds = fastdt.Dataset(X, max_bins=255)
    trees = [fastdt.fit(ds, y, max_depth=d) for d in (4, 8, 12)]

The arrays are read-only: fits copy what they rearrange.
"""

import numpy as np

from . import _input
from ._config import DEFAULT_MAX_BINS, DEFAULT_SUBSAMPLE, MAX_BINS_LIMIT

__all__ = ["Dataset"]


def check_max_bins(max_bins):
    if not _input._is_int(max_bins) or not 2 <= max_bins <= MAX_BINS_LIMIT:
        raise ValueError(
            f"max_bins={max_bins!r} is invalid: max_bins must be an int in [2, {MAX_BINS_LIMIT}]"
        )
    return int(max_bins)


class Dataset:
    """Features of ``X`` binned into at most ``max_bins`` bins each.

    A feature with at most ``max_bins`` distinct values gets one bin per value;
    otherwise its bins hold about equal numbers of rows (quantile bins, found on a
    random ``subsample`` of the rows). A categorical feature gets one bin per
    category (bin ``c`` is code ``c``, whatever ``max_bins``). Missing values (NaN)
    get one more code per feature, ``n_bins[f]``. Codes are ``uint8`` when every code
    fits (``max_bins <= 255`` and at most 255 categories per feature), else ``uint16``.

    Parameters
    ----------
    X : array-like or pandas DataFrame of shape (n_samples, n_features)
        Features, checked and converted as by :func:`fastdt.fit` (NaN: missing).
    max_bins : int, default=255
        Most bins per numeric feature, in [2, 65535].
    subsample : int, default=200000
        Rows sampled to find the bin edges (all rows when there are fewer).
    random_state : int, default=0
        Seed of that sample.
    categorical_features : list of int or str, or bool mask, default=None
        As in :func:`fastdt.fit` (pandas category/object/string/bool columns are
        categorical anyway). Fits of the Dataset use these categories.

    Attributes
    ----------
    codes : uint8 or uint16 ndarray of shape (n_features, n_samples)
        Bin of every value, feature-major; ``n_bins[f]`` for a missing value.
    n_bins : int32 ndarray of shape (n_features,)
        Value bins of each feature (the missing bin not counted; a feature with only
        missing values has none).
    bin_lo, bin_hi : float64 ndarray of shape (n_features, max(n_bins))
        Smallest and largest value in each value bin (``inf``/``-inf`` for padding;
        ``c`` for category ``c``).
    categories : list
        Per feature, None (numeric) or the levels of a categorical one (code ``k`` is
        ``levels[k]``).
    feature_names : list of str or None
    has_missing : bool
        Whether any value is missing (the histogram scan is compiled without its steps
        for missing values when none is).
    """

    has_missing = True  # a Dataset pickled before the attribute: assume some

    def __init__(self, X, *, max_bins=DEFAULT_MAX_BINS, subsample=DEFAULT_SUBSAMPLE,
                 random_state=0, categorical_features=None):
        max_bins = check_max_bins(max_bins)
        if not _input._is_int(subsample) or subsample < 1:
            raise ValueError(f"subsample={subsample!r} is invalid: it must be an int >= 1")
        if not _input._is_int(random_state) or random_state < 0:
            raise ValueError(
                f"random_state={random_state!r} is invalid: it must be an int >= 0"
            )
        self.feature_names = _input.feature_names_of(X)
        Xa, categories, has_nan = _input.check_X_fit(X, categorical_features)
        self._init_checked(Xa, categories, max_bins, int(subsample), int(random_state),
                           has_nan)

    @classmethod
    def _from_checked(cls, Xa, categories, max_bins, feature_names=None, has_missing=True):
        """Bin an array already through :func:`fastdt._input.check_X_fit` (used by fit;
        ``has_missing``: its answer)."""
        ds = cls.__new__(cls)
        ds.feature_names = feature_names
        ds._init_checked(Xa, categories, check_max_bins(max_bins), DEFAULT_SUBSAMPLE, 0,
                         has_missing)
        return ds

    def _init_checked(self, Xa, categories, max_bins, subsample, random_state, has_missing):
        self.categories = categories
        self.has_missing = bool(has_missing)
        from ._binning import bin_data  # numba loads on first use

        codes, n_bins, lo, hi = bin_data(Xa, max_bins, subsample, random_state,
                                         self.n_categories)
        for a in (codes, n_bins, lo, hi):
            a.flags.writeable = False
        self.codes, self.n_bins, self.bin_lo, self.bin_hi = codes, n_bins, lo, hi
        self.max_bins = max_bins
        self.dtype = Xa.dtype
        self.subsample = subsample
        self.random_state = random_state

    @property
    def n_categories(self):
        """int32 ndarray of shape (n_features,): categories per feature (0: numeric)."""
        return _input.n_categories_of(self.categories)

    @property
    def shape(self):
        """``(n_samples, n_features)``."""
        return self.codes.shape[1], self.codes.shape[0]

    @property
    def nbytes(self):
        return self.codes.nbytes + self.bin_lo.nbytes + self.bin_hi.nbytes

    def __repr__(self):
        n, f = self.shape
        return (f"Dataset(n_samples={n}, n_features={f}, max_bins={self.max_bins}, "
                f"codes={self.codes.dtype}, bins per feature {int(self.n_bins.min())}"
                f"-{int(self.n_bins.max())})")

    def __reduce__(self):
        return (_rebuild, (self.__dict__.copy(),))


def _rebuild(state):
    ds = Dataset.__new__(Dataset)
    for name in ("codes", "n_bins", "bin_lo", "bin_hi"):
        state[name] = np.array(state[name])  # unpickled arrays own writable memory
        state[name].flags.writeable = False
    ds.__dict__.update(state)
    return ds

"""Counting the NaN and infinite values of ``X`` (used by ``_columns``), with numpy.

numpy's ufuncs release the GIL, so blocks of rows run on threads
(:func:`fastdt._parallel.run_rows`) with no kernel to compile: a first fit or
prediction pays no compilation for this check.
"""

import numpy as np


def _count_block(X):
    """``(n_nan, n_inf)`` of one block of rows; one pass when every value is finite."""
    finite = np.isfinite(X)
    if finite.all():
        return 0, 0
    n_nan = int(np.count_nonzero(np.isnan(X)))
    return n_nan, int(X.size - np.count_nonzero(finite)) - n_nan


#: Values numpy tests in the time a kernel reads one (the work reported to the threads:
#: ``X.size // _CHEAP``). A pass of ``np.isfinite`` takes about 0.16 ns a value; on two
#: threads it paid from about 1.5 M values (Adult's folds, 290,000 values: 47 us on the
#: calling thread, 160-210 us in blocks on two).
_CHEAP = 16


def count_missing(X):
    """``(n_nan, n_inf)`` of ``X`` (float32/float64, C-contiguous), blocks of rows on
    threads for a large ``X``."""
    from ._parallel import run_rows

    counts = run_rows(_count_block, X.shape[0], X.size // _CHEAP, (), X)
    return sum(c[0] for c in counts), sum(c[1] for c in counts)

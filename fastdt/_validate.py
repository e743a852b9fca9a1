"""``@njit`` helpers of input validation (used by ``_input``): one pass, no temporaries."""

import numpy as np

from ._jit import JIT


@JIT
def count_nonfinite(X):
    """Number of NaN and of infinite values in ``X`` (float32 or float64 [n, m]).

    Returns ``(n_nan, n_inf)``; serial (threads run blocks of rows:
    :func:`count_missing`).
    """
    n = X.shape[0]
    n_nan = 0
    n_inf = 0
    for i in range(n):
        for j in range(X.shape[1]):
            v = X[i, j]
            if not np.isfinite(v):
                if np.isnan(v):
                    n_nan += 1
                else:
                    n_inf += 1
    return n_nan, n_inf


def count_missing(X):
    """``(n_nan, n_inf)`` of ``X`` (float32/float64, C-contiguous), blocks of rows on
    threads."""
    from ._parallel import run_rows

    counts = run_rows(count_nonfinite, X.shape[0], X.size, (), X)
    return sum(c[0] for c in counts), sum(c[1] for c in counts)

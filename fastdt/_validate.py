"""``@njit`` helpers of input validation (used by ``_input``): one pass, no temporaries."""

import numpy as np
from numba import prange

from ._config import PJIT


@PJIT
def count_nonfinite(X):
    """Number of NaN and of infinite values in ``X`` (float32 or float64 [n, m]).

    Returns ``(n_nan, n_inf)``; rows are counted in parallel.
    """
    n = X.shape[0]
    n_nan = 0
    n_inf = 0
    for i in prange(n):
        for j in range(X.shape[1]):
            v = X[i, j]
            if not np.isfinite(v):
                if np.isnan(v):
                    n_nan += 1
                else:
                    n_inf += 1
    return n_nan, n_inf

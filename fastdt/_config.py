"""Constants shared by every fastdt module: dtypes, sentinels, int codes and JIT presets.

Everything a kernel needs to agree on with the Python layer is named here, once:

* the dtypes of the arrays that cross the Python/numba boundary (so that each kernel
  compiles for a small, fixed set of signatures: float32 or float64 X, nothing else);
* ``LEAF``, the child id of a leaf in the public tree format;
* integer codes for the criteria (kernels branch on ints, never on strings).

No numba here: ``import fastdt`` does not import numba. The JIT presets are in
:mod:`fastdt._jit`, which only kernel modules import.
"""

import numpy as np

# --- dtypes at the boundary (X itself stays float32 or float64, as given) ---------
CODE_DTYPE = np.int32  # class codes 0..n_classes-1
WEIGHT_DTYPE = np.float64  # sample weights, all sums
ID_DTYPE = np.int32  # node ids, feature ids, sample indices

# --- the tree format ----------------------------------------------------------------
LEAF = -1  # left/right/feature of a leaf
FORMAT_VERSION = 1

# --- numerics shared with scikit-learn ----------------------------------------------
# Two sorted values closer than this are treated as equal: no threshold between them
# (scikit-learn's FEATURE_THRESHOLD, kept for parity).
FEATURE_THRESHOLD = 1e-7
# A node whose impurity is at most this is pure; improvements are compared with this slack.
EPSILON = float(np.finfo(np.float64).eps)

# --- the histogram splitter --------------------------------------------------------
# Memory bound of the histograms kept for the subtraction trick (nodes beyond it have
# theirs rebuilt from rows when scanned).
HIST_POOL_BYTES = 512 * 2**20
DEFAULT_MAX_BINS = 255
MAX_BINS_LIMIT = 65535  # codes (the missing bin n_bins[f] included) fit in uint16
DEFAULT_SUBSAMPLE = 200_000  # rows sampled to find bin edges (as LightGBM, HGB)

# --- categorical features and missing values --------------------------------------
# Most categories of one feature (codes 0 .. n-1); the histogram splitter stores them in
# uint16 bins.
MAX_CATEGORIES = 65535
# Multiclass categorical splits: exhaustive search over the 2**(k-1) - 1 partitions of
# k groups up to this k, a heuristic (one ordering per class) beyond.
MAX_EXHAUSTIVE_GROUPS = 10
# Missing-value strategies (the ``missing=`` parameter).
MISSING_STRATEGIES = ("learn", "fractional", "surrogate")

# --- criterion codes ----------------------------------------------------------------
GINI = 0
ENTROPY = 1
GAIN_RATIO = 2
SQUARED_ERROR = 10
POISSON = 11
ABSOLUTE_ERROR = 12  # statistics [w, absolute error, median]: fastdt._absolute

CRITERIA_CLF = {"gini": GINI, "entropy": ENTROPY, "log_loss": ENTROPY, "gain_ratio": GAIN_RATIO}
# friedman_mse selects the same splits as squared_error (its proxy is a monotone function
# of the squared-error proxy); scikit-learn >= 1.9 maps it to squared_error, and so do we.
CRITERIA_REG = {"squared_error": SQUARED_ERROR, "friedman_mse": SQUARED_ERROR, "poisson": POISSON,
                "absolute_error": ABSOLUTE_ERROR}

# --- rule post-pruning (fastdt.rules): the estimate a rule is judged by ---------------
VALIDATION = 0  # accuracy on held-out rows
PESSIMISTIC = 1  # C4.5's pessimistic error rate on the training rows

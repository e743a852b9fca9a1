"""Random choices of the growth: which features a node considers (``max_features``).

The generator is xorshift64* on a ``uint64 [1]`` state array, seeded from
``random_state`` (:func:`fastdt._input.seed_from`); a tree's choices depend on the seed
only, never on the number of threads.
"""

import numpy as np

from ._jit import JIT


@JIT
def _rng_next(state):
    """xorshift64* step on ``state`` (uint64 [1]); returns a uint64."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@JIT
def choose_features(t_proxy, t_nl, t_nc, max_features, rng, perm, out):
    """The winning feature of each scanned node when only ``max_features`` of them are
    considered, into ``out`` (int64 [k]; -1: none valid).

    As scikit-learn does, features are visited in a random order: ``max_features`` of
    them, and further ones while every visited feature was constant in the node; ties
    keep the first visited. Nodes are visited in order, so the draws do not depend on
    the number of threads.

    Parameters
    ----------
    t_proxy, t_nl, t_nc : float64 [k, F], int64 [k, F], uint8 [k, F]
        Each (node, feature)'s best proxy, rows going left (0: no valid split) and
        whether the feature is non-constant in the node.
    rng : uint64 [1]
        Generator state (advanced).
    perm : int64 [F]
        Scratch.
    """
    n_features = t_proxy.shape[1]
    for k in range(t_proxy.shape[0]):
        best_f = -1
        best = -np.inf
        for j in range(n_features):
            perm[j] = j
        visited = 0
        n_const = 0
        for j in range(n_features):
            if visited >= max_features and visited > n_const:
                break
            r = j + np.int64(_rng_next(rng) % np.uint64(n_features - j))
            perm[j], perm[r] = perm[r], perm[j]
            f = perm[j]
            visited += 1
            if not t_nc[k, f]:
                n_const += 1
                continue
            if t_nl[k, f] > 0 and t_proxy[k, f] > best:
                best = t_proxy[k, f]
                best_f = f
        out[k] = best_f

"""Random choices of the growth: which features a node considers (``max_features``),
and the random splits of ``splitter="random"``.

The feature sampler visits each node's features in a random order drawn by splitmix64
from the node's own seed (:func:`feature_seeds`: a hash of ``random_state``'s seed and
the node's id); the random splits hash each node's seed (:func:`node_seeds`) with the
feature and a draw number (:func:`uniform_draw`), so that threads share no state. A tree's choices depend
on the seed only, never on the number of threads.
"""

import numpy as np

from ._jit import INLINE, JIT

#: The splitters scan, in each node, only the features its sampler visits when
#: ``max_features`` is below the number of features (the cost of a node then falls
#: with ``max_features``). False: they scan every feature and :func:`choose_features`
#: picks among the visited ones from the full tables; the same trees, which the tests
#: check by switching this off.
SCAN_DRAWN_ONLY = True


@INLINE
def next_feature(perm, j, state):
    """Step ``j`` of a node's random feature order (Fisher-Yates on ``perm``, drawn from
    the node's generator ``state``): returns the ``j``-th feature visited."""
    n_features = perm.shape[0]
    # splitmix64: the state steps by the golden ratio, the output is its mix
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    r = j + np.int64(z % np.uint64(n_features - j))
    f = perm[r]
    perm[r] = perm[j]
    perm[j] = f
    return f


@INLINE
def start_order(perm, pool, state, seed):
    """Restart a node's feature order: ``perm`` holds the ``pool`` (the features the
    tree may use), ``state`` the node's ``seed`` (:func:`next_feature` steps them)."""
    for j in range(pool.shape[0]):
        perm[j] = pool[j]
    state[0] = seed


@INLINE
def visited_enough(visited, n_const, max_features):
    """scikit-learn's rule for stopping a node's visit: ``max_features`` features
    visited, at least one of them not constant in the node."""
    return visited >= max_features and visited > n_const


@JIT
def choose_features(t_proxy, t_nl, t_nc, max_features, seeds, pool, perm, out):
    """The winning feature of each scanned node when only ``max_features`` of them are
    considered, into ``out`` (int64 [k]; -1: none valid).

    As scikit-learn does, features are visited in a random order: ``max_features`` of
    them, and further ones while every visited feature was constant in the node; ties
    keep the first visited. Each node's order comes from its own seed (``seeds``,
    :func:`feature_seeds`), so a splitter may also visit the features itself, in the
    same order, scanning only those (:mod:`fastdt._random_rows`).

    Parameters
    ----------
    t_proxy, t_nl, t_nc : float64 [k, F], int64 [k, F], uint8 [k, F]
        Each (node, feature)'s best proxy, rows going left (0: no valid split) and
        whether the feature is non-constant in the node.
    seeds : uint64 [k]
        Each node's seed.
    pool : int64 [P]
        The features the tree may use (all of them, or its random subset of attributes:
        ``fit_forest(tree_features=...)``); the order draws from them.
    perm : int64 [P]
        Scratch.
    """
    n_features = pool.shape[0]
    state = np.empty(1, dtype=np.uint64)
    for k in range(t_proxy.shape[0]):
        start_order(perm, pool, state, seeds[k])
        best_f = -1
        best = -np.inf
        visited = 0
        n_const = 0
        for j in range(n_features):
            if visited_enough(visited, n_const, max_features):
                break
            f = next_feature(perm, j, state)
            visited += 1
            if not t_nc[k, f]:
                n_const += 1
                continue
            if t_nl[k, f] > 0 and t_proxy[k, f] > best:
                best = t_proxy[k, f]
                best_f = f
        out[k] = best_f


def feature_seeds(seed, ids):
    """Seeds (uint64, never 0) of the feature orders of the nodes ``ids`` of a tree with
    the feature sampler's ``seed`` (:func:`choose_features`; or one seed per node)."""
    z = node_seeds(np.asarray(seed, dtype=np.uint64) ^ _FEATURES, ids)
    z[z == 0] = _GOLDEN
    return z


@JIT
def uniform_draw(seed, f, j):
    """Draw ``j`` (uniform in [0, 1)) of feature ``f`` of a node with ``seed``
    (``splitter="random"``): the splitmix64 hash of the three, so that no generator
    state is shared between threads and the draws do not depend on their number."""
    z = (seed + np.uint64(f + 1) * np.uint64(0x9E3779B97F4A7C15)
         + np.uint64(j + 1) * np.uint64(0xD1B54A32D192ED03))
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@INLINE
def random_threshold(lo, hi, u):
    """The threshold of ``splitter="random"`` from the draw ``u``: uniform in
    ``[lo, hi)`` of the node's present values (scikit-learn's rule: ``lo`` when the
    draw rounds to ``hi``)."""
    thr = lo + (hi - lo) * u
    return lo if thr == hi else thr


# splitmix64's constants, as numpy scalars made once (a level hashes its nodes' ids)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_FEATURES = np.uint64(0x6A09E667F3BCC909)  # feature orders' seeds apart from the splits'


def node_seeds(seed, ids):
    """Seeds (uint64) of the nodes ``ids`` for ``splitter="random"``: the splitmix64
    hash of the tree's seed (or one per node) and the node's id (ids are given in
    creation order, which does not depend on the number of threads)."""
    z = np.array(ids, dtype=np.uint64)  # a copy: hashed in place
    z *= _GOLDEN
    z += np.asarray(seed, dtype=np.uint64)
    z ^= z >> _S30
    z *= _MIX1
    z ^= z >> _S27
    z *= _MIX2
    z ^= z >> _S31
    return z


class NodeSeeds:
    """The seeds of the random choices of the nodes of the trees a growth driver grows
    (:func:`fastdt._grow.grow`): :meth:`features` (the feature orders,
    :func:`feature_seeds`) and :meth:`splits` (``splitter="random"``, :func:`node_seeds`).

    ``seeds`` (uint64 [B]): each tree's seed. One tree: a node's choices hash the seed and
    the node's id. Several trees grown together (a batch of a forest's): each node's
    tree's seed and its id within that tree, the node tables' ``tree`` and ``local``
    columns (``nodes``), so that a tree is the same grown alone or in a batch."""

    def __init__(self, seeds, nodes=None):
        self.split_seeds = np.asarray(seeds, dtype=np.uint64).reshape(-1)
        # the feature orders of a seed of 0 start from the golden ratio (never 0)
        self.feature_seeds = np.where(self.split_seeds == 0, _GOLDEN, self.split_seeds)
        self.nodes = nodes if self.split_seeds.shape[0] > 1 else None

    def _keys(self, seeds, ids):
        if self.nodes is None:
            return seeds[0], ids
        return seeds[self.nodes.tree[ids]], self.nodes.local[ids]

    def features(self, ids):
        """Seeds of the feature orders of the nodes ``ids``."""
        return feature_seeds(*self._keys(self.feature_seeds, ids))

    def splits(self, ids):
        """Seeds of the random splits of the nodes ``ids``."""
        return node_seeds(*self._keys(self.split_seeds, ids))


def tree_pool(seed, n_features, size):
    """The features a forest's tree may use (``fit_forest(tree_features=...)``): ``size``
    of the ``n_features`` drawn without replacement from the tree's ``seed``, sorted
    (int64)."""
    rng = np.random.default_rng(np.uint64(seed) ^ np.uint64(0x3C6EF372FE94F82B))
    return np.sort(rng.choice(n_features, size=size, replace=False)).astype(np.int64)

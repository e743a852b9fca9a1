"""Extra trees grown depth first by a bare numba loop, against scikit-learn's and
fastdt's extra trees, one tree at a time on one thread (issue 14 asks for extra trees 3x
faster than scikit-learn's).

    python benchmarks/extra_trees_dfs.py [--repeat 6] [--trees 4]

The data of ``compare.py --section forests``: ``make_classification`` 250,000 x 20 (10
informative, seed 0), float32, the first 200,000 rows. :func:`grow` is scikit-learn's
algorithm for two classes, unit weights and no missing values, written as lean as it
goes: a stack of nodes, each node's rows a range of one array of row ids, ``sqrt(20) =
4`` features drawn per node (more while the drawn ones are constant, as scikit-learn),
each feature's values of the node's rows gathered (from a column of ``X.T`` while the
node holds more than one row in 16, else from the rows of ``X``), their range, a
threshold drawn uniformly in it, the rows at or below it counted by class, the Gini
proxy, and the rows of the best split partitioned in place. It stores no tree (it counts
the nodes) and draws from its own generator, so its trees are not fastdt's or
scikit-learn's, only grown the same way (about as many nodes).

Each repeat grows ``--trees`` trees with each of the three, in turn, and the table gives
the seconds per tree. A plain script (asv imports this folder; nothing runs on import).
"""

import argparse
import time

ROWS = 250_000
TRAIN = 200_000


def _grower():
    """:func:`grow`, compiled (numba is imported here, not when asv imports this module)."""
    import numpy as np
    from numba import njit

    @njit
    def draw(state):  # xorshift64
        state[0] ^= state[0] << np.uint64(13)
        state[0] ^= state[0] >> np.uint64(7)
        state[0] ^= state[0] << np.uint64(17)
        return state[0]

    @njit
    def grow(X, XT, y, seed, max_features):
        """Nodes of one extra tree of the rows of ``X`` (float32 [n, F]; ``XT`` its
        transpose, C-contiguous) and classes ``y`` (int64 0/1)."""
        n, n_features = X.shape
        rows = np.arange(n).astype(np.int32)
        xf = np.empty(n, np.float32)
        xb = np.empty(n, np.float32)
        stack_a = np.empty(n + 1, np.int64)
        stack_b = np.empty(n + 1, np.int64)
        perm = np.arange(n_features)
        state = np.array([np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)])
        stack_a[0], stack_b[0], top, nodes = 0, n, 1, 0
        while top > 0:
            top -= 1
            a, b = stack_a[top], stack_b[top]
            m = b - a
            nodes += 1
            c1 = 0
            for i in range(a, b):
                c1 += y[rows[i]]
            if m < 2 or c1 == 0 or c1 == m:
                continue
            best, best_f, best_thr, best_nl = -np.inf, -1, np.float32(0.0), 0
            visited, constant, j = 0, 0, 0
            while j < n_features and (visited < max_features or visited <= constant):
                r = j + np.int64(draw(state) % np.uint64(n_features - j))
                f = perm[r]
                perm[r] = perm[j]
                perm[j] = f
                j += 1
                visited += 1
                if m * 16 < n:
                    for i in range(m):
                        xf[i] = X[rows[a + i], f]
                else:
                    for i in range(m):
                        xf[i] = XT[f, rows[a + i]]
                lo = xf[0]
                hi = xf[0]
                for i in range(1, m):
                    v = xf[i]
                    lo = v if v < lo else lo
                    hi = v if v > hi else hi
                if hi <= lo + np.float32(1e-7):
                    constant += 1
                    continue
                u = (draw(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
                thr = np.float32(lo + (hi - lo) * u)
                if thr >= hi:
                    thr = lo
                nl = 0
                nl1 = 0
                for i in range(m):
                    on = np.int64(xf[i] <= thr)
                    nl += on
                    nl1 += on & np.int64(y[rows[a + i]])
                nr, nr1 = m - nl, c1 - nl1
                if nl == 0 or nr == 0:
                    continue
                proxy = ((nl1 * nl1 + (nl - nl1) * (nl - nl1)) / nl
                         + (nr1 * nr1 + (nr - nr1) * (nr - nr1)) / nr)
                if proxy > best:
                    best, best_f, best_thr, best_nl = proxy, f, thr, nl
                    xf, xb = xb, xf
            if best_f < 0:
                continue
            p, q = 0, m  # the rows at or below the threshold first, in place
            while p < q:
                if xb[p] <= best_thr:
                    p += 1
                else:
                    q -= 1
                    t = rows[a + p]
                    rows[a + p] = rows[a + q]
                    rows[a + q] = t
                    tv = xb[p]
                    xb[p] = xb[q]
                    xb[q] = tv
            stack_a[top], stack_b[top] = a + best_nl, b
            stack_a[top + 1], stack_b[top + 1] = a, a + best_nl
            top += 2
        return nodes

    return grow


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=6)
    parser.add_argument("--trees", type=int, default=4)
    args = parser.parse_args(argv)

    import numpy as np
    from sklearn.datasets import make_classification
    from sklearn.ensemble import ExtraTreesClassifier

    import fastdt

    X, y = make_classification(n_samples=ROWS, n_features=20, n_informative=10,
                               random_state=0)
    X, y = np.ascontiguousarray(X.astype(np.float32)[:TRAIN]), y[:TRAIN]
    XT, y64 = np.ascontiguousarray(X.T), y.astype(np.int64)
    grow = _grower()
    grow(X[:1000], np.ascontiguousarray(X[:1000].T), y64[:1000], 1, 4)  # compile
    fastdt.ExtraTreesClassifier(n_estimators=2, n_jobs=1).fit(X[:2000], y[:2000])
    k = args.trees
    print("| repeat | bare loop (s/tree, nodes) | scikit-learn (s/tree, nodes) | fastdt "
          "(s/tree, nodes) | scikit-learn / bare | scikit-learn / fastdt |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in range(args.repeat):
        t = time.perf_counter()
        nodes = [grow(X, XT, y64, 10 * r + s + 1, 4) for s in range(k)]
        bare = (time.perf_counter() - t) / k
        t = time.perf_counter()
        sk = ExtraTreesClassifier(n_estimators=k, n_jobs=1, random_state=r).fit(X, y)
        t_sk = (time.perf_counter() - t) / k
        t = time.perf_counter()
        fd = fastdt.ExtraTreesClassifier(n_estimators=k, n_jobs=1, random_state=r).fit(X, y)
        t_fd = (time.perf_counter() - t) / k
        n_sk = sum(e.tree_.node_count for e in sk.estimators_) // k
        print(f"| {r + 1} | {bare:.3f} ({sum(nodes) // k:,}) | {t_sk:.3f} ({n_sk:,}) | "
              f"{t_fd:.3f} ({fd.forest_.node_count // k:,}) | {t_sk / bare:.2f} | "
              f"{t_sk / t_fd:.2f} |", flush=True)


if __name__ == "__main__":
    main()

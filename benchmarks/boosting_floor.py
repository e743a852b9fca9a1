"""The floor of a boosting round's histogram work, written as bare numba loops, against
fastdt's rounds and LightGBM's whole fit (issue 15 asks for a fit 1.5x faster than
LightGBM's).

    python benchmarks/boosting_floor.py [--repeat 3]

The data and settings of ``compare.py --section boosting``: ``make_classification``
250,000 x 20 (10 informative, seed 0), float32, 200,000 train rows, log-loss, 255 leaves,
learning rate 0.1, 2 threads.

1. fastdt fits 4 rounds on one thread. The histogram builds of rounds 2 to 4 are
   captured: the binned codes, and for each call its positions' rows, its build jobs
   and the gradients and hessians by position.
2. Bare loops redo the same builds, at least as lean as fastdt's work: for each job and
   feature, each position's code read through its row and two float64 sums (gradient,
   hessian) added to its bin. No counts, weights or missing-value bin. Two layouts:
   feature by feature on numba's threads (``prange``), and row by row (a row's 20 codes
   together; the positions of a job cut between the threads, each with histograms of
   its own, added up after). A third loop adds one int64 a position instead: the
   gradients and hessians quantized to 16 bits and packed into one integer (LightGBM's
   quantized training; an approximation of the sums, not a floor of the float ones).
   fastdt's own ``build_features`` runs on the same calls.
3. A bare scan: 2 x 254 histograms a round (both children of each of 254 splits), each
   feature's cumulative sums and the gain at every bin.
4. LightGBM fits 100 rounds (its binning included), and fastdt 30 rounds.

Each repeat runs all of them in turn, so that they see the same machine speed. The
floor of a round is the faster bare build plus the bare scan. A whole fit also
partitions the rows, computes gradients, applies each tree and runs the growth driver,
all left out of the floor. A plain script (asv imports this folder; nothing runs on
import).
"""

import argparse
import time

ROWS = 250_000
TRAIN = 200_000
LEAVES = 255


def _kernels():
    """The bare loops (numba is imported here, not when asv imports this module)."""
    import numpy as np
    from numba import njit, prange

    @njit(parallel=True)
    def by_feature(codes, rows, jobs, gp, hp, pool):
        for f in prange(codes.shape[0]):
            cf = codes[f]
            for j in range(jobs.shape[0]):
                if jobs[j, 2] < 0:  # positions fastdt takes out of a parent one by one
                    continue
                h = pool[jobs[j, 2], f]
                h[:, :] = 0.0
                for p in range(jobs[j, 0], jobs[j, 1]):
                    b = cf[rows[p]]
                    h[b, 0] += gp[p]
                    h[b, 1] += hp[p]

    @njit(parallel=True)
    def packed(codes, rows, jobs, gh, pool):
        """by_feature with one int64 a bin: both sums as integers (quantized gradients
        and hessians), packed into the high and low halves, one addition a position."""
        for f in prange(codes.shape[0]):
            cf = codes[f]
            for j in range(jobs.shape[0]):
                if jobs[j, 2] < 0:
                    continue
                h = pool[jobs[j, 2], f]
                h[:] = 0
                for p in range(jobs[j, 0], jobs[j, 1]):
                    h[cf[rows[p]]] += gh[p]

    @njit(parallel=True)
    def by_row(codes_rows, rows, jobs, gp, hp, pool, n_threads):
        n_features, n_bins = codes_rows.shape[1], pool.shape[2]
        own = np.zeros((n_threads, n_features, n_bins, 2))
        for j in range(jobs.shape[0]):
            if jobs[j, 2] < 0:
                continue
            a, b = jobs[j, 0], jobs[j, 1]
            own[:, :, :, :] = 0.0
            for t in prange(n_threads):
                ht = own[t]
                for p in range(a + (b - a) * t // n_threads, a + (b - a) * (t + 1) // n_threads):
                    r = rows[p]
                    g = gp[p]
                    h = hp[p]
                    for f in range(n_features):
                        k = codes_rows[r, f]
                        ht[f, k, 0] += g
                        ht[f, k, 1] += h
            out = pool[jobs[j, 2]]
            for f in range(n_features):
                for k in range(n_bins):
                    s0 = 0.0
                    s1 = 0.0
                    for t in range(n_threads):
                        s0 += own[t, f, k, 0]
                        s1 += own[t, f, k, 1]
                    out[f, k, 0] = s0
                    out[f, k, 1] = s1

    @njit(parallel=True)
    def scan(pool, slots, lam):
        n_features = pool.shape[1]
        best = np.full(n_features, -np.inf)
        for f in prange(n_features):
            for s in slots:
                h = pool[s, f]
                G = 0.0
                H = 0.0
                for k in range(h.shape[0]):
                    G += h[k, 0]
                    H += h[k, 1]
                gl = 0.0
                hl = 0.0
                for k in range(h.shape[0] - 1):
                    gl += h[k, 0]
                    hl += h[k, 1]
                    gain = gl * gl / (hl + lam) + (G - gl) * (G - gl) / (H - hl + lam)
                    best[f] = gain if gain > best[f] else best[f]
        return best

    return by_feature, packed, by_row, scan


def _capture(fastdt, X, y):
    """fastdt's ``build_features`` calls of rounds 2 to 4 of a 4-round fit (one thread)
    with :func:`replay.capture`: ``(codes, calls, rounds)``, each call's arguments after
    the codes (the same for every call, kept once) with the histogram pool's shape in
    place of the pool (the calls write it; a copy a call would take gigabytes)."""
    from replay import capture

    codes = []

    def keep(args):
        codes[:] = [args[0]]
        return [args[1], args[2], args[3].shape, *args[4:]]

    def fit(module):
        module.fit_boosting(X, y, max_iter=4, max_leaf_nodes=LEAVES, early_stopping=False,
                            n_jobs=1)

    calls = [a for _, a, _ in capture(fastdt, "build_features", fit, keep)]
    # a round starts with the build of its root's histograms (all the rows)
    starts = [i for i, a in enumerate(calls) if (a[1][:, 1] - a[1][:, 0]).max() == len(y)]
    return codes[0], calls[starts[1]:], len(starts) - 1  # the first round left out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    import lightgbm
    import numba
    import numpy as np
    from sklearn.datasets import make_classification

    import fastdt
    from fastdt._hist_build import build_features
    from fastdt._parallel import run

    X, y = make_classification(n_samples=ROWS, n_features=20, n_informative=10,
                               random_state=0)
    X, y = X.astype(np.float32)[:TRAIN], y[:TRAIN]
    fastdt.fit_boosting(X[:3000], y[:3000], max_iter=2, max_leaf_nodes=LEAVES,
                        early_stopping=False)
    codes, calls, rounds = _capture(fastdt, X, y)
    # a call: rows, jobs, pool shape, n_bins, ycode, rstat, is_clf, weighted, rinc
    built = sum(int(np.diff(a[1][:, :2], axis=1)[a[1][:, 2] >= 0].sum()) for a in calls)
    by_feature, packed, by_row, scan = _kernels()
    codes_rows = np.ascontiguousarray(codes.T)
    pool = np.zeros(calls[0][2])
    pool2 = np.zeros(calls[0][2][:3] + (2,))
    pool_int = np.zeros(calls[0][2][:3], dtype=np.int64)
    # gradients and hessians quantized to 16 bits and packed, gradient high, hessian low:
    # a timing only (the sums are not read back; real packing budgets the bits by the
    # node's rows and rounds stochastically, as LightGBM does)
    packed_gh = []
    for a in calls:
        g, h = a[5][:, 0], a[5][:, 1]
        gq = np.round(g / max(np.abs(g).max(), 1e-12) * 32767).astype(np.int64)
        hq = np.round(h / max(h.max(), 1e-12) * 32767).astype(np.int64)
        packed_gh.append((gq << 32) + hq)
    slots = np.arange(2 * (LEAVES - 1)) % pool2.shape[0]
    numba.set_num_threads(2)

    def per_round(kernel, args_of):
        """Seconds a round of ``kernel(*args_of(i, call))`` over the captured calls."""
        t = time.perf_counter()
        for i, a in enumerate(calls):
            kernel(*args_of(i, a))
        return (time.perf_counter() - t) / rounds

    def bare():
        t_feature = per_round(by_feature, lambda i, a: (codes, a[0], a[1], a[5][:, 0],
                                                         a[5][:, 1], pool2))
        t_row = per_round(by_row, lambda i, a: (codes_rows, a[0], a[1], a[5][:, 0],
                                                 a[5][:, 1], pool2, 2))
        t_packed = per_round(packed, lambda i, a: (codes, a[0], a[1], packed_gh[i], pool_int))
        t = time.perf_counter()
        scan(pool2, slots, 1e-3)
        return t_feature, t_row, t_packed, time.perf_counter() - t

    def fastdt_builds():
        return per_round(run, lambda i, a: (build_features, codes.shape[0],
                                            codes.shape[0] * built, codes, a[0], a[1], pool,
                                            *a[3:]))

    bare()  # compile
    fastdt_builds()
    print(f"Captured: {len(calls)} build calls of {rounds} rounds, {built / rounds:,.0f} "
          f"positions x {codes.shape[0]} features built a round.")
    print("\n| repeat | LightGBM, 100 rounds (s) | 1.5x faster: ms a round | bare build by "
          "feature / by row (ms a round) | bare scan (ms) | floor (ms a round) | packed "
          "integer build (ms a round) | fastdt "
          "build_features (ms a round) | fastdt, 30 rounds (ms a round) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in range(args.repeat):
        model = lightgbm.LGBMClassifier(n_estimators=100, num_leaves=LEAVES, learning_rate=0.1,
                                        n_jobs=2, verbose=-1)
        t = time.perf_counter()
        model.fit(X, y)
        t_lgb = time.perf_counter() - t
        t_feature, t_row, t_packed, t_scan = bare()
        t_build = fastdt_builds()
        t = time.perf_counter()
        fastdt.fit_boosting(X, y, max_iter=30, max_leaf_nodes=LEAVES, early_stopping=False,
                            n_jobs=2)
        t_fit = (time.perf_counter() - t) / 30
        floor = min(t_feature, t_row) + t_scan
        print(f"| {r + 1} | {t_lgb:.2f} | {t_lgb * 1e3 / 100 / 1.5:.1f} | {t_feature * 1e3:.1f} "
              f"/ {t_row * 1e3:.1f} | {t_scan * 1e3:.1f} | {floor * 1e3:.1f} | "
              f"{t_packed * 1e3:.1f} | "
              f"{t_build * 1e3:.1f} | {t_fit * 1e3:.1f} |", flush=True)


if __name__ == "__main__":
    main()

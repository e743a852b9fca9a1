"""Naive, obviously correct reference implementations (pure Python/numpy, slow).

Used as oracles: impurities straight from their textbook definitions, and the best
split of a node by enumerating every threshold of every feature.
"""

import numpy as np

FEATURE_THRESHOLD = 1e-7


def class_counts(y, w, n_classes):
    return np.bincount(y, weights=w, minlength=n_classes).astype(float)


def gini(counts):
    w = counts.sum()
    p = counts / w
    return 1.0 - np.sum(p * p)


def entropy(counts):
    w = counts.sum()
    p = counts[counts > 0] / w
    return float(-np.sum(p * np.log2(p)))


def mse(y, w):
    m = np.average(y, weights=w)
    return float(np.average((y - m) ** 2, weights=w))


def poisson(y, w):
    m = np.average(y, weights=w)
    pos = y > 0
    return float(np.sum(w[pos] * y[pos] * np.log(y[pos] / m)) / w.sum())


def weighted_median(y, w):
    """The smallest ``y`` whose cumulative weight (``y`` ascending) exceeds half the
    total; when a prefix weighs exactly half, the mean of the values on either side."""
    order = np.argsort(y, kind="stable")
    ys, ws = y[order], w[order]
    cum = np.cumsum(ws)
    half = 0.5 * cum[-1]
    k = int(np.searchsorted(cum, half, side="right"))  # first cum > half
    if k > 0 and cum[k - 1] == half:
        return (ys[k - 1] + ys[k]) / 2
    return ys[k]


def absolute_error(y, w):
    m = weighted_median(y, w)
    return float(np.sum(w * np.abs(y - m)) / w.sum())


def node_impurity(criterion, y, w, n_classes=None):
    if criterion == "absolute_error":
        return absolute_error(y, w)
    if criterion in ("gini", "entropy", "gain_ratio"):
        c = class_counts(y, w, n_classes)
        return gini(c) if criterion == "gini" else entropy(c)
    if criterion == "poisson":
        return poisson(y, w)
    return mse(y, w)


def split_score(criterion, y, w, mask, n_classes=None):
    """Impurity decrease of splitting a node (rows y, w) into mask / ~mask, per unit of
    node weight; for gain_ratio, the gain divided by the split information."""
    wn = w.sum()
    wl, wr = w[mask].sum(), w[~mask].sum()
    imp = node_impurity(criterion, y, w, n_classes)
    il = node_impurity(criterion, y[mask], w[mask], n_classes)
    ir = node_impurity(criterion, y[~mask], w[~mask], n_classes)
    gain = imp - wl / wn * il - wr / wn * ir
    if criterion == "gain_ratio":
        pl, pr = wl / wn, wr / wn
        return gain / -(pl * np.log2(pl) + pr * np.log2(pr))
    return gain


def best_split(criterion, X, y, w, n_classes=None, min_samples_leaf=1):
    """Best (score, feature, threshold) by enumerating every distinct-value boundary.

    Ties: lowest feature, then lowest threshold (fastdt's documented rule)."""
    best = (-np.inf, -1, np.nan)
    for f in range(X.shape[1]):
        v = np.unique(X[:, f])
        for a, b in zip(v[:-1], v[1:]):
            if b <= a + FEATURE_THRESHOLD:
                continue
            thr = a / 2.0 + b / 2.0
            mask = X[:, f] <= thr
            if mask.sum() < min_samples_leaf or (~mask).sum() < min_samples_leaf:
                continue
            if w[mask].sum() <= 0 or w[~mask].sum() <= 0:
                continue
            s = split_score(criterion, y, w, mask, n_classes)
            if s > best[0] * (1 + 1e-12) + 1e-15 if best[0] > 0 else s > best[0] + 1e-15:
                best = (s, f, thr)
    return best


def best_partition_brute_force(criterion, codes, y, w, n_classes=None, min_samples_leaf=1):
    """Best split of a node on one categorical feature by trying every partition.

    ``codes`` holds category codes, NaN for missing; the missing rows form one more
    group. Every one of the ``2**(m-1) - 1`` partitions of the ``m`` groups present is
    scored; returns ``(score, left_groups)`` with groups as codes (-1: missing)."""
    groups = [c for c in np.unique(codes[~np.isnan(codes)])]
    missing = np.isnan(codes)
    if missing.any():
        groups.append(-1)
    member = [missing if g == -1 else codes == g for g in groups]
    m = len(groups)
    best = (-np.inf, None)
    for bits in range(1, 2 ** (m - 1)):
        left = np.zeros(len(codes), dtype=bool)
        chosen = []
        for j in range(m - 1):
            if bits >> j & 1:
                left |= member[j]
                chosen.append(groups[j])
        if left.sum() < min_samples_leaf or (~left).sum() < min_samples_leaf:
            continue
        if w[left].sum() <= 0 or w[~left].sum() <= 0:
            continue
        s = split_score(criterion, y, w, left, n_classes)
        if s > best[0]:
            best = (s, chosen)
    return best


def weakest_link_path(left, right, w, impurity):
    """scikit-learn's ``_cost_complexity_prune`` loop as written there: every step
    rescans every candidate and prunes the first node of smallest effective alpha."""
    n = len(left)
    parent = np.full(n, -1)
    for i in range(n):
        if left[i] >= 0:
            parent[left[i]] = parent[right[i]] = i
    r_node = w * impurity / w[0]
    r_branch = np.zeros(n)
    n_leaves = np.zeros(n, dtype=int)
    for i in range(n - 1, -1, -1):
        if left[i] < 0:
            r_branch[i], n_leaves[i] = r_node[i], 1
        if parent[i] >= 0:
            r_branch[parent[i]] += r_branch[i]
            n_leaves[parent[i]] += n_leaves[i]
    candidate = left >= 0
    alphas, impurities = [0.0], [r_branch[0]]
    while candidate[0]:
        best, node = np.inf, -1
        for i in np.flatnonzero(candidate):
            a = (r_node[i] - r_branch[i]) / (n_leaves[i] - 1)
            if a < best:
                best, node = a, i
        stack = [left[node], right[node]]
        while stack:
            d = stack.pop()
            candidate[d] = False
            if left[d] >= 0:
                stack += [left[d], right[d]]
        candidate[node] = False
        pruned, r_diff = n_leaves[node] - 1, r_node[node] - r_branch[node]
        n_leaves[node], r_branch[node] = 1, r_node[node]
        a = parent[node]
        while a >= 0:
            n_leaves[a] -= pruned
            r_branch[a] += r_diff
            a = parent[a]
        alphas.append(best)
        impurities.append(r_branch[0])
    return np.array(alphas), np.array(impurities)

"""Histogram splitter kernels, part 1: moving rows and building histograms.

The layout and the histogram pool are described in :mod:`fastdt._hist`. Per level,
after the driver split some nodes, :func:`mark_sides` marks the side of every position of
the split nodes and moves the per-position arrays of each whole node (the row ids and
the rows' statistics; threads over pieces of nodes; the nodes too large for one thread
are cut in pieces, whose rows going right :func:`mark_sides` counts, and
:func:`scatter_rows` moves them), and :func:`build_features` builds the histograms the
next scan needs (the smaller child's from its rows, the larger's as its parent's minus
it, or minus the smaller child's rows when that one keeps no histogram; threads over
features), as :class:`fastdt._hist.HistSplitter` planned
(:func:`plan_builds`: which histograms, into which slots of the pool). The bin codes
never move: they are read through the row ids.
"""

import numpy as np

from ._criteria import target_stat
from ._hist_scan import PACK_BITS, _GATHER, _accumulate, _accumulate_packed, _gather_codes
from ._jit import INLINE, JIT, NOREF


@JIT
def mark_sides(lo, hi, codes, rows, pieces, feat, cbin, mgl, cat, n_bins, n_categories, side,
               n_right, whole, ycode, rstat):
    """``side[p] = 1`` if position ``p`` (row ``rows[p]``) of piece ``j`` (in ``[lo, hi)``)
    goes right, else 0; ``n_right[j]``: how many of the piece's positions go right.

    A piece ``pieces[j] = (start, end, m)`` is a range of positions of the ``m``-th split
    node (a whole node, or part of a large one). On the split feature ``f = feat[m]``,
    the missing code ``n_bins[f]`` goes left iff ``mgl[m] == 1``; a categorical code
    ``c`` goes left iff its bit is set in ``cat[m]`` (uint64 [W]); a numeric code goes
    right iff it is above ``cbin[m]``. The numeric codes are gathered first, in chunks
    (:func:`fastdt._hist_scan._gather_codes`; the calls of a boosting fit, replayed,
    31-34% less time).

    A piece with ``whole[j] == 1`` is a whole node: its per-position arrays (``rows``,
    class codes ``ycode``, statistics ``rstat``) are partitioned at once, side 0 first
    (:func:`_partition_range`), while its positions are still in the cache; the pieces of
    a node cut in several are moved afterwards (:func:`scatter_rows`). One call for
    both saves a handoff to the threads per batch of splits.
    """
    kb = np.empty(_GATHER, dtype=codes.dtype)
    most = 0  # the largest whole node: the partitions' buffers, made once
    for j in range(lo, hi):
        if whole[j]:
            most = max(most, pieces[j, 1] - pieces[j, 0])
    buf_r = np.empty(most, dtype=rows.dtype)
    buf_c = np.empty(most if ycode.shape[0] > 0 else 0, dtype=ycode.dtype)
    buf_s = np.empty((most, rstat.shape[1]))
    for j in range(lo, hi):
        m = pieces[j, 2]
        f = feat[m]
        t = cbin[m]
        codes_f = codes[f]
        mc = np.int64(n_bins[f])
        right = 0
        if n_categories[f] > 0:
            miss_side = 0 if mgl[m] == 1 else 1
            words = cat[m]
            for p in range(pieces[j, 0], pieces[j, 1]):
                q = np.uint64(p)  # unsigned indexing, as in _accumulate
                c = np.uint64(codes_f[np.uint64(rows[q])])
                if np.int64(c) == mc:
                    s = miss_side
                else:
                    bit = (words[c >> np.uint64(6)] >> (c & np.uint64(63))) & np.uint64(1)
                    s = 0 if bit else 1
                side[q] = s
                right += s
        else:
            # the missing code is above every value bin: right unless it goes left
            ml = mc if mgl[m] == 1 else -1
            for c0 in range(pieces[j, 0], pieces[j, 1], _GATHER):
                c1 = min(c0 + _GATHER, pieces[j, 1])
                _gather_codes(codes_f, rows, c0, c1, kb)
                for p in range(c0, c1):
                    q = np.uint64(p)
                    c = np.int64(kb[np.uint64(p - c0)])
                    s = (c > t) & (c != ml)  # branch-free
                    side[q] = s
                    right += s
        n_right[j] = right
        if whole[j]:
            _partition_range(pieces[j, 0], pieces[j, 1], rows, ycode, rstat, side, buf_r,
                             buf_c, buf_s)


@JIT
def _partition_range(a, b, rows, ycode, rstat, side, buf_r, buf_c, buf_s):
    """Stable partition of the per-position arrays (row ids, class codes, statistics)
    over the positions ``[a, b)``: side 0 first, then side 1.

    Branch-free: each value is written to both destinations and only the counter of
    its side advances (sides of a split are unpredictable; a branch would miss half
    the time). The regression sums (three columns, no class codes: boosting's) have a
    loop of their own, the columns in registers (22-27% less time than the loop over
    columns, on a boosting fit's partitions); a classification's one weight column is
    moved without a loop over columns. ``buf_r``, ``buf_c``, ``buf_s``: scratch
    of at least ``b - a`` rows, as ``rows``, ``ycode`` (empty without class codes) and
    ``rstat``.
    """
    has_code = ycode.shape[0] > 0
    n_cols = rstat.shape[1]
    w = a
    r = 0
    if n_cols == 3 and not has_code:
        for p in range(a, b):
            q = np.uint64(p)
            qw = np.uint64(w)
            qr = np.uint64(r)
            s = np.int64(side[q])
            row = rows[q]
            x0, x1, x2 = rstat[q, 0], rstat[q, 1], rstat[q, 2]
            rows[qw] = row
            buf_r[qr] = row
            rstat[qw, 0], rstat[qw, 1], rstat[qw, 2] = x0, x1, x2
            buf_s[qr, 0], buf_s[qr, 1], buf_s[qr, 2] = x0, x1, x2
            w += 1 - s
            r += s
        for i in range(r):
            qi = np.uint64(i)
            qw = np.uint64(w + i)
            rows[qw] = buf_r[qi]
            x0, x1, x2 = buf_s[qi, 0], buf_s[qi, 1], buf_s[qi, 2]
            rstat[qw, 0], rstat[qw, 1], rstat[qw, 2] = x0, x1, x2
        return
    for p in range(a, b):  # unsigned indexing, as in _accumulate
        q = np.uint64(p)
        qw = np.uint64(w)
        qr = np.uint64(r)
        s = np.int64(side[q])
        row = rows[q]
        rows[qw] = row
        buf_r[qr] = row
        if has_code:
            v = ycode[q]
            ycode[qw] = v
            buf_c[qr] = v
        if n_cols == 1:  # a classification's weights: as fast as a loop of their own
            x = rstat[q, 0]
            rstat[qw, 0] = x
            buf_s[qr, 0] = x
        else:
            for j in range(n_cols):
                x = rstat[q, j]
                rstat[qw, j] = x
                buf_s[qr, j] = x
        w += 1 - s
        r += s
    for i in range(r):
        qi = np.uint64(i)
        qw = np.uint64(w + i)
        rows[qw] = buf_r[qi]
        if has_code:
            ycode[qw] = buf_c[qi]
        if n_cols == 1:
            rstat[qw, 0] = buf_s[qi, 0]
        else:
            for j in range(n_cols):
                rstat[qw, j] = buf_s[qi, j]


@JIT
def scatter_rows(lo, hi, pieces, dst, side, rows, ycode, rstat, to_rows, to_ycode, to_rstat):
    """Copy the per-position arrays of pieces ``[lo, hi)`` (``pieces[j] = (start, end,
    -)``) to ``to_*``: a position of side 0 to the next place from ``dst[j, 0]`` on, one
    of side 1 from ``dst[j, 1]`` on (a stable partition of a large node cut in pieces,
    each piece's places counted beforehand; ``side`` empty: every position to the next
    place from ``dst[j, 0]``, a plain copy)."""
    has_code = ycode.shape[0] > 0
    by_side = side.shape[0] > 0
    n_cols = rstat.shape[1]
    for j in range(lo, hi):
        at_l = dst[j, 0]
        at_r = dst[j, 1]
        for p in range(pieces[j, 0], pieces[j, 1]):
            q = np.uint64(p)  # unsigned indexing, as in _accumulate
            s = np.int64(side[q]) if by_side else 0
            w = np.uint64(at_r if s else at_l)
            at_l += 1 - s
            at_r += s
            to_rows[w] = rows[q]
            if has_code:
                to_ycode[w] = ycode[q]
            if n_cols == 3:  # the regression sums: in registers (_partition_range)
                x0, x1, x2 = rstat[q, 0], rstat[q, 1], rstat[q, 2]
                to_rstat[w, 0], to_rstat[w, 1], to_rstat[w, 2] = x0, x1, x2
            else:
                for c in range(n_cols):
                    to_rstat[w, c] = rstat[q, c]


@NOREF
def _subtract_rows(codes_f, rows, ycode, rstat, a, b, is_clf, weighted, g, kb, rinc):
    """Take positions ``[a, b)`` out of histogram ``g`` (float64 [B, H]), one row at a
    time: the larger child's histogram from its parent's when the smaller child needs
    none of its own (:func:`plan_builds`). A small child's histogram built from its
    rows, then subtracted bin by bin, costs two passes over every bin of both
    histograms besides the rows (about 40 us a job of 20 features on a boosting fit,
    whatever its rows: the parent's histogram is out of the caches). The codes are
    gathered first, as in :func:`fastdt._hist_scan._accumulate` (``kb`` of the codes'
    type, at least ``_GATHER`` long). A packed layout (``rinc`` has rows): a position's
    weight is read from its increment (:func:`fastdt._hist_scan._accumulate_packed`)."""
    last = g.shape[1] - 1
    packed = rinc.shape[0] > 0
    low = np.int64(PACK_BITS)
    mask = (np.int64(1) << low) - 1
    for c0 in range(a, b, _GATHER):
        c1 = min(c0 + _GATHER, b)
        _gather_codes(codes_f, rows, c0, c1, kb)
        for p in range(c0, c1):
            q = np.uint64(p)  # unsigned indexing, as in _accumulate
            k = kb[np.uint64(p - c0)]
            if packed:
                c = np.int64(ycode[q])
                g[k, c] -= np.float64((rinc[q, 0] >> (low + low * c)) & mask)
            elif is_clf:
                g[k, np.uint32(ycode[q])] -= rstat[q, 0] if weighted else 1.0
            else:
                g[k, 0] -= rstat[q, 0]
                g[k, 1] -= rstat[q, 1]
                g[k, 2] -= rstat[q, 2]
            if weighted:
                g[k, last] -= 1.0


@JIT
def build_features(lo, hi, codes, rows, jobs, pool, n_bins, ycode, rstat, is_clf, weighted,
                   rinc):
    """Build the planned histograms of features ``[lo, hi)``.

    Parameters
    ----------
    codes : uint8/uint16 [F, N]
        Binned features (read only).
    rows : int32 (int64 for 2**31 rows or more) [n]
        The row (of ``codes``) at each position.
    jobs : int64 [j, 4]
        ``(start, end, dst, sub)``: histogram of positions ``[start, end)`` into pool
        slot ``dst``; if ``sub >= 0``, then ``pool[sub] -= pool[dst]`` (subtraction).
        ``dst < 0``: the positions' statistics are subtracted from ``pool[sub]`` one
        row at a time (:func:`_subtract_rows`), no histogram of their own.
    pool : float64 [slots, F, B, H]
    rinc : a packed layout's increments, or none (:func:`fastdt._hist_scan.scan_nodes`)
    """
    h2 = np.empty(pool.shape[2:])  # _accumulate's scratch
    kb = np.empty(_GATHER, dtype=codes.dtype)
    packed = rinc.shape[0] > 0
    pk1 = np.empty(pool.shape[2] if packed else 0, dtype=np.int64)
    pk2 = np.empty(pool.shape[2] if packed else 0, dtype=np.int64)
    for f in range(lo, hi):
        nb = n_bins[f] + 1  # value bins and the missing bin
        for j in range(jobs.shape[0]):
            if jobs[j, 2] < 0:  # the rows taken out of the parent's histogram at once
                _subtract_rows(codes[f], rows, ycode, rstat, jobs[j, 0], jobs[j, 1], is_clf,
                               weighted, pool[jobs[j, 3], f], kb, rinc)
                continue
            h = pool[jobs[j, 2], f]
            if packed:
                _accumulate_packed(codes[f], rows, rinc, jobs[j, 0], jobs[j, 1], h, pk1, pk2,
                                   nb, kb)
            else:
                h[:nb] = 0.0
                _accumulate(codes[f], rows, ycode, rstat, jobs[j, 0], jobs[j, 1], is_clf,
                            weighted, h, h2, nb, kb)
            if jobs[j, 3] >= 0:
                g = pool[jobs[j, 3], f]
                for k in range(nb):
                    for c in range(h.shape[1]):
                        g[k, c] -= h[k, c]


@INLINE
def _put_job(jobs, n, start, end, kid, dst, sub):
    """Job ``n`` of :func:`plan_builds`: node ``kid``'s positions into slot ``dst``, then
    subtracted from slot ``sub`` (-1: none). Returns ``n + 1``."""
    jobs[n, 0] = start[kid]
    jobs[n, 1] = end[kid]
    jobs[n, 2] = dst
    jobs[n, 3] = sub
    return n + 1


@JIT
def plan_builds(node, left, right, nns, start, end, is_open, keep_rows, slot, free, n_free,
                jobs):
    """The plan of :meth:`fastdt._hist.HistPool._plan` for the split nodes ``node``
    (int64 [m]; their children ``left``/``right``, rows ``nns``, ranges ``start``/``end``,
    by node id; ``is_open``: uint8 by node id). Updates ``slot`` (int64, node id -> pool
    slot or -1) and the stack of free slots ``free`` (its first ``n_free[0]`` entries, the
    top last; room for every slot of the pool), writes the build jobs
    ``(start, end, dst, sub)`` to ``jobs`` (int64 [m, 4]) and returns how many.

    In the split nodes' order: a node whose larger child is kept (open, at least
    ``keep_rows`` rows) passes its slot to it; the slots of nodes with no kept child are
    freed first. Then, first block: a smaller child that is not kept has its rows
    subtracted from the parent's histogram (``dst = -1``, :func:`_subtract_rows`); a
    kept one takes a free slot (the first ones, while there are any), is built there
    and subtracted from the parent's. Second block: the nodes whose kept smaller child
    found no slot build their larger child from its rows in their slot. Third block: a
    kept smaller child whose larger sibling is not kept takes its parent's slot.

    A smaller child's histogram that no scan needs is not built: before, it took a
    slot of its own, was zeroed, built and then subtracted bin by bin from the parent's
    (a boosting fit's builds, replayed, 3% less time; a hist forest's, whose nodes
    below 4,096 rows keep no histogram, 5-10%).
    """
    m = node.shape[0]
    ps = np.empty(m, dtype=np.int64)
    small = np.empty(m, dtype=np.int64)
    large = np.empty(m, dtype=np.int64)
    keep_l = np.zeros(m, dtype=np.uint8)
    keep_s = np.zeros(m, dtype=np.uint8)
    n_sub = 0
    for i in range(m):
        p = slot[node[i]]
        ps[i] = p
        slot[node[i]] = -1
        lc = left[node[i]]
        rc = right[node[i]]
        s, g = (lc, rc) if nns[lc] <= nns[rc] else (rc, lc)
        small[i] = s
        large[i] = g
        if p >= 0:
            keep_l[i] = is_open[g] == 1 and nns[g] >= keep_rows
            keep_s[i] = is_open[s] == 1 and nns[s] >= keep_rows
            n_sub += keep_l[i] and keep_s[i]
            if not keep_l[i] and not keep_s[i]:
                free[n_free[0]] = p
                n_free[0] += 1
    n_new = min(n_sub, n_free[0])
    n_jobs = 0
    taken = 0
    for i in range(m):  # smaller children subtracted from the parents
        if keep_l[i]:
            slot[large[i]] = ps[i]
            if not keep_s[i]:
                n_jobs = _put_job(jobs, n_jobs, start, end, small[i], -1, ps[i])
            elif taken < n_new:
                taken += 1
                n_free[0] -= 1
                slot[small[i]] = free[n_free[0]]
                n_jobs = _put_job(jobs, n_jobs, start, end, small[i], slot[small[i]], ps[i])
    taken = 0
    for i in range(m):  # no slot left: larger children from their rows, in the parents'
        if keep_l[i] and keep_s[i]:
            taken += 1
            if taken > n_new:
                n_jobs = _put_job(jobs, n_jobs, start, end, large[i], ps[i], -1)
    for i in range(m):  # kept smaller children alone, in the parents' slots
        if keep_s[i] and not keep_l[i]:
            slot[small[i]] = ps[i]
            n_jobs = _put_job(jobs, n_jobs, start, end, small[i], ps[i], -1)
    return n_jobs


@JIT
def regression_rows(crit, y, w, rstat, total):
    """``rstat[i] = (w[i], w[i] y[i], w[i] t(y[i]))`` (:func:`fastdt._criteria.target_stat`:
    the same function, so that hist and exact trees agree bit for bit) and ``total``
    their column sums, added in row order (numpy's ``rstat.sum(axis=0)``, in one pass
    with the rows)."""
    total[:] = 0.0
    for i in range(y.shape[0]):
        wi = w[i]
        rstat[i, 0] = wi
        rstat[i, 1] = wi * y[i]
        rstat[i, 2] = wi * target_stat(crit, y[i])
        for c in range(3):
            total[c] += rstat[i, c]



@JIT
def route_codes(lo, hi, codes, feature, left, right, cbin, mgl, cat, n_bins, n_categories,
                node):
    """``node[i]``: the node that row ``i`` (of ``codes``, rows ``[lo, hi)``) reaches in a
    growing tree, from the root down to the first node not split (``feature < 0``).

    The tree is the driver's tables (:class:`fastdt._grow.Nodes`): ``feature``,
    ``left``/``right``, the split's last left bin ``cbin``, ``mgl`` (missing left) and
    category bitsets ``cat`` (uint64 [nodes, W]); a row goes the way
    :func:`mark_sides` sends it. For a partition of rows that keeps no layout of its
    own (:mod:`fastdt.dask`): each level routes its rows again, from the tree alone.
    """
    for i in range(lo, hi):
        r = np.uint64(i)  # unsigned indexing, as in _accumulate
        k = 0
        while feature[k] >= 0:
            f = feature[k]
            c = np.int64(codes[f, r])
            if c == n_bins[f]:
                go_right = mgl[k] != 1
            elif n_categories[f] > 0:
                u = np.uint64(c)
                go_right = ((cat[k, u >> np.uint64(6)] >> (u & np.uint64(63)))
                            & np.uint64(1)) == 0
            else:
                go_right = c > cbin[k]
            k = right[k] if go_right else left[k]
        node[r] = k


@JIT
def leaf_of_rows(rows, ranges, left, leaf):
    """``leaf[rows[p]] = i`` for every position ``p`` of each leaf ``i`` (``left[i] < 0``)
    of a grown tree, from its nodes' ranges of positions ``ranges`` (int64 [nodes, 2]):
    the leaf each row of the tree reached, without walking the tree (gradient boosting's
    training rows). Rows of no leaf's range keep their entry."""
    for i in range(left.shape[0]):
        if left[i] < 0:
            for p in range(ranges[i, 0], ranges[i, 1]):
                leaf[np.uint64(rows[np.uint64(p)])] = i

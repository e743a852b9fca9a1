"""How fastdt's kernels run on several threads: ranges of work handed to a thread pool.

The kernels are serial ``@njit(nogil=True)`` functions over a range ``[lo, hi)`` of
something independent (tasks of a level's scan, nodes of a level, rows of a
prediction). :func:`run` cuts the range into blocks, largest first, and the threads
(the calling one and those of a pool) take the next block whenever they are free; the
kernels release the GIL, so the blocks run in parallel, and a thread slowed down by a
busy core or a costly block simply takes fewer blocks.
Each block writes its own part of the outputs, so the result does not depend on the
number of threads::

    run(scan_features, n_features, work, *args)   # scan_features(lo, hi, *args)

Why not numba's ``parallel=True``: a ``prange`` loop is compiled twice (the function,
then its body as a gufunc) and costs 1-3 s more compilation per kernel than the same
serial loop (``benchmarks/startup.py``); and an idle thread of numba's pool waits at the
end of every parallel region, which on a busy machine costs a scheduler time slice.

Threads: up to ``numba.get_num_threads()`` (so ``NUMBA_NUM_THREADS`` and
``numba.set_num_threads`` apply, as they did to ``prange``), one for each
:data:`SERIAL_WORK` of a call's ``work`` (about the number of values the kernel reads): a
call below it runs on the calling thread alone, and a call of ``m`` times it on ``m``
threads at most. Waking a thread and handing it a block costs more than a smaller share
of work; on 16 cores, every thread on every call made 20 boosting rounds (255 leaves,
200,000 rows) slower on 16 threads than on 4 (2.87 s against 1.99 s), this rule 1.66 s
(``docs/benchmarks.md``, "Sixteen cores").
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numba

#: The values read that a thread takes on: below it, a kernel runs on the calling thread
#: only (``benchmarks/compare.py --section small`` measures where threads start to pay);
#: a call reading ``m`` times as many uses ``m`` threads at most.
SERIAL_WORK = 50_000

_pool = None
_pool_size = 0
_lock = threading.Lock()


def _executor(n):
    """The shared pool, with at least ``n`` workers (created on first use)."""
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size < n:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="fastdt")
            _pool_size = n
        return _pool


def _forget_pool():  # a forked child has the pool object, but not its threads
    global _pool, _pool_size
    _pool = None
    _pool_size = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def n_threads(work):
    """Threads a kernel reading about ``work`` values uses: one per :data:`SERIAL_WORK`
    of it, at least one, at most numba's number of threads. Below two of them, one,
    without asking numba: its count takes a lock (5% of a deep tree's fit on Adult,
    whose levels call a dozen kernels each, most of them on little work)."""
    share = int(work) // max(SERIAL_WORK, 1)
    if share < 2:
        return 1
    return min(numba.get_num_threads(), share)


def blocks(n, k):
    """``k`` contiguous blocks ``(lo, hi)`` covering ``[0, n)`` (sizes differ by one at
    most; none empty when ``k <= n``)."""
    k = max(1, min(k, n))
    edges = [(n * j) // k for j in range(k + 1)]
    return [(edges[j], edges[j + 1]) for j in range(k)]


def _tasks(n, k):
    """Blocks of ``[0, n)`` for ``k`` threads, taken in order by whichever thread is free,
    largest first ("guided" scheduling): each block is ``1 / (2k)`` of what remains, and
    none smaller than ``1 / (16k)`` of the whole (nor than 1). A thread slowed down (a busy
    core, a costly feature) takes fewer blocks, and the threads finish within a small
    block of each other; about ``6k`` blocks in all."""
    out = []
    lo = 0
    smallest = max(1, n // (16 * k))
    while lo < n:
        hi = min(n, lo + max(smallest, (n - lo) // (2 * k)))
        out.append((lo, hi))
        lo = hi
    return out


def _share(call, tasks, k):
    """``call(task)`` for every task, on the calling thread and ``k - 1`` pool threads,
    each taking the next task when it is free. Returns the results in task order."""
    results = [None] * len(tasks)
    taken = iter(range(len(tasks)))  # next() of a range iterator is atomic (GIL)

    def worker():
        for i in taken:
            results[i] = call(tasks[i])

    pool = _executor(k - 1)
    futures = [pool.submit(worker) for _ in range(k - 1)]
    try:
        worker()
    finally:
        for f in futures:
            f.result()
    return results


def run(kernel, n, work, *args):
    """``kernel(lo, hi, *args)`` over ``[0, n)``, in blocks on up to :func:`n_threads`
    threads (the calling thread is one of them)."""
    k = min(n_threads(work), n)
    if k <= 1:
        if n > 0:
            kernel(0, n, *args)
        return
    _share(lambda t: kernel(t[0], t[1], *args), _tasks(n, k), k)


def run_rows(kernel, n, work, *args, per_thread=None):
    """``kernel(*fixed, *row_blocks)`` for the row arrays in ``args[1:]`` (each cut along
    its first axis into the same blocks; C-contiguous row blocks keep the kernel's one
    signature), on up to :func:`n_threads` threads; ``args[0]`` is the tuple of the
    other arguments, which go first: ``run_rows(kernel, n, work, (t,), X, out)`` calls
    ``kernel(t, X[lo:hi], out[lo:hi])``. Returns the list of the blocks' results.

    ``per_thread``: cut the rows into that many equal blocks a thread instead of the
    guided blocks of :func:`_tasks` (about six a thread), for kernels whose every block
    reads a large fixed set of data (a forest's nodes: every block walks every tree).
    """
    fixed, rows = args[0], args[1:]
    k = min(n_threads(work), n)
    if k <= 1:
        return [kernel(*fixed, *rows)]
    tasks = _tasks(n, k) if per_thread is None else blocks(n, k * per_thread)
    return _share(lambda t: kernel(*fixed, *[a[t[0]:t[1]] for a in rows]), tasks, k)


def run_tasks(call, tasks, work):
    """``call(task)`` for each of ``tasks`` (a list, each task writing its own outputs),
    on up to :func:`n_threads` threads, each taking the next task when it is free;
    ``work``: the values read in all. Returns the results in task order."""
    k = min(n_threads(work), len(tasks))
    if k <= 1:
        return [call(t) for t in tasks]
    return _share(call, tasks, k)

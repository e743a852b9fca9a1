"""Time one kernel of two versions of fastdt on the same calls, interleaved call by call.

    python benchmarks/replay.py HEAD . --case forest-hist --data forests --kernel scan_nodes
    python benchmarks/replay.py HEAD~1 HEAD --case boosting --kernel scan_nodes --threads 2

A change to one kernel moves a whole fit by a few percent, less than this machine's
drift between two fits (``ab.py``'s turns of a 10-tree forest spread over 0.72-1.11 by
turn). Here one fit of the case runs once with version B, every call of the kernel
(``--kernel``, by name, as :func:`fastdt._parallel.run` receives it) is captured with
copies of its arrays, and the calls are then replayed on both versions' kernels: each
call on A and on B back to back (which goes first alternates), for ``--turns`` passes
over all the calls. The figure to read is the median of the passes' ratios B / A, with
their quartiles; the drift, slower than one call, cancels within each pair. The same
comparison run twice has differed by up to 5% (2026-11-29), so read a small ratio in
two runs. Both versions must take the kernel's arguments as B passes them.

Versions, cases and data are those of ``ab.py``. ``--trees`` defaults to 2 here: each
call's arrays are copied (a forest's ``scan_nodes`` calls of 2 trees: about 400 MB;
the histogram pool is cut to the slots the call reads). ``--threads``: the replay's
threads (the capture's fit uses them too).

A plain script, not an asv benchmark (nothing heavy runs on import).
"""

import argparse
import importlib
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _trim_pool(args):
    """``scan_nodes``' arguments with the histogram pool cut to the slots it reads."""
    pool, slots = args[0], args[1]
    used = np.unique(slots[slots >= 0])
    remap = np.full(pool.shape[0], -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    return [pool[used] if used.size else pool[:1].copy(),
            np.where(slots >= 0, remap[np.maximum(slots, 0)], -1)] + list(args[2:])


def capture(module, kernel, fit, keep=None):
    """Run ``fit(module)`` and return the calls of the kernel named ``kernel`` as
    ``(n, args, kernel's module name)``, their arrays copied. ``keep(args)``: the
    arguments to keep of each call (default: all of them, ``scan_nodes``' histogram
    pool cut to the slots it reads)."""
    calls = []
    parallel = importlib.import_module(module.__name__ + "._parallel")
    original = parallel.run
    patched = []

    def run(k, n, work, *args):
        if getattr(k, "__name__", "") == kernel:
            if keep is not None:
                a = keep(args)
            else:
                a = _trim_pool(args) if kernel == "scan_nodes" else list(args)
            a = [x.copy(order="K") if isinstance(x, np.ndarray) else x for x in a]
            calls.append((n, a, k.__module__))
        return original(k, n, work, *args)

    for name, mod in list(sys.modules.items()):
        if name.startswith(module.__name__ + ".") and getattr(mod, "run", None) is original:
            mod.run = run
            patched.append(mod)
    try:
        fit(module)
    finally:
        for mod in patched:
            mod.run = original
    return calls


def main(argv=None):
    sys.path.insert(0, HERE)
    import ab

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a", help="version A (as ab.py)")
    p.add_argument("b", help="version B")
    p.add_argument("--kernel", required=True, help="the kernel's name, e.g. scan_nodes")
    p.add_argument("--case", choices=ab.CASES, default="forest-hist")
    p.add_argument("--turns", type=int, default=30, help="passes over the calls (30)")
    p.add_argument("--threads", type=int, default=1, help="threads of the replay (1)")
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--trees", type=int, default=2)
    p.add_argument("--data", choices=("common", "forests"), default="forests")
    p.add_argument("--boost-rounds", type=int, default=5)
    args = p.parse_args(argv)
    if args.turns < 2:
        p.error("--turns must be at least 2")
    mods, names = ab.versions(args.a, args.b)
    fit, _ = ab._fitter(args.case, args)
    for m in mods:  # compiled or loaded from the caches
        fit(m)
    calls = capture(mods[1], args.kernel, fit)
    if not calls:
        raise SystemExit(f"the {args.case} case made no call of a kernel {args.kernel!r}")
    kernels = []
    for name in names:
        module = importlib.import_module(name + calls[0][2][len(names[1]):])
        kernels.append(getattr(module, args.kernel))
    run = importlib.import_module(names[1] + "._parallel").run

    def call(k, n, a):
        if args.threads == 1:
            k(0, n, *a)
        else:
            run(k, n, 1 << 60, *a)

    for k in kernels:  # the replay's argument types compiled, if new
        for n, a, _ in calls:
            call(k, n, a)
    clock = time.perf_counter
    totals, ratios = ([], []), []
    for turn in range(args.turns):
        t = [0.0, 0.0]
        for i, (n, a, _) in enumerate(calls):
            for v in ((0, 1) if (i + turn) % 2 == 0 else (1, 0)):
                t0 = clock()
                call(kernels[v], n, a)
                t[v] += clock() - t0
        totals[0].append(t[0])
        totals[1].append(t[1])
        ratios.append(t[1] / t[0])
    q = statistics.quantiles(ratios, n=4)
    print(f"{args.kernel} on {args.case}: {len(calls)} calls, {args.threads} thread(s); A = "
          f"{args.a} ({names[0]}), B = {args.b} ({names[1]}); seconds a pass over the "
          f"calls, median of {args.turns}: A {statistics.median(totals[0]):.4g}, B "
          f"{statistics.median(totals[1]):.4g}; B / A by pass {statistics.median(ratios):.4f} "
          f"(quartiles {q[0]:.3f}-{q[2]:.3f}, {min(ratios):.3f}-{max(ratios):.3f})")


if __name__ == "__main__":
    main()

"""Start-up cost of fastdt: what a first run pays for numba's compilation.

Usage::

    python benchmarks/startup.py [--repeat 3] [--top 15] [--threads N] [--demo] [--floor]
                                 [--phases import,exact_fit,...] [--json out.json]

Each repetition runs one fresh interpreter with an empty ``NUMBA_CACHE_DIR`` (cold)
and then one more with the cache it filled (warm). In each, these phases run in
order, in the same process, and each is timed on its own:

====================  ===================================================================
``import``            ``import fastdt``
``exact_fit``         first exact fit: 1,000 x 20 float64 numeric rows, ``max_depth=10``
``predict``           first ``predict`` of those rows
``hist_fit``          first ``splitter="hist"`` fit of the same rows
``frame_learn``       first fit + predict of a raw DataFrame with category, text and bool
                      columns and missing values (``missing="learn"``)
``frame_fractional``  the same with ``missing="fractional"``
``frame_surrogate``   the same with ``missing="surrogate"``
====================  ===================================================================

The first phase after ``import`` also counts the import of numba, which
``import fastdt`` defers to the first fit (about 0.3 s here).

Compilation is recorded per numba dispatcher from numba's ``numba:compile`` events:
the seconds each kernel took to compile, less the nested compilations of the kernels
it calls (exclusive), and the number of signatures compiled. ``--demo`` also times
``python -m fastdt demo`` end to end (interpreter start included) with an empty cache.
``--floor`` times what any numba program pays in a fresh process with its cache filled,
whatever it does: the import of numpy and numba and the first call of a one-loop
``@njit(cache=True)`` function (numba sets up its typing and target registries then),
the floor under the warm column.
Prints a markdown table of medians (min-max) over the repetitions and the kernels that
cost the most compile time.

The asv suite's ``bench_startup.py`` runs the same phases (one repetition).
This is a plain script: asv imports it during discovery, so it has no heavy imports
at module level and no ``time_``/``track_``/``peakmem_`` names.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

PHASES = ("import", "exact_fit", "predict", "hist_fit", "frame_learn", "frame_fractional",
          "frame_surrogate")

# Runs in the fresh interpreter: argv[1] is a comma-separated list of phases.
_CHILD = r'''
import json, sys, time
from collections import defaultdict

phases = sys.argv[1].split(",")
times = {}
t0 = time.perf_counter()
import fastdt
times["import"] = time.perf_counter() - t0

# `import fastdt` does not import numba; a user's first fit does. Recording the compile
# events needs numba now, so its import is timed here and counted in the first phase.
t0 = time.perf_counter()
from numba.core import event
numba_import = time.perf_counter() - t0

excl = defaultdict(float)
sigs = defaultdict(int)
stack = []


class _Listener(event.Listener):
    def on_start(self, ev):
        stack.append([time.perf_counter(), 0.0])

    def on_end(self, ev):
        start, nested = stack.pop()
        took = time.perf_counter() - start
        d = ev.data["dispatcher"]
        name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
        excl[name] += took - nested
        sigs[name] += 1
        if stack:
            stack[-1][1] += took


event.register("numba:compile", _Listener())

import numpy as np

rng = np.random.default_rng(0)
X = rng.standard_normal((1000, 20))
y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int64)


def frame():
    import pandas as pd

    df = pd.DataFrame(X[:, :6], columns=[f"x{j}" for j in range(6)])
    df.loc[rng.random(1000) < 0.1, "x0"] = np.nan
    df["colour"] = pd.Categorical(rng.choice(["red", "green", "blue"], 1000))
    df["city"] = rng.choice(["a", "b", "c", "d", "e"], 1000).astype(object)
    df.loc[rng.random(1000) < 0.1, "city"] = None
    df["flag"] = rng.random(1000) < 0.3
    return df


state = {}
steps = {
    "exact_fit": lambda: state.__setitem__("tree", fastdt.fit(X, y, max_depth=10)),
    "predict": lambda: fastdt.predict(state["tree"], X),
    "hist_fit": lambda: fastdt.fit(X, y, max_depth=10, splitter="hist"),
}
for missing in ("learn", "fractional", "surrogate"):
    def fit_frame(missing=missing):
        df = frame()
        fastdt.predict(fastdt.fit(df, y, max_depth=6, missing=missing), df)
    steps["frame_" + missing] = fit_frame
for name in phases:
    if name == "import":
        continue
    t = time.perf_counter()
    steps[name]()
    times[name] = time.perf_counter() - t + numba_import
    numba_import = 0.0
print(json.dumps({"times": times, "compile": {k: [excl[k], sigs[k]] for k in excl}}))
'''


def run_phases(cache_dir, phases=PHASES, threads=None, timeout=900):
    """Run ``phases`` in a fresh interpreter with ``NUMBA_CACHE_DIR=cache_dir``.

    Returns ``{"times": {phase: seconds}, "compile": {kernel: [seconds, signatures]}}``.
    """
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(cache_dir)
    env.pop("NUMBA_DISABLE_JIT", None)
    env["PYTHONPATH"] = os.pathsep.join([_fastdt_parent()] + [
        p for p in [env.get("PYTHONPATH")] if p])
    if threads is not None:
        env["NUMBA_NUM_THREADS"] = str(int(threads))
    res = subprocess.run([sys.executable, "-c", _CHILD, ",".join(phases)], env=env,
                         capture_output=True, text=True, timeout=timeout, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"start-up probe failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def demo_seconds(cache_dir, timeout=900):
    """Wall-clock seconds of ``python -m fastdt demo`` (interpreter start included)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    env.pop("NUMBA_DISABLE_JIT", None)
    env["PYTHONPATH"] = os.pathsep.join([_fastdt_parent()] + [
        p for p in [env.get("PYTHONPATH")] if p])
    t = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "fastdt", "demo"], env=env,
                         capture_output=True, text=True, timeout=timeout, check=False)
    took = time.perf_counter() - t
    if res.returncode != 0:
        raise RuntimeError(f"fastdt demo failed:\n{res.stderr}")
    return took


# Runs in a fresh interpreter twice (the first fills the cache): numba's fixed cost.
_FLOOR = r'''
import json, time
t0 = time.perf_counter()
import numpy as np
import numba
t1 = time.perf_counter()
from floor_kernel import total
total(np.ones(10))
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first_call": t2 - t1}))
'''

_FLOOR_KERNEL = """
import numba


@numba.njit(cache=True)
def total(a):
    s = 0.0
    for x in a:
        s += x
    return s
"""


def floor_seconds(cache_dir, timeout=300):
    """numba's fixed cost in a fresh process with a filled cache (see ``--floor``):
    ``{"import": numpy + numba, "first_call": first call of a cached kernel}``."""
    src = os.path.join(str(cache_dir), "src")
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(src, "floor_kernel.py"), "w") as f:
        f.write(_FLOOR_KERNEL)
    env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(str(cache_dir), "cache"))
    env.pop("NUMBA_DISABLE_JIT", None)
    env["PYTHONPATH"] = src
    for _ in range(2):  # the first run compiles and fills the cache
        res = subprocess.run([sys.executable, "-c", _FLOOR], env=env, capture_output=True,
                             text=True, timeout=timeout, check=False)
        if res.returncode != 0:
            raise RuntimeError(f"floor probe failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def _fastdt_parent():
    import importlib.util

    spec = importlib.util.find_spec("fastdt")
    if spec is None:  # a checkout without an install
        return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.dirname(os.path.dirname(os.path.abspath(spec.origin)))


def _spread(values):
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:.2f}"
    return f"{med:.2f} ({min(values):.2f}-{max(values):.2f})"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3, help="fresh processes per state")
    p.add_argument("--phases", default=",".join(PHASES),
                   help="comma-separated phases, run in this order")
    p.add_argument("--top", type=int, default=15, help="kernels listed by compile time")
    p.add_argument("--threads", type=int, default=None, help="NUMBA_NUM_THREADS")
    p.add_argument("--demo", action="store_true",
                   help="also time `python -m fastdt demo` with an empty cache")
    p.add_argument("--floor", action="store_true",
                   help="also time numba's own fixed cost with a filled cache")
    p.add_argument("--json", default=None, help="write every measurement to this file")
    args = p.parse_args(argv)
    phases = [s for s in args.phases.split(",") if s]
    unknown = sorted(set(phases) - set(PHASES))
    if unknown or "import" not in phases:
        p.error(f"phases are {', '.join(PHASES)} ('import' included); unknown: {unknown}")

    cold, warm, demo, floor = [], [], [], []
    for r in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="fastdt-startup-") as d:
            cold.append(run_phases(d, phases, args.threads))
            warm.append(run_phases(d, phases, args.threads))
        if args.demo:
            with tempfile.TemporaryDirectory(prefix="fastdt-demo-") as d:
                demo.append(demo_seconds(d))
        if args.floor:
            with tempfile.TemporaryDirectory(prefix="fastdt-floor-") as d:
                floor.append(floor_seconds(d))
        print(f"run {r + 1}/{args.repeat}: cold "
              + ", ".join(f"{k} {v:.2f}" for k, v in cold[-1]["times"].items()),
              file=sys.stderr, flush=True)

    import numba

    print(f"fastdt start-up, {args.repeat} fresh process(es) per column; numba "
          f"{numba.__version__}, {os.cpu_count()} CPUs, threads "
          f"{args.threads or numba.config.NUMBA_NUM_THREADS}. Seconds: median (min-max).")
    print()
    print("| phase | cold (empty cache) | cold, cumulative | warm (filled cache) |")
    print("|---|---:|---:|---:|")
    cum = [0.0] * len(cold)
    for ph in phases:
        for i, run in enumerate(cold):
            cum[i] += run["times"][ph]
        print(f"| {ph} | {_spread([c['times'][ph] for c in cold])} | {_spread(cum)} | "
              f"{_spread([w['times'][ph] for w in warm])} |")
    if demo:
        print(f"| `python -m fastdt demo` end to end (empty cache, interpreter start "
              f"included) | {_spread(demo)} | | |")
    if floor:
        imp = [f["import"] for f in floor]
        call = [f["first_call"] for f in floor]
        both = [a + b for a, b in zip(imp, call)]
        print(f"| numba's floor, filled cache: import numpy + numba {_spread(imp)}, first "
              f"call of a cached one-loop kernel {_spread(call)} | | | {_spread(both)} |")
    print()
    # kernels by compile time (median over the cold runs)
    names = set().union(*(c["compile"] for c in cold))
    rows = []
    for name in names:
        secs = [c["compile"].get(name, [0.0, 0])[0] for c in cold]
        n_sig = max(c["compile"].get(name, [0.0, 0])[1] for c in cold)
        rows.append((statistics.median(secs), n_sig, name))
    rows.sort(reverse=True)
    total = statistics.median(sum(v[0] for v in c["compile"].values()) for c in cold)
    print(f"Compilation, cold: {total:.1f} s in {len(names)} dispatchers (median over runs); "
          f"the {args.top} costliest, exclusive of the kernels they call:")
    print()
    print("| kernel | seconds | signatures |")
    print("|---|---:|---:|")
    for secs, n_sig, name in rows[:args.top]:
        print(f"| `{name}` | {secs:.2f} | {n_sig} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cold": cold, "warm": warm, "demo": demo, "floor": floor}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

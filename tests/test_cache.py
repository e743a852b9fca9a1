"""numba's on-disk cache of fastdt's kernels (``fastdt._jit``): stale code never runs,
the user-wide cache, read-only installs, caches shared across thread counts, the notice
of a first compilation, and where the stale-cache guard looks and writes its stamp.

Every test runs fresh Python processes on a copy of the package in ``tmp_path`` (first
on ``PYTHONPATH``), with ``HOME`` and ``XDG_CACHE_HOME`` inside ``tmp_path`` too, so
that no cache outside ``tmp_path`` is read or written. A cold fit compiles for about
10 s: the data are tiny and each test compiles as few kernels as it needs.

We run as root in CI, where no directory is read-only: a location is made unusable by
making its path go through a regular file.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    os.environ.get("NUMBA_DISABLE_JIT", "0") == "1", reason="no numba cache without the JIT"
)

SOURCE = Path(__file__).resolve().parents[1] / "fastdt"
NOTICE = "fastdt: compiling"

# Run before the test's code in every child: counts compilations of fastdt kernels
# (numba fires ``numba:compile`` only when no cached kernel fits) and saves results.
PRELUDE = '''
import sys
import numpy as np
from numba.core import event

COMPILED = []


class _Count(event.Listener):
    def on_start(self, ev):
        func = ev.data["dispatcher"].py_func
        if (getattr(func, "__module__", "") or "").startswith("fastdt."):
            COMPILED.append(func.__qualname__)

    def on_end(self, ev):
        pass


event.register("numba:compile", _Count())
import fastdt
from fastdt.tree import FIELDS

OUT = sys.argv[1]


def save(trees, **extra):
    """The trees' arrays, ``extra`` and the count of compiled kernels into OUT."""
    arrays = {f"{k}.{f}": getattr(t, f) for k, t in trees.items() for f in FIELDS}
    np.savez(OUT, compiled=len(COMPILED), package=fastdt.__file__, **arrays, **extra)
'''

# A regression tree on 60 rows: an exact fit caches about 20 kernels (no predict).
FIT_TINY = '''
rng = np.random.default_rng(0)
X = rng.normal(size=(60, 3))
y = 2.0 * X[:, 0] + X[:, 1] + 0.1 * rng.normal(size=60)
save({"reg": fastdt.fit(X, y, max_depth=2, splitter="best")})
'''

# The callee edited between processes: the squared-error proxy of a regression split in
# ``_criteria.py``, negated (the worst split wins). Only ``_exact_scan.py``'s kernels
# call it (inlined ``score_candidate``), so numba's own check, keyed on the caller's
# file, would load the stale scan from the cache.
CALLEE = "fastdt/_criteria.py"
PROXY = "        return sl * sl / wl + sr * sr / wr\n"
PROXY_EDITED = "        return -(sl * sl / wl + sr * sr / wr)\n"


def _copy(tmp_path):
    """A copy of the package, without caches, as ``tmp_path/src/fastdt``."""
    root = tmp_path / "src"
    shutil.copytree(SOURCE, root / "fastdt",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", "*.sha1"))
    return root


def _block_in_tree(root):
    """Make every package folder's ``__pycache__`` unusable (a file in its place)."""
    for init in (root / "fastdt").rglob("__init__.py"):
        (init.parent / "__pycache__").write_text("not a directory")


def _env(tmp_path, root, **extra):
    """The children's environment: the copy first on PYTHONPATH, no NUMBA_* or FASTDT_*
    setting of ours, HOME and XDG_CACHE_HOME in tmp_path, FASTDT_QUIET=1; ``extra``
    overrides (None removes a variable)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NUMBA_", "FASTDT_")) and k not in ("HOME", "XDG_CACHE_HOME")}
    path = os.environ.get("PYTHONPATH")
    env.update(
        PYTHONPATH=str(root) + (os.pathsep + path if path else ""),
        HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "xdg"), FASTDT_QUIET="1",
    )
    env.update(extra)
    return {k: v for k, v in env.items() if v is not None}


def _run(env, code, out, *flags):
    """Run PRELUDE + code in a fresh interpreter; return (saved arrays, stderr).
    A variable of ``env`` set to None is left out."""
    env = {k: v for k, v in env.items() if v is not None}
    proc = subprocess.run(
        [sys.executable, *flags, "-c", PRELUDE + code, str(out)], env=env,
        cwd=out.parent, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    with np.load(out) as f:
        data = dict(f)
    # the copy was imported, not the repository's package
    first = Path(env["PYTHONPATH"].split(os.pathsep)[0])
    assert Path(str(data.pop("package"))) == first / "fastdt" / "__init__.py"
    return data, proc.stderr


def _same(a, b):
    """The arrays of two runs are equal bit for bit (dtype, shape and bytes)."""
    keys = set(a) - {"compiled"}
    if keys != set(b) - {"compiled"}:
        return False
    return all(a[k].dtype == b[k].dtype and a[k].shape == b[k].shape
               and a[k].tobytes() == b[k].tobytes() for k in keys)


def _edit_callee(root):
    path = root / CALLEE
    src = path.read_text()
    assert src.count(PROXY) == 1
    path.write_text(src.replace(PROXY, PROXY_EDITED))


def _notices(stderr):
    return [line for line in stderr.splitlines() if line.startswith(NOTICE)]


def _fingerprint(root):
    from fastdt._jit import fingerprint

    return fingerprint(root / "fastdt")


def _stale_callee_scenario(tmp_path, root, env):
    """Fit; edit the callee; fit again with the same cache. Returns the two fits' results
    and the reference: the edited code run without the JIT (so without a cache)."""
    before, err = _run(env, FIT_TINY, tmp_path / "before.npz")
    assert before["compiled"] > 0 and not _notices(err)  # FASTDT_QUIET=1
    _edit_callee(root)
    after, _ = _run(env, FIT_TINY, tmp_path / "after.npz")
    reference, _ = _run(
        dict(env, NUMBA_DISABLE_JIT="1", NUMBA_CACHE_DIR=str(tmp_path / "unused")),
        FIT_TINY, tmp_path / "reference.npz",
    )
    assert not _same(before, reference)  # the edit changes the tree
    # the guard dropped every cached kernel (numba alone recompiles _criteria's only)
    assert after["compiled"] == before["compiled"]
    return before, after, reference


# ----------------------------------------------------------------------- stale code


def test_edited_callee_is_picked_up_numba_cache_dir(tmp_path):
    root = _copy(tmp_path)
    cache = tmp_path / "numba_cache"
    env = _env(tmp_path, root, NUMBA_CACHE_DIR=str(cache))
    _, after, reference = _stale_callee_scenario(tmp_path, root, env)
    assert _same(after, reference)  # not the stale scan of the first process
    assert list(cache.glob("fastdt_*/*.nbi"))
    assert not list((root / "fastdt" / "__pycache__").glob("*.nbi"))


def test_edited_callee_is_picked_up_user_wide_cache(tmp_path):
    root = _copy(tmp_path)
    _block_in_tree(root)  # in-tree unusable
    env = _env(tmp_path, root, NUMBA_CACHE_DIR=None)
    user_wide = tmp_path / "xdg" / "numba"  # numba's appdirs user_cache_dir
    before, after, reference = _stale_callee_scenario(tmp_path, root, env)
    assert _same(after, reference)
    (cached,) = {p.parent for p in user_wide.glob("fastdt_*/*.nbi")}
    assert len(list(cached.glob("*.nbc"))) == before["compiled"]  # one per signature
    assert (cached / "fastdt-kernels.sha1").read_text() == _fingerprint(root)
    assert (root / "fastdt" / "__pycache__").is_file()
    assert not list((tmp_path / "home").rglob("*.nbi"))


# ----------------------------------------------------------------------- read-only


def test_read_only_install_compiles_without_cache(tmp_path):
    root = _copy(tmp_path)
    blocker = tmp_path / "afile"
    blocker.write_text("a file, not a directory")
    _block_in_tree(root)
    env = _env(tmp_path, root, NUMBA_CACHE_DIR=str(blocker / "cache"),
               HOME=str(blocker / "home"), XDG_CACHE_HOME=str(blocker / "xdg"))
    code = '''
rng = np.random.default_rng(0)
X = rng.normal(size=(60, 3))
y = np.where(X[:, 0] > 0.2, "a", "b")
tree = fastdt.fit(X, y, max_depth=2, splitter="best")
pred = fastdt.predict(tree, X)
from fastdt import _jit
save({"clf": tree}, accuracy=np.mean(pred == y), cache=_jit.CACHE)
'''
    # -W always: a warning given more than once would show more than once
    data, err = _run(env, code, tmp_path / "out.npz", "-W", "always")
    assert not data["cache"]  # fastdt._jit.CACHE
    assert data["compiled"] > 0 and data["accuracy"] == 1.0
    assert "Traceback" not in err
    warned = [line for line in err.splitlines() if "Warning:" in line]
    assert len(warned) == 1, err
    assert "RuntimeWarning: fastdt: numba finds no writable place" in warned[0]
    assert not list(tmp_path.rglob("*.nbi")) and not list(tmp_path.rglob("*.sha1"))


# ----------------------------------------------------------------------- thread counts

# Fills the cache with 2 threads, loads it with 1: a cache written under one thread count
# must load, and give the same trees, under another (guards numba issue 8578). 20,000 x 5
# values: above _parallel.SERIAL_WORK, so the kernels do run on 2 threads at first.
FIT_THREADS = '''
from fastdt import _parallel

rng = np.random.default_rng(1)
n = 20_000
X = rng.normal(size=(n, 5))
yc = (X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(np.int64) + (X[:, 2] > 1)
yr = 2.0 * X[:, 0] + np.sin(X[:, 3]) + 0.1 * rng.normal(size=n)
trees, preds = {}, {}
for splitter in ("best", "hist"):
    clf = fastdt.fit(X, yc, max_depth=4, splitter=splitter)
    reg = fastdt.fit(X, yr, max_depth=4, splitter=splitter)
    trees[f"clf_{splitter}"], trees[f"reg_{splitter}"] = clf, reg
    preds[f"proba_{splitter}"] = fastdt.predict_proba(clf, X)
    preds[f"label_{splitter}"] = fastdt.predict(clf, X)
    preds[f"pred_{splitter}"] = fastdt.predict(reg, X)
save(trees, threads=_parallel.n_threads(X.size), **preds)
'''


def test_cache_filled_with_two_threads_serves_one(tmp_path):
    root = _copy(tmp_path)
    env = _env(tmp_path, root, NUMBA_CACHE_DIR=str(tmp_path / "numba_cache"))
    two, _ = _run(dict(env, NUMBA_NUM_THREADS="2"), FIT_THREADS, tmp_path / "two.npz")
    assert two.pop("threads") == 2 and two["compiled"] > 0
    one, err = _run(dict(env, NUMBA_NUM_THREADS="1", FASTDT_QUIET=None), FIT_THREADS,
                    tmp_path / "one.npz")
    assert one.pop("threads") == 1
    assert one["compiled"] == 0 and not _notices(err)  # every kernel from the cache
    assert _same(one, two)


# ----------------------------------------------------------------------- notice


def test_first_compilation_notice(tmp_path):
    root = _copy(tmp_path)
    env = _env(tmp_path, root, NUMBA_CACHE_DIR=str(tmp_path / "numba_cache"), FASTDT_QUIET=None)
    cold, err = _run(env, FIT_TINY, tmp_path / "cold.npz")
    assert cold["compiled"] > 1 and len(_notices(err)) == 1, err  # one line for many kernels
    assert err.count(NOTICE) == 1
    warm, err = _run(env, FIT_TINY, tmp_path / "warm.npz")
    assert warm["compiled"] == 0 and not _notices(err)
    assert _same(cold, warm)
    # FASTDT_QUIET=1, fresh cache: a compilation, no notice (one small kernel suffices:
    # the notice comes from any fastdt kernel's first compilation)
    code = '''
from fastdt import _exact_scan
assert _exact_scan.target_stat(0, 2.0) == 4.0
save({})
'''
    quiet, err = _run(dict(env, FASTDT_QUIET="1", NUMBA_CACHE_DIR=str(tmp_path / "other")),
                      code, tmp_path / "quiet.npz")
    assert quiet["compiled"] == 1 and NOTICE not in err


# ----------------------------------------------------------------------- the guard

# Imports every kernel module (no compilation) and reports, for each kernel, the
# directory its numba cache uses, and the guard's view (fastdt._jit.cache_dirs).
LOCATE = '''
import importlib, json, pkgutil
from numba.core.dispatcher import Dispatcher
from fastdt import _jit

used_by_kernels = set()
for m in pkgutil.walk_packages(fastdt.__path__, "fastdt."):
    name = m.name.rsplit(".", 1)[1]
    if name.startswith("_") and name != "__main__" or name == "kernels":
        module = importlib.import_module(m.name)
        for obj in vars(module).values():
            if isinstance(obj, Dispatcher) and obj.__module__ == module.__name__:
                used_by_kernels.add(obj._cache.cache_path)
print(json.dumps({"kernels": sorted(used_by_kernels),
                  "dirs": [[str(p), used] for p, used in _jit.cache_dirs()]}))
save({})
'''


def _locate(tmp_path, env):
    import json

    proc = subprocess.run([sys.executable, "-c", PRELUDE + LOCATE, str(tmp_path / "x.npz")],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    return out["kernels"], {Path(p): used for p, used in out["dirs"]}


@pytest.mark.parametrize("where", ["NUMBA_CACHE_DIR", "in-tree", "user-wide", "symlink"])
def test_stamp_is_where_numba_writes(tmp_path, where):
    root = _copy(tmp_path)
    env = _env(tmp_path, root, NUMBA_CACHE_DIR=str(tmp_path / "numba_cache"))
    if where in ("in-tree", "user-wide"):
        del env["NUMBA_CACHE_DIR"]
    if where == "user-wide":
        _block_in_tree(root)
    if where == "symlink":  # numba names NUMBA_CACHE_DIR's subdirectory after the
        # package's path as imported, the link's (fastdt_<sha1 of the path>)
        (tmp_path / "link").symlink_to(root, target_is_directory=True)
        env["PYTHONPATH"] = str(tmp_path / "link") + env["PYTHONPATH"][len(str(root)):]
    kernels, dirs = _locate(tmp_path, env)
    # one cache per folder of kernel modules (fastdt/, fastdt/ensemble/, fastdt/multiway/)
    folders = [root / "fastdt", root / "fastdt" / "ensemble", root / "fastdt" / "multiway"]
    k = len(folders)
    assert len(kernels) == k and len(dirs) == k * (3 - (where in ("in-tree", "user-wide")))
    used = sorted(p for p, u in dirs.items() if u)
    assert [str(p) for p in used] == sorted(kernels)  # created by the import (but in-tree)
    for u in used:
        assert (u / "fastdt-kernels.sha1").read_text() == _fingerprint(root)
    for folder in folders:
        expected = {
            "NUMBA_CACHE_DIR": tmp_path / "numba_cache", "in-tree": folder,
            "user-wide": tmp_path / "xdg" / "numba", "symlink": tmp_path / "numba_cache",
        }[where]
        assert sum(u.parent == expected for u in used) == (k if expected not in folders else 1)
    for p, u in dirs.items():  # nothing written where numba does not write
        assert u or not (p / "fastdt-kernels.sha1").exists()


def test_stale_stamp_drops_cached_kernels(tmp_path):
    root = _copy(tmp_path)
    env = _env(tmp_path, root, NUMBA_CACHE_DIR=str(tmp_path / "numba_cache"))
    _, dirs = _locate(tmp_path, env)
    subpackages = ("ensemble", "multiway")
    top = {p: u for p, u in dirs.items() if not p.name.startswith(subpackages)
           and p.parent.name not in subpackages}  # the caches of fastdt/'s own modules
    (used,) = [p for p, u in top.items() if u]
    (in_tree,) = [p for p in top if p.parent == root / "fastdt"]
    (user_wide,) = [p for p in top if p.parent == tmp_path / "xdg" / "numba"]
    stamp = _fingerprint(root)

    def plant(d, *names, mark=None):
        d.mkdir(parents=True, exist_ok=True)
        for name in names:
            (d / name).write_text("")
        if mark is not None:
            (d / "fastdt-kernels.sha1").write_text(mark)

    plant(used, "k.py311.nbi", "k.py311.1.nbc", "other.txt", mark="0" * 40)  # stale
    plant(in_tree, "m.py311.nbi", "m.py311.1.nbc", mark=stamp)  # current, not used now
    plant(user_wide, "u.py311.nbi", "u.py311.1.nbc")  # no stamp: of unknown code
    _locate(tmp_path, env)
    assert sorted(p.name for p in used.iterdir()) == ["fastdt-kernels.sha1", "other.txt"]
    assert (used / "fastdt-kernels.sha1").read_text() == stamp
    assert {"m.py311.nbi", "m.py311.1.nbc"} <= {p.name for p in in_tree.iterdir()}
    assert not list(user_wide.iterdir())  # and no stamp where numba does not write
    # a current stamp keeps the kernels; an edit anywhere in the package drops them
    plant(used, "k.py311.nbi", "k.py311.1.nbc")
    _locate(tmp_path, env)
    assert (used / "k.py311.nbi").exists() and (used / "k.py311.1.nbc").exists()
    with open(root / "fastdt" / "_config.py", "a") as f:
        f.write("\n# edited\n")
    _locate(tmp_path, env)
    assert not list(used.glob("*.nb?")) and not list(in_tree.glob("*.nb?"))
    assert (used / "fastdt-kernels.sha1").read_text() == _fingerprint(root) != stamp

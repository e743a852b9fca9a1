"""numba's on-disk cache of fastdt's kernels (``fastdt._jit``): where the stale-cache
guard looks and writes its stamp.

Every test runs fresh Python processes on a copy of the package in ``tmp_path`` (first
on ``PYTHONPATH``), with ``HOME`` and ``XDG_CACHE_HOME`` inside ``tmp_path`` too, so
that no cache outside ``tmp_path`` is read or written.

We run as root in CI, where no directory is read-only: a location is made unusable by
making its path go through a regular file.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    os.environ.get("NUMBA_DISABLE_JIT", "0") == "1", reason="no numba cache without the JIT"
)

SOURCE = Path(__file__).resolve().parents[1] / "fastdt"

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

def _copy(tmp_path):
    """A copy of the package, without caches, as ``tmp_path/src/fastdt``."""
    root = tmp_path / "src"
    shutil.copytree(SOURCE, root / "fastdt",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", "*.sha1"))
    return root


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


def _fingerprint(root):
    from fastdt._jit import fingerprint

    return fingerprint(root / "fastdt")


# ----------------------------------------------------------------------- the guard

# Imports every kernel module (no compilation) and reports, for each kernel, the
# directory its numba cache uses, and the guard's view (fastdt._jit.cache_dirs).
LOCATE = '''
import importlib, json, pkgutil
from numba.core.dispatcher import Dispatcher
from fastdt import _jit

used_by_kernels = set()
for m in pkgutil.iter_modules(fastdt.__path__):
    if m.name.startswith("_") and m.name != "__main__" or m.name == "kernels":
        module = importlib.import_module("fastdt." + m.name)
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
        (root / "fastdt" / "__pycache__").write_text("not a directory")
    if where == "symlink":  # numba names NUMBA_CACHE_DIR's subdirectory after the
        # package's path as imported, the link's (fastdt_<sha1 of the path>)
        (tmp_path / "link").symlink_to(root, target_is_directory=True)
        env["PYTHONPATH"] = str(tmp_path / "link") + env["PYTHONPATH"][len(str(root)):]
    kernels, dirs = _locate(tmp_path, env)
    assert len(kernels) == 1 and len(dirs) == 3 - (where in ("in-tree", "user-wide"))
    (used,) = [p for p, u in dirs.items() if u]
    assert str(used) == kernels[0]  # it did not exist before the import (but in-tree)
    assert (used / "fastdt-kernels.sha1").read_text() == _fingerprint(root)
    expected = {
        "NUMBA_CACHE_DIR": tmp_path / "numba_cache", "in-tree": root / "fastdt",
        "user-wide": tmp_path / "xdg" / "numba", "symlink": tmp_path / "numba_cache",
    }[where]
    assert used.parent == expected
    for p, u in dirs.items():  # nothing written where numba does not write
        assert u or not (p / "fastdt-kernels.sha1").exists()


def test_stale_stamp_drops_cached_kernels(tmp_path):
    root = _copy(tmp_path)
    env = _env(tmp_path, root, NUMBA_CACHE_DIR=str(tmp_path / "numba_cache"))
    _, dirs = _locate(tmp_path, env)
    (used,) = [p for p, u in dirs.items() if u]
    (in_tree,) = [p for p in dirs if p.parent == root / "fastdt"]
    (user_wide,) = [p for p in dirs if p.parent == tmp_path / "xdg" / "numba"]
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

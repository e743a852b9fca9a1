"""``python -m fastdt warmup``: it compiles every kernel a user can reach, and afterwards
a process compiles nothing."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fastdt
from fastdt.__main__ import main
from fastdt._warmup import GROUPS, warmup

PKG = Path(fastdt.__file__).parent

# Runs the warm-up in a fresh process; prints the kernels numba compiled (cache misses).
_CHILD = r"""
import json, sys
from numba.core import event
compiled = set()
class L(event.Listener):
    def on_start(self, ev):
        f = ev.data["dispatcher"].py_func
        compiled.add(f"{f.__module__}.{f.__qualname__}")
    def on_end(self, ev):
        pass
event.register("numba:compile", L())
from fastdt._warmup import warmup
warmup(quiet=True)
print(json.dumps(sorted(k for k in compiled if k.startswith("fastdt."))))
"""


def _kernels():
    """Every ``@JIT``/``@PJIT`` function of the package (``INLINE`` helpers are inlined
    into their callers and never compiled on their own)."""
    out = set()
    for path in PKG.rglob("*.py"):
        module = ".".join(("fastdt", *path.relative_to(PKG).with_suffix("").parts))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                for dec in node.decorator_list:
                    if getattr(dec, "id", None) in ("JIT", "PJIT"):
                        out.add(f"{module}.{node.name}")
    return out


def _run(cache):
    """The kernels a warm-up compiles in a fresh process, with ``cache`` as
    ``NUMBA_CACHE_DIR`` (None: the tests' own cache)."""
    env = dict(os.environ, FASTDT_QUIET="1")
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    env.pop("NUMBA_DISABLE_JIT", None)
    env["PYTHONPATH"] = os.pathsep.join([str(PKG.parent), env.get("PYTHONPATH", "")])
    res = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                         text=True, timeout=1800, check=True)
    return set(json.loads(res.stdout.strip().splitlines()[-1]))


def _empty_cache():
    """Whether the cache this process's kernels use holds none yet (a fresh clone)."""
    from fastdt._jit import cache_dirs

    return not any(any(path.glob("*.nbi")) for path, used in cache_dirs() if used)


@pytest.mark.slow
def test_warmup_compiles_every_kernel_and_then_nothing(tmp_path):
    """From an empty cache the warm-up compiles every kernel; a second process loads them.

    The empty cache is the tests' own when it holds no kernel yet (a fresh clone: CI
    runs ``pytest -m slow`` first, so that the fast suite loads what this compiled
    instead of compiling it again), else a new one in ``tmp_path``.
    """
    if os.environ.get("NUMBA_DISABLE_JIT") == "1":
        pytest.skip("JIT disabled")
    cache = None if _empty_cache() else tmp_path
    first = _run(cache)
    missed = _kernels() - first
    assert not missed, f"kernels the warm-up does not compile: {sorted(missed)}"
    assert _run(cache) == set(), "a second warm-up compiled kernels: the cache missed"


def test_groups_and_errors(capsys):
    assert fastdt.warmup is warmup and "warmup" in fastdt.__all__
    assert main(["warmup", "--list"]) == 0
    listed = capsys.readouterr().out.split()
    assert all(g in listed for g in GROUPS)
    assert main(["warmup", "nonsense"]) == 2
    assert "unknown warm-up group(s) 'nonsense'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown warm-up group"):
        warmup(["nonsense"], quiet=True)


def test_one_group_reports_its_time(capsys):
    assert main(["warmup", "rules"]) == 0
    err = capsys.readouterr().err
    assert "1/1 rules done in" in err and "fastdt warm-up: 1 group(s)" in err

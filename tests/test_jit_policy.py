"""The numba policy: every kernel uses the presets of ``_jit`` (cache=True, nogil, no
fastmath), kernels live only in ``_*.py`` modules and ``kernels.py``, ``import fastdt``
loads neither numba nor pandas, and a kernel compiles one signature per variant: one per
dtype of X (float32, float64) or of the bin codes (uint8, uint16), and per optional
argument given or None (the specialisations), never twice the same variant (as numba
does for an argument typed ``Literal``)."""

import ast
import sys
from pathlib import Path

import numpy as np
import pytest

import fastdt
from fastdt import _jit

PKG = Path(fastdt.__file__).parent


def _decorated(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                yield node, dec


def _name(dec):
    target = dec.func if isinstance(dec, ast.Call) else dec
    if isinstance(target, ast.Attribute):
        return target.attr
    return getattr(target, "id", None)


def test_presets_are_cached_and_exact():
    assert _jit.CACHE is True  # a writable cache here (read-only installs: test_cache.py)
    assert _jit.JIT_OPTIONS["cache"] is True
    assert _jit.PJIT_OPTIONS["cache"] is True and _jit.PJIT_OPTIONS["parallel"] is True
    for opts in (_jit.JIT_OPTIONS, _jit.PJIT_OPTIONS):
        assert "fastmath" not in opts
    assert _jit.INLINE_OPTIONS["cache"] is True and "fastmath" not in _jit.INLINE_OPTIONS
    # no reference counting, otherwise the JIT preset
    assert _jit.NOREF_OPTIONS == dict(_jit.JIT_OPTIONS, _nrt=False)


def test_import_loads_neither_numba_nor_pandas():
    import subprocess
    import sys

    code = ("import sys, fastdt; "
            "print(sorted(m for m in ('numba', 'pandas', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_every_kernel_uses_a_preset():
    kernels = 0
    for path in PKG.rglob("*.py"):
        src = path.read_text()
        assert "fastmath" not in src or path.name == "_jit.py", path
        for func, dec in _decorated(ast.parse(src)):
            name = _name(dec)
            assert name not in ("njit", "jit", "vectorize", "guvectorize", "jitclass"), (
                f"{path.name}:{func.name} uses numba directly; use a preset of _jit"
            )
            if name in ("JIT", "PJIT", "INLINE", "NOREF"):
                kernels += 1
                assert path.name.startswith("_") or path.name == "kernels.py", (
                    f"{path.name}:{func.name}: kernels live in _*.py modules or kernels.py"
                )
    assert kernels >= 10


def test_signature_count(monkeypatch):
    import os

    if os.environ.get("NUMBA_DISABLE_JIT") == "1":
        pytest.skip("JIT disabled")
    import fastdt as fd
    from fastdt import _exact_codes

    monkeypatch.setattr(_exact_codes, "MIN_ROWS", 0)  # these 200 rows coded too

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    Xc = X.copy()
    Xc[:, 2] = rng.integers(0, 5, 200)
    Xc[rng.random(Xc.shape) < 0.1] = np.nan
    from fastdt.inspection import permutation_importance

    for dtype in (np.float32, np.float64):
        for weights in (None, rng.uniform(0.5, 1.5, 200)):
            t = fd.fit(X.astype(dtype), y, sample_weight=weights, max_depth=3)
            fd.predict_proba(t, X.astype(dtype))
            fd.decision_path(t, X.astype(dtype))
            permutation_importance(t, X.astype(dtype), y, n_repeats=1, sample_weight=weights)
            # few-valued integer features, coded (fastdt._exact_codes): the histogram
            # scan's signatures, not new ones
            Xi = np.round(X * 3).astype(dtype)
            fd.fit(Xi, y, max_depth=3)
            Xi[rng.random(Xi.shape) < 0.1] = np.nan
            fd.fit(Xi, y, max_depth=3)
            tc = fd.fit(Xc.astype(dtype), y, max_depth=3, categorical_features=[2])
            permutation_importance(tc, Xc.astype(dtype), y, n_repeats=1)
            fd.fit(X.astype(dtype), X[:, 1], max_depth=3, max_leaf_nodes=4, max_features=2,
                   random_state=0)
            Y2 = np.column_stack([y, (X[:, 2] > 0).astype(int)])  # several outputs
            Yr = np.column_stack([X[:, 1], X[:, 2]]).astype(np.float64)
            for target in (Y2, Yr):
                fd.fit(Xc.astype(dtype), target, max_depth=3, sample_weight=weights)
                fd.fit(X.astype(dtype), target, max_depth=3, splitter="random", random_state=0)
            for splitter in ("best", "random"):  # absolute error, monotonic constraints
                fd.fit(Xc.astype(dtype), X[:, 1], max_depth=3, criterion="absolute_error",
                       splitter=splitter, sample_weight=weights)
                fd.fit(X.astype(dtype), y, max_depth=3, splitter=splitter,
                       monotonic_cst=[1] + [0] * (X.shape[1] - 1), random_state=0)
            for missing in ("fractional", "surrogate"):
                tm = fd.fit(Xc.astype(dtype), y, sample_weight=weights, max_depth=3,
                            missing=missing, categorical_features=[2])
                fd.predict(tm, Xc.astype(dtype))
            for splitter_params in ({"max_bins": 16}, {"max_bins": 300}):  # uint8, uint16
                fd.fit(X.astype(dtype), y, sample_weight=weights, max_depth=3,
                       splitter="hist", **splitter_params)
                fd.fit(X.astype(dtype), X[:, 1], max_depth=3, splitter="hist",
                       sample_weight=weights, **splitter_params)
                # missing values and a categorical feature: the same signatures
                fd.fit(Xc.astype(dtype), y, sample_weight=weights, max_depth=3,
                       splitter="hist", categorical_features=[2], **splitter_params)
    # the single-row kernels of fastdt.kernels are for users' own numba code, which may
    # pass any array layout; the policy is about what fastdt itself compiles
    user_facing = {"leaf_index", "go_left", "in_bitset", "_missing_left"}
    mods = [m for name, m in sorted(sys.modules.items())
            if name.startswith("fastdt.") and m is not None]
    checked = 0
    for mod in mods:
        for name in dir(mod):
            k = getattr(mod, name)
            if name in user_facing or not (hasattr(k, "signatures") and hasattr(k, "py_func")):
                continue
            if k.py_func.__module__ != mod.__name__:
                continue  # imported from another module: counted there
            variants = {}
            for sig in k.signatures:
                text = str(sig)
                assert "Literal" not in text, f"{mod.__name__}.{name}: {text}"
                for a, b in (("float32", "float64"), ("uint16", "uint8")):
                    text = text.replace(a, b)
                variants[text] = variants.get(text, 0) + 1
            limit = 4 if name in ("bin_columns", "_gather_columns") else 2  # X and codes
            for text, count in variants.items():
                assert count <= limit, f"{mod.__name__}.{name}: {count} x {text}"
            checked += 1
    assert checked >= 20

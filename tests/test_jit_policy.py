"""The numba policy: every kernel uses the presets of ``_config`` (cache=True, nogil, no
fastmath), kernels live only in ``_*.py`` modules and ``kernels.py``, and each kernel
compiles for at most two signatures (float32 and float64 X, or uint8 and uint16 codes;
the binning kernel, which reads X and writes codes, four)."""

import ast
from pathlib import Path

import numpy as np
import pytest

import fastdt
from fastdt import _config

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
    assert _config.JIT_OPTIONS["cache"] is True
    assert _config.PJIT_OPTIONS["cache"] is True and _config.PJIT_OPTIONS["parallel"] is True
    for opts in (_config.JIT_OPTIONS, _config.PJIT_OPTIONS):
        assert "fastmath" not in opts
    assert _config.INLINE_OPTIONS["cache"] is True and "fastmath" not in _config.INLINE_OPTIONS


def test_every_kernel_uses_a_preset():
    kernels = 0
    for path in PKG.glob("*.py"):
        src = path.read_text()
        assert "fastmath" not in src or path.name == "_config.py", path
        for func, dec in _decorated(ast.parse(src)):
            name = _name(dec)
            assert name not in ("njit", "jit", "vectorize", "guvectorize", "jitclass"), (
                f"{path.name}:{func.name} uses numba directly; use _config.JIT or PJIT"
            )
            if name in ("JIT", "PJIT", "INLINE"):
                kernels += 1
                assert path.name.startswith("_") or path.name == "kernels.py", (
                    f"{path.name}:{func.name}: kernels live in _*.py modules or kernels.py"
                )
    assert kernels >= 10


def test_signature_count():
    import os

    if os.environ.get("NUMBA_DISABLE_JIT") == "1":
        pytest.skip("JIT disabled")
    from fastdt import (
        _binning, _exact, _grow, _hist, _hist_scan, _missing, _permute, _validate, kernels,
    )
    from fastdt.inspection import permutation_importance

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    Xc = X.copy()
    Xc[:, 2] = rng.integers(0, 5, 200)
    Xc[rng.random(Xc.shape) < 0.1] = np.nan
    for dtype in (np.float32, np.float64):
        for weights in (None, rng.uniform(0.5, 1.5, 200)):
            t = fastdt.fit(X.astype(dtype), y, sample_weight=weights, max_depth=3)
            fastdt.predict_proba(t, X.astype(dtype))
            fastdt.decision_path(t, X.astype(dtype))
            permutation_importance(t, X.astype(dtype), y, n_repeats=1, sample_weight=weights)
            tc = fastdt.fit(Xc.astype(dtype), y, max_depth=3, categorical_features=[2])
            permutation_importance(tc, Xc.astype(dtype), y, n_repeats=1)
            fastdt.fit(X.astype(dtype), X[:, 1], max_depth=3, max_leaf_nodes=4)
            for splitter_params in ({"max_bins": 16}, {"max_bins": 300}):  # uint8, uint16
                fastdt.fit(X.astype(dtype), y, sample_weight=weights, max_depth=3,
                           splitter="hist", **splitter_params)
                fastdt.fit(X.astype(dtype), X[:, 1], max_depth=3, splitter="hist",
                           sample_weight=weights, **splitter_params)
                # missing values and a categorical feature: the same signatures
                fastdt.fit(Xc.astype(dtype), y, sample_weight=weights, max_depth=3,
                           splitter="hist", categorical_features=[2], **splitter_params)
    # the single-row kernels of fastdt.kernels are for users' own numba code, which may
    # pass any array layout; the policy is about what fastdt itself compiles
    user_facing = {"leaf_index", "go_left", "in_bitset", "_missing_left"}
    # binning reads X (float32/float64) and writes codes (uint8/uint16): four at most
    both_dtypes = {"bin_columns"}
    # grow the driver's three node tables (int64, float64, uint64 category bitsets), and
    # the presorted layout's rows (int32 ids, X's dtype, float64): three at most each
    per_table = {"_resize2", "_resize_cols"}
    for mod in (_binning, _exact, _grow, _hist, _hist_scan, _missing, _permute, _validate,
                kernels):
        for name in dir(mod):
            k = getattr(mod, name)
            if name in user_facing:
                continue
            if hasattr(k, "signatures") and hasattr(k, "py_func"):
                limit = 4 if name in both_dtypes else 3 if name in per_table else 2
                assert len(k.signatures) <= limit, (
                    f"{mod.__name__}.{name}: {[str(s) for s in k.signatures]}"
                )

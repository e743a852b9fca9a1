import os
from pathlib import Path

import numpy as np
import pytest

JIT_DISABLED = os.environ.get("NUMBA_DISABLE_JIT", "0") == "1"


def pytest_collection_modifyitems(config, items):
    if not JIT_DISABLED:
        return
    skip = pytest.mark.skip(reason="too slow with NUMBA_DISABLE_JIT=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(scope="session")
def datasets_dir():
    """The shared datasets folder: $FASTDT_DATASETS, else ../shared/datasets."""
    env = os.environ.get("FASTDT_DATASETS")
    path = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
    if not path.is_dir():
        pytest.skip(f"shared datasets not found at {path}")
    return path


@pytest.fixture(scope="session")
def adult(datasets_dir):
    """Adult train/test as float64 arrays, categorical columns ordinal-encoded (codes of
    the sorted levels seen in either split; ``?`` is a level of its own for now)."""
    pd = pytest.importorskip("pandas")
    frames = [pd.read_csv(datasets_dir / name, skipinitialspace=True)
              for name in ("adult.data", "adult.test")]
    for df in frames:
        df["income"] = df["income"].str.rstrip(".")
    both = pd.concat(frames)
    out = []
    for df in frames:
        X = df.drop(columns="income").copy()
        for col in X.columns:
            if not pd.api.types.is_numeric_dtype(X[col]):
                levels = sorted(both[col].unique())
                X[col] = pd.Categorical(X[col], categories=levels).codes
        out += [X.to_numpy(dtype=np.float64), (df["income"] == ">50K").to_numpy(int)]
    return tuple(out)

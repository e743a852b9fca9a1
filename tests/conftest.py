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
def on_each_thread_count():
    """``run(make)``: ``make()`` called with numba on 1 thread and on all of them; returns
    the two results (the thread count restored afterwards)."""
    import numba

    def run(make):
        saved = numba.get_num_threads()
        out = []
        try:
            for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
                numba.set_num_threads(threads)
                out.append(make())
        finally:
            numba.set_num_threads(saved)
        return out[0], out[-1]

    return run


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
    """Adult train/test, categorical columns ordinal-encoded (``fastdt.datasets``)."""
    pytest.importorskip("pandas")
    from fastdt.datasets import load_adult

    return load_adult(datasets_dir)

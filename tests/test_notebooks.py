"""The notebooks run: each is executed from a clean kernel in ``notebooks/`` (as CI does),
and the committed copies carry the outputs of such a run.

The notebooks read the shared datasets (Titanic, Tips, Adult) through
``fastdt.datasets.datasets_folder``; this test passes the folder it found on as
``FASTDT_DATASETS`` and skips when it is absent. Cells check their own numbers
(``assert``), so a notebook that runs is a notebook whose claims hold.
"""

import os
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_the_four_notebooks_are_there():
    assert [p.name for p in NOTEBOOKS] == [
        "01_quickstart.ipynb", "02_impurity.ipynb", "03_pruning.ipynb", "04_dask.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_with_outputs(path):
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.execution_count is not None for c in code), "not executed"
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), \
        "cells were not run in order from a fresh kernel"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_executes(path, datasets_dir, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("FASTDT_DATASETS", str(datasets_dir))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=900, kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError, with the cell, on any failure
    assert all(c.execution_count for c in nb.cells if c.cell_type == "code")

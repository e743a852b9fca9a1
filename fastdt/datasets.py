"""Readers for the project's shared real datasets (not bundled with fastdt).

The files live in a folder beside the repository (``../shared/datasets``) or wherever
``$FASTDT_DATASETS`` points; tests, benchmarks and notebooks read them through here so
that every one of them prepares the data the same way.
"""

import os
from pathlib import Path

import numpy as np

__all__ = ["datasets_folder", "load_adult"]


def datasets_folder(folder=None):
    """The datasets folder: ``folder``, else ``$FASTDT_DATASETS``, else the first
    ``shared/datasets`` found beside the working directory or one of its two parents
    (so that it is found from a checkout and from its ``notebooks/`` folder)."""
    if folder is not None:
        return Path(folder)
    env = os.environ.get("FASTDT_DATASETS")
    if env:
        return Path(env)
    for base in (Path.cwd(), *Path.cwd().parents[:2]):
        candidate = base.parent / "shared" / "datasets"
        if candidate.is_dir():
            return candidate
    return Path.cwd().parent / "shared" / "datasets"


def load_adult(folder=None):
    """UCI Adult, train and test splits, categorical columns ordinal-encoded.

    Each categorical column becomes the code of its level among the sorted levels seen
    in either split (``?``, a missing value, is a level of its own); the target is 1
    for ``>50K``. Returns ``(X_train, y_train, X_test, y_test)`` as float64 / int64
    arrays. Raises ``FileNotFoundError`` when the files are absent.
    """
    import pandas as pd

    path = datasets_folder(folder)
    frames = [pd.read_csv(path / name, skipinitialspace=True)
              for name in ("adult.data", "adult.test")]
    for df in frames:
        df["income"] = df["income"].str.rstrip(".")
    both = pd.concat(frames)
    out = []
    for df in frames:
        X = df.drop(columns="income").copy()
        for col in X.columns:
            if not pd.api.types.is_numeric_dtype(X[col]):
                X[col] = pd.Categorical(X[col], categories=sorted(both[col].unique())).codes
        out += [X.to_numpy(dtype=np.float64), (df["income"] == ">50K").to_numpy(np.int64)]
    return tuple(out)

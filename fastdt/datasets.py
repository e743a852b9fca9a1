"""Readers for the project's shared real datasets (not bundled with fastdt).

The files live in a folder beside the repository (``../shared/datasets``) or wherever
``$FASTDT_DATASETS`` points; tests, benchmarks and notebooks read them through here so
that every one of them prepares the data the same way.
"""

import os
from pathlib import Path

import numpy as np

__all__ = ["datasets_folder", "load_adult", "load_adult_frame", "load_titanic_frame"]


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


def _read_adult(folder):
    """Adult's two files as read (``?`` still a string), the label's trailing ``.``
    stripped."""
    import pandas as pd

    path = datasets_folder(folder)
    frames = [pd.read_csv(path / name, skipinitialspace=True)
              for name in ("adult.data", "adult.test")]
    for df in frames:
        df["income"] = df["income"].str.rstrip(".")
    return frames


def _is_text(dt):
    """A column of strings: object, or pandas' string dtypes (``str`` by default from
    pandas 3); not category, not bool."""
    import pandas as pd

    if isinstance(dt, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dt):
        return False
    return pd.api.types.is_object_dtype(dt) or pd.api.types.is_string_dtype(dt)


def _as_categories(frames):
    """String columns of ``frames`` as pandas ``category`` columns sharing one
    set of categories (the sorted values seen in any frame), so that every split has
    the same dtype; NaN stays missing. Changes the frames in place."""
    import pandas as pd

    both = pd.concat(frames)
    for col in both.columns:
        if _is_text(both[col].dtype):
            dtype = pd.CategoricalDtype(sorted(both[col].dropna().unique()))
            for df in frames:
                df[col] = df[col].astype(dtype)


def load_adult(folder=None):
    """UCI Adult, train and test splits, categorical columns ordinal-encoded.

    Each categorical column becomes the code of its level among the sorted levels seen
    in either split (``?``, a missing value, is a level of its own); the target is 1
    for ``>50K``. Returns ``(X_train, y_train, X_test, y_test)`` as float64 / int64
    arrays. Raises ``FileNotFoundError`` when the files are absent.
    """
    import pandas as pd

    frames = _read_adult(folder)
    both = pd.concat(frames)
    out = []
    for df in frames:
        X = df.drop(columns="income").copy()
        for col in X.columns:
            if not pd.api.types.is_numeric_dtype(X[col]):
                X[col] = pd.Categorical(X[col], categories=sorted(both[col].unique())).codes
        out += [X.to_numpy(dtype=np.float64), (df["income"] == ">50K").to_numpy(np.int64)]
    return tuple(out)


def load_adult_frame(folder=None):
    """UCI Adult, train and test splits as given, as raw pandas DataFrames.

    The 8 string columns are pandas ``category`` columns (categories: the sorted levels
    seen in either split, so both splits share one dtype), ``?`` is missing (NaN in
    workclass, occupation and native-country), the 6 numeric columns are as read
    (int64). The target is 1 for ``>50K``. Returns ``(X_train, y_train, X_test,
    y_test)`` with ``y`` int64 arrays. Raises ``FileNotFoundError`` when the files
    are absent.
    """
    frames = _read_adult(folder)
    out = []
    for df in frames:
        y = (df.pop("income") == ">50K").to_numpy(np.int64)
        for col in df.columns:
            if _is_text(df[col].dtype):
                df[col] = df[col].mask(df[col] == "?")
        out.append((df, y))
    _as_categories([df for df, _ in out])
    return out[0][0], out[0][1], out[1][0], out[1][1]


def load_titanic_frame(folder=None, test_size=0.25, random_state=0):
    """Titanic (seaborn's copy) as raw pandas DataFrames, split in train and test.

    Only ``alive`` (the target spelled ``yes``/``no``) is dropped; the table is kept
    otherwise as it is, redundant columns included (``class`` repeats ``pclass``,
    ``embark_town`` repeats ``embarked``, ``who``/``adult_male`` summarise sex and age,
    none of them is the target). String columns become pandas ``category`` columns
    (categories from the whole file), ``adult_male``/``alone`` stay bool, the rest
    numeric; ``age``, ``embarked``, ``deck`` and ``embark_town`` have missing values.

    The split is stratified on ``survived`` and seeded: for each class, a
    ``numpy.random.default_rng(random_state)`` permutation of its rows puts
    ``round(test_size * n_class)`` of them in the test set; both sets keep the file's
    row order. Returns ``(X_train, y_train, X_test, y_test)`` with ``y`` int64 arrays.
    Raises ``FileNotFoundError`` when the file is absent.
    """
    import pandas as pd

    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size must be in (0, 1), got {test_size!r}")
    df = pd.read_csv(datasets_folder(folder) / "titanic.csv").drop(columns="alive")
    y = df.pop("survived").to_numpy(np.int64)
    _as_categories([df])
    rng = np.random.default_rng(random_state)
    test = np.zeros(y.shape[0], dtype=bool)
    for label in np.unique(y):
        rows = rng.permutation(np.flatnonzero(y == label))
        test[rows[:int(round(test_size * rows.shape[0]))]] = True
    X_train, X_test = (df[~test].reset_index(drop=True), df[test].reset_index(drop=True))
    return X_train, y[~test], X_test, y[test]

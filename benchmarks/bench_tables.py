"""Fitting on a real table as it is: Adult as a pandas DataFrame with string columns
(native categorical) and missing values, once per ``missing=`` strategy; and the same
table ordinal-encoded (categories as numbers), for the cost of native categoricals.

Skipped (``setup`` raises ``NotImplementedError``) when the shared datasets are absent
(``$FASTDT_DATASETS`` or ``../shared/datasets``).
"""

import fastdt

import os

from .common import REPO_ROOT, set_threads, warm_up


def _adult():
    from fastdt.datasets import load_adult_frame

    folder = os.environ.get("FASTDT_DATASETS") or os.path.join(
        os.path.dirname(REPO_ROOT), "shared", "datasets")
    try:
        return load_adult_frame(folder)
    except FileNotFoundError as exc:
        raise NotImplementedError(f"shared datasets not found: {exc}") from exc


class FitAdultTable:
    params = (["learn", "fractional", "surrogate"], [8, None])
    param_names = ["missing", "max_depth"]
    timeout = 300
    number = 1
    repeat = (1, 5, 20.0)
    rounds = 1
    min_run_count = 1
    warmup_time = 0

    def setup(self, missing, max_depth):
        set_threads()
        warm_up()
        self.X, self.y, _, _ = _adult()
        fastdt.fit(self.X.iloc[:500], self.y[:500], missing=missing, max_depth=2)

    def time_fit(self, missing, max_depth):
        fastdt.fit(self.X, self.y, missing=missing, max_depth=max_depth)

    def peakmem_fit(self, missing, max_depth):
        fastdt.fit(self.X, self.y, missing=missing, max_depth=max_depth)


class FitAdultOrdinal:
    params = [[8, None]]
    param_names = ["max_depth"]
    timeout = 300
    number = 1
    repeat = (1, 5, 20.0)
    rounds = 1
    min_run_count = 1
    warmup_time = 0

    def setup(self, max_depth):
        set_threads()
        warm_up()
        X, self.y, _, _ = _adult()
        self.X = X.apply(lambda c: c.cat.codes.where(c.cat.codes >= 0)
                         if hasattr(c, "cat") else c).to_numpy(dtype=float)

    def time_fit(self, max_depth):
        fastdt.fit(self.X, self.y, max_depth=max_depth)

"""Fitting: one exact CART tree, classification (gini) and regression (squared error).

The numba kernels are compiled (or loaded from the cache) in ``setup``; every sample
is one fit (``number = 1``), so the 1e6-row unlimited-depth case stays affordable.
"""

import fastdt

from .common import classification, regression, rows_param, set_threads, warm_up


class _Fit:
    params = (rows_param([100_000, 1_000_000]), [10, None])
    param_names = ["rows", "max_depth"]
    timeout = 600
    number = 1
    repeat = (1, 3, 30.0)
    rounds = 1
    min_run_count = 1
    warmup_time = 0
    criterion = None

    def data(self, rows):
        raise NotImplementedError

    def setup(self, rows, max_depth):
        set_threads()
        warm_up()
        self.X, self.y = self.data(rows)

    def time_fit(self, rows, max_depth):
        fastdt.fit(self.X, self.y, criterion=self.criterion, max_depth=max_depth)

    def peakmem_fit(self, rows, max_depth):
        fastdt.fit(self.X, self.y, criterion=self.criterion, max_depth=max_depth)


class FitClassification(_Fit):
    criterion = "gini"

    def data(self, rows):
        return classification(rows)


class FitRegression(_Fit):
    criterion = "squared_error"

    def data(self, rows):
        return regression(rows)

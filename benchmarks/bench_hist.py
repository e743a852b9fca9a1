"""The histogram splitter: binning, fit on a prebuilt Dataset, and fit from raw X.

Same data as ``bench_fit`` (float32, 20 features). ``time_fit`` includes binning (as
LightGBM's figure includes its Dataset construction); ``time_fit_dataset`` reuses a
:class:`fastdt.Dataset` built in ``setup``; ``time_binning`` is the Dataset alone.
"""

import fastdt

from .common import classification, regression, rows_param, set_threads, warm_up


class _Hist:
    params = (rows_param([100_000, 1_000_000]), [10, None])
    param_names = ["rows", "max_depth"]
    timeout = 600
    number = 1
    repeat = (1, 5, 30.0)
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
        self.ds = fastdt.Dataset(self.X)

    def time_fit(self, rows, max_depth):
        fastdt.fit(self.X, self.y, criterion=self.criterion, max_depth=max_depth,
                   splitter="hist")

    def time_fit_dataset(self, rows, max_depth):
        fastdt.fit(self.ds, self.y, criterion=self.criterion, max_depth=max_depth)

    def peakmem_fit(self, rows, max_depth):
        fastdt.fit(self.X, self.y, criterion=self.criterion, max_depth=max_depth,
                   splitter="hist")


class HistClassification(_Hist):
    criterion = "gini"

    def data(self, rows):
        return classification(rows)

    def time_binning(self, rows, max_depth):
        fastdt.Dataset(self.X)


class HistRegression(_Hist):
    criterion = "squared_error"

    def data(self, rows):
        return regression(rows)

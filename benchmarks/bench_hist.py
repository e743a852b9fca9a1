"""The histogram splitter: binning, fit on a prebuilt Dataset, and fit from raw X.

Same data as ``bench_fit`` (float32, 20 features). ``time_fit`` includes binning (as
LightGBM's figure includes its Dataset construction); ``time_fit_dataset`` reuses a
:class:`fastdt.Dataset` built in ``setup``; ``time_binning`` is the Dataset alone.
"""

import fastdt

from .bench_fit import _Fit
from .common import classification, regression


class _Hist(_Fit):
    repeat = (1, 5, 30.0)

    def setup(self, rows, max_depth):
        super().setup(rows, max_depth)
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

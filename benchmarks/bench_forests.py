"""Forests: fit of 20 trees (exact, histogram, extra trees) and prediction of a 100-tree
forest fitted once in ``setup_cache``; peak memory of a fit."""

import fastdt

from .common import classification, rows_param, set_threads

N_TREES = 20


def _warm():
    X, y = classification(2_000, seed=2)
    for splitter in ("best", "hist", "random"):
        forest = fastdt.fit_forest(X, y, n_estimators=2, splitter=splitter)
        fastdt.predict_proba(forest, X)


class ForestFit:
    params = (rows_param([100_000]), ["best", "hist", "random"])
    param_names = ["rows", "splitter"]
    timeout = 600

    def setup(self, rows, splitter):
        set_threads()
        _warm()
        self.X, self.y = classification(rows, seed=0)

    def _fit(self, rows, splitter):
        return fastdt.fit_forest(self.X, self.y, n_estimators=N_TREES, splitter=splitter,
                                 bootstrap=splitter != "random", random_state=0)

    def time_fit(self, rows, splitter):
        self._fit(rows, splitter)

    def peakmem_fit(self, rows, splitter):
        self._fit(rows, splitter)


class ForestPredict:
    params = (rows_param([50_000]),)
    param_names = ["rows"]
    timeout = 600

    def setup_cache(self):
        X, y = classification(100_000, seed=0)
        return fastdt.fit_forest(X, y, n_estimators=100, splitter="hist", random_state=0)

    def setup(self, forest, rows):
        set_threads()
        _warm()
        self.X, _ = classification(rows, seed=1)
        fastdt.predict_proba(forest, self.X[:1000])  # the unpickled forest's step arrays

    def time_predict_proba(self, forest, rows):
        fastdt.predict_proba(forest, self.X)

    def time_apply(self, forest, rows):
        fastdt.apply(forest, self.X)

"""Prediction kernels on a depth-10 classification tree fitted once in ``setup_cache``."""

import fastdt

from .common import classification, rows_param, set_threads, warm_up

TRAIN_ROWS = 100_000


class Predict:
    params = (rows_param([100_000, 1_000_000]),)
    param_names = ["rows"]
    timeout = 300

    def setup_cache(self):
        X, y = classification(TRAIN_ROWS, seed=0)
        return fastdt.fit(X, y, max_depth=10)

    def setup(self, tree, rows):
        set_threads()
        warm_up()
        self.X, _ = classification(rows, seed=1)
        # the unpickled tree is the one timed: make sure its types are compiled too
        small = self.X[:1000]
        fastdt.predict(tree, small)
        fastdt.apply(tree, small)
        fastdt.decision_path(tree, small)

    def time_predict(self, tree, rows):
        fastdt.predict(tree, self.X)

    def time_predict_proba(self, tree, rows):
        fastdt.predict_proba(tree, self.X)

    def time_apply(self, tree, rows):
        fastdt.apply(tree, self.X)

    def time_decision_path(self, tree, rows):
        fastdt.decision_path(tree, self.X)

"""Gradient boosting: fit of 20 rounds (binary log-loss, 255 leaves; multiclass of 3
classes, 31 leaves) and prediction of a 100-round model fitted once in ``setup_cache``."""

import fastdt

from .common import classification, rows_param, set_threads

ROUNDS = 20


def _warm():
    X, y = classification(2_000, seed=2, n_classes=3)
    model = fastdt.fit_boosting(X, y, max_iter=2, early_stopping=False)
    fastdt.predict_proba(model, X)


class BoostingFit:
    params = (rows_param([100_000]), [2, 3])
    param_names = ["rows", "classes"]
    timeout = 600

    def setup(self, rows, classes):
        set_threads()
        _warm()
        self.X, self.y = classification(rows, seed=0, n_classes=classes)

    def time_fit(self, rows, classes):
        fastdt.fit_boosting(self.X, self.y, max_iter=ROUNDS, early_stopping=False,
                            max_leaf_nodes=255 if classes == 2 else 31)


class BoostingPredict:
    params = (rows_param([200_000]),)
    param_names = ["rows"]
    timeout = 600

    def setup_cache(self):
        X, y = classification(50_000, seed=0)
        return fastdt.fit_boosting(X, y, max_iter=100, max_leaf_nodes=255,
                                   early_stopping=False)

    def setup(self, model, rows):
        set_threads()
        _warm()
        self.X, _ = classification(rows, seed=1)
        fastdt.predict_proba(model, self.X[:1000])

    def time_predict_proba(self, model, rows):
        fastdt.predict_proba(model, self.X)

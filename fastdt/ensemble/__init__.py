"""Ensembles of trees over the shared engine: forests, gradient boosting and AdaBoost.

* :mod:`fastdt.ensemble.forest`: the :class:`Forest` format (every tree's arrays
  concatenated, per-tree offsets; save/load validated).
* :mod:`fastdt.ensemble.api`: :func:`fit_forest` (prepare once, one tree per seed from
  the in-bag counts), prediction, out-of-bag results, :func:`predict_quantiles`.
* :mod:`fastdt.ensemble.boosting`: :func:`fit_boosting` (gradient boosting with Newton
  leaves on the histogram engine; a boosted model is a Forest), its losses in
  :mod:`fastdt.ensemble._losses`.
* :mod:`fastdt.ensemble.adaboost`: :func:`fit_adaboost` (SAMME and AdaBoost.R2 over any
  fastdt tree; a boosted Forest, or a Forest of weighted-median trees).
* :mod:`fastdt.ensemble.kernels`: public ``@njit`` kernels over a forest.
* :mod:`fastdt.ensemble.inspection`: out-of-bag permutation importance.
* :mod:`fastdt.ensemble._quantiles`: quantile regression forests (the leaves' training
  rows, weighted quantiles).
* :mod:`fastdt.ensemble.estimators`: ``RandomForestClassifier``,
  ``RandomForestRegressor``, ``ExtraTreesClassifier``, ``ExtraTreesRegressor``,
  ``BaggingClassifier``, ``BaggingRegressor``, ``GradientBoostingClassifier``,
  ``GradientBoostingRegressor``, ``AdaBoostClassifier``, ``AdaBoostRegressor``.
"""

from .api import fit_forest, predict_quantiles
from .adaboost import fit_adaboost
from .boosting import fit_boosting
from .estimators import (
    AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier, BaggingRegressor,
    ExtraTreesClassifier, ExtraTreesRegressor, GradientBoostingClassifier,
    GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor,
)
from .forest import Forest
from .inspection import oob_permutation_importance

__all__ = ["Forest", "fit_adaboost", "fit_boosting", "fit_forest", "predict_quantiles",
           "oob_permutation_importance", "RandomForestClassifier", "RandomForestRegressor",
           "ExtraTreesClassifier", "ExtraTreesRegressor", "BaggingClassifier",
           "BaggingRegressor", "GradientBoostingClassifier", "GradientBoostingRegressor",
           "AdaBoostClassifier", "AdaBoostRegressor"]

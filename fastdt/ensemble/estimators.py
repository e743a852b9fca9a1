"""scikit-learn style forests: thin objects over :func:`fastdt.ensemble.fit_forest`.

``RandomForestClassifier``/``RandomForestRegressor`` (bootstrap samples, ``max_features``
"sqrt" / 1.0, the exact splitter by default as scikit-learn's) and
``ExtraTreesClassifier``/``ExtraTreesRegressor`` (the same with ``splitter="random"`` and
no bootstrap). Parameter names and defaults are scikit-learn's; fastdt's tree
parameters (``splitter``, ``max_bins``, ``categorical_features``, ``missing``) are there
too.
"""

import numpy as np

from ..estimators import _BaseEstimator, _Classifier, _Regressor, _with_defaults
from ..inspection import impurity_importances
from .api import fit_forest

__all__ = ["RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier",
           "ExtraTreesRegressor"]


class _BaseForest(_BaseEstimator):
    _model_attr = "forest_"

    def _fit(self, X, y, sample_weight):
        self._require_y(y)
        params = self.get_params(deep=False)
        extend = self.__dict__.get("forest_") if params.pop("warm_start") else None
        if extend is not None and extend.n_trees == self.n_estimators:
            import warnings

            warnings.warn("Warm-start fitting without increasing n_estimators does not fit "
                          "new trees.", UserWarning, stacklevel=3)
        forest = fit_forest(X, y, sample_weight=sample_weight, task=self._task, extend=extend,
                            **params)
        self.forest_ = forest
        self._fitted_attributes(forest)
        if self.oob_score:
            oob = forest.oob_
            self.oob_score_ = oob["score"]
            decision = oob["decision"]
            if self._task == "classification":
                self.oob_decision_function_ = decision
            else:
                self.oob_prediction_ = decision[:, 0] if forest.n_outputs == 1 else decision
        elif "oob_score_" in self.__dict__:
            for name in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
                self.__dict__.pop(name, None)
        return forest

    @property
    def estimators_(self):
        """The fitted trees (:class:`fastdt.Tree`; the forest's arrays, viewed)."""
        return self._check_fitted().trees()

    def apply(self, X):
        """Leaf id of every sample in every tree, ``(n_samples, n_estimators)``."""
        from .. import api

        return api.apply(self._check_fitted(), X, _estimator_name=type(self).__name__)

    @property
    def feature_importances_(self):
        """The mean over the trees of their normalised impurity-decrease importances
        (scikit-learn's definition)."""
        trees = self._check_fitted().trees()
        imp = [impurity_importances(t) for t in trees if t.node_count > 1]
        if not imp:
            return np.zeros(self.n_features_in_)
        mean = np.mean(imp, axis=0)
        total = mean.sum()
        return mean / total if total > 0 else mean


class RandomForestClassifier(_Classifier, _BaseForest):
    """A random forest classifier (Breiman): trees on bootstrap samples, each split
    chosen among ``max_features`` random features; probabilities averaged.

    Parameters are scikit-learn's ``RandomForestClassifier``'s, and fastdt's tree
    parameters (``splitter``: ``"best"`` by default, ``"hist"`` for large data,
    ``"random"``; ``max_bins``, ``categorical_features``, ``missing``). ``n_jobs`` is a
    thread count. ``class_weight`` also takes ``"balanced_subsample"``. ``tree_features``
    (None, an int or a fraction): each tree may use only that random subset of the
    features (:func:`fastdt.fit_forest`).

    Attributes
    ----------
    forest_ : fastdt.ensemble.Forest
    estimators_ : list of fastdt.Tree
    classes_, n_classes_, n_features_in_, feature_names_in_, n_outputs_
    feature_importances_ : ndarray of shape (n_features,)
    oob_score_, oob_decision_function_ : with ``oob_score=True``
    """

    _task = "classification"
    _estimator_type = "classifier"

    def __init__(self, n_estimators=100, *, criterion="gini", splitter=None, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", max_leaf_nodes=None, min_impurity_decrease=0.0,
                 bootstrap=True, oob_score=False, n_jobs=None, random_state=None, verbose=0,
                 warm_start=False, class_weight=None, ccp_alpha=0.0, max_samples=None,
                 monotonic_cst=None, max_bins=None, categorical_features=None,
                 missing="learn", tree_features=None):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start
        self.class_weight = class_weight
        self.ccp_alpha = ccp_alpha
        self.max_samples = max_samples
        self.monotonic_cst = monotonic_cst
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.missing = missing
        self.tree_features = tree_features

    def fit(self, X, y, sample_weight=None):
        """Build a forest of trees from the training set ``(X, y)``; returns ``self``."""
        forest = self._fit(X, y, sample_weight)
        self.classes_ = forest.classes
        self.n_classes_ = (int(forest.classes.shape[0]) if forest.n_outputs == 1
                           else [int(c.shape[0]) for c in forest.classes])
        return self


class RandomForestRegressor(_Regressor, _BaseForest):
    """A random forest regressor (Breiman): trees on bootstrap samples, values averaged.

    Parameters are scikit-learn's ``RandomForestRegressor``'s (``max_features=1.0``),
    and fastdt's tree parameters (see :class:`RandomForestClassifier`).

    Attributes
    ----------
    forest_, estimators_, n_features_in_, feature_names_in_, n_outputs_,
    feature_importances_, and with ``oob_score=True`` ``oob_score_`` (R^2) and
    ``oob_prediction_``.

    ``leaf_samples=True`` keeps the training rows of every leaf for
    :meth:`predict_quantiles` (quantile regression forests).
    """

    _task = "regression"
    _estimator_type = "regressor"

    def __init__(self, n_estimators=100, *, criterion="squared_error", splitter=None,
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, max_features=1.0, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, bootstrap=True, oob_score=False, n_jobs=None,
                 random_state=None, verbose=0, warm_start=False, ccp_alpha=0.0,
                 max_samples=None, monotonic_cst=None, max_bins=None,
                 categorical_features=None, missing="learn", leaf_samples=False,
                 tree_features=None):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start
        self.ccp_alpha = ccp_alpha
        self.max_samples = max_samples
        self.monotonic_cst = monotonic_cst
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.missing = missing
        self.tree_features = tree_features
        self.leaf_samples = leaf_samples

    def fit(self, X, y, sample_weight=None):
        """Build a forest of trees from the training set ``(X, y)``; returns ``self``."""
        self._fit(X, y, sample_weight)
        return self

    def predict_quantiles(self, X, quantiles, *, oob=False):
        """Quantiles of ``y`` given each row of ``X`` (a quantile regression forest,
        Meinshausen 2006): float64 ``(n_samples, n_quantiles)``, non-decreasing along a
        row for increasing ``quantiles``. Needs ``leaf_samples=True`` at fit. ``oob=True``:
        ``X`` is the training X and each row uses only the trees that did not draw it."""
        from .api import predict_quantiles

        return predict_quantiles(self._check_fitted(), X, quantiles, oob=oob,
                                 estimator_name=type(self).__name__)


ExtraTreesClassifier = _with_defaults(
    RandomForestClassifier, "ExtraTreesClassifier",
    """Extremely randomised trees (Geurts et al.): :class:`RandomForestClassifier` with
    ``splitter="random"`` (one random threshold per candidate feature) and
    ``bootstrap=False``, scikit-learn's defaults.""",
    splitter="random", bootstrap=False)
ExtraTreesRegressor = _with_defaults(
    RandomForestRegressor, "ExtraTreesRegressor",
    """Extremely randomised trees (Geurts et al.): :class:`RandomForestRegressor` with
    ``splitter="random"`` and ``bootstrap=False``, scikit-learn's defaults.""",
    splitter="random", bootstrap=False)

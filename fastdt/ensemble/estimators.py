"""scikit-learn style forests: thin objects over :func:`fastdt.ensemble.fit_forest`.

``RandomForestClassifier``/``RandomForestRegressor`` (bootstrap samples, ``max_features``
"sqrt" / 1.0, the exact splitter by default as scikit-learn's) and
``ExtraTreesClassifier``/``ExtraTreesRegressor`` (the same with ``splitter="random"`` and
no bootstrap). Parameter names and defaults are scikit-learn's; fastdt's tree
parameters (``splitter``, ``max_bins``, ``categorical_features``, ``missing``) are there
too. ``BaggingClassifier``/``BaggingRegressor``: bagging of any fastdt tree estimator
(scikit-learn's ``Bagging*`` parameters), the same forest with the tree's parameters.
``GradientBoostingClassifier``/``GradientBoostingRegressor``: gradient boosting
(:func:`fastdt.fit_boosting`) with the parameter names of scikit-learn's
``HistGradientBoosting*``. ``AdaBoostClassifier``/``AdaBoostRegressor``: AdaBoost (SAMME,
AdaBoost.R2) of a fastdt tree (:func:`fastdt.fit_adaboost`), scikit-learn's ``AdaBoost*``.
"""

import numpy as np

from ..estimators import _BaseEstimator, _Classifier, _Regressor, _with_defaults
from ..inspection import impurity_importances
from .api import fit_forest

__all__ = ["RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier",
           "ExtraTreesRegressor", "BaggingClassifier", "BaggingRegressor",
           "GradientBoostingClassifier", "GradientBoostingRegressor", "AdaBoostClassifier",
           "AdaBoostRegressor"]


class _BaseForest(_BaseEstimator):
    _model_attr = "forest_"

    def _fit(self, X, y, sample_weight):
        self._require_y(y)
        params = self._forest_params()
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

    def _forest_params(self):
        """The keywords of :func:`fit_forest` (and ``warm_start``)."""
        return self.get_params(deep=False)

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


# ---------------------------------------------------------------------- bagging


class _BaseBagging(_BaseForest):
    """Bagging of a fastdt tree estimator: a forest whose trees take the tree
    estimator's parameters; scikit-learn's ``max_samples`` / ``max_features`` are the
    forest's draws of rows and ``tree_features``."""

    def __init__(self, estimator=None, n_estimators=10, *, max_samples=1.0, max_features=1.0,
                 bootstrap=True, bootstrap_features=False, oob_score=False, warm_start=False,
                 n_jobs=None, random_state=None, verbose=0):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.bootstrap_features = bootstrap_features
        self.oob_score = oob_score
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _tree_estimator(self):
        from ..estimators import DecisionTreeClassifier, DecisionTreeRegressor

        if self.estimator is None:
            return (DecisionTreeClassifier if self._task == "classification"
                    else DecisionTreeRegressor)()
        return self.estimator

    def _tree_params(self):
        from ..estimators import _BaseTree

        est = self._tree_estimator()
        if not isinstance(est, _BaseTree):
            raise TypeError(f"{type(self).__name__} bags fastdt trees: estimator must be "
                            "None or a fastdt DecisionTree*/ExtraTree* estimator, got "
                            f"{type(est).__name__}")
        if est._task != self._task:
            raise ValueError(f"{type(self).__name__} needs a {self._task} tree as estimator, "
                             f"got {type(est).__name__}")
        tp = est.get_params(deep=False)
        tp.pop("random_state")  # every tree's draws come from the forest's seeds
        return tp

    def _forest_params(self):
        if not isinstance(self.bootstrap_features, (bool, np.bool_)):
            raise ValueError(f"bootstrap_features must be a bool, got {self.bootstrap_features!r}")
        if self.bootstrap_features:
            raise ValueError("bootstrap_features=True (features drawn with replacement) is not "
                             "supported: each tree's max_features features are drawn without "
                             "replacement")
        if self.oob_score and not self.bootstrap:
            raise ValueError("Out of bag estimation only available if bootstrap=True")
        mf, ms = self.max_features, self.max_samples
        ms = None if isinstance(ms, float) and ms == 1.0 else ms
        if self.bootstrap:  # draws with replacement
            rows = dict(bootstrap=True, replace=True, max_samples=ms)
        elif ms is None:  # every tree on every row
            rows = dict(bootstrap=False, replace=True, max_samples=None)
        else:  # pasting: max_samples distinct rows
            rows = dict(bootstrap=True, replace=False, max_samples=ms)
        return {**self._tree_params(), **rows, "n_estimators": self.n_estimators,
                "oob_score": self.oob_score, "warm_start": self.warm_start,
                "n_jobs": self.n_jobs, "random_state": self.random_state,
                "verbose": self.verbose,
                "tree_features": None if isinstance(mf, float) and mf == 1.0 else mf}

    def _fit(self, X, y, sample_weight):
        from .api import forest_tree_features

        forest = super()._fit(X, y, sample_weight)
        self.estimators_features_ = forest_tree_features(forest)
        return forest


class BaggingClassifier(_Classifier, _BaseBagging):
    """Bagging (Breiman 1996) of a fastdt tree classifier: every tree grows on a
    bootstrap sample of the rows (and, with ``max_features`` < 1.0, a random subset of
    the features), and the trees vote.

    Parameters are scikit-learn's ``BaggingClassifier``'s. ``estimator``: a fastdt
    ``DecisionTreeClassifier`` or ``ExtraTreeClassifier`` (None: a
    ``DecisionTreeClassifier()``), whose parameters every tree takes. ``max_samples``
    (int or fraction): rows drawn for each tree, with replacement (``bootstrap=True``)
    or without. ``max_features`` (int or fraction): the features each tree may use,
    drawn without replacement (``bootstrap_features=True`` is refused). ``n_jobs`` is a
    thread count.

    ``voting``: ``"soft"`` (default, scikit-learn's): the mean of the trees' class
    probabilities; ``"hard"``: each tree votes for its most probable class and the
    majority wins, ties broken at random (by a hash of the row's leaves and the
    forest's seed, so a row always gets the same answer); ``predict_proba`` then gives
    the fractions of the votes.

    Attributes
    ----------
    forest_ : fastdt.ensemble.Forest
    estimators_ : list of fastdt.Tree
    estimators_features_ : list of int64 arrays, the features of each tree
    classes_, n_classes_, n_features_in_, feature_names_in_, n_outputs_
    oob_score_, oob_decision_function_ : with ``oob_score=True`` (soft votes)
    """

    _task = "classification"
    _estimator_type = "classifier"

    def __init__(self, estimator=None, n_estimators=10, *, max_samples=1.0, max_features=1.0,
                 bootstrap=True, bootstrap_features=False, oob_score=False, warm_start=False,
                 n_jobs=None, random_state=None, verbose=0, voting="soft"):
        super().__init__(estimator, n_estimators, max_samples=max_samples,
                         max_features=max_features, bootstrap=bootstrap,
                         bootstrap_features=bootstrap_features, oob_score=oob_score,
                         warm_start=warm_start, n_jobs=n_jobs, random_state=random_state,
                         verbose=verbose)
        self.voting = voting

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = tags.target_tags.multi_output and self.voting != "hard"
        return tags

    def _forest_params(self):
        if self.voting not in ("soft", "hard"):
            raise ValueError(f"voting must be 'soft' or 'hard', got {self.voting!r}")
        return super()._forest_params()

    def fit(self, X, y, sample_weight=None):
        """Build a bagged ensemble of trees from ``(X, y)``; returns ``self``."""
        if self.voting == "hard" and y is not None:  # one output, checked before fitting
            shape = np.asarray(y).shape
            if len(shape) == 2 and shape[1] != 1:
                raise ValueError("voting='hard' handles one output")
        forest = self._fit(X, y, sample_weight)
        self.classes_ = forest.classes
        self.n_classes_ = (int(forest.classes.shape[0]) if forest.n_outputs == 1
                           else [int(c.shape[0]) for c in forest.classes])
        return self

    def _votes(self, X):
        """(votes int64 [n, n_classes], the winners' indices with ties at random)."""
        from .api import apply

        forest = self._check_fitted()
        leaves = apply(forest, X, type(self).__name__)
        n, n_classes = leaves.shape[0], forest.value.shape[1]
        votes = np.zeros((n, n_classes), dtype=np.int64)
        rows = np.arange(n)
        for i, tree in enumerate(forest.trees()):
            votes[rows, tree.value[leaves[:, i]].argmax(axis=1)] += 1
        tied = votes == votes.max(axis=1, keepdims=True)
        # a random one of the tied classes: the row's leaves and the forest's first
        # seed hashed (splitmix64's finaliser), so a row's answer never changes
        with np.errstate(over="ignore"):
            h = np.full(n, np.uint64(forest.params["seeds"][0]))
            for i in range(forest.n_trees):
                h = _mix(h ^ leaves[:, i].astype(np.uint64))
        pick = (h % tied.sum(axis=1).astype(np.uint64)).astype(np.int64)
        winner = (np.cumsum(tied, axis=1) > pick[:, None]).argmax(axis=1)
        return votes, winner

    def predict_proba(self, X):
        """Class probabilities: the mean of the trees' (soft voting), or the fractions
        of their votes (hard voting); columns follow :attr:`classes_`."""
        if self.voting != "hard":
            return super().predict_proba(X)
        votes, _ = self._votes(X)
        return votes / self.forest_.n_trees

    def predict(self, X):
        """Class labels: the most probable class (soft voting) or the majority vote,
        ties broken at random (hard voting)."""
        if self.voting != "hard":
            return super().predict(X)
        _, winner = self._votes(X)
        return self.classes_[winner]


def _mix(h):
    """splitmix64's finaliser over a uint64 array (wrapping arithmetic)."""
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


class BaggingRegressor(_Regressor, _BaseBagging):
    """Bagging (Breiman 1996) of a fastdt tree regressor: every tree grows on a
    bootstrap sample of the rows (and, with ``max_features`` < 1.0, a random subset of
    the features); the prediction is the mean of the trees'.

    Parameters are scikit-learn's ``BaggingRegressor``'s; ``estimator`` is a fastdt
    ``DecisionTreeRegressor`` or ``ExtraTreeRegressor`` (None: a
    ``DecisionTreeRegressor()``); see :class:`BaggingClassifier`.

    Attributes
    ----------
    forest_, estimators_, estimators_features_, n_features_in_, feature_names_in_,
    n_outputs_, and with ``oob_score=True`` ``oob_score_`` (R^2) and ``oob_prediction_``.
    """

    _task = "regression"
    _estimator_type = "regressor"

    def fit(self, X, y, sample_weight=None):
        """Build a bagged ensemble of trees from ``(X, y)``; returns ``self``."""
        self._fit(X, y, sample_weight)
        return self


# ---------------------------------------------------------------------- boosting


class _BaseBoosting(_BaseForest):
    """Gradient boosting (:func:`fastdt.fit_boosting`) with the parameter names of
    scikit-learn's ``HistGradientBoosting*``."""

    def _input_kinds(self):
        return False, False  # one output, dense X (not sparse yet)

    def _forest_params(self):
        params = self.get_params(deep=False)
        params.pop("warm_start")
        return params

    def _fit(self, X, y, sample_weight, validation):
        from .boosting import fit_boosting

        if not isinstance(self.warm_start, (bool, np.bool_)):
            raise ValueError(f"warm_start must be a bool, got {self.warm_start!r}")
        self._require_y(y)
        init = self.__dict__.get("forest_") if self.warm_start else None
        X_val, y_val, sample_weight_val = validation
        forest = fit_boosting(X, y, sample_weight=sample_weight, task=self._task,
                              X_val=X_val, y_val=y_val, sample_weight_val=sample_weight_val,
                              init_model=init, **self._forest_params())
        self.forest_ = forest
        self._fitted_attributes(forest)
        info = forest.fit_info_
        # scikit-learn's scores with scoring="loss": the negative loss, index 0 the start
        train = -info["train_loss"]
        val = -info["validation_loss"] if info["early_stopping"] else np.array([])
        if init is not None:  # the scores of the rounds continued come first
            train = np.concatenate([self.train_score_[: self.n_iter_ + 1], train[1:]])
            if val.size and self.validation_score_.size:
                val = np.concatenate([self.validation_score_[: self.n_iter_ + 1], val[1:]])
        self.n_iter_ = info["n_iter"]
        self.n_trees_per_iteration_ = int(forest.value.shape[1])
        self.do_early_stopping_ = info["early_stopping"]
        self.train_score_, self.validation_score_ = train, val
        return forest

    def _decision(self, X):
        from .boosting import decision_function

        return decision_function(self._check_fitted(), X, type(self).__name__)

    def _staged(self, X):
        from .boosting import staged_values

        return staged_values(self._check_fitted(), X, type(self).__name__)

    @property
    def feature_importances_(self):
        """Total gain of each feature's splits over all the trees, normalised to sum to
        one (:func:`fastdt.ensemble.boosting.feature_importances`; its
        ``importance_type="split"`` counts the splits)."""
        from .boosting import feature_importances

        return feature_importances(self._check_fitted(), "gain")


class GradientBoostingClassifier(_Classifier, _BaseBoosting):
    """Gradient-boosted trees for classification: binary or multiclass log-loss, Newton
    leaves on histogram splits (:func:`fastdt.fit_boosting`).

    Parameters are those of scikit-learn's ``HistGradientBoostingClassifier``
    (``loss``, ``learning_rate``, ``max_iter``, ``max_leaf_nodes``, ``max_depth``,
    ``min_samples_leaf``, ``l2_regularization``, ``max_features``, ``max_bins``,
    ``categorical_features``, ``monotonic_cst``, ``early_stopping``,
    ``validation_fraction``, ``n_iter_no_change``, ``tol``, ``verbose``,
    ``random_state``, ``class_weight``, ``warm_start``: a new ``fit`` on the same data
    with a larger ``max_iter`` adds rounds), ``l1_regularization`` (LightGBM's
    ``lambda_l1``), LightGBM's ``min_split_gain`` and ``subsample`` (rows per round),
    and ``n_jobs`` (threads). ``fit`` takes a validation set of one's own (``X_val``,
    ``y_val``, ``sample_weight_val``) for early stopping.

    Attributes
    ----------
    forest_ : fastdt.ensemble.Forest
        The boosted model (``forest_.boosting``).
    classes_, n_classes_, n_features_in_, feature_names_in_, n_iter_,
    n_trees_per_iteration_, do_early_stopping_, train_score_, validation_score_,
    feature_importances_
    """

    _task = "classification"
    _estimator_type = "classifier"

    def __init__(self, loss="log_loss", *, learning_rate=0.1, max_iter=100,
                 max_leaf_nodes=31, max_depth=None, min_samples_leaf=20,
                 l2_regularization=0.0, l1_regularization=0.0, min_split_gain=0.0,
                 subsample=1.0, max_features=1.0, max_bins=255, categorical_features=None,
                 monotonic_cst=None, warm_start=False, early_stopping="auto",
                 validation_fraction=0.1, n_iter_no_change=10, tol=1e-7, verbose=0,
                 random_state=None, class_weight=None, n_jobs=None):
        self.loss = loss
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.l1_regularization = l1_regularization
        self.min_split_gain = min_split_gain
        self.subsample = subsample
        self.max_features = max_features
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.monotonic_cst = monotonic_cst
        self.warm_start = warm_start
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.verbose = verbose
        self.random_state = random_state
        self.class_weight = class_weight
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None, *, X_val=None, y_val=None, sample_weight_val=None):
        """Fit the gradient-boosted model on ``(X, y)`` (``X_val``, ``y_val``: a validation
        set for early stopping); returns ``self``."""
        forest = self._fit(X, y, sample_weight, (X_val, y_val, sample_weight_val))
        self.classes_ = forest.classes
        self.n_classes_ = int(forest.classes.shape[0])
        return self

    def decision_function(self, X):
        """Raw scores: the log-odds of ``classes_[1]`` ``(n_samples,)`` (binary), or one
        column per class ``(n_samples, n_classes)``."""
        return self._decision(X)

    def staged_decision_function(self, X):
        """:meth:`decision_function` after each round (a generator)."""
        from .boosting import staged_decision_function

        return staged_decision_function(self._check_fitted(), X, type(self).__name__)

    def staged_predict_proba(self, X):
        """:meth:`predict_proba` after each round (a generator)."""
        yield from self._staged(X)

    def staged_predict(self, X):
        """:meth:`predict` after each round (a generator)."""
        for proba in self._staged(X):
            yield self.classes_[np.argmax(proba, axis=1)]


class GradientBoostingRegressor(_Regressor, _BaseBoosting):
    """Gradient-boosted trees for regression: ``loss`` ``"squared_error"``,
    ``"absolute_error"``, ``"quantile"`` (with ``quantile``), ``"huber"``, ``"poisson"``,
    ``"gamma"`` or ``"tweedie"`` (with ``power``), Newton leaves on histogram splits
    (:func:`fastdt.fit_boosting`).

    Parameters are those of scikit-learn's ``HistGradientBoostingRegressor`` (see
    :class:`GradientBoostingClassifier`), ``power`` (Tweedie) and ``n_jobs``.

    Attributes
    ----------
    forest_, n_features_in_, feature_names_in_, n_iter_, n_trees_per_iteration_,
    do_early_stopping_, train_score_, validation_score_, feature_importances_
    """

    _task = "regression"
    _estimator_type = "regressor"

    def __init__(self, loss="squared_error", *, learning_rate=0.1, max_iter=100,
                 max_leaf_nodes=31, max_depth=None, min_samples_leaf=20,
                 l2_regularization=0.0, l1_regularization=0.0, min_split_gain=0.0,
                 subsample=1.0, max_features=1.0, max_bins=255, categorical_features=None,
                 monotonic_cst=None, warm_start=False, early_stopping="auto",
                 validation_fraction=0.1, n_iter_no_change=10, tol=1e-7, verbose=0,
                 random_state=None, quantile=None, power=1.5, n_jobs=None):
        self.loss = loss
        self.quantile = quantile
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.l1_regularization = l1_regularization
        self.min_split_gain = min_split_gain
        self.subsample = subsample
        self.max_features = max_features
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.monotonic_cst = monotonic_cst
        self.warm_start = warm_start
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.verbose = verbose
        self.random_state = random_state
        self.power = power
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None, *, X_val=None, y_val=None, sample_weight_val=None):
        """Fit the gradient-boosted model on ``(X, y)`` (``X_val``, ``y_val``: a validation
        set for early stopping); returns ``self``."""
        self._fit(X, y, sample_weight, (X_val, y_val, sample_weight_val))
        return self

    def staged_predict(self, X):
        """:meth:`predict` after each round (a generator)."""
        for values in self._staged(X):
            yield values[:, 0]


# ---------------------------------------------------------------------- AdaBoost


class _BaseAdaBoost(_BaseForest):
    """AdaBoost of a fastdt tree (:func:`fastdt.fit_adaboost`) with the parameters of
    scikit-learn's ``AdaBoost*``; the fitted model is a Forest (``forest_``)."""

    def __init__(self, estimator=None, *, n_estimators=50, learning_rate=1.0,
                 random_state=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.random_state = random_state

    def _tree_estimator(self):
        from ..estimators import DecisionTreeClassifier, DecisionTreeRegressor

        if self.estimator is not None:
            return self.estimator
        if self._task == "classification":  # scikit-learn's base trees
            return DecisionTreeClassifier(max_depth=1)
        return DecisionTreeRegressor(max_depth=3)

    def _input_kinds(self):
        tree = self._tree_estimator()  # sparse X: as the base tree takes it
        return False, (getattr(tree, "missing", None) == "learn"
                       and getattr(tree, "criterion", None) != "absolute_error")

    def _tree_params(self):
        from ..estimators import DecisionTreeClassifier, DecisionTreeRegressor

        want = DecisionTreeClassifier if self._task == "classification" else DecisionTreeRegressor
        est = self._tree_estimator()
        if not isinstance(est, want):
            raise TypeError(f"{type(self).__name__} boosts fastdt trees: estimator must be "
                            f"None or a fastdt {want.__name__}, got {type(est).__name__}")
        tp = est.get_params(deep=False)
        tp.pop("random_state")  # every round draws its tree's seed from random_state
        return tp

    def _fit(self, X, y, sample_weight, loss="linear"):
        from .adaboost import fit_adaboost

        self._require_y(y)
        forest = fit_adaboost(X, y, task=self._task, n_estimators=self.n_estimators,
                              learning_rate=self.learning_rate, tree_params=self._tree_params(),
                              loss=loss, sample_weight=sample_weight,
                              random_state=self.random_state)
        self.forest_ = forest
        self._fitted_attributes(forest)
        self.estimator_ = self._tree_estimator()
        self.estimator_weights_ = np.array(forest.params["estimator_weights"])
        self.estimator_errors_ = np.array(forest.params["estimator_errors"])
        return forest

    @property
    def feature_importances_(self):
        """The mean of the trees' normalised impurity importances weighted by their
        estimator weights (scikit-learn's definition)."""
        trees = self._check_fitted().trees()
        w = self.estimator_weights_[: len(trees)]
        total = sum(wt * impurity_importances(t) for wt, t in zip(w, trees))
        return total / w.sum() if w.sum() > 0 else total


class AdaBoostClassifier(_Classifier, _BaseAdaBoost):
    """AdaBoost (SAMME, multiclass) of a fastdt tree classifier: scikit-learn's
    ``AdaBoostClassifier``, the same estimator weights and predictions for the same
    deterministic base trees (:mod:`fastdt.ensemble.adaboost`).

    Parameters
    ----------
    estimator : None or fastdt DecisionTreeClassifier
        The base tree (its parameters grow every tree); None:
        ``DecisionTreeClassifier(max_depth=1)``, a stump. Its ``random_state`` is
        replaced by one drawn per round from ``random_state``.
    n_estimators, learning_rate, random_state
        As scikit-learn's (:func:`fastdt.fit_adaboost`).

    Attributes
    ----------
    forest_ : fastdt.ensemble.Forest
        The boosted model (``forest_.boosting["loss"] == "samme"``).
    estimators_ : list of fastdt.Tree
        The trees, as score trees (each node's SAMME vote for its class).
    estimator_, estimator_weights_, estimator_errors_, classes_, n_classes_,
    n_features_in_, feature_names_in_, feature_importances_
    """

    _task = "classification"
    _estimator_type = "classifier"

    def fit(self, X, y, sample_weight=None):
        """Boost trees on ``(X, y)``; returns ``self``."""
        forest = self._fit(X, y, sample_weight)
        self.classes_ = forest.classes
        self.n_classes_ = int(forest.classes.shape[0])
        return self

    def decision_function(self, X):
        """The weighted votes of the trees, normalised by the sum of their weights:
        ``(n_samples,)`` for two classes (positive: ``classes_[1]``), else
        ``(n_samples, n_classes)``."""
        from .adaboost import decision_function

        return decision_function(self._check_fitted(), X, type(self).__name__)

    def _labels(self, decision):
        if decision.ndim == 1:
            return self.classes_[(decision > 0).astype(np.intp)]
        return self.classes_[np.argmax(decision, axis=1)]

    def predict(self, X):
        """The class of the largest :meth:`decision_function` (binary: its sign)."""
        return self._labels(self.decision_function(X))

    def staged_decision_function(self, X):
        """:meth:`decision_function` of the first 1, 2, ... trees (a generator)."""
        from .adaboost import staged_decision_function

        return staged_decision_function(self._check_fitted(), X, type(self).__name__)

    def staged_predict(self, X):
        """:meth:`predict` of the first 1, 2, ... trees (a generator)."""
        for decision in self.staged_decision_function(X):
            yield self._labels(decision)

    def staged_predict_proba(self, X):
        """:meth:`predict_proba` of the first 1, 2, ... trees (a generator)."""
        from .adaboost import staged_proba

        return staged_proba(self._check_fitted(), X, type(self).__name__)


class AdaBoostRegressor(_Regressor, _BaseAdaBoost):
    """AdaBoost.R2 of a fastdt tree regressor: scikit-learn's ``AdaBoostRegressor``
    (weighted bootstrap samples drawn as it draws them; the weighted median of the
    trees), the same estimator weights and predictions for the same int
    ``random_state`` and deterministic base trees (:mod:`fastdt.ensemble.adaboost`).

    Parameters
    ----------
    estimator : None or fastdt DecisionTreeRegressor
        The base tree; None: ``DecisionTreeRegressor(max_depth=3)``.
    n_estimators, learning_rate, loss, random_state
        As scikit-learn's (:func:`fastdt.fit_adaboost`).

    Attributes
    ----------
    forest_ : fastdt.ensemble.Forest
        The trees and their weights (``forest_.tree_weights``).
    estimators_, estimator_, estimator_weights_, estimator_errors_, n_features_in_,
    feature_names_in_, feature_importances_
    """

    _task = "regression"
    _estimator_type = "regressor"

    def __init__(self, estimator=None, *, n_estimators=50, learning_rate=1.0, loss="linear",
                 random_state=None):
        super().__init__(estimator, n_estimators=n_estimators, learning_rate=learning_rate,
                         random_state=random_state)
        self.loss = loss

    def fit(self, X, y, sample_weight=None):
        """Boost trees on ``(X, y)``; returns ``self``."""
        self._fit(X, y, sample_weight, loss=self.loss)
        return self

    def staged_predict(self, X):
        """:meth:`predict` of the first 1, 2, ... trees (a generator)."""
        from .adaboost import staged_predict

        return staged_predict(self._check_fitted(), X, type(self).__name__)

"""scikit-learn style estimators: thin objects over the functional API of :mod:`fastdt.api`.

The estimators follow scikit-learn's conventions (``get_params``/``set_params``,
``fit`` returning ``self``, fitted attributes ending in ``_``, estimator tags) without
depending on scikit-learn: ``sklearn`` is imported only inside ``__sklearn_tags__``,
which scikit-learn itself calls, and ``scipy`` only inside ``decision_path``.
"""

import inspect
import sys
import types

import numpy as np

from . import api
from ._input import NotFittedError, check_params
from .inspection import explain, impurity_importances
from .pruning import cost_complexity_pruning_path

__all__ = [
    "DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreeClassifier", "ExtraTreeRegressor",
]


# ---------------------------------------------------------------------- not fitted

_SKLEARN_NOT_FITTED = {}


def _not_fitted_error(*args):
    """A :class:`fastdt._input.NotFittedError`, which is also scikit-learn's
    ``NotFittedError`` when scikit-learn has been imported (so that code catching
    either one catches it) -- without importing scikit-learn ourselves."""
    sk_exceptions = sys.modules.get("sklearn.exceptions")
    sk_cls = getattr(sk_exceptions, "NotFittedError", None)
    if not isinstance(sk_cls, type) or issubclass(NotFittedError, sk_cls):
        return NotFittedError(*args)
    cls = _SKLEARN_NOT_FITTED.get(sk_cls)
    if cls is None:
        cls = type("NotFittedError", (NotFittedError, sk_cls), {
            "__module__": __name__,
            "__doc__": NotFittedError.__doc__,
            # rebuilt by this function, so the dynamic class never needs to be found
            "__reduce__": lambda self: (_not_fitted_error, self.args),
        })
        _SKLEARN_NOT_FITTED[sk_cls] = cls
    return cls(*args)


# ---------------------------------------------------------------------- base class


class _Bunch(dict):
    """A dict whose keys read as attributes too (scikit-learn's ``Bunch``)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None


def _differs(value, default):
    if value is default:
        return False
    try:
        return bool(value != default)
    except Exception:  # arrays, objects without a usable __ne__
        return True


#: ``__init__`` -> its parameter names (:meth:`_BaseEstimator._get_param_names`)
_PARAM_NAMES = {}


def _signature_names(cls, init):
    """The parameter names of ``cls``'s ``__init__`` ``init``, as scikit-learn reads
    them (none for ``object.__init__``; ``*args`` or ``**kwargs`` are refused)."""
    if init is object.__init__:
        return ()
    names = []
    for p in inspect.signature(init).parameters.values():
        if p.name == "self":
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise RuntimeError(f"{cls.__name__}.__init__ must not take *args or **kwargs")
        names.append(p.name)
    return tuple(names)


class _BaseEstimator:
    """Parameter handling, repr, tags, the fitted check and prediction: shared by the
    trees and the forests (:mod:`fastdt.ensemble`), whose fitted model is the attribute
    named ``_model_attr`` (a Tree or a Forest: :mod:`fastdt.api` takes either)."""

    _task = None
    _estimator_type = None
    _model_attr = "tree_"

    # ------------------------------------------------------------------ parameters
    @classmethod
    def _get_param_names(cls):
        # read from the signature once per __init__: every fit (and clone) asks, and
        # inspect.signature took 30-40 us of a 10 ms fit
        init = cls.__init__
        names = _PARAM_NAMES.get(init)
        if names is None:
            names = _PARAM_NAMES[init] = _signature_names(cls, init)
        return list(names)

    def get_params(self, deep=True):
        """Get the parameters of this estimator.

        Parameters
        ----------
        deep : bool, default=True
            Also return the parameters of parameter values that are estimators
            themselves (as ``"<name>__<parameter>"``).

        Returns
        -------
        params : dict
            Parameter names mapped to their values.
        """
        out = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{k}", v) for k, v in value.get_params().items())
            out[name] = value
        return out

    def set_params(self, **params):
        """Set the parameters of this estimator.

        Values are stored as given; they are checked by :meth:`fit`.

        Parameters
        ----------
        **params : dict
            Estimator parameters; ``"<name>__<parameter>"`` sets a parameter of a
            nested estimator.

        Returns
        -------
        self : estimator instance

        Raises
        ------
        ValueError
            If a name is not a parameter of this estimator.
        """
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested = {}
        for key, value in params.items():
            name, delim, sub = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {self!r}. Valid parameters "
                    f"are: {sorted(self._get_param_names())!r}."
                )
            if delim:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def __repr__(self):
        defaults = {
            p.name: p.default
            for p in inspect.signature(type(self).__init__).parameters.values()
            if p.name != "self"
        }
        shown = ", ".join(
            f"{name}={value!r}"
            for name, value in self.get_params(deep=False).items()
            if _differs(value, defaults.get(name, inspect.Parameter.empty))
        )
        return f"{type(self).__name__}({shown})"

    # ------------------------------------------------------------------ tags
    def __sklearn_tags__(self):
        """Estimator tags for scikit-learn (imports scikit-learn, which calls this)."""
        from sklearn.utils import (
            ClassifierTags, InputTags, RegressorTags, Tags, TargetTags,
        )

        is_clf = self._estimator_type == "classifier"
        multi_output, sparse = self._input_kinds()
        return Tags(
            estimator_type=self._estimator_type,
            target_tags=TargetTags(required=True, multi_output=multi_output,
                                   single_output=True),
            classifier_tags=ClassifierTags() if is_clf else None,
            regressor_tags=None if is_clf else RegressorTags(),
            input_tags=InputTags(allow_nan=True, sparse=sparse),
        )

    def _input_kinds(self):
        """``(several outputs, sparse X)``: what a fit takes (the tags)."""
        tree = self._tree_estimator()
        # several outputs: the exact and random splitters (not histograms, yet); sparse
        # X: missing="learn" (the surrogate and fractional strategies need rows)
        return tree.splitter != "hist", tree.missing == "learn"

    def _tree_estimator(self):
        """What holds the tree parameters (``splitter``, ``missing``): the estimator
        itself (bagging: the tree it bags)."""
        return self

    def __sklearn_is_fitted__(self):
        """Whether :meth:`fit` has been called (used by scikit-learn's ``check_is_fitted``)."""
        return hasattr(self, self._model_attr)

    def _check_fitted(self):
        if not hasattr(self, self._model_attr):
            raise _not_fitted_error(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator."
            )
        return getattr(self, self._model_attr)

    def _fitted_attributes(self, model):
        """The attributes scikit-learn's estimators have after ``fit``."""
        self.n_outputs_ = model.n_outputs
        self.n_features_in_ = model.n_features
        if model.feature_names is not None:
            self.feature_names_in_ = np.asarray(model.feature_names, dtype=object)
        elif "feature_names_in_" in self.__dict__:
            del self.feature_names_in_

    def _require_y(self, y):
        if y is None:
            raise ValueError(
                f"This {type(self).__name__} estimator requires y to be passed, but the "
                "target y is None."
            )

    def predict(self, X):
        """Predict class labels (classifier) or target values (regressor) for ``X``.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predicted class labels (with the type of the labels seen in :meth:`fit`)
            or predicted values.
        """
        model = self._check_fitted()
        return api.predict(model, X, _estimator_name=type(self).__name__)


class _BaseTree(_BaseEstimator):
    """The methods shared by the single-tree estimators."""

    # ------------------------------------------------------------------ fitting
    def _fit(self, X, y, sample_weight):
        self._require_y(y)
        params = self.get_params(deep=False)
        tree = api.fit(X, y, sample_weight=sample_weight, task=self._task, **params)
        self.tree_ = tree
        self._fitted_attributes(tree)
        self.max_features_ = self._resolved_max_features(params, tree)
        return tree

    def _resolved_max_features(self, params, tree):
        from ._input import resolve_limits

        p = check_params({**params, "task": self._task})
        n_samples = int(tree.n_node_samples[0])
        limits = resolve_limits(p, n_samples, tree.n_features, np.ones(1))
        return int(limits["max_features"])

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """Compute the pruning path of minimal cost-complexity pruning, as scikit-learn.

        A tree is grown on ``X, y`` with this estimator's parameters but
        ``ccp_alpha=0``; the estimator itself is left as it was.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        ccp_path : dict
            ``ccp_alphas`` and ``impurities`` (:func:`fastdt.cost_complexity_pruning_path`),
            readable as keys or attributes.
        """
        params = {**self.get_params(deep=False), "ccp_alpha": 0.0}
        tree = api.fit(X, y, sample_weight=sample_weight, task=self._task, **params)
        return _Bunch(cost_complexity_pruning_path(tree)._asdict())

    # ------------------------------------------------------------------ prediction
    def apply(self, X):
        """Return the index of the leaf that every sample ends up in.

        Node ids are fastdt's breadth-first ids (see :class:`fastdt.Tree`), not
        scikit-learn's depth-first ones.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        leaves : ndarray of shape (n_samples,), dtype int64
            Leaf id of every sample.
        """
        self._check_fitted()
        return api.apply(self.tree_, X, _estimator_name=type(self).__name__)

    def decision_path(self, X):
        """Return the decision path of every sample as a sparse indicator matrix.

        Requires scipy.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        indicator : scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            ``indicator[i, j]`` is 1 when sample ``i`` passes through node ``j``.

        Raises
        ------
        ImportError
            If scipy is not installed.
        """
        self._check_fitted()
        try:
            from scipy.sparse import csr_matrix
        except ImportError as exc:
            raise ImportError(
                "decision_path returns a scipy.sparse matrix and needs scipy; install "
                "scipy, or use fastdt.decision_path(tree, X), which returns the CSR "
                "arrays (indptr, indices)"
            ) from exc
        indptr, indices = api.decision_path(
            self.tree_, X, _estimator_name=type(self).__name__
        )
        data = np.ones(indices.shape[0], dtype=np.int64)
        return csr_matrix(
            (data, indices, indptr), shape=(indptr.shape[0] - 1, self.tree_.node_count)
        )

    def explain(self, X):
        """Explain the prediction of every sample: its path as readable conditions.

        See :func:`fastdt.explain`.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        explanations : list of fastdt.inspection.Explanation
            One per sample; ``str()`` of one reads
            ``x = 2.5 > 1.500 -> b (2 samples, p=1.00)``.
        """
        self._check_fitted()
        return explain(self.tree_, X, _estimator_name=type(self).__name__)

    # ------------------------------------------------------------------ structure
    def get_depth(self):
        """Return the depth of the tree (the root alone has depth 0).

        Returns
        -------
        depth : int
        """
        self._check_fitted()
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Return the number of leaves of the tree.

        Returns
        -------
        n_leaves : int
        """
        self._check_fitted()
        return self.tree_.n_leaves

    @property
    def feature_importances_(self):
        """Normalised impurity-based feature importances, ndarray of shape (n_features,).

        See :func:`fastdt.inspection.impurity_importances`.
        """
        self._check_fitted()
        return impurity_importances(self.tree_)


def _target_1d(y):
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    return y


class _Classifier:
    """Probabilities and accuracy: what every classifier adds (trees and forests)."""

    def predict_proba(self, X):
        """Predict class probabilities: the weighted class fractions of each leaf (a
        forest: their mean over the trees).

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns follow :attr:`classes_`.
        """
        model = self._check_fitted()
        return api.predict_proba(model, X, _estimator_name=type(self).__name__)

    def predict_log_proba(self, X):
        """Predict the logarithm of the class probabilities (``-inf`` for zero).

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Columns follow :attr:`classes_`.
        """
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            if isinstance(proba, list):  # several outputs
                return [np.log(p) for p in proba]
            return np.log(proba)

    def score(self, X, y, sample_weight=None):
        """Return the (weighted) accuracy on ``(X, y)``.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Test samples.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            Fraction (weighted by ``sample_weight``) of correctly predicted samples;
            with several outputs, of samples whose every output is right (subset
            accuracy).
        """
        y = _target_1d(y)
        pred = self.predict(X)
        if y.shape != pred.shape:
            raise ValueError(f"y has shape {y.shape}; expected {pred.shape}")
        correct = (pred == y)
        if correct.ndim == 2:
            correct = correct.all(axis=1)
        return float(np.average(correct.astype(np.float64), weights=sample_weight))


class _Regressor:
    """R^2: what every regressor adds (trees and forests)."""

    def score(self, X, y, sample_weight=None):
        """Return the (weighted) coefficient of determination R^2 on ``(X, y)``.

        ``1 - sum(w * (y - y_pred)**2) / sum(w * (y - mean_w(y))**2)``; when ``y`` is
        constant the score is 1.0 for a perfect prediction and 0.0 otherwise.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Test samples.
        y : array-like of shape (n_samples,)
            True values.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            R^2 of the predictions.
        """
        y = _target_1d(y).astype(np.float64)
        pred = self.predict(X)
        if y.shape != pred.shape:
            raise ValueError(f"y has shape {y.shape}; expected {pred.shape}")
        if y.ndim == 2:  # several outputs: the mean of their R^2, as scikit-learn
            return float(np.mean([_r2(y[:, k], pred[:, k], sample_weight)
                                  for k in range(y.shape[1])]))
        return _r2(y, pred, sample_weight)


class DecisionTreeClassifier(_Classifier, _BaseTree):
    """An exact CART decision tree classifier.

    Same parameters and split selection as scikit-learn's ``DecisionTreeClassifier``,
    grown breadth-first by numba kernels; the fitted tree is the flat-array
    :class:`fastdt.Tree` in :attr:`tree_`. Ties between equally good splits go to the
    lowest feature index, then the lowest threshold.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "gain_ratio"}, default="gini"
        Split quality measure; ``"gain_ratio"`` is C4.5's.
    splitter : {"best", "random", "hist"} or None, default=None
        ``"best"``: exact splits (every threshold between two distinct values).
        ``"random"``: one random threshold per candidate feature, drawn uniformly
        between the feature's smallest and largest value in the node (extremely
        randomised trees; a random subset of a categorical feature's categories), the
        best of them kept. ``"hist"``: histogram splits on features binned into at
        most ``max_bins`` bins (faster on large data; the same tree as exact when every
        feature has at most ``max_bins`` distinct values). ``None``: ``"hist"`` when
        ``X`` is a :class:`fastdt.Dataset`, else ``"best"``.
    max_depth : int, default=None
        Maximum depth; ``None`` grows until the leaves are pure or too small.
    min_samples_split : int or float, default=2
        Minimum number of samples (or fraction of samples) needed to split a node.
    min_samples_leaf : int or float, default=1
        Minimum number of samples (or fraction of samples) in each leaf.
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each leaf.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Number of features drawn at random and searched at each node.
    random_state : int, numpy RandomState or Generator, default=None
        Seed of the feature sampling (when ``max_features`` is set) and of the random
        splits (``splitter="random"``).
    max_leaf_nodes : int, default=None
        Grow best-first with at most this many leaves.
    min_impurity_decrease : float, default=0.0
        Split only when the weighted impurity decrease is at least this.
    class_weight : dict or "balanced", default=None
        Weights ``{label: weight}`` multiplying the sample weights of each class;
        ``"balanced"`` uses ``n_samples / (n_classes * count(label))``.
    max_bins : int, default=None
        Bins per feature for ``splitter="hist"`` (255 when ``None``), in [2, 65535];
        a :class:`fastdt.Dataset` brings its own.
    categorical_features : list of int or str, or bool mask, default=None
        Features to treat as categorical, besides the pandas columns of dtype
        category, object, string or bool (always categorical). A numeric column named
        here holds category codes (whole numbers >= 0). Splits send a subset of
        categories left (see the README, "Categorical features").
    missing : {"learn", "fractional", "surrogate"}, default="learn"
        How missing values (NaN, None, pandas NA; an unseen category counts as
        missing) are handled. ``"learn"``: every split is tried with the missing rows
        on each side and the better side is kept, as scikit-learn does (a node with no
        missing value sends them to the larger child). ``"fractional"`` (C4.5): a split
        is scored on the rows where its feature is present, weighted by their share;
        a row missing it goes down both children with weights in proportion to the
        children's, in training and in prediction. ``"surrogate"`` (CART, rpart):
        scored likewise; a row missing the feature follows the first surrogate split
        whose feature it has, else the majority side. The last two need
        ``splitter="best"``.
    max_surrogates : int, default=5
        Most surrogate splits kept per node with ``missing="surrogate"`` (rpart's
        ``maxsurrogate``).
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning, as scikit-learn: the grown tree is pruned to
        the subtree of least cost complexity for this alpha
        (:func:`fastdt.prune`; 0 prunes nothing).
    monotonic_cst : array-like of int of shape (n_features,), default=None
        A monotonic constraint per feature, as scikit-learn's: 1 increasing, -1
        decreasing, 0 none (on the probability of the positive class, the second of
        ``classes_``). A split whose children's values break it, or leave the bounds
        its ancestors set, is not a candidate; each child of a split
        on a constrained feature is bounded by the mean of the two children's values,
        and node values are clipped to their bounds. Not for multiclass
        classification, categorical features, or ``missing`` other than ``"learn"``.

    Attributes
    ----------
    tree_ : fastdt.Tree
        The fitted tree (flat node arrays in breadth-first order).
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        Number of classes.
    n_features_in_ : int
        Number of features seen during :meth:`fit`.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names seen during :meth:`fit`; only defined when ``X`` was a
        DataFrame whose column names are all strings.
    max_features_ : int
        The resolved ``max_features``.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Normalised impurity-based feature importances.

    See Also
    --------
    DecisionTreeRegressor : The regression tree.
    fastdt.fit : The functional API.

    Examples
    --------
    >>> from fastdt import DecisionTreeClassifier
    >>> X = [[0.0], [1.0], [2.0], [3.0]]
    >>> clf = DecisionTreeClassifier().fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[0.5], [2.5]])
    array(['a', 'b'], dtype='<U1')
    """

    _task = "classification"
    _estimator_type = "classifier"

    def __init__(
        self,
        *,
        criterion="gini",
        splitter=None,
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_features=None,
        random_state=None,
        max_leaf_nodes=None,
        min_impurity_decrease=0.0,
        class_weight=None,
        max_bins=None,
        categorical_features=None,
        missing="learn",
        max_surrogates=5,
        ccp_alpha=0.0,
        monotonic_cst=None,
    ):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.class_weight = class_weight
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.missing = missing
        self.max_surrogates = max_surrogates
        self.ccp_alpha = ccp_alpha
        self.monotonic_cst = monotonic_cst

    def fit(self, X, y, sample_weight=None):
        """Build the decision tree classifier from the training set ``(X, y)``.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Numeric training samples; float32 and float64 keep their precision.
        y : array-like of shape (n_samples,)
            Class labels (ints, strings, bools, ...).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights; ``None`` weighs every sample 1.

        Returns
        -------
        self : DecisionTreeClassifier
            The fitted estimator.
        """
        tree = self._fit(X, y, sample_weight)
        self.classes_ = tree.classes
        if tree.n_outputs == 1:
            self.n_classes_ = int(tree.classes.shape[0])
        else:  # one entry per output, as scikit-learn
            self.n_classes_ = [int(c.shape[0]) for c in tree.classes]
        return self


class DecisionTreeRegressor(_Regressor, _BaseTree):
    """An exact CART decision tree regressor.

    Same parameters and split selection as scikit-learn's ``DecisionTreeRegressor``,
    grown breadth-first by numba kernels; the fitted tree is the flat-array
    :class:`fastdt.Tree` in :attr:`tree_`. Ties between equally good splits go to the
    lowest feature index, then the lowest threshold.

    Parameters
    ----------
    criterion : {"squared_error", "friedman_mse", "poisson", "absolute_error"}, \
            default="squared_error"
        Split quality measure; ``"friedman_mse"`` selects the same splits as
        ``"squared_error"``; ``"absolute_error"`` predicts the weighted median of a
        leaf (exact or random splits on numeric features).
    splitter : {"best", "random", "hist"} or None, default=None
        ``"best"``: exact splits (every threshold between two distinct values).
        ``"random"``: one random threshold per candidate feature, drawn uniformly
        between the feature's smallest and largest value in the node (extremely
        randomised trees; a random subset of a categorical feature's categories), the
        best of them kept. ``"hist"``: histogram splits on features binned into at
        most ``max_bins`` bins (faster on large data; the same tree as exact when every
        feature has at most ``max_bins`` distinct values). ``None``: ``"hist"`` when
        ``X`` is a :class:`fastdt.Dataset`, else ``"best"``.
    max_depth : int, default=None
        Maximum depth; ``None`` grows until the leaves are pure or too small.
    min_samples_split : int or float, default=2
        Minimum number of samples (or fraction of samples) needed to split a node.
    min_samples_leaf : int or float, default=1
        Minimum number of samples (or fraction of samples) in each leaf.
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each leaf.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Number of features drawn at random and searched at each node.
    random_state : int, numpy RandomState or Generator, default=None
        Seed of the feature sampling (when ``max_features`` is set) and of the random
        splits (``splitter="random"``).
    max_leaf_nodes : int, default=None
        Grow best-first with at most this many leaves.
    min_impurity_decrease : float, default=0.0
        Split only when the weighted impurity decrease is at least this.
    max_bins : int, default=None
        Bins per feature for ``splitter="hist"`` (255 when ``None``), in [2, 65535];
        a :class:`fastdt.Dataset` brings its own.
    categorical_features : list of int or str, or bool mask, default=None
        Features to treat as categorical, besides the pandas columns of dtype
        category, object, string or bool (always categorical). A numeric column named
        here holds category codes (whole numbers >= 0). Splits send a subset of
        categories left (see the README, "Categorical features").
    missing : {"learn", "fractional", "surrogate"}, default="learn"
        How missing values (NaN, None, pandas NA; an unseen category counts as
        missing) are handled. ``"learn"``: every split is tried with the missing rows
        on each side and the better side is kept, as scikit-learn does (a node with no
        missing value sends them to the larger child). ``"fractional"`` (C4.5): a split
        is scored on the rows where its feature is present, weighted by their share;
        a row missing it goes down both children with weights in proportion to the
        children's, in training and in prediction. ``"surrogate"`` (CART, rpart):
        scored likewise; a row missing the feature follows the first surrogate split
        whose feature it has, else the majority side. The last two need
        ``splitter="best"``.
    max_surrogates : int, default=5
        Most surrogate splits kept per node with ``missing="surrogate"`` (rpart's
        ``maxsurrogate``).
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning, as scikit-learn: the grown tree is pruned to
        the subtree of least cost complexity for this alpha
        (:func:`fastdt.prune`; 0 prunes nothing).
    monotonic_cst : array-like of int of shape (n_features,), default=None
        A monotonic constraint per feature, as scikit-learn's: 1 increasing, -1
        decreasing, 0 none (on the predicted value). A split whose children's values break it, or
        leave the bounds its ancestors set, is not a candidate; each child of a split
        on a constrained feature is bounded by the mean of the two children's values,
        and node values are clipped to their bounds. Not for multiclass
        classification, categorical features, or ``missing`` other than ``"learn"``.

    Attributes
    ----------
    tree_ : fastdt.Tree
        The fitted tree (flat node arrays in breadth-first order).
    n_features_in_ : int
        Number of features seen during :meth:`fit`.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names seen during :meth:`fit`; only defined when ``X`` was a
        DataFrame whose column names are all strings.
    max_features_ : int
        The resolved ``max_features``.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Normalised impurity-based feature importances.

    See Also
    --------
    DecisionTreeClassifier : The classification tree.
    fastdt.fit : The functional API.

    Examples
    --------
    >>> from fastdt import DecisionTreeRegressor
    >>> X = [[0.0], [1.0], [2.0], [3.0]]
    >>> reg = DecisionTreeRegressor(max_depth=1).fit(X, [1.0, 1.0, 3.0, 5.0])
    >>> reg.predict([[0.5], [2.5]])
    array([1., 4.])
    """

    _task = "regression"
    _estimator_type = "regressor"

    def __init__(
        self,
        *,
        criterion="squared_error",
        splitter=None,
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_features=None,
        random_state=None,
        max_leaf_nodes=None,
        min_impurity_decrease=0.0,
        max_bins=None,
        categorical_features=None,
        missing="learn",
        max_surrogates=5,
        ccp_alpha=0.0,
        monotonic_cst=None,
    ):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.missing = missing
        self.max_surrogates = max_surrogates
        self.ccp_alpha = ccp_alpha
        self.monotonic_cst = monotonic_cst

    def fit(self, X, y, sample_weight=None):
        """Build the decision tree regressor from the training set ``(X, y)``.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Numeric training samples; float32 and float64 keep their precision.
        y : array-like of shape (n_samples,)
            Numeric target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights; ``None`` weighs every sample 1.

        Returns
        -------
        self : DecisionTreeRegressor
            The fitted estimator.
        """
        self._fit(X, y, sample_weight)
        return self


def _r2(y, pred, sample_weight):
    w = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    numerator = float(np.sum(w * (y - pred) ** 2))
    mean = np.average(y, weights=w)
    denominator = float(np.sum(w * (y - mean) ** 2))
    if denominator == 0.0:
        return 1.0 if numerator == 0.0 else 0.0
    return 1.0 - numerator / denominator


def _with_defaults(cls, name, doc, **defaults):
    """A subclass of ``cls`` whose ``__init__`` is ``cls``'s with other defaults (every
    parameter is keyword-only, so ``__kwdefaults__`` holds them and
    ``inspect.signature``, hence ``get_params`` and ``clone``, sees them)."""
    base = cls.__init__
    init = types.FunctionType(base.__code__, base.__globals__, "__init__",
                              base.__defaults__, base.__closure__)
    init.__kwdefaults__ = {**base.__kwdefaults__, **defaults}
    init.__qualname__ = f"{name}.__init__"
    init.__doc__ = base.__doc__
    return type(cls)(name, (cls,), {"__init__": init, "__doc__": doc,
                                    "__module__": cls.__module__})


_EXTRA_DOC = """An extremely randomised tree {kind}: :class:`{base}` with
    ``splitter="random"`` and ``max_features={mf}`` by default, as scikit-learn's
    ``{name}``.

    At each node, each of ``max_features`` features drawn at random gets one threshold
    drawn uniformly between its smallest and largest value in the node (the rows
    missing it go to a random side; a categorical feature sends a random subset of its
    categories left), and the best of these splits is kept. The draws depend on
    ``random_state`` and the node only, never on the number of threads. Alone, such a
    tree is a weak learner; averaged in an ensemble, it is the extra-trees model.

    The parameters and attributes are :class:`{base}`'s.

    See Also
    --------
    {base} : The same tree with the best splits.
    """

ExtraTreeClassifier = _with_defaults(
    DecisionTreeClassifier, "ExtraTreeClassifier",
    _EXTRA_DOC.format(kind="classifier", base="DecisionTreeClassifier", mf='"sqrt"',
                      name="ExtraTreeClassifier"),
    splitter="random", max_features="sqrt")
ExtraTreeRegressor = _with_defaults(
    DecisionTreeRegressor, "ExtraTreeRegressor",
    _EXTRA_DOC.format(kind="regressor", base="DecisionTreeRegressor", mf="1.0",
                      name="ExtraTreeRegressor"),
    splitter="random", max_features=1.0)

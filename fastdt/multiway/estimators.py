"""scikit-learn-style estimators of multiway trees: :class:`C45Classifier`,
:class:`ID3Classifier` (a composition of :func:`fastdt.fit` with ``algorithm=``)."""

from .. import api
from ..estimators import _BaseTree, _Classifier

__all__ = ["C45Classifier", "ID3Classifier"]


class _Multiway(_Classifier, _BaseTree):
    _task = "classification"
    _estimator_type = "classifier"
    _algorithm = None

    def fit(self, X, y, sample_weight=None):
        """Grow the tree from the training set ``(X, y)``.

        Parameters
        ----------
        X : pandas DataFrame or array-like of shape (n_samples, n_features)
            Training samples; category, object, string and bool columns are nominal
            features (one branch per category), NaN/None is missing.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative case weights.

        Returns
        -------
        self
        """
        self._require_y(y)
        tree = api.fit(X, y, sample_weight=sample_weight, algorithm=self._algorithm,
                       **self.get_params(deep=False))
        self.tree_ = tree
        self._fitted_attributes(tree)
        self.classes_ = tree.classes
        self.n_classes_ = int(tree.classes.shape[0])
        return self

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        raise ValueError(f"{type(self).__name__} prunes as it fits (C4.5's error-based "
                         "pruning); cost-complexity pruning reads binary (CART) trees")


class C45Classifier(_Multiway):
    """A C4.5 decision tree (Quinlan's Release 8, as Weka's J48): one branch per
    category of a nominal feature, binary thresholds on continuous ones, gain ratio
    among the features of at least average gain, fractional cases for missing values,
    pessimistic error-based pruning with subtree raising. See docs/multiway.md.

    Parameters
    ----------
    min_samples_leaf : float, default=2
        C4.5's ``-m``: a split needs two branches with at least this many (weighted)
        cases.
    confidence : float, default=0.25
        C4.5's confidence factor CF, in (0, 1): smaller prunes more.
    prune : bool, default=True
        Prune by predicted errors (False: the grown tree, collapsed).
    subtree_raising : bool, default=True
        Let pruning replace a node by its largest branch.
    error_estimate : {"c4.5", "j48"}, default="c4.5"
        The predicted-error formula: C4.5 Release 8's ``AddErrs`` (``z`` interpolated
        from its table, 0.6925 at CF=0.25), or Weka's (the exact normal quantile,
        0.6745): ``"j48"`` grows J48's tree.
    max_depth : int, optional
        Deepest level of the tree (None: no limit).
    categorical_features : optional
        As :class:`fastdt.DecisionTreeClassifier` (DataFrames: inferred).

    Attributes
    ----------
    tree_ : fastdt.Tree
        The fitted tree (multiway nodes: docs/format.md).
    classes_, n_classes_, n_features_in_, feature_names_in_, n_outputs_
    """

    _algorithm = "c4.5"

    def __init__(self, *, min_samples_leaf=2, confidence=0.25, prune=True,
                 subtree_raising=True, error_estimate="c4.5", max_depth=None,
                 categorical_features=None):
        self.min_samples_leaf = min_samples_leaf
        self.confidence = confidence
        self.prune = prune
        self.subtree_raising = subtree_raising
        self.error_estimate = error_estimate
        self.max_depth = max_depth
        self.categorical_features = categorical_features


class ID3Classifier(_Multiway):
    """An ID3 decision tree (Quinlan 1986, as in Mitchell's "Machine Learning"): one
    branch per category, the largest information gain, a feature used once per path,
    no pruning; an empty branch predicts its parent's majority class. Every feature
    must be nominal.

    Parameters
    ----------
    min_samples_leaf : float, default=1
        A split needs two branches with at least this many cases.
    max_depth : int, optional
    categorical_features : optional
        As :class:`fastdt.DecisionTreeClassifier` (DataFrames: inferred).
    """

    _algorithm = "id3"

    def __init__(self, *, min_samples_leaf=1, max_depth=None, categorical_features=None):
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.categorical_features = categorical_features

"""fastdt: exact decision trees as flat arrays, grown breadth-first by numba kernels."""

from ._config import LEAF
from ._columns import NumericLookingColumnWarning
from .dataset import Dataset
from .api import apply, decision_path, fit, predict, predict_proba
from .pruning import ccp_cv, cost_complexity_pruning_path, prune, prune_reduced_error
from .export import export_graphviz, export_mermaid, export_text, to_dict
from .estimators import (
    DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier, ExtraTreeRegressor,
)
from .inspection import explain
from .plot import plot_tree
from .tree import Tree, TreeArrays, load
from .ensemble import (
    AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier, BaggingRegressor,
    ExtraTreesClassifier, ExtraTreesRegressor, Forest, GradientBoostingClassifier,
    GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor, fit_adaboost,
    fit_boosting, fit_forest, predict_quantiles,
)
from .multiway import C45Classifier, ID3Classifier
from ._warmup import warmup
from ._memo import set_prepare_cache
from . import rules

__version__ = "0.1.0"

__all__ = [
    "Forest", "fit_boosting", "fit_forest", "predict_quantiles", "RandomForestClassifier",
    "RandomForestRegressor",
    "ExtraTreesClassifier", "ExtraTreesRegressor", "BaggingClassifier", "BaggingRegressor",
    "GradientBoostingClassifier", "GradientBoostingRegressor", "AdaBoostClassifier",
    "AdaBoostRegressor", "fit_adaboost",
    "C45Classifier", "ID3Classifier",
    "Dataset", "DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreeClassifier",
    "ExtraTreeRegressor", "LEAF",
    "NumericLookingColumnWarning", "Tree", "TreeArrays",
    "apply", "ccp_cv", "cost_complexity_pruning_path", "decision_path", "explain",
    "export_graphviz", "export_mermaid", "export_text", "fit", "load", "plot_tree", "predict",
    "predict_proba", "prune", "prune_reduced_error", "rules", "set_prepare_cache",
    "to_dict", "warmup",
    "__version__",
]

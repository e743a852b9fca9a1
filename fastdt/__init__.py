"""fastdt: exact decision trees as flat arrays, grown breadth-first by numba kernels."""

from ._config import LEAF
from .dataset import Dataset
from .api import (
    apply, cost_complexity_pruning_path, decision_path, fit, predict, predict_proba, prune,
)
from .export import export_graphviz, export_mermaid, export_text, to_dict
from .estimators import DecisionTreeClassifier, DecisionTreeRegressor
from .tree import Tree, TreeArrays, load
from . import rules

__version__ = "0.1.0"

__all__ = [
    "Dataset", "DecisionTreeClassifier", "DecisionTreeRegressor", "LEAF", "Tree", "TreeArrays",
    "apply", "cost_complexity_pruning_path", "decision_path", "export_graphviz",
    "export_mermaid", "export_text", "fit", "load", "predict", "predict_proba", "prune",
    "rules", "to_dict",
    "__version__",
]

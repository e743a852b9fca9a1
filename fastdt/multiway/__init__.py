"""Multiway trees: ID3 and C4.5 (Release 8) as the course material teaches them.

A nominal feature splits into one branch per category; C4.5 also splits continuous
features at thresholds, weighs cases with missing values across the branches and
prunes by predicted errors. ``fastdt.fit(X, y, algorithm="c4.5")`` and
:class:`C45Classifier` fit one (:mod:`fastdt.multiway.learn`); the result is an
ordinary :class:`fastdt.Tree` whose multiway nodes have one child per category
(docs/format.md), so prediction, export and inspection work as for any tree.
"""

from .learn import ALGORITHMS, fit
from .estimators import C45Classifier, ID3Classifier

__all__ = ["ALGORITHMS", "C45Classifier", "ID3Classifier", "fit"]

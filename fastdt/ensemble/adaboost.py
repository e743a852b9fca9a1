"""AdaBoost over fastdt trees: SAMME (classification) and AdaBoost.R2 (regression).

Both are loops over the shared engine: the data are prepared once
(:func:`fastdt._engine.prepare`) and every round grows one tree from that preparation
with its own row weights (:func:`fastdt._engine.grow`), as scikit-learn's
``AdaBoostClassifier`` / ``AdaBoostRegressor`` fit one tree per round:

* **SAMME** (Zhu et al., 2009; ``K`` classes): a round's tree grows on the rows weighted
  by the current boosting weights ``w`` (sum 1). Its weighted error ``e`` is the share of
  ``w`` on the rows it misclassifies and its weight ``alpha = learning_rate (log((1 - e) /
  e) + log(K - 1))``; the misclassified rows' weights are multiplied by ``exp(alpha)``
  and all are normalised. A perfect tree (``e = 0``) ends the fit with weight 1; a tree
  no better than chance (``e >= 1 - 1/K``) ends it and is dropped (an error if it is
  the first).
* **AdaBoost.R2** (Drucker, 1997): a round's tree grows on a bootstrap sample drawn with
  probabilities ``w`` (its draw counts are the row weights). Its errors ``|pred - y|``
  on every row are divided by their maximum and made ``linear``, ``square`` or
  ``exponential`` (``1 - exp(-e)``); their ``w``-weighted sum ``E`` gives ``beta = E /
  (1 - E)``, the tree's weight ``learning_rate log(1 / beta)``, and each row's weight is
  multiplied by ``beta ** ((1 - e_i) learning_rate)``. ``E = 0`` ends the fit with weight
  1; ``E >= 0.5`` ends it and drops the tree unless it is the only one (kept with
  weight 0).

The random numbers follow scikit-learn's: one ``numpy.random.RandomState`` per fit
(``random_state``), from which every round first draws a tree seed
(``randint(2**31 - 1)``: scikit-learn sets it as the tree's ``random_state``, since a
fastdt tree has one) and then, for R2, the bootstrap (``choice(n, n, p=w)``). With an int
``random_state`` and trees without randomness, the trees, estimator weights and
predictions are scikit-learn's (tested; where no two splits tie).

A fitted model is a :class:`Forest`:

* SAMME: the boosted form (``forest.boosting``, ``combine: "sum"``) with the link
  ``"samme"``. Tree ``t`` becomes a regression tree of scores whose every node holds
  ``a_t = alpha_t / sum(alpha)`` for the class it predicts and ``-a_t / (K - 1)`` for
  the others (``K = 2``: one column, ``+2 a_t`` for ``classes[1]``, ``-2 a_t`` for
  ``classes[0]``), so the sum of a row's leaves is scikit-learn's ``decision_function``;
  ``predict_proba`` is its softmax after dividing by ``K - 1`` (binary: of ``(-d/2,
  d/2)``).
* R2: the trees as grown, with ``forest.tree_weights`` (their weights) and ``combine:
  "weighted_median"``: a row's prediction is the smallest of its trees' predictions at
  which the cumulated weight (predictions in increasing order) reaches half the total.
"""

import warnings

import numpy as np

from .. import _engine, _input, _predict
from ..dataset import Dataset
from ..pruning import prune
from ..tree import FIELDS, Tree, _decode_classes
from .forest import Forest

__all__ = ["fit_adaboost", "decision_function", "staged_decision_function",
           "staged_proba", "staged_predict", "weighted_median"]

R2_LOSSES = ("linear", "square", "exponential")
_DEFAULT_DEPTH = {"classification": 1, "regression": 3}  # scikit-learn's base trees
_SEED_BOUND = np.iinfo(np.int32).max  # scikit-learn's draw of a tree's random_state


def _check_params(n_estimators, learning_rate, loss):
    if not _input._is_int(n_estimators):
        raise TypeError(f"n_estimators={n_estimators!r} must be an int")
    if n_estimators < 1:
        raise ValueError(f"n_estimators={n_estimators!r} must be >= 1")
    if not _input._is_real(learning_rate):
        raise TypeError(f"learning_rate={learning_rate!r} must be a number")
    if not (learning_rate > 0 and np.isfinite(learning_rate)):
        raise ValueError(f"learning_rate={learning_rate!r} must be a finite number > 0")
    if loss not in R2_LOSSES:
        raise ValueError(f"loss={loss!r} must be one of {R2_LOSSES}")


def _random_state(random_state):
    """The ``RandomState`` a fit draws from (scikit-learn's ``check_random_state``; a
    Generator seeds a new one)."""
    if random_state is None:  # numpy's global RandomState, as scikit-learn's
        return np.random.mtrand._rand
    if isinstance(random_state, np.random.RandomState):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return np.random.RandomState(random_state.integers(0, 2**32))
    if _input._is_int(random_state):
        if not 0 <= random_state < 2**32:
            raise ValueError(f"random_state={random_state!r} must be in [0, 2**32)")
        return np.random.RandomState(int(random_state))
    raise TypeError(f"random_state must be None, an int, a RandomState or a Generator, "
                    f"got {type(random_state).__name__}")


def fit_adaboost(X, y, *, task=None, n_estimators=50, learning_rate=1.0, tree_params=None,
                 loss="linear", sample_weight=None, random_state=None):
    """Fit AdaBoost: SAMME for classification, AdaBoost.R2 for regression (module
    docstring); scikit-learn's ``AdaBoostClassifier`` / ``AdaBoostRegressor``.

    Parameters
    ----------
    X, y, sample_weight
        As :func:`fastdt.fit` (arrays, DataFrames with categorical columns and NaN,
        sparse matrices; one output; not a Dataset). ``sample_weight``: the starting
        boosting weights (normalised); rows of weight 0 take no part.
    task : {"classification", "regression"} or None
        None: inferred as :func:`fastdt.fit` does.
    n_estimators : int, default=50
        Most rounds (one tree each); fewer when a round ends the fit.
    learning_rate : float, default=1.0
        Multiplies every tree's weight (and, for R2, the exponent of the weight update).
    tree_params : dict or None
        Parameters of the base trees, as :func:`fastdt.fit`, over the default
        ``max_depth``: 1 (stumps) for classification, 3 for regression (scikit-learn's
        base trees). Their ``random_state`` is drawn per round from ``random_state``.
        Not ``missing="fractional"`` (a row must reach one leaf).
    loss : {"linear", "square", "exponential"}, default="linear"
        AdaBoost.R2's loss (regression only).
    random_state : None, int, RandomState or Generator
        Seeds the rounds' tree seeds and R2's bootstrap samples.

    Returns
    -------
    Forest
        SAMME: a boosted forest (``boosting["loss"] == "samme"``); R2: a forest with
        ``tree_weights``. ``params["estimator_weights"]`` and
        ``params["estimator_errors"]`` hold the weight and error of every round
        (``n_estimators`` of them; 0 and 1 for rounds not run), as scikit-learn's
        ``estimator_weights_`` and ``estimator_errors_``.
    """
    _check_params(n_estimators, learning_rate, loss)
    if tree_params is not None and not isinstance(tree_params, dict):
        raise TypeError(f"tree_params must be a dict or None, got {type(tree_params).__name__}")
    tp = dict(tree_params or {})
    for key in ("task", "sample_weight", "random_state"):
        if key in tp:
            raise ValueError(f"tree_params must not set {key!r}: fit_adaboost's {key} "
                             "applies to every tree")
    if isinstance(X, Dataset):
        raise TypeError("fit_adaboost predicts every training row each round and needs the "
                        "rows, not a Dataset")
    if not (hasattr(X, "iloc") or isinstance(X, np.ndarray) or _input.is_sparse(X)):
        X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D array of rows, got a {X.ndim}D array")
    n = int(X.shape[0])
    task = _input.infer_task(y, task, tp.get("criterion"))
    if task not in _DEFAULT_DEPTH:
        raise ValueError(f"task={task!r} must be 'classification' or 'regression'")
    if task == "classification" and loss != "linear":
        raise ValueError(f"loss={loss!r} applies to regression (AdaBoost.R2) only")
    if tp.get("missing") == "fractional":
        raise ValueError("AdaBoost needs one leaf per row: missing='fractional' is not "
                         "supported (use 'learn' or 'surrogate')")
    if _input.output_columns(y, n) is not None:
        raise ValueError("AdaBoost handles one output; y has several columns")
    sw = _input.check_sample_weight(sample_weight, n)
    rng = _random_state(random_state)
    codes = None
    if task == "classification":
        classes, codes = _input.check_y_classification(y, n)
        if classes.shape[0] < 2:
            raise ValueError(f"y has {classes.shape[0]} class; AdaBoost needs at least two "
                             "classes")
    tp.setdefault("max_depth", _DEFAULT_DEPTH[task])
    prep = _engine.prepare(X, y, None, dict(tp, task=task))
    rounds = _Rounds(prep, X, codes, n_estimators, learning_rate, loss)
    rounds.run(sw, rng)
    return rounds.forest(random_state)


class _Rounds:
    """The state of one AdaBoost fit: the prepared data, the trees and their weights."""

    def __init__(self, prep, X, codes, n_estimators, learning_rate, loss):
        self.prep, self.X, self.codes = prep, X, codes
        self.n_estimators, self.learning_rate, self.loss = n_estimators, learning_rate, loss
        self.trees, self.seeds = [], []
        self.weights = np.zeros(n_estimators)
        self.errors = np.ones(n_estimators)
        self._leaves = None

    def leaves(self, tree):
        """The leaf of every training row in ``tree`` (dense X: checked once)."""
        if self._leaves is None:
            if _input.is_sparse(self.X):  # dense row blocks, each call
                from ..api import apply

                self._leaves = lambda t: apply(t, self.X)
            else:
                rows = _predict.X_for(tree, self.X)
                self._leaves = lambda t: _predict.leaves(t, *rows)
        return self._leaves(tree)

    def grow(self, row_weights, seed):
        """A tree grown from the preparation with ``row_weights`` (over all rows)."""
        prep = self.prep
        w = row_weights if prep.positive is None else row_weights[prep.positive]
        if prep.weights is not None:  # the base tree's class weights
            w = w * prep.weights
        tree = _engine.assemble(prep, _engine.grow(prep, seed=seed, row_weights=w))
        return prune(tree, prep.ccp_alpha) if prep.ccp_alpha > 0.0 else tree

    def run(self, sw, rng):
        """Every round (the module docstring's rules), from the sample weights ``sw``."""
        n = sw.shape[0]
        w = sw / sw.sum()
        zero = sw == 0.0
        eps = np.finfo(np.float64).eps
        last = self.n_estimators - 1
        for it in range(self.n_estimators):
            w = np.maximum(w, eps)  # no weight vanishes (scikit-learn issue 20320) ...
            w[zero] = 0.0  # ... but those that were 0 from the start
            seed = rng.randint(_SEED_BOUND)
            if self.codes is not None:
                done, w = self._samme_round(w, seed, it == last)
            else:
                drawn = rng.choice(n, size=n, replace=True, p=w)
                counts = np.bincount(drawn, minlength=n).astype(np.float64)
                done, w = self._r2_round(w, counts, seed, it == last)
            if done:
                return
            total = w.sum()
            if not np.isfinite(total):
                warnings.warn(f"Sample weights have reached infinite values, at iteration "
                              f"{it}, causing overflow. Iterations stopped. Try lowering "
                              "the learning rate.", UserWarning, stacklevel=4)
                return
            if total <= 0:
                return
            if it < last:
                w = w / total

    def _keep(self, tree, seed, weight, error):
        it = len(self.trees)
        self.trees.append(tree)
        self.seeds.append(int(seed))
        self.weights[it], self.errors[it] = weight, error

    def _samme_round(self, w, seed, last):
        """One SAMME round: ``(fit ended, new weights)``."""
        tree = self.grow(w, seed)
        wrong = np.argmax(tree.value, axis=1)[self.leaves(tree)] != self.codes
        error = float((w * wrong).sum() / w.sum())
        if error <= 0.0:  # a perfect tree ends the fit, with weight 1
            self._keep(tree, seed, 1.0, 0.0)
            return True, w
        k = self.prep.classes.shape[0]
        if error >= 1.0 - 1.0 / k:  # no better than chance: dropped
            if not self.trees:
                raise ValueError(f"the first tree's weighted error {error:.4g} is no better "
                                 f"than chance (1 - 1/{k}); AdaBoost cannot fit")
            return True, w
        alpha = self.learning_rate * (np.log((1.0 - error) / error) + np.log(k - 1.0))
        self._keep(tree, seed, alpha, error)
        if not last:  # in log space, as scikit-learn: the same weights to the last bit
            pos = w > 0
            w = w.copy()
            w[pos] = np.exp(np.log(w[pos]) + alpha * wrong[pos])
        return False, w

    def _r2_round(self, w, counts, seed, last):
        """One AdaBoost.R2 round on a bootstrap sample (``counts``): ``(fit ended, new
        weights)``."""
        tree = self.grow(counts, seed)
        pos = w > 0
        e = np.abs(tree.value[self.leaves(tree), 0] - self.prep.target)[pos]
        top = e.max()
        if top != 0:
            e /= top
        if self.loss == "square":
            e = e * e
        elif self.loss == "exponential":
            e = 1.0 - np.exp(-e)
        error = float((w[pos] * e).sum())
        if error <= 0.0:
            self._keep(tree, seed, 1.0, 0.0)
            return True, w
        if error >= 0.5:  # dropped, unless it is the only tree (then of weight 0)
            if not self.trees:
                self.trees.append(tree)
                self.seeds.append(int(seed))
            return True, w
        beta = error / (1.0 - error)
        self._keep(tree, seed, self.learning_rate * np.log(1.0 / beta), error)
        if not last:
            w = w.copy()
            w[pos] *= np.power(beta, (1.0 - e) * self.learning_rate)
        return False, w

    def forest(self, random_state):
        """The fitted :class:`Forest` (module docstring)."""
        prep, trees = self.prep, self.trees
        params = {"algorithm": "SAMME" if prep.is_clf else "AdaBoost.R2",
                  "n_estimators": self.n_estimators, "learning_rate": self.learning_rate,
                  "random_state": random_state if _input._is_int(random_state) else None,
                  "tree_params": trees[0].params, "seeds": self.seeds,
                  "estimator_weights": self.weights.tolist(),
                  "estimator_errors": self.errors.tolist()}
        if not prep.is_clf:
            params["loss"] = self.loss
            forest = Forest.from_trees(trees, params=params)
            forest.tree_weights = self.weights[: len(trees)].copy()
            return forest
        alphas = self.weights[: len(trees)]
        shares = alphas / alphas.sum()
        k = prep.classes.shape[0]
        forest = Forest.from_trees([_score_tree(t, a, k) for t, a in zip(trees, shares)],
                                   params=params)
        forest.task, forest.classes, forest.n_outputs = "classification", prep.classes, 1
        forest.boosting = {"loss": "samme", "baseline": [0.0] * _n_columns(k),
                           "learning_rate": float(self.learning_rate)}
        return forest


def _n_columns(n_classes):
    return 1 if n_classes == 2 else n_classes


def _score_tree(tree, share, n_classes):
    """The classification ``tree`` as a regression tree of SAMME scores: at every node,
    ``share`` for the class it predicts and ``-share / (K - 1)`` for the others (binary:
    one column, ``+-2 share``)."""
    cls = np.argmax(tree.value, axis=1)
    if n_classes == 2:
        value = np.where(cls == 1, 2.0 * share, -2.0 * share)[:, None]
    else:
        value = np.full((cls.shape[0], n_classes), -share / (n_classes - 1.0))
        value[np.arange(cls.shape[0]), cls] = share
    arrays = {name: getattr(tree, name) for name in FIELDS}
    arrays["value"] = value
    return Tree(arrays, task="regression", n_features=tree.n_features,
                n_outputs=value.shape[1], feature_names=tree.feature_names,
                categories=tree.categories, criterion=tree.criterion, params=tree.params)


# ------------------------------------------------------------------ prediction


def decision_function(forest, X, estimator_name=None):
    """SAMME's decision function (scikit-learn's): ``[n]`` for two classes (positive:
    ``classes[1]``), else ``[n, n_classes]``; the sum of the score trees' leaves."""
    from .api import tree_mean

    raw = tree_mean(forest, X, estimator_name) * forest.n_trees
    return raw[:, 0] if raw.shape[1] == 1 else raw


def samme_proba(decision, n_classes):
    """Class probabilities from SAMME's decision function: the softmax of ``decision /
    (K - 1)`` (binary: of ``(-d / 2, d / 2)``)."""
    if decision.ndim == 1:
        z = np.column_stack([-decision, decision]) / 2.0
    else:
        z = decision / (n_classes - 1.0)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def samme_values(forest, X, estimator_name=None):
    """What :func:`fastdt.predict_proba` / :func:`fastdt.predict` read for a SAMME
    forest: the class probabilities."""
    return samme_proba(decision_function(forest, X, estimator_name), forest.classes.shape[0])


def _tree_outputs(forest, X, estimator_name):
    """Each tree's leaf values for the rows of ``X`` (a generator of ``[n, n_values]``)."""
    from .api import apply

    nodes = apply(forest, X, estimator_name) + forest.offsets[0, :-1]
    for i in range(forest.n_trees):
        yield forest.value[nodes[:, i]]


def staged_decision_function(forest, X, estimator_name=None):
    """:func:`decision_function` of the first ``t`` trees, ``t = 1, 2, ...``, each
    normalised by its own trees' weights, as scikit-learn's (a generator)."""
    n_classes = forest.classes.shape[0]
    total, share = None, 0.0
    for tree, out in zip(forest.trees(), _tree_outputs(forest, X, estimator_name)):
        # a tree's share of the weights: its score for the class it predicts
        share += abs(tree.value[0, 0]) / 2.0 if n_classes == 2 else tree.value[0].max()
        total = out.copy() if total is None else total + out
        staged = total / share
        yield staged[:, 0] if n_classes == 2 else staged


def staged_proba(forest, X, estimator_name=None):
    """Class probabilities after each round (a generator)."""
    n_classes = forest.classes.shape[0]
    for decision in staged_decision_function(forest, X, estimator_name):
        yield samme_proba(decision, n_classes)


def weighted_median(predictions, weights):
    """Per row of ``predictions`` (float64 ``[n, T]``), the weighted median over its
    columns (``weights`` ``[T]``): the smallest prediction whose cumulated weight, in
    increasing order of the predictions, reaches half the total."""
    order = np.argsort(predictions, axis=1, kind="stable")
    cum = np.cumsum(weights[order], axis=1)
    k = np.argmax(cum >= 0.5 * cum[:, -1:], axis=1)
    rows = np.arange(predictions.shape[0])
    return predictions[rows, order[rows, k]]


def _tree_predictions(forest, X, estimator_name):
    return np.column_stack([out[:, 0] for out in _tree_outputs(forest, X, estimator_name)])


def weighted_median_values(forest, X, estimator_name=None):
    """What :func:`fastdt.predict` reads for an AdaBoost.R2 forest: ``[n, 1]``."""
    preds = _tree_predictions(forest, X, estimator_name)
    return weighted_median(preds, forest.tree_weights)[:, None]


def staged_predict(forest, X, estimator_name=None):
    """AdaBoost.R2's prediction by the first ``t`` trees, ``t = 1, 2, ...`` (a
    generator)."""
    preds = _tree_predictions(forest, X, estimator_name)
    for t in range(1, forest.n_trees + 1):
        yield weighted_median(preds[:, :t], forest.tree_weights[:t])


# ------------------------------------------------------------------ the format


def is_samme(boosting):
    """Whether a forest's ``boosting`` block (or a file's) is SAMME's."""
    return isinstance(boosting, dict) and boosting.get("loss") == "samme"


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and bool(np.isfinite(v))


def validate_samme(forest):
    """Check a SAMME forest's ``boosting`` block; ``ValueError`` naming the problem."""
    b = forest.boosting
    classes = forest.classes
    if forest.task != "classification" or not isinstance(classes, np.ndarray) \
            or classes.ndim != 1 or classes.shape[0] < 2:
        raise ValueError("a SAMME forest is a classifier of at least two classes")
    want = _n_columns(classes.shape[0])
    if forest.value.ndim != 2 or forest.value.shape[1] != want:
        raise ValueError(f"SAMME trees need {want} value column(s), got "
                         f"{forest.value.shape[1:]}")
    base = b.get("baseline")
    if not isinstance(base, list) or len(base) != want or any(
            not _is_number(v) or v != 0 for v in base):
        raise ValueError(f"SAMME has no starting score: baseline must be {want} zero(s)")
    lr = b.get("learning_rate")
    if not _is_number(lr) or not lr > 0:
        raise ValueError("boosting learning_rate must be a finite number > 0")
    if getattr(forest, "tree_weights", None) is not None:
        raise ValueError("a SAMME forest sums its trees: it has no tree_weights")


def samme_from_meta(meta, where):
    """``(task, classes, boosting)`` from a SAMME forest file's metadata."""
    b = meta["boosting"]
    if meta.get("combine") != "sum":
        raise ValueError(f"{where}: a SAMME forest needs combine 'sum'")
    if b.get("task") != "classification":
        raise ValueError(f"{where}: a SAMME forest's task must be 'classification'")
    return "classification", _decode_classes(b.get("classes"), where), {
        k: b.get(k) for k in ("loss", "baseline", "learning_rate")}


def validate_tree_weights(forest):
    """Check an AdaBoost.R2 forest's ``tree_weights``; ``ValueError`` naming the problem."""
    w = forest.tree_weights
    if getattr(forest, "boosting", None) is not None:
        raise ValueError("a weighted-median forest has no boosting block")
    if forest.task != "regression" or forest.n_outputs != 1 or forest.value.shape[1] != 1:
        raise ValueError("a weighted-median forest predicts one regression output")
    if not isinstance(w, np.ndarray) or w.dtype != np.float64 or w.shape != (forest.n_trees,):
        raise ValueError(f"tree_weights must be float64 [{forest.n_trees}] (one per tree)")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("tree_weights must be finite and >= 0")


def tree_weights_from_meta(meta, where):
    """The ``tree_weights`` of a weighted-median forest file's metadata (float64)."""
    w = meta.get("tree_weights")
    if "boosting" in meta:
        raise ValueError(f"{where}: a weighted-median forest has no boosting block")
    if not isinstance(w, list) or not all(_is_number(v) for v in w):
        raise ValueError(f"{where}: tree_weights must be a list of finite numbers")
    return np.array(w, dtype=np.float64)

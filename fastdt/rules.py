"""Rules from a fitted tree, and C4.5's rule post-pruning into an ordered rule list.

:func:`extract` turns every root-to-leaf path into a :class:`Rule`: the conditions met
on the way (preconditions) and the leaf's prediction (postcondition). For a
classification tree, :meth:`RuleList.from_tree` makes them a rule-list classifier and
:meth:`RuleList.prune` post-prunes it as C4.5 does (Quinlan, *C4.5: Programs for
Machine Learning*, 1993, ch. 5; Mitchell, *Machine Learning*, 1997, sec. 3.7.1.2):

1. each rule is generalized on its own: the condition whose removal gives the best
   accuracy estimate of the rule is removed, again and again, while the estimate does
   not drop. The estimate is the rule's accuracy on the validation rows it covers
   (``method="validation"``), or one minus C4.5's pessimistic error rate on the
   training rows it covers (``method="pessimistic"``, see :func:`pessimistic_error`);
2. rules with no predictive value are dropped (see :meth:`RuleList.prune`);
3. the rest are ordered by their estimate, and a default class closes the list.

Missing values. A condition says whether a missing value (NaN, or a category unseen
in training) satisfies it, taken from the tree's ``missing_go_left``: the rules of a
tree fitted with ``missing="learn"`` (the default) send every row to the leaf the tree
sends it to. Rules do not split rows fractionally and do not use surrogate splits: for
a tree fitted with ``missing="surrogate"`` or ``"fractional"``, a row missing a value
on its path follows the node's majority direction (``missing_go_left``), so rules and
tree may disagree on such rows (and on no other row).

A rule list predicts with an ``@njit`` kernel over a flat encoding of the rules
(:class:`fastdt._rules.RuleArrays`, in :attr:`RuleList.arrays`).
"""

import math
from dataclasses import dataclass, replace

import numpy as np

from . import _input
from ._predict import single_output
from ._config import CODE_DTYPE, LEAF, PESSIMISTIC, VALIDATION
from .export import _feature_names, _left_categories, _tree_of
from .tree import binary_only

__all__ = ["Condition", "Rule", "RuleList", "extract", "pessimistic_error"]

_METHODS = {"validation": VALIDATION, "pessimistic": PESSIMISTIC}


# ---------------------------------------------------------------------- the rules


@dataclass(frozen=True)
class Condition:
    """One precondition of a rule, on one feature.

    Attributes
    ----------
    feature : int
        Feature index.
    name : str
        Feature name (for printing).
    op : {"<=", ">", "in", "not in"}
        Numeric: ``x <= threshold`` / ``x > threshold``. Categorical: the category
        is / is not one of ``categories``.
    threshold : float or None
        Numeric conditions only. ``<= inf`` reads "is present", ``> inf`` "is missing".
    codes : tuple of int
        Categorical conditions only: the category codes listed (indices into
        ``tree.categories[feature]``).
    categories : tuple
        Their category levels (for printing).
    missing : bool
        Whether a missing value (NaN, or a category unseen in training) satisfies the
        condition.
    """

    feature: int
    name: str
    op: str
    threshold: float = None
    codes: tuple = ()
    categories: tuple = ()
    missing: bool = False

    @property
    def is_categorical(self):
        return self.op in ("in", "not in")

    def to_text(self, decimals=3, show_missing=False):
        """The condition in words, as :func:`fastdt.export_text` writes splits."""
        if self.is_categorical and not self.codes and (self.op == "in") == self.missing:
            # the empty set: "in {} or missing" / "not in {}, not missing"
            text = f"{self.name} is {'missing' if self.missing else 'present'}"
            show_missing = False  # says it already
        elif self.is_categorical:
            text = f"{self.name} {self.op} {{{', '.join(str(c) for c in self.categories)}}}"
        elif self.threshold == math.inf:
            text = f"{self.name} is {'present' if self.op == '<=' else 'missing'}"
            show_missing = False  # says it already
        else:
            text = f"{self.name} {self.op} {self.threshold:.{int(decimals)}f}"
        if show_missing and self.missing:
            text += " or missing"
        return text

    def __str__(self):
        return self.to_text()


@dataclass(frozen=True)
class Rule:
    """``IF`` all ``conditions`` hold ``THEN`` ``prediction``.

    Attributes
    ----------
    conditions : tuple of Condition
        The preconditions (empty: the rule covers every row).
    prediction : object
        Class label (classification) or value (regression).
    confidence : float or None
        Classification: the fraction of the covered rows that have the predicted
        class. For an extracted rule, the leaf's (weighted) class fraction on the
        training data; for a rule of a pruned list, its accuracy on the rows it was
        pruned with. ``None`` for regression.
    support : int
        Rows covered: the leaf's training samples for an extracted rule, the pruning
        rows covered for a pruned rule.
    leaf : int
        Id of the tree leaf the rule comes from.
    class_index : int
        Index of ``prediction`` in ``tree.classes`` (-1 for regression).
    """

    conditions: tuple
    prediction: object
    confidence: float
    support: int
    leaf: int
    class_index: int = -1

    def to_text(self, decimals=3, show_missing=False):
        """``IF c1 AND c2 THEN class = k  (confidence 0.912, support 34)``."""
        cond = " AND ".join(c.to_text(decimals, show_missing) for c in self.conditions)
        head = f"IF {cond or 'TRUE'} THEN "
        if self.class_index >= 0:
            return (f"{head}class = {self.prediction}  "
                    f"(confidence {self.confidence:.{int(decimals)}f}, support {self.support})")
        return f"{head}value = {self.prediction:.{int(decimals)}f}  (support {self.support})"

    def __str__(self):
        return self.to_text()


def extract(tree, *, feature_names=None, simplify=True):
    """One rule per leaf: the conditions on the path from the root, and the leaf's
    prediction.

    Leaves come in the order :func:`fastdt.export_text` prints them (left branches
    first). Every row satisfies the rule of exactly one leaf: the leaf the tree sends
    it to, except for rows missing a value at a node with surrogate splits or of a
    ``missing="fractional"`` tree (see the module docstring).

    Parameters
    ----------
    tree : Tree or fitted estimator
        A classification or regression tree.
    feature_names : sequence of str, optional
        Names for printing; default ``tree.feature_names``, else ``feature_0``, ...
    simplify : bool, default=True
        Merge the conditions of a path on the same feature, as C4.5 does: ``x <= 5``
        and ``x <= 3`` become ``x <= 3`` (likewise for ``>``), and the category sets of
        one feature become one set, written as ``in`` or ``not in``, whichever lists
        fewer categories. A missing value satisfies a merged condition iff it
        satisfied every merged one. ``x is present`` is dropped next to a condition
        on ``x`` that a missing value fails, and the conditions on ``x`` that a
        missing value satisfies next to ``x is missing``. The rule covers exactly the
        same rows.

    Returns
    -------
    list of Rule

    Examples
    --------
    >>> import fastdt
    >>> tree = fastdt.fit([[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1])
    >>> for rule in fastdt.rules.extract(tree, feature_names=["x"]):
    ...     print(rule)
    IF x <= 1.500 THEN class = 0  (confidence 1.000, support 2)
    IF x > 1.500 THEN class = 1  (confidence 1.000, support 2)
    """
    single_output(tree, "rules.extract")
    tree = _tree_of(tree)
    binary_only(tree, "rule extraction")
    names = _feature_names(tree, feature_names)
    classification = tree.task == "classification"
    rules = []
    merged = _Merger(tree, names) if simplify else None
    # (node, conditions so far): a tuple of Conditions, or, when simplifying, a dict
    # {(feature, "<=" | ">" | "cat"): merged state} in order of first occurrence
    stack = [(0, {} if simplify else ())]
    while stack:  # explicit stack: any depth
        node, path = stack.pop()
        if tree.left[node] != LEAF:
            left, right = _node_conditions(tree, node, names)
            if simplify:
                stack.append((int(tree.right[node]), merged.add(path, right)))
                stack.append((int(tree.left[node]), merged.add(path, left)))
            else:
                stack.append((int(tree.right[node]), path + (right,)))
                stack.append((int(tree.left[node]), path + (left,)))
            continue
        conditions = merged.conditions(path) if simplify else path
        support = int(tree.n_node_samples[node])
        if classification:
            k = int(np.argmax(tree.value[node]))
            rules.append(Rule(conditions, tree.classes[k], float(tree.value[node, k]),
                              support, int(node), k))
        else:
            rules.append(Rule(conditions, float(tree.value[node, 0]), None, support,
                              int(node)))
    return rules


def _levels(tree, f, codes):
    levels = tree.categories[f] if tree.categories is not None else None
    return tuple(levels[c] if levels else c for c in codes)


def _node_conditions(tree, node, names):
    """The conditions of the left and the right branch of internal ``node``."""
    f = int(tree.feature[node])
    left_missing = bool(tree.missing_go_left[node])
    if tree.cat_offset[node] >= 0:
        codes = tuple(_left_categories(tree, node, f))
        cats = _levels(tree, f, codes)
        return (Condition(f, names[f], "in", None, codes, cats, left_missing),
                Condition(f, names[f], "not in", None, codes, cats, not left_missing))
    t = float(tree.threshold[node])
    return (Condition(f, names[f], "<=", t, missing=left_missing),
            Condition(f, names[f], ">", t, missing=not left_missing))


class _Merger:
    """Merges the conditions of a path on one feature (C4.5's simplification).

    A path's state maps ``(feature, op)`` (``op`` one of ``"<="``, ``">"``, ``"cat"``)
    to ``(bound, missing, source)``: the tightest threshold, or the frozenset of the
    category codes every condition allows; whether a missing value satisfies every
    condition; and the Condition itself while only one was seen (reused as it is, so
    that rules share their ancestors' conditions). Merged conditions are made once per
    distinct value and shared too.
    """

    def __init__(self, tree, names):
        self.tree = tree
        self.names = names
        self.made = {}

    def add(self, state, c):
        state = dict(state)
        if c.is_categorical:
            key = (c.feature, "cat")
            k = int(self.tree.n_categories[c.feature])
            ok = frozenset(c.codes) if c.op == "in" else frozenset(range(k)).difference(c.codes)
        else:
            key = (c.feature, c.op)
            ok = c.threshold
        old = state.get(key)
        if old is None:
            state[key] = (ok, c.missing, c)
        elif c.is_categorical:
            state[key] = (old[0] & ok, old[1] and c.missing, None)
        else:
            pick = min if c.op == "<=" else max
            state[key] = (pick(old[0], ok), old[1] and c.missing, None)
        return state

    def conditions(self, state):
        # "x is present" (<= inf, not missing) is implied by any other condition on x
        # that a missing value fails; "x is missing" (> inf, missing) implies every
        # condition on x that a missing value satisfies: both redundant ones go
        present, absent, excludes_missing = set(), set(), set()
        for (f, op), (bound, missing, _) in state.items():
            if bound == math.inf and op == "<=" and not missing:
                present.add(f)
            elif bound == math.inf and op == ">" and missing:
                absent.add(f)
            elif not missing:
                excludes_missing.add(f)
        out = []
        for (f, op), (bound, missing, source) in state.items():
            if f in absent and missing and not (op == ">" and bound == math.inf):
                continue
            if f in present and f in excludes_missing and op == "<=" and bound == math.inf:
                continue
            if op == "cat":
                k = int(self.tree.n_categories[f])
                if 2 * len(bound) <= k:
                    op, codes = "in", tuple(sorted(bound))
                else:
                    op, codes = "not in", tuple(sorted(frozenset(range(k)) - bound))
                if source is not None and source.op == op and source.codes == codes:
                    out.append(source)
                    continue
                key = (f, op, codes, missing)
            elif source is not None:
                out.append(source)
                continue
            else:
                key = (f, op, bound, missing)
            c = self.made.get(key)
            if c is None:
                name = self.names[f]
                if op in ("in", "not in"):
                    c = Condition(f, name, op, None, codes, _levels(self.tree, f, codes),
                                  missing)
                else:
                    c = Condition(f, name, op, bound, missing=missing)
                self.made[key] = c
            out.append(c)
        return tuple(out)


# ---------------------------------------------------------------------- the estimate

# C4.5's table of confidence levels and normal deviates (Release 8, stats.c), which it
# interpolates linearly to get z for the confidence level CF.
_CF_VAL = (0.0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00)
_CF_DEV = (4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00)


def c45_coefficient(confidence):
    """``z ** 2`` for the confidence level, interpolated from C4.5's table as C4.5
    does (``z = 0.6925`` for the default 0.25; the exact normal quantile is 0.6745)."""
    i = 0
    while confidence > _CF_VAL[i]:
        i += 1
    z = _CF_DEV[i - 1] + (_CF_DEV[i] - _CF_DEV[i - 1]) * (
        (confidence - _CF_VAL[i - 1]) / (_CF_VAL[i] - _CF_VAL[i - 1]))
    return z * z


def _check_confidence(confidence):
    if not (_input._is_real(confidence) and 0.0 < confidence < 1.0):
        raise ValueError(f"confidence={confidence!r} is invalid: it must be a number in (0, 1)")
    return float(confidence)


def pessimistic_error(errors, n, confidence=0.25):
    """C4.5's pessimistic error rate ``U_CF(E, N)`` of a rule or leaf that misclassifies
    ``errors`` of the ``n`` training rows it covers: ``(E + AddErrs(N, E)) / N``.

    This is C4.5's own computation (Release 8, ``AddErrs``): for ``E = 0`` the exact
    upper limit of the binomial error, ``1 - CF ** (1 / N)`` (equal to
    ``scipy.stats.beta.ppf(1 - CF, E + 1, N - E)``); for ``E >= 1`` the upper limit of
    the continuity-corrected normal (Wilson) interval, with ``z`` interpolated from
    C4.5's table (:func:`c45_coefficient`); ``0.67 (N - E)`` added errors when
    ``E + 0.5 >= N``. Quinlan's textbook values: ``U_25%(0, 6) = 0.206``,
    ``U_25%(1, 16) = 0.157``.

    Parameters
    ----------
    errors : float
        ``0 <= errors <= n``.
    n : float
        ``n > 0``.
    confidence : float, default=0.25
        C4.5's CF, in (0, 1); smaller is more pessimistic.

    Returns
    -------
    float
    """
    cf = _check_confidence(confidence)
    if not (_input._is_real(n) and n > 0 and _input._is_real(errors) and 0 <= errors <= n):
        raise ValueError(f"need 0 <= errors <= n and n > 0, got errors={errors!r}, n={n!r}")
    n, e = float(n), float(errors)
    from ._rules import c45_added_errors  # numba loads on first use
    return (e + c45_added_errors(n, e, cf, c45_coefficient(cf))) / n


# ---------------------------------------------------------------------- the rule list


class RuleList:
    """An ordered list of classification rules closed by a default class.

    A row gets the class of the first rule that covers it, or the default class when
    none does. Build one with :meth:`from_tree`; :meth:`prune` returns a new, pruned
    list.

    Parameters
    ----------
    rules : sequence of Rule
        Classification rules (``class_index`` set) on the features of ``tree``.
    default : object
        The default class, one of ``tree.classes``.
    tree : Tree or fitted estimator
        The classification tree whose features (count, names, categories) the rules
        read; inputs are checked and converted as for ``fastdt.predict(tree, X)``.
    estimates : sequence of float, optional
        The estimate each rule was ordered by (set by :meth:`prune`).
    method : str, optional
        The pruning method that made the list (set by :meth:`prune`).

    Attributes
    ----------
    rules : tuple of Rule
    default : object
    classes : ndarray
    arrays : RuleArrays
        The flat encoding the prediction kernel reads.
    estimates : tuple of float or None
    method : str or None
    """

    def __init__(self, rules, default, tree, *, estimates=None, method=None):
        tree = _tree_of(tree)
        if tree.task != "classification":
            raise ValueError("a RuleList needs a classification tree (extract() takes "
                             "regression trees)")
        self.rules = tuple(rules)
        self._tree = tree
        self.classes = tree.classes
        self._default = _class_index(self.classes, default, "default")
        self.default = self.classes[self._default]
        self.estimates = None if estimates is None else tuple(float(e) for e in estimates)
        self.method = method
        self.arrays = _encode(self.rules, tree)

    @classmethod
    def from_tree(cls, tree, *, feature_names=None, simplify=True):
        """The unpruned rule list of a classification tree: one rule per leaf
        (:func:`extract`), in :func:`fastdt.export_text` order.

        The rules are mutually exclusive and cover every row, so the list predicts
        exactly what the tree predicts (for ``missing="learn"`` trees; see the module
        docstring). The default class, never used, is the root's majority class.
        """
        tree = _tree_of(tree)
        if tree.task != "classification":
            raise ValueError("RuleList.from_tree needs a classification tree, got a "
                             "regression tree (use fastdt.rules.extract for its rules)")
        rules = extract(tree, feature_names=feature_names, simplify=simplify)
        return cls(rules, tree.classes[int(np.argmax(tree.value[0]))], tree)

    # -------------------------------------------------------------- sequence
    def __len__(self):
        return len(self.rules)

    def __iter__(self):
        return iter(self.rules)

    def __getitem__(self, i):
        return self.rules[i]

    @property
    def n_conditions(self):
        """Total number of conditions over all rules."""
        return int(self.arrays.rule_ptr[-1])

    def __repr__(self):
        return (f"RuleList(n_rules={len(self)}, n_conditions={self.n_conditions}, "
                f"default={self.default!r}, method={self.method!r})")

    def to_text(self, decimals=3, show_missing=False):
        """The numbered rules, one per line, then ``DEFAULT class = k``.

        ``show_missing=True`` marks the conditions a missing value satisfies
        (``or missing``).
        """
        width = len(str(len(self.rules)))
        lines = [f"{i + 1:>{width}}. {r.to_text(decimals, show_missing)}"
                 for i, r in enumerate(self.rules)]
        lines.append(f"{'':>{width}}  DEFAULT class = {self.default}")
        return "\n".join(lines) + "\n"

    def __str__(self):
        return self.to_text()

    # -------------------------------------------------------------- prediction
    def _match(self, Xa):
        out = np.empty(Xa.shape[0], dtype=np.int64)
        from ._rules import match_batch  # numba loads on first use
        match_batch(self.arrays, Xa, out)
        return out

    def apply(self, X):
        """Index of the rule that classifies each row (the first that covers it), -1
        where the default class does (int64)."""
        from ._predict import X_for

        return self._match(X_for(self._tree, X)[0])

    def _predict_codes(self, Xa):
        idx = self._match(Xa)
        if not self.rules:  # every row gets the default class
            return np.full(idx.shape[0], self._default, dtype=CODE_DTYPE)
        return np.where(idx >= 0, self.arrays.rule_class[np.maximum(idx, 0)], self._default)

    def predict(self, X):
        """Class labels: the class of the first rule that covers each row, else the
        default class. ``X`` is checked and converted as by ``fastdt.predict``."""
        from ._predict import X_for

        return self.classes[self._predict_codes(X_for(self._tree, X)[0])]

    def score(self, X, y):
        """Accuracy of :meth:`predict` on ``X, y``."""
        from ._predict import X_for

        Xa = X_for(self._tree, X)[0]
        codes = _input.class_codes(self.classes, y, Xa.shape[0])
        return float(np.mean(self._predict_codes(Xa) == codes))

    # -------------------------------------------------------------- pruning
    def prune(self, X, y, *, method="validation", confidence=0.25):
        """C4.5's rule post-pruning; returns a new RuleList.

        1. **Generalize each rule.** Remove the condition whose removal gives the
           highest estimate of the rule's accuracy, and repeat while that estimate is
           not below the current one (ties between conditions go to the one nearest
           the root). The estimate is measured on the rows of ``X`` that the rule
           covers: ``method="validation"``: the fraction of them with the rule's
           class (``X, y`` are held-out data); ``method="pessimistic"``: one minus
           C4.5's pessimistic error rate :func:`pessimistic_error` at ``confidence``
           (``X, y`` are the training data, as in C4.5). A rule that covers no row is
           left as it is.
        2. **Drop rules with no predictive value:** a rule that covers no row of
           ``X``, or whose estimate is not above the frequency of its class in ``y``
           (it does not make its class more likely than it is a priori).
        3. **Order** the rules by estimate, highest first (ties: more rows covered
           first, then the original order); a rule identical to an earlier one (it
           could never fire) is dropped.
        4. **Default class:** the majority class of the rows of ``X`` covered by no
           rule (of all rows if every row is covered; ties: the first class).

        The rules' ``confidence`` and ``support`` become their accuracy on, and the
        number of rows covered among, ``X``.

        Cost: two ``@njit`` kernels. The first evaluates each distinct condition once
        on every row, into bitsets (``n_distinct_conditions * n_rows / 8`` bytes); the
        second runs the greedy removal of every rule on them, 64 rows per word
        operation (``O(k^2 n_rows / 64)`` for a rule of ``k`` conditions). Pruning the
        ~900 rules of an unpruned tree on 5,000 Adult rows takes tens of milliseconds.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Checked and converted as for ``fastdt.predict(tree, X)``.
        y : array-like of shape (n_samples,)
            Labels, each one of ``tree.classes``.
        method : {"validation", "pessimistic"}, default="validation"
        confidence : float, default=0.25
            C4.5's CF for ``method="pessimistic"``, in (0, 1).

        Returns
        -------
        RuleList

        Raises
        ------
        ValueError
            Bad ``method`` or ``confidence``, ``X`` of the wrong shape, ``y`` of
            another length or with labels the tree does not know.
        """
        from ._predict import X_for

        if method not in _METHODS:
            raise ValueError(f"method={method!r} is invalid: it must be one of "
                             f"{sorted(_METHODS)}")
        cf = _check_confidence(confidence)
        Xa = X_for(self._tree, X)[0]
        codes = _input.class_codes(self.classes, y, Xa.shape[0])
        r = self.arrays
        n_rules = len(self.rules)
        n_words = (Xa.shape[0] + 63) // 64
        bits = np.empty((r.cond_feature.shape[0], n_words), dtype=np.uint64)
        from ._rules import condition_bits, prune_rules  # numba loads on first use
        condition_bits(r, np.ascontiguousarray(Xa.T), bits)
        class_bits = _class_bits(codes, len(self.classes), n_words)
        keep = np.empty(self.n_conditions, dtype=np.uint8)
        covered = np.empty(n_rules, dtype=np.int64)
        correct = np.empty(n_rules, dtype=np.int64)
        estimate = np.empty(n_rules, dtype=np.float64)
        cover = np.empty((n_rules, n_words), dtype=np.uint64)
        prune_rules(r, bits, class_bits, Xa.shape[0], _METHODS[method], cf, c45_coefficient(cf),
                    keep, covered, correct, estimate, cover)

        n = codes.shape[0]
        counts = np.bincount(codes, minlength=len(self.classes))
        useful = []
        for q, rule in enumerate(self.rules):
            k = rule.class_index
            if covered[q] == 0:
                continue
            if method == "validation":  # correct / covered > counts[k] / n, exactly
                if not correct[q] * n > counts[k] * covered[q]:
                    continue
            elif not estimate[q] > counts[k] / n:
                continue
            kept = keep[r.rule_ptr[q]:r.rule_ptr[q + 1]]
            conditions = tuple(c for c, flag in zip(rule.conditions, kept) if flag)
            useful.append((-estimate[q], -covered[q], q,
                           replace(rule, conditions=conditions,
                                   confidence=float(correct[q] / covered[q]),
                                   support=int(covered[q]))))
        useful.sort(key=lambda item: item[:3])
        rules, estimates, seen = [], [], set()
        anyone = np.zeros(n_words, dtype=np.uint64)  # rows covered by a kept rule
        for neg_est, _, q, rule in useful:
            if rule.conditions not in seen:
                seen.add(rule.conditions)
                rules.append(rule)
                estimates.append(-neg_est)
                anyone |= cover[q]
        as_bytes = anyone.astype("<u8").view(np.uint8)
        rest = codes[np.unpackbits(as_bytes, bitorder="little")[:n] == 0]
        left = np.bincount(rest if rest.shape[0] else codes, minlength=len(self.classes))
        return RuleList(rules, self.classes[int(np.argmax(left))], self._tree,
                        estimates=estimates, method=method)


def _class_index(classes, label, what):
    for i, c in enumerate(classes.tolist()):
        if type(c) is type(getattr(label, "item", lambda: label)()) and c == label:
            return i
    raise ValueError(f"{what}={label!r} is not one of the tree's classes {classes.tolist()}")


def _class_bits(codes, n_classes, n_words):
    """``out[k]``: the rows of class ``k`` as a bitset (bit ``i & 63`` of word ``i >> 6``)."""
    padded = np.zeros(n_words * 64, dtype=bool)
    out = np.empty((n_classes, n_words), dtype=np.uint64)
    for k in range(n_classes):
        padded[:codes.shape[0]] = codes == k
        out[k] = np.packbits(padded, bitorder="little").view("<u8")
    return out


def _encode(rules, tree):
    """The flat encoding (:class:`RuleArrays`) of ``rules``, validated against ``tree``
    (numba checks no bounds: nothing out of range may reach the kernels).

    Conditions are entered in the table once per object (the rules of one tree share
    their ancestors' Condition objects)."""
    n_classes = tree.classes.shape[0]
    ncat = tree.n_categories
    table = {}  # id(condition) -> row of the table
    conditions = []
    ptr = [0]
    rule_cond, rule_class = [], []
    for i, rule in enumerate(rules):
        if not isinstance(rule, Rule):
            raise TypeError(f"rules[{i}] is a {type(rule).__name__}, not a Rule")
        k = rule.class_index
        if not (_input._is_int(k) and 0 <= k < n_classes):
            raise ValueError(f"rules[{i}]: class_index={k!r} is not a class of the tree")
        rule_class.append(k)
        for c in rule.conditions:
            row = table.get(id(c))
            if row is None:
                _check_condition(c, tree, i)
                row = table[id(c)] = len(conditions)
                conditions.append(c)
            rule_cond.append(row)
        ptr.append(len(rule_cond))
    offset, words, pos = [], [], 0
    for c in conditions:
        if c.is_categorical:
            n_words = (int(ncat[c.feature]) + 63) // 64
            mask = sum(1 << code for code in set(c.codes))
            words.extend((mask >> (64 * w)) & 0xFFFFFFFFFFFFFFFF for w in range(n_words))
            offset.append(pos)
            pos += n_words
        else:
            offset.append(-1)
    from ._rules import RuleArrays  # numba loads on first use
    return RuleArrays(
        rule_ptr=np.array(ptr, dtype=np.int64),
        rule_cond=np.array(rule_cond, dtype=np.int64),
        rule_class=np.array(rule_class, dtype=CODE_DTYPE),
        cond_feature=np.array([c.feature for c in conditions], dtype=np.int32),
        cond_threshold=np.array([math.nan if c.is_categorical else c.threshold
                                 for c in conditions], dtype=np.float64),
        cond_le=np.array([c.op in ("<=", "in") for c in conditions], dtype=np.uint8),
        cond_missing=np.array([bool(c.missing) for c in conditions], dtype=np.uint8),
        cond_cat_offset=np.array(offset, dtype=np.int64),
        cat_bitsets=np.array(words, dtype=np.uint64),
        n_categories=np.ascontiguousarray(ncat, dtype=np.int32),
    )


def _check_condition(c, tree, i):
    if not isinstance(c, Condition):
        raise TypeError(f"rules[{i}]: {c!r} is not a Condition")
    f = c.feature
    if not (_input._is_int(f) and 0 <= f < tree.n_features):
        raise ValueError(f"rules[{i}]: {c!r} is not a condition on a feature of the tree")
    ncat = int(tree.n_categories[f])
    if c.is_categorical:
        if ncat == 0:
            raise ValueError(f"rules[{i}]: {c!r} does not fit numeric feature {f}")
        if not all(_input._is_int(code) and 0 <= code < ncat for code in c.codes):
            raise ValueError(f"rules[{i}]: {c!r} has category codes out of range")
    else:
        if c.op not in ("<=", ">") or ncat > 0:
            raise ValueError(f"rules[{i}]: {c!r} does not fit feature {f}")
        if not (_input._is_real(c.threshold) and not math.isnan(c.threshold)):
            raise ValueError(f"rules[{i}]: {c!r} needs a numeric threshold")

"""fastdt.rules: rule extraction (hand-made trees), the rule-list classifier (same
predictions as the tree, an njit kernel equal to a pure-Python reference), C4.5 rule
post-pruning (crafted data with known answers, the pessimistic estimate against
Quinlan's values and scipy), printing, errors, DataFrames."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastdt
from fastdt import _rules
from fastdt.rules import Condition, Rule, RuleList, extract, pessimistic_error
from fastdt.tree import Tree, empty_extras


def hand_tree(feature, threshold, left, value, samples, missing_go_left, *, n_features=1,
              classes=(0, 1), categories=None, bitsets=None):
    """A Tree from per-node lists (breadth-first ids; ``left`` -1 at leaves; a
    categorical node has ``bitsets[node]`` = the codes that go left)."""
    n = len(feature)
    left = np.array(left, dtype=np.int32)
    right = np.where(left >= 0, left + 1, -1).astype(np.int32)
    depth = np.zeros(n, dtype=np.int32)
    for i in range(n):
        if left[i] >= 0:
            depth[left[i]] = depth[right[i]] = depth[i] + 1
    value = np.array(value, dtype=np.float64)
    arrays = {
        "feature": np.array(feature, dtype=np.int32),
        "threshold": np.array(threshold, dtype=np.float64),
        "left": left, "right": right, "value": value,
        "impurity": np.zeros(n), "n_node_samples": np.array(samples, dtype=np.int64),
        "weighted_n_node_samples": np.array(samples, dtype=np.float64), "depth": depth,
        "missing_go_left": np.array(missing_go_left, dtype=np.uint8),
        **empty_extras(n, n_features),
    }
    if categories is not None:
        ncat = np.array([0 if c is None else len(c) for c in categories], dtype=np.int32)
        offset = np.full(n, -1, dtype=np.int64)
        words = []
        for node, codes in (bitsets or {}).items():
            offset[node] = len(words)
            words.append(sum(1 << c for c in codes))
        arrays.update(n_categories=ncat, cat_offset=offset,
                      cat_bitsets=np.array(words, dtype=np.uint64))
    kind = "classification" if classes is not None else "regression"
    return Tree(arrays, task=kind, n_features=n_features,
                classes=None if classes is None else np.array(classes),
                feature_names=[f"x{i}" for i in range(n_features)] if n_features > 1 else ["x"],
                categories=categories).validate()


NAN = np.nan


@pytest.fixture(scope="module")
def nested():
    # x <= 5 (missing left) -> [x <= 3 (missing right) -> class 0 | class 1] | class 1
    return hand_tree(
        feature=[0, 0, -1, -1, -1], threshold=[5.0, 3.0, NAN, NAN, NAN],
        left=[1, 3, -1, -1, -1],
        value=[[0.5, 0.5], [0.5, 0.5], [0.0, 1.0], [1.0, 0.0], [0.25, 0.75]],
        samples=[10, 7, 3, 3, 4], missing_go_left=[1, 0, 0, 0, 0])


# ---------------------------------------------------------------------- extraction


def test_extract_hand_tree_simplified(nested):
    rules = extract(nested)
    assert [str(r) for r in rules] == [
        "IF x <= 3.000 THEN class = 0  (confidence 1.000, support 3)",
        "IF x <= 5.000 AND x > 3.000 THEN class = 1  (confidence 0.750, support 4)",
        "IF x > 5.000 THEN class = 1  (confidence 1.000, support 3)",
    ]
    assert [r.leaf for r in rules] == [3, 4, 2]
    assert [r.class_index for r in rules] == [0, 1, 1]
    # a missing value satisfies a merged condition iff it satisfied both merged ones
    assert rules[0].conditions[0].missing is False
    assert [c.missing for c in rules[1].conditions] == [True, True]
    assert rules[2].conditions[0].missing is False
    assert rules[1].to_text(decimals=1, show_missing=True) == (
        "IF x <= 5.0 or missing AND x > 3.0 or missing THEN class = 1  "
        "(confidence 0.8, support 4)")


def test_extract_without_simplification_keeps_the_path(nested):
    rules = extract(nested, simplify=False, feature_names=["age"])
    assert str(rules[0]).startswith("IF age <= 5.000 AND age <= 3.000 THEN class = 0")
    assert [len(r.conditions) for r in rules] == [2, 2, 1]


@pytest.mark.parametrize("simplify", [True, False])
def test_hand_tree_rule_list_predicts_like_the_tree(nested, simplify):
    X = np.array([[0.0], [3.0], [3.5], [5.0], [6.0], [NAN]])
    rl = RuleList.from_tree(nested, simplify=simplify)
    assert rl.predict(X).tolist() == fastdt.predict(nested, X).tolist() == [0, 0, 1, 1, 1, 1]
    # NaN: left at the root, right at node 1 -> leaf 4, the second rule
    assert rl.apply(X).tolist() == [0, 0, 1, 1, 2, 1]


def test_categorical_conditions_merge_into_one_set():
    # c in {a, b} -> [c in {a} -> 0 | 1] | 1, categories a b c d
    tree = hand_tree(
        feature=[0, 0, -1, -1, -1], threshold=[NAN] * 5, left=[1, 3, -1, -1, -1],
        value=[[0.5, 0.5], [0.5, 0.5], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]],
        samples=[6, 4, 2, 2, 2], missing_go_left=[0, 1, 0, 0, 0],
        categories=[["a", "b", "c", "d"]], bitsets={0: [0, 1], 1: [0]})
    assert [str(r).split(" THEN")[0] for r in extract(tree)] == [
        "IF x in {a}", "IF x in {b}", "IF x in {c, d}"]
    assert [str(r).split(" THEN")[0] for r in extract(tree, simplify=False)] == [
        "IF x in {a, b} AND x in {a}", "IF x in {a, b} AND x not in {a}",
        "IF x not in {a, b}"]
    codes = np.array([[0.0], [1.0], [2.0], [3.0], [NAN], [7.0]])  # 7: unseen -> missing
    for simplify in (True, False):
        rl = RuleList.from_tree(tree, simplify=simplify)
        assert rl.predict(codes).tolist() == fastdt.predict(tree, codes).tolist()
        assert rl.apply(codes).tolist() == [0, 1, 2, 2, 2, 2]


def test_present_is_dropped_where_another_condition_excludes_missing_values():
    # x is present (missing right) -> [x <= 2 (missing left) -> 0 | 1] | 0
    tree = hand_tree(
        feature=[0, 0, -1, -1, -1], threshold=[np.inf, 2.0, NAN, NAN, NAN],
        left=[1, 3, -1, -1, -1],
        value=[[0.5, 0.5], [0.5, 0.5], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
        samples=[6, 4, 2, 2, 2], missing_go_left=[0, 1, 0, 0, 0])
    assert [str(r).split(" THEN")[0] for r in extract(tree)] == [
        "IF x <= 2.000", "IF x > 2.000", "IF x is missing"]
    assert [str(r).split(" THEN")[0] for r in extract(tree, simplify=False)] == [
        "IF x is present AND x <= 2.000", "IF x is present AND x > 2.000", "IF x is missing"]
    X = np.array([[1.0], [3.0], [NAN]])
    assert RuleList.from_tree(tree).predict(X).tolist() == fastdt.predict(tree, X).tolist()


def test_extract_regression_and_single_leaf():
    X = np.arange(8, dtype=float)[:, None]
    tree = fastdt.fit(X, np.array([1.0, 1, 1, 1, 5, 5, 5, 5]))
    rules = extract(tree, feature_names=["t"])
    assert [str(r) for r in rules] == ["IF t <= 3.500 THEN value = 1.000  (support 4)",
                                       "IF t > 3.500 THEN value = 5.000  (support 4)"]
    assert rules[0].confidence is None and rules[0].class_index == -1
    with pytest.raises(ValueError, match="classification"):
        RuleList.from_tree(tree)
    single = fastdt.fit(X, np.zeros(8, dtype=int))
    (rule,) = extract(single)
    assert rule.conditions == () and str(rule).startswith("IF TRUE THEN class = 0")


def test_present_missing_split_and_estimator():
    X = np.array([[1.0], [2.0], [3.0], [NAN], [NAN]])
    clf = fastdt.DecisionTreeClassifier().fit(X, [0, 0, 0, 1, 1])
    rules = extract(clf, feature_names=["age"])
    assert [str(r).split(" THEN")[0] for r in rules] == ["IF age is present",
                                                          "IF age is missing"]
    assert RuleList.from_tree(clf).predict(X).tolist() == [0, 0, 0, 1, 1]


# ---------------------------------------------------------------------- the rule list


def python_match(rules, tree, X):
    """Pure-Python reference: index of the first rule whose conditions all hold."""
    out = []
    for x in X:
        found = -1
        for q, rule in enumerate(rules):
            if all(python_holds(c, tree, x) for c in rule.conditions):
                found = q
                break
        out.append(found)
    return out


def python_holds(c, tree, x):
    v = x[c.feature]
    if c.is_categorical:
        if math.isnan(v) or not 0 <= v < tree.n_categories[c.feature]:
            return c.missing
        return (int(v) in c.codes) == (c.op == "in")
    if math.isnan(v):
        return c.missing
    return (v <= c.threshold) == (c.op == "<=")


def random_table(rng, n, nan_rate=0.1):
    X = rng.normal(size=(n, 3))
    X[:, 2] = rng.integers(0, 5, n)
    y = ((X[:, 0] > 0) ^ (X[:, 2] >= 3) | (X[:, 1] > 1)).astype(int)
    y[rng.random(n) < 0.1] ^= 1
    X[rng.random(X.shape) < nan_rate] = np.nan
    return X, y


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), depth=st.integers(1, 8),
       criterion=st.sampled_from(["gini", "gain_ratio"]), simplify=st.booleans(),
       dtype=st.sampled_from([np.float32, np.float64]))
def test_unpruned_list_predicts_like_the_tree(seed, depth, criterion, simplify, dtype):
    rng = np.random.default_rng(seed)
    X, y = random_table(rng, 200)
    tree = fastdt.fit(X.astype(dtype), y, max_depth=depth, criterion=criterion,
                      categorical_features=[2])
    rl = RuleList.from_tree(tree, simplify=simplify)
    X_new, _ = random_table(rng, 300, nan_rate=0.2)
    X_new[:5, 2] = [7, -1, 4, 0, 5]  # unseen codes follow the missing route
    X_new = X_new.astype(dtype)
    assert np.array_equal(rl.predict(X_new), fastdt.predict(tree, X_new))
    leaves = fastdt.apply(tree, X_new)
    assert np.array_equal(np.array([r.leaf for r in rl])[rl.apply(X_new)], leaves)
    assert len(rl) == tree.n_leaves


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), method=st.sampled_from(["validation", "pessimistic"]))
def test_kernel_equals_python_reference_on_pruned_lists(seed, method):
    rng = np.random.default_rng(seed)
    X, y = random_table(rng, 300)
    tree = fastdt.fit(X, y, categorical_features=[2], min_samples_leaf=3)
    rl = RuleList.from_tree(tree)
    pruned = rl.prune(X[:150], y[:150], method=method)
    X_new, _ = random_table(rng, 200, nan_rate=0.2)
    for lst in (rl, pruned):
        ref = python_match(lst.rules, tree, X_new)
        assert lst.apply(X_new).tolist() == ref
        expect = [lst.rules[q].prediction if q >= 0 else lst.default for q in ref]
        assert lst.predict(X_new).tolist() == expect


def test_regression_rules_evaluate_to_the_tree_values(rng):
    X, _ = random_table(rng, 300)
    target = np.nan_to_num(X[:, 0]) * 2 + rng.normal(size=300)
    tree = fastdt.fit(X, target, max_depth=5,
                      categorical_features=[2])
    rules = extract(tree)
    values = np.array([r.prediction for r in rules])
    X_new, _ = random_table(rng, 200, nan_rate=0.2)
    assert np.array_equal(values[python_match(rules, tree, X_new)], fastdt.predict(tree, X_new))


def test_dataframe_input_and_category_names():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    n = 400
    df = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], n),
                       "x": np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n))})
    y = np.where((df["colour"] == "red") | (df["x"] > 0.5), "yes", "no")
    tree = fastdt.fit(df, y, max_depth=3)
    rl = RuleList.from_tree(tree)
    assert "colour in {red}" in str(rl) or "colour not in {blue, green}" in str(rl)
    assert np.array_equal(rl.predict(df), fastdt.predict(tree, df))
    pruned = rl.prune(df.iloc[:200], y[:200])
    assert set(pruned.predict(df.iloc[200:])) <= {"yes", "no"}
    assert pruned.score(df.iloc[200:], y[200:]) == np.mean(
        pruned.predict(df.iloc[200:]) == y[200:])


# ---------------------------------------------------------------------- pruning


@pytest.fixture(scope="module")
def two_features():
    # only the feature count, names and classes matter: the rules are made by hand
    return hand_tree(feature=[-1], threshold=[NAN], left=[-1], value=[[0.5, 0.5]],
                     samples=[2], missing_go_left=[0], n_features=2)


def le(f, t):
    return Condition(f, f"x{f}", "<=", t)


def gt(f, t):
    return Condition(f, f"x{f}", ">", t)


def rule(conditions, k):
    return Rule(tuple(conditions), k, 1.0, 1, -1, k)


def test_validation_pruning_by_hand(two_features):
    rl = RuleList([rule([le(0, 0.5), le(1, 0.5)], 1),   # generalized to x0 <= 0.5
                   rule([gt(0, 0.5)], 0),                # kept as it is
                   rule([gt(1, 0.5)], 0),                # -> IF TRUE: 2/5, no better than 2/5
                   rule([gt(0, 5.0)], 1)],               # covers nothing
                  0, two_features)
    X = np.array([[0, 0], [0, 1], [0, 1], [1, 0], [1, 1]], dtype=float)
    y = np.array([1, 1, 1, 0, 0])
    pruned = rl.prune(X, y)
    # rule 0 covers (0,0) only: 1/1. Without x1 <= .5 it covers the x0 = 0 rows, 3/3
    # (not lower: removed); without x0 <= .5 it would cover (0,0),(1,0): 1/2. Then
    # removing x0 <= .5 too gives 3/5 < 1: stop.
    assert [r.to_text(decimals=1) for r in pruned] == [
        "IF x0 <= 0.5 THEN class = 1  (confidence 1.0, support 3)",
        "IF x0 > 0.5 THEN class = 0  (confidence 1.0, support 2)",
    ]  # equal estimates (1.0): the rule covering more rows first
    assert pruned.estimates == (1.0, 1.0) and pruned.method == "validation"
    assert pruned.default == 1  # every row covered: the majority class of all rows
    assert [r.leaf for r in pruned] == [-1, -1]
    assert pruned.predict(X).tolist() == y.tolist()
    assert "DEFAULT class = 1" in str(pruned)


def test_default_class_is_the_majority_of_uncovered_rows(two_features):
    rl = RuleList([rule([gt(0, 0.5)], 0)], 0, two_features)
    X = np.array([[1, 0]] * 4 + [[0, 0], [0, 1]], dtype=float)
    y = np.array([0, 0, 0, 0, 1, 1])
    pruned = rl.prune(X, y)
    assert len(pruned) == 1 and pruned.default == 1
    assert pruned.predict(np.array([[0.0, 0.0], [2.0, 0.0]])).tolist() == [1, 0]


def test_a_list_of_no_rules_predicts_its_default_class():
    X = np.arange(6, dtype=float)[:, None]
    single = fastdt.fit(X, [0, 0, 0, 0, 1, 1], min_samples_split=100)
    rl = RuleList.from_tree(single)
    assert len(rl) == 1 and rl[0].conditions == ()
    # IF TRUE THEN 0 is right on 3 of 5 rows: no better than the frequency of 0
    pruned = rl.prune(X[:5], [0, 1, 1, 0, 0])
    assert len(pruned) == 0 and pruned.n_conditions == 0 and pruned.default == 0
    assert pruned.predict(X).tolist() == [0] * 6 and pruned.apply(X).tolist() == [-1] * 6
    assert str(pruned) == "   DEFAULT class = 0\n"


def c45_reference(e, n, cf=0.25):
    """C4.5's AddErrs transcribed independently (z = 0.6925 for CF = 0.25)."""
    z2 = 0.6925 ** 2
    val0 = n * (1 - math.exp(math.log(cf) / n))
    if e == 0:
        added = val0
    elif e + 0.5 >= n:
        added = 0.67 * (n - e)
    else:
        root = math.sqrt(z2 * ((e + 0.5) * (1 - (e + 0.5) / n) + z2 / 4))
        pr = (e + 0.5 + z2 / 2 + root) / (n + z2)
        added = n * pr - e
    return (e + added) / n


def test_pessimistic_estimate_textbook_and_scipy():
    # Quinlan (1993), ch. 4: U_25%(0, 6) = 0.206, U_25%(0, 9) = 0.143, U_25%(0, 1) = 0.75,
    # U_25%(1, 16) = 0.157
    assert round(pessimistic_error(0, 6), 3) == 0.206
    assert round(pessimistic_error(0, 9), 3) == 0.143
    assert pessimistic_error(0, 1) == pytest.approx(0.75)
    assert round(pessimistic_error(1, 16), 3) == 0.157
    for e, n in [(1, 16), (3, 10), (5, 100), (10, 100), (50, 1000), (9, 10), (10, 10)]:
        assert pessimistic_error(e, n) == pytest.approx(c45_reference(e, n), abs=1e-12)
    beta = pytest.importorskip("scipy.stats").beta
    for n in (1, 2, 6, 50, 1000):  # E = 0: C4.5 is the exact binomial limit
        for cf in (0.1, 0.25, 0.5):
            assert pessimistic_error(0, n, cf) == pytest.approx(beta.ppf(1 - cf, 1, n),
                                                                rel=1e-12)
    for e, n in [(1, 16), (3, 10), (5, 100), (10, 100), (50, 1000)]:  # E >= 1: normal
        assert abs(pessimistic_error(e, n) - beta.ppf(0.75, e + 1, n - e)) < 0.005
    assert pessimistic_error(0, 10, 0.1) > pessimistic_error(0, 10, 0.5)


def test_pessimistic_pruning_by_hand(two_features):
    rl = RuleList([rule([le(0, 0.5), le(1, 0.5)], 1)], 0, two_features)
    X = np.array([[0, 0]] * 2 + [[0, 1]] * 8 + [[1, 0]] * 3 + [[1, 1]] * 4, dtype=float)
    y = np.array([1] * 2 + [1] * 7 + [0] + [0] * 3 + [0] * 4)
    # as it is: U(0, 2); without x1 <= .5: U(1, 10); without x0 <= .5: U(3, 5);
    # without both: U(8, 17)
    assert 1 - c45_reference(1, 10) > 1 - c45_reference(0, 2) > 1 - c45_reference(3, 5)
    assert 1 - c45_reference(8, 17) < 1 - c45_reference(1, 10)
    pruned = rl.prune(X, y, method="pessimistic")
    assert [str(r).split(" THEN")[0] for r in pruned] == ["IF x0 <= 0.500"]
    assert pruned.estimates[0] == pytest.approx(1 - c45_reference(1, 10), abs=1e-12)
    assert pruned[0].support == 10 and pruned[0].confidence == 0.9
    # the validation estimate keeps both conditions: 2/2 > 9/10
    assert len(rl.prune(X, y)[0].conditions) == 2


def test_pruning_never_lowers_a_kept_rules_accuracy(rng):
    X, y = random_table(rng, 600)
    tree = fastdt.fit(X[:300], y[:300], categorical_features=[2])
    rl = RuleList.from_tree(tree)
    Xv, yv = X[300:], y[300:]
    pruned = rl.prune(Xv, yv)
    assert 0 < len(pruned) <= len(rl)
    by_leaf = {r.leaf: r for r in rl}
    base = np.bincount(yv, minlength=2) / len(yv)
    for r in pruned:
        original = by_leaf[r.leaf]
        assert set(r.conditions) <= set(original.conditions)
        cov = np.array(python_match([original], tree, Xv)) == 0
        assert cov.any()  # rules covering no validation row are dropped
        assert r.confidence >= np.mean(yv[cov] == r.class_index)
        assert r.confidence > base[r.class_index]  # predictive value
    est = np.array(pruned.estimates)
    assert np.all(est[:-1] >= est[1:])
    # a pruned list can be pruned again
    assert isinstance(pruned.prune(Xv, yv), RuleList)


def reference_prune(rl, tree, X, y, method):
    """The greedy removal and the predictive-value filter, by brute force: every
    candidate's coverage recomputed from the conditions. ``{leaf: conditions}`` of the
    rules kept."""
    n = len(y)
    counts = np.bincount(y, minlength=len(rl.classes))
    kept = {}
    for rule in rl:
        k = rule.class_index

        def stats(conds):
            cov = [all(python_holds(c, tree, x) for c in conds) for x in X]
            return sum(cov), sum(1 for ok, yi in zip(cov, y) if ok and yi == k)

        def est(cov, cor):
            if method == "validation":
                return cor / cov
            return 1 - pessimistic_error(cov - cor, cov)

        conds = list(rule.conditions)
        cov, cor = stats(conds)
        while conds and cov > 0:
            options = []
            for t in range(len(conds)):
                cv, cr = stats(conds[:t] + conds[t + 1:])
                options.append((est(cv, cr), -t, cv, cr))
            best = max(options)
            if best[0] < est(cov, cor):
                break
            del conds[-best[1]]
            cov, cor = best[2], best[3]
        if cov > 0 and (cor * n > counts[k] * cov if method == "validation"
                        else est(cov, cor) > counts[k] / n):
            kept[rule.leaf] = tuple(conds)
    return kept


@pytest.mark.parametrize("method", ["validation", "pessimistic"])
def test_pruning_equals_a_brute_force_reference(method):
    rng = np.random.default_rng(7)
    X, y = random_table(rng, 400)
    tree = fastdt.fit(X[:200], y[:200], categorical_features=[2], min_samples_leaf=2)
    rl = RuleList.from_tree(tree)
    Xp, yp = (X[200:], y[200:]) if method == "validation" else (X[:200], y[:200])
    pruned = rl.prune(Xp, yp, method=method)
    expected = reference_prune(rl, tree, Xp, yp, method)
    assert {r.leaf: r.conditions for r in pruned}.items() <= expected.items()
    shown = {r.conditions for r in pruned}
    assert all(conds in shown for conds in expected.values())  # the rest: duplicates
    assert len(pruned) < len(rl)


# ---------------------------------------------------------------------- errors, printing


def test_errors(nested, two_features):
    rl = RuleList.from_tree(nested)
    X = np.array([[1.0], [4.0], [6.0]])
    y = np.array([0, 1, 1])
    with pytest.raises(ValueError, match="method"):
        rl.prune(X, y, method="mdl")
    for bad in (0, 1, 1.5, -0.1, "0.25", True):
        with pytest.raises(ValueError, match="confidence"):
            rl.prune(X, y, method="pessimistic", confidence=bad)
    with pytest.raises(ValueError, match="features"):
        rl.prune(np.ones((3, 2)), y)
    with pytest.raises(ValueError, match="2D"):
        rl.predict(np.ones(3))
    with pytest.raises(ValueError, match="not classes of the tree"):
        rl.prune(X, np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="not classes of the tree"):
        rl.prune(X, np.array(["a", "b", "a"]))
    with pytest.raises(ValueError, match="samples"):
        rl.prune(X, y[:2])
    with pytest.raises(ValueError, match="y is None"):
        rl.score(X, None)
    with pytest.raises(TypeError, match="Tree"):
        RuleList.from_tree("tree")
    with pytest.raises(TypeError, match="Tree"):
        extract(np.zeros(3))
    with pytest.raises(ValueError, match="not fitted|fit"):
        extract(fastdt.DecisionTreeClassifier())
    with pytest.raises(ValueError, match="default"):
        RuleList([], 5, nested)
    with pytest.raises(ValueError, match="class_index"):
        RuleList([Rule((), 0, 1.0, 1, -1, 9)], 0, nested)
    with pytest.raises(ValueError, match="feature"):
        RuleList([rule([le(3, 0.0)], 0)], 0, two_features)
    with pytest.raises(ValueError, match="does not fit"):
        RuleList([rule([Condition(0, "x0", "in", None, (0,), ("a",))], 0)], 0, two_features)
    with pytest.raises(ValueError, match="errors"):
        pessimistic_error(3, 2)


def test_printing(nested):
    rl = RuleList.from_tree(nested)
    assert str(rl) == (
        "1. IF x <= 3.000 THEN class = 0  (confidence 1.000, support 3)\n"
        "2. IF x <= 5.000 AND x > 3.000 THEN class = 1  (confidence 0.750, support 4)\n"
        "3. IF x > 5.000 THEN class = 1  (confidence 1.000, support 3)\n"
        "   DEFAULT class = 0\n")
    assert repr(rl).startswith("RuleList(n_rules=3, n_conditions=4")
    assert len(rl) == 3 and rl[0] is rl.rules[0] and list(rl) == list(rl.rules)
    assert "x <= 5.0 or missing" in rl.to_text(decimals=1, show_missing=True)


def test_signature_count(rng):
    import os

    if os.environ.get("NUMBA_DISABLE_JIT") == "1":
        pytest.skip("JIT disabled")
    X, y = random_table(rng, 200)
    for dtype in (np.float32, np.float64):
        tree = fastdt.fit(X.astype(dtype), y, categorical_features=[2], max_depth=4)
        rl = RuleList.from_tree(tree)
        for method in ("validation", "pessimistic"):
            rl.prune(X.astype(dtype), y, method=method).predict(X.astype(dtype))
        pessimistic_error(1, 10)
    for name in dir(_rules):
        k = getattr(_rules, name)
        if hasattr(k, "signatures") and hasattr(k, "py_func"):
            assert len(k.signatures) <= 2, f"{name}: {[str(s) for s in k.signatures]}"


# ---------------------------------------------------------------------- real data


@pytest.mark.slow
def test_adult_pruning_keeps_accuracy_and_shrinks_the_list(datasets_dir):
    pytest.importorskip("pandas")
    from fastdt.datasets import load_adult_frame

    X, y, X_test, y_test = load_adult_frame(datasets_dir)
    tree = fastdt.fit(X.iloc[:2000], y[:2000], criterion="gain_ratio")
    rl = RuleList.from_tree(tree)
    pruned = rl.prune(X.iloc[2000:3000], y[2000:3000])
    assert len(pruned) < len(rl) and pruned.n_conditions < rl.n_conditions
    before = rl.score(X_test, y_test)
    assert before == pytest.approx(np.mean(fastdt.predict(tree, X_test) == y_test))
    assert pruned.score(X_test, y_test) > before  # an unpruned tree overfits 2000 rows

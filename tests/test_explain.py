"""fastdt.explain and the estimators' explain: the path as readable conditions."""

import numpy as np
import pytest

import fastdt
from fastdt._config import LEAF
from fastdt.export import _left_categories
from fastdt.inspection import Condition, Explanation


def test_text_of_a_hand_made_example():
    tree = fastdt.fit([[0.0], [1.0], [2.0], [3.0]], ["a", "a", "b", "b"])
    first, second = fastdt.explain(tree, [[2.5], [0.5]], feature_names=["x"])
    assert str(first) == "x = 2.5 > 1.500 -> b (2 samples, p=1.00)"
    assert str(second) == "x = 0.5 <= 1.500 -> a (2 samples, p=1.00)"
    assert isinstance(first, Explanation) and first.prediction == "b" and first.samples == 2
    assert first.conditions == (Condition(0, 0, "x", 2.5, False, "x = 2.5 > 1.500"),)
    np.testing.assert_array_equal(first.proba, [0.0, 1.0])
    assert str(fastdt.explain(tree, [[2.5]], class_names=["A", "B"], decimals=1)[0]) == (
        "feature_0 = 2.5 > 1.5 -> B (2 samples, p=1.00)")


def test_regression_single_leaf_and_float32():
    reg = fastdt.fit(np.arange(6.0)[:, None], np.array([1.0, 1, 1, 5, 5, 5]))
    e = fastdt.explain(reg, np.array([[4.0]], dtype=np.float32), decimals=2)[0]
    assert str(e) == "feature_0 = 4.0 > 2.50 -> 5.00 (3 samples)"
    assert e.prediction == 5.0 and e.proba is None
    leaf = fastdt.fit([[0.0], [1.0]], [1, 1])
    assert str(fastdt.explain(leaf, [[3.0]])[0]) == "-> 1 (2 samples, p=1.00)"


def test_categories_and_missing_values_in_words():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"colour": ["red", "blue", "green", "red", "blue", "green"] * 5,
                       "age": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] * 5})
    y = (df["colour"] == "green").to_numpy().astype(int)
    tree = fastdt.fit(df, y)
    rows = pd.DataFrame({"colour": ["green", "red", None], "age": [1.0, 2.0, 3.0]})
    green, red, missing = fastdt.explain(tree, rows)
    listed = fastdt.export_text(tree).splitlines()[0].split("colour ", 1)[1]  # "in {...}"
    left_set = listed.split("in ", 1)[1]
    assert str(green).startswith("colour = green ") and "{" in str(green)
    assert green.prediction == 1 and red.prediction == 0
    assert green.conditions[0].value == "green" and red.conditions[0].value == "red"
    assert (("green" in left_set) == green.conditions[0].left)
    assert missing.conditions[0].value is None
    side = "left" if tree.missing_go_left[0] else "right"
    assert missing.conditions[0].text == f"colour is missing -> {side} (learned)"


def test_surrogate_and_fractional_wording():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    X[:, 1] = X[:, 0] + 0.01 * rng.normal(size=300)  # a perfect surrogate of feature 0
    y = (X[:, 0] > 0).astype(int)
    sur = fastdt.fit(X, y, max_depth=1, missing="surrogate")
    row = np.array([[np.nan, 0.7]])
    e = fastdt.explain(sur, row, feature_names=["a", "b"])[0]
    assert e.conditions[0].text.startswith("a is missing -> right (via surrogate b = 0.7 >")
    e = fastdt.explain(sur, np.array([[np.nan, np.nan]]), feature_names=["a", "b"])[0]
    assert e.conditions[0].text.endswith("(majority)")
    Xf = np.column_stack([X[:, 0], rng.normal(size=300)])  # b: noise
    Xf[rng.random(300) < 0.2, 0] = np.nan
    frac = fastdt.fit(Xf, y, max_depth=1, missing="fractional")
    e = fastdt.explain(frac, np.array([[np.nan, 0.0]]), feature_names=["a", "b"])[0]
    w = frac.weighted_n_node_samples
    share = w[1] / w[0]
    heavier = "left" if share >= 0.5 else "right"
    assert e.conditions[0].text == (f"a is missing -> both ways (left {share:.0%}, right "
                                    f"{1 - share:.0%}); followed {heavier}")
    assert e.leaf == fastdt.apply(frac, np.array([[np.nan, 0.0]]))[0]
    np.testing.assert_allclose(e.proba, fastdt.predict_proba(frac, np.array([[np.nan, 0.0]]))[0])


@pytest.mark.parametrize("missing", ["learn", "surrogate", "fractional"])
def test_conditions_hold_for_the_row_values(missing):
    rng = np.random.default_rng(11)
    n = 400
    X = rng.normal(size=(n, 4))
    X[:, 3] = rng.integers(0, 7, n)
    y = ((X[:, 0] > 0) ^ np.isin(X[:, 3], [2, 3, 5]) ^ (X[:, 1] > 1)).astype(int)
    X[rng.random(X.shape) < 0.15] = np.nan
    tree = fastdt.fit(X, y, max_depth=5, categorical_features=[3], missing=missing)
    Xt = rng.normal(size=(150, 4))
    Xt[:, 3] = rng.integers(0, 9, 150)  # 7, 8: unseen categories
    Xt[rng.random(Xt.shape) < 0.15] = np.nan
    explanations = fastdt.explain(tree, Xt)
    np.testing.assert_array_equal([e.leaf for e in explanations], fastdt.apply(tree, Xt))
    np.testing.assert_array_equal([e.prediction for e in explanations], fastdt.predict(tree, Xt))
    for x, e in zip(Xt, explanations):
        node = 0
        for c in e.conditions:
            assert c.node == node and c.feature == tree.feature[node]
            v = x[c.feature]
            if tree.cat_offset[node] >= 0:
                valid = not np.isnan(v) and 0 <= v < tree.n_categories[c.feature]
                if valid:
                    assert c.value == int(v)
                    assert c.left == (int(v) in _left_categories(tree, node, c.feature))
                    assert c.text.startswith(f"feature_3 = {int(v)} ")
                else:
                    assert c.value is None and "-> " in c.text
            elif np.isnan(v):
                assert c.value is None and "is missing ->" in c.text
            else:
                assert c.value == v and c.left == (v <= tree.threshold[node])
                # as shown, the value satisfies the condition as shown
                shown, op, thr = c.text.split(" = ", 1)[1].split(" ")
                assert op == ("<=" if c.left else ">") and thr == f"{tree.threshold[node]:.3f}"
                assert (float(shown) <= float(thr)) == c.left
                assert abs(float(shown) - v) <= 0.0005 + 1e-12
            node = tree.left[node] if c.left else tree.right[node]
        assert tree.left[node] == LEAF and node == e.leaf


def test_estimators_explain_a_dataframe():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"petal length (cm)": rng.uniform(1, 7, 120),
                       "kind": rng.choice(["x", "y"], 120)})
    y = np.where(df["petal length (cm)"] < 2.5, "setosa", "other")
    clf = fastdt.DecisionTreeClassifier(max_depth=2).fit(df, y)
    out = clf.explain(df.iloc[:3])
    assert [e.leaf for e in out] == clf.apply(df.iloc[:3]).tolist()
    assert all(str(e).startswith("petal length (cm) = ") for e in out)
    reg = fastdt.DecisionTreeRegressor(max_depth=2).fit(df, df["petal length (cm)"] * 2)
    assert len(reg.explain(df)) == 120
    with pytest.raises(ValueError, match="not fitted"):
        fastdt.DecisionTreeClassifier().explain(df)

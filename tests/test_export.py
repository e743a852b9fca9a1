"""fastdt.export_text: exact text on trees with known splits, names, truncation, errors."""

import inspect
import sys
from types import SimpleNamespace

import numpy as np
import pytest

import fastdt
from fastdt._input import NotFittedError


@pytest.fixture(scope="module")
def stump():
    # one split: x <= 1.5 -> class 0, else class 1
    return fastdt.fit(np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1]))


@pytest.fixture(scope="module")
def two_level():
    # x0 in 0..7, labels a a b b c c d d. With entropy the root splits at 3.5 (1 bit
    # left per side, against 0.75 * log2(3) bits for 1.5 or 5.5), then at 1.5 and 5.5:
    # four pure leaves. (Gini ties 1.5 and 3.5 at the root.)
    X = np.arange(8, dtype=float)[:, None]
    y = np.array(["a", "a", "b", "b", "c", "c", "d", "d"])
    return fastdt.fit(X, y, criterion="entropy")


def test_stump_exact_text(stump):
    assert fastdt.export_text(stump) == (
        "|--- feature_0 <= 1.500\n"
        "|   |--- class: 0\n"
        "|--- feature_0 >  1.500\n"
        "|   |--- class: 1\n"
    )


def test_feature_and_class_names(stump):
    text = fastdt.export_text(stump, feature_names=["petal_len"],
                              class_names=["setosa", "virginica"])
    assert text == (
        "|--- petal_len <= 1.500\n"
        "|   |--- class: setosa\n"
        "|--- petal_len >  1.500\n"
        "|   |--- class: virginica\n"
    )


def test_decimals_and_weights(stump):
    text = fastdt.export_text(stump, decimals=1, show_weights=True)
    assert text == (
        "|--- feature_0 <= 1.5\n"
        "|   |--- weights: [2.0, 0.0] class: 0\n"
        "|--- feature_0 >  1.5\n"
        "|   |--- weights: [0.0, 2.0] class: 1\n"
    )


def test_weights_use_sample_weight():
    tree = fastdt.fit([[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1],
                      sample_weight=[1.0, 3.0, 0.5, 0.5])
    assert "weights: [4.00, 0.00] class: 0" in fastdt.export_text(
        tree, decimals=2, show_weights=True)


def test_dataframe_feature_names_are_default():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"petal_len": [0.0, 1.0, 2.0, 3.0]})
    tree = fastdt.fit(X, ["setosa", "setosa", "virginica", "virginica"])
    text = fastdt.export_text(tree)
    assert text.splitlines()[0] == "|--- petal_len <= 1.500"
    assert "|   |--- class: setosa" in text and "|   |--- class: virginica" in text
    # explicit names win over the stored ones
    assert fastdt.export_text(tree, feature_names=["x"]).startswith("|--- x <= 1.500\n")


def test_two_levels_and_max_depth(two_level):
    assert fastdt.export_text(two_level, decimals=1) == (
        "|--- feature_0 <= 3.5\n"
        "|   |--- feature_0 <= 1.5\n"
        "|   |   |--- class: a\n"
        "|   |--- feature_0 >  1.5\n"
        "|   |   |--- class: b\n"
        "|--- feature_0 >  3.5\n"
        "|   |--- feature_0 <= 5.5\n"
        "|   |   |--- class: c\n"
        "|   |--- feature_0 >  5.5\n"
        "|   |   |--- class: d\n"
    )
    # max_depth=0: only the root's split; both children are hidden subtrees of 2 levels
    assert fastdt.export_text(two_level, decimals=1, max_depth=0) == (
        "|--- feature_0 <= 3.5\n"
        "|   |--- truncated branch of depth 2\n"
        "|--- feature_0 >  3.5\n"
        "|   |--- truncated branch of depth 2\n"
    )
    assert fastdt.export_text(two_level, max_depth=1) == fastdt.export_text(two_level)
    assert fastdt.export_text(two_level, max_depth=10) == fastdt.export_text(two_level)


def test_truncation_shows_leaves_at_the_limit(stump):
    # a leaf just below the limit is shown, never "truncated branch of depth 1"
    assert fastdt.export_text(stump, max_depth=0) == fastdt.export_text(stump)


def test_regression_values():
    tree = fastdt.fit(np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([1.0, 2.0, 10.0, 12.0]),
                      max_depth=1)
    assert tree.task == "regression"
    text = fastdt.export_text(tree, feature_names=["x"], show_weights=True)
    assert text == (
        "|--- x <= 1.500\n"
        "|   |--- value: [1.500]\n"
        "|--- x >  1.500\n"
        "|   |--- value: [11.000]\n"
    )


def test_single_leaf_tree():
    tree = fastdt.fit([[0.0], [1.0]], [7, 7])
    assert fastdt.export_text(tree) == "|--- class: 7\n"


def test_estimator_like_object(stump):
    assert fastdt.export_text(SimpleNamespace(tree_=stump)) == fastdt.export_text(stump)


def test_fastdt_estimator(stump):
    est_mod = pytest.importorskip("fastdt.estimators")
    clf = est_mod.DecisionTreeClassifier().fit([[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1])
    assert fastdt.export_text(clf) == fastdt.export_text(stump)
    with pytest.raises(NotFittedError):
        fastdt.export_text(est_mod.DecisionTreeClassifier())


def test_bad_arguments(stump):
    with pytest.raises(ValueError, match="feature_names has 2 name.*1 feature"):
        fastdt.export_text(stump, feature_names=["a", "b"])
    with pytest.raises(ValueError, match="feature_names has 0"):
        fastdt.export_text(stump, feature_names=[])
    with pytest.raises(ValueError, match="single string"):
        fastdt.export_text(stump, feature_names="x")
    with pytest.raises(ValueError, match="class_names has 3"):
        fastdt.export_text(stump, class_names=["a", "b", "c"])
    with pytest.raises(ValueError, match="decimals"):
        fastdt.export_text(stump, decimals=-1)
    with pytest.raises(ValueError, match="max_depth"):
        fastdt.export_text(stump, max_depth=-1)
    with pytest.raises(TypeError, match="fastdt Tree"):
        fastdt.export_text("not a tree")
    with pytest.raises(TypeError, match="fastdt Tree"):
        fastdt.export_text(SimpleNamespace(tree_=object()))


def test_matches_tree_structure(rng):
    """Every node appears once: one line per split side and one per leaf."""
    X = rng.standard_normal((300, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    tree = fastdt.fit(X, y, max_depth=5)
    lines = fastdt.export_text(tree).splitlines()
    n_internal = tree.node_count - tree.n_leaves
    assert sum(" <= " in s for s in lines) == n_internal
    assert sum(" >  " in s for s in lines) == n_internal
    assert sum("class: " in s for s in lines) == tree.n_leaves
    # indentation = depth of the node the line leads to (split lines) / leaf depth
    assert max(s.count("|") for s in lines) == tree.max_depth + 1


def test_deep_tree_without_recursion():
    # alternating labels on a line: a chain-like tree much deeper than the limit below
    n = 600
    X = np.arange(n, dtype=float)[:, None]
    y = (np.arange(n) // 2) % 2
    tree = fastdt.fit(X, y, max_leaf_nodes=300)
    assert tree.max_depth > 150
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 60)  # far below the tree's depth
    try:
        text = fastdt.export_text(tree)
        truncated = fastdt.export_text(tree, max_depth=3)
    finally:
        sys.setrecursionlimit(old)
    assert len(text.splitlines()) == 2 * (tree.node_count - tree.n_leaves) + tree.n_leaves
    assert "truncated branch of depth" in truncated


def test_category_names_and_missing_values():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], n),
                       "x": np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n))})
    y = ((df["colour"] == "red") | (df["x"] > 0.5)).to_numpy().astype(int)
    tree = fastdt.fit(df, y, max_depth=2)
    text = fastdt.export_text(tree)
    assert "|--- colour in {blue, green}\n" in text
    assert "|--- colour not in {blue, green}\n" in text
    shown = fastdt.export_text(tree, show_missing=True)
    side = "in {blue, green}" if tree.missing_go_left[0] else "not in {blue, green}"
    assert f"colour {side}, or missing\n" in shown
    frac = fastdt.export_text(fastdt.fit(df, y, max_depth=1, missing="fractional"),
                              show_missing=True)
    assert "% of missing" not in frac and "(missing: " in frac


def test_present_versus_missing_split_reads_as_such():
    tree = fastdt.fit(np.array([[1.0], [2.0], [3.0], [np.nan], [np.nan]]), [0, 0, 0, 1, 1])
    assert fastdt.export_text(tree, feature_names=["age"]) == (
        "|--- age is present\n|   |--- class: 0\n|--- age is missing\n|   |--- class: 1\n")


def _animals():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"legs": [4.0, 2.0, 8.0, 4.0, 2.0, 8.0], "eyes": [2.0, 2.0, 8.0, 2.0, 2.0, 8.0]})
    return fastdt.fit(X, ["dog", "chicken", "spider"] * 2)


def test_to_dict_is_json_and_walks_the_tree():
    import json

    tree = _animals()
    d = fastdt.to_dict(tree)
    assert json.loads(json.dumps(d)) == d
    assert d["classes"] == ["chicken", "dog", "spider"]
    root = d["tree"]
    assert root["feature"] == "legs" and root["threshold"] == 3.0
    assert root["left"]["class"] == "chicken" and "feature" not in root["left"]
    assert root["right"]["right"]["class"] == "spider"
    assert root["missing"] in ("left", "right") and root["surrogates"] == []
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        count += 1
        stack += [node[k] for k in ("left", "right") if k in node]
    assert count == tree.node_count


def test_to_dict_categories_by_name():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"colour": ["red", "blue", "green", "red"] * 5})
    tree = fastdt.fit(df, [1, 0, 0, 1] * 5)
    assert fastdt.to_dict(tree)["tree"]["categories"] in (["red"], ["blue", "green"])


def test_export_mermaid_yes_no_edges():
    text = fastdt.export_mermaid(_animals())
    assert text.startswith("flowchart TB\n")
    assert '    n0{"legs #lt;= 3.000?"}' in text
    assert "    n0 -->|yes| n1" in text and "    n0 -->|no| n2" in text
    assert '    n1["class: chicken"]' in text
    assert text.count("-->|yes|") == text.count("-->|no|") == 2
    single = fastdt.export_mermaid(fastdt.fit([[0.0], [1.0]], [1, 1]))
    assert single == 'flowchart TB\n    n0["class: 1"]\n'


def test_export_graphviz_dot():
    text = fastdt.export_graphviz(_animals())
    assert text.startswith("digraph Tree {") and text.rstrip().endswith("}")
    assert '0 -> 1 [label="True"] ;' in text and '0 -> 2 [label="False"] ;' in text
    assert 'label="legs <= 3.000\\nsamples = 6' in text
    assert text.count(" -> ") == 4


def test_missing_only_categorical_split_reads_is_missing():
    """A categorical split that sends no category left (only the missing rows) is a
    missing-versus-present split, and every export says so."""
    pd = pytest.importorskip("pandas")
    from fastdt.rules import extract

    rng = np.random.default_rng(0)
    deck = pd.Series(rng.choice(list("ABC"), 400), dtype="category").mask(rng.random(400) < 0.6)
    y = np.where(deck.isna(), rng.random(400) < 0.2, rng.random(400) < 0.8).astype(int)
    tree = fastdt.fit(pd.DataFrame({"deck": deck}), y, max_depth=1)
    assert tree.cat_offset[0] >= 0
    text = fastdt.export_text(tree, show_missing=True)
    assert "deck is missing" in text and "deck is present" in text and "{}" not in text
    assert "{}" not in fastdt.export_graphviz(tree) + fastdt.export_mermaid(tree)
    rules = "\n".join(str(r) for r in extract(tree))
    assert "deck is missing" in rules and "deck is present" in rules and "{}" not in rules

"""fastdt.plot_tree: boxes, texts, layout, options, errors (matplotlib, Agg backend)."""

import builtins

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Annotation  # noqa: E402

import fastdt  # noqa: E402


@pytest.fixture(scope="module")
def two_level():
    X = np.arange(8, dtype=float)[:, None]
    y = np.array(["a", "a", "b", "b", "c", "c", "d", "d"])
    return fastdt.fit(X, y, criterion="entropy")  # 3.5 at the root, then 1.5 and 5.5


@pytest.fixture
def ax():
    fig, ax = plt.subplots(figsize=(8, 5))
    yield ax
    plt.close(fig)


def test_one_box_per_node_with_the_conditions(two_level, ax):
    boxes = fastdt.plot_tree(two_level, feature_names=["x"], ax=ax)
    assert len(boxes) == two_level.node_count == 7
    assert all(isinstance(b, Annotation) for b in boxes)
    texts = [b.get_text() for b in boxes]
    assert texts[0].splitlines() == ["x <= 3.500", "entropy = 2.000", "samples = 8",
                                     "value = [0.250, 0.250, 0.250, 0.250]", "class = a"]
    assert texts[1].startswith("x <= 1.500\n") and texts[2].startswith("x <= 5.500\n")
    assert texts[3].splitlines()[-1] == "class = a" and texts[6].splitlines()[-1] == "class = d"
    # the same lines as the DOT export (plus the impurity)
    dot = fastdt.export_graphviz(two_level, feature_names=["x"])
    assert 'label="x <= 3.500\\nsamples = 8' in dot
    # layout: parents centred over their children, depth down the y axis
    pos = [b.xyann if i else b.xy for i, b in enumerate(boxes)]
    assert pos[0][0] == pytest.approx((pos[1][0] + pos[2][0]) / 2)
    assert pos[0][1] > pos[1][1] == pos[2][1] > pos[3][1]
    leaves_x = [pos[i][0] for i in (3, 4, 5, 6)]
    assert leaves_x == sorted(leaves_x) and np.allclose(np.diff(leaves_x), leaves_x[1] - leaves_x[0])
    # edges: True to the left child, False to the right one (as export_graphviz)
    labels = [t.get_text() for t in ax.texts if t not in boxes]
    assert labels.count("True") == 3 and labels.count("False") == 3
    assert not ax.axison


def test_max_depth_draws_the_top_only(two_level, ax):
    boxes = fastdt.plot_tree(two_level, max_depth=0, ax=ax)
    assert len(boxes) == 1
    assert [t.get_text() for t in ax.texts if t not in boxes] == ["(...)"]
    fig, ax2 = plt.subplots()
    assert len(fastdt.plot_tree(two_level, max_depth=1, ax=ax2)) == 3
    plt.close(fig)


def test_estimator_default_axes_and_options(two_level):
    est = fastdt.DecisionTreeRegressor(max_depth=2).fit(np.arange(10.0)[:, None], np.arange(10.0))
    plt.figure()
    try:
        boxes = fastdt.plot_tree(est, filled=True, impurity=False, node_ids=True, rounded=True,
                                 fontsize=7, decimals=1)
        assert boxes[0].axes is plt.gca()
        assert len(boxes) == est.tree_.node_count
        first = boxes[0].get_text().splitlines()
        assert first[0] == "node #0" and first[1] == "feature_0 <= 4.5"
        assert not any(line.startswith("squared_error") for line in first)
        assert boxes[0].get_fontsize() == 7
        faces = [b.get_bbox_patch().get_facecolor() for b in boxes]
        assert faces[0] != faces[-1]  # coloured by value
        assert boxes[0].get_bbox_patch().get_boxstyle().__class__.__name__ == "Round"
    finally:
        plt.close("all")


def test_filled_classification_colours_by_class(two_level, ax):
    boxes = fastdt.plot_tree(two_level, filled=True, ax=ax)
    leaf_faces = {tuple(boxes[i].get_bbox_patch().get_facecolor()) for i in (3, 4, 5, 6)}
    assert len(leaf_faces) == 4  # pure leaves of four classes: four colours
    assert boxes[0].get_bbox_patch().get_facecolor()[:3] == (1.0, 1.0, 1.0)  # no majority


def test_category_names_and_missing_routing(ax):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], 200),
                       "x": rng.normal(size=200)})
    df.loc[rng.random(200) < 0.1, "x"] = np.nan
    y = ((df["colour"] == "red") | (df["x"] > 1)).to_numpy().astype(int)
    tree = fastdt.fit(df, y, max_depth=2)
    boxes = fastdt.plot_tree(tree, show_missing=True, ax=ax)
    text = "\n".join(b.get_text() for b in boxes)
    assert boxes[0].get_text().startswith("colour in {blue, green}, or missing\n")
    assert "or missing" in text
    lines = fastdt.export_text(tree, show_missing=True)
    assert boxes[0].get_text().splitlines()[0] in lines


def test_bad_arguments(two_level, ax):
    with pytest.raises(ValueError, match="max_depth"):
        fastdt.plot_tree(two_level, max_depth=-1, ax=ax)
    with pytest.raises(ValueError, match="fontsize"):
        fastdt.plot_tree(two_level, fontsize=0, ax=ax)
    with pytest.raises(ValueError, match="decimals"):
        fastdt.plot_tree(two_level, decimals=-2, ax=ax)
    with pytest.raises(ValueError, match="feature_names"):
        fastdt.plot_tree(two_level, feature_names=["a", "b"], ax=ax)
    with pytest.raises(TypeError, match="Axes"):
        fastdt.plot_tree(two_level, ax="not an axes")
    with pytest.raises(TypeError, match="Tree"):
        fastdt.plot_tree("not a tree", ax=ax)
    with pytest.raises(ValueError, match="not fitted"):
        fastdt.plot_tree(fastdt.DecisionTreeClassifier(), ax=ax)


def test_single_leaf_tree(ax):
    boxes = fastdt.plot_tree(fastdt.fit([[0.0], [1.0]], [1, 1]), ax=ax)
    assert len(boxes) == 1 and boxes[0].get_text().endswith("class = 1")


def test_import_error_names_the_extra(two_level, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(ImportError, match=r"pip install fastdt\[plot\]"):
        fastdt.plot_tree(two_level)
